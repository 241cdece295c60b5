//! The batched learning-to-rank objective of cranfield (pure Rust, no Python).
//!
//! Documents are given query by query, each query's documents in the order that
//! breaks ties (the caller sorts them: document id descending for trec_eval's rule,
//! file order for LETOR's). For every (individual, query) the documents are ranked by
//! score descending, ties by that position, and the measures are computed from the
//! labels of the top of the ranking with the same operations, in the same order, as
//! cranfield's NumPy kernels (`src/cranfield/core/measures/`), so values agree to the
//! last bit or nearly so (ERR's `exp` may differ in the last place from NumPy's).
//!
//! Every document is judged (its label is its grade): R, the ideal DCG and the other
//! per-query constants are computed once, at construction.
//!
//! Given the features ([`Kernel::set_features`]), the kernel scores weight vectors
//! itself with [`scoring`], the linear rankers' one scoring function, run of queries by
//! run of queries, fused with the ranking. The crate also holds the SVMlight/LETOR
//! reader ([`svmlight`]).

pub mod scoring;
pub mod svmlight;

use scoring::{Lanes, Panels, LW, MR, NR};

use std::cmp::Ordering;

/// A measure the kernel computes (cranfield's definitions; see the Python side).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// DCG@k / IDCG@k with per-document gains and the kernel's discount divisors.
    Ndcg,
    /// relevant in the top k / k.
    Precision,
    /// relevant in the top k / R.
    Recall,
    /// 1 if a relevant document is in the top k.
    Success,
    /// relevant in the top k / min(k, R).
    RelativePrecision,
    /// sum of P@rank over relevant ranks <= k, over R, min(R, k) or the relevant found.
    AveragePrecision,
    /// relevant in the top R / R.
    RPrecision,
    /// 1 / rank of the first relevant document within k.
    ReciprocalRank,
    /// expected reciprocal rank (stop probabilities per document).
    ExpectedReciprocalRank,
    /// bpref over the judged (all) documents.
    Bpref,
}

/// The denominator of average precision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Normalise {
    /// R, all relevant documents of the query.
    R,
    /// min(R, k).
    MinRK,
    /// the relevant documents found in the top k.
    RelevantRetrieved,
}

/// One measure: its kind, rank cutoff, relevance level and per-document numbers.
#[derive(Clone, Debug)]
pub struct Spec {
    pub kind: Kind,
    /// Rank cutoff k (None: the whole ranking).
    pub cutoff: Option<usize>,
    /// A document is relevant when its label >= level.
    pub level: i64,
    pub normalise: Normalise,
    /// LETOR's rule: NDCG@k of a query with fewer than k documents is 0.
    pub zero_if_short: bool,
    /// Per document: the gain (Ndcg) or the stop probability (ERR).
    pub gains: Vec<f64>,
    /// Per document: ln(1 - stop probability) (ERR).
    pub log_continue: Vec<f64>,
}

impl Spec {
    /// A measure on labels alone (no per-document numbers).
    pub fn new(kind: Kind, cutoff: Option<usize>, level: i64) -> Spec {
        Spec {
            kind,
            cutoff,
            level,
            normalise: Normalise::R,
            zero_if_short: false,
            gains: Vec::new(),
            log_continue: Vec::new(),
        }
    }

    /// Whether the whole ranking is needed (not only the top `cutoff`).
    fn needs_all(&self) -> bool {
        self.cutoff.is_none() || matches!(self.kind, Kind::RPrecision | Kind::Bpref)
    }
}

struct Term {
    spec: Spec,
    /// Per query: R (as a number), the ideal DCG@k (Ndcg), min(nonrelevant, R) (Bpref).
    relevant: Vec<u64>,
    ideal: Vec<f64>,
    nonrel: Vec<u64>,
    /// nDCG at a cutoff k <= [`QUOTIENT_RANKS`] with at most 256 distinct gains: per
    /// document the index of its gain, and `gain / discount[r]` for each distinct gain
    /// and rank (the very quotients the sum adds, computed once).
    gain_index: Vec<u8>,
    quotients: Vec<f64>,
}

/// The largest cutoff for which nDCG's quotients are tabulated.
const QUOTIENT_RANKS: usize = 64;

/// The prepared data of one objective: evaluates populations of score vectors.
pub struct Kernel {
    offsets: Vec<usize>,
    labels: Vec<i64>,
    discount: Vec<f64>,
    terms: Vec<Term>,
    depth: Option<usize>,
    max_len: usize,
    /// Where each document's score is in a row of scores given to `evaluate` (empty:
    /// in document order).
    columns: Vec<u32>,
    /// Per document: whether it can count in some measure (label at a relevance
    /// level, non-zero gain or stop probability); per query, the positions of those.
    is_positive: Vec<bool>,
    positive_offsets: Vec<usize>,
    positive_docs: Vec<u32>,
    /// The features in panels (`set_features`), for `evaluate_weights`.
    panels: Option<Panels>,
    /// When the objective is one nDCG@k with tabulated quotients: the width of its
    /// table (the ranks it counts), for the groups' vectorised sum.
    ndcg_width: Option<usize>,
    /// Runs of whole queries of about [`BLOCK_DOCS`] documents: (first query, end).
    blocks: Vec<(usize, usize)>,
}

/// Documents from which `evaluate_weights` splits a few individuals' queries between
/// two threads. Measured on the shared 2-core machine (load 8): at 9,000 and 24,000
/// documents (one vector: ~90 and ~260 us) the second thread made it slower (starting
/// and joining it, and waiting for a core); at 69,000 (~2.5 ms) it saved up to a third.
const SPLIT_DOCS: usize = 50_000;

/// Documents scored at a time in `evaluate_weights`: their features (~190 KB at 46
/// features) stay in the core's L2 cache across all individuals, their scores in L1.
const BLOCK_DOCS: usize = 512;

/// Buffers reused by every query of a thread.
struct Scratch {
    order: Vec<u32>,
    values: Vec<f64>,
    gathered: Vec<f64>,
    ranked: Vec<(u32, u32)>,
    /// Per rank up to the nDCG cutoff, and one spare: each lane's quotient (+0.0 when
    /// no document of the lane has that rank).
    slots: Vec<[f64; LW]>,
}

impl Scratch {
    fn new(len: usize) -> Scratch {
        Scratch {
            order: Vec::with_capacity(len),
            values: Vec::with_capacity(len),
            gathered: Vec::with_capacity(len),
            ranked: Vec::with_capacity(len),
            slots: vec![[0.0; LW]; QUOTIENT_RANKS + 1],
        }
    }
}

/// Why an evaluation failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// A score was NaN or infinite.
    NonFinite,
    /// Arrays of the wrong size (a caller's bug).
    Shape(String),
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
    fn split_queries(&self, weights: &[f64], p: usize, out: &mut [f64]) -> Result<(), Failure> {
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

    /// The values (`count x T x Q`, `out`) of the queries of `blocks` for the
    /// individuals `w` (`count x F`).
    fn weights_blocks(
        &self,
        w: &[f64],
        count: usize,
        o: &mut [f64],
        blocks: &[(usize, usize)],
    ) -> Result<(), Failure> {
        let Some(panels) = &self.panels else {
            return Err(Failure::Shape("no features were given to the kernel".into()));
        };
        let f = panels.num_features();
        let row = self.num_terms() * self.num_queries();
        let widest = self
            .blocks
            .iter()
            .map(|&(a, b)| self.offsets[b].div_ceil(NR) - self.offsets[a] / NR)
            .max()
            .unwrap_or(0)
            * NR;
        let widest_docs = self.blocks.iter().map(|&(a, b)| self.offsets[b] - self.offsets[a]);
        let widest_docs = widest_docs.max().unwrap_or(0);
        // whole groups of LW individuals scored side by side and ranked together,
        // the rest in tiles of MR (the same chains, so the same values)
        let full = count / LW * LW;
        let lanes = Lanes::new(&w[..full * f], f);
        let mut lane_buf = vec![0.0; if full > 0 { 2 * LW * widest_docs } else { 0 }];
        let mut buf = vec![0.0; if full < count { MR * widest } else { 0 }];
        let mut scratch = Scratch::new(self.max_len);
        for &(qa, qb) in blocks {
            let (a, b) = (self.offsets[qa], self.offsets[qb]);
            // two groups at a time (the last alone when their number is odd)
            for g in (0..lanes.num_groups()).step_by(2) {
                let (tile, next) = lane_buf.split_at_mut(LW * widest_docs);
                let (tile, next) = (&mut tile[..(b - a) * LW], &mut next[..(b - a) * LW]);
                let two = g + 1 < lanes.num_groups();
                if two {
                    lanes.score_two(g, panels, (a, b), tile, next);
                } else {
                    lanes.score(g, panels, (a, b), tile);
                }
                for (h, tile) in
                    [&tile[..], &next[..]].into_iter().take(1 + usize::from(two)).enumerate()
                {
                    if !all_finite(tile) {
                        return Err(Failure::NonFinite);
                    }
                    let o = &mut o[(g + h) * LW * row..(g + h + 1) * LW * row];
                    self.rank_lanes(tile, (qa, qb), a, o, &mut scratch);
                }
            }
            let p0 = a / NR;
            let panels_here = b.div_ceil(NR) - p0;
            let base = p0 * NR;
            for g in (full..count).step_by(MR) {
                let rows = MR.min(count - g);
                panels.score(&w[g * f..(g + rows) * f], p0, panels_here, &mut buf, widest);
                // finiteness checked here for the whole tile (padding scores are 0)
                if !all_finite(&buf[..rows * widest]) {
                    return Err(Failure::NonFinite);
                }
                let o = &mut o[g * row..(g + rows) * row];
                let tile = (&buf[..rows * widest], widest);
                self.rank_tile(tile, (qa, qb), base, o, &mut scratch, None)?;
            }
        }
        Ok(())
    }

    /// The queries `qa..qb` of a group of [`LW`] individuals whose finite scores are
    /// `tile` (from document `base` on, document-major, [`LW`] individuals per
    /// document): their values (`LW x T x Q`) in `out`. Compiled a second time for
    /// AVX2 CPUs, as [`Kernel::rank_tile`].
    fn rank_lanes(
        &self,
        tile: &[f64],
        queries: (usize, usize),
        base: usize,
        out: &mut [f64],
        scratch: &mut Scratch,
    ) {
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx2")
                && std::is_x86_feature_detected!("bmi1")
                && std::is_x86_feature_detected!("bmi2")
                && std::is_x86_feature_detected!("popcnt")
            {
                // SAFETY: the CPU has these features (just checked)
                return unsafe { self.rank_lanes_avx2(tile, queries, base, out, scratch) };
            }
        }
        self.rank_lanes_body(tile, queries, base, out, scratch, false)
    }

    /// [`Kernel::rank_lanes`] with AVX2 and BMI.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
    unsafe fn rank_lanes_avx2(
        &self,
        tile: &[f64],
        queries: (usize, usize),
        base: usize,
        out: &mut [f64],
        scratch: &mut Scratch,
    ) {
        self.rank_lanes_body(tile, queries, base, out, scratch, true)
    }

    /// Query by query: the ranks of the documents that can count, for the [`LW`]
    /// individuals at once ([`count_lanes`]); then nDCG@k summed for all of them
    /// ([`Kernel::ndcg_lanes`]) or each individual's values from its ranks, as
    /// [`Kernel::query`] computes them. A query with more documents that can count
    /// than [`RANK_BY_COUNTING`] goes individual by individual through
    /// [`Kernel::query`]'s ranking.
    #[inline(always)]
    fn rank_lanes_body(
        &self,
        tile: &[f64],
        (qa, qb): (usize, usize),
        base: usize,
        out: &mut [f64],
        scratch: &mut Scratch,
        avx2: bool,
    ) {
        let q_count = self.num_queries();
        let row = self.num_terms() * q_count;
        let mut ranks = [[0u64; LW]; RANK_BY_COUNTING];
        for q in qa..qb {
            let (a, b) = (self.offsets[q], self.offsets[q + 1]);
            let s = &tile[(a - base) * LW..(b - base) * LW];
            let positive =
                &self.positive_docs[self.positive_offsets[q]..self.positive_offsets[q + 1]];
            if positive.len() > RANK_BY_COUNTING {
                for (l, o) in out.chunks_exact_mut(row).enumerate() {
                    let Scratch { order, values, gathered, ranked, .. } = scratch;
                    gathered.clear();
                    gathered.extend(s.iter().skip(l).step_by(LW));
                    self.values_of(q, gathered, o, order, values, ranked);
                }
                continue;
            }
            let ranks = &mut ranks[..positive.len()];
            count_lanes(s, positive, ranks, avx2);
            if let Some(width) = self.ndcg_width {
                self.ndcg_lanes(q, positive, ranks, width, out, &mut scratch.slots);
                continue;
            }
            let len = b - a;
            let depth = self.depth.map_or(len, |d| d.min(len));
            let labels = &self.labels[a..b];
            for (l, o) in out.chunks_exact_mut(row).enumerate() {
                // as `count_ranks` leaves them: kept when within depth, then in order
                let mut found = [(0u32, 0u32); RANK_BY_COUNTING];
                let mut m = 0;
                for (r, &p) in ranks.iter().zip(positive) {
                    found[m] = (r[l] as u32, p);
                    m += usize::from(r[l] as usize <= depth);
                }
                scratch.ranked.clear();
                put_in_rank_order(&found[..m], depth, &mut scratch.ranked);
                for (t, term) in self.terms.iter().enumerate() {
                    o[t * q_count + q] = self.value(term, q, a, labels, &scratch.ranked, depth);
                }
            }
        }
    }

    /// nDCG@k (the kernel's one measure, with tabulated quotients `width` ranks wide)
    /// of query `q` for [`LW`] individuals from the ranks of its documents that can
    /// count: each document's quotient put in its lane's slot for its rank (beyond the
    /// cutoff: the spare slot), then the slots summed in rank order. A rank no document
    /// has adds +0.0, which leaves the sum as it is (the sum starts at +0.0 and cannot
    /// become -0.0), so each lane's sum is [`Kernel::value`]'s, bit for bit.
    #[inline(always)]
    fn ndcg_lanes(
        &self,
        q: usize,
        positive: &[u32],
        ranks: &[[u64; LW]],
        width: usize,
        out: &mut [f64],
        slots: &mut [[f64; LW]],
    ) {
        let term = &self.terms[0];
        let spec = &term.spec;
        let a = self.offsets[q];
        let len = self.offsets[q + 1] - a;
        let mut dcg = [0.0f64; LW];
        // ranks are at most len, within the discounts: rank <= k exactly when <= width
        if !(spec.zero_if_short && spec.cutoff.is_some_and(|k| len < k)) {
            for (r, &p) in ranks.iter().zip(positive) {
                let doc = a + p as usize;
                if spec.gains[doc] == 0.0 {
                    continue;
                }
                let quotients = &term.quotients[term.gain_index[doc] as usize * width..][..width];
                for l in 0..LW {
                    let rank = r[l] as usize;
                    let at = if rank <= width { rank - 1 } else { width };
                    slots[at][l] = quotients[(rank - 1).min(width - 1)];
                }
            }
            for slot in &mut slots[..width] {
                for l in 0..LW {
                    dcg[l] += slot[l];
                }
                *slot = [0.0; LW];
            }
        }
        let row = self.num_terms() * self.num_queries();
        let ideal = term.ideal[q];
        for (o, d) in out.chunks_exact_mut(row).zip(dcg) {
            o[q] = if ideal != 0.0 { d / ideal } else { 0.0 };
        }
    }

    /// The queries `qa..qb` of a tile of individuals: their scores from document
    /// `base` on, `widest` apart in `tile`, their values (`T x Q` each) in `out`
    /// (`columns`: as for [`Kernel::query`]).
    /// Compiled a second time for CPUs with AVX2 (and BMI), where the ranking's
    /// helpers are then inlined.
    fn rank_tile(
        &self,
        (tile, widest): (&[f64], usize),
        queries: (usize, usize),
        base: usize,
        out: &mut [f64],
        scratch: &mut Scratch,
        columns: Option<&[u32]>,
    ) -> Result<(), Failure> {
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx2")
                && std::is_x86_feature_detected!("bmi1")
                && std::is_x86_feature_detected!("bmi2")
                && std::is_x86_feature_detected!("popcnt")
            {
                // SAFETY: the CPU has these features (just checked)
                return unsafe {
                    self.rank_tile_avx2((tile, widest), queries, base, out, scratch, columns)
                };
            }
        }
        self.rank_tile_body((tile, widest), queries, base, out, scratch, columns)
    }

    /// [`Kernel::rank_tile`] with AVX2 and BMI.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
    unsafe fn rank_tile_avx2(
        &self,
        (tile, widest): (&[f64], usize),
        queries: (usize, usize),
        base: usize,
        out: &mut [f64],
        scratch: &mut Scratch,
        columns: Option<&[u32]>,
    ) -> Result<(), Failure> {
        self.rank_tile_body((tile, widest), queries, base, out, scratch, columns)
    }

    #[inline(always)]
    fn rank_tile_body(
        &self,
        (tile, widest): (&[f64], usize),
        (qa, qb): (usize, usize),
        base: usize,
        out: &mut [f64],
        scratch: &mut Scratch,
        columns: Option<&[u32]>,
    ) -> Result<(), Failure> {
        let row = self.num_terms() * self.num_queries();
        for (s, o) in tile.chunks_exact(widest).zip(out.chunks_exact_mut(row)) {
            for q in qa..qb {
                self.query(q, s, base, o, scratch, columns)?;
            }
        }
        Ok(())
    }

    /// Run `work(first individual, count, their values)` on up to `threads` threads.
    fn split<W>(&self, p: usize, out: &mut [f64], threads: usize, work: W) -> Result<(), Failure>
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
        let per = p.div_ceil(threads * 4).max(4 * LW).div_ceil(LW) * LW;
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
    fn rows(
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
    fn query(
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

    /// The values of query `q` for one individual whose finite scores of the query's
    /// documents are `scores` (`out`: its `T x Q` values).
    #[inline(always)]
    fn values_of(
        &self,
        q: usize,
        scores: &[f64],
        out: &mut [f64],
        order: &mut Vec<u32>,
        values: &mut Vec<f64>,
        ranked: &mut Vec<(u32, u32)>,
    ) {
        let q_count = self.num_queries();
        let (a, b) = (self.offsets[q], self.offsets[q + 1]);
        let len = b - a;
        let depth = self.depth.map_or(len, |d| d.min(len));
        let positive = &self.positive_docs[self.positive_offsets[q]..self.positive_offsets[q + 1]];
        ranked.clear();
        if positive.len() <= RANK_BY_COUNTING {
            // the rank of each document that can count, by counting the documents
            // ranked above it (one branch-free pass for up to LANES of them), then
            // those few sorted by rank
            count_ranks(scores, positive, depth, ranked);
        } else {
            top_with(scores, depth, order, values);
            let flags = &self.is_positive[a..b];
            ranked.extend(
                order
                    .iter()
                    .enumerate()
                    .filter(|(_, &o)| flags[o as usize])
                    .map(|(i, &o)| (i as u32 + 1, o)),
            );
        }
        let labels = &self.labels[a..b];
        for (t, term) in self.terms.iter().enumerate() {
            out[t * q_count + q] = self.value(term, q, a, labels, ranked, depth);
        }
    }

    /// One measure of one ranking from the ranks (1-based, ascending, at most `depth`)
    /// of the documents that can count (`ranked`: rank, position within the query):
    /// every other document has label below every level, gain 0 and ERR's stop
    /// probability 0, so it adds no term to any sum and no count.
    #[inline(always)]
    fn value(
        &self,
        term: &Term,
        q: usize,
        start: usize,
        labels: &[i64],
        ranked: &[(u32, u32)],
        depth: usize,
    ) -> f64 {
        let spec = &term.spec;
        let limit = spec.cutoff.map_or(depth, |k| k.min(depth)) as u32;
        let level = spec.level;
        let rel = |o: u32| labels[o as usize] >= level;
        let count = |upto: u64| {
            ranked
                .iter()
                .take_while(|&&(r, _)| u64::from(r) <= upto)
                .filter(|&&(_, o)| rel(o))
                .count() as u64
        };
        let within = || ranked.iter().take_while(move |&&(r, _)| r <= limit);
        let r = term.relevant[q];
        let ratio = |num: f64, den: f64| if den != 0.0 { num / den } else { 0.0 };
        match spec.kind {
            Kind::Precision => {
                let k = spec.cutoff.unwrap_or(depth.max(1));
                count(k as u64) as f64 / k as f64
            }
            Kind::Recall => ratio(count(u64::from(limit)) as f64, r as f64),
            Kind::Success => f64::from(u8::from(count(u64::from(limit)) > 0)),
            Kind::RelativePrecision => {
                let k = spec.cutoff.map_or(u64::MAX, |k| k as u64);
                ratio(count(u64::from(limit)) as f64, r.min(k) as f64)
            }
            Kind::RPrecision => ratio(count(r) as f64, r as f64),
            Kind::ReciprocalRank => {
                within().find(|&&(_, o)| rel(o)).map_or(0.0, |&(rank, _)| 1.0 / f64::from(rank))
            }
            Kind::AveragePrecision => {
                let mut total = 0.0;
                let mut hits = 0u64;
                for &(rank, o) in within() {
                    if rel(o) {
                        hits += 1;
                        total += hits as f64 / f64::from(rank);
                    }
                }
                let den = match spec.normalise {
                    Normalise::R => r,
                    Normalise::MinRK => spec.cutoff.map_or(r, |k| r.min(k as u64)),
                    Normalise::RelevantRetrieved => hits,
                };
                ratio(total, den as f64)
            }
            Kind::Ndcg => {
                if spec.zero_if_short && spec.cutoff.is_some_and(|k| labels.len() < k) {
                    return 0.0;
                }
                let mut dcg = 0.0;
                if term.quotients.is_empty() {
                    for &(rank, o) in within() {
                        let g = spec.gains[start + o as usize];
                        if g != 0.0 {
                            dcg += g / self.discount[rank as usize - 1];
                        }
                    }
                } else {
                    // the same quotients, looked up (ranks are within the cutoff)
                    let width = spec.cutoff.unwrap_or(0).min(self.discount.len());
                    for &(rank, o) in within() {
                        let doc = start + o as usize;
                        if spec.gains[doc] != 0.0 {
                            let gi = term.gain_index[doc] as usize;
                            dcg += term.quotients[gi * width + rank as usize - 1];
                        }
                    }
                }
                ratio(dcg, term.ideal[q])
            }
            Kind::ExpectedReciprocalRank => {
                // documents with stop probability 0 add +0.0 to the sum and -0.0 to
                // the log of the probability of reaching the next rank: no change
                let mut total = 0.0;
                let mut reach_log = 0.0f64;
                for &(rank, o) in within() {
                    let doc = start + o as usize;
                    total += spec.gains[doc] * reach_log.exp() / f64::from(rank);
                    reach_log += spec.log_continue[doc];
                }
                total
            }
            Kind::Bpref => {
                // the whole ranking: documents above a relevant one that are not
                // relevant are judged non-relevant (every document is judged)
                let den = term.nonrel[q] as f64;
                let mut hits = 0u64;
                let mut total = 0.0;
                for &(rank, o) in ranked {
                    if rel(o) {
                        let nonrel = u64::from(rank) - 1 - hits;
                        total += if nonrel > 0 { 1.0 - nonrel.min(r) as f64 / den } else { 1.0 };
                        hits += 1;
                    }
                }
                ratio(total, r as f64)
            }
        }
    }
}

/// Whether no value is NaN or infinite: `x * 0.0` is 0 for a finite `x`, NaN for any
/// other, so 8 running sums of those stay 0 exactly when all are finite (a branch-free
/// pass the compiler vectorises).
fn all_finite(values: &[f64]) -> bool {
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

/// Documents that can count in a query up to which their ranks are found by counting
/// (one pass over the query's scores per [`LANES`] of them) rather than by ranking the
/// query.
const RANK_BY_COUNTING: usize = 32;

/// Documents whose ranks one pass of [`count_ranks`] counts.
const LANES: usize = 8;

/// `(rank, d)` for the documents `d` of `positive` (at most [`RANK_BY_COUNTING`])
/// ranked within `depth`, in rank order: the 1-based rank of `d` is 1 + the documents
/// with a higher score + those before it with an equal one (ties by position). One
/// pass over the scores counts for [`LANES`] documents at once, every comparison
/// branch-free (AVX2 when the CPU has it).
#[inline(always)]
fn count_ranks(scores: &[f64], positive: &[u32], depth: usize, ranked: &mut Vec<(u32, u32)>) {
    let mut found = [(0u32, 0u32); RANK_BY_COUNTING];
    let mut m = 0;
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (just checked)
            m = unsafe { count_ranks_avx2(scores, positive, depth, &mut found) };
        } else {
            for group in positive.chunks(LANES) {
                m = count_ranks_body(scores, group, depth, &mut found, m);
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    for group in positive.chunks(LANES) {
        m = count_ranks_body(scores, group, depth, &mut found, m);
    }
    put_in_rank_order(&found[..m], depth, ranked);
}

/// [`count_ranks_body`] with AVX2: a pass counts the higher scores of 8 documents in
/// two registers and notes whether any score equals one of theirs; only then (rare
/// with real-valued scores) is the group counted again with the tie rule. Returns how
/// many of `found` were filled (those ranked within `depth`, in no particular order).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn count_ranks_avx2(
    scores: &[f64],
    positive: &[u32],
    depth: usize,
    found: &mut [(u32, u32); RANK_BY_COUNTING],
) -> usize {
    use std::arch::x86_64::*;
    let mut m = 0;
    for group in positive.chunks(LANES) {
        let mut s = [f64::INFINITY; LANES];
        for (l, &p) in group.iter().enumerate() {
            s[l] = scores[p as usize];
        }
        let s0 = _mm256_loadu_pd(s.as_ptr());
        let s1 = _mm256_loadu_pd(s.as_ptr().add(4));
        let (mut g0, mut g1) = (_mm256_setzero_si256(), _mm256_setzero_si256());
        let (mut e0, mut e1) = (_mm256_setzero_si256(), _mm256_setzero_si256());
        if group.len() <= 4 {
            // one register's worth: half the comparisons
            for &x in scores {
                let v = _mm256_set1_pd(x);
                g0 = _mm256_sub_epi64(g0, _mm256_castpd_si256(_mm256_cmp_pd::<_CMP_GT_OQ>(v, s0)));
                e0 = _mm256_sub_epi64(e0, _mm256_castpd_si256(_mm256_cmp_pd::<_CMP_GE_OQ>(v, s0)));
            }
        } else {
            for &x in scores {
                let v = _mm256_set1_pd(x);
                g0 = _mm256_sub_epi64(g0, _mm256_castpd_si256(_mm256_cmp_pd::<_CMP_GT_OQ>(v, s0)));
                g1 = _mm256_sub_epi64(g1, _mm256_castpd_si256(_mm256_cmp_pd::<_CMP_GT_OQ>(v, s1)));
                e0 = _mm256_sub_epi64(e0, _mm256_castpd_si256(_mm256_cmp_pd::<_CMP_GE_OQ>(v, s0)));
                e1 = _mm256_sub_epi64(e1, _mm256_castpd_si256(_mm256_cmp_pd::<_CMP_GE_OQ>(v, s1)));
            }
        }
        // a document's own score is the one equal to it unless another ties with it
        // (at least = above + 1 in every lane in use; padding lanes count nothing):
        // then the group is counted again with the tie rule (rare for real scores)
        let one = _mm256_set1_epi64x(1);
        let ok0 = _mm256_cmpeq_epi64(_mm256_sub_epi64(e0, g0), one);
        let ok1 = _mm256_cmpeq_epi64(_mm256_sub_epi64(e1, g1), one);
        let ok = _mm256_movemask_pd(_mm256_castsi256_pd(ok0))
            | (_mm256_movemask_pd(_mm256_castsi256_pd(ok1)) << 4);
        let used = (1i32 << group.len()) - 1;
        if ok & used != used {
            m = count_ranks_body(scores, group, depth, found, m);
            continue;
        }
        let mut above = [0u64; LANES];
        _mm256_storeu_si256(above.as_mut_ptr().cast(), g0);
        _mm256_storeu_si256(above.as_mut_ptr().add(4).cast(), g1);
        for (l, &p) in group.iter().enumerate() {
            // branch-free: written always, kept when within depth
            let rank = above[l] as usize + 1;
            found[m] = (rank as u32, p);
            m += usize::from(rank <= depth);
        }
    }
    m
}

/// One group of at most [`LANES`] documents counted with the tie rule, appended to
/// `found` from `m` on (when ranked within `depth`); returns the new count.
#[inline(always)]
fn count_ranks_body(
    scores: &[f64],
    group: &[u32],
    depth: usize,
    found: &mut [(u32, u32); RANK_BY_COUNTING],
    mut m: usize,
) -> usize {
    // padding lanes: a score nothing exceeds, at a position after every document
    let mut s = [f64::INFINITY; LANES];
    let mut d = [f64::INFINITY; LANES];
    for (l, &p) in group.iter().enumerate() {
        s[l] = scores[p as usize];
        d[l] = f64::from(p);
    }
    let mut above = [0u64; LANES];
    let mut j = 0.0f64;
    for &x in scores {
        for l in 0..LANES {
            let counts = (x > s[l]) | ((x == s[l]) & (j < d[l]));
            above[l] += u64::from(counts);
        }
        j += 1.0;
    }
    for (l, &p) in group.iter().enumerate() {
        let rank = above[l] as usize + 1;
        found[m] = (rank as u32, p);
        m += usize::from(rank <= depth);
    }
    m
}

/// The 1-based ranks, for each of [`LW`] individuals, of the documents `positive` of a
/// query whose scores are `s` (document-major, [`LW`] individuals per document):
/// `ranks[i][l]` = 1 + the documents before `positive[i]` with a score >= its own + those
/// after it with a higher one (ties by position, with one comparison per document).
#[inline(always)]
fn count_lanes(s: &[f64], positive: &[u32], ranks: &mut [[u64; LW]], avx2: bool) {
    #[cfg(target_arch = "x86_64")]
    if avx2 {
        // SAFETY: the caller checked that the CPU has AVX2
        unsafe { count_lanes_avx2(s, positive, ranks) };
        return;
    }
    let _ = avx2;
    let len = s.len() / LW;
    for (r, &p) in ranks.iter_mut().zip(positive) {
        let p = p as usize;
        let own = &s[p * LW..(p + 1) * LW];
        let mut c = [1u64; LW];
        for j in 0..p {
            for l in 0..LW {
                c[l] += u64::from(s[j * LW + l] >= own[l]);
            }
        }
        for j in p + 1..len {
            for l in 0..LW {
                c[l] += u64::from(s[j * LW + l] > own[l]);
            }
        }
        *r = c;
    }
}

/// [`count_lanes`] with AVX2: two registers of 4 individuals, a comparison mask
/// (all ones, i.e. -1) subtracted per document.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn count_lanes_avx2(s: &[f64], positive: &[u32], ranks: &mut [[u64; LW]]) {
    use std::arch::x86_64::*;
    let len = s.len() / LW;
    let sp = s.as_ptr();
    for (r, &p) in ranks.iter_mut().zip(positive) {
        let p = p as usize;
        assert!(p < len);
        let t0 = _mm256_loadu_pd(sp.add(p * LW));
        let t1 = _mm256_loadu_pd(sp.add(p * LW + 4));
        let (mut c0, mut c1) = (_mm256_set1_epi64x(1), _mm256_set1_epi64x(1));
        for j in 0..p {
            let v0 = _mm256_loadu_pd(sp.add(j * LW));
            let v1 = _mm256_loadu_pd(sp.add(j * LW + 4));
            c0 = _mm256_sub_epi64(c0, _mm256_castpd_si256(_mm256_cmp_pd::<_CMP_GE_OQ>(v0, t0)));
            c1 = _mm256_sub_epi64(c1, _mm256_castpd_si256(_mm256_cmp_pd::<_CMP_GE_OQ>(v1, t1)));
        }
        for j in p + 1..len {
            let v0 = _mm256_loadu_pd(sp.add(j * LW));
            let v1 = _mm256_loadu_pd(sp.add(j * LW + 4));
            c0 = _mm256_sub_epi64(c0, _mm256_castpd_si256(_mm256_cmp_pd::<_CMP_GT_OQ>(v0, t0)));
            c1 = _mm256_sub_epi64(c1, _mm256_castpd_si256(_mm256_cmp_pd::<_CMP_GT_OQ>(v1, t1)));
        }
        _mm256_storeu_si256(r.as_mut_ptr().cast(), c0);
        _mm256_storeu_si256(r.as_mut_ptr().add(4).cast(), c1);
    }
}

/// Append `(rank, d)` pairs of distinct ranks (at most [`RANK_BY_COUNTING`], ranks at
/// most `depth`) to `ranked` by rank: through a bit per rank when `depth` <= 64 (set,
/// then read lowest first), else each put at its place, the number of pairs of a lower
/// rank (branch-free).
#[inline(always)]
fn put_in_rank_order(found: &[(u32, u32)], depth: usize, ranked: &mut Vec<(u32, u32)>) {
    if depth <= 64 {
        let mut at = [0u32; 64];
        let mut bits = 0u64;
        for &(r, d) in found {
            let i = (r as usize - 1) & 63;
            at[i] = d;
            bits |= 1u64 << i;
        }
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            ranked.push((i as u32 + 1, at[i]));
            bits &= bits - 1;
        }
        return;
    }
    let mut placed = [(0u32, 0u32); RANK_BY_COUNTING];
    for &(r, d) in found {
        let below = found.iter().map(|&(s, _)| usize::from(s < r)).sum::<usize>();
        placed[below] = (r, d);
    }
    ranked.extend_from_slice(&placed[..found.len()]);
}

/// nDCG's `gain / discount[r]` for every distinct gain and rank up to the cutoff, and
/// each document's gain index; None when not worth it (no cutoff or a long one, many
/// distinct gains).
fn quotient_table(spec: &Spec, discount: &[f64]) -> Option<(Vec<u8>, Vec<f64>)> {
    let k = spec.cutoff.filter(|&k| spec.kind == Kind::Ndcg && k <= QUOTIENT_RANKS)?;
    let k = k.min(discount.len());
    let mut distinct: Vec<u64> = Vec::new();
    let mut index = Vec::with_capacity(spec.gains.len());
    for g in &spec.gains {
        let bits = g.to_bits();
        let at = match distinct.iter().position(|&d| d == bits) {
            Some(at) => at,
            None if distinct.len() < 256 => {
                distinct.push(bits);
                distinct.len() - 1
            }
            None => return None,
        };
        index.push(at as u8);
    }
    let mut quotients = Vec::with_capacity(distinct.len() * k);
    for &bits in &distinct {
        let g = f64::from_bits(bits);
        quotients.extend(discount[..k].iter().map(|&d| g / d));
    }
    Some((index, quotients))
}

/// The per-query constants of one measure.
fn prepare(spec: Spec, offsets: &[usize], labels: &[i64], discount: &[f64]) -> Term {
    let q_count = offsets.len() - 1;
    let mut relevant = Vec::with_capacity(q_count);
    let mut nonrel = Vec::with_capacity(q_count);
    let mut ideal = Vec::new();
    let mut gains = Vec::new();
    for q in 0..q_count {
        let docs = &labels[offsets[q]..offsets[q + 1]];
        let r = docs.iter().filter(|&&l| l >= spec.level).count() as u64;
        relevant.push(r);
        nonrel.push((docs.len() as u64 - r).min(r));
        if spec.kind == Kind::Ndcg {
            // the ideal ranking: positive gains, largest first, up to the cutoff
            gains.clear();
            gains.extend(
                spec.gains[offsets[q]..offsets[q + 1]].iter().copied().filter(|&g| g > 0.0),
            );
            gains.sort_unstable_by(|a, b| b.partial_cmp(a).unwrap_or(Ordering::Equal));
            let k = spec.cutoff.map_or(gains.len(), |k| k.min(gains.len()));
            let mut total = 0.0;
            for (i, g) in gains[..k].iter().enumerate() {
                total += g / discount[i];
            }
            ideal.push(total);
        }
    }
    let (gain_index, quotients) = quotient_table(&spec, discount).unwrap_or_default();
    Term { spec, relevant, ideal, nonrel, gain_index, quotients }
}

/// The objective of each of `p` individuals from their values (`p x T x Q`,
/// row-major, as [`Kernel::evaluate_weights`] writes them): `sum_t shares[t] *
/// mean_q v[i, t, q]`, each mean summed left to right and divided by Q (0 without
/// queries), the terms added in order to 0 — the arithmetic of
/// `cranfield.ltr.objective.mean_rows` and its weighted sum, so both give the same bits.
pub fn weighted_means(values: &[f64], p: usize, shares: &[f64], queries: usize) -> Vec<f64> {
    debug_assert_eq!(values.len(), p * shares.len() * queries);
    (0..p)
        .map(|i| {
            let mut total = 0.0;
            for (t, &share) in shares.iter().enumerate() {
                let first = (i * shares.len() + t) * queries;
                let term = &values[first..first + queries];
                let mean = if queries == 0 {
                    0.0
                } else {
                    term.iter().fold(0.0, |s, &v| s + v) / queries as f64
                };
                total += share * mean;
            }
            total
        })
        .collect()
}

/// The positions of the `depth` best scores, best first: score descending, ties by
/// position ascending. No score may be NaN.
pub fn top(scores: &[f64], depth: usize, order: &mut Vec<u32>) {
    let mut values = Vec::with_capacity(depth.min(scores.len()));
    top_with(scores, depth, order, &mut values);
}

/// [`top`] with a scratch vector for the selected scores (no allocation once warm).
///
/// Short queries and short tops: insertion into the sorted top `depth`, scores kept
/// beside the positions (a later document goes after every document with a score >=
/// its own, so ties keep positions; once the top is full, a document not above its
/// last score is skipped at once). Long rankings: an unstable sort on (score
/// descending, position ascending), a total order without NaN.
pub fn top_with(scores: &[f64], depth: usize, order: &mut Vec<u32>, values: &mut Vec<f64>) {
    order.clear();
    values.clear();
    let len = scores.len();
    let depth = depth.min(len);
    if depth == 0 {
        return;
    }
    if len > 64 && depth * 4 >= len {
        order.extend(0..len as u32);
        order.sort_unstable_by(|&a, &b| {
            scores[b as usize]
                .partial_cmp(&scores[a as usize])
                .unwrap_or(Ordering::Equal)
                .then(a.cmp(&b))
        });
        order.truncate(depth);
        return;
    }
    let mut last = f64::NEG_INFINITY; // the last score of a full top
    for (i, &s) in scores.iter().enumerate() {
        if values.len() == depth {
            if s <= last {
                continue;
            }
            values.pop();
            order.pop();
        }
        let mut at = values.len();
        while at > 0 && values[at - 1] < s {
            at -= 1;
        }
        values.insert(at, s);
        order.insert(at, i as u32);
        if values.len() == depth {
            last = values[depth - 1];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log2_table(n: usize) -> Vec<f64> {
        (1..=n).map(|r| ((r + 1) as f64).log2()).collect()
    }

    /// Rank by a plain stable sort (the reference for `top`).
    fn reference_order(scores: &[f64]) -> Vec<u32> {
        let mut o: Vec<u32> = (0..scores.len() as u32).collect();
        o.sort_by(|&a, &b| scores[b as usize].partial_cmp(&scores[a as usize]).unwrap());
        o
    }

    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            self.0 >> 33
        }
    }

    #[test]
    fn top_equals_a_stable_sort_with_ties() {
        let mut rng = Lcg(7);
        let mut order = Vec::new();
        for _ in 0..2000 {
            let len = (rng.next() % 40) as usize;
            let scores: Vec<f64> = (0..len).map(|_| (rng.next() % 4) as f64 - 1.5).collect();
            let full = reference_order(&scores);
            for depth in 0..=len {
                top(&scores, depth, &mut order);
                assert_eq!(order, full[..depth], "{scores:?} depth {depth}");
            }
        }
    }

    #[test]
    fn negative_zero_ties_with_zero() {
        let mut order = Vec::new();
        top(&[-0.0, 0.0, 1.0], 3, &mut order);
        assert_eq!(order, vec![2, 0, 1]);
        top(&[0.0, -0.0, 1.0, -1.0, -1.0, -1.0, -1.0, -1.0, -1.0], 2, &mut order);
        assert_eq!(order, vec![2, 0]);
    }

    fn kernel(labels: Vec<i64>, offsets: Vec<usize>, specs: Vec<Spec>) -> Kernel {
        let table = log2_table(labels.len().max(1));
        Kernel::new(offsets, labels, table, specs, Vec::new()).unwrap()
    }

    #[test]
    fn hand_computed_values() {
        // one query; scores rank documents 2, 0, 3, 1 (labels 2, 0, 1, 0)
        let labels = vec![0, 0, 2, 1];
        let gains: Vec<f64> = labels.iter().map(|&l| l as f64).collect();
        let mut ndcg = Spec::new(Kind::Ndcg, Some(3), 1);
        ndcg.gains = gains.clone();
        let mut err = Spec::new(Kind::ExpectedReciprocalRank, None, 1);
        err.gains = labels.iter().map(|&l| ((1u64 << l) as f64 - 1.0) / 16.0).collect();
        err.log_continue = err.gains.iter().map(|s| (-s).ln_1p()).collect();
        let specs = vec![
            Spec::new(Kind::Precision, Some(2), 1),
            Spec::new(Kind::AveragePrecision, None, 1),
            Spec::new(Kind::ReciprocalRank, None, 2),
            Spec::new(Kind::RPrecision, None, 1),
            Spec::new(Kind::Bpref, None, 1),
            ndcg,
            err,
        ];
        let k = kernel(labels, vec![0, 4], specs);
        let mut out = vec![0.0; 7];
        k.evaluate(&[0.5, 0.1, 0.9, 0.3], 1, &mut out, 1).unwrap();
        let idcg = 2.0 + 1.0 / 3f64.log2();
        let dcg = 2.0 + 1.0 / 4f64.log2();
        let (s2, s1) = (3.0 / 16.0, 1.0 / 16.0);
        let err = s2 + (1.0 - s2) * s1 / 3.0;
        let expect = [0.5, (1.0 + 2.0 / 3.0) / 2.0, 1.0, 0.5, (1.0 + 0.5) / 2.0, dcg / idcg, err];
        for (got, want) in out.iter().zip(expect) {
            assert!((got - want).abs() < 1e-12, "{out:?} vs {expect:?}");
        }
    }

    #[test]
    fn queries_without_relevant_documents_score_zero() {
        let mut ndcg = Spec::new(Kind::Ndcg, Some(10), 1);
        ndcg.gains = vec![0.0; 3];
        let specs = vec![
            ndcg,
            Spec::new(Kind::AveragePrecision, None, 1),
            Spec::new(Kind::Recall, Some(5), 1),
            Spec::new(Kind::Bpref, None, 1),
        ];
        let k = kernel(vec![0, 0, 0], vec![0, 3], specs);
        let mut out = vec![1.0; 4];
        k.evaluate(&[1.0, 2.0, 3.0], 1, &mut out, 1).unwrap();
        assert_eq!(out, vec![0.0; 4]);
    }

    #[test]
    fn threads_give_the_same_values_and_nan_is_refused() {
        let mut rng = Lcg(3);
        let n = 3000;
        let labels: Vec<i64> = (0..n).map(|_| (rng.next() % 3) as i64).collect();
        let offsets: Vec<usize> = (0..=n).step_by(30).collect();
        let mut ndcg = Spec::new(Kind::Ndcg, Some(10), 1);
        ndcg.gains = labels.iter().map(|&l| l as f64).collect();
        let k = kernel(labels, offsets, vec![ndcg, Spec::new(Kind::AveragePrecision, None, 1)]);
        let p = 100;
        let scores: Vec<f64> = (0..p * n).map(|_| (rng.next() % 5) as f64).collect();
        let mut one = vec![0.0; p * 2 * 100];
        let mut two = one.clone();
        k.evaluate(&scores, p, &mut one, 1).unwrap();
        k.evaluate(&scores, p, &mut two, 2).unwrap();
        assert_eq!(one, two);
        let mut bad = scores.clone();
        bad[p * n - 1] = f64::NAN;
        assert_eq!(k.evaluate(&bad, p, &mut two, 2), Err(Failure::NonFinite));
        assert!(matches!(k.evaluate(&scores[1..], p, &mut two, 2), Err(Failure::Shape(_))));
    }

    #[test]
    fn scores_are_read_through_columns() {
        let labels = vec![2, 0, 1, 0, 1];
        let make = |columns| {
            let mut ndcg = Spec::new(Kind::Ndcg, Some(2), 1);
            ndcg.gains = labels.iter().map(|&l| l as f64).collect();
            let specs = vec![ndcg, Spec::new(Kind::AveragePrecision, None, 1)];
            Kernel::new(vec![0, 3, 5], labels.clone(), log2_table(5), specs, columns).unwrap()
        };
        let scores = [0.5, 0.5, 0.7, 0.1, 0.2];
        let reversed: Vec<f64> = scores.iter().rev().copied().collect();
        let (mut a, mut b) = (vec![0.0; 4], vec![0.0; 4]);
        make(Vec::new()).evaluate(&scores, 1, &mut a, 1).unwrap();
        make(vec![4, 3, 2, 1, 0]).evaluate(&reversed, 1, &mut b, 1).unwrap();
        assert_eq!(a, b);
        assert!(Kernel::new(vec![0, 1], vec![1], vec![1.0], vec![], vec![1]).is_err());
    }

    /// P@k, AP, nDCG@k and RR of one ranking by their definitions, on a stable sort.
    fn reference(scores: &[f64], labels: &[i64], k: usize, table: &[f64]) -> [f64; 4] {
        let order = reference_order(scores);
        let rel: Vec<bool> = order.iter().map(|&o| labels[o as usize] >= 1).collect();
        let r = labels.iter().filter(|&&l| l >= 1).count() as f64;
        let p = rel.iter().take(k).filter(|&&b| b).count() as f64 / k as f64;
        let (mut hits, mut ap) = (0.0, 0.0);
        for (i, &b) in rel.iter().enumerate() {
            if b {
                hits += 1.0;
                ap += hits / (i + 1) as f64;
            }
        }
        let ap = if r > 0.0 { ap / r } else { 0.0 };
        let mut dcg = 0.0;
        for (i, &o) in order.iter().take(k).enumerate() {
            let g = labels[o as usize] as f64;
            if g != 0.0 {
                dcg += g / table[i];
            }
        }
        let mut ideal: Vec<f64> = labels.iter().map(|&l| l as f64).filter(|&g| g > 0.0).collect();
        ideal.sort_by(|a, b| b.partial_cmp(a).unwrap());
        let idcg: f64 = ideal.iter().take(k).enumerate().fold(0.0, |t, (i, g)| t + g / table[i]);
        let ndcg = if idcg != 0.0 { dcg / idcg } else { 0.0 };
        let rr = rel.iter().position(|&b| b).map_or(0.0, |i| 1.0 / (i + 1) as f64);
        [p, ap, ndcg, rr]
    }

    #[test]
    fn counting_and_ranking_paths_equal_the_definitions() {
        // queries from 1 to 150 documents with 0 to most of them relevant: ranks found
        // by counting (few relevant), by the top-k insertion and by a full sort
        let mut rng = Lcg(11);
        let table = log2_table(200);
        for _ in 0..600 {
            let len = 1 + (rng.next() % 150) as usize;
            let share = rng.next() % 4; // 0: none relevant ... 3: most
            let labels: Vec<i64> = (0..len)
                .map(|_| if rng.next() % 4 < share { 1 + (rng.next() % 3) as i64 } else { 0 })
                .collect();
            // tie-heavy scores (the tie rule) or real-valued ones (the fast count)
            let ties = rng.next() % 2 == 0;
            let scores: Vec<f64> = (0..len)
                .map(|_| if ties { (rng.next() % 5) as f64 * 0.5 } else { rng.next() as f64 / 7.0 })
                .collect();
            let k = 1 + (rng.next() % 20) as usize;
            let mut ndcg = Spec::new(Kind::Ndcg, Some(k), 1);
            ndcg.gains = labels.iter().map(|&l| l as f64).collect();
            let specs = vec![
                Spec::new(Kind::Precision, Some(k), 1),
                Spec::new(Kind::AveragePrecision, None, 1),
                ndcg,
                Spec::new(Kind::ReciprocalRank, None, 1),
            ];
            let want = reference(&scores, &labels, k, &table);
            // all four (whole rankings, as AP needs), then the cutoff ones (the top k)
            for specs in [specs.clone(), vec![specs[0].clone(), specs[2].clone()]] {
                let kernel =
                    Kernel::new(vec![0, len], labels.clone(), table.clone(), specs, vec![]);
                let kernel = kernel.unwrap();
                let mut out = vec![0.0; kernel.num_terms()];
                kernel.evaluate(&scores, 1, &mut out, 1).unwrap();
                let want: Vec<f64> =
                    if out.len() == 4 { want.to_vec() } else { vec![want[0], want[2]] };
                for (got, want) in out.iter().zip(&want) {
                    assert!((got - want).abs() < 1e-12, "{out:?} vs {want:?}: {labels:?}");
                }
            }
        }
    }

    #[test]
    fn fused_scoring_equals_scoring_then_ranking() {
        // queries across several blocks, individuals not a multiple of the tile, tied
        // scores (whole-number features and weights) and real-valued ones
        let mut rng = Lcg(17);
        let mut offsets = vec![0usize];
        for _ in 0..90 {
            offsets.push(offsets.last().unwrap() + 1 + (rng.next() % 60) as usize);
        }
        offsets.push(offsets.last().unwrap() + 700); // a query longer than a block
        let n = *offsets.last().unwrap();
        let labels: Vec<i64> = (0..n).map(|_| (rng.next() % 5).saturating_sub(2) as i64).collect();
        let f = 7;
        for whole in [true, false] {
            let mut value = |scale: u64| {
                let v = (rng.next() % scale) as f64 - (scale / 2) as f64;
                if whole {
                    v
                } else {
                    v / 7.0
                }
            };
            let features: Vec<f64> = (0..n * f).map(|_| value(3)).collect();
            let weights: Vec<f64> = (0..61 * f).map(|_| value(5)).collect(); // threads
            let mut ndcg = Spec::new(Kind::Ndcg, Some(10), 1);
            ndcg.gains = labels.iter().map(|&l| l as f64).collect();
            let specs = vec![ndcg, Spec::new(Kind::AveragePrecision, None, 1)];
            let table = log2_table(n);
            let mut k = Kernel::new(offsets.clone(), labels.clone(), table, specs, vec![]).unwrap();
            k.set_features(&features, f).unwrap();
            let p = weights.len() / f;
            let mut s = vec![0.0; p * n];
            scoring::scores(&features, &weights, f, &mut s);
            let mut want = vec![0.0; p * 2 * k.num_queries()];
            k.evaluate(&s, p, &mut want, 1).unwrap();
            for threads in [1, 2] {
                let mut got = vec![f64::NAN; want.len()];
                k.evaluate_weights(&weights, &mut got, threads).unwrap();
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&got), bits(&want), "whole {whole}, {threads} threads");
            }
        }
    }

    /// Random queries (some empty or of one document, some with more documents that
    /// can count than are counted), `f` features, weights of `p` individuals; whole
    /// numbers (ties) or real ones.
    fn random_case(
        rng: &mut Lcg,
        f: usize,
        p: usize,
        whole: bool,
    ) -> (Vec<usize>, Vec<i64>, Vec<f64>, Vec<f64>) {
        let mut offsets = vec![0usize];
        for _ in 0..(1 + rng.next() % 70) {
            let len = match rng.next() % 8 {
                0 => 0,
                1 => 1,
                2 => 40 + (rng.next() % 90) as usize,
                _ => 2 + (rng.next() % 30) as usize,
            };
            offsets.push(offsets.last().unwrap() + len);
        }
        let n = *offsets.last().unwrap();
        let share = 1 + rng.next() % 4; // of 4: relevant documents
        let labels: Vec<i64> = (0..n)
            .map(|_| if rng.next() % 4 < share { (rng.next() % 3) as i64 } else { 0 })
            .collect();
        let mut value = |scale: u64| {
            let v = (rng.next() % scale) as f64 - (scale / 2) as f64;
            if whole {
                v
            } else {
                v / 7.0 + (rng.next() % 1000) as f64 * 1e-3
            }
        };
        let features: Vec<f64> = (0..n * f).map(|_| value(3)).collect();
        let weights: Vec<f64> = (0..p * f).map(|_| value(5)).collect();
        (offsets, labels, features, weights)
    }

    #[test]
    fn groups_of_individuals_give_the_values_of_one_at_a_time() {
        // the fused path (groups of LW individuals ranked together, nDCG@k summed for a
        // group at once, the rest in tiles) against the scores computed first and
        // ranked individual by individual, bit for bit
        let mut rng = Lcg(23);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        for case in 0..120 {
            let f = [1, 2, 5, 46, 136][case % 5];
            let p = [1, 7, 8, 9, 16, 17, 61][(case / 5) % 7];
            let whole = case % 2 == 0;
            let (offsets, labels, features, weights) = random_case(&mut rng, f, p, whole);
            let n = labels.len();
            let table = log2_table(n.max(1));
            let k = [1, 3, 10, 64, 100][(case / 3) % 5];
            let mut ndcg = Spec::new(Kind::Ndcg, Some(k), 1);
            ndcg.gains = labels.iter().map(|&l| ((1u64 << l) - 1) as f64).collect();
            ndcg.zero_if_short = case % 4 == 1;
            let mut specs = vec![vec![ndcg.clone()]];
            if case % 3 == 0 {
                specs.push(vec![ndcg, Spec::new(Kind::AveragePrecision, None, 1)]);
                specs.push(vec![Spec::new(Kind::Precision, Some(k), 2)]);
            }
            for specs in specs {
                let kernel =
                    Kernel::new(offsets.clone(), labels.clone(), table.clone(), specs, vec![]);
                let mut kernel = kernel.unwrap();
                kernel.set_features(&features, f).unwrap();
                let mut s = vec![0.0; p * n];
                scoring::scores(&features, &weights, f, &mut s);
                let mut want = vec![0.0; p * kernel.num_terms() * kernel.num_queries()];
                kernel.evaluate(&s, p, &mut want, 1).unwrap();
                for threads in [1, 2] {
                    let mut got = vec![f64::NAN; want.len()];
                    kernel.evaluate_weights(&weights, &mut got, threads).unwrap();
                    assert_eq!(bits(&got), bits(&want), "case {case}, {threads} threads");
                }
            }
        }
    }

    #[test]
    fn lane_counts_follow_the_tie_rule_on_every_instruction_set() {
        let mut rng = Lcg(31);
        for _ in 0..300 {
            let len = 1 + (rng.next() % 40) as usize;
            let s: Vec<f64> = (0..len * LW).map(|_| (rng.next() % 6) as f64 - 2.0).collect();
            let positive: Vec<u32> = (0..len as u32).filter(|_| rng.next() % 3 == 0).collect();
            let positive = &positive[..positive.len().min(RANK_BY_COUNTING)];
            let mut ranks = vec![[0u64; LW]; positive.len()];
            for avx2 in
                [false, cfg!(target_arch = "x86_64") && std::is_x86_feature_detected!("avx2")]
            {
                count_lanes(&s, positive, &mut ranks, avx2);
                for l in 0..LW {
                    let lane: Vec<f64> = s.iter().skip(l).step_by(LW).copied().collect();
                    let order = reference_order(&lane);
                    for (r, &p) in ranks.iter().zip(positive) {
                        let want = order.iter().position(|&o| o == p).unwrap() as u64 + 1;
                        assert_eq!(r[l], want, "{lane:?} {p} avx2 {avx2}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_large_fold_split_between_threads_gives_the_same_values() {
        let mut rng = Lcg(37);
        let mut offsets = vec![0usize];
        while *offsets.last().unwrap() < SPLIT_DOCS + 1000 {
            offsets.push(offsets.last().unwrap() + 1 + (rng.next() % 40) as usize);
        }
        let n = *offsets.last().unwrap();
        let labels: Vec<i64> = (0..n).map(|_| (rng.next() % 5).saturating_sub(2) as i64).collect();
        let f = 2;
        let features: Vec<f64> = (0..n * f).map(|_| (rng.next() % 9) as f64 / 7.0).collect();
        let weights: Vec<f64> = (0..3 * f).map(|_| (rng.next() % 9) as f64 - 4.0).collect();
        let mut ndcg = Spec::new(Kind::Ndcg, Some(10), 1);
        ndcg.gains = labels.iter().map(|&l| l as f64).collect();
        for specs in [vec![ndcg.clone()], vec![ndcg, Spec::new(Kind::AveragePrecision, None, 1)]] {
            let table = log2_table(n);
            let mut k = Kernel::new(offsets.clone(), labels.clone(), table, specs, vec![]).unwrap();
            k.set_features(&features, f).unwrap();
            for p in [1, 3] {
                let w = &weights[..p * f];
                let mut s = vec![0.0; p * n];
                scoring::scores(&features, w, f, &mut s);
                let mut want = vec![0.0; p * k.num_terms() * k.num_queries()];
                k.evaluate(&s, p, &mut want, 1).unwrap();
                let mut got = vec![f64::NAN; want.len()];
                k.evaluate_weights(w, &mut got, 2).unwrap();
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&got), bits(&want), "{p}");
            }
        }
    }

    #[test]
    fn non_finite_features_are_refused_on_every_path() {
        let mut rng = Lcg(29);
        let (offsets, labels, mut features, weights) = random_case(&mut rng, 3, 17, false);
        let n = labels.len();
        features.push(0.0); // a last document of its own query, feature 2 = inf or NaN
        features.push(0.0);
        features.push(0.0);
        let mut offsets = offsets;
        offsets.push(n + 1);
        let mut labels = labels;
        labels.push(1);
        for bad in [f64::INFINITY, f64::NAN] {
            features[n * 3 + 1] = bad;
            let mut ndcg = Spec::new(Kind::Ndcg, Some(10), 1);
            ndcg.gains = labels.iter().map(|&l| l as f64).collect();
            let table = log2_table(n + 1);
            let kernel = Kernel::new(offsets.clone(), labels.clone(), table, vec![ndcg], vec![]);
            let mut kernel = kernel.unwrap();
            kernel.set_features(&features, 3).unwrap();
            for p in [1, 8, 17] {
                let mut out = vec![0.0; p * kernel.num_queries()];
                let got = kernel.evaluate_weights(&weights[..p * 3], &mut out, 2);
                assert_eq!(got, Err(Failure::NonFinite), "{bad} {p}");
            }
        }
    }

    #[test]
    fn bad_construction_is_an_error() {
        assert!(Kernel::new(vec![0, 2], vec![1], vec![1.0], vec![], vec![]).is_err());
        assert!(Kernel::new(vec![0, 2, 1], vec![1], vec![1.0], vec![], vec![]).is_err());
        let spec = Spec::new(Kind::Ndcg, Some(1), 1); // no gains
        assert!(Kernel::new(vec![0, 1], vec![1], vec![1.0], vec![spec], vec![]).is_err());
        let spec = Spec::new(Kind::Precision, Some(0), 1);
        assert!(Kernel::new(vec![0, 1], vec![1], vec![1.0], vec![spec], vec![]).is_err());
    }

    #[test]
    fn scores_are_dot_products() {
        let x = [1.0, 2.0, 3.0, 4.0, 5.0, 0.5, 0.0, -1.0, 2.0, 1.0];
        let w = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0];
        let mut out = [0.0; 4];
        scoring::scores(&x, &w, 5, &mut out);
        assert_eq!(out, [6.0, 1.5, 2.0, 0.0]);
    }
    #[test]
    fn weighted_means_sum_left_to_right() {
        // 2 individuals x 2 terms x 3 queries
        let v = [0.1, 0.2, 0.3, 1.0, 0.0, 0.5, 0.7, 0.7, 0.7, 0.0, 0.0, 0.0];
        let got = weighted_means(&v, 2, &[0.25, 0.75], 3);
        let mean = |a: f64, b: f64, c: f64| ((0.0 + a + b) + c) / 3.0;
        let first = 0.0 + 0.25 * mean(0.1, 0.2, 0.3) + 0.75 * mean(1.0, 0.0, 0.5);
        let second = 0.0 + 0.25 * mean(0.7, 0.7, 0.7) + 0.75 * mean(0.0, 0.0, 0.0);
        assert_eq!(got, vec![first, second]);
        assert_eq!(weighted_means(&[], 3, &[1.0], 0), vec![0.0; 3]);
    }
}
