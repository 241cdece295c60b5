//! Time the judging of a TREC run against qrels, apart from the reading:
//! `cargo run --release -p cranfield-eval --example time_judge -- RUN QRELS`.
use std::path::Path;
use std::time::Instant;

use cranfield_eval::judge::stream::judge_files_streamed;
use cranfield_eval::judge::{judge_with, JudgeOptions, Reading};
use cranfield_trec::{read, Kind, Options};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (run_path, qrels_path) = match args.as_slice() {
        [run, qrels, ..] => (run, qrels),
        _ => panic!("usage: time_judge RUN QRELS"),
    };
    let options = JudgeOptions::default();
    for threads in [1, 2] {
        let reading = Options { kind: Kind::Run, latin1: false, max_line: 1 << 26, threads };
        let open = |p: &str| std::fs::File::open(p).expect("readable");
        let start = Instant::now();
        let run = read(open(run_path), &reading).expect("a run");
        let read_time = start.elapsed().as_secs_f64();
        let qrels =
            read(open(qrels_path), &Options { kind: Kind::Qrels, ..reading }).expect("qrels");
        let start = Instant::now();
        let judged = judge_with(&run, &qrels, &options, threads).expect("judged");
        let judge_time = start.elapsed().as_secs_f64();
        let start = Instant::now();
        let files = Reading { threads, ..Reading::default() };
        judge_files_streamed(Path::new(run_path), Path::new(qrels_path), &files, &options)
            .expect("judged");
        println!(
            "{threads} thread(s): read run {read_time:.3} s, judge {judge_time:.3} s, \
             judge_files_streamed {:.3} s; {} queries, {} ranked",
            start.elapsed().as_secs_f64(),
            judged.num_queries(),
            judged.labels.len()
        );
    }
}
