//! One session from its fields (`query`, `docs`, `clicks` or `clicked`, `times` or
//! `dwell`, `user` or `bucket`), checked in the order and with the words of
//! `cranfield.clicks.log` (the messages are part of its interface), and the builder
//! that interns ids and collects the flat arrays of all sessions.

use std::borrow::Cow;

use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::value::{is_space, parse_float, parse_int, strip, Value};

/// The most documents one session may show (`cranfield.clicks.log.MAX_RANKS`).
pub const MAX_RANKS: usize = 1000;

/// A problem with one record: the message (file and line are added by the caller).
pub type Refusal = String;

/// Ids interned in order of first appearance.
#[derive(Default)]
pub struct Interner {
    codes: FxHashMap<Box<str>, i64>,
    pub names: Vec<Box<str>>,
    /// ids interned before, by the reader this one's sessions will be appended to
    /// (read only, shared by the threads): their codes are used as they are
    known: Option<Arc<Interner>>,
    /// the first code of this interner's own names (the number of `known` ids)
    base: i64,
}

impl Interner {
    /// An interner for ids after those of `known`.
    fn over(known: &Arc<Interner>) -> Self {
        let base = known.names.len() as i64;
        Interner { known: Some(Arc::clone(known)), base, ..Interner::default() }
    }

    /// The code of `name` if it was interned (none given otherwise).
    pub fn find(&self, name: &str) -> Option<i64> {
        self.known
            .as_ref()
            .and_then(|k| k.codes.get(name))
            .or_else(|| self.codes.get(name))
            .copied()
    }

    pub fn code(&mut self, name: &str) -> i64 {
        if let Some(&code) = self.known.as_ref().and_then(|k| k.codes.get(name)) {
            return code;
        }
        if let Some(&code) = self.codes.get(name) {
            return code;
        }
        let code = self.base + self.names.len() as i64;
        let boxed: Box<str> = name.into();
        self.names.push(boxed.clone());
        self.codes.insert(boxed, code);
        code
    }

    /// The codes here for `other`'s codes (its own names interned here in order).
    fn recode(&mut self, other: &Interner) -> impl Fn(i64) -> i64 {
        let own: Vec<i64> = other.names.iter().map(|n| self.code(n)).collect();
        let base = other.base;
        move |c| if c < base { c } else { own[(c - base) as usize] }
    }
}

/// The interners of a reader, shared read-only while parts of the input are read on
/// other threads into sessions of their own ([`Sessions::over`]).
pub struct Known([Arc<Interner>; 3]);

impl Known {
    /// Lend `s`'s interners (to be given back by [`Known::restore`]).
    pub fn take(s: &mut Sessions) -> Known {
        let take = |i: &mut Interner| Arc::new(std::mem::take(i));
        Known([take(&mut s.queries), take(&mut s.docs), take(&mut s.users)])
    }

    /// Give the interners back, once every [`Sessions::over`] them has let go
    /// ([`Sessions::forget_known`], or dropped).
    pub fn restore(self, s: &mut Sessions) {
        let [q, d, u] = self.0.map(|a| Arc::try_unwrap(a).ok().expect("the parts let go"));
        (s.queries, s.docs, s.users) = (q, d, u);
    }
}

/// The sessions read so far, as flat arrays (one entry per shown document) and one
/// entry per session.
#[derive(Default)]
pub struct Sessions {
    pub queries: Interner,
    pub docs: Interner,
    pub users: Interner,
    pub query: Vec<i64>,
    pub lengths: Vec<usize>,
    pub flat_docs: Vec<i64>,
    pub flat_clicks: Vec<bool>,
    /// a time per shown document (NaN: none), held only once a session has times
    /// (`any_time`), until then empty
    pub flat_times: Vec<f64>,
    /// user code per session, -1 for none
    pub user: Vec<i64>,
    pub any_time: bool,
    pub any_user: bool,
}

/// A field as `rec.get(key)` gives it: `None` when absent.
pub trait Record<'a> {
    fn get(&self, key: &str) -> Option<&Value<'a>>;
}

/// The items of a separated string: split at commas and Python's blanks.
fn pieces(s: &str) -> Vec<&str> {
    if s.is_ascii() {
        // the common case: no character to decode
        let sep = |c: char| matches!(c, ',' | ' ' | '\t'..='\r' | '\x1c'..='\x1f');
        return s.split(sep).filter(|p| !p.is_empty()).collect();
    }
    s.split(|c: char| c == ',' || is_space(c)).filter(|p| !p.is_empty()).collect()
}

/// `_split_text`: a list as given; a string split at commas and blanks; a number alone.
fn split<'v, 'a>(value: &'v Value<'a>) -> Result<Cow<'v, [Value<'a>]>, Refusal> {
    match value {
        Value::List(items) => Ok(Cow::Borrowed(items)),
        // the pieces of a borrowed cell borrow from the input too
        Value::Str(Cow::Borrowed(s)) => {
            let s: &'a str = s;
            Ok(pieces(s).into_iter().map(|p| Value::Str(Cow::Borrowed(p))).collect())
        }
        Value::Str(Cow::Owned(s)) => {
            Ok(pieces(s).into_iter().map(|p| Value::Str(Cow::Owned(p.to_string()))).collect())
        }
        Value::Int(_) | Value::Float(_) => Ok(Cow::Owned(vec![value.clone()])),
        other => Err(format!("expected a list or a separated string, got {}", other.repr())),
    }
}

/// Python's `str(value).strip()` without building the text of a string or an integer.
fn stripped<'v>(value: &'v Value<'_>) -> Cow<'v, str> {
    match value {
        Value::Str(s) | Value::Int(s) => Cow::Borrowed(strip(s)),
        other => Cow::Owned(strip(&other.text()).to_string()),
    }
}

fn present<'v, 'a>(rec: &'v impl Record<'a>, key: &str) -> Option<&'v Value<'a>> {
    rec.get(key).filter(|v| !v.is_null())
}

/// `rec.get(first, rec.get(second))`: the first key when present (even as null).
fn either<'v, 'a>(rec: &'v impl Record<'a>, first: &str, second: &str) -> Option<&'v Value<'a>> {
    match rec.get(first) {
        Some(v) => Some(v),
        None => rec.get(second),
    }
    .filter(|v| !v.is_null())
}

fn flags(values: &[Value<'_>]) -> Result<Vec<bool>, Refusal> {
    values
        .iter()
        .map(|v| match v {
            Value::Bool(b) => Ok(*b),
            other => match &*stripped(other) {
                "0" => Ok(false),
                "1" => Ok(true),
                _ => Err(format!("expected click flags 0 or 1, got {}", other.repr())),
            },
        })
        .collect()
}

fn positions(values: &[Value<'_>], n_docs: usize) -> Result<Vec<bool>, Refusal> {
    let mut out = vec![false; n_docs];
    for v in values {
        let rank = match v {
            Value::Bool(_) => None,
            other => parse_int(&stripped(other)),
        };
        match rank {
            Some(r) if r >= 1 && (r as u64) <= n_docs as u64 => out[r as usize - 1] = true,
            _ => return Err(format!("expected clicked ranks in [1, {n_docs}], got {}", v.repr())),
        }
    }
    Ok(out)
}

/// `_time`: a number of seconds, finite and >= 0.
pub fn time(value: &Value<'_>) -> Result<f64, Refusal> {
    let t = match value {
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        Value::Float(x) => Some(*x),
        Value::Int(s) | Value::Str(s) => parse_float(s),
        _ => None,
    };
    let Some(t) = t else {
        return Err(format!("expected a time in seconds, got {}", value.repr()));
    };
    if !t.is_finite() || t < 0.0 {
        return Err(format!("expected a finite time >= 0, got {}", value.repr()));
    }
    Ok(t)
}

/// The ids of a query or of shown documents: numbers become their decimal text.
fn id<'v>(value: &'v Value<'_>) -> Option<&'v str> {
    match value {
        Value::Str(s) | Value::Int(s) => Some(s),
        _ => None,
    }
}

impl Sessions {
    /// `_record` then `_Builder.add`: one session from a record.
    pub fn record<'a>(&mut self, rec: &impl Record<'a>) -> Result<(), Refusal> {
        for key in ["query", "docs"] {
            if present(rec, key).is_none() {
                return Err(format!("missing field '{key}'"));
            }
        }
        let docs = split(present(rec, "docs").unwrap_or(&Value::Null))?;
        let query = present(rec, "query").unwrap_or(&Value::Null);
        let query_text: Option<Cow<str>> = match query {
            Value::Float(x) => Some(Cow::Owned(super::value::float_repr(*x))),
            other => id(other).map(Cow::Borrowed),
        };
        let clicks = present(rec, "clicks");
        let clicked = present(rec, "clicked");
        let clicks = match (clicks, clicked) {
            (Some(c), None) => flags(&split(c)?)?,
            (None, Some(c)) => positions(&split(c)?, docs.len())?,
            _ => {
                return Err("expected exactly one of 'clicks' (0/1 per document) or 'clicked' \
                            (1-based ranks)"
                    .into())
            }
        };
        let times = either(rec, "times", "dwell").map(split).transpose()?;
        let user = either(rec, "user", "bucket");
        // _Builder.add
        let query = match query_text {
            Some(q) if !q.is_empty() => q,
            _ => return Err("expected a non-empty query id".into()),
        };
        if docs.is_empty() {
            return Err("a session shows no document".into());
        }
        if docs.len() > MAX_RANKS {
            return Err(format!("a session shows more than {MAX_RANKS} documents"));
        }
        if clicks.len() != docs.len() {
            return Err(format!("{} documents but {} click flags", docs.len(), clicks.len()));
        }
        let start = self.flat_docs.len();
        for d in docs.iter() {
            match id(d) {
                Some(name) if !name.is_empty() => {
                    let code = self.docs.code(name);
                    self.flat_docs.push(code)
                }
                _ => {
                    self.flat_docs.truncate(start);
                    return Err(format!("expected a non-empty document id, got {}", d.repr()));
                }
            }
        }
        let checked_times = match &times {
            Some(t) if t.len() != docs.len() => {
                Err(format!("{} documents but {} times", docs.len(), t.len()))
            }
            Some(t) => t
                .iter()
                .map(|v| if v.is_null() { Ok(f64::NAN) } else { time(v) })
                .collect::<Result<Vec<f64>, _>>()
                .map(Some),
            None => Ok(None),
        };
        let times = match checked_times {
            Ok(t) => t,
            Err(e) => {
                self.flat_docs.truncate(start);
                return Err(e);
            }
        };
        match times {
            Some(t) => {
                self.times_to(start);
                self.flat_times.extend(t);
            }
            None => self.no_times(docs.len()),
        }
        let q = self.queries.code(&query);
        self.query.push(q);
        self.flat_clicks.extend(clicks);
        self.lengths.push(docs.len());
        let u = match user {
            Some(u) => {
                self.any_user = true;
                self.users.code(&u.text())
            }
            None => -1,
        };
        self.user.push(u);
        Ok(())
    }

    /// Hold times from now on: NaN for the first `shown` documents, when none had
    /// times so far.
    pub fn times_to(&mut self, shown: usize) {
        if !self.any_time {
            self.any_time = true;
            self.flat_times.resize(shown, f64::NAN);
        }
    }

    /// `n` documents shown without times.
    fn no_times(&mut self, n: usize) {
        if self.any_time {
            self.flat_times.extend(std::iter::repeat(f64::NAN).take(n));
        }
    }

    /// Sessions whose ids are numbered after those of `known`.
    pub fn over(known: &Known) -> Sessions {
        let [q, d, u] = &known.0;
        Sessions {
            queries: Interner::over(q),
            docs: Interner::over(d),
            users: Interner::over(u),
            ..Sessions::default()
        }
    }

    /// Let go of the interners these sessions were read [`Sessions::over`].
    pub fn forget_known(&mut self) {
        for i in [&mut self.queries, &mut self.docs, &mut self.users] {
            i.known = None;
        }
    }

    /// Append the sessions read after these (on another thread, [`Sessions::over`]
    /// these ids): their new ids interned here in their order of first appearance.
    pub fn append(&mut self, other: Sessions) {
        if self.lengths.is_empty() && self.docs.names.is_empty() && self.queries.names.is_empty() {
            *self = other; // nothing to merge with (the first part: codes from 0)
            return;
        }
        let queries = self.queries.recode(&other.queries);
        let docs = self.docs.recode(&other.docs);
        let users = self.users.recode(&other.users);
        self.query.extend(other.query.iter().map(|&q| queries(q)));
        self.flat_docs.extend(other.flat_docs.iter().map(|&d| docs(d)));
        self.user.extend(other.user.iter().map(|&u| if u < 0 { u } else { users(u) }));
        self.lengths.extend_from_slice(&other.lengths);
        self.flat_clicks.extend_from_slice(&other.flat_clicks);
        if other.any_time {
            self.times_to(self.flat_clicks.len() - other.flat_clicks.len());
            self.flat_times.extend_from_slice(&other.flat_times);
        } else {
            self.no_times(other.flat_clicks.len());
        }
        self.any_user |= other.any_user;
    }

    /// Append a session already checked (the PyClick and Yandex readers).
    pub fn push(&mut self, query: &str, docs: &[&str], clicks: &[bool], times: Option<&[f64]>) {
        let q = self.queries.code(query);
        self.query.push(q);
        let start = self.flat_docs.len();
        for d in docs {
            let code = self.docs.code(d);
            self.flat_docs.push(code);
        }
        self.flat_clicks.extend_from_slice(clicks);
        match times {
            Some(t) => {
                self.times_to(start);
                self.flat_times.extend_from_slice(t)
            }
            None => self.no_times(docs.len()),
        }
        self.lengths.push(docs.len());
        self.user.push(-1);
    }
}
