//! Time `cranfield trec_eval`'s engine path in its parts (read + judge, the kernels,
//! the printing), the best of `REPEAT` runs each:
//! `cargo run --release -p cranfield-eval --example time_trec_eval -- COLUMNS QRELS RUN [REPEAT]`.
//!
//! COLUMNS: one printed column a line, tab-separated: printed name, kind (as the Python
//! registry names it), blank, reset, recount (0/1), and the measure as
//! `family|cutoff|name=value;...` (`-` for none), each value typed by its first letter:
//! `n` None, `b0`/`b1`, `i<int>`, `r<real>`, `s<text>`, `l<real>,...`, `g<grade>:<gain>,...`.
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use cranfield_eval::judge::stream::judge_files_streamed;
use cranfield_eval::judge::{JudgeOptions, Reading};
use cranfield_eval::trec_eval::{Col, Kind, Layout};
use cranfield_eval::{measures, Cutoff, Kernel, Param, Spec};

fn value(text: &str) -> Param {
    let (tag, rest) = text.split_at(1);
    match tag {
        "n" => Param::None,
        "b" => Param::Bool(rest == "1"),
        "i" => Param::Int(rest.parse().expect("an integer")),
        "r" => Param::Real(rest.parse().expect("a real")),
        "s" => Param::Text(rest.into()),
        "l" => Param::Reals(rest.split(',').map(|x| x.parse().expect("a real")).collect()),
        "g" => Param::Gains(
            rest.split(',')
                .filter(|p| !p.is_empty())
                .map(|p| {
                    let (g, v) = p.split_once(':').expect("grade:gain");
                    (g.parse().expect("a grade"), v.parse().expect("a gain"))
                })
                .collect(),
        ),
        other => panic!("unknown value tag {other}"),
    }
}

fn spec(text: &str) -> Option<Spec> {
    if text == "-" {
        return None;
    }
    let mut parts = text.split('|');
    let family = parts.next().expect("a family").to_string();
    let cutoff = match value(parts.next().expect("a cutoff")) {
        Param::None => None,
        Param::Int(k) => Some(Cutoff::Rank(k)),
        Param::Real(x) => Some(Cutoff::Real(x)),
        other => panic!("bad cutoff {other:?}"),
    };
    let params: BTreeMap<String, Param> = parts
        .next()
        .unwrap_or("")
        .split(';')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').expect("name=value");
            (k.to_string(), value(v))
        })
        .collect();
    Some(Spec { family, cutoff, params })
}

fn col(line: &str) -> Col {
    let f: Vec<&str> = line.split('\t').collect();
    Col {
        printed: f[0].into(),
        kind: Kind::parse(f[1]).expect("a kind"),
        blank: f[2] == "1",
        reset: f[3] == "1",
        recount: f[4] == "1",
        spec: spec(f[5]),
    }
}

fn best<T>(repeat: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut out = None;
    let mut best = f64::INFINITY;
    for _ in 0..repeat {
        let start = Instant::now();
        out = Some(f());
        best = best.min(start.elapsed().as_secs_f64());
    }
    (best, out.expect("one run"))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [cols_path, qrels, run, rest @ ..] = args.as_slice() else {
        panic!("usage: time_trec_eval COLUMNS QRELS RUN [REPEAT]")
    };
    let repeat: usize = rest.first().map_or(3, |r| r.parse().expect("a number"));
    let text = std::fs::read_to_string(cols_path).expect("readable columns");
    let cols: Vec<Col> = text.lines().filter(|l| !l.is_empty()).map(col).collect();
    let reading = Reading::default();
    let options = JudgeOptions { complete: true, ..JudgeOptions::default() };
    let (judge_time, judged) = best(repeat, || {
        judge_files_streamed(Path::new(run), Path::new(qrels), &reading, &options).expect("judged")
    });
    let run_view = judged.view();
    let mut kernels: Vec<Box<dyn Kernel>> = cols
        .iter()
        .filter_map(|c| c.spec.as_ref())
        .map(|s| measures::kernel(s).expect("a kernel"))
        .collect();
    let (compute_time, _) = best(repeat, || {
        measures::compute(&run_view, &mut kernels, reading.threads).expect("computed")
    });
    if std::env::var_os("PER_KERNEL").is_some() {
        // one kernel at a time, one thread: the cost of each
        let mut costs: Vec<(f64, String)> = Vec::new();
        for c in cols.iter().filter(|c| c.spec.is_some()) {
            let mut one = vec![measures::kernel(c.spec.as_ref().unwrap()).expect("a kernel")];
            let (t, _) = best(repeat, || measures::compute(&run_view, &mut one, 1).expect("ok"));
            costs.push((t, c.printed.clone()));
        }
        let total: f64 = costs.iter().map(|c| c.0).sum();
        costs.sort_by(|a, b| b.0.total_cmp(&a.0));
        println!("kernels one at a time, 1 thread: {total:.3} s in all");
        for (t, name) in &costs {
            println!("  {name:<24} {:.1} ms", t * 1e3);
        }
    }
    let ids: Vec<&[u8]> = (0..judged.num_queries()).map(|q| judged.query_id(q)).collect();
    let layout = Layout {
        query_ids: &ids,
        run_name: &judged.run_tag,
        per_query: false,
        summary: true,
        complete: false,
        relevant_in_qrels: 0.0,
        zscores: None,
    };
    let (evaluate_time, printed) = best(repeat, || {
        cranfield_eval::trec_eval::evaluate(&run_view, &cols, &layout, false, reading.threads)
            .expect("printed")
    });
    println!(
        "{} threads: read+judge {judge_time:.3} s, compute {compute_time:.3} s, \
         evaluate (placeholder+compute+print) {evaluate_time:.3} s; {} queries, {} ranked, \
         {} bytes printed",
        reading.threads,
        judged.num_queries(),
        run_view.labels.len(),
        printed.text.len()
    );
}
