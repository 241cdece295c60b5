//! One topic judged: the qrels topic's documents hashed and its grades sorted
//! ([`QrelsTopic`]), the run's ranking sorted by score and document id and labelled
//! ([`Ranking`]), for each label type ([`Label`]: `i8`, `i64`, `f64`).

use super::table::{raw_value, Table, Topics, ValuesView};
use super::{duplicate, hash, parallel, Duplicates, Input, JudgeError, JudgeOptions, RunKind};
use crate::{LabelVec, NOT_POOLED, UNJUDGED};

#[derive(Clone, Copy)]
pub(super) enum LabelKind {
    I8,
    I64,
    F64,
}

/// Whether `a > b` for two raw values (reals as `f64` bits, else `i64`).
#[inline]
pub(super) fn greater(a: u64, b: u64, real: bool) -> bool {
    if real {
        f64::from_bits(a) > f64::from_bits(b)
    } else {
        (a as i64) > (b as i64)
    }
}

/// One topic of the qrels.
pub(super) struct QrelsTopic<'a> {
    /// Each judged document's value (raw: `i64`, or `f64` bits for reals) and row.
    pub(super) docs: hash::Map<&'a [u8], (u64, usize)>,
    /// The values >= 0, descending, equal ones in row order (raw).
    pub(super) grades: Vec<u64>,
    /// The least and greatest value of the kept rows (integer grades only).
    pub(super) min: i64,
    pub(super) max: i64,
    /// The first repeated pair with policy `Error`: (first row, second row).
    pub(super) duplicate: Option<(usize, usize)>,
}

impl<'a> QrelsTopic<'a> {
    pub(super) fn new(
        table: &Table<'a>,
        blocks: &[(usize, usize)],
        real: bool,
        policy: Duplicates,
    ) -> Self {
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
pub(super) trait Label: Copy + Send + Sync {
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
pub(super) type Pair = (usize, usize);

/// A ranked document of a topic.
pub(super) struct Entry<'a> {
    /// The score it is ranked by (rounded to f32 for compat 9; -0.0 made 0.0).
    pub(super) key: f64,
    /// The score read.
    pub(super) score: f64,
    pub(super) doc: &'a [u8],
    pub(super) row: usize,
    /// Its value in the qrels (raw), if they list it.
    pub(super) qrels: Option<u64>,
}

/// A document of a topic: its entry, once ranked, and its value in the qrels.
#[derive(Clone, Copy)]
pub(super) struct Slot {
    /// The index of its [`Entry`] ([`UNRANKED`] until the run ranks it).
    pub(super) entry: usize,
    pub(super) qrels: Option<u64>,
}

pub(super) const UNRANKED: usize = usize::MAX;

/// What a thread reuses from topic to topic.
pub(super) struct Scratch<'a> {
    /// The topic's documents: those the qrels list, then those the run ranks (one hash
    /// lookup per ranked document finds both a repeat and the qrels' value).
    pub(super) docs: hash::Map<&'a [u8], Slot>,
    pub(super) entries: Vec<Entry<'a>>,
}

/// The run's side: every topic's ranking, judged.
pub(super) struct Ranking<'r, 'a> {
    pub(super) run: &'r Table<'a>,
    pub(super) topics: &'r Topics<'a>,
    pub(super) judged: &'r [QrelsTopic<'a>],
    pub(super) options: &'r JudgeOptions,
    pub(super) threads: usize,
}

/// An empty vector with room for exactly `items` items, the judged run's labels or
/// rows joined from its topics' (a 7M-line run's are several MiB of fresh memory:
/// advised as huge pages, a fault per 2 MiB instead of per 4 KiB), or
/// [`JudgeError::Memory`] when it cannot be had.
pub(super) fn joined<T>(items: usize) -> Result<Vec<T>, JudgeError> {
    cranfield_trec::buffer::huge(items).map_err(|_| JudgeError::Memory {
        path: Default::default(),
        what: "hold the judged run's labels",
    })
}

/// A topic's ranking judged: labels, the run row of each (when kept), and the first
/// duplicate.
pub(super) type Ranked<T> = (Vec<T>, Vec<i64>, Option<Pair>);

impl<'a> Ranking<'_, 'a> {
    /// The labels of the `kept` topics' rankings, back to back, and their lengths; or
    /// the first duplicate of the run (by its second line).
    pub(super) fn labels<T: Label>(
        &self,
        kept: &[usize],
    ) -> Result<(LabelVec, Vec<usize>), JudgeError> {
        self.ranked::<T>(kept, RunKind::File).map(|(labels, lengths, _)| (labels, lengths))
    }

    /// [`Ranking::labels`] of a run of `kind`, and the run row of each ranked document
    /// when it asks for them (else empty).
    #[allow(clippy::type_complexity)]
    pub(super) fn ranked<T: Label>(
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
    pub(super) fn topic<T: Label>(
        &self,
        s: &mut Scratch<'a>,
        t: usize,
        kind: RunKind,
    ) -> Ranked<T> {
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
    pub(super) fn ranking<T: Label>(&self, s: &mut Scratch<'a>, keep_rows: bool) -> Ranked<T> {
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

/// The score a ranking is sorted by: rounded to f32 first under `compat` 9 (trec_eval
/// 9.x and pytrec_eval read scores as floats), and -0.0 made +0.0 (they tie).
pub(super) fn order_key(score: f64, compat9: bool) -> f64 {
    if compat9 {
        score as f32 as f64 + 0.0
    } else {
        score + 0.0
    }
}
