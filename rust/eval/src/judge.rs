//! Run x qrels -> judged run (trec_eval's `form_res_rels.c` for all queries at once):
//! of TREC files read here, and ([`arrays`]) of the Arrow tables of Python's `Run` and
//! `Qrels` (`cranfield/core/judged.py`'s `judge`).
//!
//! * Topics are the qrels' query ids, in byte order (trec_eval's per-topic order). A
//!   run topic absent from the qrels is ignored; a qrels topic absent from the run is
//!   left out, or with `complete` (-c) evaluated as an empty ranking (`in_run` false).
//! * A document listed twice for one query is an error, or one line is kept (the
//!   first, or the one with the highest value): [`Duplicates`], as the readers apply it
//!   (to the qrels first, then the run).
//! * Each topic's documents are ranked by score descending, ties by document id
//!   descending in byte order; with `compat` 9 scores are rounded to `f32` first (as
//!   trec_eval 9.x and pytrec_eval read them). The rank field of the file is ignored.
//! * The label of a ranked document is its grade when the qrels judge it (>= 0),
//!   [`UNJUDGED`] when they give it a negative value (pooled but unjudged), else
//!   [`NOT_POOLED`]. Labels are `i8` when every qrels grade fits (as NumPy's int8),
//!   else `i64`; `f64` for fractional qrels.
//! * `depth` (-M) keeps the first `depth` documents of each ranking; `judged_only` (-J)
//!   then drops the labels < 0, the order of the others kept.
//! * `qrels_grades` holds, per evaluated topic, the grades >= 0 of every judged
//!   document (ranked or not), descending; equal values (0.0 and -0.0) keep file order.
//!
//! Ids are hashed (seeded FxHash) per topic: the work is linear in the input but for
//! the sort of each topic's ranking, and topics are shared among threads.

pub mod arrays;
pub mod counted;
mod hash;
mod parallel;
pub mod stream;
mod table;

use std::fmt;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use cranfield_trec::{gzip, room};
use cranfield_trec::{Kind, Options, Parsed, QueryIds, Strings, Values};

use crate::{JudgedView, LabelVec, NOT_POOLED, UNJUDGED};
use table::{raw_value, QrelsTopics, Table, Topics, ValuesView};

/// What to do with a document listed twice for one query (Python's `duplicates`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Duplicates {
    /// An error (as trec_eval).
    #[default]
    Error,
    /// Keep the first line.
    First,
    /// Keep the line with the highest value (the first of equal ones).
    Max,
}

impl Duplicates {
    /// The policy named as in Python: "error", "first" or "max".
    pub fn parse(name: &str) -> Option<Duplicates> {
        match name {
            "error" => Some(Duplicates::Error),
            "first" => Some(Duplicates::First),
            "max" => Some(Duplicates::Max),
            _ => None,
        }
    }
}

/// The judging options of `cranfield/core/options.py`'s `JudgeOptions`, plus the
/// duplicates policy of the qrels (Python's `Qrels.read(duplicates=...)`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JudgeOptions {
    /// Minimum grade of a relevant document (-l).
    pub rel_level: i64,
    /// Keep only the first `depth` documents of each ranking (-M); positive.
    pub depth: Option<u64>,
    /// Drop documents without a judgment from the rankings (-J).
    pub judged_only: bool,
    /// Evaluate every qrels topic, a missing one as an empty ranking (-c).
    pub complete: bool,
    /// 10 (trec_eval 10.0) or 9 (scores rounded to f32 before ranking).
    pub compat: u8,
    /// Documents ranked twice for one query (the run's policy).
    pub duplicates: Duplicates,
    /// Documents judged twice for one query (the qrels' policy).
    pub qrels_duplicates: Duplicates,
}

impl Default for JudgeOptions {
    fn default() -> Self {
        JudgeOptions {
            rel_level: 1,
            depth: None,
            judged_only: false,
            complete: false,
            compat: 10,
            duplicates: Duplicates::Error,
            qrels_duplicates: Duplicates::Error,
        }
    }
}

impl JudgeOptions {
    /// Checks the values Python's `JudgeOptions` refuses.
    pub fn check(&self) -> Result<(), JudgeError> {
        if self.depth == Some(0) {
            return Err(JudgeError::Options("depth must be a positive integer"));
        }
        if !matches!(self.compat, 9 | 10) {
            return Err(JudgeError::Options("compat must be 9 or 10"));
        }
        Ok(())
    }
}

/// A judged run: what `cranfield.core.judged.JudgedRun` holds (but the document rows).
#[derive(Clone, Debug, PartialEq)]
pub struct Judged {
    /// The evaluated query ids, in byte order (UTF-8: Latin-1 input re-encoded).
    pub query_ids: Strings,
    /// `labels[offsets[q]..offsets[q + 1]]` is the ranking of query `q`.
    pub offsets: Vec<i64>,
    pub labels: LabelVec,
    /// `qrels_grades[qrels_offsets[q]..qrels_offsets[q + 1]]`: query `q`'s grades >= 0,
    /// descending (`I64`, or `F64` for fractional qrels).
    pub qrels_offsets: Vec<i64>,
    pub qrels_grades: LabelVec,
    /// False for the queries evaluated as empty rankings because of `complete`.
    pub in_run: Vec<bool>,
    pub rel_level: i64,
    pub compat: u8,
    /// The run's tag (the sixth field of its last line), as bytes of the file.
    pub run_tag: Vec<u8>,
}

impl Judged {
    /// The borrowed view the measure kernels take.
    pub fn view(&self) -> JudgedView<'_> {
        JudgedView {
            offsets: &self.offsets,
            labels: self.labels.view(),
            qrels_offsets: &self.qrels_offsets,
            qrels_grades: self.qrels_grades.view(),
            in_run: &self.in_run,
            rel_level: self.rel_level,
            compat: self.compat,
        }
    }

    pub fn num_queries(&self) -> usize {
        self.in_run.len()
    }

    /// Query `q`'s id (UTF-8 bytes).
    pub fn query_id(&self, q: usize) -> &[u8] {
        self.query_ids.get(q)
    }

    /// The run's name as Python's `Run.read` makes it from the tag: decoded as Latin-1
    /// or as UTF-8 (invalid sequences replaced by U+FFFD).
    pub fn run_name(&self, latin1: bool) -> String {
        if latin1 {
            self.run_tag.iter().map(|&b| char::from(b)).collect()
        } else {
            String::from_utf8_lossy(&self.run_tag).into_owned()
        }
    }
}

/// Which input a problem is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    Run,
    Qrels,
}

impl fmt::Display for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Input::Run => "run",
            Input::Qrels => "qrels",
        })
    }
}

/// Why judging failed. The Python side reports input problems with its own messages
/// (it reads the inputs again); these only need to tell the cases apart.
#[derive(Debug)]
pub enum JudgeError {
    /// An option Python's `JudgeOptions` refuses.
    Options(&'static str),
    /// The columns are not of the input's kind (a run needs scores, qrels grades), or
    /// not consistent (columns of unequal lengths, string offsets outside their data).
    WrongKind(Input),
    /// No data line.
    Empty(Input),
    /// A document listed twice for one query, with policy `Error`: the pair whose
    /// second line comes first, and the lines of its two occurrences.
    Duplicate { input: Input, query: Vec<u8>, doc: Vec<u8>, lines: (u64, u64) },
    /// The reader found a problem (what and where).
    Read { input: Input, error: cranfield_trec::Error },
    /// The file cannot be opened or read.
    Io { input: Input, error: std::io::Error },
    /// An input read elsewhere (standard input, a pipe, gzip): the caller reads it.
    Unsupported { input: Input, reason: &'static str },
    /// A query of a run read piece by piece whose lines reappear in a later piece,
    /// after another query's (its id, and the line where it reappears).
    Regrouped { path: std::path::PathBuf, query: Vec<u8>, line: u64 },
    /// Memory could not be had to do what is named ("not enough memory to ...") while
    /// reading the run at `path`.
    Memory { path: std::path::PathBuf, what: &'static str },
}

impl fmt::Display for JudgeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JudgeError::Options(what) => f.write_str(what),
            JudgeError::WrongKind(input) => write!(f, "{input}: columns of the wrong kind"),
            JudgeError::Empty(input) => write!(f, "{input}: no lines found"),
            JudgeError::Duplicate { input, query, doc, lines } => write!(
                f,
                "{input}: document {:?} appears twice for query {:?} (lines {} and {})",
                String::from_utf8_lossy(doc),
                String::from_utf8_lossy(query),
                lines.0,
                lines.1
            ),
            JudgeError::Read { input, error } => match error.line {
                Some(line) => write!(f, "{input}, line {line}: {:?}", error.problem),
                None => write!(f, "{input}: {:?}", error.problem),
            },
            JudgeError::Io { input, error } => write!(f, "{input}: {error}"),
            JudgeError::Unsupported { input, reason } => write!(f, "{input}: {reason}"),
            JudgeError::Regrouped { query, line, .. } => write!(
                f,
                "run, line {line}: query {:?} appears again after other queries",
                String::from_utf8_lossy(query)
            ),
            JudgeError::Memory { what, .. } => write!(f, "not enough memory to {what}"),
        }
    }
}

impl std::error::Error for JudgeError {}

/// How the engine reads a run and qrels ([`stream::judge_files_streamed`]).
#[derive(Clone, Debug)]
pub struct Reading {
    /// Ids as Latin-1 (one character per byte) instead of UTF-8 (checked).
    pub latin1: bool,
    /// Qrels relevance as real numbers (fractional gains).
    pub fractional: bool,
    /// The longest line allowed, in bytes.
    pub max_line: usize,
    /// Worker threads.
    pub threads: usize,
    /// The most bytes a gzip file may decompress to; for a run read piece by piece
    /// ([`stream`]), the most bytes of text read whole when it must be.
    pub max_bytes: u64,
    /// The bytes of a run read per piece by [`stream`] (0: the run read whole).
    pub piece_bytes: usize,
    /// [`stream`] reads a plain regular file of at most this many bytes whole (the
    /// fastest way), larger ones and gzip input in pieces.
    pub whole_bytes: u64,
    /// The most bytes of a run not grouped by query that [`stream`] reads whole instead
    /// (within `max_bytes` too); 0: never, a query reappearing is an error (`--stream`).
    pub regroup_bytes: u64,
    /// A counter of the bytes read from the inputs, for a progress bar ([`counted`]).
    pub progress: Option<Arc<AtomicU64>>,
}

impl Default for Reading {
    fn default() -> Self {
        Reading {
            latin1: false,
            fractional: false,
            max_line: 1 << 26,
            threads: parallel::threads(),
            max_bytes: u64::MAX,
            piece_bytes: stream::PIECE_BYTES,
            whole_bytes: stream::WHOLE_BYTES,
            regroup_bytes: u64::MAX,
            progress: None,
        }
    }
}

/// The problem Python's `Qrels.read` would report in parsed qrels (no rows, a duplicate
/// under the `Error` policy), if any: what comes before any problem of a run, which
/// Python reads after the qrels. Judges the qrels alone (call it on an error path).
pub fn qrels_problem(qrels: &Parsed, options: &JudgeOptions, threads: usize) -> Option<JudgeError> {
    let threads = threads_for(qrels, qrels, threads);
    match judge_with(&no_rows(), qrels, options, threads) {
        Err(e @ JudgeError::Duplicate { input: Input::Qrels, .. }) => Some(e),
        Err(e @ (JudgeError::Empty(Input::Qrels) | JudgeError::WrongKind(Input::Qrels))) => Some(e),
        _ => None,
    }
}

/// Reads TREC qrels from a regular file, plain or gzip: grades, or real-valued gains
/// with `reading.fractional`.
pub fn read_qrels(path: &Path, reading: &Reading) -> Result<Parsed, JudgeError> {
    let kind = if reading.fractional { Kind::FractionalQrels } else { Kind::Qrels };
    read_file(path, Input::Qrels, kind, reading)
}

/// Reads one TREC input of `kind` from a regular file, plain or gzip (decompressed as
/// it is read, to at most `reading.max_bytes`); `input` names it in errors.
pub fn read_file(
    path: &Path,
    input: Input,
    kind: Kind,
    reading: &Reading,
) -> Result<Parsed, JudgeError> {
    let unsupported = |reason| Err(JudgeError::Unsupported { input, reason });
    if path.as_os_str() == "-" {
        return unsupported("standard input");
    }
    let io = |error| JudgeError::Io { input, error };
    // stat first: opening a named pipe would wait for a writer
    if !std::fs::metadata(path).map_err(io)?.is_file() {
        return unsupported("not a regular file");
    }
    let mut file = std::fs::File::open(path).map_err(io)?;
    if !file.metadata().map_err(io)?.is_file() {
        return unsupported("not a regular file");
    }
    let mut head = Vec::with_capacity(2);
    (&mut file).take(2).read_to_end(&mut head).map_err(io)?;
    file.seek(SeekFrom::Start(0)).map_err(io)?;
    let options = Options {
        kind,
        latin1: reading.latin1,
        max_line: reading.max_line,
        threads: reading.threads.max(1),
    };
    let gzipped = head == gzip::MAGIC;
    let max_bytes = reading.max_bytes;
    let read = match &reading.progress {
        // (a counted file is read through `Read::read` alone, whose buffers std zeroes
        // first: 2-3% of the time, paid only when a progress bar is drawn)
        Some(bytes) => {
            let file = counted::Counted::new(file, bytes.clone());
            cranfield_trec::read_stored(file, gzipped, max_bytes, &options)
        }
        None => cranfield_trec::read_stored(file, gzipped, max_bytes, &options),
    };
    read.map_err(|e| match e {
        cranfield_trec::ReadError::Io(error) => JudgeError::Io { input, error },
        cranfield_trec::ReadError::Input(error) => JudgeError::Read { input, error },
    })
}

/// Judges a parsed run against parsed qrels (see the module's documentation).
pub fn judge(run: &Parsed, qrels: &Parsed, options: &JudgeOptions) -> Result<Judged, JudgeError> {
    judge_with(run, qrels, options, threads_for(run, qrels, parallel::threads()))
}

/// Inputs smaller than this (rows of both) are judged on one thread.
const PARALLEL_ROWS: usize = 1 << 16;

/// The threads worth using to judge `run` against `qrels` (at most `threads`).
pub fn threads_for(run: &Parsed, qrels: &Parsed, threads: usize) -> usize {
    if run.rows + qrels.rows < PARALLEL_ROWS {
        1
    } else {
        threads
    }
}

/// [`judge`] on `threads` threads (whatever the size of the inputs).
pub fn judge_with(
    run: &Parsed,
    qrels: &Parsed,
    options: &JudgeOptions,
    threads: usize,
) -> Result<Judged, JudgeError> {
    options.check()?;
    let prepared = Prepared::new(qrels, options.qrels_duplicates, threads);
    judge_prepared(run, &prepared, options, threads)
}

/// Qrels judged once for any number of runs (or pieces of one): per topic, the
/// documents judged (duplicates resolved by the qrels' policy) and the grades, and the
/// topics in trec_eval's order. [`judge_prepared`] then judges a run against them as
/// [`judge_with`] judges it against the qrels, problems of the qrels included.
pub struct Prepared<'q> {
    ready: Result<Ready<'q>, Problem>,
}

/// A problem of the qrels' columns (reported before anything of a run).
#[derive(Clone, Copy, Debug)]
enum Problem {
    Empty,
    WrongKind,
}

struct Ready<'q> {
    table: Table<'q>,
    topics: QrelsTopics<'q>,
    judged: Vec<QrelsTopic<'q>>,
    /// Fractional gains rather than integer grades.
    real: bool,
    kind: LabelKind,
    /// The qrels' topics in byte order of their ids.
    order: Vec<usize>,
    /// The first repeated (query, document), by its second line, with policy `Error`.
    duplicate: Option<(usize, usize)>,
}

impl<'q> Prepared<'q> {
    /// The qrels judged with `policy` for their repeated documents, on `threads` threads.
    pub fn new(qrels: &'q Parsed, policy: Duplicates, threads: usize) -> Prepared<'q> {
        let real = match value_kind(qrels, Input::Qrels) {
            Ok(ValueKind::Grades) => false,
            Ok(ValueKind::Reals) => true,
            Ok(ValueKind::Scores) | Err(JudgeError::WrongKind(_)) => {
                return Prepared { ready: Err(Problem::WrongKind) }
            }
            Err(_) => return Prepared { ready: Err(Problem::Empty) },
        };
        Prepared::of_table(Table::new(qrels), real, policy, threads)
    }

    /// The qrels of `table` (gains when `real`, else grades; at least one row) judged
    /// as [`Prepared::new`] judges them.
    fn of_table(table: Table<'q>, real: bool, policy: Duplicates, threads: usize) -> Prepared<'q> {
        let topics = QrelsTopics::new(&table);
        // topic by topic: the documents judged, duplicates resolved
        let judged: Vec<QrelsTopic> = parallel::map(
            topics.ids.len(),
            threads.max(1),
            || (),
            |_, t| QrelsTopic::new(&table, topics.blocks.of(t), real, policy),
        );
        let duplicate = judged.iter().filter_map(|j| j.duplicate).min_by_key(|d| d.1);
        let kind = if real {
            LabelKind::F64
        } else {
            let lo = judged.iter().map(|j| j.min).min().unwrap_or(0);
            let hi = judged.iter().map(|j| j.max).max().unwrap_or(0);
            if lo >= i8::MIN as i64 && hi <= i8::MAX as i64 {
                LabelKind::I8
            } else {
                LabelKind::I64
            }
        };
        let mut order: Vec<usize> = (0..topics.ids.len()).collect();
        order.sort_unstable_by(|&a, &b| topics.ids[a].cmp(topics.ids[b]));
        Prepared { ready: Ok(Ready { table, topics, judged, real, kind, order, duplicate }) }
    }
}

/// [`judge_with`] against qrels judged once ([`Prepared`]; `options.qrels_duplicates`
/// is the policy they were prepared with).
pub fn judge_prepared(
    run: &Parsed,
    prepared: &Prepared<'_>,
    options: &JudgeOptions,
    threads: usize,
) -> Result<Judged, JudgeError> {
    options.check()?;
    // the qrels' problems come first (Python reads them first), then the run's
    let qrels = prepared_qrels(prepared)?;
    match value_kind(run, Input::Run)? {
        ValueKind::Scores => {}
        _ => return Err(JudgeError::WrongKind(Input::Run)),
    }
    let tag = run.tag.as_deref();
    let run = Table::new(run);
    judge_table(&run, tag, qrels, options, threads, RunKind::File).map(|(judged, _)| judged)
}

/// The qrels judged, or their problem (no rows, columns of the wrong kind, a repeated
/// pair with policy `Error`).
fn prepared_qrels<'a, 'q>(prepared: &'a Prepared<'q>) -> Result<&'a Ready<'q>, JudgeError> {
    let qrels = match &prepared.ready {
        Ok(ready) => ready,
        Err(Problem::Empty) => return Err(JudgeError::Empty(Input::Qrels)),
        Err(Problem::WrongKind) => return Err(JudgeError::WrongKind(Input::Qrels)),
    };
    if let Some((first, second)) = qrels.duplicate {
        return Err(duplicate(&qrels.table, Input::Qrels, first, second));
    }
    Ok(qrels)
}

/// How a run is judged.
#[derive(Clone, Copy, PartialEq, Eq)]
enum RunKind {
    /// A file's: repeated pairs resolved by the options' policy, no rows kept.
    File,
    /// A table's, whose reader applied the duplicates policy: every row of a qrels
    /// topic is ranked, without a map of its documents; the run row of each ranked
    /// document kept when `rows`.
    Table { rows: bool },
}

/// Judges the run `rt` (scores; `tag` its run tag) against prepared qrels, with the
/// run row of each ranked document for a table asking for them (`None` when they are
/// every row of the run in its order, or not kept).
fn judge_table(
    rt: &Table<'_>,
    tag: Option<&[u8]>,
    qrels: &Ready<'_>,
    options: &JudgeOptions,
    threads: usize,
    kind: RunKind,
) -> Result<(Judged, Option<Vec<i64>>), JudgeError> {
    let keep_rows = kind == RunKind::Table { rows: true };
    let (real, judged) = (qrels.real, &qrels.judged);
    let threads = threads.max(1);
    let topics = Topics::new(&qrels.topics, rt);
    // the evaluated topics, in byte order
    let answered = |t: usize| !topics.run_blocks.of(t).is_empty();
    let kept: Vec<usize> =
        qrels.order.iter().copied().filter(|&t| options.complete || answered(t)).collect();

    let ranking = Ranking { run: rt, topics: &topics, judged, options, threads };
    let (labels, lengths, ranked_rows) = match qrels.kind {
        LabelKind::I8 => ranking.ranked::<i8>(&kept, kind)?,
        LabelKind::I64 => ranking.ranked::<i64>(&kept, kind)?,
        LabelKind::F64 => ranking.ranked::<f64>(&kept, kind)?,
    };
    let mut offsets = Vec::with_capacity(kept.len() + 1);
    let mut at = 0i64;
    offsets.push(0);
    for &length in &lengths {
        at += length as i64;
        offsets.push(at);
    }
    let in_run = kept.iter().map(|&t| answered(t)).collect();
    let QrelsSide { query_ids, qrels_offsets, qrels_grades } =
        qrels_side(&kept, &topics.ids, judged, real)?;
    let judged = Judged {
        query_ids,
        offsets,
        labels,
        qrels_offsets,
        qrels_grades,
        in_run,
        rel_level: options.rel_level,
        compat: options.compat,
        run_tag: tag.unwrap_or_default().to_vec(),
    };
    let identity = ranked_rows.len() == rt.rows()
        && ranked_rows.iter().enumerate().all(|(i, &r)| r == i as i64);
    Ok((judged, (keep_rows && !identity).then_some(ranked_rows)))
}

/// The qrels side of a judged run for its `kept` topics.
struct QrelsSide {
    query_ids: Strings,
    qrels_offsets: Vec<i64>,
    qrels_grades: LabelVec,
}

/// The `kept` topics' ids (`ids[t]`), where each one's judgments start and their
/// grades back to back, as [`Judged`] holds them; [`JudgeError::Memory`] when memory
/// cannot be had for them (the grades are as many as the qrels' lines).
fn qrels_side(
    kept: &[usize],
    ids: &[&[u8]],
    judged: &[QrelsTopic<'_>],
    real: bool,
) -> Result<QrelsSide, JudgeError> {
    let no_room = |_| JudgeError::Memory { path: Default::default(), what: "hold the qrels" };
    let id_bytes = kept.iter().map(|&t| ids[t].len()).sum();
    let total = kept.iter().map(|&t| judged[t].grades.len()).sum();
    let mut query_ids = Strings { data: Vec::new(), offsets: Vec::new() };
    let mut qrels_offsets = Vec::new();
    room::reserve_exact(&mut query_ids.data, id_bytes).map_err(no_room)?;
    room::reserve_exact(&mut query_ids.offsets, kept.len() + 1).map_err(no_room)?;
    room::reserve_exact(&mut qrels_offsets, kept.len() + 1).map_err(no_room)?;
    query_ids.offsets.push(0);
    qrels_offsets.push(0);
    for &t in kept {
        query_ids.data.extend_from_slice(ids[t]);
        query_ids.offsets.push(i32::try_from(query_ids.data.len()).unwrap_or(i32::MAX));
        qrels_offsets.push(qrels_offsets[qrels_offsets.len() - 1] + judged[t].grades.len() as i64);
    }
    let grades = kept.iter().flat_map(|&t| judged[t].grades.iter().copied());
    let qrels_grades = if real {
        let mut out = room::with_capacity(total).map_err(no_room)?;
        out.extend(grades.map(f64::from_bits));
        LabelVec::F64(out)
    } else {
        let mut out = room::with_capacity(total).map_err(no_room)?;
        out.extend(grades.map(|g| g as i64));
        LabelVec::I64(out)
    };
    Ok(QrelsSide { query_ids, qrels_offsets, qrels_grades })
}

/// An input without rows.
fn no_rows() -> Parsed {
    Parsed { columns: Vec::new(), lines: None, query_starts: vec![0], tag: None, rows: 0 }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ValueKind {
    Scores,
    Grades,
    Reals,
}

/// The kind of an input's value column (the same in every piece), or an error when it
/// has no rows or mixed kinds.
fn value_kind(parsed: &Parsed, input: Input) -> Result<ValueKind, JudgeError> {
    let consistent = parsed.columns.iter().all(|c| {
        blocks_well_formed(&c.query_id)
            && well_formed(&c.doc_id)
            && c.values.len() == c.query_id.len()
            && c.doc_id.len() == c.query_id.len()
    });
    if !consistent {
        return Err(JudgeError::WrongKind(input));
    }
    let mut kinds =
        parsed.columns.iter().filter(|c| !c.query_id.is_empty()).map(|c| match c.values {
            Values::Scores(_) => ValueKind::Scores,
            Values::Grades(_) => ValueKind::Grades,
            Values::Reals(_) => ValueKind::Reals,
        });
    let first = kinds.next().ok_or(JudgeError::Empty(input))?;
    if kinds.any(|k| k != first) {
        return Err(JudgeError::WrongKind(input));
    }
    Ok(first)
}

/// Whether every string of a column lies inside its data (`get` cannot fail).
fn well_formed(strings: &Strings) -> bool {
    let o = &strings.offsets;
    o.first().is_some_and(|&start| start >= 0)
        && o.windows(2).all(|w| w[0] <= w[1])
        && o.last().is_some_and(|&end| end as usize <= strings.data.len())
}

/// Whether query ids by block are consistent (`QueryIds::get` cannot fail): a
/// well-formed id per block, blocks starting at row 0 and increasing within the rows.
fn blocks_well_formed(ids: &QueryIds) -> bool {
    let s = &ids.starts;
    well_formed(&ids.ids)
        && ids.ids.len() == s.len()
        && s.first().map_or(ids.rows == 0, |&first| first == 0)
        && s.windows(2).all(|w| w[0] < w[1])
        && s.last().map_or(true, |&last| last < ids.rows)
}

fn duplicate(table: &Table, input: Input, first: usize, second: usize) -> JudgeError {
    let mut doc = Vec::new();
    table.each(second, second + 1, |_, c, r| doc = c.doc_id.get(r).to_vec());
    JudgeError::Duplicate {
        input,
        query: table.query_id(second).to_vec(),
        doc,
        lines: (table.line(first), table.line(second)),
    }
}

#[derive(Clone, Copy)]
enum LabelKind {
    I8,
    I64,
    F64,
}

/// Whether `a > b` for two raw values (reals as `f64` bits, else `i64`).
#[inline]
fn greater(a: u64, b: u64, real: bool) -> bool {
    if real {
        f64::from_bits(a) > f64::from_bits(b)
    } else {
        (a as i64) > (b as i64)
    }
}

/// One topic of the qrels.
struct QrelsTopic<'a> {
    /// Each judged document's value (raw: `i64`, or `f64` bits for reals) and row.
    docs: hash::Map<&'a [u8], (u64, usize)>,
    /// The values >= 0, descending, equal ones in row order (raw).
    grades: Vec<u64>,
    /// The least and greatest value of the kept rows (integer grades only).
    min: i64,
    max: i64,
    /// The first repeated pair with policy `Error`: (first row, second row).
    duplicate: Option<(usize, usize)>,
}

impl<'a> QrelsTopic<'a> {
    fn new(table: &Table<'a>, blocks: &[(usize, usize)], real: bool, policy: Duplicates) -> Self {
        let rows: usize = blocks.iter().map(|(a, b)| b - a).sum();
        let mut kept: hash::Map<&'a [u8], (u64, usize)> = hash::map(rows);
        let mut duplicate = None;
        for &(a, b) in blocks {
            table.each(a, b, |row, columns, local| {
                let doc = columns.doc_id.get(local);
                let value = raw_value(columns, local);
                match kept.entry(doc) {
                    std::collections::hash_map::Entry::Vacant(e) => {
                        e.insert((value, row));
                    }
                    std::collections::hash_map::Entry::Occupied(mut e) => match policy {
                        Duplicates::Error => {
                            duplicate.get_or_insert((e.get().1, row));
                        }
                        Duplicates::First => {}
                        Duplicates::Max => {
                            if greater(value, e.get().0, real) {
                                e.insert((value, row));
                            }
                        }
                    },
                }
            });
        }
        let (mut min, mut max) = (i64::MAX, i64::MIN);
        let mut judged: Vec<(u64, usize)> = Vec::with_capacity(kept.len());
        for &(value, row) in kept.values() {
            if real {
                if f64::from_bits(value) >= 0.0 {
                    judged.push((value, row));
                }
            } else {
                let g = value as i64;
                min = min.min(g);
                max = max.max(g);
                if g >= 0 {
                    judged.push((value, row));
                }
            }
        }
        // descending; equal values (0.0 and -0.0 too) in row order, as NumPy's stable
        // lexsort on the negated values leaves them
        if real {
            judged.sort_unstable_by(|a, b| {
                (f64::from_bits(b.0) + 0.0)
                    .total_cmp(&(f64::from_bits(a.0) + 0.0))
                    .then(a.1.cmp(&b.1))
            });
        } else {
            judged.sort_unstable_by(|a, b| (b.0 as i64).cmp(&(a.0 as i64)).then(a.1.cmp(&b.1)));
        }
        QrelsTopic {
            docs: kept,
            grades: judged.into_iter().map(|(v, _)| v).collect(),
            min,
            max,
            duplicate,
        }
    }
}

/// A label type of the judged run (`i8`, `i64`, `f64`: NumPy's dtypes of
/// `JudgedRun.labels`).
trait Label: Copy + Send + Sync {
    const NOT_POOLED: Self;
    /// The label of a document the qrels list with this raw value.
    fn of(raw: u64) -> Self;
    /// Whether the label is a grade (>= 0).
    fn judged(self) -> bool;
    fn wrap(labels: Vec<Self>) -> LabelVec;
}

impl Label for i8 {
    const NOT_POOLED: i8 = NOT_POOLED as i8;
    #[inline]
    fn of(raw: u64) -> i8 {
        // only used when every grade fits in an i8
        let grade = raw as i64;
        if grade >= 0 {
            grade as i8
        } else {
            UNJUDGED as i8
        }
    }
    #[inline]
    fn judged(self) -> bool {
        self >= 0
    }
    fn wrap(labels: Vec<i8>) -> LabelVec {
        LabelVec::I8(labels)
    }
}

impl Label for i64 {
    const NOT_POOLED: i64 = NOT_POOLED;
    #[inline]
    fn of(raw: u64) -> i64 {
        let grade = raw as i64;
        if grade >= 0 {
            grade
        } else {
            UNJUDGED
        }
    }
    #[inline]
    fn judged(self) -> bool {
        self >= 0
    }
    fn wrap(labels: Vec<i64>) -> LabelVec {
        LabelVec::I64(labels)
    }
}

impl Label for f64 {
    const NOT_POOLED: f64 = NOT_POOLED as f64;
    #[inline]
    fn of(raw: u64) -> f64 {
        let gain = f64::from_bits(raw);
        if gain >= 0.0 {
            gain
        } else {
            UNJUDGED as f64
        }
    }
    #[inline]
    fn judged(self) -> bool {
        self >= 0.0
    }
    fn wrap(labels: Vec<f64>) -> LabelVec {
        LabelVec::F64(labels)
    }
}

/// Two rows holding the same (query, document): the first and the second.
type Pair = (usize, usize);

/// A ranked document of a topic.
struct Entry<'a> {
    /// The score it is ranked by (rounded to f32 for compat 9; -0.0 made 0.0).
    key: f64,
    /// The score read.
    score: f64,
    doc: &'a [u8],
    row: usize,
    /// Its value in the qrels (raw), if they list it.
    qrels: Option<u64>,
}

/// A document of a topic: its entry, once ranked, and its value in the qrels.
#[derive(Clone, Copy)]
struct Slot {
    /// The index of its [`Entry`] ([`UNRANKED`] until the run ranks it).
    entry: usize,
    qrels: Option<u64>,
}

const UNRANKED: usize = usize::MAX;

/// What a thread reuses from topic to topic.
struct Scratch<'a> {
    /// The topic's documents: those the qrels list, then those the run ranks (one hash
    /// lookup per ranked document finds both a repeat and the qrels' value).
    docs: hash::Map<&'a [u8], Slot>,
    entries: Vec<Entry<'a>>,
}

/// The run's side: every topic's ranking, judged.
struct Ranking<'r, 'a> {
    run: &'r Table<'a>,
    topics: &'r Topics<'a>,
    judged: &'r [QrelsTopic<'a>],
    options: &'r JudgeOptions,
    threads: usize,
}

/// An empty vector with room for exactly `items` items, the judged run's labels or
/// rows joined from its topics' (a 7M-line run's are several MiB of fresh memory:
/// advised as huge pages, a fault per 2 MiB instead of per 4 KiB), or
/// [`JudgeError::Memory`] when it cannot be had.
fn joined<T>(items: usize) -> Result<Vec<T>, JudgeError> {
    cranfield_trec::buffer::huge(items).map_err(|_| JudgeError::Memory {
        path: Default::default(),
        what: "hold the judged run's labels",
    })
}

/// A topic's ranking judged: labels, the run row of each (when kept), and the first
/// duplicate.
type Ranked<T> = (Vec<T>, Vec<i64>, Option<Pair>);

impl<'a> Ranking<'_, 'a> {
    /// The labels of the `kept` topics' rankings, back to back, and their lengths; or
    /// the first duplicate of the run (by its second line).
    fn labels<T: Label>(&self, kept: &[usize]) -> Result<(LabelVec, Vec<usize>), JudgeError> {
        self.ranked::<T>(kept, RunKind::File).map(|(labels, lengths, _)| (labels, lengths))
    }

    /// [`Ranking::labels`] of a run of `kind`, and the run row of each ranked document
    /// when it asks for them (else empty).
    #[allow(clippy::type_complexity)]
    fn ranked<T: Label>(
        &self,
        kept: &[usize],
        kind: RunKind,
    ) -> Result<(LabelVec, Vec<usize>, Vec<i64>), JudgeError> {
        let keep_rows = kind == RunKind::Table { rows: true };
        let make = || Scratch { docs: hash::map(0), entries: Vec::new() };
        let work = |s: &mut Scratch<'a>, t| self.topic(s, t, kind);
        let mut parts: Vec<Ranked<T>> =
            parallel::map(self.topics.ids.len(), self.threads, make, work);
        if let Some((first, second)) = parts.iter().filter_map(|p| p.2).min_by_key(|d| d.1) {
            return Err(duplicate(self.run, Input::Run, first, second));
        }
        let lengths: Vec<usize> = kept.iter().map(|&t| parts[t].0.len()).collect();
        let total = lengths.iter().sum();
        let mut labels = joined(total)?;
        let mut rows = joined(if keep_rows { total } else { 0 })?;
        for &t in kept {
            labels.append(&mut parts[t].0);
            rows.append(&mut parts[t].1);
        }
        Ok((T::wrap(labels), lengths, rows))
    }

    /// Topic `t`'s ranking, judged (empty for a topic the qrels do not have), or its
    /// first duplicate (first row, second row).
    fn topic<T: Label>(&self, s: &mut Scratch<'a>, t: usize, kind: RunKind) -> Ranked<T> {
        let blocks = self.topics.run_blocks.of(t);
        let policy = self.options.duplicates;
        let in_qrels = t < self.topics.qrels_topics;
        if blocks.is_empty() || (!in_qrels && policy != Duplicates::Error) {
            return (Vec::new(), Vec::new(), None);
        }
        let rows = self.topics.run_blocks.rows(t);
        let judged = if in_qrels { Some(&self.judged[t].docs) } else { None };
        let compat9 = self.options.compat == 9;
        if let (RunKind::Table { rows: keep_rows }, true) = (kind, in_qrels) {
            // a table: its reader applied the duplicates policy, so every row is ranked
            // and only the qrels' documents are looked up (no map of the run's)
            s.entries.clear();
            s.entries.reserve(rows);
            let docs = &self.judged[t].docs;
            for &(a, b) in blocks {
                self.run.each(a, b, |row, columns, local| {
                    let ValuesView::Scores(scores) = columns.values else { return };
                    let score = scores[local];
                    let key = order_key(score, compat9);
                    let doc = columns.doc_id.get(local);
                    let qrels = docs.get(doc).map(|&(raw, _)| raw);
                    s.entries.push(Entry { key, score, doc, row, qrels });
                });
            }
            return self.ranking(s, keep_rows);
        }
        hash::reset(&mut s.docs, rows + judged.map_or(0, |d| d.len()));
        for (&doc, &(raw, _)) in judged.into_iter().flatten() {
            s.docs.insert(doc, Slot { entry: UNRANKED, qrels: Some(raw) });
        }
        s.entries.clear();
        s.entries.reserve(rows);
        let mut duplicate = None;
        for &(a, b) in blocks {
            self.run.each(a, b, |row, columns, local| {
                let ValuesView::Scores(scores) = columns.values else { return };
                let score = scores[local];
                let key = order_key(score, compat9);
                let doc = columns.doc_id.get(local);
                let slot = s.docs.entry(doc).or_insert(Slot { entry: UNRANKED, qrels: None });
                if slot.entry == UNRANKED {
                    slot.entry = s.entries.len();
                    s.entries.push(Entry { key, score, doc, row, qrels: slot.qrels });
                    return;
                }
                let kept = &mut s.entries[slot.entry];
                match policy {
                    Duplicates::Error => {
                        duplicate.get_or_insert((kept.row, row));
                    }
                    Duplicates::First => {}
                    Duplicates::Max => {
                        if score > kept.score {
                            *kept = Entry { key, score, doc, row, qrels: kept.qrels };
                        }
                    }
                }
            });
        }
        if duplicate.is_some() || !in_qrels {
            return (Vec::new(), Vec::new(), duplicate);
        }
        self.ranking(s, false)
    }

    /// The topic's documents (`s.entries`) ranked and judged: labels, and their rows
    /// when `keep_rows`.
    fn ranking<T: Label>(&self, s: &mut Scratch<'a>, keep_rows: bool) -> Ranked<T> {
        // trec_eval's order: score descending, ties by document id descending (runs are
        // usually written in it: checked in one pass, sorted only when they are not; the
        // documents are distinct, so the order is unique and the check is exact; the row
        // orders a pair a table repeats, which the caller promised it does not)
        let order = |a: &Entry, b: &Entry| {
            b.key.total_cmp(&a.key).then_with(|| b.doc.cmp(a.doc)).then(a.row.cmp(&b.row))
        };
        if s.entries.windows(2).any(|w| order(&w[0], &w[1]).is_gt()) {
            s.entries.sort_unstable_by(order);
        }
        let depth =
            self.options.depth.map_or(usize::MAX, |d| usize::try_from(d).unwrap_or(usize::MAX));
        let judged_only = self.options.judged_only;
        let mut labels = Vec::with_capacity(s.entries.len().min(depth));
        let mut rows = Vec::with_capacity(if keep_rows { labels.capacity() } else { 0 });
        for e in s.entries.iter().take(depth) {
            let label = e.qrels.map_or(T::NOT_POOLED, T::of);
            if !judged_only || label.judged() {
                labels.push(label);
                if keep_rows {
                    rows.push(e.row as i64);
                }
            }
        }
        (labels, rows, None)
    }
}

#[cfg(test)]
mod tests;

/// The score a ranking is sorted by: rounded to f32 first under `compat` 9 (trec_eval
/// 9.x and pytrec_eval read scores as floats), and -0.0 made +0.0 (they tie).
fn order_key(score: f64, compat9: bool) -> f64 {
    if compat9 {
        score as f32 as f64 + 0.0
    } else {
        score + 0.0
    }
}

/// The number of distinct query ids of a parsed input (the topics of the qrels).
pub fn topics(parsed: &Parsed) -> usize {
    let mut seen: std::collections::HashSet<&[u8]> = std::collections::HashSet::new();
    for columns in &parsed.columns {
        let ids = &columns.query_id.ids;
        for block in 0..ids.len() {
            seen.insert(ids.get(block));
        }
    }
    seen.len()
}
