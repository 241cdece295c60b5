//! Any bytes, read as SVMlight/LETOR ranking lines (with and without `qid:`, under a
//! small memory budget): the reader must end with consistent arrays or one problem,
//! never a panic; what it accepts, written back as SVMlight lines, reads the same.
#![no_main]

use cranfield_ltr::svmlight::{parse, Features, Layout, Options, Parsed, Problem};
use libfuzzer_sys::fuzz_target;
use std::fmt::Write;

/// The dense features (the target reads in the dense layout).
fn dense(parsed: &Parsed) -> &[f64] {
    match &parsed.features {
        Features::Dense(x) => x,
        Features::Sparse { .. } => panic!("a sparse result in the dense layout"),
    }
}

const MAX_FEATURE: usize = 512;

/// `parsed` as SVMlight lines: every non-zero feature (and `-0.0`), the last column
/// on the first line (so the width is kept), the doc ids as comments.
fn write(parsed: &Parsed, has_qid: bool) -> String {
    let mut text = String::new();
    for (r, label) in parsed.labels.iter().enumerate() {
        let _ = write!(text, "{label:?}");
        if has_qid {
            let _ = write!(text, " qid:{}", parsed.qids[r]);
        }
        let row = &dense(parsed)[r * parsed.width..(r + 1) * parsed.width];
        for (c, v) in row.iter().enumerate() {
            if v.to_bits() != 0 || (r == 0 && c + 1 == parsed.width) {
                let _ = write!(text, " {}:{v:?}", c + 1);
            }
        }
        if let Some(docs) = &parsed.docs {
            let _ = write!(text, " # docid = {}", docs[r]);
        }
        text.push('\n');
    }
    text
}

fn same_label(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

fuzz_target!(|data: &[u8]| {
    for has_qid in [true, false] {
        let options = |threads| Options {
            has_qid,
            max_feature: MAX_FEATURE,
            budget: Some(1 << 16),
            threads,
            layout: Layout::Dense,
        };
        let result = parse(data, options(1));
        // compared as text: a NaN label (accepted here, refused by the Python side) is
        // not equal to itself
        let other = parse(data, options(2));
        assert_eq!(format!("{result:?}"), format!("{other:?}"), "threads change the result");
        match result {
            Ok(parsed) => {
                let rows = parsed.labels.len();
                assert!(rows > 0);
                assert!(parsed.width >= 1 && parsed.width <= MAX_FEATURE);
                assert_eq!(dense(&parsed).len(), rows * parsed.width);
                assert!((rows * parsed.width * 8) as u64 <= 1 << 16);
                assert!(dense(&parsed).iter().all(|v| v.is_finite()));
                assert_eq!(parsed.qids.len(), if has_qid { rows } else { 0 });
                assert!(parsed.qids.iter().all(|q| !q.is_empty()));
                assert_eq!(parsed.lines.len(), rows);
                assert!(parsed.lines.first().is_some_and(|&l| l >= 1));
                assert!(parsed.lines.windows(2).all(|w| w[0] < w[1]));
                if let Some(docs) = &parsed.docs {
                    assert_eq!(docs.len(), rows);
                    assert!(docs.iter().all(|d| !d.is_empty()));
                }
                let text = write(&parsed, has_qid);
                let again = parse(text.as_bytes(), options(1))
                    .unwrap_or_else(|e| panic!("the written lines do not read: {e:?}\n{text}"));
                assert_eq!(again.width, parsed.width);
                assert_eq!(again.qids, parsed.qids);
                assert_eq!(again.docs, parsed.docs);
                assert!(parsed.labels.iter().zip(&again.labels).all(|(a, b)| same_label(*a, *b)));
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(dense(&again)), bits(dense(&parsed)));
                assert_eq!(again.lines, (1..=rows as u64).collect::<Vec<_>>());
                // the sparse layout holds the same matrix: sorted unique indices per row
                let sparse = Options { layout: Layout::Sparse, budget: None, ..options(2) };
                let sparse = parse(data, sparse);
                let sparse = sparse.unwrap_or_else(|e| panic!("dense read, sparse not: {e:?}"));
                assert_eq!(&sparse.qids, &parsed.qids);
                assert_eq!(sparse.labels.len(), rows);
                assert!(sparse.labels.iter().zip(&parsed.labels).all(|(a, b)| same_label(*a, *b)));
                let Features::Sparse { indptr, indices, values } = &sparse.features else {
                    panic!("a dense result in the sparse layout")
                };
                assert_eq!((indptr.len(), indptr[0], indices.len()), (rows + 1, 0, values.len()));
                let mut x = vec![0.0f64; rows * sparse.width];
                for r in 0..rows {
                    let (a, b) = (indptr[r] as usize, indptr[r + 1] as usize);
                    assert!(indices[a..b].windows(2).all(|k| k[0] < k[1]));
                    for (&k, &v) in indices[a..b].iter().zip(&values[a..b]) {
                        x[r * sparse.width + k as usize] = v;
                    }
                }
                assert_eq!(sparse.width, parsed.width);
                assert_eq!(bits(&x), bits(dense(&parsed)));
            }
            Err(err) => match err.problem {
                Problem::Empty | Problem::TooLarge(..) => assert!(err.line.is_none()),
                _ => assert!(err.line.is_some_and(|l| l >= 1)),
            },
        }
    }
});
