//! trec_eval's output (`cranfield_eval::trec_eval`), for `cranfield.core.trec_eval`.
//!
//! `trec_eval_print` prints values computed elsewhere (`run_trec_eval`'s path);
//! `trec_eval_judged` computes and prints in one call from the arrays of a judged run
//! (the engine's whole evaluation after judging: the cold path of `cranfield trec_eval`).

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

use cranfield_eval::trec_eval::{evaluate, print, Col, Failure, Kind, Layout, Printed, ZScores};
use cranfield_eval::{Column, JudgedView};
use numpy::PyReadonlyArray1;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};

use crate::measures::{spec, Borrowed};

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
    let kind = Kind::parse(&kind).map_err(PyValueError::new_err)?;
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
        .map_err(PyValueError::new_err)?;
    result(py, printed)
}

/// Compute and print trec_eval's output from the arrays of a judged run (those of
/// `cranfield.core.judged.JudgedRun`); every column's measure must be one the engine
/// computes. `judged_only` is `-J` (the placeholder rankings of the queries `-c` added
/// are then empty); `zscores` as for `trec_eval_print`. Returns `(text, unusable)` as
/// `trec_eval_print`, or None when a measure refuses the run's data (the caller's
/// general path reports it). Raises ValueError for a measure the engine does not
/// compute or inconsistent arrays.
#[pyfunction]
#[pyo3(signature = (columns, offsets, labels, qrels_offsets, qrels_grades, in_run, rel_level, compat, query_ids, run_name, per_query, summary, complete, judged_only, relevant_in_qrels, zscores=None, threads=1))]
#[allow(clippy::too_many_arguments)]
fn trec_eval_judged<'py>(
    py: Python<'py>,
    columns: &Bound<'py, PyList>,
    offsets: PyReadonlyArray1<'py, i64>,
    labels: &Bound<'py, PyAny>,
    qrels_offsets: PyReadonlyArray1<'py, i64>,
    qrels_grades: &Bound<'py, PyAny>,
    in_run: PyReadonlyArray1<'py, bool>,
    rel_level: i64,
    compat: u8,
    query_ids: &Bound<'py, PyList>,
    run_name: Vec<u8>,
    per_query: bool,
    summary: bool,
    complete: bool,
    judged_only: bool,
    relevant_in_qrels: f64,
    zscores: Option<&Bound<'py, PyDict>>,
    threads: usize,
) -> PyResult<Option<Bound<'py, PyTuple>>> {
    let cols: Vec<Col> = columns.iter().map(|c| col(&c)).collect::<PyResult<_>>()?;
    let labels = Borrowed::of(labels, "labels")?;
    let grades = Borrowed::of(qrels_grades, "qrels_grades")?;
    let contiguous = |_| PyValueError::new_err("offset arrays must be contiguous");
    let run = JudgedView {
        offsets: offsets.as_slice().map_err(contiguous)?,
        labels: labels.labels()?,
        qrels_offsets: qrels_offsets.as_slice().map_err(contiguous)?,
        qrels_grades: grades.labels()?,
        in_run: in_run.as_slice().map_err(contiguous)?,
        rel_level,
        compat,
    };
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
        .detach(|| {
            catch_unwind(AssertUnwindSafe(|| evaluate(&run, &cols, &layout, judged_only, threads)))
        })
        .map_err(|_| PyRuntimeError::new_err("internal error: a measure kernel panicked"))?;
    match printed {
        Ok(printed) => result(py, printed).map(Some),
        Err(Failure::Refused(_)) => Ok(None),
        Err(Failure::Invalid(message)) => Err(PyValueError::new_err(message)),
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(trec_eval_print, m)?)?;
    m.add_function(wrap_pyfunction!(trec_eval_judged, m)?)?;
    Ok(())
}
