use std::io::Write;
use std::path::{Path, PathBuf};

use cranfield_trec::{parse, Kind, Options, Parsed, Problem};

use super::*;
use crate::judge::Duplicates;

/// A file in a fresh temporary directory, removed with it.
struct Temp(PathBuf);

impl Temp {
    fn new(name: &str, bytes: &[u8]) -> Temp {
        static COUNT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("cranfield-stream-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        Temp(path)
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        if let Some(dir) = self.0.parent() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

fn parsed(text: &[u8], kind: Kind) -> Parsed {
    let options = Options { kind, latin1: false, max_line: 1 << 20, threads: 2 };
    parse(text, &options).expect("valid test input")
}

/// A small deterministic generator (the tests need no crate).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) % n.max(1)
    }
}

/// Random qrels and a run grouped by query (queries in no particular order), with
/// blank lines, comments, `\r\n` and lone `\r` line ends between queries, ties and
/// documents unknown to the qrels.
fn collection(seed: u64) -> (Vec<u8>, Vec<u8>) {
    let mut rng = Lcg(seed);
    let mut qrels = String::new();
    for q in 0..12 {
        for d in 0..rng.next(20) {
            qrels += &format!("q{q} 0 d{} {}\n", d * 3 % 40, rng.next(5) as i64 - 1);
        }
    }
    qrels += "z 0 d1 1\n";
    let mut queries: Vec<u64> = (0..14).collect();
    for i in (1..queries.len()).rev() {
        queries.swap(i, rng.next(i as u64 + 1) as usize);
    }
    let mut run = String::new();
    for q in queries {
        let n = rng.next(30) + u64::from(q == 0);
        for d in 0..n {
            let score = rng.next(6) as f64 / 2.0;
            let end = match rng.next(10) {
                0 => "\r\n",
                1 => "\r",
                _ => "\n",
            };
            run += &format!("q{q} Q0 d{} {d} {score} tag{seed}{end}", (d * 7 + q) % 45);
        }
        match rng.next(4) {
            0 => run += "# a comment\n\n",
            1 => run += "\n\n\n",
            _ => {}
        }
    }
    (qrels.into_bytes(), run.into_bytes())
}

/// [`judge_run_streamed`] with the qrels prepared here.
fn streamed(
    path: &Path,
    qrels: &Parsed,
    reading: &Reading,
    options: &JudgeOptions,
) -> Result<Judged, JudgeError> {
    let prepared = Prepared::new(qrels, options.qrels_duplicates, 2);
    judge_run_streamed(path, qrels, &prepared, reading, options)
}

fn reading(piece_bytes: usize, regroup_bytes: u64) -> Reading {
    Reading { piece_bytes, regroup_bytes, whole_bytes: 0, threads: 2, ..Reading::default() }
}

fn whole(run: &[u8], qrels: &Parsed, options: &JudgeOptions) -> Result<Judged, JudgeError> {
    crate::judge::judge_with(&parsed(run, Kind::Run), qrels, options, 2)
}

fn option_sets() -> Vec<JudgeOptions> {
    let base = JudgeOptions::default();
    vec![
        base.clone(),
        JudgeOptions { complete: true, ..base.clone() },
        JudgeOptions { depth: Some(4), judged_only: true, ..base.clone() },
        JudgeOptions { compat: 9, rel_level: 2, complete: true, ..base.clone() },
    ]
}

#[test]
fn pieces_of_any_size_give_the_whole_runs_judgment() {
    for seed in 0..12 {
        let (q, r) = collection(seed);
        let qrels = parsed(&q, Kind::Qrels);
        let file = Temp::new("run.txt", &r);
        for options in option_sets() {
            let expected = whole(&r, &qrels, &options).unwrap();
            for piece in [1, 7, 40, 100, 333, 1000, 1 << 20, 0] {
                // no budget for a whole read: every piece boundary is a query's start
                let got = streamed(&file.0, &qrels, &reading(piece, 0), &options);
                assert_eq!(got.unwrap(), expected, "seed {seed}, pieces of {piece}");
            }
        }
    }
}

#[test]
fn gzip_runs_stream_too() {
    let (q, r) = collection(3);
    let qrels = parsed(&q, Kind::Qrels);
    // two members: the reader goes on after the first
    let (a, b) = r.split_at(r.len() / 2);
    let mut gz = Vec::new();
    for part in [a, b] {
        let mut encoder = flate2_member(part);
        gz.append(&mut encoder);
    }
    let file = Temp::new("run.gz", &gz);
    let expected = whole(&r, &qrels, &JudgeOptions::default()).unwrap();
    for piece in [16, 300] {
        let got = streamed(&file.0, &qrels, &reading(piece, 0), &JudgeOptions::default());
        assert_eq!(got.unwrap(), expected);
    }
}

/// One gzip member holding `data` (stored blocks: no compressor needed here).
fn flate2_member(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    let mut chunks = data.chunks(65535).peekable();
    if chunks.peek().is_none() {
        out.extend_from_slice(&[1, 0, 0, 0xff, 0xff]);
    }
    while let Some(chunk) = chunks.next() {
        out.push(u8::from(chunks.peek().is_none()));
        let len = chunk.len() as u16;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(chunk);
    }
    out.write_all(&crc32(data).to_le_bytes()).unwrap();
    out.write_all(&(data.len() as u32).to_le_bytes()).unwrap();
    out
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xedb8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

const SCATTERED: &[u8] = b"a Q0 d1 1 3 t\na Q0 d2 2 2 t\nb Q0 d1 1 3 t\nb Q0 d3 2 1 t\n\
# comment\n\na Q0 d3 3 1 t\nc Q0 d1 1 1 t\n";

#[test]
fn a_query_reappearing_in_a_later_piece_is_named_with_its_line() {
    let qrels = parsed(b"a 0 d1 1\nb 0 d3 1\nc 0 d1 0\n", Kind::Qrels);
    let file = Temp::new("run.txt", SCATTERED);
    let options = JudgeOptions::default();
    let err = streamed(&file.0, &qrels, &reading(30, 0), &options).unwrap_err();
    match err {
        JudgeError::Regrouped { path, query, line } => {
            assert_eq!((query.as_slice(), line), (&b"a"[..], 7));
            assert_eq!(path, file.0);
        }
        other => panic!("expected Regrouped, got {other:?}"),
    }
    // within the budget for a whole read (or in one piece): judged as a whole file
    let expected = whole(SCATTERED, &qrels, &options).unwrap();
    let budget = SCATTERED.len() as u64;
    assert_eq!(streamed(&file.0, &qrels, &reading(30, budget), &options).unwrap(), expected);
    let one = reading(SCATTERED.len() + 1, 0);
    assert_eq!(streamed(&file.0, &qrels, &one, &options).unwrap(), expected);
    // a plain file within `whole_bytes` is read whole, whatever the pieces
    let small = Reading { whole_bytes: budget, ..reading(30, 0) };
    assert_eq!(streamed(&file.0, &qrels, &small, &options).unwrap(), expected);
    // one byte over the budget: the error
    let over = reading(30, budget - 1);
    assert!(matches!(
        streamed(&file.0, &qrels, &over, &options),
        Err(JudgeError::Regrouped { line: 7, .. })
    ));
}

#[test]
fn errors_past_the_first_piece_name_the_lines_of_the_file() {
    let (q, r) = collection(5);
    let qrels = parsed(&q, Kind::Qrels);
    let text = String::from_utf8(r).unwrap();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let at = lines.len() * 3 / 4;
    let dup_of = lines[..at].iter().rposition(|l| l.starts_with('q')).unwrap();
    let cases: Vec<(String, bool)> = vec![
        (format!("{}x Q0 d1 1\n{}", lines[..at].concat(), lines[at..].concat()), false),
        (format!("{}x Q0 d1 1 nan t\n{}", lines[..at].concat(), lines[at..].concat()), false),
        (format!("{}{}{}", lines[..at].concat(), lines[dup_of], lines[at..].concat()), true),
    ];
    let options = JudgeOptions { duplicates: Duplicates::Error, ..JudgeOptions::default() };
    for (bad, duplicate) in cases {
        let file = Temp::new("bad.txt", bad.as_bytes());
        let got = streamed(&file.0, &qrels, &reading(64, 0), &options).unwrap_err();
        let read_whole = reading(0, u64::MAX);
        let expected = streamed(&file.0, &qrels, &read_whole, &options).unwrap_err();
        assert_eq!(got.to_string(), expected.to_string());
        assert_eq!(matches!(got, JudgeError::Duplicate { .. }), duplicate);
    }
}

#[test]
fn empty_runs_and_pieces_of_blank_lines() {
    let qrels = parsed(b"a 0 d1 1\n", Kind::Qrels);
    let options = JudgeOptions::default();
    for text in [&b""[..], b"\n\n\n", b"# only a comment\n\n"] {
        let file = Temp::new("empty.txt", text);
        let got = streamed(&file.0, &qrels, &reading(2, 0), &options);
        assert!(matches!(got, Err(JudgeError::Empty(Input::Run))), "{got:?}");
    }
    // many blank lines and comments between two queries, cut anywhere
    let text = b"a Q0 d1 1 1 t\n\n\n\n# c\n\n\n\n\n# d\nb Q0 d1 1 1 t\n\n";
    let file = Temp::new("blank.txt", text);
    let expected = whole(text, &qrels, &options).unwrap();
    for piece in 1..text.len() + 2 {
        let got = streamed(&file.0, &qrels, &reading(piece, 0), &options).unwrap();
        assert_eq!(got, expected, "pieces of {piece}");
    }
}

#[test]
fn a_nul_byte_stops_the_reading_at_its_line() {
    let qrels = parsed(b"a 0 d1 1\n", Kind::Qrels);
    let mut text: Vec<u8> =
        (0..40).flat_map(|i| format!("q{i} Q0 d1 1 1 t\n").into_bytes()).collect();
    text.extend_from_slice(&[0; 100]);
    let file = Temp::new("nul.txt", &text);
    match streamed(&file.0, &qrels, &reading(50, 0), &JudgeOptions::default()) {
        Err(JudgeError::Read { error, .. }) => {
            assert_eq!((error.problem, error.line), (Problem::Nul, Some(41)));
        }
        other => panic!("expected a NUL byte, got {other:?}"),
    }
}

#[test]
fn the_cut_is_at_the_start_of_the_last_query() {
    assert_eq!(last_group_start(b"a 1\na 2\nb 1\nb 2\nb", false, false), 8);
    assert_eq!(last_group_start(b"a 1\na 2\n# x\n\nb 1\n", false, false), 8);
    assert_eq!(last_group_start(b"a 1\na 2\n", false, false), 0);
    assert_eq!(last_group_start(b"a 1 no line end", false, false), 0);
    // never before a byte-order mark: the group before it goes too
    assert_eq!(last_group_start(b"a 1\nb 1\n\xef\xbb\xbfc 1\n", false, false), 4);
    assert_eq!(last_group_start(b"a 1\nb 1\n\xef\xbb\xbfc 1\n", true, false), 8);
    assert_eq!(last_group_start(b"\xef\xbb\xbfa 1\na 2\n", false, true), 0);
    assert_eq!(last_group_start(b"\xef\xbb\xbfa 1\na 2\n", false, false), 7);
    assert_eq!(count_lines(b"a\r\nb\rc\n\n"), 4);
}

#[test]
fn the_lines_of_a_piece_are_counted_as_the_parser_counts_them() {
    for seed in 0..20 {
        let (_, mut r) = collection(seed);
        r.extend_from_slice(b"# x\rq99 Q0 d1 1 1 t\r\r# y\n");
        let mut rest: &[u8] = &r;
        let mut checked = 0;
        while let Some(end) =
            (1..rest.len()).find(|&n| last_group_start(&rest[..n], false, false) > 0)
        {
            let cut = last_group_start(&rest[..end], false, false);
            let piece = &rest[..cut];
            assert_eq!(lines_of(&parsed(piece, Kind::Run), piece), count_lines(piece), "{seed}");
            rest = &rest[cut..];
            checked += 1;
        }
        assert!(checked > 5);
    }
}

#[test]
fn a_plain_run_over_the_budget_is_refused_before_a_whole_read() {
    let (q, r) = collection(5);
    let qrels = parsed(&q, Kind::Qrels);
    let options = JudgeOptions::default();
    let expected = whole(&r, &qrels, &options).unwrap();
    let plain = Temp::new("run.txt", &r);
    let budget = r.len() as u64 - 1;
    let over = Reading { max_bytes: budget, ..reading(0, u64::MAX) };
    match streamed(&plain.0, &qrels, &over, &options) {
        Err(JudgeError::Memory { path, what }) => {
            assert_eq!(path, plain.0);
            assert!(what.contains("--stream"), "{what}");
        }
        other => panic!("expected the memory refusal, got {other:?}"),
    }
    // within the budget it is read whole; a gzip file's text is capped as it is read
    let within = Reading { max_bytes: r.len() as u64, ..reading(0, u64::MAX) };
    assert_eq!(streamed(&plain.0, &qrels, &within, &options).unwrap(), expected);
    let gz = Temp::new("run.gz", &flate2_member(&r));
    let capped = Reading { max_bytes: r.len() as u64, ..reading(0, u64::MAX) };
    assert_eq!(streamed(&gz.0, &qrels, &capped, &options).unwrap(), expected);
}
