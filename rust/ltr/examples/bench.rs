//! Time the kernel (nDCG@10) on MQ2008-sized random data, best of 20:
//! `cargo run --release --example bench [FRACTION OF RELEVANT DOCUMENTS]`.

use cranfield_ltr::{Kernel, Kind, Spec};
use std::time::Instant;

fn main() {
    let mut state = 12345u64;
    let mut next = move || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let (queries, p) = (470usize, 200usize);
    let mut offsets = vec![0usize];
    for _ in 0..queries {
        let len = 5 + (next() * 30.0) as usize;
        offsets.push(offsets.last().unwrap() + len);
    }
    let n = *offsets.last().unwrap();
    let relevant: f64 = std::env::args().nth(1).map_or(0.25, |a| a.parse().unwrap());
    let labels: Vec<i64> = (0..n).map(|_| i64::from(next() < relevant) * 2).collect();
    let mut ndcg = Spec::new(Kind::Ndcg, Some(10), 1);
    ndcg.gains = labels.iter().map(|&l| l as f64).collect();
    let table: Vec<f64> = (1..=200).map(|r| ((r + 1) as f64).log2()).collect();
    let kernel = Kernel::new(offsets, labels, table, vec![ndcg], Vec::new()).unwrap();
    let scores: Vec<f64> = (0..p * n).map(|_| next()).collect();
    let mut out = vec![0.0; p * queries];
    for threads in [1, 2] {
        let mut t = f64::INFINITY;
        for _ in 0..20 {
            let start = Instant::now();
            kernel.evaluate(&scores, p, &mut out, threads).unwrap();
            t = t.min(start.elapsed().as_secs_f64());
        }
        println!("{n} docs, {p} individuals, {threads} threads: {:.2} ms", t * 1e3);
    }
}
