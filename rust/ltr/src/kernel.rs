//! The kernel's prepared data and its entry points: construction, the features,
//! evaluating score rows or weight vectors, and splitting the work between threads.

use crate::scoring::{Panels, LW};
use crate::*;

pub(crate) struct Term {
    pub(crate) spec: Spec,
    /// Per query: R (as a number), the ideal DCG@k (Ndcg), min(nonrelevant, R) (Bpref).
    pub(crate) relevant: Vec<u64>,
    pub(crate) ideal: Vec<f64>,
    pub(crate) nonrel: Vec<u64>,
    /// nDCG at a cutoff k <= [`QUOTIENT_RANKS`] with at most 256 distinct gains: per
    /// document the index of its gain, and `gain / discount[r]` for each distinct gain
    /// and rank (the very quotients the sum adds, computed once).
    pub(crate) gain_index: Vec<u8>,
    pub(crate) quotients: Vec<f64>,
}

/// The largest cutoff for which nDCG's quotients are tabulated.
pub(crate) const QUOTIENT_RANKS: usize = 64;

/// The prepared data of one objective: evaluates populations of score vectors.
pub struct Kernel {
    pub(crate) offsets: Vec<usize>,
    pub(crate) labels: Vec<i64>,
    pub(crate) discount: Vec<f64>,
    pub(crate) terms: Vec<Term>,
    pub(crate) depth: Option<usize>,
    pub(crate) max_len: usize,
    /// Where each document's score is in a row of scores given to `evaluate` (empty:
    /// in document order).
    pub(crate) columns: Vec<u32>,
    /// Per document: whether it can count in some measure (label at a relevance
    /// level, non-zero gain or stop probability); per query, the positions of those.
    pub(crate) is_positive: Vec<bool>,
    pub(crate) positive_offsets: Vec<usize>,
    pub(crate) positive_docs: Vec<u32>,
    /// The features in panels (`set_features`), for `evaluate_weights`.
    pub(crate) panels: Option<Panels>,
    /// When the objective is one nDCG@k with tabulated quotients: the width of its
    /// table (the ranks it counts), for the groups' vectorised sum.
    pub(crate) ndcg_width: Option<usize>,
    /// Runs of whole queries of about [`BLOCK_DOCS`] documents: (first query, end).
    pub(crate) blocks: Vec<(usize, usize)>,
}

/// Documents from which `evaluate_weights` splits a few individuals' queries between
/// two threads. Measured on the shared 2-core machine (load 8): at 9,000 and 24,000
/// documents (one vector: ~90 and ~260 us) the second thread made it slower (starting
/// and joining it, and waiting for a core); at 69,000 (~2.5 ms) it saved up to a third.
pub(crate) const SPLIT_DOCS: usize = 50_000;

/// Documents scored at a time in `evaluate_weights`: their features (~190 KB at 46
/// features) stay in the core's L2 cache across all individuals, their scores in L1.
pub(crate) const BLOCK_DOCS: usize = 512;

/// Individuals per chunk that [`Kernel::split`] hands to its `threads` threads: whole
/// groups of [`LW`]. A batch of fewer than 8 groups a thread (a generation of 50: 6
/// groups of 48 children) is cut into one chunk per thread (equal work, so both finish
/// together: chunks of 4 groups left one thread a third of the work); a larger one into
/// about 4 chunks a thread, taken in turn (on a busy machine a thread may get far less
/// of a core than the other).
pub(crate) fn chunk_size(p: usize, threads: usize) -> usize {
    let threads = threads.max(1);
    let groups = p.div_ceil(LW);
    let per_thread = if groups < threads * 8 { 1 } else { 4 };
    groups.div_ceil(threads * per_thread).max(1) * LW
}

/// Buffers reused by every query of a thread.
pub(crate) struct Scratch {
    pub(crate) order: Vec<u32>,
    pub(crate) values: Vec<f64>,
    pub(crate) gathered: Vec<f64>,
    pub(crate) ranked: Vec<(u32, u32)>,
    /// Per rank up to the nDCG cutoff, and one spare: each lane's quotient (+0.0 when
    /// no document of the lane has that rank).
    pub(crate) slots: Vec<[f64; LW]>,
}

impl Scratch {
    pub(crate) fn new(len: usize) -> Scratch {
        Scratch {
            order: Vec::with_capacity(len),
            values: Vec::with_capacity(len),
            gathered: Vec::with_capacity(len),
            ranked: Vec::with_capacity(len),
            slots: vec![[0.0; LW]; QUOTIENT_RANKS + 1],
        }
    }
}

impl Kernel {
    /// Prepare the kernel.
    ///
    /// `offsets` (Q + 1 entries, from 0 to N, non-decreasing) delimit each query's
    /// documents; `labels` (N) are their grades; `discount[i]` is the divisor of the
    /// gain at rank `i + 1` (at least as many entries as the longest query).
    /// `columns[i]` is where document `i`'s score is in a row of scores (empty: at `i`).
    pub fn new(
        offsets: Vec<usize>,
        labels: Vec<i64>,
        discount: Vec<f64>,
        specs: Vec<Spec>,
        columns: Vec<u32>,
    ) -> Result<Kernel, String> {
        let n = labels.len();
        if !columns.is_empty() && (columns.len() != n || columns.iter().any(|&c| c as usize >= n)) {
            return Err(format!("{n} score columns below {n} are needed"));
        }
        if offsets.first() != Some(&0) || offsets.last() != Some(&n) {
            return Err(format!("offsets must run from 0 to {n}"));
        }
        if offsets.windows(2).any(|w| w[0] > w[1]) {
            return Err("offsets must not decrease".to_string());
        }
        let max_len = offsets.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
        if specs.is_empty() {
            return Err("at least one measure is needed".to_string());
        }
        let mut terms = Vec::with_capacity(specs.len());
        let mut depth = Some(0usize);
        for spec in specs {
            if spec.cutoff == Some(0) {
                return Err("a rank cutoff must be at least 1".to_string());
            }
            let per_doc = matches!(spec.kind, Kind::Ndcg | Kind::ExpectedReciprocalRank);
            if per_doc && spec.gains.len() != n {
                return Err(format!("{:?}: {n} gains are needed", spec.kind));
            }
            if spec.kind == Kind::ExpectedReciprocalRank && spec.log_continue.len() != n {
                return Err(format!("{:?}: {n} continuation logs are needed", spec.kind));
            }
            if spec.kind == Kind::Ndcg && discount.len() < max_len {
                return Err(format!("{max_len} discounts are needed"));
            }
            depth = match (depth, spec.needs_all()) {
                (_, true) | (None, _) => None,
                (Some(d), false) => Some(d.max(spec.cutoff.unwrap_or(0))),
            };
            terms.push(prepare(spec, &offsets, &labels, &discount));
        }
        let is_positive: Vec<bool> = (0..n)
            .map(|i| {
                terms.iter().any(|t| match t.spec.kind {
                    Kind::Ndcg | Kind::ExpectedReciprocalRank => t.spec.gains[i] != 0.0,
                    _ => labels[i] >= t.spec.level,
                })
            })
            .collect();
        let mut positive_offsets = vec![0];
        let mut positive_docs = Vec::new();
        for w in offsets.windows(2) {
            positive_docs
                .extend((w[0]..w[1]).filter(|&i| is_positive[i]).map(|i| (i - w[0]) as u32));
            positive_offsets.push(positive_docs.len());
        }
        let ndcg_width = match &terms[..] {
            [t] if t.spec.kind == Kind::Ndcg && !t.quotients.is_empty() => {
                Some(t.spec.cutoff.unwrap_or(0).min(discount.len())).filter(|&w| w >= 1)
            }
            _ => None,
        };
        Ok(Kernel {
            offsets,
            labels,
            discount,
            terms,
            depth,
            max_len,
            columns,
            is_positive,
            positive_offsets,
            positive_docs,
            panels: None,
            ndcg_width,
            blocks: Vec::new(),
        })
    }

    /// Give the kernel the documents' features (`N x F`, row-major, in its document
    /// order), for [`Kernel::evaluate_weights`].
    pub fn set_features(&mut self, features: &[f64], f: usize) -> Result<(), String> {
        let n = self.num_docs();
        if f == 0 || features.len() != n * f {
            return Err(format!("{n} rows of features, at least one feature, are needed"));
        }
        self.panels = Some(Panels::new(features, f));
        let mut blocks = Vec::new();
        let mut first = 0;
        for q in 0..self.num_queries() {
            if self.offsets[q + 1] - self.offsets[first] > BLOCK_DOCS && q > first {
                blocks.push((first, q));
                first = q;
            }
        }
        if first < self.num_queries() {
            blocks.push((first, self.num_queries()));
        }
        self.blocks = blocks;
        Ok(())
    }

    pub fn num_queries(&self) -> usize {
        self.offsets.len() - 1
    }

    pub fn num_docs(&self) -> usize {
        self.labels.len()
    }

    pub fn num_terms(&self) -> usize {
        self.terms.len()
    }

    /// Values of `p` individuals whose scores are `scores` (`p x N`, row-major):
    /// `out` (`p x T x Q`, row-major) gets every measure of every query.
    /// Runs on up to `threads` threads (split by individual).
    pub fn evaluate(
        &self,
        scores: &[f64],
        p: usize,
        out: &mut [f64],
        threads: usize,
    ) -> Result<(), Failure> {
        let n = self.num_docs();
        if scores.len() != p * n {
            return Err(Failure::Shape(format!("{} scores for {p} x {n}", scores.len())));
        }
        self.split(p, out, threads, |first, count, o| {
            self.rows(&scores[first * n..(first + count) * n], count, o, &self.columns)
        })
    }

    /// As [`Kernel::evaluate`], the scores being `W X^T` for weights `W` (`p x F`,
    /// row-major) and the features given to [`Kernel::set_features`], computed by
    /// [`scoring`] block by block: for each run of queries, the scores of a tile of
    /// individuals are computed into a small buffer and ranked at once, so no `p x N`
    /// matrix is written or read (each thread scores its own individuals).
    pub fn evaluate_weights(
        &self,
        weights: &[f64],
        out: &mut [f64],
        threads: usize,
    ) -> Result<(), Failure> {
        let Some(panels) = &self.panels else {
            return Err(Failure::Shape("no features were given to the kernel".into()));
        };
        let f = panels.num_features();
        if weights.len() % f != 0 {
            return Err(Failure::Shape(format!("{} weights for {f} features", weights.len())));
        }
        let p = weights.len() / f;
        let row = self.num_terms() * self.num_queries();
        if p > 0 && p < LW && threads > 1 && self.num_docs() >= SPLIT_DOCS {
            let out_len = out.len();
            if out_len != p * row {
                return Err(Failure::Shape(format!("{out_len} values for {p} x {row}")));
            }
            return self.split_queries(weights, p, out);
        }
        self.split(p, out, threads, |first, count, o| {
            let w = &weights[first * f..(first + count) * f];
            self.weights_blocks(w, count, o, &self.blocks)
        })
    }

    /// A few individuals (Nelder-Mead's one) on two threads: the first blocks of
    /// queries (about half the documents) here, the others on a second thread into a
    /// buffer of their own, whose queries' values are then copied. Each query's values
    /// are computed as on one thread.
    pub(crate) fn split_queries(
        &self,
        weights: &[f64],
        p: usize,
        out: &mut [f64],
    ) -> Result<(), Failure> {
        let half = self.num_docs() / 2;
        let mid = self.blocks.partition_point(|&(qa, _)| self.offsets[qa] < half).max(1);
        let (mine, theirs) = self.blocks.split_at(mid.min(self.blocks.len()));
        if theirs.is_empty() {
            return self.weights_blocks(weights, p, out, mine);
        }
        let len = out.len();
        let (done, other) = std::thread::scope(|scope| {
            let other = scope.spawn(|| {
                let mut local = vec![0.0; len];
                self.weights_blocks(weights, p, &mut local, theirs).map(|_| local)
            });
            let done = self.weights_blocks(weights, p, out, mine);
            (done, other.join())
        });
        done?;
        let local = other.map_err(|_| Failure::Shape("a worker failed".into()))??;
        let q_count = self.num_queries();
        let (qa, qb) = (theirs[0].0, q_count);
        for (o, l) in out.chunks_exact_mut(q_count).zip(local.chunks_exact(q_count)) {
            o[qa..qb].copy_from_slice(&l[qa..qb]);
        }
        Ok(())
    }

    /// Run `work(first individual, count, their values)` on up to `threads` threads.
    pub(crate) fn split<W>(
        &self,
        p: usize,
        out: &mut [f64],
        threads: usize,
        work: W,
    ) -> Result<(), Failure>
    where
        W: Fn(usize, usize, &mut [f64]) -> Result<(), Failure> + Sync,
    {
        let row = self.num_terms() * self.num_queries();
        if out.len() != p * row {
            return Err(Failure::Shape(format!("{} values for {p} x {row}", out.len())));
        }
        if p == 0 || row == 0 {
            return Ok(());
        }
        // a thread is worth its start-up only for a few hundred thousand documents
        let useful = (p * self.num_docs().max(1)).div_ceil(200_000);
        let threads = threads.clamp(1, p).min(useful.max(1));
        if threads == 1 {
            return work(0, p, out);
        }
        // chunks of whole tiles taken in turn by whichever thread is free (on a busy
        // machine a thread may get far less of a core than the other); each chunk's
        // values depend on its individuals alone, so the result does not depend on
        // which thread computed what
        let per = chunk_size(p, threads);
        let chunks = std::sync::Mutex::new(out.chunks_mut(per * row).enumerate());
        let failed = std::sync::Mutex::new(None);
        let worker = || loop {
            let next = chunks.lock().map(|mut c| c.next()).unwrap_or(None);
            let Some((i, o)) = next else { break };
            if let Err(e) = work(i * per, o.len() / row, o) {
                if let Ok(mut f) = failed.lock() {
                    f.get_or_insert(e);
                }
                break;
            }
        };
        std::thread::scope(|scope| {
            let handles: Vec<_> = (1..threads).map(|_| scope.spawn(worker)).collect();
            worker();
            for h in handles {
                if h.join().is_err() {
                    if let Ok(mut f) = failed.lock() {
                        f.get_or_insert(Failure::Shape("a worker failed".into()));
                    }
                }
            }
        });
        match failed.into_inner() {
            Ok(None) => Ok(()),
            Ok(Some(e)) => Err(e),
            Err(_) => Err(Failure::Shape("a worker failed".into())),
        }
    }

    /// The values of `count` consecutive individuals (scores `count x N`, out
    /// `count x T x Q`).
    pub(crate) fn rows(
        &self,
        scores: &[f64],
        count: usize,
        out: &mut [f64],
        columns: &[u32],
    ) -> Result<(), Failure> {
        let n = self.num_docs();
        let mut scratch = Scratch::new(self.max_len);
        // individual by individual (measured faster than query by query across
        // individuals once scores are gathered through `columns`: each row of scores is
        // then read once, in a stream the prefetcher follows)
        let all = (0, self.num_queries());
        self.rank_tile((&scores[..count * n], n), all, 0, out, &mut scratch, Some(columns))
    }

    /// One query of one individual (`s`: its scores from document `base` on, or through
    /// `columns`; `out`: its `T x Q` values). `columns` None: the scores are known to
    /// be finite and in document order.
    #[inline(always)]
    pub(crate) fn query(
        &self,
        q: usize,
        s: &[f64],
        base: usize,
        out: &mut [f64],
        scratch: &mut Scratch,
        columns: Option<&[u32]>,
    ) -> Result<(), Failure> {
        let Scratch { order, values, gathered, ranked, .. } = scratch;
        let checked = columns.is_none();
        let columns = columns.unwrap_or(&[]);
        let (a, b) = (self.offsets[q], self.offsets[q + 1]);
        let scores = if columns.is_empty() {
            &s[a - base..b - base]
        } else {
            gathered.clear();
            gathered.extend(columns[a..b].iter().map(|&c| s[c as usize]));
            &gathered[..]
        };
        if !checked && !all_finite(scores) {
            return Err(Failure::NonFinite);
        }
        self.values_of(q, scores, out, order, values, ranked);
        Ok(())
    }
}

/// Whether no value is NaN or infinite: `x * 0.0` is 0 for a finite `x`, NaN for any
/// other, so 8 running sums of those stay 0 exactly when all are finite (a branch-free
/// pass the compiler vectorises).
pub(crate) fn all_finite(values: &[f64]) -> bool {
    let mut sums = [0.0f64; 8];
    let mut chunks = values.chunks_exact(8);
    for c in &mut chunks {
        for l in 0..8 {
            sums[l] += c[l] * 0.0;
        }
    }
    for (l, &v) in chunks.remainder().iter().enumerate() {
        sums[l] += v * 0.0;
    }
    sums.iter().all(|&s| s == 0.0)
}
