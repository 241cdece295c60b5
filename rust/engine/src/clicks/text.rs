//! The text formats of click logs: JSON lines, PyClick's sessions and the Yandex
//! relevance-prediction log, read into [`Sessions`] in one pass over the bytes.

use rustc_hash::FxHashMap;

use super::json;
use super::record::{time, Record, Refusal, Sessions, MAX_RANKS};
use super::value::{strip, Value};

/// Why a text log was refused, and where.
pub enum Failure {
    /// a record's problem: (1-based line, message)
    Record(u64, Refusal),
    /// a line that is not JSON: (line, the parser's words)
    Json(u64, &'static str),
    /// bytes that are not UTF-8: the line
    Utf8(u64),
}

/// The lines of `text` (ended by `\n`, `\r\n` or `\r`), numbered from 1.
fn lines(text: &str) -> impl Iterator<Item = (u64, &str)> {
    let bytes = text.as_bytes();
    let mut at = 0;
    let mut number = 0u64;
    std::iter::from_fn(move || {
        if at >= bytes.len() {
            return None;
        }
        let start = at;
        let end = bytes[at..].iter().position(|&b| b == b'\n' || b == b'\r').map(|p| at + p);
        let end = end.unwrap_or(bytes.len());
        at = end + 1;
        if end < bytes.len() && bytes[end] == b'\r' && bytes.get(end + 1) == Some(&b'\n') {
            at += 1;
        }
        number += 1;
        Some((number, &text[start..end]))
    })
}

/// Line `number` (1-based) of `text`, empty past the end.
pub fn line(text: &str, number: u64) -> &str {
    lines(text).find(|(n, _)| *n == number).map_or("", |(_, line)| line)
}

/// `data` as UTF-8 text (a byte-order mark dropped), else the line of the first bad byte.
pub fn utf8(data: &[u8]) -> Result<&str, Failure> {
    utf8_text(data.strip_prefix(b"\xef\xbb\xbf").unwrap_or(data))
}

/// `data` as UTF-8 text as it is, else the line of the first bad byte.
pub fn utf8_text(data: &[u8]) -> Result<&str, Failure> {
    std::str::from_utf8(data).map_err(|e| Failure::Utf8(1 + count_lines(&data[..e.valid_up_to()])))
}

/// The line ends in `bytes` as [`lines`] counts them (`\n`, `\r\n`, `\r`; a `\r`
/// last counted alone): the number of lines of bytes that end in a line end.
pub fn count_lines(bytes: &[u8]) -> u64 {
    let ends = memchr::memchr2_iter(b'\n', b'\r', bytes)
        .filter(|&i| !(bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n')))
        .count();
    ends as u64
}

struct Object<'v, 'a>(&'v [(std::borrow::Cow<'a, str>, Value<'a>)]);

impl<'a> Record<'a> for Object<'_, 'a> {
    fn get(&self, key: &str) -> Option<&Value<'a>> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
}

pub fn jsonl(text: &str, out: &mut Sessions) -> Result<(), Failure> {
    for (number, line) in lines(text) {
        if strip(line).is_empty() {
            continue;
        }
        let value = json::parse(line).map_err(|e| Failure::Json(number, e.0))?;
        let Value::Object(pairs) = value else {
            return Err(Failure::Record(number, "expected a JSON object per line".into()));
        };
        out.record(&Object(&pairs)).map_err(|e| Failure::Record(number, e))?;
    }
    Ok(())
}

/// `_Builder.add`'s checks for the sessions of the PyClick and Yandex formats.
fn add(
    out: &mut Sessions,
    query: &str,
    docs: &[&str],
    clicks: &[bool],
    times: Option<&[f64]>,
) -> Result<(), Refusal> {
    if query.is_empty() {
        return Err("expected a non-empty query id".into());
    }
    if docs.is_empty() {
        return Err("a session shows no document".into());
    }
    if docs.len() > MAX_RANKS {
        return Err(format!("a session shows more than {MAX_RANKS} documents"));
    }
    if let Some(d) = docs.iter().find(|d| d.is_empty()) {
        return Err(format!(
            "expected a non-empty document id, got {}",
            Value::Str((*d).into()).repr()
        ));
    }
    out.push(query, docs, clicks, times);
    Ok(())
}

pub fn pyclick(text: &str, out: &mut Sessions) -> Result<(), Failure> {
    let mut docs: Vec<&str> = Vec::new();
    let mut clicks: Vec<bool> = Vec::new();
    let mut clicked: Vec<&str> = Vec::new();
    for (number, line) in lines(text) {
        let fail = |m: &str| Failure::Record(number, m.to_string());
        for part in line.split(';') {
            let part = strip(part);
            if part.is_empty() {
                continue;
            }
            let Some((query, rest)) = part.split_once('\t') else {
                return Err(fail("expected 'query<TAB>documents : clicked documents'"));
            };
            let Some((docs_text, clicks_text)) = rest.split_once(':') else {
                return Err(fail(
                    "expected one ':' between the documents and the clicked documents",
                ));
            };
            if clicks_text.contains(':') {
                return Err(fail(
                    "expected one ':' between the documents and the clicked documents",
                ));
            }
            docs.clear();
            docs.extend(docs_text.split(',').map(strip));
            clicked.clear();
            if !strip(clicks_text).is_empty() {
                for c in clicks_text.split(',') {
                    let c = strip(c);
                    if c.is_empty() {
                        return Err(fail("expected a non-empty clicked document id"));
                    }
                    clicked.push(c);
                }
            }
            clicks.clear();
            clicks.extend(docs.iter().map(|d| clicked.contains(d)));
            add(out, strip(query), &docs, &clicks, None).map_err(|e| Failure::Record(number, e))?;
        }
    }
    Ok(())
}

/// A page of the Yandex log: where its documents are in the flat arrays, its time,
/// and the session's page before it (`usize::MAX`: none).
struct Page {
    start: usize,
    len: usize,
    time: f64,
    before: usize,
}

/// Shown documents of a session over which its pages are indexed by a map instead of
/// searched (bounds the work of a click whatever the session's size).
const INDEXED_FROM: usize = 64;

/// What the Yandex log's clicks are matched against: a session's latest page.
struct Session {
    latest: usize,
    shown: usize,
    /// URL code -> (its latest page, its first rank on that page), once `shown`
    /// reaches [`INDEXED_FROM`]
    index: Option<Box<FxHashMap<i64, (usize, usize)>>>,
}

/// The Yandex relevance-prediction log read a piece of lines at a time: a click is
/// matched to the latest page of its session that showed its URL (at the URL's first
/// rank there), any number of lines before, so the pages and sessions read so far are
/// kept (as codes and positions in the flat arrays, never their text).
#[derive(Default)]
pub struct Yandex {
    pages: Vec<Page>,
    sessions: FxHashMap<Box<str>, Session>,
}

impl Session {
    fn index(&mut self, pages: &[Page], flat_docs: &[i64]) {
        let mut map = FxHashMap::default();
        let mut chain = Vec::new();
        let mut p = self.latest;
        while p != usize::MAX {
            chain.push(p);
            p = pages[p].before;
        }
        for &p in chain.iter().rev() {
            Self::insert(&mut map, p, &pages[p], flat_docs);
        }
        self.index = Some(Box::new(map));
    }

    fn insert(map: &mut FxHashMap<i64, (usize, usize)>, p: usize, page: &Page, docs: &[i64]) {
        let shown = &docs[page.start..page.start + page.len];
        for (rank, &d) in shown.iter().enumerate().rev() {
            map.insert(d, (p, rank));
        }
    }

    /// The latest page showing `doc` and the first rank there.
    fn find(&self, doc: i64, pages: &[Page], flat_docs: &[i64]) -> Option<(usize, usize)> {
        if let Some(map) = &self.index {
            return map.get(&doc).copied();
        }
        let mut p = self.latest;
        while p != usize::MAX {
            let page = &pages[p];
            let shown = &flat_docs[page.start..page.start + page.len];
            if let Some(rank) = shown.iter().position(|&d| d == doc) {
                return Some((p, rank));
            }
            p = page.before;
        }
        None
    }
}

impl Yandex {
    /// The lines of `text` (numbered from 1) into `out`, which holds every session read
    /// by this reader before (and only those).
    pub fn read(&mut self, text: &str, out: &mut Sessions) -> Result<(), Failure> {
        let mut fields: Vec<&str> = Vec::new();
        for (number, line) in lines(text) {
            if strip(line).is_empty() {
                continue;
            }
            let fail = |m: String| Failure::Record(number, m);
            fields.clear();
            fields.extend(line.split('\t'));
            let f = &fields;
            if f.len() >= 3 && f[2] == "Q" {
                if f.len() < 6 {
                    return Err(fail(
                        "a query record needs SessionID TimePassed Q QueryID RegionID \
                                     and at least one URL"
                            .into(),
                    ));
                }
                let t = time(&Value::Str(f[1].into())).map_err(fail)?;
                let docs = &f[5..];
                let start = out.flat_docs.len();
                add(out, f[3], docs, &vec![false; docs.len()], None)
                    .map_err(|e| Failure::Record(number, e))?;
                if !self.sessions.contains_key(f[0]) {
                    let new = Session { latest: usize::MAX, shown: 0, index: None };
                    self.sessions.insert(f[0].into(), new);
                }
                let session = self.sessions.get_mut(f[0]).expect("inserted above");
                let p = self.pages.len();
                self.pages.push(Page { start, len: docs.len(), time: t, before: session.latest });
                session.latest = p;
                session.shown += docs.len();
                match session.index.as_mut() {
                    Some(map) => Session::insert(map, p, &self.pages[p], &out.flat_docs),
                    None if session.shown >= INDEXED_FROM => {
                        session.index(&self.pages, &out.flat_docs)
                    }
                    None => {}
                }
            } else if f.len() >= 3 && f[2] == "C" {
                if f.len() != 4 {
                    return Err(fail("a click record is SessionID TimePassed C URLID".into()));
                }
                let t = time(&Value::Str(f[1].into())).map_err(fail)?;
                let Some(session) = self.sessions.get(f[0]) else {
                    let session = Value::Str(f[0].into()).repr();
                    return Err(fail(format!("a click in session {session} before any query")));
                };
                // a URL never shown has no code (and is not given one)
                let Some(doc) = out.docs.find(f[3]) else { continue };
                if let Some((p, rank)) = session.find(doc, &self.pages, &out.flat_docs) {
                    let at = self.pages[p].start + rank;
                    if !out.flat_clicks[at] {
                        out.flat_clicks[at] = true;
                        out.times_to(out.flat_docs.len());
                        out.flat_times[at] = (t - self.pages[p].time).max(0.0);
                    }
                }
            } else {
                return Err(fail("expected a query (Q) or click (C) record".into()));
            }
        }
        Ok(())
    }
}

/// The Yandex log of `text` whole.
pub fn yandex(text: &str, out: &mut Sessions) -> Result<(), Failure> {
    Yandex::default().read(text, out)
}
