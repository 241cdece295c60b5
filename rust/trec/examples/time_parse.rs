//! Time the parser on a file: `cargo run --release --example time_parse -- FILE [run|qrels]`.
use cranfield_trec::{parse, Kind, Options};
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("a file");
    let kind = if args.next().as_deref() == Some("qrels") { Kind::Qrels } else { Kind::Run };
    let data = std::fs::read(&path).expect("readable");
    for threads in [1, 2] {
        let options = Options { kind, latin1: false, max_line: 1 << 26, threads };
        let start = Instant::now();
        let parsed = parse(&data, &options).expect("parses");
        println!(
            "{threads} thread(s): {:.3} s, {} rows",
            start.elapsed().as_secs_f64(),
            parsed.rows
        );
    }
}
