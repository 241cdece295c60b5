//! Time the SVMlight reader on a file: `cargo run --release -p cranfield-ltr --example read FILE`.
fn main() {
    let path = std::env::args().nth(1).expect("a file");
    let data = std::fs::read(path).expect("readable");
    for threads in [1, 2] {
        let options = cranfield_ltr::svmlight::Options {
            has_qid: true,
            max_feature: cranfield_ltr::svmlight::MAX_INDEX,
            budget: None,
            threads,
            layout: cranfield_ltr::svmlight::Layout::Auto,
        };
        for _ in 0..3 {
            let t = std::time::Instant::now();
            let p = cranfield_ltr::svmlight::parse(&data, options).expect("parsed");
            println!("{threads} threads: {} rows in {:?}", p.labels.len(), t.elapsed());
        }
    }
}
