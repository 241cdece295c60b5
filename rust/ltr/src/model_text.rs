//! The weights of a model file (`cranfield.ltr.model`) as JSON text, written and read
//! back in bulk: a model of sparse data has millions of weights.
//!
//! Written: each double as Python's `repr(float)` writes it (the shortest decimal that
//! reads back to the same double, David Gay's "shortest" mode of `dtoa`; Python's `json`
//! writes floats so), from the digits of Ryū (Adams 2018, "Ryū: fast float-to-string
//! conversion", PLDI; the `ryu` crate), which are the same: the shortest, and among the
//! shortest the nearest to the double. Rust's own `{:e}` (Grisu3 with a Dragon4
//! fallback) gives the same digits ~3x slower (~195 against ~70 ns a double here).
//! Only the layout is Python's: positional for decimal exponents -4 to 15, else
//! `d.ddde+XX` with at least two exponent digits. So the file is byte for byte the one
//! `json.dumps` writes.
//!
//! Read: the array of the object's one top-level `"weights"` key, found by a scan that
//! follows JSON's strings and nesting, each number parsed as Python's `json` parses it
//! (`float(text)` for a fraction or exponent; `float(int(text))` for an integer, so
//! `-0` is `+0.0`), correctly rounded (Clinger 1990; Rust's `f64::from_str`,
//! Eisel–Lemire with a big-decimal fallback). Anything else (no such key, a key
//! written with an escape, a value that is not an array of plain JSON numbers:
//! `NaN`, `Infinity`, a string, a nested array, a number JSON does not allow) is
//! [`None`]: the caller reads the whole file with Python's `json`, which decides.

/// Append `x` (finite) as Python's `repr(x)` writes it.
pub fn push_repr(out: &mut Vec<u8>, x: f64) {
    debug_assert!(x.is_finite());
    if x == 0.0 {
        out.extend_from_slice(if x.is_sign_negative() { b"-0.0" } else { b"0.0" });
        return;
    }
    let mut buffer = ryu::Buffer::new();
    // Ryu's layouts: `-?ddd.ddd` and `-?0.000ddd` for decimal exponents -5 to 15 (the
    // same as Python's from -4), else `-?d(.ddd)?e-?x`
    let whole = buffer.format_finite(x).as_bytes();
    let (negative, text) = match whole.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, whole),
    };
    if !text.starts_with(b"0.0000") && !text.contains(&b'e') {
        out.extend_from_slice(whole);
        return;
    }
    let (mantissa, exp10) = match text.iter().position(|&b| b == b'e') {
        Some(at) => {
            let e = &text[at + 1..];
            let (sign, e) = match e.split_first() {
                Some((b'-', rest)) => (-1, rest),
                _ => (1, e),
            };
            (&text[..at], sign * e.iter().fold(0i32, |a, &b| a * 10 + i32::from(b - b'0')))
        }
        None => (text, 0),
    };
    let point = mantissa.iter().position(|&b| b == b'.').unwrap_or(mantissa.len());
    let mut digits = [0u8; 40];
    let mut n = 0;
    for &b in mantissa.iter().filter(|&&b| b != b'.') {
        digits[n] = b;
        n += 1;
    }
    let leading = digits[..n].iter().take_while(|&&b| b == b'0').count();
    let trailing = digits[..n].iter().rev().take_while(|&&b| b == b'0').count();
    let digits = &digits[leading..n - trailing];
    // the decimal exponent of the first significant digit
    let exp = exp10 + point as i32 - 1 - leading as i32;
    if negative {
        out.push(b'-');
    }
    if (-4..16).contains(&exp) {
        if exp >= 0 {
            let whole = exp as usize + 1;
            if digits.len() <= whole {
                out.extend_from_slice(digits);
                out.extend(std::iter::repeat(b'0').take(whole - digits.len()));
                out.extend_from_slice(b".0");
            } else {
                out.extend_from_slice(&digits[..whole]);
                out.push(b'.');
                out.extend_from_slice(&digits[whole..]);
            }
        } else {
            out.extend_from_slice(b"0.");
            out.extend(std::iter::repeat(b'0').take((-exp - 1) as usize));
            out.extend_from_slice(digits);
        }
    } else {
        out.push(digits[0]);
        if digits.len() > 1 {
            out.push(b'.');
            out.extend_from_slice(&digits[1..]);
        }
        out.extend_from_slice(if exp < 0 { b"e-" } else { b"e+" });
        let magnitude = exp.unsigned_abs();
        if magnitude < 10 {
            out.push(b'0');
        }
        out.extend_from_slice(magnitude.to_string().as_bytes());
    }
}

/// The lines of a block of weights: each line `"\n" + indent` and `per_line` weights
/// joined by `", "`, lines joined by `","`; with a `","` first when `continued` (the
/// block follows another); in parts (one per thread), to be joined. `Err(i)`: weight
/// `i` is not finite.
pub fn weight_lines(
    weights: &[f64],
    per_line: usize,
    indent: &[u8],
    continued: bool,
) -> Result<Vec<Vec<u8>>, usize> {
    if let Some(i) = weights.iter().position(|w| !w.is_finite()) {
        return Err(i);
    }
    let per_line = per_line.max(1);
    let lines: Vec<&[f64]> = weights.chunks(per_line).collect();
    let threads = cores();
    let threads = threads.min(weights.len() / 65_536).max(1);
    let share = lines.len().div_ceil(threads).max(1);
    let format = |part: &[&[f64]], first: bool| {
        let mut out = Vec::with_capacity(part.iter().map(|l| l.len()).sum::<usize>() * 24);
        for (k, line) in part.iter().enumerate() {
            if !(first && k == 0) || continued {
                out.push(b',');
            }
            out.push(b'\n');
            out.extend_from_slice(indent);
            for (j, &w) in line.iter().enumerate() {
                if j > 0 {
                    out.extend_from_slice(b", ");
                }
                push_repr(&mut out, w);
            }
        }
        out
    };
    if threads == 1 {
        return Ok(vec![format(&lines, true)]);
    }
    let parts: Vec<Vec<u8>> = std::thread::scope(|s| {
        let handles: Vec<_> = lines
            .chunks(share)
            .enumerate()
            .map(|(i, part)| s.spawn(move || format(part, i == 0)))
            .collect();
        handles.into_iter().map(|h| h.join().expect("formatting does not panic")).collect()
    });
    Ok(parts)
}

fn skip_space(text: &[u8], mut i: usize) -> usize {
    while i < text.len() && matches!(text[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// The end of the string starting at `text[i] == '"'` (past its closing quote).
fn skip_string(text: &[u8], mut i: usize) -> Option<usize> {
    i += 1;
    while i < text.len() {
        match text[i] {
            b'"' => return Some(i + 1),
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
    None
}

/// The end of the value starting at `text[i]` (a string, an array or object with
/// everything in it, or a scalar up to the next delimiter); not validated: Python's
/// `json` reads the file and validates it.
fn skip_value(text: &[u8], mut i: usize) -> Option<usize> {
    match text.get(i)? {
        b'"' => skip_string(text, i),
        b'[' | b'{' => {
            let mut depth = 0usize;
            while i < text.len() {
                match text[i] {
                    b'"' => {
                        i = skip_string(text, i)?;
                        continue;
                    }
                    b'[' | b'{' => depth += 1,
                    b']' | b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            None
        }
        _ => {
            while i < text.len()
                && !matches!(text[i], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
            {
                i += 1;
            }
            Some(i)
        }
    }
}

/// Powers of ten a double holds exactly.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// The JSON number (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`) at the start of
/// `text` as Python's `json` reads it, and its length; None when there is none.
///
/// Read in one pass; when its digits make an integer `m <= 2^53` and its value is
/// `m * 10^e` with `|e| <= 22`, both exact doubles, one multiplication or division is
/// the correctly rounded value (Clinger 1990, "How to read floating point numbers
/// accurately", the fast path); otherwise Rust's `f64::from_str` (Eisel–Lemire with a
/// big-decimal fallback) reads the text.
pub fn json_number(text: &[u8]) -> Option<(f64, usize)> {
    let negative = text.first() == Some(&b'-');
    let mut i = usize::from(negative);
    let (mut mantissa, mut digits) = (0u64, 0usize);
    let start = i;
    while let Some(&b) = text.get(i).filter(|b| b.is_ascii_digit()) {
        mantissa = mantissa.wrapping_mul(10).wrapping_add(u64::from(b - b'0'));
        i += 1;
    }
    let whole = i - start;
    if whole == 0 || (whole > 1 && text[start] == b'0') {
        return None;
    }
    digits += whole;
    let mut integer = true;
    let mut exp10: i64 = 0;
    if text.get(i) == Some(&b'.') {
        i += 1;
        let from = i;
        while let Some(&b) = text.get(i).filter(|b| b.is_ascii_digit()) {
            mantissa = mantissa.wrapping_mul(10).wrapping_add(u64::from(b - b'0'));
            i += 1;
        }
        if i == from {
            return None;
        }
        digits += i - from;
        exp10 -= (i - from) as i64;
        integer = false;
    }
    if matches!(text.get(i), Some(b'e' | b'E')) {
        i += 1;
        let sign = match text.get(i) {
            Some(b'-') => {
                i += 1;
                -1
            }
            Some(b'+') => {
                i += 1;
                1
            }
            _ => 1,
        };
        let from = i;
        let mut e: i64 = 0;
        while let Some(&b) = text.get(i).filter(|b| b.is_ascii_digit()) {
            e = (e * 10 + i64::from(b - b'0')).min(1 << 40);
            i += 1;
        }
        if i == from {
            return None;
        }
        exp10 += sign * e;
        integer = false;
    }
    let value = if digits <= 19 && mantissa <= 1 << 53 && (-22..=22).contains(&exp10) {
        let m = mantissa as f64;
        let magnitude =
            if exp10 >= 0 { m * POW10[exp10 as usize] } else { m / POW10[(-exp10) as usize] };
        if negative {
            -magnitude
        } else {
            magnitude
        }
    } else {
        // SAFETY: text[..i] is ASCII (digits, '-', '.', 'e' or 'E', '+'), valid UTF-8;
        // (`from_utf8`'s check took a sixth of the time of reading)
        let token = unsafe { std::str::from_utf8_unchecked(&text[..i]) };
        token.parse().ok()?
    };
    // an integer is a Python int, then a float: no negative zero
    Some((if integer && value == 0.0 { 0.0 } else { value }, i))
}

/// The numbers of `part`, JSON numbers separated by commas and whitespace (at least
/// one), or None.
fn numbers(part: &[u8]) -> Option<Vec<f64>> {
    let mut values = Vec::with_capacity(part.len() / 20);
    let mut at = 0;
    loop {
        at = skip_space(part, at);
        let (value, length) = json_number(&part[at..])?;
        values.push(value);
        at = skip_space(part, at + length);
        match part.get(at) {
            None => return Some(values),
            Some(b',') => at += 1,
            Some(_) => return None,
        }
    }
}

/// The numbers of the array `text[i..]` (`text[i] == '['`) and the end of the array,
/// or None when it is not an array of JSON numbers only. Parts of a long array, cut
/// at commas, are read on threads.
fn number_array(text: &[u8], i: usize) -> Option<(Vec<f64>, usize)> {
    let close = i + memchr::memchr(b']', &text[i..])?;
    let inner = &text[i + 1..close];
    if skip_space(inner, 0) == inner.len() {
        return Some((Vec::new(), close + 1));
    }
    let threads = cores();
    let threads = threads.min(inner.len() / (1 << 20)).max(1);
    let mut parts = Vec::with_capacity(threads);
    let mut from = 0;
    for k in 1..threads {
        let target = (inner.len() * k / threads).max(from);
        if let Some(comma) = memchr::memchr(b',', &inner[target..]) {
            parts.push(&inner[from..target + comma]);
            from = target + comma + 1;
        }
    }
    parts.push(&inner[from..]);
    let values: Vec<Option<Vec<f64>>> = if parts.len() == 1 {
        vec![numbers(parts[0])]
    } else {
        std::thread::scope(|s| {
            let handles: Vec<_> = parts.iter().map(|&p| s.spawn(move || numbers(p))).collect();
            handles.into_iter().map(|h| h.join().expect("reading does not panic")).collect()
        })
    };
    let values: Option<Vec<Vec<f64>>> = values.into_iter().collect();
    Some((values?.concat(), close + 1))
}

/// The weights of a model file's text: `(start, end, weights)`, the byte span of the
/// array that is the value of the top-level object's one `"weights"` key, and its
/// numbers. None when the text does not have that form (see the module's text).
pub fn find_weights(text: &[u8]) -> Option<(usize, usize, Vec<f64>)> {
    let mut i = skip_space(text, 0);
    if text.get(i) != Some(&b'{') {
        return None;
    }
    i = skip_space(text, i + 1);
    let mut found = None;
    if text.get(i) == Some(&b'}') {
        return None;
    }
    loop {
        if text.get(i) != Some(&b'"') {
            return None;
        }
        let key_end = skip_string(text, i)?;
        let key = &text[i + 1..key_end - 1];
        if key.contains(&b'\\') {
            return None; // json would decode it: perhaps another "weights"
        }
        i = skip_space(text, key_end);
        if text.get(i) != Some(&b':') {
            return None;
        }
        i = skip_space(text, i + 1);
        if key == b"weights" {
            if found.is_some() || text.get(i) != Some(&b'[') {
                return None; // twice (json keeps the last), or not an array
            }
            let (values, end) = number_array(text, i)?;
            found = Some((i, end, values));
            i = end;
        } else {
            i = skip_value(text, i)?;
        }
        i = skip_space(text, i);
        match text.get(i)? {
            b',' => i = skip_space(text, i + 1),
            b'}' => return found,
            _ => return None,
        }
    }
}

/// The threads a large array may be formatted or parsed on: the cores this process may
/// use, at most 8, found once per process (the standard library reads the cgroup files
/// on every call).
fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()).min(8))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repr(x: f64) -> String {
        let mut out = Vec::new();
        push_repr(&mut out, x);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn doubles_are_written_as_pythons_repr_writes_them() {
        // (Python 3's repr of each; the cases where its layout changes)
        let cases: &[(f64, &str)] = &[
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (-1.5, "-1.5"),
            (0.1, "0.1"),
            (1e16, "1e+16"),
            (9999999999999998.0, "9999999999999998.0"),
            (1e-4, "0.0001"),
            (1e-5, "1e-05"),
            (0.00012345, "0.00012345"),
            (5e-324, "5e-324"),
            (2.2250738585072014e-308, "2.2250738585072014e-308"),
            (f64::MAX, "1.7976931348623157e+308"),
            (f64::MIN, "-1.7976931348623157e+308"),
            (1e-7, "1e-07"),
            (123456789.0, "123456789.0"),
            (1e22, "1e+22"),
            (1.2345678901234567e-300, "1.2345678901234568e-300"),
            (9007199254740992.0, "9007199254740992.0"),
            (0.30000000000000004, "0.30000000000000004"),
            (1e100, "1e+100"),
            (12345678901234.5, "12345678901234.5"),
        ];
        for &(x, want) in cases {
            assert_eq!(repr(x), want, "{x:e}");
            assert_eq!(want.parse::<f64>().unwrap().to_bits(), x.to_bits());
        }
    }

    #[test]
    fn lines_join_as_the_model_file_lays_them_out() {
        let w = [1.0, -0.5, 2.0];
        let text = weight_lines(&w, 2, b"  ", false).unwrap().concat();
        assert_eq!(text, b"\n  1.0, -0.5,\n  2.0");
        assert_eq!(weight_lines(&w, 2, b"", true).unwrap().concat(), b",\n1.0, -0.5,\n2.0");
        assert_eq!(weight_lines(&[1.0, f64::NAN], 2, b"", true), Err(1));
        assert_eq!(weight_lines(&[], 2, b"", false).unwrap().concat(), b"");
    }

    #[test]
    fn many_lines_on_threads_are_the_lines_of_one() {
        let w: Vec<f64> = (0..300_001).map(|i| (i as f64 * 0.37).sin() * 1e3).collect();
        let text = weight_lines(&w, 1000, b"    ", false).unwrap().concat();
        let mut one = Vec::new();
        for (k, line) in w.chunks(1000).enumerate() {
            one.extend_from_slice(if k == 0 { b"\n    " } else { b",\n    " });
            for (j, &x) in line.iter().enumerate() {
                if j > 0 {
                    one.extend_from_slice(b", ");
                }
                push_repr(&mut one, x);
            }
        }
        assert_eq!(text, one);
    }

    #[test]
    fn numbers_are_json_numbers_read_as_python_reads_them() {
        let value = |t: &[u8]| json_number(t).filter(|&(_, n)| n == t.len()).map(|(v, _)| v);
        assert_eq!(value(b"-0").unwrap().to_bits(), 0.0f64.to_bits());
        assert_eq!(value(b"-0.0").unwrap().to_bits(), (-0.0f64).to_bits());
        assert_eq!(value(b"1E+2"), Some(100.0));
        assert_eq!(value(b"12345678901234567891"), Some(12345678901234567891.0));
        assert_eq!(value(b"1e400"), Some(f64::INFINITY));
        assert_eq!(json_number(b"2.5, 3"), Some((2.5, 3)));
        for bad in ["", "-", "01", "1.", ".5", "+1", "1e", "1e+", "--1", "1.5.2", "0x1", "1-2"] {
            assert_eq!(value(bad.as_bytes()), None, "{bad}");
        }
    }

    #[test]
    fn the_weights_are_found_only_where_json_would_put_them() {
        let text =
            br#"{"a": "\"weights\": [9]", "b": {"weights": [8]}, "weights": [1, -2.5e-3 ,3.0]
        , "c": [[]]}"#;
        let (start, end, w) = find_weights(text).unwrap();
        assert_eq!(&text[start..end], b"[1, -2.5e-3 ,3.0]");
        assert_eq!(w, [1.0, -2.5e-3, 3.0]);
        assert_eq!(find_weights(br#" {"weights": []} "#).unwrap().2, Vec::<f64>::new());
        for no in [
            &br#"{"weights": [1], "weights": [2]}"#[..],
            br#"{"weight\u0073": [1], "weights": [2]}"#,
            br#"{"weights": null}"#,
            br#"{"weights": [NaN]}"#,
            br#"{"weights": [1, "2"]}"#,
            br#"{"weights": [1, [2]]}"#,
            br#"{"weights": [1,]}"#,
            br#"{"weights": [1 2]}"#,
            br#"{"weights": [1"#,
            br#"[{"weights": [1]}]"#,
            br#"{"a" "weights": [1]}"#,
            br#"{}"#,
            b"",
        ] {
            assert!(find_weights(no).is_none(), "{}", String::from_utf8_lossy(no));
        }
    }

    #[test]
    fn a_long_array_read_in_parts_is_the_array() {
        let w: Vec<f64> = (0..300_001).map(|i| (i as f64 * 0.37).sin() * 1e-3).collect();
        let mut text = b"{\"weights\": [".to_vec();
        text.extend(weight_lines(&w, 1000, b"    ", false).unwrap().concat());
        text.extend_from_slice(b"\n  ]}");
        let (_, end, back) = find_weights(&text).unwrap();
        assert_eq!(end, text.len() - 1);
        assert!(back.iter().zip(&w).all(|(a, b)| a.to_bits() == b.to_bits()));
        assert_eq!(back.len(), w.len());
        // one bad number, or an empty one, late in the array
        for bad in [&b"1.0.0"[..], b"", b"nan", b"1e"] {
            let mut broken = text.clone();
            let at = broken.len() - 40;
            let comma = at + broken[at..].iter().position(|&b| b == b',').unwrap();
            broken.splice(comma + 1..comma + 1, bad.iter().copied().chain(*b","));
            assert!(find_weights(&broken).is_none());
        }
    }

    #[test]
    fn the_fast_path_reads_as_the_general_parser() {
        let mut x: u64 = 88172645463325252;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..200_000 {
            let r = next();
            let digits = 1 + (r % 19) as usize;
            let m = format!("{:019}", next() % 10_000_000_000_000_000_000);
            let m = m.trim_start_matches('0');
            let m = if m.is_empty() { "0" } else { &m[..digits.min(m.len())] };
            let point = (r >> 8) as usize % (m.len() + 1);
            let e = (r >> 16) % 60;
            let text = match (r >> 24) % 4 {
                0 => m.to_string(),
                1 if point > 0 && point < m.len() => format!("{}.{}", &m[..point], &m[point..]),
                2 => format!("-{m}e-{e}"),
                _ => format!("{m}.5E+{}", e / 3),
            };
            let want: f64 = text.parse().unwrap();
            let (got, n) = json_number(text.as_bytes()).unwrap();
            assert_eq!(n, text.len(), "{text}");
            assert_eq!(got.to_bits(), want.to_bits(), "{text}");
        }
    }
}
