//! Runs and qrels given as Arrow columns (the tables of Python's `Run` and `Qrels`):
//! judged as TREC files are ([`judge_batches`]), and their repeated (query, document)
//! pairs found ([`repeats`]).
//!
//! The columns come as record batches (rows aligned across the three columns), each
//! string column as Arrow lays it out: `offsets` (`i32` for `string`, `i64` for
//! `large_string`, already sliced to the batch's rows: `offsets[i]..offsets[i + 1]` are
//! the bytes of row `i` in `data`). They are copied into [`Parsed`] pieces (strings
//! re-based to offset 0, cut where a piece would pass `i32` offsets), checked first:
//! offsets non-decreasing and inside their data, equal lengths. Query ids need not be
//! grouped: a query's rows may lie in several blocks of the table (the judge gathers
//! them per topic, in row order).

use cranfield_trec::{Columns, Parsed, Strings, Values};

use super::table::{raw_value, QrelsTopics, Table};
use super::{
    greater, hash, judge_ranked, parallel, Duplicates, Input, JudgeError, JudgeOptions, Judged,
    Prepared, Rows,
};

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

impl StringsRef<'_> {
    /// The number of strings, if the column is well formed: offsets non-decreasing,
    /// within `data`.
    fn rows(&self) -> Option<usize> {
        let n = self.offsets.len().checked_sub(1)?;
        let first = self.offsets.get(0);
        let mut prev = first;
        for i in 1..=n {
            let o = self.offsets.get(i);
            if o < prev {
                return None;
            }
            prev = o;
        }
        (first >= 0 && prev as u64 <= self.data.len() as u64).then_some(n)
    }

    /// Rows `a..b` as an owned column with offsets from 0 (they fit in `i32`).
    fn copy(&self, a: usize, b: usize) -> Strings {
        let base = self.offsets.get(a);
        let data = self.data[base as usize..self.offsets.get(b) as usize].to_vec();
        let offsets = match self.offsets {
            Offsets::Small(o) => o[a..=b].iter().map(|&x| x - base as i32).collect(),
            Offsets::Large(o) => o[a..=b].iter().map(|&x| (x - base) as i32).collect(),
        };
        Strings { data, offsets }
    }

    /// The last row `e` in `a..=limit` such that rows `a..e` hold at most `bytes` bytes.
    fn cut(&self, a: usize, limit: usize, bytes: i64) -> usize {
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
#[derive(Clone, Copy, Debug)]
pub enum ValuesRef<'a> {
    Scores(&'a [f64]),
    Grades(&'a [i64]),
    Reals(&'a [f64]),
}

impl ValuesRef<'_> {
    fn len(&self) -> usize {
        match self {
            ValuesRef::Scores(v) | ValuesRef::Reals(v) => v.len(),
            ValuesRef::Grades(v) => v.len(),
        }
    }

    fn copy(&self, a: usize, b: usize) -> Values {
        match self {
            ValuesRef::Scores(v) => Values::Scores(v[a..b].to_vec()),
            ValuesRef::Grades(v) => Values::Grades(v[a..b].to_vec()),
            ValuesRef::Reals(v) => Values::Reals(v[a..b].to_vec()),
        }
    }
}

/// One record batch: rows aligned across the three columns.
#[derive(Clone, Copy, Debug)]
pub struct Batch<'a> {
    pub query_id: StringsRef<'a>,
    pub doc_id: StringsRef<'a>,
    pub values: ValuesRef<'a>,
}

/// The most bytes of one string column in a piece (within `i32` offsets).
const PIECE_BYTES: i64 = 1 << 30;

/// The batches as a [`Parsed`] input (copied; row `i` is line `i + 1`), or
/// [`JudgeError::WrongKind`] for `input` when a column is malformed or the columns'
/// lengths differ.
pub fn parsed(batches: &[Batch<'_>], input: Input) -> Result<Parsed, JudgeError> {
    parsed_in(batches, input, PIECE_BYTES)
}

fn parsed_in(batches: &[Batch<'_>], input: Input, bytes: i64) -> Result<Parsed, JudgeError> {
    let wrong = || JudgeError::WrongKind(input);
    let mut columns = Vec::new();
    for b in batches {
        let n = b.query_id.rows().ok_or_else(wrong)?;
        if b.doc_id.rows() != Some(n) || b.values.len() != n {
            return Err(wrong());
        }
        let mut a = 0;
        while a < n {
            let end = b.query_id.cut(a, n, bytes).min(b.doc_id.cut(a, n, bytes)).max(a + 1);
            if b.query_id.offsets.get(end) - b.query_id.offsets.get(a) > i32::MAX as i64
                || b.doc_id.offsets.get(end) - b.doc_id.offsets.get(a) > i32::MAX as i64
            {
                return Err(wrong()); // one id of over 2 GiB
            }
            columns.push(Columns {
                query_id: b.query_id.copy(a, end),
                doc_id: b.doc_id.copy(a, end),
                values: b.values.copy(a, end),
            });
            a = end;
        }
    }
    // where the query id changes (across pieces too)
    let mut query_starts = Vec::new();
    let mut prev: Option<&[u8]> = None;
    let mut row = 0i64;
    for c in &columns {
        for i in 0..c.query_id.len() {
            let id = c.query_id.get(i);
            if prev != Some(id) {
                query_starts.push(row);
            }
            prev = Some(id);
            row += 1;
        }
    }
    query_starts.push(row);
    Ok(Parsed { columns, lines: None, query_starts, tag: None, rows: row as usize })
}

/// A judged table: the [`Judged`] arrays and the run row of each ranked document
/// (`None` when they are every row of the run, in order).
pub type JudgedRows = (Judged, Option<Vec<i64>>);

/// Judges a run against qrels, both given as batches (see the module's
/// documentation), with the judging of [`super::judge`]; the run and the qrels hold no
/// repeated pair (their readers applied their policies: see [`repeats`]).
///
/// Unlike files, either may have no rows: qrels without rows evaluate no query, a run
/// without rows none either (or, with `complete`, every qrels topic as an empty
/// ranking). Labels are `i8` or `i64` for grades ([`super::LabelVec`]), `f64` for gains.
pub fn judge_batches(
    run: &[Batch<'_>],
    qrels: &[Batch<'_>],
    options: &JudgeOptions,
    threads: usize,
) -> Result<JudgedRows, JudgeError> {
    options.check()?;
    let run = parsed(run, Input::Run)?;
    if run.columns.iter().any(|c| !matches!(c.values, Values::Scores(_))) {
        return Err(JudgeError::WrongKind(Input::Run));
    }
    let real = qrels.iter().any(|b| matches!(b.values, ValuesRef::Reals(_)));
    let qrels = parsed(qrels, Input::Qrels)?;
    if qrels.rows == 0 {
        return Ok((empty(real, options), None));
    }
    let threads = if run.rows + qrels.rows < super::PARALLEL_ROWS { 1 } else { threads.max(1) };
    let prepared = Prepared::new(&qrels, options.qrels_duplicates, threads);
    judge_ranked(&run, &prepared, options, threads, Rows::Keep)
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
pub fn repeats(parsed: &Parsed, policy: Duplicates, threads: usize) -> Repeats {
    let table = Table::new(parsed);
    let topics = QrelsTopics::new(&table);
    let real = parsed.columns.iter().any(|c| !matches!(c.values, Values::Grades(_)));
    let threads = if parsed.rows < super::PARALLEL_ROWS { 1 } else { threads.max(1) };
    let make = || hash::map::<&[u8], (u64, usize)>(0);
    let found: Vec<(Vec<usize>, Option<Pair>)> =
        parallel::map(topics.ids.len(), threads, make, |seen, t| {
            let blocks = topics.blocks.of(t);
            hash::reset(seen, blocks.iter().map(|(a, b)| b - a).sum());
            let mut drop = Vec::new();
            let mut pair = None;
            for &(a, b) in blocks {
                table.each(a, b, |row, columns, local| {
                    let value = raw_value(columns, local);
                    match seen.entry(columns.doc_id.get(local)) {
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

    fn strings(ids: &[&str]) -> (Vec<i32>, Vec<u8>) {
        let mut offsets = vec![0];
        let mut data = Vec::new();
        for id in ids {
            data.extend_from_slice(id.as_bytes());
            offsets.push(data.len() as i32);
        }
        (offsets, data)
    }

    #[test]
    fn pieces_are_cut_within_the_byte_limit_and_queries_found_across_them() {
        let (qo, qd) = strings(&["q1", "q1", "q2", "q2", "q1"]);
        let (d_o, dd) = strings(&["aaaa", "b", "cc", "d", "eeeeee"]);
        let scores = [1.0, 2.0, 3.0, 4.0, 5.0];
        let batch = Batch {
            query_id: StringsRef { offsets: Offsets::Small(&qo), data: &qd },
            doc_id: StringsRef { offsets: Offsets::Small(&d_o), data: &dd },
            values: ValuesRef::Scores(&scores),
        };
        let whole = parsed_in(&[batch], Input::Run, 1 << 30).unwrap();
        assert_eq!(whole.columns.len(), 1);
        let cut = parsed_in(&[batch], Input::Run, 5).unwrap();
        assert!(cut.columns.len() > 1);
        for p in [&whole, &cut] {
            assert_eq!(p.rows, 5);
            assert_eq!(p.query_starts, vec![0, 2, 4, 5]);
            let docs: Vec<Vec<u8>> = p
                .columns
                .iter()
                .flat_map(|c| (0..c.doc_id.len()).map(|i| c.doc_id.get(i).to_vec()))
                .collect();
            assert_eq!(docs, [&b"aaaa"[..], b"b", b"cc", b"d", b"eeeeee"]);
        }
    }

    #[test]
    fn malformed_columns_are_refused() {
        let (qo, qd) = strings(&["q1", "q2"]);
        let bad = [0i32, 5, 1];
        let scores = [1.0, 2.0];
        for (offsets, values) in [(&bad[..], &scores[..]), (&qo[..], &scores[..1])] {
            let batch = Batch {
                query_id: StringsRef { offsets: Offsets::Small(&qo), data: &qd },
                doc_id: StringsRef { offsets: Offsets::Small(offsets), data: &qd },
                values: ValuesRef::Scores(values),
            };
            assert!(matches!(parsed(&[batch], Input::Run), Err(JudgeError::WrongKind(Input::Run))));
        }
    }

    #[test]
    fn repeats_follow_each_policy() {
        let (qo, qd) = strings(&["q1", "q2", "q1", "q1", "q2"]);
        let (d_o, dd) = strings(&["a", "a", "a", "a", "b"]);
        let scores = [1.0, 2.0, 3.0, 0.5, 4.0];
        let batch = Batch {
            query_id: StringsRef { offsets: Offsets::Small(&qo), data: &qd },
            doc_id: StringsRef { offsets: Offsets::Small(&d_o), data: &dd },
            values: ValuesRef::Scores(&scores),
        };
        let p = parsed(&[batch], Input::Run).unwrap();
        assert_eq!(repeats(&p, Duplicates::Error, 1), Repeats::First(Some((0, 2))));
        assert_eq!(repeats(&p, Duplicates::First, 2), Repeats::Drop(vec![2, 3]));
        assert_eq!(repeats(&p, Duplicates::Max, 1), Repeats::Drop(vec![0, 3]));
    }
}
