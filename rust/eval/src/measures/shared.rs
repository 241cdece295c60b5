//! Work shared by the kernels of one query: [`measures::compute`](super::compute) runs
//! every kernel of a query with one [`Shared`], which computes each piece on first need
//! and keeps it until the next query, so that the many cutoffs of P, recall, map_cut,
//! ndcg_cut, IPrec... read their values instead of rescanning the ranking.
//!
//! Every piece is made with the float operations, in the order, of the kernels that
//! read it (running sums left to right, started at their first term), so a kernel gives
//! the same bits with a fresh `Shared` as with one shared by other kernels.

use super::common::{log2_discount, Gains};
use crate::{Labels, Query, NOT_POOLED};

/// Per-query work shared between kernels (see the module's documentation). Buffers are
/// kept across queries; [`Shared::reset`] forgets the values of the previous query.
#[derive(Debug, Default)]
pub struct Shared {
    relevant: Vec<Relevant>,
    relevant_used: usize,
    gains: Vec<RankedGains>,
    gains_used: usize,
    ideal: Vec<Ideal>,
    ideal_used: usize,
    pooled: Vec<usize>,
    pooled_done: bool,
    /// `p**i` by repeated multiplication for one `p` (kept across queries).
    powers: (u64, Vec<f64>),
}

impl Shared {
    /// Forget the values of the previous query (the buffers are kept).
    pub fn reset(&mut self) {
        self.relevant_used = 0;
        self.gains_used = 0;
        self.ideal_used = 0;
        self.pooled_done = false;
    }

    /// The relevant ranked documents of `q` at threshold `level`.
    pub fn relevant(&mut self, q: &Query, level: i64) -> &mut Relevant {
        let used = self.relevant_used;
        if let Some(i) = self.relevant[..used].iter().position(|r| r.level == level) {
            return &mut self.relevant[i];
        }
        if used == self.relevant.len() {
            self.relevant.push(Relevant::default());
        }
        self.relevant_used += 1;
        let slot = &mut self.relevant[used];
        slot.fill(q, level);
        slot
    }

    /// The ranked documents of `q` with a non-zero gain under `gains`.
    pub fn gains(&mut self, q: &Query, gains: &Gains) -> &mut RankedGains {
        let i = self.gains_index(q, gains);
        &mut self.gains[i]
    }

    /// The ideal gains of `q` under `gains`.
    pub fn ideal(&mut self, q: &Query, gains: &Gains) -> &mut Ideal {
        let i = self.ideal_index(q, gains);
        &mut self.ideal[i]
    }

    /// Both [`Shared::gains`] and [`Shared::ideal`].
    pub fn ranked_and_ideal(&mut self, q: &Query, gains: &Gains) -> (&mut RankedGains, &mut Ideal) {
        let (r, i) = (self.gains_index(q, gains), self.ideal_index(q, gains));
        (&mut self.gains[r], &mut self.ideal[i])
    }

    fn gains_index(&mut self, q: &Query, gains: &Gains) -> usize {
        let used = self.gains_used;
        if let Some(i) = self.gains[..used].iter().position(|g| same_gains(&g.key, gains)) {
            return i;
        }
        if used == self.gains.len() {
            self.gains.push(RankedGains::default());
        }
        self.gains_used += 1;
        self.gains[used].fill(q, gains);
        used
    }

    fn ideal_index(&mut self, q: &Query, gains: &Gains) -> usize {
        let used = self.ideal_used;
        if let Some(i) = self.ideal[..used].iter().position(|g| same_gains(&g.key, gains)) {
            return i;
        }
        if used == self.ideal.len() {
            self.ideal.push(Ideal::default());
        }
        self.ideal_used += 1;
        self.ideal[used].fill(q, gains);
        used
    }

    /// The positions (0-based) of the ranked documents in the qrels (judged or pooled
    /// unjudged: every label but [`NOT_POOLED`]), in rank order.
    pub fn pooled(&mut self, q: &Query) -> &[usize] {
        if !self.pooled_done {
            self.pooled.clear();
            positions(&q.ranked, &mut self.pooled, |l| l != NOT_POOLED, |l| l != NOT_POOLED as f64);
            self.pooled_done = true;
        }
        &self.pooled
    }

    /// Both [`Shared::gains`] and [`Shared::powers`].
    pub fn gains_and_powers(
        &mut self,
        q: &Query,
        gains: &Gains,
        p: f64,
        n: usize,
    ) -> (&mut RankedGains, &[f64]) {
        let i = self.gains_index(q, gains);
        Self::fill_powers(&mut self.powers, p, n);
        (&mut self.gains[i], &self.powers.1[..=n])
    }

    /// `p**i` for i = 0..=n by repeated multiplication (`common::powers`).
    pub fn powers(&mut self, p: f64, n: usize) -> &[f64] {
        Self::fill_powers(&mut self.powers, p, n);
        &self.powers.1[..=n]
    }

    fn fill_powers(powers: &mut (u64, Vec<f64>), p: f64, n: usize) {
        let (key, table) = powers;
        if *key != p.to_bits() || table.is_empty() {
            *key = p.to_bits();
            table.clear();
            table.push(1.0);
        }
        while table.len() <= n {
            let last = table[table.len() - 1];
            table.push(last * p);
        }
    }
}

/// Pushes the positions `i` of `labels` whose label passes the test (`int` on integer
/// labels, `real` on fractional ones), in order.
fn positions(
    labels: &Labels,
    out: &mut Vec<usize>,
    int: impl Fn(i64) -> bool,
    real: impl Fn(f64) -> bool,
) {
    match labels {
        Labels::I8(v) => {
            out.extend(v.iter().enumerate().filter(|(_, &l)| int(l as i64)).map(|p| p.0))
        }
        Labels::I64(v) => out.extend(v.iter().enumerate().filter(|(_, &l)| int(l)).map(|p| p.0)),
        Labels::F64(v) => out.extend(v.iter().enumerate().filter(|(_, &l)| real(l)).map(|p| p.0)),
    }
}

fn same_gains(a: &Gains, b: &Gains) -> bool {
    a.0.len() == b.0.len()
        && a.0.iter().zip(&b.0).all(|(x, y)| x.0 == y.0 && x.1.to_bits() == y.1.to_bits())
}

/// The relevant ranked documents of a query at one threshold.
#[derive(Debug, Default)]
pub struct Relevant {
    level: i64,
    /// R: the judged documents at the level.
    pub num_rel: usize,
    /// 1-based ranks of the relevant ranked documents, in rank order.
    pub ranks: Vec<usize>,
    sums: Vec<f64>,
    sums_done: bool,
    interpolated: Vec<f64>,
    interpolated_done: bool,
}

impl Relevant {
    fn fill(&mut self, q: &Query, level: i64) {
        self.level = level;
        self.num_rel = q.num_rel(level);
        self.ranks.clear();
        match q.ranked {
            Labels::I8(v) => match i8::try_from(level) {
                Ok(l) => self
                    .ranks
                    .extend(v.iter().enumerate().filter(|(_, &x)| x >= l).map(|(i, _)| i + 1)),
                Err(_) if level < 0 => self.ranks.extend(1..=v.len()),
                Err(_) => {}
            },
            Labels::I64(v) => self
                .ranks
                .extend(v.iter().enumerate().filter(|(_, &x)| x >= level).map(|(i, _)| i + 1)),
            Labels::F64(v) => {
                let l = level as f64;
                self.ranks.extend(v.iter().enumerate().filter(|(_, &x)| x >= l).map(|(i, _)| i + 1))
            }
        }
        self.sums_done = false;
        self.interpolated_done = false;
    }

    /// The relevant documents within the top `n`.
    #[inline]
    pub fn within(&self, n: usize) -> usize {
        self.ranks.partition_point(|&r| r <= n)
    }

    /// `sums[c]`: the sum, left to right from 0.0, of P@rank of the first `c` relevant
    /// ranked documents (`sums[0] = 0.0`).
    pub fn precision_sums(&mut self) -> &[f64] {
        if !self.sums_done {
            self.sums.clear();
            let mut total = 0.0;
            self.sums.push(total);
            for (i, &rank) in self.ranks.iter().enumerate() {
                total += (i + 1) as f64 / rank as f64;
                self.sums.push(total);
            }
            self.sums_done = true;
        }
        &self.sums
    }

    /// Interpolated precision at each relevant ranked document: the largest P@rank of
    /// it and the relevant documents below it.
    pub fn interpolated(&mut self) -> &[f64] {
        if !self.interpolated_done {
            self.interpolated.clear();
            self.interpolated.extend(
                self.ranks.iter().enumerate().map(|(i, &rank)| (i + 1) as f64 / rank as f64),
            );
            let mut best = f64::NEG_INFINITY;
            for p in self.interpolated.iter_mut().rev() {
                best = best.max(*p);
                *p = best;
            }
            self.interpolated_done = true;
        }
        &self.interpolated
    }
}

/// The ranked documents of a query with a non-zero gain (under one `gains`).
#[derive(Debug, Default)]
pub struct RankedGains {
    key: Gains,
    /// 0-based positions, in rank order.
    pub positions: Vec<usize>,
    /// Their gains.
    pub values: Vec<f64>,
    /// The running DCG, once [`Self::dcg_log2`] has made it.
    pub(super) dcg: Vec<f64>,
    dcg_done: bool,
}

impl RankedGains {
    fn fill(&mut self, q: &Query, gains: &Gains) {
        self.key = gains.clone();
        self.positions.clear();
        self.values.clear();
        if gains.is_empty() {
            // the gain is the label when positive, else 0
            positions(&q.ranked, &mut self.positions, |l| l > 0, |l| l > 0.0);
            self.values.extend(self.positions.iter().map(|&i| q.ranked.value(i)));
        } else {
            for i in 0..q.num_ret() {
                let g = gains.gain(&q.ranked, i);
                if g != 0.0 {
                    self.positions.push(i);
                    self.values.push(g);
                }
            }
        }
        self.dcg_done = false;
    }

    /// The documents with a non-zero gain within the top `n`.
    #[inline]
    pub fn within(&self, n: usize) -> usize {
        self.positions.partition_point(|&i| i < n)
    }

    /// The running DCG (gain / log2(rank + 1)) at each document with a non-zero gain,
    /// summed left to right from the first term.
    pub fn dcg_log2(&mut self) -> &[f64] {
        if !self.dcg_done {
            self.dcg.clear();
            let mut sum = -0.0; // -0.0 + x == x: the first term starts the sum
            for (&i, &g) in self.positions.iter().zip(&self.values) {
                sum += g / log2_discount(i + 1);
                self.dcg.push(sum);
            }
            self.dcg_done = true;
        }
        &self.dcg
    }

    /// DCG (log2) of the top `n` documents: +0.0 without a non-zero gain among them.
    pub fn dcg_log2_at(&mut self, n: usize) -> f64 {
        match self.within(n) {
            0 => 0.0,
            c => self.dcg_log2()[c - 1],
        }
    }
}

/// The ideal ranking of a query: its judged documents' positive gains, sorted descending.
#[derive(Debug, Default)]
pub struct Ideal {
    key: Gains,
    pub gains: Vec<f64>,
    /// The running DCG, once [`Self::dcg_log2`] has made it.
    pub(super) dcg: Vec<f64>,
    dcg_done: bool,
}

impl Ideal {
    fn fill(&mut self, q: &Query, gains: &Gains) {
        self.key = gains.clone();
        self.gains.clear();
        self.gains
            .extend((0..q.judged.len()).map(|i| gains.gain(&q.judged, i)).filter(|&g| g > 0.0));
        if self.gains.windows(2).any(|w| w[0] < w[1]) {
            self.gains.sort_unstable_by(|a, b| b.total_cmp(a));
        }
        self.dcg_done = false;
    }

    /// The running ideal DCG (log2) at every position of the ideal ranking.
    pub fn dcg_log2(&mut self) -> &[f64] {
        if !self.dcg_done {
            self.dcg.clear();
            let mut sum = -0.0; // -0.0 + x == x: the first term starts the sum
            for (j, g) in self.gains.iter().enumerate() {
                sum += g / log2_discount(j + 1);
                self.dcg.push(sum);
            }
            self.dcg_done = true;
        }
        &self.dcg
    }

    /// Ideal DCG (log2) of the top `k`: +0.0 for k = 0 or no positive gain.
    pub fn dcg_log2_at(&mut self, k: usize) -> f64 {
        match k.min(self.gains.len()) {
            0 => 0.0,
            c => self.dcg_log2()[c - 1],
        }
    }
}
