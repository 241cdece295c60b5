//! The two numeric fields of TREC files: a run's score and a qrels relevance grade.
//!
//! Each is parsed by one function, so that a change of what a field accepts (say,
//! fractional grades) is made in one place.

/// A run's score, as a C double, or `None` when the field is not a number.
///
/// Accepted: decimal and exponent forms with an optional sign (`1`, `+1.`, `-.5`,
/// `1e-5`), `inf`/`infinity` and `nan` in any case, and `nan(chars)` with letters,
/// digits and `_` between the parentheses (the forms `strtod` reads whole). Values
/// are correctly rounded; out-of-range values become ±inf or ±0. Hexadecimal floats
/// and anything after the number are refused. NaN is returned as a value: whether it
/// is allowed is the caller's decision.
#[inline]
pub fn parse_score(field: &[u8]) -> Option<f64> {
    if let Some(value) = plain_decimal(field) {
        return Some(value);
    }
    let unsigned = match field.first() {
        Some(b'+' | b'-') => &field[1..],
        _ => field,
    };
    if unsigned.len() >= 3 && unsigned[..3].eq_ignore_ascii_case(b"nan") {
        return nan_payload_ok(&unsigned[3..]).then_some(f64::NAN);
    }
    if !unsigned.first().is_some_and(|b| b.is_ascii_digit() || matches!(b, b'.' | b'i' | b'I')) {
        return None; // one sign at most, then a digit, '.' or "inf"
    }
    let text = std::str::from_utf8(field).ok()?;
    text.parse::<f64>().ok()
}

/// Powers of ten a double holds exactly.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// `[+-]digits[.digits]` with at most 15 digits, the usual form of a score, without
/// the general parser: the digits make an integer below 2^53 and the divisor a power
/// of ten below 10^23, both exact doubles, so one division is correctly rounded
/// (Clinger 1990, "How to read floating point numbers accurately"). None for anything
/// else (the general parser decides).
#[inline]
fn plain_decimal(field: &[u8]) -> Option<f64> {
    let (negative, rest) = match field.first()? {
        b'-' => (true, &field[1..]),
        b'+' => (false, &field[1..]),
        _ => (false, field),
    };
    if rest.len() > 16 {
        return None; // more than 15 digits and a point
    }
    let (int_part, fraction) = match rest.iter().position(|&b| b == b'.') {
        Some(point) => (&rest[..point], &rest[point + 1..]),
        None => (rest, &[][..]),
    };
    let digits = int_part.len() + fraction.len();
    if digits == 0 || digits > 15 {
        return None;
    }
    // two independent chains of multiply-adds (a second point is not a digit)
    let value_of = |part: &[u8]| {
        part.iter().try_fold(0u64, |value, &b| {
            let digit = b.wrapping_sub(b'0');
            (digit < 10).then(|| value * 10 + u64::from(digit))
        })
    };
    let mantissa = value_of(int_part)? * POW10_INT[fraction.len()] + value_of(fraction)?;
    let value = mantissa as f64 / POW10[fraction.len()];
    Some(if negative { -value } else { value })
}

/// Powers of ten up to `10^15`, as integers.
const POW10_INT: [u64; 16] = {
    let mut out = [1u64; 16];
    let mut i = 1;
    while i < out.len() {
        out[i] = out[i - 1] * 10;
        i += 1;
    }
    out
};

/// What may follow `nan`: nothing, or `(` letters, digits and `_` `)`.
fn nan_payload_ok(rest: &[u8]) -> bool {
    match rest {
        [] => true,
        [b'(', inner @ .., b')'] => inner.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_'),
        _ => false,
    }
}

/// A relevance grade: an integer, or a decimal truncated toward zero as C's `atol`
/// reads it (`2.7` -> 2, `-0.5` -> 0, `+3` -> 3, `.9` -> 0).
///
/// The field must match `[+-]?(digits[.digits] | .digits)` (else
/// [`GradeError::Syntax`]) and its integer part must fit in 64 bits (else
/// [`GradeError::Range`]); exponents, `inf` and `nan` are refused rather than read the
/// way `atol` would (`1e3` -> 1).
pub fn parse_relevance(field: &[u8]) -> Result<i64, GradeError> {
    let (negative, rest) = match field.first() {
        Some(b'-') => (true, &field[1..]),
        Some(b'+') => (false, &field[1..]),
        _ => (false, field),
    };
    let int_len = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    let (int_part, tail) = rest.split_at(int_len);
    match tail {
        [] => {}
        [b'.', frac @ ..] => {
            if !frac.iter().all(u8::is_ascii_digit) || (int_part.is_empty() && frac.is_empty()) {
                return Err(GradeError::Syntax);
            }
        }
        _ => return Err(GradeError::Syntax),
    }
    if int_part.is_empty() && tail.is_empty() {
        return Err(GradeError::Syntax); // "", "+" or "-"
    }
    let mut magnitude: u64 = 0;
    for &digit in int_part {
        magnitude = magnitude
            .checked_mul(10)
            .and_then(|m| m.checked_add(u64::from(digit - b'0')))
            .ok_or(GradeError::Range)?;
    }
    let value =
        if negative { 0i64.checked_sub_unsigned(magnitude) } else { i64::try_from(magnitude).ok() };
    value.ok_or(GradeError::Range)
}

/// A real-valued relevance (fractional gains): `[+-]?(digits[.digits] | .digits)` with an
/// optional exponent `[eE][+-]?digits`, finite; `inf`, `nan`, hexadecimal forms and
/// values beyond the double range are refused (`None`).
pub fn parse_real_relevance(field: &[u8]) -> Option<f64> {
    let rest = match field.first() {
        Some(b'-' | b'+') => &field[1..],
        _ => field,
    };
    let digits = |s: &[u8]| s.iter().take_while(|b| b.is_ascii_digit()).count();
    let int_len = digits(rest);
    let mut tail = &rest[int_len..];
    let mut frac_len = 0;
    if let [b'.', after @ ..] = tail {
        frac_len = digits(after);
        tail = &after[frac_len..];
    }
    if int_len + frac_len == 0 {
        return None; // "", "+", ".", "e5"
    }
    if let [b'e' | b'E', after @ ..] = tail {
        let after = match after.first() {
            Some(b'-' | b'+') => &after[1..],
            _ => after,
        };
        let exp_len = digits(after);
        if exp_len == 0 {
            return None;
        }
        tail = &after[exp_len..];
    }
    if !tail.is_empty() {
        return None;
    }
    // ASCII digits, signs, '.', 'e': valid UTF-8 and a form Rust's parser reads exactly
    let value: f64 = std::str::from_utf8(field).ok()?.parse().ok()?;
    value.is_finite().then_some(value)
}

/// Why a relevance grade was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GradeError {
    /// Not a decimal number.
    Syntax,
    /// A decimal number whose integer part does not fit in 64 bits.
    Range,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_relevance() {
        for (text, want) in [
            ("0.35", 0.35),
            ("+2", 2.0),
            ("-0.5", -0.5),
            (".5", 0.5),
            ("3.", 3.0),
            ("1e-3", 0.001),
            ("2.5E+1", 25.0),
        ] {
            assert_eq!(parse_real_relevance(text.as_bytes()), Some(want), "{text}");
        }
        for text in ["", "+", ".", "e5", "1e", "1e+", "inf", "nan", "0x10", "1.2.3", "1e999", "1 "]
        {
            assert_eq!(parse_real_relevance(text.as_bytes()), None, "{text:?}");
        }
    }

    #[test]
    fn scores() {
        for (text, want) in [
            ("1", 1.0),
            ("+1", 1.0),
            ("-1.", -1.0),
            (".5", 0.5),
            ("-.5", -0.5),
            ("1e5", 1e5),
            ("1E+5", 1e5),
            ("1e-400", 0.0),
            ("1e309", f64::INFINITY),
            ("-Infinity", f64::NEG_INFINITY),
            ("INF", f64::INFINITY),
            ("00012", 12.0),
            ("1e0000000000000000000005", 1e5),
            ("2.4703282292062328e-324", 5e-324),
        ] {
            assert_eq!(parse_score(text.as_bytes()), Some(want), "{text}");
        }
        for text in ["nan", "-NaN", "+nan", "nan()", "nan(a_1)"] {
            assert!(parse_score(text.as_bytes()).unwrap().is_nan(), "{text}");
        }
        for text in [
            "", ".", "-", "+", "1e", "1e+", "e5", "0x10", "1_0", "1,5", "1d5", "1f", "1.5.5",
            "--1", "+-1", "-+1", "1e5.5", "infx", "in", "nan(", "nan(-)", "nana", "\u{a0}",
            "1\u{1}", "TRUE",
        ] {
            assert_eq!(parse_score(text.as_bytes()), None, "{text:?}");
        }
        assert_eq!(parse_score(b"\xff1"), None);
    }

    #[test]
    fn plain_decimals_read_as_the_general_parser_reads_them() {
        let mut state = 0x2545f4914f6cdd1du64;
        for _ in 0..200_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let digits = (state % 16) as usize + 1;
            let mut text = format!("{}", state % 10u64.pow(digits as u32));
            let point = (state >> 20) as usize % (text.len() + 1);
            if state & (1 << 40) != 0 {
                text.insert(point, '.');
            }
            if state & (1 << 41) != 0 {
                text.insert(0, '-');
            }
            let general: f64 = text.parse().unwrap();
            let fast = parse_score(text.as_bytes()).unwrap();
            assert_eq!(fast.to_bits(), general.to_bits(), "{text}");
        }
        assert_eq!(plain_decimal(b"-0").map(f64::to_bits), Some((-0.0f64).to_bits()));
        assert_eq!(plain_decimal(b"1234567890123456"), None); // 16 digits: the general parser
        for text in ["1:5", "1/5", "9.:", "/", ":", "1.2/", "0.12345678:", "12345678.9/"] {
            assert_eq!(plain_decimal(text.as_bytes()), None, "{text}");
        }
        for digits in 1..=15 {
            let text = "9".repeat(digits);
            assert_eq!(plain_decimal(text.as_bytes()), Some(text.parse().unwrap()));
            for point in 0..=digits {
                let text = format!("{}.{}", &text[..point], &text[point..]);
                assert_eq!(plain_decimal(text.as_bytes()), Some(text.parse().unwrap()));
            }
        }
    }

    #[test]
    fn relevance() {
        for (text, want) in [
            ("2", 2),
            ("2.7", 2),
            ("-2.7", -2),
            ("-0.5", 0),
            ("+3", 3),
            (".9", 0),
            ("-.9", 0),
            ("007", 7),
            ("5.", 5),
            ("9223372036854775807", i64::MAX),
            ("-9223372036854775808", i64::MIN),
            ("0000000000000000000000001", 1),
        ] {
            assert_eq!(parse_relevance(text.as_bytes()), Ok(want), "{text}");
        }
        let syntax = [
            "", "-", "+", ".", "-.", "1e3", "inf", "nan", "1-2", "--1", "0x1", "1.2.3", " 1",
            "1.e", "١",
        ];
        for text in syntax {
            assert_eq!(parse_relevance(text.as_bytes()), Err(GradeError::Syntax), "{text:?}");
        }
        for text in ["9223372036854775808", "-9223372036854775809", "99999999999999999999.5"] {
            assert_eq!(parse_relevance(text.as_bytes()), Err(GradeError::Range), "{text:?}");
        }
    }
}
