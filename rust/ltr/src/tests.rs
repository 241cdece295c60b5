//! The crate's unit tests: hand-computed values and the fused paths against the plain ones.

use crate::scoring::LW;
use crate::*;

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
            let kernel = Kernel::new(vec![0, len], labels.clone(), table.clone(), specs, vec![]);
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
    let labels: Vec<i64> =
        (0..n).map(|_| if rng.next() % 4 < share { (rng.next() % 3) as i64 } else { 0 }).collect();
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
            let kernel = Kernel::new(offsets.clone(), labels.clone(), table.clone(), specs, vec![]);
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
        for avx2 in [false, cfg!(target_arch = "x86_64") && std::is_x86_feature_detected!("avx2")] {
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

#[test]
fn a_generation_is_split_evenly_between_threads() {
    use crate::kernel::chunk_size;
    use crate::scoring::LW;
    // mga's generations (48 children, 50 at the start) and shrink steps (46 at 46
    // features) on two threads: one chunk each, of whole groups, the work even
    assert_eq!(chunk_size(48, 2), 24);
    assert_eq!(chunk_size(46, 2), 24);
    assert_eq!(chunk_size(50, 2), 32);
    for p in 1..3000 {
        for threads in 1..9 {
            let per = chunk_size(p, threads);
            assert!(per >= LW && per % LW == 0, "p {p}, threads {threads}");
            let (groups, chunks) = (p.div_ceil(LW), p.div_ceil(per));
            if groups < threads * 8 {
                // a chunk a thread: none holds more groups than an even share
                assert_eq!(per / LW, groups.div_ceil(threads), "p {p}, threads {threads}");
            } else {
                // three or four a thread, taken in turn
                assert!((2 * threads + 1..=4 * threads).contains(&chunks), "p {p}, {threads}");
            }
        }
    }
}
