//! trec_eval's output (`cranfield_eval::trec_eval`), for `cranfield.core.trec_eval`.
//!
//! `trec_eval_print` prints values computed elsewhere (`run_trec_eval`'s path);
//! `trec_eval_files` reads two TREC files, judges, computes and prints in one call (the
//! engine path of `cranfield trec_eval`).

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use cranfield_eval::judge::stream::{
    judge_run_streamed, read_qrels_from, PIECE_BYTES, WHOLE_BYTES,
};
use cranfield_eval::judge::{
    threads_for, JudgeError as JudgeFailure, JudgeOptions, Prepared, Reading,
};
use cranfield_eval::trec_eval::{
    evaluate, latin1_bytes, print, relevant_grades, Col, Kind, Layout, Printed, Subset, ZScores,
};
use cranfield_eval::{Column, EvalError, JudgedView};
use numpy::PyReadonlyArray1;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};

use crate::errors::{self, internal, judge_error, no_query};
use crate::judge::{judging, reading};
use crate::measures::spec;
use crate::progress::{counter, ReadCounter};

/// `(printed, kind, spec or None, blank, reset, recount)` -> Col.
fn col(item: &Bound<'_, PyAny>) -> PyResult<Col> {
    let (printed, kind, measure, blank, reset, recount): (
        String,
        String,
        Bound<'_, PyAny>,
        bool,
        bool,
        bool,
    ) = item.extract()?;
    let kind = Kind::parse(&kind).map_err(|e| errors::eval_error(item.py(), e))?;
    let spec = if measure.is_none() { None } else { Some(spec(&measure)?) };
    Ok(Col { printed, kind, spec, blank, reset, recount })
}

/// `None`, a float64 array, or a sequence of str -> one column of values.
fn column_of(item: &Bound<'_, PyAny>) -> PyResult<Option<Column>> {
    if item.is_none() {
        return Ok(None);
    }
    if let Ok(a) = item.extract::<PyReadonlyArray1<f64>>() {
        return Ok(Some(Column::Numbers(a.as_array().to_vec())));
    }
    Ok(Some(Column::Texts(item.extract::<Vec<String>>()?)))
}

/// `{(query id bytes, printed name): (mean, stddev)}` -> ZScores.
fn zscores(table: &Bound<'_, PyDict>) -> PyResult<ZScores> {
    let mut out = HashMap::with_capacity(table.len());
    for (key, value) in table.iter() {
        let (qid, printed): (Vec<u8>, String) = key.extract()?;
        out.insert((qid, printed), value.extract::<(f64, f64)>()?);
    }
    Ok(out)
}

fn ids(query_ids: &Bound<'_, PyList>) -> PyResult<Vec<Vec<u8>>> {
    query_ids.iter().map(|q| q.extract::<Vec<u8>>()).collect()
}

fn result<'py>(py: Python<'py>, printed: Printed) -> PyResult<Bound<'py, PyTuple>> {
    let notes: Vec<Bound<'py, PyBytes>> =
        printed.unusable.iter().map(|u| PyBytes::new(py, u)).collect();
    (PyBytes::new(py, &printed.text), notes).into_pyobject(py)
}

/// Print trec_eval's output of values computed elsewhere.
///
/// `columns`: `(printed, kind, spec or None, blank, reset, recount)` per printed column;
/// `values`: per column None (runid, num_q), a float64 array or a list of str, one entry
/// per query, computed with the placeholder rankings of the queries `-c` added
/// (`added`); `query_ids` and `run_name` are bytes; `zscores` maps `(query id, printed
/// name)` to `(mean, stddev)`. Returns `(text, unusable)`: the output bytes and the
/// (query, measure) pairs without a usable z-score. Raises ValueError for values that do
/// not fit the columns.
#[pyfunction]
#[pyo3(signature = (columns, values, added, query_ids, run_name, per_query, summary, complete, relevant_in_qrels, zscores=None))]
#[allow(clippy::too_many_arguments)]
fn trec_eval_print<'py>(
    py: Python<'py>,
    columns: &Bound<'py, PyList>,
    values: &Bound<'py, PyList>,
    added: Vec<bool>,
    query_ids: &Bound<'py, PyList>,
    run_name: Vec<u8>,
    per_query: bool,
    summary: bool,
    complete: bool,
    relevant_in_qrels: f64,
    zscores: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyTuple>> {
    let cols: Vec<Col> = columns.iter().map(|c| col(&c)).collect::<PyResult<_>>()?;
    let values: Vec<Option<Column>> =
        values.iter().map(|v| column_of(&v)).collect::<PyResult<_>>()?;
    let ids = ids(query_ids)?;
    let id_slices: Vec<&[u8]> = ids.iter().map(Vec::as_slice).collect();
    let table = zscores.map(self::zscores).transpose()?;
    let layout = Layout {
        query_ids: &id_slices,
        run_name: &run_name,
        per_query,
        summary,
        complete,
        relevant_in_qrels,
        zscores: table.as_ref(),
    };
    let printed = py
        .detach(|| catch_unwind(AssertUnwindSafe(|| print(&cols, values, &added, &layout))))
        .map_err(|_| PyRuntimeError::new_err("internal error: trec_eval's printer panicked"))?
        .map_err(|e| errors::eval_error(py, e))?;
    result(py, printed)
}

/// What `trec_eval_files` found: the output, the qrels topics without results (UTF-8
/// ids, without `-c`) and the (query, measure) pairs without a usable z-score, and
/// the qrels' first grade with a non-zero fractional part (read truncated; its line).
type Done = (Printed, Vec<String>, Option<(u64, Vec<u8>)>);

/// Why `files` stops: an input the engine leaves to Python or a problem in an input
/// (raised as `JudgeError`), no query to evaluate, a measure refusing the data or a bad
/// column.
enum Stop {
    Judge(JudgeFailure),
    NoQuery(String),
    Eval(EvalError),
}

/// Read, judge, compute and print; None when the engine cannot (the caller's general
/// path then runs).
fn files(
    cols: &[Col],
    qrels_path: &Path,
    run_path: &Path,
    options: &JudgeOptions,
    reading: &Reading,
    shape: (bool, bool),
    zscores: Option<&ZScores>,
) -> Result<Option<Done>, Stop> {
    let (per_query, summary) = shape;
    // judged with every qrels topic: the topics without results are those not `in_run`
    let every = JudgeOptions { complete: true, ..options.clone() };
    every.check().map_err(Stop::Judge)?;
    let qrels = read_qrels_from(qrels_path, reading).map_err(Stop::Judge)?;
    let prepared =
        Prepared::new(&qrels, every.qrels_duplicates, threads_for(&qrels, &qrels, reading.threads));
    let judged =
        judge_run_streamed(run_path, &qrels, &prepared, reading, &every).map_err(Stop::Judge)?;
    let all = judged.view();
    let relevant = relevant_grades(all.qrels_grades);
    let subset;
    let (run, queries): (JudgedView, Vec<usize>) = if options.complete {
        (all, (0..all.num_queries()).collect())
    } else {
        subset = Subset::of(&all, |q| all.in_run[q]);
        (subset.view(&all), subset.kept.clone())
    };
    if queries.is_empty() {
        return Err(Stop::NoQuery(judged.run_name(true)));
    }
    let Some(ids) =
        queries.iter().map(|&q| latin1_bytes(judged.query_id(q))).collect::<Option<Vec<_>>>()
    else {
        return Ok(None);
    };
    let missing = if options.complete {
        Vec::new()
    } else {
        (0..all.num_queries())
            .filter(|&q| !all.in_run[q])
            .map(|q| String::from_utf8_lossy(judged.query_id(q)).into_owned())
            .collect()
    };
    let id_slices: Vec<&[u8]> = ids.iter().map(Vec::as_slice).collect();
    let layout = Layout {
        query_ids: &id_slices,
        run_name: &judged.run_tag,
        per_query,
        summary,
        complete: options.complete,
        relevant_in_qrels: relevant,
        zscores,
    };
    let threads = if run.labels.len() >= THREADS_FROM { reading.threads } else { 1 };
    let printed =
        evaluate(&run, cols, &layout, options.judged_only, threads).map_err(Stop::Eval)?;
    Ok(Some((printed, missing, qrels.fractional.clone())))
}

/// Ranked documents from which the kernels run on several threads (as the judge's
/// threads: a 100k-line run's kernels take milliseconds, a thread tens of microseconds).
const THREADS_FROM: usize = 1 << 16;

/// trec_eval on two TREC files in one call: read (ids as Latin-1), judge, compute and
/// print. `columns` and `zscores` as for `trec_eval_print`; `options` the
/// `JudgeOptions` value (-l, -M, -J, -c, 9.x; its duplicates policy 'error');
/// `max_line` the longest line read, `max_bytes` the most a gzip file may decompress to.
///
/// Returns `(text, missing, unusable, truncated)` — the output bytes, the qrels topics
/// without results (without `-c`, for the note), the (query, measure) pairs without a
/// usable z-score and the qrels' first fractional grade read truncated (`(line, grade)`, or
/// None; found as the qrels are parsed) — or None when the engine cannot do it (ids that
/// are not Latin-1). Raises `JudgeError` for a problem in an input, an input it does not
/// read (standard input, not a regular file: 'unsupported') or no query to evaluate
/// ('no_query'); `InputError`/`MeasureError` when a measure refuses the data; ValueError
/// for a measure the engine does not compute.
#[pyfunction]
#[pyo3(signature = (columns, qrels_path, run_path, options, per_query, summary, zscores=None, max_line=1 << 26, max_bytes=None, piece_bytes=PIECE_BYTES, whole_bytes=WHOLE_BYTES, regroup_bytes=None, progress=None))]
#[allow(clippy::too_many_arguments)]
fn trec_eval_files<'py>(
    py: Python<'py>,
    columns: &Bound<'py, PyList>,
    qrels_path: PathBuf,
    run_path: PathBuf,
    options: &Bound<'py, PyAny>,
    per_query: bool,
    summary: bool,
    zscores: Option<&Bound<'py, PyDict>>,
    max_line: usize,
    max_bytes: Option<u64>,
    piece_bytes: usize,
    whole_bytes: u64,
    regroup_bytes: Option<u64>,
    progress: Option<&Bound<'py, ReadCounter>>,
) -> PyResult<Option<Bound<'py, PyTuple>>> {
    let cols: Vec<Col> = columns.iter().map(|c| col(&c)).collect::<PyResult<_>>()?;
    let table = zscores.map(self::zscores).transpose()?;
    let options = judging(Some(options))?;
    let reading = Reading {
        piece_bytes,
        whole_bytes,
        regroup_bytes: regroup_bytes.unwrap_or(u64::MAX),
        progress: counter(progress),
        ..reading(true, false, max_line, max_bytes)
    };
    let shape = (per_query, summary);
    let work = || files(&cols, &qrels_path, &run_path, &options, &reading, shape, table.as_ref());
    let done = py
        .detach(|| catch_unwind(AssertUnwindSafe(work)))
        // a panic (a bug) is an internal JudgeError, as in `evaluate_trec_files`: the
        // caller takes the general path, or reports it in one line for standard input
        .map_err(|_| internal("a panic"))?
        .map_err(|stop| match stop {
            Stop::Judge(failure) => judge_error(py, failure),
            Stop::NoQuery(name) => no_query(name),
            Stop::Eval(error) => errors::eval_error(py, error),
        })?;
    let Some((printed, missing, truncated)) = done else {
        return Ok(None);
    };
    let notes: Vec<Bound<'py, PyBytes>> =
        printed.unusable.iter().map(|u| PyBytes::new(py, u)).collect();
    let truncated =
        truncated.map(|(line, grade)| (line, String::from_utf8_lossy(&grade).into_owned()));
    Ok(Some((PyBytes::new(py, &printed.text), missing, notes, truncated).into_pyobject(py)?))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(trec_eval_print, m)?)?;
    m.add_function(wrap_pyfunction!(trec_eval_files, m)?)?;
    Ok(())
}
