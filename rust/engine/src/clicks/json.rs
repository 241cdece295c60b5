//! A JSON value parser for one line of a JSON-lines click log, accepting what Python's
//! `json.loads` accepts (RFC 8259 plus `NaN`, `Infinity`, `-Infinity`; the last of
//! repeated keys wins), except a lone UTF-16 surrogate escape, which names no character.
//! Strings without escapes borrow from the line.

use std::borrow::Cow;

use super::value::Value;

/// Nesting deeper than this is refused (Python's own limit is its recursion depth).
const MAX_DEPTH: usize = 500;

/// Why a line is not JSON (the Python side asks `json.loads` for its exact words).
#[derive(Debug)]
pub struct Invalid(pub &'static str);

pub fn parse(line: &str) -> Result<Value<'_>, Invalid> {
    let mut p = Parser { s: line.as_bytes(), text: line, at: 0 };
    p.blank();
    let v = p.value(0)?;
    p.blank();
    if p.at != p.s.len() {
        return Err(Invalid("extra data"));
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    at: usize,
}

impl<'a> Parser<'a> {
    fn blank(&mut self) {
        while self.at < self.s.len() && matches!(self.s[self.at], b' ' | b'\t' | b'\n' | b'\r') {
            self.at += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.at).copied()
    }

    fn word(&mut self, word: &str) -> bool {
        if self.s[self.at..].starts_with(word.as_bytes()) {
            self.at += word.len();
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value<'a>, Invalid> {
        if depth > MAX_DEPTH {
            return Err(Invalid("too deeply nested"));
        }
        match self.peek() {
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => Ok(Value::Str(self.string()?)),
            Some(b'n') if self.word("null") => Ok(Value::Null),
            Some(b't') if self.word("true") => Ok(Value::Bool(true)),
            Some(b'f') if self.word("false") => Ok(Value::Bool(false)),
            Some(b'N') if self.word("NaN") => Ok(Value::Float(f64::NAN)),
            Some(b'I') if self.word("Infinity") => Ok(Value::Float(f64::INFINITY)),
            Some(b'-') if self.word("-Infinity") => Ok(Value::Float(f64::NEG_INFINITY)),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(Invalid("expecting value")),
        }
    }

    fn object(&mut self, depth: usize) -> Result<Value<'a>, Invalid> {
        self.at += 1;
        let mut pairs: Vec<(Cow<'a, str>, Value<'a>)> = Vec::new();
        self.blank();
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(Value::Object(pairs));
        }
        loop {
            self.blank();
            if self.peek() != Some(b'"') {
                return Err(Invalid("expecting property name"));
            }
            let key = self.string()?;
            self.blank();
            if self.peek() != Some(b':') {
                return Err(Invalid("expecting ':'"));
            }
            self.at += 1;
            self.blank();
            let v = self.value(depth + 1)?;
            match pairs.iter_mut().find(|(k, _)| *k == key) {
                // Python's dict keeps the first key's place and the last value
                Some(pair) => pair.1 = v,
                None => pairs.push((key, v)),
            }
            self.blank();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(Value::Object(pairs));
                }
                _ => return Err(Invalid("expecting ',' delimiter")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Value<'a>, Invalid> {
        self.at += 1;
        let mut items = Vec::new();
        self.blank();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(Value::List(items));
        }
        loop {
            self.blank();
            items.push(self.value(depth + 1)?);
            self.blank();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return Ok(Value::List(items));
                }
                _ => return Err(Invalid("expecting ',' delimiter")),
            }
        }
    }

    fn number(&mut self) -> Result<Value<'a>, Invalid> {
        let start = self.at;
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.peek() {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(Invalid("expecting value")),
        }
        let mut float = false;
        if self.peek() == Some(b'.') && self.s.get(self.at + 1).is_some_and(u8::is_ascii_digit) {
            self.at += 1;
            self.digits();
            float = true;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            let mut at = self.at + 1;
            if matches!(self.s.get(at), Some(b'+' | b'-')) {
                at += 1;
            }
            if self.s.get(at).is_some_and(u8::is_ascii_digit) {
                self.at = at;
                self.digits();
                float = true;
            }
        }
        let text = &self.text[start..self.at];
        if float {
            return Ok(Value::Float(text.parse().map_err(|_| Invalid("expecting value"))?));
        }
        // Python's str() of the int: "-0" is "0"
        if text == "-0" {
            return Ok(Value::Int(Cow::Borrowed("0")));
        }
        Ok(Value::Int(Cow::Borrowed(text)))
    }

    fn digits(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.at += 1;
        }
    }

    fn string(&mut self) -> Result<Cow<'a, str>, Invalid> {
        self.at += 1;
        let start = self.at;
        // the plain run up to a quote or a backslash borrows from the line
        while let Some(b) = self.peek() {
            match b {
                b'"' => {
                    let s = &self.text[start..self.at];
                    self.at += 1;
                    return Ok(Cow::Borrowed(s));
                }
                b'\\' => break,
                0..=0x1f => return Err(Invalid("invalid control character")),
                _ => self.at += 1,
            }
        }
        let mut out = String::from(&self.text[start..self.at]);
        loop {
            let Some(b) = self.peek() else {
                return Err(Invalid("unterminated string"));
            };
            match b {
                b'"' => {
                    self.at += 1;
                    return Ok(Cow::Owned(out));
                }
                b'\\' => {
                    self.at += 1;
                    let Some(e) = self.peek() else {
                        return Err(Invalid("unterminated string"));
                    };
                    self.at += 1;
                    match e {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => out.push(self.escaped()?),
                        _ => return Err(Invalid("invalid \\escape")),
                    }
                }
                0..=0x1f => return Err(Invalid("invalid control character")),
                _ => {
                    // one whole UTF-8 character (the line is valid UTF-8)
                    let rest = &self.text[self.at..];
                    let c = rest.chars().next().ok_or(Invalid("unterminated string"))?;
                    out.push(c);
                    self.at += c.len_utf8();
                }
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, Invalid> {
        let h = self.s.get(self.at..self.at + 4).ok_or(Invalid("invalid \\uXXXX escape"))?;
        let h = std::str::from_utf8(h).map_err(|_| Invalid("invalid \\uXXXX escape"))?;
        if !h.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(Invalid("invalid \\uXXXX escape"));
        }
        self.at += 4;
        u32::from_str_radix(h, 16).map_err(|_| Invalid("invalid \\uXXXX escape"))
    }

    fn escaped(&mut self) -> Result<char, Invalid> {
        let hi = self.hex4()?;
        if (0xd800..0xdc00).contains(&hi) && self.s[self.at..].starts_with(b"\\u") {
            let back = self.at;
            self.at += 2;
            let lo = self.hex4()?;
            if (0xdc00..0xe000).contains(&lo) {
                let c = 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
                return char::from_u32(c).ok_or(Invalid("a lone surrogate"));
            }
            self.at = back;
        }
        char::from_u32(hi).ok_or(Invalid("a lone surrogate \\u escape names no character"))
    }
}
