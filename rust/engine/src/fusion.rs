//! The coded rows of runs to fuse (`cranfield_eval::fusion`), for
//! `cranfield.fusion.rows.build`.

use std::panic::{catch_unwind, AssertUnwindSafe};

use cranfield_eval::fusion::{fusion_rows, FusionError};
use cranfield_eval::judge::arrays::Batch;
use cranfield_eval::judge::Input;
use numpy::PyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::errors::internal;
use crate::judge_arrays::{batches, held};

/// The coded rows of `runs` (each a run's record batches as
/// `cranfield.core.io.arrays.engine_batches` gives them, float64 scores):
/// `(query offsets, query data, doc offsets, doc data, cand_query, cand_offsets, run,
/// query, cand, rank, length, score, counts)` — the sorted distinct query ids and the
/// candidates' document ids in Arrow `large_string` layout (int64 offsets, uint8
/// data), the rest int64 arrays (`score` float64; `counts` run-major, one per (run,
/// query)). Raises ValueError for malformed arrays.
#[pyfunction]
fn fusion_rows_arrow<'py>(
    py: Python<'py>,
    runs: Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyTuple>> {
    let runs_held = runs.try_iter()?.map(|run| held(&run?)).collect::<PyResult<Vec<_>>>()?;
    let runs = runs_held.iter().map(|h| batches(h, Input::Run)).collect::<PyResult<Vec<_>>>()?;
    let run_slices: Vec<&[Batch<'_>]> = runs.iter().map(Vec::as_slice).collect();
    let work = || fusion_rows(&run_slices);
    let rows = match py.detach(|| catch_unwind(AssertUnwindSafe(work))) {
        Ok(Ok(rows)) => rows,
        Ok(Err(FusionError::Malformed)) => {
            return Err(PyValueError::new_err("malformed string or score arrays"))
        }
        Ok(Err(FusionError::NotScores)) => {
            return Err(PyValueError::new_err("a run's scores must be float64"))
        }
        Ok(Err(FusionError::TooLarge)) => {
            return Err(PyValueError::new_err("more than 2^32 - 1 rows to fuse"))
        }
        Err(_) => return Err(internal("a panic in fusion_rows_arrow")),
    };
    let items: [Bound<'py, PyAny>; 13] = [
        PyArray1::from_vec(py, rows.query_offsets).into_any(),
        PyArray1::from_vec(py, rows.query_data).into_any(),
        PyArray1::from_vec(py, rows.doc_offsets).into_any(),
        PyArray1::from_vec(py, rows.doc_data).into_any(),
        PyArray1::from_vec(py, rows.cand_query).into_any(),
        PyArray1::from_vec(py, rows.cand_offsets).into_any(),
        PyArray1::from_vec(py, rows.run).into_any(),
        PyArray1::from_vec(py, rows.query).into_any(),
        PyArray1::from_vec(py, rows.cand).into_any(),
        PyArray1::from_vec(py, rows.rank).into_any(),
        PyArray1::from_vec(py, rows.length).into_any(),
        PyArray1::from_vec(py, rows.score).into_any(),
        PyArray1::from_vec(py, rows.counts).into_any(),
    ];
    PyTuple::new(py, items)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(fusion_rows_arrow, m)?)?;
    Ok(())
}
