//! Any bytes, read as a run and as qrels, in UTF-8 and Latin-1: the reader must end
//! with consistent columns or one problem, never a panic.
#![no_main]

use cranfield_trec::{check, parse, Kind, Options, Problem, Values};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = check::check_text(data, 64);
    for kind in [Kind::Run, Kind::Qrels, Kind::FractionalQrels] {
        for latin1 in [false, true] {
            let options = Options { kind, latin1, max_line: 64, threads: 2 };
            match parse(data, &options) {
                Ok(parsed) => {
                    let mut rows = 0;
                    for c in &parsed.columns {
                        let n = c.query_id.len();
                        assert!(n > 0 && c.doc_id.len() == n);
                        assert_eq!(c.values.len(), n);
                        if let Values::Reals(v) = &c.values {
                            assert!(v.iter().all(|x| x.is_finite()));
                        }
                        let ids = &c.query_id;
                        assert_eq!(ids.ids.len(), ids.starts.len());
                        assert_eq!(ids.starts.first(), Some(&0));
                        assert!(ids.starts.windows(2).all(|w| w[0] < w[1]));
                        assert!((1..ids.ids.len()).all(|b| ids.ids.get(b) != ids.ids.get(b - 1)));
                        let query_rows = ids.to_rows().expect("room for the ids");
                        assert_eq!(query_rows.len(), n);
                        for s in [&query_rows, &c.doc_id] {
                            assert!(s.offsets.windows(2).all(|w| w[0] < w[1]), "empty id");
                            assert_eq!(*s.offsets.last().unwrap() as usize, s.data.len());
                            assert!(std::str::from_utf8(&s.data).is_ok(), "ids are UTF-8");
                        }
                        rows += n;
                    }
                    assert_eq!(rows, parsed.rows);
                    if let Some(lines) = &parsed.lines {
                        assert_eq!(lines.len(), rows);
                        assert!(lines.windows(2).all(|w| w[0] < w[1]));
                    }
                    let starts = &parsed.query_starts;
                    assert_eq!(starts.last().copied(), Some(rows as i64));
                    assert!(starts.windows(2).all(|w| w[0] < w[1]) || rows == 0);
                    assert_eq!(parsed.tag.is_some(), kind == Kind::Run && rows > 0);
                }
                Err(err) => {
                    assert!(err.line.is_some_and(|l| l >= 1));
                    assert!(!(latin1 && matches!(err.problem, Problem::Utf8 { .. })));
                }
            }
        }
    }
});
