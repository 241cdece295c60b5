//! Qrels judged once and kept ([`QrelsIndex`]): an Arrow table's qrels copied into the
//! engine's own columns and indexed per topic ([`Prepared`]), for any number of later
//! runs and calls (Python's `Qrels` keeps one: `cranfield.core.qrels.Qrels.index`).
//!
//! Judging a run against the index is judging it against the qrels it was made from,
//! bit for bit ([`super::arrays::judge_batches_runs`] for Arrow runs; the streamed
//! judge of TREC files, [`super::stream::judge_run_streamed`], with
//! [`QrelsIndex::parts`]).

use self_cell::self_cell;

use cranfield_trec::room::{self, NoRoom};
use cranfield_trec::{Columns, Parsed, QueryIds, Strings, Values};

use super::arrays::{Batch, Checked};
use super::table::{Piece, Table};
use super::{Duplicates, Input, JudgeError, Prepared};

self_cell!(
    struct Indexed {
        owner: Parsed,
        #[covariant]
        dependent: Prepared,
    }
);

/// Qrels read from Arrow batches (a `Qrels` table: no repeated pair, its reader applied
/// the duplicates policy), owned and judged once.
pub struct QrelsIndex {
    /// None when the qrels have no rows (every run then evaluates no query).
    indexed: Option<Indexed>,
    /// Gains (`f64`) rather than integer grades.
    real: bool,
    /// The number of distinct query ids.
    topics: usize,
}

impl QrelsIndex {
    /// The qrels of `batches` (int64 grades or float64 gains) copied and indexed on
    /// `threads` threads; [`JudgeError::WrongKind`] for malformed columns or values of
    /// two kinds, [`JudgeError::Memory`] when memory cannot be had for the copy.
    pub fn new(batches: &[Batch<'_>], threads: usize) -> Result<QrelsIndex, JudgeError> {
        use super::table::ValuesView;
        let checked = Checked::new(batches, Input::Qrels)?;
        let real = checked.all(|v| matches!(v, ValuesView::Reals(_)));
        if !real && !checked.all(|v| matches!(v, ValuesView::Grades(_))) {
            return Err(JudgeError::WrongKind(Input::Qrels));
        }
        if checked.rows() == 0 {
            return Ok(QrelsIndex { indexed: None, real, topics: 0 });
        }
        let no_room = |_| JudgeError::Memory { path: Default::default(), what: "hold the qrels" };
        let parsed = owned(&checked).map_err(no_room)?;
        let topics = super::topics(&parsed);
        let threads = if parsed.rows < super::PARALLEL_ROWS { 1 } else { threads.max(1) };
        let indexed =
            Indexed::new(parsed, |qrels| Prepared::new(qrels, Duplicates::First, threads));
        Ok(QrelsIndex { indexed: Some(indexed), real, topics })
    }

    /// The qrels and their index, or None when they have no rows.
    pub fn parts(&self) -> Option<(&Parsed, &Prepared<'_>)> {
        self.indexed.as_ref().map(|i| (i.borrow_owner(), i.borrow_dependent()))
    }

    /// Whether the qrels hold gains (`f64`) rather than integer grades.
    pub fn real(&self) -> bool {
        self.real
    }

    /// The number of rows (judgments).
    pub fn rows(&self) -> usize {
        self.indexed.as_ref().map_or(0, |i| i.borrow_owner().rows)
    }

    /// The number of distinct query ids (topics).
    pub fn topics(&self) -> usize {
        self.topics
    }
}

/// A copy of the rows as the TREC reader would have parsed them (query ids by block,
/// row `i` line `i + 1`).
fn owned(checked: &Checked<'_>) -> Result<Parsed, NoRoom> {
    let mut columns = room::with_capacity(checked.parts.len())?;
    let mut rows = 0;
    for part in &checked.parts {
        let query_rows = copied(&part.query_id)?;
        let query_id = QueryIds::from_rows(&query_rows);
        let doc_id = copied(&part.doc_id)?;
        let values = match part.values {
            super::table::ValuesView::Grades(v) => Values::Grades(copy_of(v)?),
            super::table::ValuesView::Reals(v) => Values::Reals(copy_of(v)?),
            super::table::ValuesView::Scores(v) => Values::Scores(copy_of(v)?),
        };
        rows += query_id.rows;
        columns.push(Columns { query_id, doc_id, values });
    }
    let pieces: Vec<Piece> = columns.iter().map(Piece::of).collect();
    let query_starts = Table::find_query_starts(&pieces);
    drop(pieces);
    Ok(Parsed { columns, lines: None, query_starts, tag: None, rows, fractional: None })
}

fn copy_of<T: Copy>(values: &[T]) -> Result<Vec<T>, NoRoom> {
    let mut out = room::with_capacity(values.len())?;
    out.extend_from_slice(values);
    Ok(out)
}

/// A string column of one part, its offsets from 0.
fn copied(column: &(std::borrow::Cow<'_, [i32]>, &[u8])) -> Result<Strings, NoRoom> {
    let (offsets, data) = (&column.0, column.1);
    let first = offsets.first().copied().unwrap_or(0);
    let last = offsets.last().copied().unwrap_or(0);
    let data = copy_of(&data[first as usize..last as usize])?;
    let mut rebased = room::with_capacity(offsets.len())?;
    rebased.extend(offsets.iter().map(|&o| o - first));
    Ok(Strings { data, offsets: rebased })
}
