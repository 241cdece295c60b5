//! The whole evaluation of runs in one call: judged, measured and averaged in the
//! engine, for `cranfield eval` and `cranfield.evaluate`. Two entries share one core
//! ([`measured`]: no query, the queries with a relevant document, the measures, the
//! micro averages): `evaluate_trec_files` reads TREC files (the qrels once, the runs
//! several at once, one per core: `cranfield_eval::runs`; at most one run per core in
//! memory at a time; for the command line's engine path, `cranfield/core/files.py`,
//! which needs neither NumPy nor PyArrow), and `evaluate_arrow` takes runs as Arrow
//! columns (`Run` objects, and runs of any other format read by `cranfield.core.io`);
//! both judge against qrels indexed once, read from a file or a `QrelsIndex` (a
//! `Qrels` object's, kept by it across calls).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use cranfield_eval::judge::arrays::{judge_batches_runs, Batch};
use cranfield_eval::judge::stream::{
    judge_run_streamed, read_qrels_from, PIECE_BYTES, WHOLE_BYTES,
};
use cranfield_eval::judge::{
    threads_for, topics, Duplicates, Input, JudgeError as Failed, JudgeOptions, Judged, Prepared,
    Reading,
};
use cranfield_eval::measures::kernel;
use cranfield_eval::micro::micro_all;
use cranfield_eval::runs::{in_order, parallel, text_size};
use cranfield_eval::views::{compute_seen, has_relevant};
use cranfield_eval::{Column, EvalError, Kernel, Spec};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use crate::errors::{self, internal, judge_error, no_query, no_relevant, run_error};
use crate::judge::{judging, reading};
use crate::judge_arrays::{arrow_judging, batches, held, QrelsIndex};
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

/// What is measured on each judged run, and how.
struct Measuring {
    specs: Vec<Spec>,
    /// Spec `i` sees the judged-only view.
    judged_only: Vec<bool>,
    /// Spec `i`'s refusal of fractional gains, if it refuses them.
    fractional_refusals: Vec<Option<String>>,
    skip_no_relevant: bool,
    /// With micro averages: each spec's formula (its declaration's `micro=`).
    micro: Option<Vec<String>>,
}

impl Measuring {
    /// The entries' arguments, the specs' kernels checked (ValueError, or the
    /// measure's own error, when one cannot be made).
    fn new(
        py: Python<'_>,
        specs: &Bound<'_, PyList>,
        judged_only: Vec<bool>,
        fractional_refusals: Vec<Option<String>>,
        skip_no_relevant: bool,
        micro: Option<Vec<String>>,
    ) -> PyResult<Measuring> {
        let specs: Vec<Spec> = specs.iter().map(|s| spec(&s)).collect::<PyResult<_>>()?;
        for s in &specs {
            kernel(s).map_err(|e| errors::eval_error(py, e))?;
        }
        Ok(Measuring { specs, judged_only, fractional_refusals, skip_no_relevant, micro })
    }

    /// Each spec's kernel, made once per worker (each was made once in
    /// [`Measuring::new`]).
    fn kernels(&self) -> Vec<Box<dyn Kernel>> {
        self.specs.iter().filter_map(|s| kernel(s).ok()).collect()
    }
}

/// The core of both entries: a judged run named `name` measured (its per-query
/// values, with `skip_no_relevant` the queries with a relevant document, with `micro`
/// the micro averages), or its failure: no query (`NoQuery`), no query with a
/// relevant document when such queries are skipped (`NoRelevant`), a measure
/// refusing its data (`Eval`).
fn measured(
    judged: &Judged,
    name: String,
    kernels: &mut Vec<Box<dyn Kernel>>,
    how: &Measuring,
    threads: usize,
) -> Result<Evaluated, Failure> {
    if judged.num_queries() == 0 {
        return Err(Failure::NoQuery(name));
    }
    let view = judged.view();
    let relevant = if how.skip_no_relevant {
        let relevant = has_relevant(&view);
        if !relevant.contains(&true) {
            return Err(Failure::NoRelevant(name));
        }
        Some(relevant)
    } else {
        None
    };
    let columns = compute_seen(&view, kernels, &how.judged_only, &how.fractional_refusals, threads)
        .map_err(|r| Failure::Eval(r.into()))?;
    let micro = how
        .micro
        .as_ref()
        .map(|formulas| micro_all(&view, &how.specs, formulas, &how.judged_only))
        .transpose()
        .map_err(Failure::Eval)?;
    let query_ids = (0..judged.num_queries())
        .map(|q| String::from_utf8_lossy(judged.query_id(q)).into_owned())
        .collect();
    Ok(Evaluated { name, query_ids, columns, relevant, micro })
}

/// The Python result of either entry: `(qrels topics, [(run name, query ids, columns,
/// relevant, micro)])`, or the exception of its failure.
fn finish<'py>(
    py: Python<'py>,
    done: std::thread::Result<Result<(usize, Vec<Evaluated>), Failure>>,
) -> PyResult<Bound<'py, PyTuple>> {
    let (topics, runs) = match done {
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

/// Evaluate TREC runs against qrels (a TREC file, or a `QrelsIndex`): `(qrels topics, [(run
/// name, query ids, columns, relevant, micro)], truncated)`, one column per spec (a list of
/// float, or of str for text families); `relevant` (with `skip_no_relevant`, else None)
/// tells the queries with a relevant document; `micro` (with `micro`, the name of each
/// spec's formula, its declaration's `micro=`; else None) the micro average of each spec
/// (`cranfield_eval::micro`: ValueError for an unknown formula); `truncated` (qrels read
/// from a file with integer grades, else None) the line and text of the first grade with a
/// non-zero fractional part, which is read truncated toward zero (as trec_eval's `atol`),
/// found while parsing. `judged_only_specs[i]`: spec `i` sees the judged-only view.
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
#[pyo3(signature = (qrels, run_paths, specs, *, options=None, latin1=false,
    fractional=false, max_line=1 << 26, max_bytes=None, judged_only_specs=Vec::new(),
    skip_no_relevant=false, micro=None, fractional_refusals=Vec::new(),
    piece_bytes=PIECE_BYTES, whole_bytes=WHOLE_BYTES, regroup_bytes=None, progress=None))]
#[allow(clippy::too_many_arguments)]
fn evaluate_trec_files<'py>(
    py: Python<'py>,
    qrels: &Bound<'py, PyAny>,
    run_paths: Vec<PathBuf>,
    specs: &Bound<'py, PyList>,
    options: Option<&Bound<'py, PyAny>>,
    latin1: bool,
    fractional: bool,
    max_line: usize,
    max_bytes: Option<u64>,
    judged_only_specs: Vec<bool>,
    skip_no_relevant: bool,
    micro: Option<Vec<String>>,
    fractional_refusals: Vec<Option<String>>,
    piece_bytes: usize,
    whole_bytes: u64,
    regroup_bytes: Option<u64>,
    progress: Option<&Bound<'py, ReadCounter>>,
) -> PyResult<Bound<'py, PyTuple>> {
    let how =
        Measuring::new(py, specs, judged_only_specs, fractional_refusals, skip_no_relevant, micro)?;
    // the qrels: indexed already (a `Qrels` object's: no repeated pair), or a file
    let index = qrels.cast::<QrelsIndex>().ok().map(|i| &i.get().index);
    // (the index's qrels hold no repeated pair; the run files' policy is the options')
    let (options, qrels_path) = match index {
        Some(_) => (
            JudgeOptions { qrels_duplicates: Duplicates::First, ..judging(options)? },
            PathBuf::from("<qrels>"),
        ),
        None => (judging(options)?, qrels.extract::<PathBuf>()?),
    };
    let reading = Reading {
        piece_bytes,
        whole_bytes,
        regroup_bytes: regroup_bytes.unwrap_or(u64::MAX),
        progress: counter(progress),
        ..reading(latin1, fractional, max_line, max_bytes)
    };
    // the qrels' first fractional grade read as an integer (its line, the grade)
    let mut truncated: Option<(u64, Vec<u8>)> = None;
    let mut work = || -> Result<(usize, Vec<Evaluated>), Failure> {
        options.check().map_err(Failure::Judge)?;
        let read = match index {
            Some(_) => None,
            // (a regular file, a named pipe or standard input)
            None => Some(read_qrels_from(&qrels_path, &reading).map_err(Failure::Judge)?),
        };
        truncated = read.as_ref().and_then(|q| q.fractional.clone());
        // the qrels judged once for every run
        let judged_once = read.as_ref().map(|qrels| {
            let qrels_threads = threads_for(qrels, qrels, reading.threads);
            Prepared::new(qrels, options.qrels_duplicates, qrels_threads)
        });
        let (qrels, prepared) = match (index, &read, &judged_once) {
            (Some(index), ..) => {
                index.parts().ok_or(Failure::Judge(Failed::Empty(Input::Qrels)))?
            }
            (None, Some(qrels), Some(prepared)) => (qrels, prepared),
            _ => unreachable!("qrels read when not indexed"),
        };
        // the runs in parallel (`runs::in_order`: in input order, the first failing run's
        // error); each worker with its kernels, each run's own work on `inner` threads
        let sizes = run_paths.iter().map(|p| text_size(p));
        let (n, threads) = (run_paths.len(), reading.threads);
        let make = || how.kernels();
        let out = in_order(n, threads, parallel(sizes), make, |kernels, index, inner| {
            let (path, reading) =
                (&run_paths[index], Reading { threads: inner, ..reading.clone() });
            let judged = judge_run_streamed(path, qrels, prepared, &reading, &options)
                .map_err(|e| in_run(index, e))?;
            measured(&judged, judged.run_name(latin1), kernels, &how, reading.threads)
        })?;
        Ok((topics(qrels), out))
    };
    let done = finish(py, py.detach(|| catch_unwind(AssertUnwindSafe(&mut work))))?;
    let truncated =
        truncated.map(|(line, grade)| (line, String::from_utf8_lossy(&grade).into_owned()));
    (done.get_item(0)?, done.get_item(1)?, truncated).into_pyobject(py)
}

/// Evaluate runs given as Arrow columns against indexed qrels (`QrelsIndex`), as
/// `evaluate_trec_files` evaluates files: the same result, each run's name "" (the
/// caller knows it). `runs` is a list of each run's record batches, as
/// `judge_arrow_runs` takes them (no repeated (query, document) pair: their readers
/// applied the duplicates policy); the other arguments as `evaluate_trec_files`'.
/// Raises `JudgeError` (with a fifth argument, the index of the run, when there are
/// several), 'no_query' or 'no_relevant' (detail: "" for the run's name),
/// `InputError`/`MeasureError` when a measure refuses the data, ValueError for a bad
/// spec, option or array.
#[pyfunction]
#[pyo3(signature = (qrels, runs, specs, *, options=None, judged_only_specs=Vec::new(),
    skip_no_relevant=false, micro=None, fractional_refusals=Vec::new()))]
#[allow(clippy::too_many_arguments)]
fn evaluate_arrow<'py>(
    py: Python<'py>,
    qrels: &Bound<'py, QrelsIndex>,
    runs: Bound<'py, PyAny>,
    specs: &Bound<'py, PyList>,
    options: Option<&Bound<'py, PyAny>>,
    judged_only_specs: Vec<bool>,
    skip_no_relevant: bool,
    micro: Option<Vec<String>>,
    fractional_refusals: Vec<Option<String>>,
) -> PyResult<Bound<'py, PyTuple>> {
    let how =
        Measuring::new(py, specs, judged_only_specs, fractional_refusals, skip_no_relevant, micro)?;
    let options = arrow_judging(options)?;
    let runs_held = runs.try_iter()?.map(|run| held(&run?)).collect::<PyResult<Vec<_>>>()?;
    let runs = runs_held.iter().map(|h| batches(h, Input::Run)).collect::<PyResult<Vec<_>>>()?;
    let index = &qrels.get().index;
    let threads = Reading::default().threads;
    let work = || -> Result<(usize, Vec<Evaluated>), Failure> {
        options.check().map_err(Failure::Judge)?;
        // several runs at once when each is small (as files: about 40 bytes a line)
        let sizes = runs.iter().map(|r| Some(40 * rows(r) as u64));
        let out = in_order(
            runs.len(),
            threads,
            parallel(sizes),
            || how.kernels(),
            |kernels, i, inner| {
                let run: &[Batch<'_>] = &runs[i];
                let judged = judge_batches_runs(&[run], index, &options, inner, false);
                let (judged, _) =
                    judged
                        .map_err(|(_, e)| {
                            if runs.len() > 1 {
                                Failure::InRun(i, e)
                            } else {
                                Failure::Judge(e)
                            }
                        })?
                        .pop()
                        .ok_or_else(|| Failure::Eval(EvalError::Shape("no judged run".into())))?;
                // (threads for the kernels only when the run is large: a thread costs more
                // than the measures of a small run, the common case in a loop of calls)
                let threads = if rows(run) >= MEASURE_THREADS_FROM { inner } else { 1 };
                measured(&judged, String::new(), kernels, &how, threads)
            },
        )?;
        Ok((index.topics(), out))
    };
    finish(py, py.detach(|| catch_unwind(AssertUnwindSafe(work))))
}

/// Runs of at least this many rows have their measures computed on several threads
/// (as `cranfield.core.measures.engine.threads_for` decides for a judged run).
const MEASURE_THREADS_FROM: usize = 1_000_000;

/// The rows of a run's batches.
fn rows(batches: &[Batch<'_>]) -> usize {
    batches.iter().map(|b| b.values.len()).sum()
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
    m.add_function(wrap_pyfunction!(evaluate_arrow, m)?)?;
    Ok(())
}
