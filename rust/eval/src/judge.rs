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
mod error;
pub(crate) mod hash;
mod index;
mod options;
pub mod parallel;
mod ranking;
mod read;
pub mod stream;
mod table;

pub use error::{Input, JudgeError};
pub use index::QrelsIndex;
pub use options::{Duplicates, JudgeOptions, Reading};
use ranking::{LabelKind, QrelsTopic, Ranking};
pub use read::{read_file, read_qrels};

use cranfield_trec::room;
use cranfield_trec::{Parsed, QueryIds, Strings, Values};

use crate::{JudgedView, LabelVec};
use table::{QrelsTopics, Table, Topics};

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
    Parsed {
        columns: Vec::new(),
        lines: None,
        query_starts: vec![0],
        tag: None,
        rows: 0,
        fractional: None,
    }
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
        && non_decreasing(o)
        && o.last().is_some_and(|&end| end as usize <= strings.data.len())
}

/// Whether `values` never decrease: a whole block's comparisons combined without a
/// branch (the compiler makes them vector instructions), the blocks in turn. On the
/// 28 MB of a 7M-line run's doc id offsets, `value_kind` went from ~6 to ~4.5 ms of
/// `eval`'s one serial step between reading and judging (`perf record`, 4 kHz).
fn non_decreasing(values: &[i32]) -> bool {
    const BLOCK: usize = 4096;
    let pairs = values.len().saturating_sub(1);
    (0..pairs).step_by(BLOCK).all(|start| {
        let end = (start + BLOCK).min(pairs);
        let (left, right) = (&values[start..end], &values[start + 1..=end]);
        left.iter().zip(right).fold(true, |ok, (a, b)| ok & (a <= b))
    })
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

#[cfg(test)]
mod tests;

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
