//! Ranking helpers: the ranks of the few documents that can count, by counting
//! (branch-free, AVX2 when the CPU has it), and the top `depth` of a query's scores.

use crate::scoring::LW;
use std::cmp::Ordering;

/// Documents that can count in a query up to which their ranks are found by counting
/// (one pass over the query's scores per [`LANES`] of them) rather than by ranking the
/// query.
pub(crate) const RANK_BY_COUNTING: usize = 32;

/// Documents whose ranks one pass of [`count_ranks`] counts.
pub(crate) const LANES: usize = 8;

/// `(rank, d)` for the documents `d` of `positive` (at most [`RANK_BY_COUNTING`])
/// ranked within `depth`, in rank order: the 1-based rank of `d` is 1 + the documents
/// with a higher score + those before it with an equal one (ties by position). One
/// pass over the scores counts for [`LANES`] documents at once, every comparison
/// branch-free (AVX2 when the CPU has it).
#[inline(always)]
pub(crate) fn count_ranks(
    scores: &[f64],
    positive: &[u32],
    depth: usize,
    ranked: &mut Vec<(u32, u32)>,
) {
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
pub(crate) fn count_ranks_body(
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
pub(crate) fn count_lanes(s: &[f64], positive: &[u32], ranks: &mut [[u64; LW]], avx2: bool) {
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
pub(crate) fn put_in_rank_order(found: &[(u32, u32)], depth: usize, ranked: &mut Vec<(u32, u32)>) {
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
