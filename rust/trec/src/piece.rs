//! One piece of an input: its lines split into fields, its rows as columns.

use crate::number::{parse_real_relevance, parse_relevance, parse_score, GradeError};
use crate::{Columns, Kind, Options, Problem, Strings, Values};

/// Whitespace between fields (Python's `bytes.split()`, less the line ends, which never
/// occur inside a line).
#[inline]
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | 0x0b | 0x0c)
}

/// The result of parsing one piece; line numbers are counted from the piece's start.
#[derive(Debug)]
pub struct Piece {
    pub columns: Columns,
    /// The number of rows.
    pub rows: usize,
    /// The line of each row; None while row `r` is line `r + 1` (no line skipped).
    pub lines: Option<Vec<u32>>,
    /// Rows where the query id differs from the row before (row 0 included).
    pub query_starts: Vec<usize>,
    /// The tag of the last row (runs).
    pub tag: Option<Vec<u8>>,
    /// Lines in the piece (as `bytes.splitlines` counts them).
    pub line_count: u64,
    /// A problem that stops the reading at this piece, and its line.
    pub early: Option<(Problem, u64)>,
    /// The first row with a problem found after all pieces are read, in the order
    /// they are reported: a NaN score or a grade that is not a number, a grade out of
    /// range, a query id, a doc id.
    pub late: [Option<(usize, Problem)>; 4],
}

/// The number of lines `bytes.splitlines()` finds in `text` (`\r\n` is one line end).
fn count_lines(text: &[u8]) -> u64 {
    let mut count = 0u64;
    let mut pos = 0;
    while let Some(i) = memchr::memchr2(b'\n', b'\r', &text[pos..]) {
        let end = pos + i;
        count += 1;
        pos =
            if text[end] == b'\r' && text.get(end + 1) == Some(&b'\n') { end + 2 } else { end + 1 };
    }
    count + u64::from(pos < text.len())
}

/// Append an id; false when it is not valid UTF-8 (in UTF-8 mode).
fn push_id(out: &mut Strings, field: &[u8], latin1: bool) -> bool {
    let valid = if latin1 {
        if field.is_ascii() {
            out.data.extend_from_slice(field);
        } else {
            for &b in field {
                if b < 0x80 {
                    out.data.push(b);
                } else {
                    out.data.extend_from_slice(&[0xC0 | (b >> 6), 0x80 | (b & 0x3F)]);
                }
            }
        }
        true
    } else {
        out.data.extend_from_slice(field);
        field.is_ascii() || std::str::from_utf8(field).is_ok()
    };
    // a piece holds at most CHUNK bytes plus one line of at most `max_line` (the
    // binding keeps it under 1 GiB), so twice that fits in an i32 offset
    out.offsets.push(i32::try_from(out.data.len()).expect("piece too large for 32-bit offsets"));
    valid
}

impl Piece {
    /// The line of row `row`, counted from the piece's start.
    pub fn line(&self, row: usize) -> u64 {
        self.lines.as_ref().map_or(row as u64 + 1, |lines| u64::from(lines[row]))
    }

    pub fn parse(text: &[u8], options: &Options) -> Piece {
        let kind = options.kind;
        let expect = kind.fields();
        let estimate = text.len() / 40 + 1;
        let mut piece = Piece {
            columns: Columns {
                query_id: Strings::new(),
                doc_id: Strings::new(),
                values: match kind {
                    Kind::Run => Values::Scores(Vec::with_capacity(estimate)),
                    Kind::Qrels => Values::Grades(Vec::with_capacity(estimate)),
                    Kind::FractionalQrels => Values::Reals(Vec::with_capacity(estimate)),
                },
            },
            rows: 0,
            lines: None,
            query_starts: Vec::new(),
            tag: None,
            line_count: 0,
            early: None,
            late: [None, None, None, None],
        };
        #[cfg(test)]
        if text.starts_with(b"#panic") {
            panic!("a panic the tests ask for"); // see tests::a_panic_in_a_worker_ends_the_read
        }
        if let Some(nul) = memchr::memchr(0, text) {
            piece.early = Some((Problem::Nul, count_lines(&text[..=nul])));
            return piece;
        }
        let mut bad_score: Option<(Problem, u64)> = None;
        let mut last_tag: Option<(usize, usize)> = None;
        let mut previous_query: Option<&[u8]> = None;
        let mut fields = [(0usize, 0usize); 7];
        let mut line_no = 0u64;
        let mut pos = 0;
        while pos < text.len() {
            let (end, next) = match memchr::memchr2(b'\n', b'\r', &text[pos..]) {
                Some(i) => {
                    let end = pos + i;
                    let crlf = text[end] == b'\r' && text.get(end + 1) == Some(&b'\n');
                    (end, end + 1 + usize::from(crlf))
                }
                None => (text.len(), text.len()),
            };
            line_no += 1;
            let line = &text[pos..end];
            let line_start = pos;
            pos = next;
            if line.len() > options.max_line {
                piece.early = Some((Problem::LongLine, line_no));
                return piece;
            }
            // split into fields: up to one more than needed (a qrels line must not have it)
            let mut k = 0;
            let mut i = 0;
            while i < line.len() && k < fields.len() {
                while i < line.len() && is_space(line[i]) {
                    i += 1;
                }
                if i == line.len() {
                    break;
                }
                let start = i;
                while i < line.len() && !is_space(line[i]) {
                    i += 1;
                }
                fields[k] = (start, i);
                k += 1;
            }
            if k == 0 || line[fields[0].0] == b'#' {
                continue;
            }
            if k < expect || (kind.exact() && k > expect) {
                let got = line.split(|&b| is_space(b)).filter(|f| !f.is_empty()).count();
                piece.early = Some((Problem::Fields(got), line_no));
                return piece;
            }
            let field = |j: usize| &line[fields[j].0..fields[j].1];
            let row = piece.rows;
            let value = field(kind.value_field());
            match &mut piece.columns.values {
                Values::Scores(scores) => {
                    let score = parse_score(value);
                    if score.is_none() && bad_score.is_none() {
                        bad_score = Some((Problem::Score(value.to_vec()), line_no));
                    }
                    let score = score.unwrap_or(0.0);
                    if score.is_nan() && piece.late[0].is_none() {
                        piece.late[0] = Some((row, Problem::NanScore));
                    }
                    scores.push(score);
                    last_tag = Some((line_start + fields[5].0, line_start + fields[5].1));
                }
                Values::Grades(grades) => {
                    let grade = parse_relevance(value);
                    if let Err(why) = grade {
                        let slot = usize::from(why == GradeError::Range);
                        if piece.late[slot].is_none() {
                            piece.late[slot] = Some((row, Problem::Grade(value.to_vec())));
                        }
                    }
                    grades.push(grade.unwrap_or(0));
                }
                Values::Reals(reals) => {
                    let real = parse_real_relevance(value);
                    if real.is_none() && piece.late[0].is_none() {
                        piece.late[0] = Some((row, Problem::Grade(value.to_vec())));
                    }
                    reals.push(real.unwrap_or(0.0));
                }
            }
            let qid = field(0);
            if previous_query != Some(qid) {
                piece.query_starts.push(row);
            }
            previous_query = Some(qid);
            for (column, id) in [(1, qid), (2, field(2))] {
                let out = if column == 1 {
                    &mut piece.columns.query_id
                } else {
                    &mut piece.columns.doc_id
                };
                if !push_id(out, id, options.latin1) && piece.late[column].is_none() {
                    let problem = Problem::Utf8 { column: column - 1, value: id.to_vec() };
                    piece.late[column] = Some((row, problem));
                }
            }
            let line = u32::try_from(line_no).expect("a piece has fewer than 2^32 lines");
            if let Some(lines) = &mut piece.lines {
                lines.push(line);
            } else if u64::from(line) != row as u64 + 1 {
                let mut lines = Vec::with_capacity(estimate);
                lines.extend(1..=row as u32);
                lines.push(line);
                piece.lines = Some(lines);
            }
            piece.rows += 1;
        }
        piece.line_count = line_no;
        if let Some(bad) = bad_score {
            piece.early = Some(bad);
        }
        piece.tag = last_tag.map(|(a, b)| text[a..b].to_vec());
        piece
    }
}
