//! The C/W/L table of `cranfield cwl` (`cranfield_eval::measures::cwl`), for
//! `cranfield.core.measures.cwl_table`.

use std::panic::{catch_unwind, AssertUnwindSafe};

use cranfield_eval::measures::cwl::{table, Bounds, Model};
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::measures::spec;

/// EU, ETU, EC, ETC, ED and their residuals (ten numbers; the last five 0 without
/// `residuals`) for each ranking between consecutive `offsets` and each model of `specs`
/// (`(family, None, params)` of the C/W/L families), ranking by ranking, as a float64
/// array. `gains` and `costs` are NaN where unknown. A model refusing a ranking's gains
/// raises ValueError("ranking R: model M: why").
#[pyfunction]
#[pyo3(signature = (specs, offsets, gains, costs, max_depth, min_gain, max_gain, min_cost, max_cost, residuals))]
#[allow(clippy::too_many_arguments)]
fn cwl_table<'py>(
    py: Python<'py>,
    specs: &Bound<'py, PyList>,
    offsets: PyReadonlyArray1<'py, i64>,
    gains: PyReadonlyArray1<'py, f64>,
    costs: PyReadonlyArray1<'py, f64>,
    max_depth: usize,
    min_gain: f64,
    max_gain: f64,
    min_cost: f64,
    max_cost: f64,
    residuals: bool,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let models: Vec<Model> = specs
        .iter()
        .map(|s| Model::of(&spec(&s)?).map_err(|e| PyValueError::new_err(e.to_string())))
        .collect::<PyResult<_>>()?;
    let contiguous = |_| PyValueError::new_err("arrays must be contiguous");
    let (offsets, gains, costs) = (
        offsets.as_slice().map_err(contiguous)?,
        gains.as_slice().map_err(contiguous)?,
        costs.as_slice().map_err(contiguous)?,
    );
    let n = gains.len();
    if costs.len() != n
        || offsets.first().copied().unwrap_or(0) != 0
        || offsets.windows(2).any(|w| w[0] > w[1])
        || offsets.last().copied().unwrap_or(0) as usize != n
    {
        return Err(PyValueError::new_err("offsets must partition the gains and costs"));
    }
    let bounds = Bounds { depth: max_depth, min_gain, max_gain, min_cost, max_cost };
    let out = py
        .detach(|| {
            catch_unwind(AssertUnwindSafe(|| {
                table(&models, offsets, gains, costs, &bounds, residuals)
            }))
        })
        .map_err(|_| PyRuntimeError::new_err("internal error: the C/W/L table panicked"))?
        .map_err(|(r, m, why)| PyValueError::new_err(format!("ranking {r}: model {m}: {why}")))?;
    Ok(PyArray1::from_vec(py, out))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(cwl_table, m)?)
}
