//! Runs and qrels given as Arrow columns (the tables of Python's `Run` and `Qrels`):
//! judged as TREC files are ([`judge_batches_runs`]), and their repeated (query, document)
//! pairs found ([`repeats`]).
//!
//! The columns come as record batches (rows aligned across the three columns), each
//! string column as Arrow lays it out: `offsets` (`i32` for `string`, `i64` for
//! `large_string`, already sliced to the batch's rows: `offsets[i]..offsets[i + 1]` are
//! the bytes of row `i` in `data`). They are read where they are, not copied (but the
//! offsets of `large_string` columns, re-based to `i32`), after a check: offsets
//! non-decreasing and inside their data, equal lengths. Query ids need not be grouped:
//! a query's rows may lie in several blocks of the table (the judge gathers them per
//! topic, in row order).

use std::borrow::Cow;

use super::ranking::greater;
use super::table::{raw_value, Piece, QrelsTopics, QueryView, StrView, Table, ValuesView};
use super::{
    hash, judge_table, parallel, prepared_qrels, Duplicates, Input, JudgeError, JudgeOptions,
    Judged, QrelsIndex, RunKind,
};
use cranfield_trec::Strings;

/// The offsets of a string column of one batch (`rows + 1` of them).
#[derive(Clone, Copy, Debug)]
pub enum Offsets<'a> {
    Small(&'a [i32]),
    Large(&'a [i64]),
}

impl Offsets<'_> {
    fn len(&self) -> usize {
        match self {
            Offsets::Small(o) => o.len(),
            Offsets::Large(o) => o.len(),
        }
    }

    #[inline]
    fn get(&self, i: usize) -> i64 {
        match self {
            Offsets::Small(o) => o[i] as i64,
            Offsets::Large(o) => o[i],
        }
    }
}

/// A string column of one batch, borrowed.
#[derive(Clone, Copy, Debug)]
pub struct StringsRef<'a> {
    pub offsets: Offsets<'a>,
    pub data: &'a [u8],
}

impl<'a> StringsRef<'a> {
    /// The number of strings, if the column is well formed: offsets non-decreasing,
    /// within `data`.
    pub(crate) fn rows(&self) -> Option<usize> {
        let n = self.offsets.len().checked_sub(1)?;
        let ok = match self.offsets {
            Offsets::Small(o) => o.windows(2).all(|w| w[0] <= w[1]),
            Offsets::Large(o) => o.windows(2).all(|w| w[0] <= w[1]),
        };
        let (first, last) = (self.offsets.get(0), self.offsets.get(n));
        (ok && first >= 0 && last as u64 <= self.data.len() as u64).then_some(n)
    }

    /// The bytes of row `i` (of a column [`rows`](Self::rows) found well formed).
    #[inline]
    pub(crate) fn row(&self, i: usize) -> &'a [u8] {
        &self.data[self.offsets.get(i) as usize..self.offsets.get(i + 1) as usize]
    }

    /// Rows `a..b` with `i32` offsets: borrowed for `string`, re-based (offsets from
    /// 0, data from row `a`'s first byte) for `large_string` (`b` chosen so that they
    /// fit).
    fn rows_in(&self, a: usize, b: usize) -> (Cow<'a, [i32]>, &'a [u8]) {
        match self.offsets {
            Offsets::Small(o) => (Cow::Borrowed(&o[a..=b]), self.data),
            Offsets::Large(o) => {
                let base = o[a];
                let offsets = o[a..=b].iter().map(|&x| (x - base) as i32).collect();
                (Cow::Owned(offsets), &self.data[base as usize..o[b] as usize])
            }
        }
    }

    /// The last row `e` in `a..=limit` such that rows `a..e` hold at most `bytes` bytes
    /// (`limit` for `string` columns, whose offsets are `i32` already).
    fn cut(&self, a: usize, limit: usize, bytes: i64) -> usize {
        if let Offsets::Small(_) = self.offsets {
            return limit;
        }
        let base = self.offsets.get(a);
        let (mut lo, mut hi) = (a, limit);
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if self.offsets.get(mid) - base <= bytes {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        lo
    }
}

/// A value column of one batch, borrowed: a run's scores, qrels' grades or gains.
pub type ValuesRef<'a> = ValuesView<'a>;

fn sub<'a>(values: ValuesRef<'a>, a: usize, b: usize) -> ValuesRef<'a> {
    match values {
        ValuesView::Scores(v) => ValuesView::Scores(&v[a..b]),
        ValuesView::Grades(v) => ValuesView::Grades(&v[a..b]),
        ValuesView::Reals(v) => ValuesView::Reals(&v[a..b]),
    }
}

/// One record batch: rows aligned across the three columns.
#[derive(Clone, Copy, Debug)]
pub struct Batch<'a> {
    pub query_id: StringsRef<'a>,
    pub doc_id: StringsRef<'a>,
    pub values: ValuesRef<'a>,
}

/// The most bytes of one string column in a piece (`i32` offsets).
const PIECE_BYTES: i64 = i32::MAX as i64;

/// The rows of some batches with `i32` offsets: borrowed, or re-based offsets owned.
pub struct Checked<'a> {
    pub(super) parts: Vec<Part<'a>>,
}

pub(super) struct Part<'a> {
    pub(super) query_id: (Cow<'a, [i32]>, &'a [u8]),
    pub(super) doc_id: (Cow<'a, [i32]>, &'a [u8]),
    pub(super) values: ValuesRef<'a>,
}

impl<'a> Checked<'a> {
    /// The batches checked (see the module's documentation), or
    /// [`JudgeError::WrongKind`] for `input` when a column is malformed or the columns'
    /// lengths differ.
    pub fn new(batches: &[Batch<'a>], input: Input) -> Result<Checked<'a>, JudgeError> {
        Checked::cut(batches, input, PIECE_BYTES)
    }

    fn cut(batches: &[Batch<'a>], input: Input, bytes: i64) -> Result<Checked<'a>, JudgeError> {
        let wrong = || JudgeError::WrongKind(input);
        let mut parts = Vec::with_capacity(batches.len());
        for b in batches {
            let n = b.query_id.rows().ok_or_else(wrong)?;
            if b.doc_id.rows() != Some(n) || b.values.len() != n {
                return Err(wrong());
            }
            let mut a = 0;
            while a < n {
                let end = b.query_id.cut(a, n, bytes).min(b.doc_id.cut(a, n, bytes));
                if end == a {
                    return Err(wrong()); // one id of 2 GiB or more
                }
                parts.push(Part {
                    query_id: b.query_id.rows_in(a, end),
                    doc_id: b.doc_id.rows_in(a, end),
                    values: sub(b.values, a, end),
                });
                a = end;
            }
        }
        Ok(Checked { parts })
    }

    /// The number of rows.
    pub fn rows(&self) -> usize {
        self.parts.iter().map(|p| p.values.len()).sum()
    }

    /// Whether every value is of the kind `is`.
    pub(super) fn all(&self, is: impl Fn(&ValuesRef) -> bool) -> bool {
        self.parts.iter().all(|p| is(&p.values))
    }

    /// The rows as a table (row `i` is line `i + 1`).
    fn table(&self) -> Table<'_> {
        fn view<'b>(column: &'b (Cow<'_, [i32]>, &'b [u8])) -> StrView<'b> {
            StrView { offsets: &column.0, data: column.1 }
        }
        let pieces: Vec<Piece> = self
            .parts
            .iter()
            .map(|p| Piece {
                query_id: QueryView::Rows(view(&p.query_id)),
                doc_id: view(&p.doc_id),
                values: p.values,
            })
            .collect();
        let starts = Table::find_query_starts(&pieces);
        Table::of_pieces(pieces, Cow::Owned(starts))
    }
}

/// A judged table: the [`Judged`] arrays and the run row of each ranked document
/// (`None` when they are every row of the run, in order).
pub type JudgedRows = (Judged, Option<Vec<i64>>);

/// Judges runs given as batches (see the module's documentation) against qrels
/// indexed once ([`QrelsIndex`], made from a table's batches), with the judging of
/// [`super::judge`]; the runs hold no repeated pair (their readers applied their
/// policies: see [`repeats`]).
///
/// Unlike files, any may have no rows: qrels without rows evaluate no query, a run
/// without rows none either (or, with `complete`, every qrels topic as an empty
/// ranking). Labels are `i8` or `i64` for grades ([`crate::LabelVec`]), `f64` for gains.
/// The run rows of the ranked documents are returned when `rows` (else `None`). The
/// first problem found ends it, with the index of its run (0 for the options').
pub fn judge_batches_runs(
    runs: &[&[Batch<'_>]],
    qrels: &QrelsIndex,
    options: &JudgeOptions,
    threads: usize,
    rows: bool,
) -> Result<Vec<JudgedRows>, (usize, JudgeError)> {
    options.check().map_err(|e| (0, e))?;
    let mut checked = Vec::with_capacity(runs.len());
    for (i, run) in runs.iter().enumerate() {
        let run = Checked::new(run, Input::Run).map_err(|e| (i, e))?;
        if !run.all(|v| matches!(v, ValuesView::Scores(_))) {
            return Err((i, JudgeError::WrongKind(Input::Run)));
        }
        checked.push(run);
    }
    let Some((_, prepared)) = qrels.parts() else {
        return Ok(checked.iter().map(|_| (empty(qrels.real(), options), None)).collect());
    };
    let ready = prepared_qrels(prepared).map_err(|e| (0, e))?;
    let threads_for = |rows: usize| {
        if rows + qrels.rows() < super::PARALLEL_ROWS {
            1
        } else {
            threads.max(1)
        }
    };
    let kind = RunKind::Table { rows };
    let judge = |(i, run): (usize, &Checked<'_>)| {
        judge_table(&run.table(), None, ready, options, threads_for(run.rows()), kind)
            .map_err(|e| (i, e))
    };
    checked.iter().enumerate().map(judge).collect()
}

/// The judged run of qrels without rows: no query.
fn empty(real: bool, options: &JudgeOptions) -> Judged {
    use super::LabelVec;
    let (labels, grades) = if real {
        (LabelVec::F64(Vec::new()), LabelVec::F64(Vec::new()))
    } else {
        (LabelVec::I8(Vec::new()), LabelVec::I64(Vec::new()))
    };
    Judged {
        query_ids: Strings { data: Vec::new(), offsets: vec![0] },
        offsets: vec![0],
        labels,
        qrels_offsets: vec![0],
        qrels_grades: grades,
        in_run: Vec::new(),
        rel_level: options.rel_level,
        compat: options.compat,
        run_tag: Vec::new(),
    }
}

/// Two rows holding one (query, document) pair: the first and the second.
type Pair = (usize, usize);

/// What [`repeats`] finds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Repeats {
    /// Policy [`Duplicates::Error`]: the first repeated (query, document) by its second
    /// row, as (first row, second row); `None` when no pair repeats.
    First(Option<(usize, usize)>),
    /// Policies `First` and `Max`: the rows to drop, ascending (none when no pair
    /// repeats).
    Drop(Vec<usize>),
}

/// The repeated (query id, document id) pairs of a table, under `policy`: `First`
/// keeps each pair's first row, `Max` its row with the highest value (the first of
/// equal ones; values compared as `f64` for scores and gains, `i64` for grades).
pub fn repeats(checked: &Checked<'_>, policy: Duplicates, threads: usize) -> Repeats {
    let table = checked.table();
    let topics = QrelsTopics::new(&table);
    let real = !checked.all(|v| matches!(v, ValuesView::Grades(_)));
    let threads = if checked.rows() < super::PARALLEL_ROWS { 1 } else { threads.max(1) };
    let make = || hash::map::<&[u8], (u64, usize)>(0);
    let found: Vec<(Vec<usize>, Option<Pair>)> =
        parallel::map(topics.ids.len(), threads, make, |seen, t| {
            let blocks = topics.blocks.of(t);
            hash::reset(seen, blocks.iter().map(|(a, b)| b - a).sum());
            let mut drop = Vec::new();
            let mut pair = None;
            for &(a, b) in blocks {
                table.each(a, b, |row, piece, local| {
                    let value = raw_value(piece, local);
                    match seen.entry(piece.doc_id.get(local)) {
                        std::collections::hash_map::Entry::Vacant(e) => {
                            e.insert((value, row));
                        }
                        std::collections::hash_map::Entry::Occupied(mut e) => match policy {
                            Duplicates::Error => {
                                pair.get_or_insert((e.get().1, row));
                            }
                            Duplicates::First => drop.push(row),
                            Duplicates::Max => {
                                if greater(value, e.get().0, real) {
                                    drop.push(e.get().1);
                                    e.insert((value, row));
                                } else {
                                    drop.push(row);
                                }
                            }
                        },
                    }
                });
                if pair.is_some() {
                    break;
                }
            }
            (drop, pair)
        });
    match policy {
        Duplicates::Error => Repeats::First(found.iter().filter_map(|f| f.1).min_by_key(|p| p.1)),
        _ => {
            let mut drop: Vec<usize> = found.into_iter().flat_map(|f| f.0).collect();
            drop.sort_unstable();
            Repeats::Drop(drop)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(ids: &[&str]) -> (Vec<i64>, Vec<u8>) {
        let mut offsets = vec![0];
        let mut data = Vec::new();
        for id in ids {
            data.extend_from_slice(id.as_bytes());
            offsets.push(data.len() as i64);
        }
        (offsets, data)
    }

    fn small(offsets: &[i64]) -> Vec<i32> {
        offsets.iter().map(|&o| o as i32).collect()
    }

    fn docs(table: &Table) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        table.each(0, table.rows(), |_, p, i| out.push(p.doc_id.get(i).to_vec()));
        out
    }

    #[test]
    fn large_strings_are_cut_within_the_byte_limit_and_queries_found_across_pieces() {
        let (qo, qd) = strings(&["q1", "q1", "q2", "q2", "q1"]);
        let (d_o, dd) = strings(&["aaaa", "b", "cc", "d", "eeeeee"]);
        let scores = [1.0, 2.0, 3.0, 4.0, 5.0];
        let batch = Batch {
            query_id: StringsRef { offsets: Offsets::Large(&qo), data: &qd },
            doc_id: StringsRef { offsets: Offsets::Large(&d_o), data: &dd },
            values: ValuesView::Scores(&scores),
        };
        let whole = Checked::new(&[batch], Input::Run).unwrap();
        assert_eq!(whole.parts.len(), 1);
        let cut = Checked::cut(&[batch], Input::Run, 6).unwrap();
        // an id longer than a piece may hold is refused
        assert!(matches!(Checked::cut(&[batch], Input::Run, 5), Err(JudgeError::WrongKind(_))));
        assert!(cut.parts.len() > 1);
        for c in [&whole, &cut] {
            let table = c.table();
            assert_eq!(table.rows(), 5);
            assert_eq!(table.blocks().collect::<Vec<_>>(), [(0, 2), (2, 4), (4, 5)]);
            assert_eq!(docs(&table), [&b"aaaa"[..], b"b", b"cc", b"d", b"eeeeee"]);
        }
    }

    #[test]
    fn sliced_offsets_are_read_in_place() {
        // rows 1..4 of a column: offsets do not start at 0
        let (qo, qd) = strings(&["x", "q1", "q1", "q2", "y"]);
        let (d_o, dd) = strings(&["zz", "a", "b", "c", "w"]);
        let (qs, ds) = (small(&qo), small(&d_o));
        let scores = [1.0, 2.0, 3.0];
        let batch = Batch {
            query_id: StringsRef { offsets: Offsets::Small(&qs[1..5]), data: &qd },
            doc_id: StringsRef { offsets: Offsets::Small(&ds[1..5]), data: &dd },
            values: ValuesView::Scores(&scores),
        };
        let checked = Checked::new(&[batch], Input::Run).unwrap();
        let table = checked.table();
        assert_eq!(docs(&table), [&b"a"[..], b"b", b"c"]);
        assert_eq!(table.query_id(2), b"q2");
    }

    #[test]
    fn malformed_columns_are_refused() {
        let (qo, qd) = strings(&["q1", "q2"]);
        let qs = small(&qo);
        let bad = [0i32, 5, 1];
        let beyond = [0i32, 1, 9];
        let scores = [1.0, 2.0];
        for (offsets, values) in
            [(&bad[..], &scores[..]), (&beyond[..], &scores[..]), (&qs[..], &scores[..1])]
        {
            let batch = Batch {
                query_id: StringsRef { offsets: Offsets::Small(&qs), data: &qd },
                doc_id: StringsRef { offsets: Offsets::Small(offsets), data: &qd },
                values: ValuesView::Scores(values),
            };
            let refused = Checked::new(&[batch], Input::Run);
            assert!(matches!(refused, Err(JudgeError::WrongKind(Input::Run))));
        }
    }

    #[test]
    fn repeats_follow_each_policy() {
        let (qo, qd) = strings(&["q1", "q2", "q1", "q1", "q2"]);
        let (d_o, dd) = strings(&["a", "a", "a", "a", "b"]);
        let (qs, ds) = (small(&qo), small(&d_o));
        let scores = [1.0, 2.0, 3.0, 0.5, 4.0];
        let batch = Batch {
            query_id: StringsRef { offsets: Offsets::Small(&qs), data: &qd },
            doc_id: StringsRef { offsets: Offsets::Small(&ds), data: &dd },
            values: ValuesView::Scores(&scores),
        };
        let p = Checked::new(&[batch], Input::Run).unwrap();
        assert_eq!(repeats(&p, Duplicates::Error, 1), Repeats::First(Some((0, 2))));
        assert_eq!(repeats(&p, Duplicates::First, 2), Repeats::Drop(vec![2, 3]));
        assert_eq!(repeats(&p, Duplicates::Max, 1), Repeats::Drop(vec![0, 3]));
    }
}
