//! The least time of many judgings of one run against qrels (a loaded machine's noise
//! left out): `cargo run --release -p cranfield-eval --example time_judge_min -- RUN
//! QRELS [REPEATS]`.
use std::time::Instant;

use cranfield_eval::judge::{judge_with, JudgeOptions};
use cranfield_trec::{read, Kind, Options};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (run_path, qrels_path) = match args.as_slice() {
        [run, qrels, ..] => (run, qrels),
        _ => panic!("usage: time_judge_min RUN QRELS [REPEATS]"),
    };
    let repeats: usize = args.get(2).map_or(50, |r| r.parse().expect("a number"));
    let reading = Options { kind: Kind::Run, latin1: false, max_line: 1 << 26, threads: 1 };
    let open = |p: &str| std::fs::File::open(p).expect("readable");
    let run = read(open(run_path), &reading).expect("a run");
    let qrels = read(open(qrels_path), &Options { kind: Kind::Qrels, ..reading }).expect("qrels");
    let options = JudgeOptions::default();
    for threads in [1, 2] {
        let mut best = f64::INFINITY;
        for _ in 0..repeats {
            let start = Instant::now();
            let judged = judge_with(&run, &qrels, &options, threads).expect("judged");
            best = best.min(start.elapsed().as_secs_f64());
            std::hint::black_box(judged);
        }
        println!("{threads} thread(s): judge {:.2} ms (least of {repeats})", best * 1e3);
    }
}
