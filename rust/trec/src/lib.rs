//! TREC run and qrels files, read the way trec_eval 10.0 reads them.
//!
//! A run line is `qid iter docno rank score tag` (at least six fields separated by
//! runs of ASCII whitespace: space, tab, vertical tab, form feed; extra fields are
//! ignored), a qrels line exactly `qid iter docno rel`. Lines end at `\n`, `\r` or
//! `\r\n`; blank lines and lines whose first field starts with `#` are skipped. Ids
//! are kept as bytes (checked as UTF-8, or read as Latin-1: one character per byte),
//! the score is a double ([`number::parse_score`]), the grade an integer
//! ([`number::parse_relevance`]).
//!
//! The input is cut into pieces of about [`CHUNK`] bytes after a line end; pieces are
//! parsed in parallel and each gives its own columns (Arrow chunks on the Python
//! side). The first problem is reported with its physical line number; which one is
//! "first" follows one fixed order (see [`parse`]), whatever the number of threads.

pub mod check;
pub mod number;
mod piece;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

pub use piece::Piece;

/// Pieces are cut after the first line end at or after this many bytes.
pub const CHUNK: usize = 1 << 23;
/// The UTF-8 byte-order mark, dropped at the start of UTF-8 input.
pub const BOM: &[u8] = b"\xef\xbb\xbf";

/// Which TREC layout a file has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `qid iter docno rank score tag`, at least six fields.
    Run,
    /// `qid iter docno rel`, exactly four fields.
    Qrels,
}

impl Kind {
    /// The number of fields a line has (a run line may have more).
    pub fn fields(self) -> usize {
        match self {
            Kind::Run => 6,
            Kind::Qrels => 4,
        }
    }

    /// The position of the value field (score or grade).
    fn value_field(self) -> usize {
        match self {
            Kind::Run => 4,
            Kind::Qrels => 3,
        }
    }
}

/// How to read.
#[derive(Clone, Debug)]
pub struct Options {
    pub kind: Kind,
    /// Ids as Latin-1 (every byte a character, re-encoded as UTF-8) instead of UTF-8.
    pub latin1: bool,
    /// The longest line allowed, in bytes.
    pub max_line: usize,
    /// Worker threads (at least one is used).
    pub threads: usize,
}

/// What is wrong with an input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// A NUL byte: binary data.
    Nul,
    /// A line longer than `Options::max_line`.
    LongLine,
    /// A data line with the wrong number of fields (how many it has).
    Fields(usize),
    /// A score that is not a number (the field's bytes).
    Score(Vec<u8>),
    /// A score that is NaN.
    NanScore,
    /// A relevance grade that is not an integer (the field's bytes).
    Grade(Vec<u8>),
    /// An id that is not valid UTF-8 (`column` 0: query id, 1: doc id; its bytes).
    Utf8 { column: usize, value: Vec<u8> },
    /// No data line at all.
    Empty,
}

/// A problem and the physical line (1-based) where it is; `None` for the whole input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub problem: Problem,
    pub line: Option<u64>,
}

/// A column of strings: Arrow's layout (`offsets[i]..offsets[i + 1]` in `data`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Strings {
    pub data: Vec<u8>,
    pub offsets: Vec<i32>,
}

impl Strings {
    fn new() -> Self {
        Strings { data: Vec::new(), offsets: vec![0] }
    }

    /// The number of strings.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes of string `i`.
    pub fn get(&self, i: usize) -> &[u8] {
        &self.data[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }
}

/// The value column: scores (runs) or grades (qrels).
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    Scores(Vec<f64>),
    Grades(Vec<i64>),
}

/// One piece's rows.
#[derive(Clone, Debug, PartialEq)]
pub struct Columns {
    pub query_id: Strings,
    pub doc_id: Strings,
    pub values: Values,
}

/// A parsed input.
#[derive(Debug)]
pub struct Parsed {
    /// The rows, one group of columns per piece with rows (in file order).
    pub columns: Vec<Columns>,
    /// The physical line of every row, or `None` when row `i` is line `i + 1`.
    pub lines: Option<Vec<i64>>,
    /// Row numbers where the query id differs from the row before (0 first), then the
    /// number of rows.
    pub query_starts: Vec<i64>,
    /// A run's tag: the sixth field of its last data line.
    pub tag: Option<Vec<u8>>,
    pub rows: usize,
}

/// Where the pieces of `data` start and end: each ends after the first `\n` at or
/// after `CHUNK` bytes from its start (or at the end).
fn bounds(data: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < data.len() {
        let from = start.saturating_add(CHUNK);
        let end = if from >= data.len() {
            data.len()
        } else {
            memchr::memchr(b'\n', &data[from..]).map_or(data.len(), |i| from + i + 1)
        };
        out.push((start, end));
        start = end;
    }
    out
}

/// Parse a whole input. An input without data lines gives zero rows (the caller
/// decides whether that is [`Problem::Empty`]).
///
/// The problem reported is the first in this order: the first piece with a NUL byte,
/// a line that is too long or has the wrong number of fields, or a score that is not a
/// number (within a piece: a NUL byte first, then the first bad line, then the first
/// bad score); then the first NaN score or grade that is not a number; then the first
/// grade out of range; then the first query id that is not UTF-8; then the first such
/// doc id.
pub fn parse(data: &[u8], options: &Options) -> Result<Parsed, Error> {
    let bounds = bounds(data);
    let stop = AtomicUsize::new(usize::MAX); // the first piece with an early problem
    let next = AtomicUsize::new(0);
    let results: Vec<Mutex<Option<Piece>>> = bounds.iter().map(|_| Mutex::new(None)).collect();
    let work = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        if i >= bounds.len() || i > stop.load(Ordering::Relaxed) {
            return;
        }
        let (start, end) = bounds[i];
        let mut text = &data[start..end];
        if i == 0 && !options.latin1 {
            text = text.strip_prefix(BOM).unwrap_or(text);
        }
        let piece = Piece::parse(text, options);
        if piece.early.is_some() {
            stop.fetch_min(i, Ordering::Relaxed);
        }
        *results[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(piece);
    };
    let threads = options.threads.clamp(1, bounds.len().max(1));
    if threads == 1 {
        work();
    } else {
        std::thread::scope(|scope| {
            for _ in 1..threads {
                scope.spawn(work);
            }
            work();
        });
    }
    let pieces: Vec<Piece> = results
        .into_iter()
        .map_while(|slot| slot.into_inner().unwrap_or_else(|e| e.into_inner()))
        .collect();
    assemble(pieces)
}

/// Join the pieces (all parsed up to the first one with an early problem).
fn assemble(pieces: Vec<Piece>) -> Result<Parsed, Error> {
    let mut line_base = Vec::with_capacity(pieces.len());
    let mut lines_so_far = 0u64;
    for piece in &pieces {
        line_base.push(lines_so_far);
        if let Some((problem, line)) = &piece.early {
            return Err(Error { problem: problem.clone(), line: Some(lines_so_far + line) });
        }
        lines_so_far += piece.line_count;
    }
    let mut row_base = Vec::with_capacity(pieces.len());
    let mut rows = 0usize;
    for piece in &pieces {
        row_base.push(rows);
        rows += piece.lines.len();
    }
    for check in 0..4 {
        for (i, piece) in pieces.iter().enumerate() {
            if let Some((row, problem)) = &piece.late[check] {
                let line = line_base[i] + u64::from(piece.lines[*row]);
                return Err(Error { problem: problem.clone(), line: Some(line) });
            }
        }
    }
    let numbered = pieces.iter().enumerate().all(|(i, piece)| {
        let shift = row_base[i] as u64 + 1;
        piece
            .lines
            .iter()
            .enumerate()
            .all(|(r, &l)| line_base[i] + u64::from(l) == shift + r as u64)
    });
    let lines = (!numbered).then(|| {
        let mut out = Vec::with_capacity(rows);
        for (i, piece) in pieces.iter().enumerate() {
            out.extend(piece.lines.iter().map(|&l| (line_base[i] + u64::from(l)) as i64));
        }
        out
    });
    let mut query_starts = Vec::new();
    let mut previous: Option<&[u8]> = None;
    for (i, piece) in pieces.iter().enumerate() {
        if piece.columns.query_id.is_empty() {
            continue;
        }
        let first = piece.columns.query_id.get(0);
        let skip_first = previous == Some(first);
        query_starts.extend(
            piece
                .query_starts
                .iter()
                .skip(usize::from(skip_first))
                .map(|&r| (row_base[i] + r) as i64),
        );
        let ids = &piece.columns.query_id;
        previous = Some(ids.get(ids.len() - 1));
    }
    query_starts.push(rows as i64);
    let tag = pieces.iter().rev().find_map(|p| p.tag.clone());
    let columns = pieces.into_iter().filter(|p| !p.lines.is_empty()).map(|p| p.columns).collect();
    Ok(Parsed { columns, lines, query_starts, tag, rows })
}

#[cfg(test)]
mod tests;
