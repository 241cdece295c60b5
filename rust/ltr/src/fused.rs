//! Weight vectors scored and ranked in one pass: the features' panels scored tile by
//! tile of individuals, each query's documents ranked as soon as scored.

use crate::scoring::{Lanes, LW, MR, NR};
use crate::*;

impl Kernel {
    /// The values (`count x T x Q`, `out`) of the queries of `blocks` for the
    /// individuals `w` (`count x F`).
    pub(crate) fn weights_blocks(
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
    pub(crate) fn rank_lanes(
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
    pub(crate) unsafe fn rank_lanes_avx2(
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
    pub(crate) fn rank_lanes_body(
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
    pub(crate) fn ndcg_lanes(
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
    pub(crate) fn rank_tile(
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
    pub(crate) unsafe fn rank_tile_avx2(
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
    pub(crate) fn rank_tile_body(
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
}
