//! Time the reading of a TREC run, from its file and from memory, with one and two
//! threads (the best of five of each, in ns per line):
//! `cargo run --release -p cranfield-trec --example time_read -- RUN [THREADS...]`.
use std::time::Instant;

use cranfield_trec::{parse, read, Kind, Options};

fn best(mut f: impl FnMut() -> usize) -> (f64, usize) {
    let mut rows = 0;
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        let start = Instant::now();
        rows = f();
        best = best.min(start.elapsed().as_secs_f64());
    }
    (best, rows)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.first().expect("usage: time_read RUN [THREADS...]");
    let threads: Vec<usize> = args[1..].iter().map(|t| t.parse().expect("a number")).collect();
    let text = std::fs::read(path).expect("readable");
    for threads in if threads.is_empty() { vec![1, 2] } else { threads } {
        let options = Options { kind: Kind::Run, latin1: false, max_line: 1 << 26, threads };
        let file = || std::fs::File::open(path).expect("readable");
        let (from_file, rows) = best(|| read(file(), &options).expect("a run").rows);
        let (in_memory, _) = best(|| parse(&text, &options).expect("a run").rows);
        let ns = |s: f64| s * 1e9 / rows as f64;
        println!(
            "{threads} thread(s): read {from_file:.3} s ({:.0} ns/line), parse in memory \
             {in_memory:.3} s ({:.0} ns/line); {rows} rows",
            ns(from_file),
            ns(in_memory)
        );
    }
}
