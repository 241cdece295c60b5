//! Any bytes as a model file's text (`cranfield_ltr::model_text`): the scan for the
//! weights ends without a panic; what it finds is a `[...]` within the text whose
//! comma-separated numbers are the ones `f64::from_str` reads (a JSON integer zero as
//! `+0.0`, as Python reads it); written back by `weight_lines` and scanned again, the
//! finite ones are the same bits.
#![no_main]

use cranfield_ltr::model_text::{find_weights, weight_lines};
use libfuzzer_sys::fuzz_target;

fn json_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

fuzz_target!(|data: &[u8]| {
    let Some((start, end, values)) = find_weights(data) else {
        return;
    };
    assert!(start < end && end <= data.len());
    assert_eq!((data[start], data[end - 1]), (b'[', b']'));
    let inner = std::str::from_utf8(&data[start + 1..end - 1]).expect("numbers are ASCII");
    let reference: Vec<f64> = if inner.trim_matches(json_space).is_empty() {
        Vec::new()
    } else {
        inner
            .split(',')
            .map(|token| {
                let token = token.trim_matches(json_space);
                let value: f64 = token.parse().expect("a number f64::from_str reads");
                let integer = !token.contains(['.', 'e', 'E']);
                if integer && value == 0.0 {
                    0.0
                } else {
                    value
                }
            })
            .collect()
    };
    assert_eq!(values.len(), reference.len());
    for (a, b) in values.iter().zip(&reference) {
        assert_eq!(a.to_bits(), b.to_bits(), "{inner}");
    }
    if values.iter().all(|v| v.is_finite()) {
        let lines = weight_lines(&values, 7, b"  ", false).expect("finite").concat();
        let text = [&b"{\"weights\": ["[..], &lines, b"\n]}"].concat();
        let (_, _, back) = find_weights(&text).expect("written weights are found");
        assert_eq!(back.len(), values.len());
        for (a, b) in back.iter().zip(&values) {
            assert_eq!(a.to_bits(), b.to_bits());
        }
    }
});
