//! The measures of one ranked query, the per-query constants prepared at
//! construction, and the weighted mean of the terms over the queries.

use crate::*;
use std::cmp::Ordering;

impl Kernel {
    /// The values of query `q` for one individual whose finite scores of the query's
    /// documents are `scores` (`out`: its `T x Q` values).
    #[inline(always)]
    pub(crate) fn values_of(
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
    pub(crate) fn value(
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

/// nDCG's `gain / discount[r]` for every distinct gain and rank up to the cutoff, and
/// each document's gain index; None when not worth it (no cutoff or a long one, many
/// distinct gains).
pub(crate) fn quotient_table(spec: &Spec, discount: &[f64]) -> Option<(Vec<u8>, Vec<f64>)> {
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
pub(crate) fn prepare(spec: Spec, offsets: &[usize], labels: &[i64], discount: &[f64]) -> Term {
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
