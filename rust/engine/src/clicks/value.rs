//! One field of a click-log record as Python would hold it, and Python's `str`,
//! `repr`, `str.split` and number parsing of it: the readers' messages quote values
//! as the former Python reader did (`expected click flags 0 or 1, got '2'`).

use std::borrow::Cow;

/// A JSON value, or a table cell (a string, a number, a list of them, or nothing).
#[derive(Debug, Clone)]
pub enum Value<'a> {
    Null,
    Bool(bool),
    /// An integer as written in decimal (any size, as Python's `int`).
    Int(Cow<'a, str>),
    Float(f64),
    Str(Cow<'a, str>),
    List(Vec<Value<'a>>),
    /// A JSON object (only quoted in messages or made a user id).
    Object(Vec<(Cow<'a, str>, Value<'a>)>),
}

/// Python's `str.isspace` for one character: Unicode White_Space plus the ASCII
/// information separators `\x1c`..`\x1f` (which Python splits on, Rust does not).
pub fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

/// Python's `str.strip()`.
pub fn strip(s: &str) -> &str {
    let ascii = |b: &u8| *b == b' ' || (9..=13).contains(b) || (28..=31).contains(b);
    let bytes = s.as_bytes();
    let (first, last) = (bytes.first(), bytes.last());
    if first.map_or(true, |b| b.is_ascii() && !ascii(b))
        && last.map_or(true, |b| b.is_ascii() && !ascii(b))
    {
        return s; // nothing to strip (the common case)
    }
    s.trim_matches(is_space)
}

/// Python's `repr(float)`: the shortest round-trip digits, in fixed notation for
/// decimal exponents -4..15 and `d.ddde+XX` otherwise (`push_repr`, which also writes
/// model files), `nan`, `inf` and `-inf` for the others.
pub fn float_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let mut out = Vec::with_capacity(24);
    cranfield_ltr::model_text::push_repr(&mut out, x);
    String::from_utf8(out).expect("ASCII digits")
}

/// Python's `repr(str)`: single quotes unless the text holds one and no double quote.
fn str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c)
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

impl Value<'_> {
    /// Python's `repr` of the value.
    pub fn repr(&self) -> String {
        match self {
            Value::Str(s) => str_repr(s),
            other => other.text(),
        }
    }

    /// Python's `str` of the value.
    pub fn text(&self) -> String {
        match self {
            Value::Null => "None".into(),
            Value::Bool(b) => if *b { "True" } else { "False" }.into(),
            Value::Int(s) | Value::Str(s) => s.to_string(),
            Value::Float(x) => float_repr(*x),
            Value::List(items) => {
                let items: Vec<String> = items.iter().map(Value::repr).collect();
                format!("[{}]", items.join(", "))
            }
            Value::Object(pairs) => {
                let pairs: Vec<String> =
                    pairs.iter().map(|(k, v)| format!("{}: {}", str_repr(k), v.repr())).collect();
                format!("{{{}}}", pairs.join(", "))
            }
        }
    }

    /// Whether Python would take it for `None` (a JSON `null`, an empty table cell).
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }
}

/// Python's `int(text)` for the decimal integers a log holds (surrounding blanks, an
/// optional sign, ASCII digits, single `_` between digits); `None` when Python would
/// refuse the text or the value does not fit 64 bits.
pub fn parse_int(text: &str) -> Option<i64> {
    let t = strip(text);
    let (negative, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
    {
        return None;
    }
    let mut value: i64 = 0;
    for b in digits.bytes() {
        match b {
            b'_' => continue,
            b'0'..=b'9' => value = value.checked_mul(10)?.checked_add(i64::from(b - b'0'))?,
            _ => return None,
        }
    }
    Some(if negative { -value } else { value })
}

/// Python's `float(text)` for decimal text (and `inf`, `nan`); `None` when refused.
pub fn parse_float(text: &str) -> Option<f64> {
    let t = strip(text);
    let lower = t.to_ascii_lowercase();
    let body = lower.trim_start_matches(['+', '-']);
    if matches!(body, "inf" | "infinity" | "nan") {
        let x = if body == "nan" { f64::NAN } else { f64::INFINITY };
        return Some(if lower.starts_with('-') { -x } else { x });
    }
    // Rust's grammar is Python's for decimals, less the digit separators
    if t.contains('_') {
        let ok = t.split('_').all(|part| part.ends_with(|c: char| c.is_ascii_digit()))
            && t.split('_').skip(1).all(|p| p.starts_with(|c: char| c.is_ascii_digit()));
        return if ok { t.replace('_', "").parse().ok() } else { None };
    }
    if body.is_empty() || !body.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
        return None;
    }
    t.parse().ok()
}
