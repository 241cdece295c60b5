//! A line-by-line click log (JSON lines, PyClick, Yandex) read from pieces of its bytes
//! as they arrive: what ends in a line end is read at once (JSON lines and PyClick in
//! two halves on two threads; the Yandex log, whose clicks refer to earlier lines, on
//! one), the rest carried to the next piece. Only the interned ids, the sessions' flat
//! arrays (and the Yandex log's pages) are kept, never the text.

use cranfield_eval::ndeval::at_once;

use super::record::{Known, Sessions};
use super::text::{self, count_lines, Failure, Yandex};

/// A reader of one line-based format whose lines stand alone: the lines of `text`,
/// numbered from 1.
pub type Lines = fn(&str, &mut Sessions) -> Result<(), Failure>;

/// How a stream's lines are read.
pub enum Format {
    /// lines that stand alone (read in parts at once)
    Lines(Lines),
    /// the Yandex log (its state carried from piece to piece)
    Yandex(Box<Yandex>),
}

pub struct Stream {
    format: Format,
    /// bytes after the last line end seen so far
    carry: Vec<u8>,
    /// lines read before `carry`
    lines: u64,
    started: bool,
    /// pieces of at least this many bytes are read on two threads (None: one)
    parallel_from: Option<usize>,
    pub sessions: Sessions,
}

/// The length of the longest prefix of `bytes` that ends in a complete line end (a
/// `\r` last is not complete: a `\n` may follow).
fn complete(bytes: &[u8]) -> usize {
    let last = |b: &[u8]| memchr::memrchr2(b'\n', b'\r', b);
    match last(bytes) {
        // before a last `\r`, every line end is complete (a `\r` followed by it too)
        Some(i) if bytes[i] == b'\r' && i + 1 == bytes.len() => {
            last(&bytes[..i]).map_or(0, |j| j + 1)
        }
        Some(i) => i + 1,
        None => 0,
    }
}

impl Stream {
    pub fn new(format: Format, parallel_from: Option<usize>) -> Self {
        Stream {
            format,
            carry: Vec::new(),
            lines: 0,
            started: false,
            parallel_from,
            sessions: Sessions::default(),
        }
    }

    /// Read the complete lines of what came so far plus `piece`; keep the rest.
    pub fn feed(&mut self, piece: &[u8]) -> Result<(), Refused> {
        if self.carry.is_empty() {
            let done = complete(piece);
            self.read(&piece[..done])?;
            self.carry.extend_from_slice(&piece[done..]);
        } else {
            self.carry.extend_from_slice(piece);
            let done = complete(&self.carry);
            let carry = std::mem::take(&mut self.carry);
            self.read(&carry[..done])?;
            self.carry = carry[done..].to_vec();
        }
        Ok(())
    }

    /// Read what is left (a last line without a line end).
    pub fn finish(&mut self) -> Result<(), Refused> {
        let carry = std::mem::take(&mut self.carry);
        self.read(&carry)
    }

    /// Complete lines: in two halves at once when large enough, the second half's ids
    /// merged after the first's (the order of first appearance of a serial read).
    fn read(&mut self, bytes: &[u8]) -> Result<(), Refused> {
        if bytes.is_empty() {
            return Ok(());
        }
        let bytes = if self.started {
            bytes
        } else {
            self.started = true;
            bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes)
        };
        let base = self.lines;
        let format = match &mut self.format {
            Format::Lines(f) => *f,
            Format::Yandex(y) => {
                let refused = |f| Refused { failure: shift(f, base), line: None };
                let text = text::utf8_text(bytes).map_err(refused)?;
                y.read(text, &mut self.sessions).map_err(refused)?;
                self.lines = base + count_lines(bytes);
                return Ok(());
            }
        };
        let cut = if self.parallel_from.is_some_and(|n| bytes.len() >= n) {
            complete(&bytes[..bytes.len() / 2])
        } else {
            0
        };
        // the parts look up the ids read so far (read only) and intern only new ones
        let known = Known::take(&mut self.sessions);
        let (first, second) = if cut == 0 {
            (read_part(format, bytes, base, &known), Ok(Sessions::default()))
        } else {
            let (head, tail) = bytes.split_at(cut);
            let tail_base = base + count_lines(head);
            at_once(
                || read_part(format, head, base, &known),
                || read_part(format, tail, tail_base, &known),
            )
        };
        known.restore(&mut self.sessions);
        self.sessions.append(first?);
        self.sessions.append(second?);
        self.lines = base + count_lines(bytes);
        Ok(())
    }
}

/// `f` with its line counted after `base` lines.
fn shift(f: Failure, base: u64) -> Failure {
    match f {
        Failure::Record(line, m) => Failure::Record(base + line, m),
        Failure::Json(line, w) => Failure::Json(base + line, w),
        Failure::Utf8(line) => Failure::Utf8(base + line),
    }
}

/// Why a piece was refused, with the text of the line when it is not JSON (for the
/// message in Python's words).
pub struct Refused {
    pub failure: Failure,
    pub line: Option<String>,
}

/// The sessions of whole lines, line numbers counted from `base`.
fn read_part(format: Lines, bytes: &[u8], base: u64, known: &Known) -> Result<Sessions, Refused> {
    let shift = |f: Failure| shift(f, base);
    let text = text::utf8_text(bytes).map_err(|f| Refused { failure: shift(f), line: None })?;
    let mut sessions = Sessions::over(known);
    format(text, &mut sessions).map_err(|f| {
        let line = match &f {
            Failure::Json(n, _) => Some(text::line(text, *n).to_string()),
            _ => None,
        };
        Refused { failure: shift(f), line }
    })?;
    sessions.forget_known();
    Ok(sessions)
}
