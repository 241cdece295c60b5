use cranfield_trec::{parse, Columns, Kind, Options, Parsed, QueryIds, Strings, Values};

use super::ranking::joined;
use super::*;
use crate::test_rng::Xorshift as Rng;

fn read(text: &str, kind: Kind) -> Parsed {
    let options = Options { kind, latin1: false, max_line: 1 << 20, threads: 1 };
    parse(text.as_bytes(), &options).expect("valid test input")
}

fn run(text: &str) -> Parsed {
    read(text, Kind::Run)
}

fn qrels(text: &str) -> Parsed {
    read(text, Kind::Qrels)
}

fn options() -> JudgeOptions {
    JudgeOptions::default()
}

fn ids(j: &Judged) -> Vec<String> {
    (0..j.num_queries()).map(|q| String::from_utf8_lossy(j.query_id(q)).into_owned()).collect()
}

fn i8s(labels: &LabelVec) -> Vec<i8> {
    match labels {
        LabelVec::I8(v) => v.clone(),
        other => panic!("expected i8 labels, got {other:?}"),
    }
}

/// The same rows cut into pieces after the given rows (as the reader cuts big files).
fn cut(parsed: &Parsed, after: &[usize]) -> Parsed {
    let all = &parsed.columns[0];
    let all_query_ids = all.query_id.to_rows().unwrap();
    let mut columns = Vec::new();
    let mut bounds = vec![0];
    bounds.extend(after.iter().copied().filter(|&r| r > 0 && r < parsed.rows));
    bounds.push(parsed.rows);
    for w in bounds.windows(2) {
        let strings = |s: &Strings| {
            let mut out = Strings { data: Vec::new(), offsets: vec![0] };
            for i in w[0]..w[1] {
                out.data.extend_from_slice(s.get(i));
                out.offsets.push(out.data.len() as i32);
            }
            out
        };
        let values = match &all.values {
            Values::Scores(v) => Values::Scores(v[w[0]..w[1]].to_vec()),
            Values::Grades(v) => Values::Grades(v[w[0]..w[1]].to_vec()),
            Values::Reals(v) => Values::Reals(v[w[0]..w[1]].to_vec()),
        };
        columns.push(Columns {
            query_id: QueryIds::from_rows(&strings(&all_query_ids)),
            doc_id: strings(&all.doc_id),
            values,
        });
    }
    Parsed {
        columns,
        lines: parsed.lines.clone(),
        query_starts: parsed.query_starts.clone(),
        tag: parsed.tag.clone(),
        rows: parsed.rows,
        fractional: parsed.fractional.clone(),
    }
}

#[test]
fn ranks_by_score_then_doc_id_descending_and_joins_the_qrels() {
    let r = run("q1 Q0 b 1 2 t\nq1 Q0 a 2 2 t\nq1 Q0 c 3 5 t\nq1 Q0 z 4 1 t\n");
    let q = qrels("q1 0 a 1\nq1 0 b 0\nq1 0 c -1\nq1 0 y 3\n");
    let j = judge(&r, &q, &options()).unwrap();
    assert_eq!(ids(&j), ["q1"]);
    // c (5, unjudged), b (2, doc b > a), a (2), z (not pooled)
    assert_eq!(i8s(&j.labels), [-2, 0, 1, -1]);
    assert_eq!(j.offsets, [0, 4]);
    assert_eq!(j.qrels_grades, LabelVec::I64(vec![3, 1, 0]));
    assert_eq!(j.qrels_offsets, [0, 3]);
    assert_eq!(j.in_run, [true]);
    assert_eq!(j.run_name(false), "t");
    j.view().check().unwrap();
}

#[test]
fn compat_9_ranks_by_float32_scores() {
    let r = run("q Q0 a 1 1.00000002 t\nq Q0 b 2 1.00000001 t\n");
    let q = qrels("q 0 a 1\n");
    let j10 = judge(&r, &q, &options()).unwrap();
    let j9 = judge(&r, &q, &JudgeOptions { compat: 9, ..options() }).unwrap();
    assert_eq!(i8s(&j10.labels), [1, -1]);
    assert_eq!(i8s(&j9.labels), [-1, 1]);
}

#[test]
fn minus_zero_ties_with_zero() {
    let r = run("q Q0 a 1 -0 t\nq Q0 b 2 0 t\nq Q0 c 3 -0.0 t\n");
    let q = qrels("q 0 a 1\nq 0 b 2\nq 0 c 3\n");
    let j = judge(&r, &q, &options()).unwrap();
    assert_eq!(i8s(&j.labels), [3, 2, 1]);
}

#[test]
fn topics_in_byte_order_complete_and_run_only_topics() {
    let r = run("b Q0 d 1 1 t\nZ Q0 d 1 1 t\nx Q0 d 1 1 t\n");
    let q = qrels("b 0 d 1\na 0 d 0\nZ 0 e 2\n\u{e9} 0 d 1\n");
    let j = judge(&r, &q, &options()).unwrap();
    assert_eq!(ids(&j), ["Z", "b"]);
    assert_eq!(i8s(&j.labels), [-1, 1]);
    let j = judge(&r, &q, &JudgeOptions { complete: true, ..options() }).unwrap();
    assert_eq!(ids(&j), ["Z", "a", "b", "\u{e9}"]);
    assert_eq!(j.in_run, [true, false, true, false]);
    assert_eq!(j.offsets, [0, 1, 1, 2, 2]);
    assert_eq!(j.qrels_offsets, [0, 1, 2, 3, 4]);
}

#[test]
fn no_topic_left_is_an_empty_judged_run() {
    let j = judge(&run("x Q0 d 1 1 t\n"), &qrels("q 0 d 1\n"), &options()).unwrap();
    assert_eq!(j.num_queries(), 0);
    assert_eq!((j.offsets.as_slice(), j.qrels_offsets.as_slice()), (&[0][..], &[0][..]));
    assert!(j.labels.is_empty());
    j.view().check().unwrap();
}

#[test]
fn depth_then_judged_only() {
    let r = run("q Q0 a 1 9 t\nq Q0 b 2 8 t\nq Q0 c 3 7 t\nq Q0 d 4 6 t\n");
    let q = qrels("q 0 a 1\nq 0 c 0\nq 0 d 2\n");
    let with = |depth, judged_only| {
        i8s(&judge(&r, &q, &JudgeOptions { depth, judged_only, ..options() }).unwrap().labels)
    };
    assert_eq!(with(None, false), [1, -1, 0, 2]);
    assert_eq!(with(Some(3), false), [1, -1, 0]);
    assert_eq!(with(None, true), [1, 0, 2]);
    assert_eq!(with(Some(2), true), [1]);
    assert_eq!(with(Some(u64::MAX), true), [1, 0, 2]);
}

#[test]
fn duplicates_in_runs() {
    let r = run("q Q0 a 1 1 t\nq Q0 b 2 2 t\nq Q0 a 3 3 t\nq Q0 b 4 2 t\n");
    let q = qrels("q 0 a 1\nq 0 b 2\n");
    match judge(&r, &q, &options()) {
        Err(JudgeError::Duplicate { input: Input::Run, doc, lines, .. }) => {
            assert_eq!((doc.as_slice(), lines), (&b"a"[..], (1, 3)));
        }
        other => panic!("expected a duplicate, got {other:?}"),
    }
    let first = JudgeOptions { duplicates: Duplicates::First, ..options() };
    assert_eq!(i8s(&judge(&r, &q, &first).unwrap().labels), [2, 1]);
    let max = JudgeOptions { duplicates: Duplicates::Max, ..options() };
    assert_eq!(i8s(&judge(&r, &q, &max).unwrap().labels), [1, 2]);
    // in a topic the qrels do not have, too (Run.read checks the whole file)
    let r = run("x Q0 a 1 1 t\nq Q0 a 1 1 t\nx Q0 a 3 3 t\n");
    assert!(matches!(judge(&r, &q, &options()), Err(JudgeError::Duplicate { .. })));
}

#[test]
fn duplicates_in_qrels_are_checked_before_the_run() {
    let r = run("q Q0 a 1 1 t\nq Q0 a 2 1 t\n");
    let q = qrels("q 0 a 1\nq 0 b 0\nq 0 a 3\n");
    assert!(matches!(
        judge(&r, &q, &options()),
        Err(JudgeError::Duplicate { input: Input::Qrels, lines: (1, 3), .. })
    ));
    let empty = no_rows();
    assert!(matches!(
        judge(&empty, &q, &options()),
        Err(JudgeError::Duplicate { input: Input::Qrels, .. })
    ));
    let r = run("q Q0 a 1 1 t\n");
    let max = JudgeOptions { qrels_duplicates: Duplicates::Max, ..options() };
    let j = judge(&r, &q, &max).unwrap();
    assert_eq!((i8s(&j.labels), j.qrels_grades), (vec![3], LabelVec::I64(vec![3, 0])));
    let first = JudgeOptions { qrels_duplicates: Duplicates::First, ..options() };
    assert_eq!(i8s(&judge(&r, &q, &first).unwrap().labels), [1]);
}

#[test]
fn label_types_follow_the_grades() {
    let r = run("q Q0 a 1 1 t\nq Q0 b 2 0 t\n");
    let j = judge(&r, &qrels("q 0 a 127\nq 0 b -128\n"), &options()).unwrap();
    assert_eq!(j.labels, LabelVec::I8(vec![127, -2]));
    let j = judge(&r, &qrels("q 0 a 128\nq 0 b 0\n"), &options()).unwrap();
    assert_eq!(j.labels, LabelVec::I64(vec![128, 0]));
    // a large negative grade in another topic still makes the labels i64
    let j = judge(&r, &qrels("q 0 a 1\nz 0 b -129\n"), &options()).unwrap();
    assert_eq!(j.labels, LabelVec::I64(vec![1, -1]));
    let real = read("q 0 a 0.5\nq 0 b -0.0\nq 0 c 0\nq 0 d -1.5\n", Kind::FractionalQrels);
    let j = judge(&run("q Q0 d 1 3 t\nq Q0 b 2 2 t\nq Q0 e 3 1 t\n"), &real, &options()).unwrap();
    let LabelVec::F64(labels) = &j.labels else { panic!("expected f64 labels") };
    assert_eq!(labels, &[-2.0, 0.0, -1.0]);
    assert!(labels[1].is_sign_negative());
    // grades descending; -0.0 and 0.0 tie and keep file order
    let LabelVec::F64(grades) = &j.qrels_grades else { panic!("expected f64 grades") };
    assert_eq!(grades, &[0.5, 0.0, 0.0]);
    assert!(grades[1].is_sign_negative() && grades[2].is_sign_positive());
}

#[test]
fn errors_are_told_apart() {
    let r = run("q Q0 a 1 1 t\n");
    let q = qrels("q 0 a 1\n");
    let empty = no_rows();
    assert!(matches!(judge(&r, &empty, &options()), Err(JudgeError::Empty(Input::Qrels))));
    assert!(matches!(judge(&empty, &q, &options()), Err(JudgeError::Empty(Input::Run))));
    assert!(matches!(judge(&q, &q, &options()), Err(JudgeError::WrongKind(Input::Run))));
    assert!(matches!(judge(&r, &r, &options()), Err(JudgeError::WrongKind(Input::Qrels))));
    let mut broken = run("q Q0 a 1 1 t\n");
    broken.columns[0].doc_id.offsets = vec![0, 99];
    assert!(matches!(judge(&broken, &q, &options()), Err(JudgeError::WrongKind(Input::Run))));
    broken.columns[0].doc_id.offsets = vec![];
    assert!(matches!(judge(&broken, &q, &options()), Err(JudgeError::WrongKind(Input::Run))));
    // query ids by block that do not cover the rows: refused, not a panic
    for starts in [vec![], vec![1, 0], vec![1, 1], vec![0, 2], vec![0]] {
        let mut broken = run("q Q0 a 1 1 t\nr Q0 b 1 1 t\n");
        broken.columns[0].query_id.starts = starts;
        assert!(matches!(judge(&broken, &q, &options()), Err(JudgeError::WrongKind(Input::Run))));
    }
    let bad = JudgeOptions { depth: Some(0), ..options() };
    assert!(matches!(judge(&r, &q, &bad), Err(JudgeError::Options(_))));
    let bad = JudgeOptions { compat: 11, ..options() };
    assert!(matches!(judge(&r, &q, &bad), Err(JudgeError::Options(_))));
}

fn random_inputs(seed: u64) -> (String, String) {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let (mut r, mut q) = (String::new(), String::new());
    for _ in 0..rng.below(400) + 1 {
        let (topic, doc) = (rng.below(12), rng.below(60));
        r.push_str(&format!("t{topic} Q0 d{doc} 0 {} x\n", rng.below(7) as f64 / 2.0));
    }
    for _ in 0..rng.below(300) + 1 {
        let (topic, doc) = (rng.below(14), rng.below(60));
        q.push_str(&format!("t{topic} 0 d{doc} {}\n", rng.below(6) as i64 - 2));
    }
    if seed % 2 == 0 {
        // topics in one block each: blocks then straddle the pieces' borders
        let mut lines: Vec<&str> = r.lines().collect();
        lines.sort_by_key(|l| l.split(' ').next().unwrap_or("").to_string());
        r = lines.join("\n") + "\n";
    }
    (r, q)
}

#[test]
fn pieces_and_threads_do_not_change_the_result() {
    let all = [Duplicates::Error, Duplicates::First, Duplicates::Max];
    for seed in 0..40 {
        let (r, q) = random_inputs(seed);
        let (r, q) = (run(&r), qrels(&q));
        for (i, &duplicates) in all.iter().enumerate() {
            let o = JudgeOptions {
                duplicates,
                qrels_duplicates: all[(i + 1) % 3],
                complete: seed % 2 == 0,
                depth: (seed % 3 == 0).then_some(7),
                ..options()
            };
            let one = judge_with(&r, &q, &o, 1);
            let rows = [r.rows / 3, r.rows / 3 + 1, 2 * r.rows / 3];
            let (rc, qc) = (cut(&r, &rows), cut(&q, &[q.rows / 2]));
            let many = judge_with(&rc, &qc, &o, 3);
            match (one, many) {
                (Ok(a), Ok(b)) => assert_eq!(a, b),
                (
                    Err(JudgeError::Duplicate { lines: a, .. }),
                    Err(JudgeError::Duplicate { lines: b, .. }),
                ) => {
                    assert_eq!(a, b)
                }
                (a, b) => panic!("seed {seed}: {a:?} and {b:?}"),
            }
        }
    }
}

#[test]
fn a_big_topic_then_many_small_ones() {
    let mut r = String::new();
    for d in 0..5000 {
        r.push_str(&format!("a Q0 d{d} 0 {d} x\n"));
    }
    for t in 0..2000 {
        r.push_str(&format!("b{t} Q0 d1 0 1 x\n"));
    }
    let q = qrels("a 0 d4999 1\nb7 0 d1 2\n");
    let j = judge_with(&run(&r), &q, &options(), 2).unwrap();
    assert_eq!(ids(&j), ["a", "b7"]);
    assert_eq!(j.offsets, [0, 5000, 5001]);
    assert_eq!(i8s(&j.labels)[..2], [1, -1]);
    assert_eq!(i8s(&j.labels)[5000], 2);
}

#[test]
fn qrels_prepared_once_judge_every_run_as_judge_with() {
    let all = [Duplicates::Error, Duplicates::First, Duplicates::Max];
    for seed in 0..12 {
        let (_, q) = random_inputs(seed);
        let q = qrels(&q);
        let runs: Vec<Parsed> = (0..6).map(|i| run(&random_inputs(seed * 7 + i).0)).collect();
        for (i, &duplicates) in all.iter().enumerate() {
            let o = JudgeOptions {
                duplicates,
                qrels_duplicates: all[(i + seed as usize) % 3],
                complete: seed % 2 == 0,
                judged_only: seed % 3 == 1,
                ..options()
            };
            let prepared = Prepared::new(&q, o.qrels_duplicates, 2);
            for r in &runs {
                let alone = format!("{:?}", judge_with(r, &q, &o, 1));
                assert_eq!(format!("{:?}", judge_prepared(r, &prepared, &o, 2)), alone);
            }
        }
    }
    // the qrels' problems, before the run's (a run of the wrong kind here)
    let wrong_run = qrels("t1 0 d1 1\n");
    for bad in ["t1 0 d1 1\nt1 0 d1 2\n", "t1 Q0 d1 1 0.5 x\n", ""] {
        let q = read(bad, if bad.contains("Q0") { Kind::Run } else { Kind::Qrels });
        let prepared = Prepared::new(&q, Duplicates::Error, 1);
        for r in [&wrong_run, &run("t1 Q0 d1 1 0.5 x\n")] {
            let alone = format!("{:?}", judge_with(r, &q, &options(), 1));
            assert_eq!(format!("{:?}", judge_prepared(r, &prepared, &options(), 1)), alone);
            assert!(alone.contains("Qrels"), "{alone}");
        }
    }
}

#[test]
fn the_joined_labels_lacking_memory_are_an_error() {
    // reserved fallibly: an error the caller words, not the end of the process
    let err = joined::<i64>(usize::MAX / 16).unwrap_err();
    assert!(matches!(err, JudgeError::Memory { what: "hold the judged run's labels", .. }));
    let labels = joined::<i8>(5 << 20).unwrap();
    assert!(labels.is_empty() && labels.capacity() >= 5 << 20);
}

#[test]
fn non_decreasing_is_windows_all_on_every_length_and_break() {
    let definition = |v: &[i32]| v.windows(2).all(|w| w[0] <= w[1]);
    let mut rng = Rng(0x5eed_1234);
    for len in [0usize, 1, 2, 3, 4095, 4096, 4097, 4098, 8192, 8193, 12_289] {
        let sorted: Vec<i32> = (0..len as i32).map(|i| i / 3).collect();
        assert!(non_decreasing(&sorted) && definition(&sorted));
        // one decrease at each position near the blocks' edges, and at random ones
        let mut at: Vec<usize> = [1, 4095, 4096, 4097, 8192, 8193, len.saturating_sub(1)]
            .into_iter()
            .filter(|&i| i >= 1 && i < len)
            .collect();
        at.extend((0..20).filter(|_| len > 1).map(|_| 1 + rng.below(len as u64 - 1) as usize));
        for i in at {
            let mut v = sorted.clone();
            v[i] = v[i - 1] - 1;
            assert_eq!(non_decreasing(&v), definition(&v), "length {len}, decrease at {i}");
            assert!(!non_decreasing(&v));
        }
    }
    // random walks up, with a rare step down (so both answers come up)
    let (mut seen_true, mut seen_false) = (false, false);
    for _ in 0..300 {
        let len = rng.below(9000) as usize;
        let mut level = 0;
        let walk: Vec<i32> = (0..len)
            .map(|_| {
                level += if rng.below(len as u64 + 1) == 0 { -1 } else { rng.below(2) as i32 };
                level
            })
            .collect();
        let want = definition(&walk);
        assert_eq!(non_decreasing(&walk), want, "length {len}");
        (seen_true, seen_false) = (seen_true || want, seen_false || !want);
    }
    assert!(seen_true && seen_false);
}
