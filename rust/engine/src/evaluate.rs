//! `cranfield eval`'s whole evaluation of TREC files in one call: the qrels read once,
//! each run read, judged and measured (several runs at once, one per core:
//! `cranfield_eval::runs`; at most one run per core in memory at a time), for the
//! command line's engine path (`cranfield/cli/eval_cmd.py`), which needs neither NumPy
//! nor PyArrow.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use cranfield_eval::judge::stream::{
    judge_run_streamed, read_qrels_from, PIECE_BYTES, WHOLE_BYTES,
};
use cranfield_eval::judge::{threads_for, topics, Input, JudgeError as Failed, Prepared, Reading};
use cranfield_eval::measures::kernel;
use cranfield_eval::micro::micro_all;
use cranfield_eval::runs::{in_order, parallel, text_size};
use cranfield_eval::views::{compute_seen, has_relevant};
use cranfield_eval::{Column, EvalError, Kernel, Spec};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use crate::errors::{self, internal, judge_error, no_query, no_relevant, run_error};
use crate::judge::{judging, reading};
use crate::measures::spec;
use crate::progress::{counter, ReadCounter};

/// One run's result: its name (TREC tag), its query ids and one column per measure.
struct Evaluated {
    name: String,
    query_ids: Vec<String>,
    columns: Vec<Column>,
    /// With `skip_no_relevant`: whether each query has a relevant document.
    relevant: Option<Vec<bool>>,
    /// With `micro`: the micro average of each spec.
    micro: Option<Vec<f64>>,
}

enum Failure {
    Judge(Failed),
    /// A problem in the run of this index (reading or judging it).
    InRun(usize, Failed),
    /// A measure refusing a run's data, or a spec without a micro average here.
    Eval(EvalError),
    /// A run (named) shares no query with the qrels.
    NoQuery(String),
    /// No query of a run (named) has a relevant document, and such queries are skipped.
    NoRelevant(String),
}

/// With `skip`: whether each query has a relevant document, or the failure when none
/// has one (Python's `run_result`).
fn relevant_queries(
    judged: &cranfield_eval::judge::Judged,
    skip: bool,
    latin1: bool,
) -> Result<Option<Vec<bool>>, Failure> {
    if !skip {
        return Ok(None);
    }
    let relevant = has_relevant(&judged.view());
    if !relevant.contains(&true) {
        return Err(Failure::NoRelevant(judged.run_name(latin1)));
    }
    Ok(Some(relevant))
}

/// Evaluate TREC runs against TREC qrels: `(qrels topics, [(run name, query ids,
/// columns, relevant, micro)])`, one column per spec (a list of float, or of str for
/// text families); `relevant` (with `skip_no_relevant`, else None) tells the queries
/// with a relevant document; `micro` (with `micro`, else None) the micro average of
/// each spec (`cranfield_eval::micro`: ValueError for a family without one). `judged_only_specs[i]`: spec `i` sees the judged-only view.
///
/// `specs` are `(family, cutoff, params)` as `compute_measures` takes them; `options`
/// the `JudgeOptions` value (None: its defaults; the qrels must hold no repeated
/// pair). Raises
/// `JudgeError` for a problem in an input or an input the engine does not read (see
/// its doc; with a fifth argument, the index of the run it is in), 'no_query' or
/// 'no_relevant' (detail: the run's name) when a run has nothing to evaluate;
/// `InputError`/`MeasureError` when a measure refuses the data; ValueError for a bad
/// spec or option.
#[pyfunction]
#[pyo3(signature = (qrels_path, run_paths, specs, *, options=None, latin1=false,
    fractional=false, max_line=1 << 26, max_bytes=None, judged_only_specs=Vec::new(),
    skip_no_relevant=false, micro=false, fractional_refusals=Vec::new(),
    piece_bytes=PIECE_BYTES, whole_bytes=WHOLE_BYTES, regroup_bytes=None, progress=None))]
#[allow(clippy::too_many_arguments)]
fn evaluate_trec_files<'py>(
    py: Python<'py>,
    qrels_path: PathBuf,
    run_paths: Vec<PathBuf>,
    specs: &Bound<'py, PyList>,
    options: Option<&Bound<'py, PyAny>>,
    latin1: bool,
    fractional: bool,
    max_line: usize,
    max_bytes: Option<u64>,
    judged_only_specs: Vec<bool>,
    skip_no_relevant: bool,
    micro: bool,
    fractional_refusals: Vec<Option<String>>,
    piece_bytes: usize,
    whole_bytes: u64,
    regroup_bytes: Option<u64>,
    progress: Option<&Bound<'py, ReadCounter>>,
) -> PyResult<Bound<'py, PyTuple>> {
    let specs: Vec<Spec> = specs.iter().map(|s| spec(&s)).collect::<PyResult<_>>()?;
    for s in &specs {
        kernel(s).map_err(|e| errors::eval_error(py, e))?;
    }
    let options = judging(options)?;
    let reading = Reading {
        piece_bytes,
        whole_bytes,
        regroup_bytes: regroup_bytes.unwrap_or(u64::MAX),
        progress: counter(progress),
        ..reading(latin1, fractional, max_line, max_bytes)
    };
    let work = || -> Result<(usize, Vec<Evaluated>), Failure> {
        options.check().map_err(Failure::Judge)?;
        // (a regular file, a named pipe or standard input)
        let qrels = read_qrels_from(&qrels_path, &reading).map_err(Failure::Judge)?;
        // the qrels judged once for every run
        let qrels_threads = threads_for(&qrels, &qrels, reading.threads);
        let prepared = Prepared::new(&qrels, options.qrels_duplicates, qrels_threads);
        // the runs in parallel (`runs::in_order`: in input order, the first failing run's
        // error); each worker with its kernels, each run's own work on `inner` threads
        let make = || -> Vec<Box<dyn Kernel>> {
            specs.iter().filter_map(|s| kernel(s).ok()).collect() // each made once above
        };
        let sizes = run_paths.iter().map(|p| text_size(p));
        let (n, threads) = (run_paths.len(), reading.threads);
        let out = in_order(n, threads, parallel(sizes), make, |kernels, index, inner| {
            let (path, reading) =
                (&run_paths[index], Reading { threads: inner, ..reading.clone() });
            let judged = judge_run_streamed(path, &qrels, &prepared, &reading, &options)
                .map_err(|e| in_run(index, e))?;
            if judged.num_queries() == 0 {
                return Err(Failure::NoQuery(judged.run_name(latin1)));
            }
            let relevant = relevant_queries(&judged, skip_no_relevant, latin1)?;
            let columns = compute_seen(
                &judged.view(),
                kernels,
                &judged_only_specs,
                &fractional_refusals,
                reading.threads,
            )
            .map_err(|r| Failure::Eval(r.into()))?;
            let micro = micro
                .then(|| micro_all(&judged.view(), &specs, &judged_only_specs))
                .transpose()
                .map_err(Failure::Eval)?;
            let query_ids = (0..judged.num_queries())
                .map(|q| String::from_utf8_lossy(judged.query_id(q)).into_owned())
                .collect();
            let name = judged.run_name(latin1);
            Ok(Evaluated { name, query_ids, columns, relevant, micro })
        })?;
        Ok((topics(&qrels), out))
    };
    let (topics, runs) = match py.detach(|| catch_unwind(AssertUnwindSafe(work))) {
        Ok(Ok(done)) => done,
        Ok(Err(Failure::Judge(failure))) => return Err(judge_error(py, failure)),
        Ok(Err(Failure::InRun(index, failure))) => return Err(run_error(py, failure, index)),
        Ok(Err(Failure::Eval(error))) => return Err(errors::eval_error(py, error)),
        Ok(Err(Failure::NoQuery(name))) => return Err(no_query(name)),
        Ok(Err(Failure::NoRelevant(name))) => return Err(no_relevant(name)),
        Err(_) => {
            return Err(internal("a panic"));
        }
    };
    let results = PyList::empty(py);
    for run in runs {
        let columns = PyList::empty(py);
        for column in run.columns {
            match column {
                Column::Numbers(v) => columns.append(PyList::new(py, v)?)?,
                Column::Texts(v) => columns.append(PyList::new(py, v)?)?,
            }
        }
        results.append((run.name, run.query_ids, columns, run.relevant, run.micro))?;
    }
    (topics, results).into_pyobject(py)
}

/// A failure in the run of this index; one in the qrels (found judging the run) as is.
fn in_run(index: usize, failure: Failed) -> Failure {
    match failure {
        Failed::Duplicate { input: Input::Qrels, .. }
        | Failed::Empty(Input::Qrels)
        | Failed::WrongKind(Input::Qrels)
        | Failed::Options(_) => Failure::Judge(failure),
        _ => Failure::InRun(index, failure),
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(evaluate_trec_files, m)?)?;
    Ok(())
}
