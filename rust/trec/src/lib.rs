//! TREC run and qrels files, read the way trec_eval 10.0 reads them.
//!
//! A run line is `qid iter docno rank score tag` (at least six fields separated by
//! runs of ASCII whitespace: space, tab, vertical tab, form feed; extra fields are
//! ignored), a qrels line exactly `qid iter docno rel`. Lines end at `\n`, `\r` or
//! `\r\n`; blank lines and lines whose first field starts with `#` are skipped. Ids
//! are kept as bytes (checked as UTF-8, or read as Latin-1: one character per byte),
//! the score is a double ([`number::parse_score`]), the grade an integer
//! ([`number::parse_relevance`]), or with [`Kind::FractionalQrels`] a finite real number
//! ([`number::parse_real_relevance`]).
//!
//! The input is cut into pieces of about [`CHUNK`] bytes after a line end; pieces are
//! parsed in parallel and each gives its own columns (Arrow chunks on the Python
//! side). The first problem is reported with its physical line number; which one is
//! "first" follows one fixed order (see [`parse`]), whatever the number of threads.

pub mod buffer;
pub mod check;
pub mod gzip;
pub mod number;
mod piece;
pub mod positioned;
pub mod room;

use std::borrow::Cow;
use std::io::Read;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
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
    /// Qrels whose relevance is a real number (fractional gains, soft labels).
    FractionalQrels,
}

impl Kind {
    /// The number of fields a line has (a run line may have more).
    pub fn fields(self) -> usize {
        match self {
            Kind::Run => 6,
            Kind::Qrels | Kind::FractionalQrels => 4,
        }
    }

    /// Whether a line has exactly [`Kind::fields`] fields (qrels) or at least (runs).
    pub fn exact(self) -> bool {
        self != Kind::Run
    }

    /// The position of the value field (score or grade).
    fn value_field(self) -> usize {
        match self {
            Kind::Run => 4,
            Kind::Qrels | Kind::FractionalQrels => 3,
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
    /// Memory could not be had for the input's buffers or columns (no line).
    Memory,
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
    /// An empty column with room for `rows` strings of `bytes` bytes in all.
    fn with_capacity(rows: usize, bytes: usize) -> Result<Self, room::NoRoom> {
        let mut offsets = room::with_capacity(rows + 1)?;
        offsets.push(0);
        Ok(Strings { data: room::with_capacity(bytes)?, offsets })
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

/// The query ids of one piece's rows, each stored once for its block of adjacent rows
/// with that id: a run has about a thousand rows per query, and an id copied for every
/// row was a sixth of the columns' bytes — fresh memory, every page of it faulted in.
/// Arrow tables from Python keep one id per row (`cranfield_eval`'s table view serves
/// both); [`QueryIds::to_rows`] makes that column for the Python side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueryIds {
    /// One id per block, in row order (adjacent blocks have different ids).
    pub ids: Strings,
    /// The first row of each block, increasing (0 first when there are rows).
    pub starts: Vec<usize>,
    /// The number of rows.
    pub rows: usize,
}

impl Default for QueryIds {
    fn default() -> Self {
        QueryIds {
            ids: Strings { data: Vec::new(), offsets: vec![0] },
            starts: Vec::new(),
            rows: 0,
        }
    }
}

impl QueryIds {
    /// No rows, with room for `blocks` blocks of `bytes` bytes of ids in all.
    fn with_capacity(blocks: usize, bytes: usize) -> Result<Self, room::NoRoom> {
        Ok(QueryIds {
            ids: Strings::with_capacity(blocks, bytes)?,
            starts: room::with_capacity(blocks)?,
            rows: 0,
        })
    }

    /// The ids of `rows`, one per row, stored a block at a time.
    pub fn from_rows(rows: &Strings) -> Self {
        let mut out = QueryIds::default();
        for row in 0..rows.len() {
            let id = rows.get(row);
            if out.starts.is_empty() || out.ids.get(out.ids.len() - 1) != id {
                out.starts.push(row);
                out.ids.data.extend_from_slice(id);
                out.ids.offsets.push(i32::try_from(out.ids.data.len()).expect("32-bit offsets"));
            }
        }
        out.rows = rows.len();
        out
    }

    /// The number of rows.
    pub fn len(&self) -> usize {
        self.rows
    }

    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// The block holding row `row` (< [`QueryIds::len`]).
    #[inline]
    pub fn block_of(&self, row: usize) -> usize {
        self.starts.partition_point(|&start| start <= row) - 1
    }

    /// The id of row `row` (< [`QueryIds::len`]).
    #[inline]
    pub fn get(&self, row: usize) -> &[u8] {
        self.ids.get(self.block_of(row))
    }

    /// The rows of block `block`: from its start to the next block's (or the end).
    pub fn rows_of(&self, block: usize) -> std::ops::Range<usize> {
        self.starts[block]..self.starts.get(block + 1).copied().unwrap_or(self.rows)
    }

    /// One id per row, in Arrow's layout (the column the Python side takes), or
    /// [`room::NoRoom`] when memory for it (or 32-bit offsets) cannot be had.
    pub fn to_rows(&self) -> Result<Strings, room::NoRoom> {
        let mut bytes = 0usize;
        for block in 0..self.ids.len() {
            bytes += self.ids.get(block).len() * self.rows_of(block).len();
        }
        i32::try_from(bytes).map_err(|_| room::NoRoom)?;
        let mut out = Strings::with_capacity(self.rows, bytes)?;
        for block in 0..self.ids.len() {
            let id = self.ids.get(block);
            for _ in self.rows_of(block) {
                out.data.extend_from_slice(id);
                out.offsets.push(out.data.len() as i32); // under `bytes`: fits
            }
        }
        Ok(out)
    }
}

/// The value column: scores (runs), grades (qrels) or real-valued relevance
/// (fractional qrels).
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    Scores(Vec<f64>),
    Grades(Vec<i64>),
    Reals(Vec<f64>),
}

impl Values {
    /// The number of values.
    pub fn len(&self) -> usize {
        match self {
            Values::Scores(v) | Values::Reals(v) => v.len(),
            Values::Grades(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One piece's rows.
#[derive(Clone, Debug, PartialEq)]
pub struct Columns {
    pub query_id: QueryIds,
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
    /// Integer grades (qrels): the line of the first grade with a non-zero fractional
    /// part, which is read truncated toward zero as trec_eval's `atol` reads it, and
    /// the grade as written.
    pub fractional: Option<(u64, Vec<u8>)>,
}

/// Where the pieces of `data` start and end: each ends after the first `\n` at or
/// after `CHUNK` bytes from its start (or at the end).
fn bounds(data: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < data.len() {
        let end = cut(&data[start..], CHUNK).map_or(data.len(), |n| start + n);
        out.push((start, end));
        start = end;
    }
    out
}

/// The length of the piece at the start of `text`: up to the first `\n` at or after
/// `from` bytes, or None when there is none (yet).
fn cut(text: &[u8], from: usize) -> Option<usize> {
    let from = from.max(CHUNK);
    if from >= text.len() {
        return None;
    }
    memchr::memchr(b'\n', &text[from..]).map(|i| from + i + 1)
}

/// Parse a whole input held in memory. An input without data lines gives zero rows
/// (the caller decides whether that is [`Problem::Empty`]).
///
/// The problem reported is the first in this order: the first piece with a NUL byte,
/// a line that is too long or has the wrong number of fields, or a score that is not a
/// number (within a piece: a NUL byte first, then the first bad line, then the first
/// bad score); then the first NaN score or grade that is not a number; then the first
/// grade out of range; then the first query id that is not UTF-8; then the first such
/// doc id.
pub fn parse(data: &[u8], options: &Options) -> Result<Parsed, Error> {
    let pieces = pipeline(options, false, |feed| {
        for (start, end) in bounds(data) {
            feed.send(Cow::Borrowed(&data[start..end]));
        }
        Ok::<(), Error>(())
    });
    assemble(pieces?)
}

/// Why [`read`] failed. Memory that cannot be had for the text or the columns is
/// `Input` with [`Problem::Memory`].
#[derive(Debug)]
pub enum ReadError {
    Io(std::io::Error),
    Input(Error),
}

impl From<room::NoRoom> for ReadError {
    fn from(no_room: room::NoRoom) -> Self {
        ReadError::Input(no_room.into())
    }
}

impl ReadError {
    /// An I/O error, or [`Problem::Memory`] for one of kind `OutOfMemory` (a reader's
    /// buffer that could not grow).
    fn io(err: std::io::Error) -> Self {
        if err.kind() == std::io::ErrorKind::OutOfMemory {
            return room::NoRoom.into();
        }
        ReadError::Io(err)
    }
}

/// [`read`] of an input as stored: decompressed as it is read when `gzipped`
/// ([`gzip::Members`], to at most `max_bytes` of text).
pub fn read_stored(
    reader: impl Read,
    gzipped: bool,
    max_bytes: u64,
    options: &Options,
) -> Result<Parsed, ReadError> {
    if gzipped {
        read(gzip::Members::new(reader, max_bytes), options)
    } else {
        read(reader, options)
    }
}

/// Read and parse an input from `reader` (a file), piece by piece: memory holds the
/// columns and a few pieces, never the whole text.
///
/// The text is checked as it arrives ([`check::Checker`]: a NUL byte, a line growing
/// past the limit), and such a problem is reported before any the parser finds, as
/// if the whole input had been read into memory first; otherwise the result is
/// [`parse`]'s for the whole text.
pub fn read(mut reader: impl Read, options: &Options) -> Result<Parsed, ReadError> {
    let mut checker = check::Checker::new(options.max_line);
    let mut problem = None;
    // every byte goes through the checker before it is parsed: no piece has a NUL
    let pieces: Result<_, ReadError> = pipeline(options, true, |feed| {
        // the text's buffers are filled whole: huge pages, fewer page faults
        let mut pending = feed.buffer(CHUNK + check::PIECE).map_err(ReadError::from)?;
        let mut searched = 0; // no piece end before this position of `pending`
        loop {
            let start = pending.len();
            // read into the spare capacity (no zeroing), retrying on `Interrupted`
            let limit = check::PIECE as u64;
            let got = room::fallibly(|| (&mut reader).take(limit).read_to_end(&mut pending))
                .map_err(ReadError::io)?;
            if got == 0 {
                if !pending.is_empty() {
                    feed.send(Cow::Owned(pending));
                }
                return Ok(());
            }
            if let Err(err) = checker.feed(&pending[start..]) {
                problem = Some(err);
                return Ok(());
            }
            while let Some(n) = cut(&pending, searched) {
                // the rest goes to a buffer of full size: growing it would copy it again
                let mut rest = feed.buffer(CHUNK + check::PIECE).map_err(ReadError::from)?;
                rest.extend_from_slice(&pending[n..]);
                pending.truncate(n);
                feed.send(Cow::Owned(std::mem::replace(&mut pending, rest)));
                searched = 0;
            }
            searched = pending.len().max(CHUNK);
        }
    });
    if let Some(err) = problem {
        return Err(ReadError::Input(err));
    }
    assemble(pieces?).map_err(ReadError::Input)
}

/// Hands pieces to the workers of [`pipeline`], numbered in order, or parses them
/// itself (`inline`) when no worker thread could be started.
struct Feed<'a, 'f> {
    tx: std::sync::mpsc::SyncSender<(usize, Cow<'a, [u8]>)>,
    count: usize,
    inline: Option<&'f Work<'f>>,
    /// The text buffers of parsed pieces, emptied, for the next pieces.
    spare: &'f Mutex<Vec<Vec<u8>>>,
}

/// The parsing of one piece (its number, its text), as a worker does it.
type Work<'w> = dyn Fn(usize, &[u8]) + Sync + 'w;

impl<'a> Feed<'a, '_> {
    fn send(&mut self, text: Cow<'a, [u8]>) {
        match self.inline {
            Some(work) => {
                work(self.count, &text);
                recycle(self.spare, text);
            }
            // fails only when every worker is gone (a panic, re-raised when the scope
            // ends)
            None => drop(self.tx.send((self.count, text))),
        }
        self.count += 1;
    }

    /// An empty text buffer with room for `capacity` bytes: one a parsed piece left
    /// when there is one (its memory is already mapped: a fresh buffer's every page
    /// is faulted in and zeroed by the system, a tenth of the reading time), else a new
    /// one advised as huge pages.
    fn buffer(&mut self, capacity: usize) -> Result<Vec<u8>, room::NoRoom> {
        let spare = self.spare.lock().unwrap_or_else(|e| e.into_inner()).pop();
        match spare {
            Some(mut text) => {
                room::reserve_exact(&mut text, capacity)?;
                Ok(text)
            }
            None => buffer::huge(capacity),
        }
    }
}

/// Keeps a parsed piece's text buffer for the next piece (at most a few are kept: as
/// many as pieces are parsed or wait at a time).
fn recycle(spare: &Mutex<Vec<Vec<u8>>>, text: Cow<'_, [u8]>) {
    if let Cow::Owned(mut text) = text {
        text.clear();
        let mut spare = spare.lock().unwrap_or_else(|e| e.into_inner());
        if spare.len() < 4 {
            spare.push(text);
        }
    }
}

/// Parse the pieces `produce` feeds, in worker threads, while it produces them (at
/// most a few pieces wait at a time). Returns the pieces in order, up to the first
/// one with an early problem (the later ones are not parsed). `nul_free`: the pieces
/// are known to hold no NUL byte (see [`Piece::parse`]).
///
/// The workers are as many of `options.threads` as the system starts: under an
/// address-space limit a thread's stack may not be had, and with no worker at all the
/// producer parses each piece itself.
fn pipeline<'a, E, F>(options: &Options, nul_free: bool, produce: F) -> Result<Vec<Piece>, E>
where
    F: for<'f> FnOnce(&mut Feed<'a, 'f>) -> Result<(), E>,
{
    let threads = options.threads.max(1);
    let stop = AtomicUsize::new(usize::MAX); // the first piece with an early problem
    let results: Mutex<Vec<(usize, Piece)>> = Mutex::new(Vec::new());
    let parse_one = |i: usize, text: &[u8]| {
        if i > stop.load(Ordering::Relaxed) {
            return;
        }
        let text =
            if i == 0 && !options.latin1 { text.strip_prefix(BOM).unwrap_or(text) } else { text };
        let piece = Piece::parse(text, options, nul_free);
        if piece.early.is_some() {
            stop.fetch_min(i, Ordering::Relaxed);
        }
        results.lock().unwrap_or_else(|e| e.into_inner()).push((i, piece));
    };
    let (tx, rx) = std::sync::mpsc::sync_channel::<(usize, Cow<'a, [u8]>)>(threads);
    let rx = Mutex::new(rx);
    // a worker that panicked (a bug) keeps taking pieces, so that the producer never
    // waits for a full channel; the panic is raised again once all have stopped
    let panicked: Mutex<Option<Box<dyn std::any::Any + Send>>> = Mutex::new(None);
    let work = |i: usize, text: &[u8]| {
        let parsed = catch_unwind(AssertUnwindSafe(|| parse_one(i, text)));
        if let Err(payload) = parsed {
            stop.store(0, Ordering::Relaxed);
            panicked.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(payload);
        }
    };
    let spare = Mutex::new(Vec::new());
    let produced = std::thread::scope(|scope| {
        let mut started = 0;
        for _ in 0..threads {
            let worker = || loop {
                let next = rx.lock().unwrap_or_else(|e| e.into_inner()).recv();
                let Ok((i, text)) = next else { return };
                work(i, &text);
                recycle(&spare, text);
            };
            if room::spawn(scope, worker).is_none() {
                break;
            }
            started += 1;
        }
        let inline = (started == 0).then_some(&work as &Work<'_>);
        let mut feed = Feed { tx, count: 0, inline, spare: &spare };
        let produced = produce(&mut feed);
        drop(feed);
        produced
    });
    if let Some(payload) = panicked.into_inner().unwrap_or_else(|e| e.into_inner()) {
        resume_unwind(payload);
    }
    produced?;
    let mut pieces = results.into_inner().unwrap_or_else(|e| e.into_inner());
    pieces.sort_unstable_by_key(|(i, _)| *i);
    Ok(pieces
        .into_iter()
        .enumerate()
        .map_while(|(k, (i, piece))| (k == i).then_some(piece))
        .collect())
}

/// Join the pieces (all parsed up to the first one with an early problem).
fn assemble(pieces: Vec<Piece>) -> Result<Parsed, Error> {
    let mut line_base = Vec::with_capacity(pieces.len());
    let mut lines_so_far = 0u64;
    for piece in &pieces {
        line_base.push(lines_so_far);
        if let Some((problem, line)) = &piece.early {
            let line = (*problem != Problem::Memory).then_some(lines_so_far + line);
            return Err(Error { problem: problem.clone(), line });
        }
        lines_so_far += piece.line_count;
    }
    let mut row_base = Vec::with_capacity(pieces.len());
    let mut rows = 0usize;
    for piece in &pieces {
        row_base.push(rows);
        rows += piece.rows;
    }
    for check in 0..4 {
        for (i, piece) in pieces.iter().enumerate() {
            if let Some((row, problem)) = &piece.late[check] {
                let line = line_base[i] + piece.line(*row);
                return Err(Error { problem: problem.clone(), line: Some(line) });
            }
        }
    }
    let numbered = pieces
        .iter()
        .enumerate()
        .all(|(i, piece)| piece.lines.is_none() && line_base[i] == row_base[i] as u64);
    let lines = if numbered {
        None
    } else {
        let mut out = room::with_capacity(rows)?;
        for (i, piece) in pieces.iter().enumerate() {
            out.extend((0..piece.rows).map(|r| (line_base[i] + piece.line(r)) as i64));
        }
        Some(out)
    };
    let starts = pieces.iter().map(|p| p.columns.query_id.starts.len()).sum::<usize>() + 1;
    let mut query_starts = room::with_capacity(starts)?;
    let mut previous: Option<&[u8]> = None;
    for (i, piece) in pieces.iter().enumerate() {
        let ids = &piece.columns.query_id.ids;
        if ids.is_empty() {
            continue;
        }
        let skip_first = previous == Some(ids.get(0));
        query_starts.extend(
            piece
                .columns
                .query_id
                .starts
                .iter()
                .skip(usize::from(skip_first))
                .map(|&r| (row_base[i] + r) as i64),
        );
        previous = Some(ids.get(ids.len() - 1));
    }
    query_starts.push(rows as i64);
    let tag = pieces.iter().rev().find_map(|p| p.tag.clone());
    let fractional = pieces.iter().enumerate().find_map(|(i, p)| {
        p.fractional.as_ref().map(|(row, grade)| (line_base[i] + p.line(*row), grade.clone()))
    });
    let columns = pieces.into_iter().filter(|p| p.rows > 0).map(|p| p.columns).collect();
    Ok(Parsed { columns, lines, query_starts, tag, rows, fractional })
}

#[cfg(test)]
mod tests;
