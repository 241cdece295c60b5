//! The one scoring function of cranfield's linear rankers: `s = w · x`.
//!
//! Every score is the same chain of fused multiply-adds, feature by feature:
//! `acc = 0; acc = fma(w[k], x[k], acc) for k = 0..F; s = acc + 0.0` (the `+ 0.0` makes
//! `-0.0` into `0.0`, which TREC text cannot tell apart). A score is thus a function of
//! the two vectors alone -- not of the batch, the document's position, the thread or
//! the instruction set -- so the objective, the written runs and `ltr eval` see the
//! same numbers, and the same ties.
//!
//! Documents are stored in panels of [`NR`] (8) documents, feature-major
//! (`panel[k * NR + lane]`), so that a microkernel keeps a tile of individuals x
//! documents in registers: with AVX2 and FMA (detected at run time) 6 individuals x 8
//! documents, 12 accumulators of 4 lanes each, every lane its own sequential chain;
//! otherwise the same chains with `f64::mul_add` (slower, the same results).
//!
//! For batches, [`Lanes`] turns the roles around: the weights of [`LW`] (8) individuals
//! are stored feature-major (`group[k * LW + lane]`), and a microkernel broadcasts one
//! feature of a document (read from the same panels) into the lanes of 8 or 16
//! individuals, each lane an individual's chain, so that the scores come out
//! document-major, 8 individuals side by side -- the layout in which the objective ranks
//! 8 individuals at once. The chains are the same, so are the scores.

/// Documents per panel.
pub const NR: usize = 8;
/// Individuals per tile of the main microkernel.
pub const MR: usize = 6;

/// Features of `n` documents in panels (zero padding after the last document).
#[derive(Clone, Debug)]
pub struct Panels {
    n: usize,
    f: usize,
    data: Vec<f64>,
}

impl Panels {
    /// Panels of `features` (`n x f`, row-major).
    pub fn new(features: &[f64], f: usize) -> Panels {
        let n = features.len().checked_div(f).unwrap_or(0);
        let count = n.div_ceil(NR);
        let mut data = vec![0.0; count * NR * f];
        for (d, x) in features.chunks_exact(f.max(1)).enumerate().take(n) {
            let (p, lane) = (d / NR, d % NR);
            let panel = &mut data[p * NR * f..(p + 1) * NR * f];
            for (k, &v) in x.iter().enumerate() {
                panel[k * NR + lane] = v;
            }
        }
        Panels { n, f, data }
    }

    pub fn num_docs(&self) -> usize {
        self.n
    }

    pub fn num_features(&self) -> usize {
        self.f
    }

    pub fn num_panels(&self) -> usize {
        self.n.div_ceil(NR)
    }

    /// Scores of panels `first..first + count` for the individuals `weights` (`m x F`,
    /// row-major): `out[i * stride + j]` for the `j`-th document of those panels
    /// (`stride >= count * NR`; padding documents score 0).
    pub fn score(
        &self,
        weights: &[f64],
        first: usize,
        count: usize,
        out: &mut [f64],
        stride: usize,
    ) {
        let f = self.f;
        let m = weights.len().checked_div(f).unwrap_or(0);
        assert!(first + count <= self.num_panels() && stride >= count * NR);
        assert!(out.len() >= m.saturating_sub(1) * stride + count * NR || m == 0);
        if f == 0 {
            for i in 0..m {
                out[i * stride..i * stride + count * NR].fill(0.0);
            }
            return;
        }
        let panels = &self.data[first * NR * f..(first + count) * NR * f];
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
                // SAFETY: the CPU has AVX2 and FMA (just checked)
                unsafe { x86::score(panels, f, weights, m, count, out, stride) };
                return;
            }
        }
        portable(panels, f, weights, m, count, out, stride);
    }
}

/// Individuals per group of [`Lanes`] (two AVX2 registers).
pub const LW: usize = 8;

/// Weights of individuals in groups of [`LW`], feature-major within a group
/// (`group[k * LW + lane]`; zero padding after the last individual).
#[derive(Clone, Debug)]
pub struct Lanes {
    f: usize,
    groups: usize,
    data: Vec<f64>,
}

impl Lanes {
    /// Groups of `weights` (`m x f`, row-major).
    pub fn new(weights: &[f64], f: usize) -> Lanes {
        let m = weights.len().checked_div(f).unwrap_or(0);
        let groups = m.div_ceil(LW);
        let mut data = vec![0.0; groups * LW * f];
        for (i, w) in weights.chunks_exact(f.max(1)).enumerate().take(m) {
            let (g, lane) = (i / LW, i % LW);
            let group = &mut data[g * LW * f..(g + 1) * LW * f];
            for (k, &v) in w.iter().enumerate() {
                group[k * LW + lane] = v;
            }
        }
        Lanes { f, groups, data }
    }

    pub fn num_groups(&self) -> usize {
        self.groups
    }

    /// Scores of group `g` on the documents `a..b` of `panels`: `out[j * LW + lane]`
    /// for document `a + j` (`out.len() >= (b - a) * LW`).
    pub fn score(&self, g: usize, panels: &Panels, (a, b): (usize, usize), out: &mut [f64]) {
        let f = self.f;
        assert!(g < self.groups && f > 0 && f == panels.f && a <= b && b <= panels.n);
        assert!(out.len() >= (b - a) * LW);
        let group = &self.data[g * LW * f..(g + 1) * LW * f];
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
                // SAFETY: the CPU has AVX2 and FMA (just checked); documents a..b exist
                unsafe { x86::score_lanes(group, f, &panels.data, (a, b), out) };
                return;
            }
        }
        portable_lanes(group, f, &panels.data, (a, b), out);
    }

    /// [`Lanes::score`] of groups `g` and `g + 1` at once (`out` for the first, `next`
    /// for the second): with AVX2, 2 documents x 16 individuals in registers, half the
    /// broadcasts per multiply-add of one group at a time.
    pub fn score_two(
        &self,
        g: usize,
        panels: &Panels,
        (a, b): (usize, usize),
        out: &mut [f64],
        next: &mut [f64],
    ) {
        let f = self.f;
        assert!(g + 1 < self.groups && f > 0 && f == panels.f && a <= b && b <= panels.n);
        assert!(out.len() >= (b - a) * LW && next.len() >= (b - a) * LW);
        let (first, second) = self.data[g * LW * f..(g + 2) * LW * f].split_at(LW * f);
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
                // SAFETY: the CPU has AVX2 and FMA (just checked); documents a..b exist
                unsafe { x86::score_two(first, second, f, &panels.data, (a, b), out, next) };
                return;
            }
        }
        portable_lanes(first, f, &panels.data, (a, b), out);
        portable_lanes(second, f, &panels.data, (a, b), next);
    }
}

/// Where document `d`'s first feature is in panels of `f` features (the next feature
/// is [`NR`] further on).
#[inline(always)]
fn doc_at(d: usize, f: usize) -> usize {
    d / NR * NR * f + d % NR
}

/// Scores `W X^T` (`p x n`, row-major) of weights `W` (`p x F`) on features `X`
/// (`n x F`), by [`Panels`] of a few thousand documents at a time (so the copy in
/// panels stays small whatever `n`).
pub fn scores(features: &[f64], weights: &[f64], f: usize, out: &mut [f64]) {
    const CHUNK: usize = 4096; // documents, a multiple of NR
    if f == 0 {
        out.fill(0.0);
        return;
    }
    let n = features.len() / f;
    debug_assert_eq!(out.len(), weights.len() / f * n);
    let mut buf = Vec::new();
    for start in (0..n).step_by(CHUNK) {
        let end = (start + CHUNK).min(n);
        let panels = Panels::new(&features[start * f..end * f], f);
        let count = panels.num_panels();
        let stride = count * NR;
        buf.resize(MR * stride, 0.0);
        for (g, w) in weights.chunks(MR * f).enumerate() {
            panels.score(w, 0, count, &mut buf, stride);
            for r in 0..w.len() / f {
                let i = g * MR + r;
                out[i * n + start..i * n + end]
                    .copy_from_slice(&buf[r * stride..r * stride + end - start]);
            }
        }
    }
}

/// Scores `W X^T` (`p x n`, row-major) of weights `W` (`p x F`) on compressed sparse
/// rows `X`: row `r` lists `values[k]` at features `indices[k]` for `k` in
/// `indptr[r]..indptr[r + 1]`, in increasing feature order.
///
/// The chain is the dense one with the features not listed left out: a left-out term
/// is `fma(w, 0, acc)`, which is `acc` itself (or turns a `-0.0` into `0.0`, which the
/// final `+ 0.0` does anyway) when `w` is finite, so the scores are bit for bit those
/// of [`scores`] on the dense matrix. Time and memory are proportional to the values
/// listed (times `p`), not to `n x F`.
pub fn scores_csr(
    indptr: &[i64],
    indices: &[i32],
    values: &[f64],
    weights: &[f64],
    f: usize,
    out: &mut [f64],
) {
    let n = indptr.len().saturating_sub(1);
    if f == 0 {
        out.fill(0.0);
        return;
    }
    let p = weights.len() / f;
    assert!(out.len() == p * n && indices.len() == values.len());
    for (i, w) in weights.chunks_exact(f).enumerate() {
        let row_out = &mut out[i * n..(i + 1) * n];
        for (r, s) in row_out.iter_mut().enumerate() {
            let (a, b) = (indptr[r] as usize, indptr[r + 1] as usize);
            let mut acc = 0.0f64;
            for (&k, &v) in indices[a..b].iter().zip(&values[a..b]) {
                acc = w[k as usize].mul_add(v, acc);
            }
            *s = acc + 0.0;
        }
    }
}

/// The chains with `f64::mul_add`, individual by individual, panel by panel.
fn portable(
    panels: &[f64],
    f: usize,
    weights: &[f64],
    m: usize,
    count: usize,
    out: &mut [f64],
    stride: usize,
) {
    for i in 0..m {
        let w = &weights[i * f..(i + 1) * f];
        for p in 0..count {
            let panel = &panels[p * NR * f..(p + 1) * NR * f];
            let mut acc = [0.0f64; NR];
            for (k, &wk) in w.iter().enumerate() {
                let x = &panel[k * NR..(k + 1) * NR];
                for l in 0..NR {
                    acc[l] = wk.mul_add(x[l], acc[l]);
                }
            }
            for l in 0..NR {
                out[i * stride + p * NR + l] = acc[l] + 0.0;
            }
        }
    }
}

/// [`Lanes::score`] with `f64::mul_add`, document by document.
fn portable_lanes(group: &[f64], f: usize, data: &[f64], (a, b): (usize, usize), out: &mut [f64]) {
    for d in a..b {
        let x = &data[doc_at(d, f)..];
        let mut acc = [0.0f64; LW];
        for k in 0..f {
            let (xk, w) = (x[k * NR], &group[k * LW..(k + 1) * LW]);
            for l in 0..LW {
                acc[l] = w[l].mul_add(xk, acc[l]);
            }
        }
        for l in 0..LW {
            out[(d - a) * LW + l] = acc[l] + 0.0;
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{LW, MR, NR};
    use std::arch::x86_64::*;

    /// Tiles of MR individuals x 1 panel, then the remaining individuals one by one
    /// over 4 panels at a time (8 independent chains of 4 lanes each way).
    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn score(
        panels: &[f64],
        f: usize,
        weights: &[f64],
        m: usize,
        count: usize,
        out: &mut [f64],
        stride: usize,
    ) {
        let full = m / MR * MR;
        for g in (0..full).step_by(MR) {
            for p in 0..count {
                tile::<MR, 1>(panels, f, weights, g, p, out, stride);
            }
        }
        for i in full..m {
            let mut p = 0;
            while p + 4 <= count {
                tile::<1, 4>(panels, f, weights, i, p, out, stride);
                p += 4;
            }
            while p < count {
                tile::<1, 1>(panels, f, weights, i, p, out, stride);
                p += 1;
            }
        }
    }

    /// Documents `a..b` of the panels `data` in tiles of 6 (12 accumulators of 4
    /// lanes), the last 1-5 in a tile of their own, each document's feature broadcast
    /// to both registers of the group's weights.
    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn score_lanes(
        group: &[f64],
        f: usize,
        data: &[f64],
        (a, b): (usize, usize),
        out: &mut [f64],
    ) {
        const D: usize = 6;
        let mut j = a;
        while j + D <= b {
            lane_tile::<D>(group, f, data, (a, j), out);
            j += D;
        }
        match b - j {
            1 => lane_tile::<1>(group, f, data, (a, j), out),
            2 => lane_tile::<2>(group, f, data, (a, j), out),
            3 => lane_tile::<3>(group, f, data, (a, j), out),
            4 => lane_tile::<4>(group, f, data, (a, j), out),
            5 => lane_tile::<5>(group, f, data, (a, j), out),
            _ => {}
        }
    }

    /// [`score_lanes`] for two groups: tiles of 2 documents x 16 individuals.
    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn score_two(
        first: &[f64],
        second: &[f64],
        f: usize,
        data: &[f64],
        (a, b): (usize, usize),
        out: &mut [f64],
        next: &mut [f64],
    ) {
        const D: usize = 2;
        let mut j = a;
        while j + D <= b {
            two_tile::<D>((first, second), f, data, (a, j), out, next);
            j += D;
        }
        if j < b {
            two_tile::<1>((first, second), f, data, (a, j), out, next);
        }
    }

    /// Where each of the documents `j0..j0 + D` has its first feature in `data`.
    #[inline(always)]
    unsafe fn doc_pointers<const D: usize>(data: &[f64], f: usize, j0: usize) -> [*const f64; D] {
        debug_assert!(super::doc_at(j0 + D - 1, f) + (f - 1) * NR < data.len());
        std::array::from_fn(|j| data.as_ptr().add(super::doc_at(j0 + j, f)))
    }

    /// Documents `j0..j0 + D` x the two groups' 16 individuals (`a`: the first
    /// document of `out` and `next`).
    #[inline(always)]
    unsafe fn two_tile<const D: usize>(
        (first, second): (&[f64], &[f64]),
        f: usize,
        data: &[f64],
        (a, j0): (usize, usize),
        out: &mut [f64],
        next: &mut [f64],
    ) {
        debug_assert!((j0 + D - a) * LW <= out.len() && (j0 + D - a) * LW <= next.len());
        let mut accs = [[_mm256_setzero_pd(); 4]; D];
        let (ap, bp) = (first.as_ptr(), second.as_ptr());
        let xs = doc_pointers::<D>(data, f, j0);
        for k in 0..f {
            let w = [
                _mm256_loadu_pd(ap.add(k * LW)),
                _mm256_loadu_pd(ap.add(k * LW + 4)),
                _mm256_loadu_pd(bp.add(k * LW)),
                _mm256_loadu_pd(bp.add(k * LW + 4)),
            ];
            for (a, xp) in accs.iter_mut().zip(xs) {
                let x = _mm256_broadcast_sd(&*xp.add(k * NR));
                for v in 0..4 {
                    a[v] = _mm256_fmadd_pd(w[v], x, a[v]);
                }
            }
        }
        let zero = _mm256_setzero_pd();
        for (j, acc) in accs.iter().enumerate() {
            let o = out.as_mut_ptr().add((j0 + j - a) * LW);
            _mm256_storeu_pd(o, _mm256_add_pd(acc[0], zero));
            _mm256_storeu_pd(o.add(4), _mm256_add_pd(acc[1], zero));
            let o = next.as_mut_ptr().add((j0 + j - a) * LW);
            _mm256_storeu_pd(o, _mm256_add_pd(acc[2], zero));
            _mm256_storeu_pd(o.add(4), _mm256_add_pd(acc[3], zero));
        }
    }

    /// Documents `j0..j0 + D` x the group's 8 individuals (`a`: the first document of
    /// `out`).
    #[inline(always)]
    unsafe fn lane_tile<const D: usize>(
        group: &[f64],
        f: usize,
        data: &[f64],
        (a, j0): (usize, usize),
        out: &mut [f64],
    ) {
        debug_assert!((j0 + D - a) * LW <= out.len());
        let mut accs = [[_mm256_setzero_pd(); 2]; D];
        let wp = group.as_ptr();
        let xs = doc_pointers::<D>(data, f, j0);
        for k in 0..f {
            let w0 = _mm256_loadu_pd(wp.add(k * LW));
            let w1 = _mm256_loadu_pd(wp.add(k * LW + 4));
            for (acc, xp) in accs.iter_mut().zip(xs) {
                let x = _mm256_broadcast_sd(&*xp.add(k * NR));
                acc[0] = _mm256_fmadd_pd(w0, x, acc[0]);
                acc[1] = _mm256_fmadd_pd(w1, x, acc[1]);
            }
        }
        let zero = _mm256_setzero_pd();
        for (j, acc) in accs.iter().enumerate() {
            let o = out.as_mut_ptr().add((j0 + j - a) * LW);
            _mm256_storeu_pd(o, _mm256_add_pd(acc[0], zero));
            _mm256_storeu_pd(o.add(4), _mm256_add_pd(acc[1], zero));
        }
    }

    /// Individuals `i0..i0 + R` x panels `p0..p0 + P`.
    #[inline(always)]
    unsafe fn tile<const R: usize, const P: usize>(
        panels: &[f64],
        f: usize,
        weights: &[f64],
        i0: usize,
        p0: usize,
        out: &mut [f64],
        stride: usize,
    ) {
        debug_assert!((i0 + R) * f <= weights.len() && (p0 + P) * NR * f <= panels.len());
        let mut accs: [[[__m256d; 2]; P]; R] = [[[_mm256_setzero_pd(); 2]; P]; R];
        let wp = weights.as_ptr();
        let xp = panels.as_ptr();
        for k in 0..f {
            let mut x = [[_mm256_setzero_pd(); 2]; P];
            for (j, xj) in x.iter_mut().enumerate() {
                let base = xp.add((p0 + j) * NR * f + k * NR);
                xj[0] = _mm256_loadu_pd(base);
                xj[1] = _mm256_loadu_pd(base.add(4));
            }
            for (r, row) in accs.iter_mut().enumerate() {
                let w = _mm256_broadcast_sd(&*wp.add((i0 + r) * f + k));
                for (j, a) in row.iter_mut().enumerate() {
                    a[0] = _mm256_fmadd_pd(w, x[j][0], a[0]);
                    a[1] = _mm256_fmadd_pd(w, x[j][1], a[1]);
                }
            }
        }
        let zero = _mm256_setzero_pd();
        for (r, row) in accs.iter().enumerate() {
            for (j, a) in row.iter().enumerate() {
                let o = out.as_mut_ptr().add((i0 + r) * stride + (p0 + j) * NR);
                _mm256_storeu_pd(o, _mm256_add_pd(a[0], zero));
                _mm256_storeu_pd(o.add(4), _mm256_add_pd(a[1], zero));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Lcg(u64);
    impl Lcg {
        fn unit(&mut self) -> f64 {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (self.0 >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        }
    }

    /// The definition: one sequential chain of fused multiply-adds, then + 0.0.
    fn chain(w: &[f64], x: &[f64]) -> f64 {
        w.iter().zip(x).fold(0.0, |acc, (a, b)| a.mul_add(*b, acc)) + 0.0
    }

    #[test]
    fn sparse_rows_score_as_the_dense_matrix() {
        let mut rng = Lcg(7);
        let (n, f, p) = (37, 29, 5);
        let mut x = vec![0.0; n * f];
        let (mut indptr, mut indices, mut values) = (vec![0i64], Vec::new(), Vec::new());
        for r in 0..n {
            for k in 0..f {
                let u = rng.unit();
                if u > 0.2 {
                    // a few listed zeros, -0.0 among them
                    let v = if u > 0.45 { (u * 1e3).sin() } else { -0.0 };
                    x[r * f + k] = v;
                    indices.push(k as i32);
                    values.push(v);
                }
            }
            indptr.push(indices.len() as i64);
        }
        let w: Vec<f64> = (0..p * f).map(|_| rng.unit() * 10.0).collect();
        let (mut dense, mut sparse) = (vec![1.0; p * n], vec![1.0; p * n]);
        scores(&x, &w, f, &mut dense);
        scores_csr(&indptr, &indices, &values, &w, f, &mut sparse);
        let bits = |v: &[f64]| v.iter().map(|s| s.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&dense), bits(&sparse));
    }

    #[test]
    fn every_path_gives_the_chain_bit_for_bit() {
        let mut rng = Lcg(5);
        for (n, f, p) in [(1, 1, 1), (7, 3, 2), (8, 46, 6), (45, 46, 13), (300, 5, 7), (33, 136, 1)]
        {
            let x: Vec<f64> = (0..n * f).map(|_| rng.unit() * 1e3).collect();
            let w: Vec<f64> = (0..p * f).map(|_| rng.unit()).collect();
            let mut got = vec![f64::NAN; p * n];
            scores(&x, &w, f, &mut got);
            let panels = Panels::new(&x, f);
            let stride = panels.num_panels() * NR;
            let mut slow = vec![0.0; p * stride];
            portable(&panels.data, f, &w, p, panels.num_panels(), &mut slow, stride);
            for i in 0..p {
                for d in 0..n {
                    let want = chain(&w[i * f..(i + 1) * f], &x[d * f..(d + 1) * f]);
                    assert_eq!(got[i * n + d].to_bits(), want.to_bits(), "{n} {f} {p}: {i} {d}");
                    assert_eq!(slow[i * stride + d].to_bits(), want.to_bits());
                }
            }
        }
    }

    #[test]
    fn lanes_give_the_chain_bit_for_bit() {
        let mut rng = Lcg(9);
        for (n, f, p) in [(1, 1, 1), (7, 3, 9), (13, 46, 8), (45, 46, 17), (6, 136, 3), (21, 2, 40)]
        {
            let x: Vec<f64> = (0..n * f).map(|_| rng.unit() * 1e3).collect();
            let w: Vec<f64> = (0..p * f).map(|_| rng.unit()).collect();
            let lanes = Lanes::new(&w, f);
            let panels = Panels::new(&x, f);
            // every range of documents (odd starts, any length)
            for a in 0..n {
                for b in a..=n {
                    let d = b - a;
                    let mut got = vec![f64::NAN; d * LW];
                    let mut slow = got.clone();
                    let mut pair = vec![f64::NAN; 2 * d * LW];
                    for g in 0..lanes.num_groups() {
                        lanes.score(g, &panels, (a, b), &mut got);
                        let group = &lanes.data[g * LW * f..(g + 1) * LW * f];
                        portable_lanes(group, f, &panels.data, (a, b), &mut slow);
                        if g + 1 < lanes.num_groups() {
                            let (one, two) = pair.split_at_mut(d * LW);
                            lanes.score_two(g, &panels, (a, b), one, two);
                            assert_eq!(one, &got[..]);
                        }
                        if g > 0 {
                            let (one, two) = pair.split_at_mut(d * LW);
                            lanes.score_two(g - 1, &panels, (a, b), one, two);
                            assert_eq!(two, &got[..]);
                        }
                        for j in 0..d {
                            for l in 0..LW.min(p - g * LW) {
                                let (i, doc) = (g * LW + l, a + j);
                                let want =
                                    chain(&w[i * f..(i + 1) * f], &x[doc * f..(doc + 1) * f]);
                                assert_eq!(
                                    got[j * LW + l].to_bits(),
                                    want.to_bits(),
                                    "{n} {f} {p}"
                                );
                                assert_eq!(slow[j * LW + l].to_bits(), want.to_bits());
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn negative_zero_becomes_zero() {
        let mut out = [f64::NAN; 2];
        scores(&[1.0, 0.0], &[-0.0], 1, &mut out);
        assert_eq!(out.map(f64::to_bits), [0, 0]);
    }
}
