//! A TREC run judged piece by piece, in memory bounded by the size of a piece.
//!
//! The run (a regular file, a named pipe or standard input, plain or gzip) is read in
//! blocks of `piece_bytes` bytes, each cut at the start of the lines of its last query
//! (a run lists each query's documents together). Every piece is parsed and judged against the qrels as a whole file would
//! be, with line numbers counted from the start of the input; only the judged labels
//! of each piece are kept (not the document ids nor the scores), and they are joined
//! into the [`Judged`] that [`judge_with`] gives for the whole run: every value
//! measured on it is the same, bit for bit. An input of at most `piece_bytes` bytes is
//! one piece, judged as the whole file; a plain regular file of at most
//! `Reading::whole_bytes` is read whole by [`read_file`] (faster: its reading and
//! parsing overlap), with the same result.
//!
//! A query whose lines reappear in a later piece, after another query's (the run is
//! not grouped by query), cannot be judged piece by piece. The run is then read whole,
//! as when it is not streamed, if its text fits in the budget for a whole input
//! (`Reading::max_bytes`); otherwise it is [`JudgeError::Regrouped`], naming the line
//! where the query reappears (`cranfield.core.memory.regrouped` words the message).
//! The command line's every path reads runs this way (the general path through
//! `judge_files_streamed` and `judge_run_streamed`, for `cranfield/core/engine_judge.py`).

use std::collections::HashSet;
use std::io::{Cursor, Read};
use std::path::Path;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use cranfield_trec::check::{Checker, PIECE};
use cranfield_trec::gzip::{self, GzipError};
use cranfield_trec::room;
use cranfield_trec::{Kind, Options, Parsed, BOM};

use super::counted::Counted;
use super::table::{Table, Topics};
use super::{
    judge_prepared, no_rows, qrels_problem, qrels_side, read_file, read_qrels, threads_for,
    value_kind, Input, JudgeError, JudgeOptions, Judged, LabelKind, LabelVec, Prepared, Problem,
    QrelsSide, Ranking, Reading, ValueKind,
};

/// The bytes read per piece by default (64 MiB, about two million run lines).
pub const PIECE_BYTES: usize = 1 << 26;

/// Plain files up to this size are read whole by default (512 MiB: about 15 million
/// run lines, some 550 MB of memory), as fast as the parser goes; larger ones, and
/// gzip input, in pieces.
pub const WHOLE_BYTES: u64 = 1 << 29;

/// Reads the qrels (a regular file, a named pipe or standard input: see
/// [`read_qrels_from`]) and judges the run streamed from `run_path` (`-`: standard
/// input), in pieces of `reading.piece_bytes` bytes: the judged run, in bounded memory (see the module's documentation).
pub fn judge_files_streamed(
    run_path: &Path,
    qrels_path: &Path,
    reading: &Reading,
    options: &JudgeOptions,
) -> Result<Judged, JudgeError> {
    options.check()?;
    let qrels = read_qrels_from(qrels_path, reading)?;
    let threads = threads_for(&qrels, &qrels, reading.threads);
    let prepared = Prepared::new(&qrels, options.qrels_duplicates, threads);
    judge_run_streamed(run_path, &qrels, &prepared, reading, options)
}

/// Judges the run read from `run_path` (`-`: standard input) piece by piece against
/// parsed qrels (`prepared` from them with `options.qrels_duplicates`), in pieces of `reading.piece_bytes` bytes; see the module's
/// documentation. `piece_bytes` 0: the run is read whole.
pub fn judge_run_streamed(
    run_path: &Path,
    qrels: &Parsed,
    prepared: &Prepared<'_>,
    reading: &Reading,
    options: &JudgeOptions,
) -> Result<Judged, JudgeError> {
    options.check()?;
    let piece_bytes = reading.piece_bytes;
    if piece_bytes == 0 && too_large_to_read_whole(run_path, reading.max_bytes) {
        // asked to read whole a run over the budget: refused before reading, as an
        // allocation failing half-way would abort the process
        let what = "read the run whole (--stream reads it in pieces of bounded size)";
        return Err(qrels_first(
            qrels,
            options,
            JudgeError::Memory { path: run_path.into(), what },
        ));
    }
    if piece_bytes == 0 || small_plain_file(run_path, reading.whole_bytes) {
        return judge_whole(run_path, qrels, prepared, reading, options);
    }
    let source = Source::open(run_path, &reading.progress)?;
    let stdin = source.once;
    let mut stream = Stream::new(source.reader, qrels, prepared, reading, options, piece_bytes);
    // standard input or a pipe cannot be read twice: its text is kept while it fits
    // the budget
    if stdin {
        stream.kept = Some(Vec::new());
    }
    let located = |err| match err {
        JudgeError::Regrouped { query, line, .. } => {
            JudgeError::Regrouped { path: run_path.to_path_buf(), query, line }
        }
        JudgeError::Memory { what, .. } => {
            JudgeError::Memory { path: run_path.to_path_buf(), what }
        }
        other => other,
    };
    match stream.run().map_err(located) {
        Err(JudgeError::Regrouped { path, query, line }) => {
            let regrouped =
                || JudgeError::Regrouped { path: path.clone(), query: query.clone(), line };
            let whole = if stdin {
                let Some(kept) = stream.kept.take() else { return Err(regrouped()) };
                let rest = std::mem::take(&mut stream.carry);
                let reader = Parts { parts: kept, next: 0, at: 0 }
                    .chain(Cursor::new(rest))
                    .chain(stream.reader);
                read_whole(reader, reading)
            } else {
                drop(stream);
                if !fits(run_path, reading.max_bytes.min(reading.regroup_bytes)) {
                    return Err(regrouped());
                }
                read_file(run_path, Input::Run, Kind::Run, reading)
            };
            let run = match whole {
                Ok(run) => run,
                Err(JudgeError::Io { error, .. })
                    if matches!(GzipError::of(&error), Some(GzipError::TooLarge(_))) =>
                {
                    return Err(regrouped());
                }
                Err(err) => return Err(qrels_first(qrels, options, err)),
            };
            judge_prepared(&run, prepared, options, threads_for(&run, qrels, reading.threads))
        }
        other => other,
    }
}

/// The run read whole (at most `reading.max_bytes` of it from standard input or a gzip
/// file) and judged: what `piece_bytes` 0 asks for.
fn judge_whole(
    run_path: &Path,
    qrels: &Parsed,
    prepared: &Prepared<'_>,
    reading: &Reading,
    options: &JudgeOptions,
) -> Result<Judged, JudgeError> {
    let run = if read_once(run_path) {
        Source::open(run_path, &reading.progress)
            .and_then(|source| read_whole(source.reader, reading))
    } else {
        read_file(run_path, Input::Run, Kind::Run, reading)
    };
    let run = run.map_err(|err| qrels_first(qrels, options, err))?;
    let judged = judge_prepared(&run, prepared, options, threads_for(&run, qrels, reading.threads));
    room::drop_aside(run); // only the judged labels are needed now
                           // memory lacking for the judged run's labels: reported with the run's path
    judged.map_err(|err| match err {
        JudgeError::Memory { what, .. } => JudgeError::Memory { path: run_path.into(), what },
        other => other,
    })
}

/// Whether `path` is a regular file of at most `limit` bytes that is not gzip.
fn small_plain_file(path: &Path, limit: u64) -> bool {
    let Ok(meta) = std::fs::metadata(path) else { return false };
    if !meta.is_file() || meta.len() > limit || path.as_os_str() == "-" {
        return false;
    }
    let mut head = Vec::with_capacity(2);
    let read = std::fs::File::open(path).and_then(|f| f.take(2).read_to_end(&mut head));
    read.is_ok() && head != gzip::MAGIC
}

/// Whether `path` is a plain (not gzip) regular file of more than `budget` bytes: too
/// large to be read whole (a gzip file's text is capped as it is decompressed).
fn too_large_to_read_whole(path: &Path, budget: u64) -> bool {
    !fits(path, budget) && small_plain_file(path, u64::MAX)
}

/// Whether the regular file at `path` holds at most `budget` bytes (gzip files are
/// checked as they are decompressed).
fn fits(path: &Path, budget: u64) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.len() <= budget)
}

/// A problem of the qrels (a duplicate, no rows) is reported before one of the run
/// (as Python's `Qrels.read` comes first).
fn qrels_first(qrels: &Parsed, options: &JudgeOptions, err: JudgeError) -> JudgeError {
    qrels_problem(qrels, options, 1).unwrap_or(err)
}

/// A run read whole from `reader` (plain text), at most `reading.max_bytes` of it.
fn read_whole(reader: impl Read, reading: &Reading) -> Result<Parsed, JudgeError> {
    read_whole_as(reader, Kind::Run, Input::Run, reading)
}

/// `input` (of `kind`) read whole from `reader` (plain text), at most
/// `reading.max_bytes` of it.
fn read_whole_as(
    reader: impl Read,
    kind: Kind,
    input: Input,
    reading: &Reading,
) -> Result<Parsed, JudgeError> {
    let capped = Capped { inner: reader, limit: reading.max_bytes, read: 0 };
    let options = Options {
        kind,
        latin1: reading.latin1,
        max_line: reading.max_line,
        threads: reading.threads.max(1),
    };
    cranfield_trec::read(capped, &options).map_err(|e| match e {
        cranfield_trec::ReadError::Io(error) => JudgeError::Io { input, error },
        cranfield_trec::ReadError::Input(error) => JudgeError::Read { input, error },
    })
}

/// Whether `path` is standard input or another input that can be read only once (a
/// named pipe, a character device): not a regular file nor a directory. A path that
/// cannot be examined is not (its reading reports why).
fn read_once(path: &Path) -> bool {
    path.as_os_str() == "-" || std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// The input of a run or qrels.
struct Source {
    reader: Box<dyn Read>,
    /// Standard input or a pipe: it can be read only once.
    once: bool,
}

impl Source {
    /// Opens a regular file, a named pipe or standard input (`-`) as the run; gzip by
    /// its first two bytes.
    fn open(path: &Path, progress: &Option<Arc<AtomicU64>>) -> Result<Source, JudgeError> {
        Source::open_as(path, Input::Run, u64::MAX, progress)
    }

    /// Opens `path` as `input`; gzip decompressed to at most `max_bytes`. A directory
    /// is [`JudgeError::Unsupported`].
    fn open_as(
        path: &Path,
        input: Input,
        max_bytes: u64,
        progress: &Option<Arc<AtomicU64>>,
    ) -> Result<Source, JudgeError> {
        let io = |error| JudgeError::Io { input, error };
        let stdin = path.as_os_str() == "-";
        let raw: Box<dyn Read> = if stdin {
            Box::new(std::io::stdin())
        } else {
            let unsupported = JudgeError::Unsupported { input, reason: "a directory" };
            if std::fs::metadata(path).map_err(io)?.is_dir() {
                return Err(unsupported);
            }
            // (opening a named pipe waits for its writer)
            let file = std::fs::File::open(path).map_err(io)?;
            if file.metadata().map_err(io)?.is_dir() {
                return Err(unsupported);
            }
            Box::new(file)
        };
        // (counted only for a progress bar: see `read_file`)
        let mut raw: Box<dyn Read> = match progress {
            Some(bytes) => Box::new(Counted::new(raw, bytes.clone())),
            None => raw,
        };
        let once = stdin || read_once(path);
        let mut head = Vec::with_capacity(2);
        (&mut raw).take(2).read_to_end(&mut head).map_err(io)?;
        let gzipped = head == gzip::MAGIC;
        let raw = Cursor::new(head).chain(raw);
        let reader: Box<dyn Read> =
            if gzipped { Box::new(gzip::Members::new(raw, max_bytes)) } else { Box::new(raw) };
        Ok(Source { reader, once })
    }
}

/// Reads TREC qrels from a regular file (as [`read_qrels`]), a named pipe or standard
/// input (`-`; plain or gzip, at most `reading.max_bytes` of text).
pub fn read_qrels_from(path: &Path, reading: &Reading) -> Result<Parsed, JudgeError> {
    if !read_once(path) {
        return read_qrels(path, reading);
    }
    let source = Source::open_as(path, Input::Qrels, reading.max_bytes, &reading.progress)?;
    read_whole_as(source.reader, qrels_kind(reading), Input::Qrels, reading)
}

fn qrels_kind(reading: &Reading) -> Kind {
    if reading.fractional {
        Kind::FractionalQrels
    } else {
        Kind::Qrels
    }
}

/// The judged pieces so far.
struct Stream<'q, 'p> {
    reader: Box<dyn Read>,
    qrels: &'q Parsed,
    prepared: &'p Prepared<'p>,
    reading: &'q Reading,
    options: &'q JudgeOptions,
    piece_bytes: usize,
    /// Bytes read after the last piece (the start of the next).
    carry: Vec<u8>,
    /// The text of the pieces so far, while it fits in the budget (standard input).
    kept: Option<Vec<Vec<u8>>>,
    kept_bytes: u64,
    /// Every query id of the run seen in the pieces so far.
    seen: HashSet<Vec<u8>>,
    /// Each judged piece's labels, and for each qrels topic where its labels are
    /// (piece, start, end).
    labels: Vec<LabelVec>,
    spans: Vec<Option<(usize, usize, usize)>>,
    tag: Option<Vec<u8>>,
}

impl<'q, 'p> Stream<'q, 'p> {
    fn new(
        reader: Box<dyn Read>,
        qrels: &'q Parsed,
        prepared: &'p Prepared<'p>,
        reading: &'q Reading,
        options: &'q JudgeOptions,
        piece_bytes: usize,
    ) -> Self {
        Stream {
            reader,
            qrels,
            prepared,
            reading,
            options,
            piece_bytes,
            carry: Vec::new(),
            kept: None,
            kept_bytes: 0,
            seen: HashSet::new(),
            labels: Vec::new(),
            spans: Vec::new(),
            tag: None,
        }
    }

    /// Reads, judges and joins every piece.
    fn run(&mut self) -> Result<Judged, JudgeError> {
        let mut checker = Checker::new(self.reading.max_line);
        let mut lines_before = 0u64;
        let mut cut_yet = false;
        let mut spare = Vec::new();
        loop {
            let mut buf = std::mem::take(&mut self.carry);
            let got = fill(&mut self.reader, &mut buf, self.piece_bytes, &mut checker)?;
            if got < self.piece_bytes {
                // the input ends here: the rest is the last piece
                if !buf.is_empty() {
                    drop(spare);
                    self.piece(buf, lines_before)?;
                }
                break;
            }
            // the input's byte-order mark (dropped by the parser) is no part of an id
            let bom = !self.reading.latin1 && lines_before == 0 && !cut_yet;
            let cut = last_group_start(&buf, self.reading.latin1, bom);
            if cut == 0 {
                self.carry = buf; // one query so far: read on
                continue;
            }
            // the buffer of the piece before is reused: its pages are already mapped
            let mut rest = std::mem::take(&mut spare);
            rest.clear();
            reserve(&mut rest, buf.len() - cut + self.piece_bytes)?;
            rest.extend_from_slice(&buf[cut..]);
            buf.truncate(cut);
            self.carry = rest;
            cut_yet = true;
            let (buffer, lines) = self.piece(buf, lines_before)?;
            spare = buffer;
            lines_before += lines;
        }
        self.finish()
    }

    /// Parses and judges one piece (`lines_before` lines precede it) and keeps its
    /// labels; gives the piece's buffer back (unless its text is kept) and the number
    /// of its lines (exact for a piece cut by [`last_group_start`]).
    fn piece(&mut self, text: Vec<u8>, lines_before: u64) -> Result<(Vec<u8>, u64), JudgeError> {
        let reading = self.reading;
        let options = Options {
            kind: Kind::Run,
            latin1: reading.latin1,
            max_line: reading.max_line,
            threads: reading.threads.max(1),
        };
        // the parser's columns need about as much as the text: fail cleanly if they
        // cannot be had (an allocation failure would end the process)
        probe(text.len().saturating_mul(2))?;
        // later pieces start at a line start: the byte-order mark is only the input's
        // first bytes (a later piece never starts with one, see `last_group_start`)
        let parsed = cranfield_trec::parse(&text, &options).map_err(|mut error| {
            if error.problem == cranfield_trec::Problem::Memory {
                return memory("parse a piece of the run");
            }
            error.line = error.line.map(|l| l + lines_before);
            JudgeError::Read { input: Input::Run, error }
        });
        let parsed = match parsed {
            Ok(parsed) => parsed,
            Err(err) => return Err(qrels_first(self.qrels, self.options, err)),
        };
        let lines = lines_of(&parsed, &text);
        let text = self.keep(text);
        if parsed.rows == 0 {
            return Ok((text, lines)); // blank lines and comments only
        }
        let threads = threads_for(&parsed, self.qrels, reading.threads);
        let (labels, spans) = self.judge(&parsed, threads).map_err(|e| match e {
            JudgeError::Duplicate { input, query, doc, lines } => JudgeError::Duplicate {
                input,
                query,
                doc,
                lines: (lines.0 + lines_before, lines.1 + lines_before),
            },
            other => other,
        })?;
        self.regrouped(&parsed, lines_before)?;
        if parsed.tag.is_some() {
            self.tag = parsed.tag.clone();
        }
        drop(parsed);
        let piece = self.labels.len();
        for (t, a, b) in spans {
            self.spans[t] = Some((piece, a, b));
        }
        self.labels.push(labels);
        Ok((text, lines))
    }

    /// The labels of the qrels topics a piece ranks documents for, back to back, and
    /// where each topic's are: `(topic, start, end)` (as [`judge_with`] judges them).
    fn judge(&mut self, parsed: &Parsed, threads: usize) -> Result<PieceLabels, JudgeError> {
        let qrels = ready(self.prepared)?;
        if value_kind(parsed, Input::Run)? != ValueKind::Scores {
            return Err(JudgeError::WrongKind(Input::Run));
        }
        let run = Table::new(parsed);
        let topics = Topics::new(&qrels.topics, &run);
        if self.spans.is_empty() {
            self.spans = vec![None; qrels.topics.ids.len()];
        }
        let answered = |t: usize| !topics.run_blocks.of(t).is_empty();
        let kept: Vec<usize> = qrels.order.iter().copied().filter(|&t| answered(t)).collect();
        let judged = &qrels.judged;
        let ranking =
            Ranking { run: &run, topics: &topics, judged, options: self.options, threads };
        let (labels, lengths) = match qrels.kind {
            LabelKind::I8 => ranking.labels::<i8>(&kept)?,
            LabelKind::I64 => ranking.labels::<i64>(&kept)?,
            LabelKind::F64 => ranking.labels::<f64>(&kept)?,
        };
        let mut at = 0;
        let mut spans = Vec::with_capacity(kept.len());
        for (&t, n) in kept.iter().zip(lengths) {
            spans.push((t, at, at + n));
            at += n;
        }
        Ok((labels, spans))
    }

    /// Keeps the text of a piece while all of them fit in the budget; else gives it
    /// back.
    fn keep(&mut self, text: Vec<u8>) -> Vec<u8> {
        if let Some(kept) = &mut self.kept {
            self.kept_bytes += text.len() as u64;
            if self.kept_bytes <= self.reading.max_bytes.min(self.reading.regroup_bytes) {
                kept.push(text);
                return Vec::new();
            }
            self.kept = None;
        }
        text
    }

    /// [`JudgeError::Regrouped`] for the first query of the piece (in file order) seen
    /// in an earlier piece; else the piece's query ids join those seen.
    fn regrouped(&mut self, parsed: &Parsed, lines_before: u64) -> Result<(), JudgeError> {
        let table = Table::new(parsed);
        let starts: Vec<usize> = table.blocks().map(|(start, _)| start).collect();
        if let Some(&row) = starts.iter().find(|&&r| self.seen.contains(table.query_id(r))) {
            return Err(JudgeError::Regrouped {
                path: Default::default(),
                query: table.query_id(row).to_vec(),
                line: table.line(row) + lines_before,
            });
        }
        for row in starts {
            let id = table.query_id(row);
            if !self.seen.contains(id) {
                self.seen.insert(id.to_vec());
            }
        }
        Ok(())
    }

    /// The judged run: the kept labels in topic order.
    fn finish(&mut self) -> Result<Judged, JudgeError> {
        if self.spans.is_empty() {
            // no data line: the error the whole file gives
            let err = judge_prepared(&no_rows(), self.prepared, self.options, 1).err();
            return Err(err.unwrap_or(JudgeError::Empty(Input::Run)));
        }
        let prepared = ready(self.prepared)?;
        let complete = self.options.complete;
        let order = prepared.order.iter().copied();
        let kept: Vec<usize> = order.filter(|&t| complete || self.spans[t].is_some()).collect();
        let total: usize = kept.iter().filter_map(|&t| self.spans[t]).map(|(_, a, b)| b - a).sum();
        let mut labels = match prepared.kind {
            LabelKind::I8 => LabelVec::I8(Vec::new()),
            LabelKind::I64 => LabelVec::I64(Vec::new()),
            LabelKind::F64 => LabelVec::F64(Vec::new()),
        };
        let mut offsets = Vec::with_capacity(kept.len() + 1);
        reserve_labels(&mut labels, total)?;
        offsets.push(0i64);
        for &t in &kept {
            if let Some((piece, a, b)) = self.spans[t] {
                append(&mut labels, &self.labels[piece], a, b);
            }
            offsets.push(labels.len() as i64);
        }
        self.labels.clear();
        let QrelsSide { query_ids, qrels_offsets, qrels_grades } =
            qrels_side(&kept, &prepared.topics.ids, &prepared.judged, prepared.real)?;
        let in_run = kept.iter().map(|&t| self.spans[t].is_some()).collect();
        Ok(Judged {
            query_ids,
            offsets,
            labels,
            qrels_offsets,
            qrels_grades,
            in_run,
            rel_level: self.options.rel_level,
            compat: self.options.compat,
            run_tag: self.tag.take().unwrap_or_default(),
        })
    }
}

/// A piece's labels and where each topic's are: `(topic, start, end)`.
type PieceLabels = (LabelVec, Vec<(usize, usize, usize)>);

/// The qrels judged, or their problem (reported before any of a run), as
/// [`judge_prepared`] reports it.
fn ready<'a, 'q>(prepared: &'a Prepared<'q>) -> Result<&'a super::Ready<'q>, JudgeError> {
    let qrels = match &prepared.ready {
        Ok(ready) => ready,
        Err(Problem::Empty) => return Err(JudgeError::Empty(Input::Qrels)),
        Err(Problem::WrongKind) => return Err(JudgeError::WrongKind(Input::Qrels)),
    };
    if let Some((first, second)) = qrels.duplicate {
        return Err(super::duplicate(&qrels.table, Input::Qrels, first, second));
    }
    Ok(qrels)
}

/// Room for `more` labels, or [`JudgeError::Memory`].
fn reserve_labels(labels: &mut LabelVec, more: usize) -> Result<(), JudgeError> {
    match labels {
        LabelVec::I8(v) => room::reserve_exact(v, more),
        LabelVec::I64(v) => room::reserve_exact(v, more),
        LabelVec::F64(v) => room::reserve_exact(v, more),
    }
    .map_err(|_| memory("hold the judged run's labels"))
}

/// Appends `from[a..b]` to `to` (both of one type: the qrels decide it).
fn append(to: &mut LabelVec, from: &LabelVec, a: usize, b: usize) {
    match (to, from) {
        (LabelVec::I8(t), LabelVec::I8(f)) => t.extend_from_slice(&f[a..b]),
        (LabelVec::I64(t), LabelVec::I64(f)) => t.extend_from_slice(&f[a..b]),
        (LabelVec::F64(t), LabelVec::F64(f)) => t.extend_from_slice(&f[a..b]),
        _ => unreachable!("every piece's labels have the qrels' type"),
    }
}

/// [`JudgeError::Memory`] for `what` (the path is set by [`judge_run_streamed`]).
fn memory(what: &'static str) -> JudgeError {
    JudgeError::Memory { path: Default::default(), what }
}

/// What lacked memory when a piece could not grow.
const HOLD_PIECE: &str = "hold a piece of the run (each query's lines are read together)";

/// Room for `more` bytes in `buf`, or [`JudgeError::Memory`].
fn reserve(buf: &mut Vec<u8>, more: usize) -> Result<(), JudgeError> {
    room::reserve_exact(buf, more).map_err(|_| memory(HOLD_PIECE))
}

/// Whether `bytes` more can be had now (reserved and given back at once).
fn probe(bytes: usize) -> Result<(), JudgeError> {
    room::with_capacity::<u8>(bytes).map(drop).map_err(|_| memory("parse a piece of the run"))
}

/// Reads up to `want` more bytes into `buf` (less only at the end of the input),
/// checking them as they come; returns the bytes read.
fn fill(
    reader: &mut dyn Read,
    buf: &mut Vec<u8>,
    want: usize,
    checker: &mut Checker,
) -> Result<usize, JudgeError> {
    let io = |error: std::io::Error| match error.kind() {
        std::io::ErrorKind::OutOfMemory => memory(HOLD_PIECE),
        _ => JudgeError::Io { input: Input::Run, error },
    };
    let target = buf.len() + want;
    let first = buf.len();
    while buf.len() < target {
        let start = buf.len();
        let step = (target - start).min(PIECE);
        // amortised growth, as the text comes: a small input (standard input, a gzip
        // file) takes little memory, and a query longer than a piece is read on
        // without copying it again at every step
        room::room(buf, step).map_err(|_| memory(HOLD_PIECE))?;
        let got = room::fallibly(|| reader.take(step as u64).read_to_end(buf)).map_err(io)?;
        if got == 0 {
            break;
        }
        checker
            .feed(&buf[start..])
            .map_err(|error| JudgeError::Read { input: Input::Run, error })?;
    }
    Ok(buf.len() - first)
}

/// Bytes Python's `bytes.split()` separates fields with (line ends included).
#[inline]
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// The first field of a line, if any.
fn first_field(line: &[u8]) -> Option<&[u8]> {
    let start = line.iter().position(|&b| !is_space(b))?;
    let len = line[start..].iter().position(|&b| is_space(b)).unwrap_or(line.len() - start);
    Some(&line[start..start + len])
}

/// Where the lines of the last query of `data` begin (0: all one query so far): only
/// complete lines (ended by `\n`) count;
/// blank and comment lines belong to the lines after them. The cut is after a `\n`
/// whose line is of another query than the line after it; a `\n`-ended stretch with
/// lone `\r` line ends inside is never cut, and a cut is never made before a line
/// starting with a byte-order mark (the parser would drop it there). `bom`: `data` is
/// the start of the input, whose byte-order mark the parser drops.
fn last_group_start(data: &[u8], latin1: bool, bom: bool) -> usize {
    let Some(mut pos) = memchr::memrchr(b'\n', data) else { return 0 };
    // the query of the first data line after the cut looked at
    let mut after: Option<&[u8]> = None;
    loop {
        let start = memchr::memrchr(b'\n', &data[..pos]).map_or(0, |i| i + 1);
        let stretch = &data[start..pos];
        let stretch =
            if start == 0 && bom { stretch.strip_prefix(BOM).unwrap_or(stretch) } else { stretch };
        let (first, last) = queries(stretch);
        if let (Some(first), Some(last)) = (first, last) {
            match after {
                Some(a) if a != last && (latin1 || !data[pos + 1..].starts_with(BOM)) => {
                    return pos + 1;
                }
                _ => after = Some(first),
            }
        }
        if start == 0 {
            return 0;
        }
        pos = start - 1;
    }
}

/// The query ids of the first and the last data line of a stretch of text without
/// `\n` (lines end at a lone `\r`).
fn queries(stretch: &[u8]) -> (Option<&[u8]>, Option<&[u8]>) {
    let mut ids = stretch.split(|&b| b == b'\r').filter_map(first_field).filter(|f| f[0] != b'#');
    let first = ids.next();
    (first, ids.next_back().or(first))
}

/// The lines of a piece cut by [`last_group_start`], as the parser counts them: the
/// line of its last row, plus the lines after it in its last `\n`-ended stretch
/// (which holds that row; lone `\r` line ends inside). 0 for a piece without rows
/// (only the input's last piece can be one, and its count is not needed).
fn lines_of(parsed: &Parsed, text: &[u8]) -> u64 {
    if parsed.rows == 0 {
        return 0;
    }
    let last_row = Table::new(parsed).line(parsed.rows - 1);
    let body = text.strip_suffix(b"\n").unwrap_or(text);
    let body = body.strip_suffix(b"\r").unwrap_or(body); // the `\r` of `\r\n`
    let start = memchr::memrchr(b'\n', body).map_or(0, |i| i + 1);
    let lines: Vec<&[u8]> = body[start..].split(|&b| b == b'\r').collect();
    let data = lines.iter().rposition(|l| first_field(l).is_some_and(|f| f[0] != b'#'));
    last_row + data.map_or(0, |j| (lines.len() - 1 - j) as u64)
}

/// The lines of a piece that ends with a line end, as the parser counts them: `\n`,
/// `\r\n` and a lone `\r` each end one.
#[cfg(test)]
fn count_lines(text: &[u8]) -> u64 {
    let newlines = memchr::memchr_iter(b'\n', text).count();
    let lone =
        memchr::memchr_iter(b'\r', text).filter(|&i| text.get(i + 1) != Some(&b'\n')).count();
    (newlines + lone) as u64
}

/// Reads `parts` one after the other.
struct Parts {
    parts: Vec<Vec<u8>>,
    next: usize,
    at: usize,
}

impl Read for Parts {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        while let Some(part) = self.parts.get_mut(self.next) {
            if self.at < part.len() {
                let n = out.len().min(part.len() - self.at);
                out[..n].copy_from_slice(&part[self.at..self.at + n]);
                self.at += n;
                return Ok(n);
            }
            *part = Vec::new(); // given back as soon as it is read
            self.next += 1;
            self.at = 0;
        }
        Ok(0)
    }
}

/// A reader that fails once more than `left` bytes are read from it (with
/// [`GzipError::TooLarge`], as a gzip input over its limit).
struct Capped<R> {
    inner: R,
    limit: u64,
    read: u64,
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(out)?;
        self.read = self.read.saturating_add(n as u64);
        if self.read > self.limit {
            return Err(std::io::Error::other(GzipError::TooLarge(self.limit)));
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests;
