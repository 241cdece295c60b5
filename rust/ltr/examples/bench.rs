//! Time the kernel (nDCG@10) on MQ2008-sized random data (470 queries, 46 features),
//! best of 20: `cargo run --release -p cranfield-ltr --example bench [FRACTION OF
//! RELEVANT DOCUMENTS [lognormal]]`. Prints the scoring alone, the ranking of given scores and the
//! fused `evaluate_weights` (scoring and ranking block by block), on 1 and 2 threads.
//! A third argument N: only the fused evaluation on one thread, N times (to time the
//! process's CPU time, e.g. with `perf stat`, on a busy machine).

use cranfield_ltr::{scoring, Kernel, Kind, Spec};
use std::time::Instant;

fn best<F: FnMut()>(mut f: F) -> f64 {
    let mut t = f64::INFINITY;
    for _ in 0..20 {
        let start = Instant::now();
        f();
        t = t.min(start.elapsed().as_secs_f64());
    }
    t * 1e3
}

fn main() {
    let mut state = 12345u64;
    let mut next = move || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let queries: usize = std::env::var("LTR_BENCH_QUERIES").map_or(470, |q| q.parse().unwrap());
    let (p, f) = (200usize, 46usize);
    let mut offsets = vec![0usize];
    // query lengths uniform on 5..35, or (second argument `lognormal`) as
    // benchmarks/ltr.py draws them: log-normal, median 15, sigma 0.6, within 5..121
    let lognormal = std::env::args().nth(2).is_some_and(|a| a == "lognormal");
    for _ in 0..queries {
        let len = if lognormal {
            let z = (-2.0 * next().max(1e-300).ln()).sqrt()
                * (2.0 * std::f64::consts::PI * next()).cos();
            (15.0 * (0.6 * z).exp()).round().clamp(5.0, 121.0) as usize
        } else {
            5 + (next() * 30.0) as usize
        };
        offsets.push(offsets.last().unwrap() + len);
    }
    let n = *offsets.last().unwrap();
    let relevant: f64 = std::env::args().nth(1).map_or(0.25, |a| a.parse().unwrap());
    let labels: Vec<i64> = (0..n).map(|_| i64::from(next() < relevant) * 2).collect();
    let mut ndcg = Spec::new(Kind::Ndcg, Some(10), 1);
    ndcg.gains = labels.iter().map(|&l| l as f64).collect();
    let table: Vec<f64> = (1..=200).map(|r| ((r + 1) as f64).log2()).collect();
    let mut kernel = Kernel::new(offsets, labels, table, vec![ndcg], Vec::new()).unwrap();
    let features: Vec<f64> = (0..n * f).map(|_| next()).collect();
    let weights: Vec<f64> = (0..p * f).map(|_| next() - 0.5).collect();
    kernel.set_features(&features, f).unwrap();
    if let Some(times) = std::env::args().nth(3).map(|a| a.parse::<usize>().unwrap()) {
        let mut out = vec![0.0; p * queries];
        for _ in 0..times {
            kernel.evaluate_weights(&weights, &mut out, 1).unwrap();
        }
        println!("{times} fused evaluations of {p} individuals: sum {}", out.iter().sum::<f64>());
        return;
    }
    let mut scores = vec![0.0; p * n];
    let t = best(|| scoring::scores(&features, &weights, f, &mut scores));
    println!("{n} docs x {f} features, {p} individuals: scoring {t:.2} ms (1 thread)");
    let mut out = vec![0.0; p * queries];
    // one weight vector at a time (Nelder-Mead's use): scoring alone, then fused
    let one = &weights[..f];
    let mut row = vec![0.0; n];
    scoring::scores(&features, one, f, &mut row);
    let mut out1 = vec![0.0; queries];
    let t = best(|| kernel.evaluate(&row, 1, &mut out1, 1).unwrap()) * 1e3;
    let fused = best(|| kernel.evaluate_weights(one, &mut out1, 1).unwrap()) * 1e3;
    let fused2 = best(|| kernel.evaluate_weights(one, &mut out1, 2).unwrap()) * 1e3;
    println!("one vector: ranking {t:.1} us, fused {fused:.1} us (1 thread), {fused2:.1} us (2)");
    for threads in [1, 2] {
        let rank = best(|| kernel.evaluate(&scores, p, &mut out, threads).unwrap());
        let fused = best(|| kernel.evaluate_weights(&weights, &mut out, threads).unwrap());
        println!("{threads} threads: ranking {rank:.2} ms, fused {fused:.2} ms");
    }
}
