use super::*;

fn options(kind: Kind) -> Options {
    Options { kind, latin1: false, max_line: 1 << 26, threads: 2 }
}

fn run(text: &[u8]) -> Result<Parsed, Error> {
    parse(text, &options(Kind::Run))
}

fn qrels(text: &[u8]) -> Result<Parsed, Error> {
    parse(text, &options(Kind::Qrels))
}

fn strings(parsed: &Parsed, column: usize) -> Vec<String> {
    let mut out = Vec::new();
    for c in &parsed.columns {
        let rows = c.query_id.to_rows().unwrap();
        let s = if column == 0 { &rows } else { &c.doc_id };
        out.extend((0..s.len()).map(|i| String::from_utf8(s.get(i).to_vec()).unwrap()));
    }
    out
}

fn scores(parsed: &Parsed) -> Vec<f64> {
    let mut out = Vec::new();
    for c in &parsed.columns {
        match &c.values {
            Values::Scores(v) => out.extend(v),
            _ => panic!("a run has scores"),
        }
    }
    out
}

fn error(result: Result<Parsed, Error>) -> (Problem, Option<u64>) {
    let err = result.expect_err("an error");
    (err.problem, err.line)
}

#[test]
fn clean_run() {
    let p = run(b"1 Q0 a 1 2.5 tag\n1 Q0 b 2 1 tag\n2 Q0 c 1 -3 last\n").unwrap();
    assert_eq!(p.rows, 3);
    assert_eq!(strings(&p, 0), ["1", "1", "2"]);
    assert_eq!(strings(&p, 1), ["a", "b", "c"]);
    assert_eq!(scores(&p), [2.5, 1.0, -3.0]);
    assert_eq!(p.lines, None);
    assert_eq!(p.query_starts, [0, 2, 3]);
    assert_eq!(p.tag.as_deref(), Some(&b"last"[..]));
}

#[test]
fn whitespace_comments_and_line_ends_like_trec_eval() {
    let text = b"\xef\xbb\xbf# comment\n\n \t1\x0bQ0  a 1 2 t extra\r\n#x\r  \n1 Q0 b 2 1 u";
    let p = run(text).unwrap();
    assert_eq!(strings(&p, 1), ["a", "b"]);
    assert_eq!(p.lines, Some(vec![3, 6]));
    assert_eq!(p.tag.as_deref(), Some(&b"u"[..]));
}

#[test]
fn qrels_grades() {
    let p = qrels(b"1 0 a 2.7\n1 0 b -0.5\n2 0 c +3\n").unwrap();
    match &p.columns[0].values {
        Values::Grades(g) => assert_eq!(g, &[2, 0, 3]),
        _ => panic!("qrels have grades"),
    }
    assert_eq!(p.tag, None);
}

#[test]
fn fractional_qrels_keep_the_fraction() {
    let options = options(Kind::FractionalQrels);
    let p = parse(b"1 0 a 2.7\n1 0 b -0.5\n2 0 c 1e-1\n", &options).unwrap();
    match &p.columns[0].values {
        Values::Reals(r) => assert_eq!(r, &[2.7, -0.5, 0.1]),
        _ => panic!("fractional qrels have real values"),
    }
    let (problem, line) = error(parse(b"1 0 a 1\n1 0 b inf\n", &options));
    assert_eq!((problem, line), (Problem::Grade(b"inf".to_vec()), Some(2)));
    let (problem, line) = error(parse(b"1 0 a 1 x\n", &options));
    assert_eq!((problem, line), (Problem::Fields(5), Some(1)));
}

#[test]
fn field_counts() {
    assert_eq!(error(run(b"1 Q0 a 1 2 t\n1 Q0 b 2\n")), (Problem::Fields(4), Some(2)));
    assert_eq!(error(qrels(b"1 0 a 1\n\n1 0 b 1 x y z\n")), (Problem::Fields(7), Some(3)));
    assert_eq!(error(qrels(b"1 0 a\n")), (Problem::Fields(3), Some(1)));
}

#[test]
fn problems_in_their_order() {
    // within a piece: a NUL byte first, then the first bad line, then the first bad score
    assert_eq!(error(run(b"1 Q0 a 1 x t\n1 Q0 b\n1 Q0 c 1 2 \0\n")), (Problem::Nul, Some(3)));
    assert_eq!(error(run(b"1 Q0 a 1 x t\n1 Q0 b\n")), (Problem::Fields(3), Some(2)));
    assert_eq!(
        error(run(b"1 Q0 a 1 1 t\n1 Q0 a 1 x t\n")),
        (Problem::Score(b"x".to_vec()), Some(2))
    );
    // then NaN, then the ids (query ids before doc ids)
    assert_eq!(error(run(b"1 Q0 \xff 1 1 t\n1 Q0 b 1 nan t\n")), (Problem::NanScore, Some(2)));
    let bad = error(run(b"1 Q0 \xff 1 1 t\n\xfe Q0 b 1 1 t\n"));
    assert_eq!(bad, (Problem::Utf8 { column: 0, value: vec![0xfe] }, Some(2)));
    assert_eq!(error(qrels(b"1 0 a 1e3\n")), (Problem::Grade(b"1e3".to_vec()), Some(1)));
    let long = Options { max_line: 20, ..options(Kind::Run) };
    assert_eq!(
        error(parse(b"1 Q0 a 1 1 t\n1 Q0 a 1 1 tagtoolong\n", &long)),
        (Problem::LongLine, Some(2))
    );
}

#[test]
fn empty_input_has_no_rows() {
    for text in [&b""[..], b"\n\n", b"# only a comment\n", b"\xef\xbb\xbf"] {
        let p = run(text).unwrap();
        assert_eq!((p.rows, p.columns.len(), p.query_starts.as_slice()), (0, 0, &[0i64][..]));
    }
}

#[test]
fn latin1_ids_and_the_byte_order_mark() {
    let latin1 = Options { latin1: true, ..options(Kind::Run) };
    let p = parse(b"\xef\xbb\xbf1 Q0 \xe9 1 1 t\n", &latin1).unwrap();
    assert_eq!(strings(&p, 0), ["\u{ef}\u{bb}\u{bf}1"]);
    assert_eq!(strings(&p, 1), ["\u{e9}"]);
    let p = run(b"\xef\xbb\xbf1 Q0 \xc3\xa9 1 1 t\n").unwrap();
    assert_eq!((strings(&p, 0), strings(&p, 1)), (vec!["1".to_string()], vec!["é".to_string()]));
}

#[test]
fn pieces_join_seamlessly() {
    // several pieces, queries spanning their boundaries, a skipped line in each
    let mut text = Vec::new();
    let mut want = Vec::new();
    let mut query = 0;
    while text.len() < 3 * CHUNK {
        if want.len() % 50_000 == 0 {
            text.extend_from_slice(b"# a comment\n");
        }
        if want.len() % 1000 == 0 {
            query += 1;
        }
        let row = want.len();
        text.extend_from_slice(format!("{query} Q0 d{row} {row} {row}.5 tag{row}\n").as_bytes());
        want.push(row);
    }
    for threads in [1, 2, 3] {
        let p = parse(&text, &Options { threads, ..options(Kind::Run) }).unwrap();
        assert!(p.columns.len() >= 3);
        assert_eq!(p.rows, want.len());
        let docs = strings(&p, 1);
        assert!(docs.iter().enumerate().all(|(i, d)| *d == format!("d{i}")));
        let starts: Vec<i64> = (0..query).map(|q| q * 1000).chain([want.len() as i64]).collect();
        assert_eq!(p.query_starts, starts);
        let lines = p.lines.unwrap();
        assert!(lines.iter().enumerate().all(|(r, &l)| l == (r + 1 + r / 50_000 + 1) as i64));
        assert_eq!(p.tag, Some(format!("tag{}", want.len() - 1).into_bytes()));
    }
    // the first problem is the one in the earliest piece, whatever the threads
    let mut bad = text.clone();
    let late = bad.len() - 100;
    bad[late..late + 1].copy_from_slice(b"\0");
    let early = bad.iter().position(|&b| b == b'.').unwrap();
    bad[early] = b'x'; // "0x5": not a number, in the first piece
    for threads in [1, 2] {
        let err = parse(&bad, &Options { threads, ..options(Kind::Run) }).unwrap_err();
        assert_eq!(err, Error { problem: Problem::Score(b"0x5".to_vec()), line: Some(2) });
    }
}

fn same(a: &Parsed, b: &Parsed) -> bool {
    a.columns == b.columns
        && a.lines == b.lines
        && a.query_starts == b.query_starts
        && a.tag == b.tag
        && a.rows == b.rows
}

#[test]
fn reading_piece_by_piece_equals_parsing_in_memory() {
    let mut text = Vec::new();
    let mut row = 0;
    while text.len() < 2 * CHUNK + 12345 {
        if row % 70_001 == 0 {
            text.extend_from_slice(b"\n");
        }
        text.extend_from_slice(format!("{} Q0 d{row} 1 {row} t{row}\r\n", row / 999).as_bytes());
        row += 1;
    }
    text.extend_from_slice(b"9 Q0 last 1 1 end"); // no final line end
    for threads in [1, 2] {
        let options = Options { threads, ..options(Kind::Run) };
        let whole = parse(&text, &options).unwrap();
        let read = read(&text[..], &options).unwrap();
        assert!(same(&whole, &read));
        assert_eq!(read.rows, row + 1);
    }
}

#[test]
fn reading_reports_a_nul_byte_before_any_other_problem() {
    // a bad line in the first piece, a NUL byte far later: the NUL byte is reported,
    // as when the whole text is checked while read before it is parsed
    let mut text = b"1 Q0 a\n".to_vec();
    while text.len() < CHUNK + check::PIECE {
        text.extend_from_slice(b"1 Q0 b 1 1 t\n");
    }
    let lines = text.iter().filter(|&&b| b == b'\n').count() as u64;
    text.extend_from_slice(b"1 Q0 c 1 1 \0\n");
    match read(&text[..], &options(Kind::Run)) {
        Err(ReadError::Input(err)) => {
            assert_eq!(err, Error { problem: Problem::Nul, line: Some(lines + 1) })
        }
        other => panic!("expected the NUL byte, got {other:?}"),
    }
    // parsed in memory, the NUL byte is in a later piece than the bad line
    assert_eq!(error(run(&text)), (Problem::Fields(3), Some(1)));
}

#[test]
fn a_panic_in_a_worker_ends_the_read() {
    // every piece panics: the producer must not wait for a full channel, and the panic
    // comes back to the caller (the binding turns it into an error) instead of a hang
    let piece = [b"#panic\n".to_vec(), vec![b'x'; CHUNK], b"\n".to_vec()].concat();
    let text = piece.repeat(6);
    for threads in [1, 2] {
        let options = Options { threads, ..options(Kind::Run) };
        let outcome = std::panic::catch_unwind(|| parse(&text, &options));
        assert!(outcome.is_err());
        let outcome = std::panic::catch_unwind(|| read(&text[..], &options));
        assert!(outcome.is_err());
    }
}

#[test]
fn a_piece_without_memory_is_an_error() {
    // a piece whose columns cannot be had (the tests' marker stands for the failed
    // allocation) ends the read with `Problem::Memory`, without a line, whatever comes
    // before and after it; the pieces after it are not needed
    let good = [b"q1 Q0 d 1 1 t\n".repeat(CHUNK / 14 + 1)].concat();
    let starved = [b"#no room\n".to_vec(), vec![b'x'; CHUNK], b"\n".to_vec()].concat();
    let bad_later = b"q1 Q0 d 1 x t\n".to_vec();
    for text in [starved.clone(), [good.clone(), starved.clone(), bad_later].concat()] {
        for threads in [1, 3] {
            let options = Options { threads, ..options(Kind::Run) };
            let want = Error { problem: Problem::Memory, line: None };
            assert_eq!(parse(&text, &options).unwrap_err(), want);
            match read(&text[..], &options) {
                Err(ReadError::Input(err)) => assert_eq!(err, want),
                other => panic!("{other:?}"),
            }
        }
    }
    // a problem in a piece before it is still reported first
    let text = [b"q1 Q0 d 1\n".to_vec(), good, starved].concat();
    assert_eq!(error(run(&text)), (Problem::Fields(4), Some(1)));
}

/// A reader giving at most `step` bytes a call (a pipe, a slow file).
struct Trickle<'a> {
    text: &'a [u8],
    step: usize,
}

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = self.step.min(out.len()).min(self.text.len());
        out[..n].copy_from_slice(&self.text[..n]);
        self.text = &self.text[n..];
        Ok(n)
    }
}

#[test]
fn short_lines_and_short_reads_fill_the_buffers_exactly() {
    // lines of 13 bytes: more rows than the room a piece starts with, so its columns grow
    let mut text = Vec::new();
    let mut row = 0;
    while text.len() < CHUNK + check::PIECE + 5 {
        text.extend_from_slice(format!("{} Q0 d 1 {} t\n", row / 5000 % 10, row % 10).as_bytes());
        row += 1;
    }
    for threads in [1, 2] {
        let options = Options { threads, ..options(Kind::Run) };
        let whole = parse(&text, &options).unwrap();
        assert_eq!(whole.rows, row);
        assert!(scores(&whole).iter().enumerate().all(|(i, &s)| s == (i % 10) as f64));
        for step in [1 << 20, 7777, (1 << 20) + 1] {
            let read = read(Trickle { text: &text, step }, &options).unwrap();
            assert!(same(&whole, &read), "step {step}");
        }
        // an empty input and one of exactly one piece
        let empty = read(Trickle { text: b"", step: 10 }, &options).unwrap();
        assert_eq!((empty.rows, empty.columns.len()), (0, 0));
        let cut = memchr::memchr(b'\n', &text[CHUNK..]).unwrap() + CHUNK + 1;
        let one = read(Trickle { text: &text[..cut], step: 4096 }, &options).unwrap();
        assert!(same(&parse(&text[..cut], &options).unwrap(), &one));
    }
}

/// A xorshift generator: random test inputs, the same at every run.
pub(crate) struct Random(pub(crate) u64);

impl Random {
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// A random run: query ids in blocks of random lengths (some ids coming back later,
/// some not UTF-8 when `bad`), comments and blank lines between, and the query id of
/// every data line, as the old per-row column held it.
fn random_run(random: &mut Random, lines: usize, bad: bool) -> (Vec<u8>, Vec<Vec<u8>>) {
    const IDS: [&[u8]; 6] = [b"1", b"2", b"10", b"q\xc3\xa9", b"a-long-query-id-0042", b"q\xe9"];
    let ids = if bad { &IDS[..] } else { &IDS[..5] };
    let mut text = Vec::new();
    let mut want = Vec::new();
    let mut id: &[u8] = ids[0];
    for row in 0..lines {
        if random.below(4) == 0 {
            id = ids[random.below(ids.len() as u64) as usize];
        }
        match random.below(20) {
            0 => text.extend_from_slice(b"# a comment\n"),
            1 => text.extend_from_slice(b" \t\r\n"),
            _ => {}
        }
        text.extend_from_slice(id);
        text.extend_from_slice(format!(" Q0 d{row} {row} {} t\n", random.below(100)).as_bytes());
        want.push(id.to_vec());
    }
    (text, want)
}

/// The query id of every row of a parsed input, from its blocks.
fn query_ids(parsed: &Parsed) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for c in &parsed.columns {
        let ids = &c.query_id;
        out.extend((0..ids.len()).map(|row| ids.get(row).to_vec()));
        let rows = ids.to_rows().unwrap();
        assert_eq!(rows.len(), ids.len());
        assert!((0..ids.len()).all(|row| rows.get(row) == ids.get(row)));
        assert_eq!(&QueryIds::from_rows(&rows), ids);
    }
    out
}

/// The rows where the query id differs from the row before, then the number of rows.
fn starts_of(ids: &[Vec<u8>]) -> Vec<i64> {
    let mut starts: Vec<i64> =
        (0..ids.len()).filter(|&r| r == 0 || ids[r] != ids[r - 1]).map(|r| r as i64).collect();
    starts.push(ids.len() as i64);
    starts
}

#[test]
fn query_ids_by_block_give_every_row_its_id() {
    let mut random = Random(0x2545_f491_4f6c_dd1d);
    for case in 0..300 {
        let (text, want) = random_run(&mut random, case % 40, false);
        let p = run(&text).unwrap();
        assert_eq!(query_ids(&p), want);
        assert_eq!(p.query_starts, starts_of(&want));
        for c in &p.columns {
            let ids = &c.query_id;
            // one id per block: adjacent blocks differ, each block non-empty
            assert_eq!(ids.ids.len(), ids.starts.len());
            assert_eq!(ids.starts.first(), Some(&0));
            assert!((1..ids.ids.len()).all(|b| ids.ids.get(b) != ids.ids.get(b - 1)));
            assert!((0..ids.ids.len()).all(|b| !ids.rows_of(b).is_empty()));
        }
    }
}

#[test]
fn query_ids_by_block_in_latin1_and_their_utf8_problems() {
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    let latin1 = Options { latin1: true, ..options(Kind::Run) };
    for case in 0..300 {
        let (text, want) = random_run(&mut random, 1 + case % 40, true);
        let recoded: Vec<Vec<u8>> = want
            .iter()
            .map(|id| id.iter().map(|&b| b as char).collect::<String>().into())
            .collect();
        assert_eq!(query_ids(&parse(&text, &latin1).unwrap()), recoded);
        // in UTF-8, the first row whose id is not UTF-8 is the problem, at its line
        let first_bad = want.iter().position(|id| std::str::from_utf8(id).is_err());
        match (run(&text), first_bad) {
            (Ok(p), None) => assert_eq!(query_ids(&p), want),
            (Err(err), Some(row)) => {
                let data_lines: Vec<usize> = text
                    .split(|&b| b == b'\n')
                    .enumerate()
                    .filter(|(_, line)| line.first().is_some_and(|&b| b != b'#' && b > b' '))
                    .map(|(i, _)| i + 1)
                    .collect();
                let value = want[row].clone();
                let line = Some(data_lines[row] as u64);
                assert_eq!(err, Error { problem: Problem::Utf8 { column: 0, value }, line });
            }
            (other, bad) => panic!("{other:?} for the first bad row {bad:?}"),
        }
    }
}

#[test]
fn query_ids_by_block_across_pieces_cut_anywhere() {
    // the text cut into two pieces after every line: a query's block split in two
    // (its id stored in both pieces) still starts once in the joined input
    let mut random = Random(0xdead_beef_cafe_f00d);
    for _ in 0..20 {
        let (text, want) = random_run(&mut random, 30, false);
        let options = options(Kind::Run);
        let whole = parse(&text, &options).unwrap();
        let ends = text.iter().enumerate().filter(|(_, &b)| b == b'\n').map(|(i, _)| i + 1);
        for cut in std::iter::once(0).chain(ends) {
            let pieces = vec![
                Piece::parse(&text[..cut], &options, false),
                Piece::parse(&text[cut..], &options, false),
            ];
            let joined = assemble(pieces).unwrap();
            assert_eq!(query_ids(&joined), want, "cut at {cut}");
            assert_eq!(joined.query_starts, whole.query_starts, "cut at {cut}");
            assert_eq!(joined.lines, whole.lines, "cut at {cut}");
        }
    }
}
