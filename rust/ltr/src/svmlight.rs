//! SVMlight ranking lines (LETOR 3.0/4.0, MSLR-WEB; Joachims 2002), the reader behind
//! `cranfield.ltr.readers.read_svmlight`.
//!
//! A line reads `label qid:Q i:v i:v ... # comment`: a label, the query id (absent in
//! LightGBM's layout, whose queries come from a `.query` file), and `index:value` pairs
//! with 1-based feature indices in any order (a missing feature is 0). What follows the
//! first `#` is a comment; its first `docid = X` names the document. Lines that are
//! empty once the comment is cut carry no document (their numbers still count). Line
//! ends are `\n` or `\r\n`; a lone `\r` separates like a space. Fields are separated
//! by ASCII whitespace (space, tab, `\x0b`, `\x0c`, `\r`).
//!
//! The whole input is given as bytes (the caller reads and decompresses it); it is cut
//! at line ends into one chunk per thread, each parsed on its own, and the chunks'
//! documents joined in order. The first problem (by line) is reported with its line
//! number; the caller words the message.

/// What was wrong, and where (1-based line numbers of the input).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// The label is not a number (the token).
    Label(Vec<u8>),
    /// No `qid:ID` after the label (a file with query ids).
    Qid,
    /// A `qid:` field although the queries come from a `.query` file.
    UnexpectedQid,
    /// A token that is not `INDEX:VALUE` (the token).
    Pair(Vec<u8>),
    /// A feature index outside `[1, max_feature]` (the index as written).
    Index(Vec<u8>),
    /// A feature index appears twice on the line.
    Twice,
    /// A feature value is NaN or infinite.
    NonFinite,
    /// No document line at all.
    Empty,
    /// The features would exceed the memory budget in the layout chosen (rows,
    /// features).
    TooLarge(usize, usize),
}

/// A problem and its line (None for the whole input).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError {
    pub problem: Problem,
    pub line: Option<u64>,
}

/// The documents of an input, in input order.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    /// The label of each document, as written (whole numbers are the caller's check).
    pub labels: Vec<f64>,
    /// The query id of each document (empty without query ids), UTF-8 with invalid
    /// bytes replaced.
    pub qids: Vec<String>,
    /// The features, dense or sparse; `width` is the largest index (at least 1).
    pub features: Features,
    pub width: usize,
    /// The `docid` of each document's comment, or None unless every document has one.
    pub docs: Option<Vec<String>>,
    /// The 1-based line number of each document.
    pub lines: Vec<u64>,
}

/// The features of the documents.
#[derive(Debug, Clone, PartialEq)]
pub enum Features {
    /// `rows x width`, row-major (a missing feature is 0).
    Dense(Vec<f64>),
    /// Compressed sparse rows: the features of row `r` are
    /// `indices[indptr[r]..indptr[r + 1]]` (0-based, strictly increasing) with their
    /// `values` (as written, zeros included); a feature not listed is 0.
    Sparse { indptr: Vec<i64>, indices: Vec<i32>, values: Vec<f64> },
}

/// The largest feature index ever read (the indices are stored as `i32`, as SciPy's
/// and LightGBM's sparse matrices hold them).
pub const MAX_INDEX: usize = i32::MAX as usize;

/// Which layout the features are returned in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    Dense,
    Sparse,
    /// Dense when the matrix has at most [`DENSE_RATIO`] cells per listed value (or at
    /// most [`DENSE_CELLS`] cells), sparse otherwise.
    Auto,
}

/// [`Layout::Auto`] reads a matrix dense when it has at most this many cells per listed
/// value (a density of 1/4 or more: the dense matrix then costs at most ~2.7 times the
/// 12 bytes per value of the sparse one, and its scoring runs on SIMD panels).
pub const DENSE_RATIO: u128 = 4;
/// ... or at most this many cells (8 MiB), whatever the density.
pub const DENSE_CELLS: u128 = 1 << 20;

/// How to read: query ids on the lines or not, the largest feature index allowed, the
/// largest feature storage (bytes; None: no limit), threads, the layout.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    pub has_qid: bool,
    pub max_feature: usize,
    pub budget: Option<u64>,
    pub threads: usize,
    pub layout: Layout,
}

/// One chunk's documents, features as (row start, column, value) triples.
#[derive(Default)]
struct Chunk {
    labels: Vec<f64>,
    qids: Vec<String>,
    starts: Vec<usize>,
    columns: Vec<u32>,
    values: Vec<f64>,
    docs: Vec<String>,
    all_docs: bool,
    lines: Vec<u64>,
    width: usize,
    newlines: u64,
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | 0x0b | 0x0c)
}

/// Parse SVMlight ranking lines.
pub fn parse(data: &[u8], options: Options) -> Result<Parsed, ReadError> {
    let threads = options.threads.max(1);
    // chunks cut just after a line end, at least ~1 MiB each
    let mut bounds = vec![0usize];
    let parts = threads.min(data.len() / (1 << 20)).max(1);
    for i in 1..parts {
        let at = (data.len() * i / parts).max(*bounds.last().unwrap_or(&0));
        let cut = data[at..].iter().position(|&b| b == b'\n').map_or(data.len(), |p| at + p + 1);
        bounds.push(cut);
    }
    bounds.push(data.len());
    bounds.dedup();
    let slices: Vec<&[u8]> = bounds.windows(2).map(|w| &data[w[0]..w[1]]).collect();
    // the last slice parsed by the calling thread (it would only wait otherwise), each
    // other on a thread of its own (none for an empty input or a single slice)
    let results: Vec<Result<Chunk, ReadError>> = match slices.split_last() {
        None => Vec::new(),
        Some((last, [])) => vec![chunk(last, options)],
        Some((last, others)) => std::thread::scope(|scope| {
            let handles: Vec<_> =
                others.iter().map(|s| scope.spawn(move || chunk(s, options))).collect();
            let last = chunk(last, options);
            let mut results: Vec<_> = handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
                .collect();
            results.push(last);
            results
        }),
    };
    // line numbers of later chunks follow the earlier chunks' lines
    let mut chunks = Vec::with_capacity(results.len());
    let mut before = 0u64;
    for result in results {
        match result {
            Ok(mut c) => {
                for l in &mut c.lines {
                    *l += before;
                }
                before += c.newlines;
                chunks.push(c);
            }
            Err(mut e) => {
                e.line = e.line.map(|l| l + before);
                return Err(e);
            }
        }
    }
    let rows: usize = chunks.iter().map(|c| c.labels.len()).sum();
    if rows == 0 {
        return Err(ReadError { problem: Problem::Empty, line: None });
    }
    let width = chunks.iter().map(|c| c.width).max().unwrap_or(0).max(1);
    let nnz: usize = chunks.iter().map(|c| c.values.len()).sum();
    let cells = (rows as u128) * (width as u128);
    let dense_bytes = cells * 8;
    let sparse_bytes = (nnz as u128) * 12 + (rows as u128 + 1) * 8;
    let fits = |need: u128| options.budget.map_or(true, |b| need <= u128::from(b));
    let dense = match options.layout {
        Layout::Dense => true,
        Layout::Sparse => false,
        Layout::Auto => {
            (cells <= DENSE_CELLS || cells <= DENSE_RATIO * (nnz as u128).max(1))
                && fits(dense_bytes)
        }
    };
    if !fits(if dense { dense_bytes } else { sparse_bytes }) {
        let used = chunks.iter().map(|c| c.width).max().unwrap_or(0);
        return Err(ReadError { problem: Problem::TooLarge(rows, used), line: None });
    }
    let mut matrix = if dense { vec![0.0; rows * width] } else { Vec::new() };
    let (mut indptr, mut indices, mut values) = if dense {
        (Vec::new(), Vec::new(), Vec::new())
    } else {
        let mut p = Vec::with_capacity(rows + 1);
        p.push(0i64);
        (p, Vec::with_capacity(nnz), Vec::with_capacity(nnz))
    };
    let mut labels = Vec::with_capacity(rows);
    let mut qids = Vec::with_capacity(if options.has_qid { rows } else { 0 });
    let mut lines = Vec::with_capacity(rows);
    let all_docs = chunks.iter().all(|c| c.all_docs);
    let mut docs = Vec::with_capacity(if all_docs { rows } else { 0 });
    let mut row = 0;
    for c in chunks {
        if dense {
            for (r, w) in c.starts.windows(2).enumerate() {
                let out = &mut matrix[(row + r) * width..(row + r + 1) * width];
                for (&col, &v) in c.columns[w[0]..w[1]].iter().zip(&c.values[w[0]..w[1]]) {
                    out[col as usize] = v;
                }
            }
        } else {
            let base = indices.len() as i64;
            indptr.extend(c.starts[1..].iter().map(|&s| base + s as i64));
            // columns are below 2^31 (max_feature is at most i32::MAX)
            indices.extend(c.columns.iter().map(|&col| col as i32));
            values.extend_from_slice(&c.values);
        }
        row += c.labels.len();
        labels.extend(c.labels);
        qids.extend(c.qids);
        lines.extend(c.lines);
        if all_docs {
            docs.extend(c.docs);
        }
    }
    let features =
        if dense { Features::Dense(matrix) } else { Features::Sparse { indptr, indices, values } };
    Ok(Parsed { labels, qids, features, width, docs: all_docs.then_some(docs), lines })
}

/// The documents of whole lines (`data` ends after a line end, or at the input's end).
fn chunk(data: &[u8], options: Options) -> Result<Chunk, ReadError> {
    let mut c = Chunk { all_docs: true, starts: vec![0], ..Chunk::default() };
    let mut pairs: Vec<(u32, f64)> = Vec::new();
    let mut line_no = 0u64;
    let mut at = 0usize;
    let mut more = true;
    while more {
        line_no += 1;
        // the fields end at '#' or the line end; the comment runs to the line end
        let mut tokens = Tokens { body: data, at };
        let first_token = tokens.next();
        let next_line = |from: usize| {
            data[from..].iter().position(|&b| b == b'\n').map_or(data.len(), |p| from + p)
        };
        let Some((label, _)) = first_token else {
            let end = next_line(tokens.at);
            more = end < data.len();
            at = end + 1;
            continue;
        };
        let err = |problem| ReadError { problem, line: Some(line_no) };
        let label = number(label).ok_or_else(|| err(Problem::Label(label.to_vec())))?;
        let mut first = tokens.next();
        if options.has_qid {
            match first {
                Some((t, _)) if t.len() > 4 && t.starts_with(b"qid:") => {
                    c.qids.push(String::from_utf8_lossy(&t[4..]).into_owned());
                    first = tokens.next();
                }
                _ => return Err(err(Problem::Qid)),
            }
        } else if first.is_some_and(|(t, _)| t.starts_with(b"qid:")) {
            return Err(err(Problem::UnexpectedQid));
        }
        // every pair parsed first (the first malformed token is named), then the
        // indices' range, then repeats, then finiteness, as the line's problems
        pairs.clear();
        let mut bad_index: Option<&[u8]> = None;
        let mut token = first;
        while let Some((t, colon)) = token {
            let Some(p) = colon else { return Err(err(Problem::Pair(t.to_vec()))) };
            let (index, value) = (&t[..p], &t[p + 1..]);
            let v = number(value).ok_or_else(|| err(Problem::Pair(t.to_vec())))?;
            let i = integer(index).ok_or_else(|| err(Problem::Pair(t.to_vec())))?;
            match i {
                Some(i) if i >= 1 && i <= options.max_feature.min(MAX_INDEX) as u64 => {
                    pairs.push((i as u32 - 1, v));
                }
                _ => {
                    if bad_index.is_none() {
                        bad_index = Some(index);
                    }
                }
            }
            token = tokens.next();
        }
        let stop = tokens.at; // at '#', '\n' or the end
        let end = next_line(stop);
        let comment = (stop < data.len() && data[stop] == b'#').then(|| &data[stop + 1..end]);
        more = end < data.len();
        at = end + 1;
        if let Some(index) = bad_index {
            return Err(err(Problem::Index(index.to_vec())));
        }
        // the pairs in index order (the order of the scoring chain); a repeat is then
        // a neighbour -- O(pairs) memory, whatever the indices
        if !pairs.windows(2).all(|p| p[0].0 <= p[1].0) {
            pairs.sort_by_key(|&(i, _)| i);
        }
        if pairs.windows(2).any(|p| p[0].0 == p[1].0) {
            return Err(err(Problem::Twice));
        }
        if let Some(&(i, _)) = pairs.last() {
            c.width = c.width.max(i as usize + 1);
        }
        if pairs.iter().any(|&(_, v)| !v.is_finite()) {
            return Err(err(Problem::NonFinite));
        }
        c.columns.extend(pairs.iter().map(|&(i, _)| i));
        c.values.extend(pairs.iter().map(|&(_, v)| v));
        c.starts.push(c.columns.len());
        c.labels.push(label);
        c.lines.push(line_no);
        if c.all_docs {
            match comment.and_then(doc_id) {
                Some(d) => c.docs.push(String::from_utf8_lossy(d).into_owned()),
                None => {
                    c.all_docs = false;
                    c.docs = Vec::new();
                }
            }
        }
    }
    // the split gives one piece after the last line end: not a line of its own
    c.newlines = line_no - 1;
    Ok(c)
}

/// The first `docid[ \t]*=[ \t]*X` of a comment, X being one or more bytes that are
/// neither whitespace nor `#`.
fn doc_id(comment: &[u8]) -> Option<&[u8]> {
    let blank = |b: u8| b == b' ' || b == b'\t';
    let mut from = 0;
    while let Some(p) = find(&comment[from..], b"docid") {
        let mut i = from + p + 5;
        while i < comment.len() && blank(comment[i]) {
            i += 1;
        }
        if i < comment.len() && comment[i] == b'=' {
            i += 1;
            while i < comment.len() && blank(comment[i]) {
                i += 1;
            }
            let start = i;
            while i < comment.len()
                && !is_space(comment[i])
                && comment[i] != b'\n'
                && comment[i] != b'#'
            {
                i += 1;
            }
            if i > start {
                return Some(&comment[start..i]);
            }
        }
        from += p + 1;
    }
    None
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The fields of a line from `at` up to its `#` or end: each token and the position of
/// its first `:`.
struct Tokens<'a> {
    body: &'a [u8],
    at: usize,
}

impl<'a> Iterator for Tokens<'a> {
    type Item = (&'a [u8], Option<usize>);

    fn next(&mut self) -> Option<Self::Item> {
        let body = self.body;
        let mut i = self.at;
        while i < body.len() && is_space(body[i]) {
            i += 1;
        }
        if i == body.len() || body[i] == b'\n' || body[i] == b'#' {
            self.at = i;
            return None;
        }
        let start = i;
        let mut colon = None;
        while i < body.len() && !is_space(body[i]) && body[i] != b'\n' && body[i] != b'#' {
            if body[i] == b':' && colon.is_none() {
                colon = Some(i - start);
            }
            i += 1;
        }
        self.at = i;
        Some((&body[start..i], colon))
    }
}

/// Powers of ten exactly representable as f64.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// A real number as Python's `float()` reads it (decimal, exponent, inf, nan),
/// correctly rounded.
///
/// Plain decimals (`[+-]digits[.digits]`, at most 15 significant digits written) take
/// the exact fast path (Clinger 1990): the digits as an integer below 2^53 divided by
/// an exact power of ten, one correctly rounded division; anything else goes to the
/// standard library's parser (also correctly rounded).
fn number(token: &[u8]) -> Option<f64> {
    let (negative, digits) = match token.first() {
        Some(b'-') => (true, &token[1..]),
        Some(b'+') => (false, &token[1..]),
        _ => (false, token),
    };
    let mut mantissa = 0u64;
    let mut count = 0usize;
    let mut fraction = None;
    for (i, &b) in digits.iter().enumerate() {
        match b {
            b'0'..=b'9' => {
                mantissa = mantissa * 10 + u64::from(b - b'0');
                count += 1;
                if count > 15 {
                    return slow(token);
                }
            }
            b'.' if fraction.is_none() => fraction = Some(i),
            _ => return slow(token),
        }
    }
    if count == 0 {
        return slow(token);
    }
    let scale = fraction.map_or(0, |f| digits.len() - f - 1);
    let v = mantissa as f64 / POW10[scale]; // scale <= count <= 15
    Some(if negative { -v } else { v })
}

fn slow(token: &[u8]) -> Option<f64> {
    let text = std::str::from_utf8(token).ok()?;
    if token.contains(&b'_') {
        return without_underscores(token)?.parse::<f64>().ok();
    }
    text.parse::<f64>().ok()
}

/// The digits without the underscores Python's `float()` and `int()` allow between two
/// digits (`1_000.5`); None for any other underscore.
fn without_underscores(token: &[u8]) -> Option<String> {
    let ok = token.iter().enumerate().all(|(i, &b)| {
        b != b'_'
            || (i > 0
                && token[i - 1].is_ascii_digit()
                && token.get(i + 1).is_some_and(u8::is_ascii_digit))
    });
    ok.then(|| token.iter().filter(|&&b| b != b'_').map(|&b| b as char).collect())
}

/// A whole number as Python's `int()` reads it: Some(Some(i)) when it fits, Some(None)
/// for a well-formed number too large (or negative), None when it is not a number.
fn integer(token: &[u8]) -> Option<Option<u64>> {
    if token.contains(&b'_') {
        return integer(without_underscores(token)?.as_bytes());
    }
    let digits = token.strip_prefix(b"+").or_else(|| token.strip_prefix(b"-")).unwrap_or(token);
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    if token[0] == b'-' {
        return Some(None);
    }
    Some(std::str::from_utf8(digits).ok()?.parse::<u64>().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(has_qid: bool) -> Options {
        Options { has_qid, max_feature: 100_000, budget: None, threads: 1, layout: Layout::Dense }
    }

    fn dense(p: &Parsed) -> &[f64] {
        match &p.features {
            Features::Dense(x) => x,
            Features::Sparse { .. } => panic!("sparse"),
        }
    }

    #[test]
    fn letor_lines() {
        let text = b"2 qid:10 1:0.5 2:0.25 3:1 #docid = GX1 inc = 1\n\
            # a comment line\n\
            \n\
            0 qid:10 3:-2 1:1e-3 #docid=GX2\r\n\
            1 qid:7\r\n";
        let p = parse(text, opts(true)).unwrap();
        assert_eq!(p.labels, vec![2.0, 0.0, 1.0]);
        assert_eq!(p.qids, vec!["10", "10", "7"]);
        assert_eq!(p.width, 3);
        assert_eq!(dense(&p), [0.5, 0.25, 1.0, 1e-3, 0.0, -2.0, 0.0, 0.0, 0.0]);
        assert_eq!(p.lines, vec![1, 4, 5]);
        assert_eq!(p.docs, None); // the last line has no docid
    }

    #[test]
    fn sparse_rows_are_sorted_by_index_and_sized_by_the_values() {
        let text = b"2 qid:1 5:0.5 2:0.25 #docid = a\n0 qid:1\n1 qid:2 2147483647:-1 1:0\n";
        let o = Options { max_feature: MAX_INDEX, layout: Layout::Sparse, ..opts(true) };
        let p = parse(text, o).unwrap();
        assert_eq!(p.width, MAX_INDEX);
        let want = Features::Sparse {
            indptr: vec![0, 2, 2, 4],
            indices: vec![1, 4, 0, 2_147_483_646],
            values: vec![0.25, 0.5, 0.0, -1.0],
        };
        assert_eq!(p.features, want);
        // auto: 3 x 2^31 cells for 4 values is sparse; a full small matrix dense
        let auto = parse(text, Options { layout: Layout::Auto, ..o }).unwrap();
        assert_eq!(auto.features, want);
        let full = parse(b"1 qid:1 1:1 2:2\n", Options { layout: Layout::Auto, ..o }).unwrap();
        assert_eq!(full.features, Features::Dense(vec![1.0, 2.0]));
        // a repeat is found whatever the order; an index beyond i32 is out of range
        let twice = parse(b"1 qid:1 9:1 3:1 9:2\n", o).unwrap_err();
        assert_eq!(twice.problem, Problem::Twice);
        let far = parse(b"1 qid:1 2147483648:1\n", o).unwrap_err();
        assert_eq!(far.problem, Problem::Index(b"2147483648".to_vec()));
        // the budget counts the sparse bytes in the sparse layout
        let small = Options { budget: Some(100), ..o };
        assert_eq!(parse(b"1 qid:1 1000000:1\n", small).unwrap().width, 1_000_000);
        let big = Options { layout: Layout::Dense, ..small };
        assert!(parse(b"1 qid:1 1000000:1\n", big).is_err());
    }

    #[test]
    fn doc_ids_from_each_comment() {
        let p =
            parse(b"1 qid:1 1:1 # x docid = a # docid = z\n0 qid:1 #docid\t=\tb c\n", opts(true));
        assert_eq!(p.unwrap().docs, Some(vec!["a".to_string(), "b".to_string()]));
        assert_eq!(doc_id(b" docid = "), None);
        assert_eq!(doc_id(b" docid x docid=y"), Some(&b"y"[..]));
    }

    #[test]
    fn problems_and_their_lines() {
        let cases: Vec<(&[u8], bool, Problem, Option<u64>)> = vec![
            (b"1 qid:1 1:0.5\nx qid:1 1:2\n", true, Problem::Label(b"x".to_vec()), Some(2)),
            (b"1 qid:1 1:0.5\n1 1:2\n", true, Problem::Qid, Some(2)),
            (b"1 qid: 1:2\n", true, Problem::Qid, Some(1)),
            (b"1 qid:1 1:zz\n", true, Problem::Pair(b"1:zz".to_vec()), Some(1)),
            (b"1 qid:1 0:1 x\n", true, Problem::Pair(b"x".to_vec()), Some(1)),
            (b"1 qid:1 0:0.5\n", true, Problem::Index(b"0".to_vec()), Some(1)),
            (b"1 qid:1 100001:0.5\n", true, Problem::Index(b"100001".to_vec()), Some(1)),
            (b"1 qid:1 1:0.5 1:0.7\n", true, Problem::Twice, Some(1)),
            (b"\n\n1 qid:1 1:nan\n", true, Problem::NonFinite, Some(3)),
            (b"1 qid:1 1:2\n", false, Problem::UnexpectedQid, Some(1)),
            (b"# only\n\n", true, Problem::Empty, None),
        ];
        for (text, has_qid, problem, line) in cases {
            let got = parse(text, opts(has_qid)).unwrap_err();
            assert_eq!(got, ReadError { problem, line }, "{}", String::from_utf8_lossy(text));
        }
        let budget = Options { budget: Some(1000), ..opts(true) };
        let got = parse(b"0 qid:1 1000:1\n", budget).unwrap_err();
        assert_eq!(got.problem, Problem::TooLarge(1, 1000));
    }

    #[test]
    fn numbers_are_read_as_the_standard_parser_reads_them() {
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let fixed = ["0", "-0", "-0.0", "+1.5", ".5", "5.", "1e3", "1E-3", "inf", "-nan", "007"];
        let mut tokens: Vec<String> = fixed.iter().map(|s| s.to_string()).collect();
        for _ in 0..200_000 {
            let digits = 1 + next() % 18;
            let m = next() % 10u64.pow(digits as u32);
            let mut text = format!("{m:0width$}", width = digits as usize);
            let point = (next() % (digits + 1)) as usize;
            if point < text.len() {
                text.insert(point, '.');
            }
            if next() % 3 == 0 {
                text.insert(0, '-');
            }
            tokens.push(text);
        }
        for t in &tokens {
            let want: f64 = t.parse().unwrap();
            let got = number(t.as_bytes()).unwrap();
            assert!(got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()), "{t}");
        }
        assert_eq!(number(b"1_000.2_5"), Some(1000.25));
        assert_eq!(integer(b"1_0"), Some(Some(10)));
        for bad in ["", "-", ".", "1.2.3", "1e", "x", "_1", "1__0", "1_", "--1"] {
            assert_eq!(number(bad.as_bytes()), None, "{bad}");
        }
    }

    #[test]
    fn hostile_bytes_give_a_result_or_a_problem_never_a_panic() {
        let alphabet: &[&[u8]] = &[
            b"0",
            b"1",
            b"9",
            b".",
            b"-",
            b"+",
            b"e",
            b"_",
            b":",
            b"qid:",
            b"#",
            b"docid",
            b"=",
            b" ",
            b"\t",
            b"\n",
            b"\r",
            b"\x0c",
            b"\xff",
            b"\xe9",
            b"nan",
            b"inf",
            b"100001",
            b"99999999999999999999",
            b"\0",
        ];
        let mut state = 99u64;
        let mut next = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 33) as usize
        };
        for _ in 0..20_000 {
            let mut text = Vec::new();
            for _ in 0..next() % 40 {
                text.extend_from_slice(alphabet[next() % alphabet.len()]);
            }
            for has_qid in [true, false] {
                if let Ok(p) = parse(&text, Options { budget: Some(1 << 24), ..opts(has_qid) }) {
                    assert_eq!(dense(&p).len(), p.labels.len() * p.width);
                    assert_eq!(p.lines.len(), p.labels.len());
                    assert!(dense(&p).iter().all(|v| v.is_finite()));
                }
            }
        }
    }

    #[test]
    fn chunks_on_threads_equal_one_chunk() {
        let mut text = Vec::new();
        for i in 0..60_000u64 {
            let q = i / 37;
            text.extend_from_slice(
                format!("{} qid:{q} 1:{} 3:{}.25 #docid = d{i}\n", i % 3, i % 7, i % 11).as_bytes(),
            );
            if i % 1000 == 0 {
                text.extend_from_slice(b"# comment\n");
            }
        }
        let one = parse(&text, opts(true)).unwrap();
        let four = parse(&text, Options { threads: 4, ..opts(true) }).unwrap();
        assert_eq!(one, four);
        assert_eq!(one.lines.last(), Some(&(60_000 + 60)));
        text.extend_from_slice(b"1 qid:1 2:x\n");
        let err = parse(&text, Options { threads: 4, ..opts(true) }).unwrap_err();
        assert_eq!(err.line, Some(60_061));
    }
}
