//! `cranfield eval`'s whole evaluation of TREC files in one call: the qrels read once,
//! each run read, judged and measured (several runs at once, one per core:
//! `cranfield_eval::runs`; at most one run per core in memory at a time), for the
//! command line's engine path (`cranfield/cli/eval_cmd.py`), which needs neither NumPy
//! nor PyArrow.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use cranfield_eval::judge::{
    judge_prepared, read_file, threads_for, topics, Duplicates, Input, JudgeError as Failed,
    JudgeOptions, Prepared, Reading,
};
use cranfield_eval::measures::{compute, kernel};
use cranfield_eval::runs::{in_order, parallel, text_size};
use cranfield_eval::{Column, Kernel, Refusal, Spec};
use cranfield_trec::Kind;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use crate::judge::{policy, raise, reading, JudgeError};
use crate::measures::spec;

/// One run's result: its name (TREC tag), its query ids and one column per measure.
struct Evaluated {
    name: String,
    query_ids: Vec<String>,
    columns: Vec<Column>,
}

enum Failure {
    Judge(Failed),
    Refused(Refusal),
}

/// Evaluate TREC runs against TREC qrels: `(qrels topics, [(run name, query ids,
/// columns)])`, one column per spec (a list of float, or of str for text families).
///
/// `specs` are `(family, cutoff, params)` as `compute_measures` takes them. Raises
/// `JudgeError` for anything the engine does not read or judge (the caller then takes
/// the general path, which reports the problem), `what` being 'refused' when a measure
/// refuses the data; ValueError for a bad spec or option.
#[pyfunction]
#[pyo3(signature = (qrels_path, run_paths, specs, *, latin1=false, fractional=false,
    rel_level=1, depth=None, judged_only=false, complete=false, compat=10,
    duplicates="error", max_line=1 << 26, max_bytes=None))]
#[allow(clippy::too_many_arguments)]
fn evaluate_trec_files<'py>(
    py: Python<'py>,
    qrels_path: PathBuf,
    run_paths: Vec<PathBuf>,
    specs: &Bound<'py, PyList>,
    latin1: bool,
    fractional: bool,
    rel_level: i64,
    depth: Option<u64>,
    judged_only: bool,
    complete: bool,
    compat: u8,
    duplicates: &str,
    max_line: usize,
    max_bytes: Option<u64>,
) -> PyResult<Bound<'py, PyTuple>> {
    let specs: Vec<Spec> = specs.iter().map(|s| spec(&s)).collect::<PyResult<_>>()?;
    for s in &specs {
        kernel(s).map_err(PyValueError::new_err)?;
    }
    let options = JudgeOptions {
        rel_level,
        depth,
        judged_only,
        complete,
        compat,
        duplicates: policy(duplicates, "duplicates")?,
        qrels_duplicates: Duplicates::Error,
    };
    let reading = reading(latin1, fractional, max_line, max_bytes);
    let work = || -> Result<(usize, Vec<Evaluated>), Failure> {
        options.check().map_err(Failure::Judge)?;
        let kind = if fractional { Kind::FractionalQrels } else { Kind::Qrels };
        let qrels = read_file(&qrels_path, Input::Qrels, kind, &reading).map_err(Failure::Judge)?;
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
            let run = read_file(path, Input::Run, Kind::Run, &reading).map_err(Failure::Judge)?;
            let threads = threads_for(&run, &qrels, reading.threads);
            let judged =
                judge_prepared(&run, &prepared, &options, threads).map_err(Failure::Judge)?;
            drop(run);
            let columns =
                compute(&judged.view(), kernels, reading.threads).map_err(Failure::Refused)?;
            let query_ids = (0..judged.num_queries())
                .map(|q| String::from_utf8_lossy(judged.query_id(q)).into_owned())
                .collect();
            Ok(Evaluated { name: judged.run_name(latin1), query_ids, columns })
        })?;
        Ok((topics(&qrels), out))
    };
    let (topics, runs) = match py.detach(|| catch_unwind(AssertUnwindSafe(work))) {
        Ok(Ok(done)) => done,
        Ok(Err(Failure::Judge(failure))) => return Err(raise(py, failure)),
        Ok(Err(Failure::Refused(refusal))) => {
            let message = match refusal {
                Refusal::Input(m) | Refusal::Measure(m) => m,
            };
            return Err(JudgeError::new_err(("refused", py.None(), py.None(), message)));
        }
        Err(_) => {
            return Err(JudgeError::new_err(("internal", py.None(), py.None(), "a panic")));
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
        results.append((run.name, run.query_ids, columns))?;
    }
    (topics, results).into_pyobject(py)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(evaluate_trec_files, m)?)?;
    Ok(())
}
