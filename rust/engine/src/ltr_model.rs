//! The weights of a learning-to-rank model file (`cranfield.ltr.model`) written and
//! read in bulk (`cranfield_ltr::model_text`): the text Python's `json` writes for a
//! list of floats, and the numbers it reads from it, for millions of weights.
//! A panic would be a bug and is raised as `RuntimeError`, never unwinding into Python.

use std::panic::{catch_unwind, AssertUnwindSafe};

use cranfield_ltr::model_text;
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyModule};

/// `ltr_weight_lines(weights, per_line, indent, continued)`: the lines of a block of
/// weights (contiguous float64), each `"\n" + indent` and `per_line` weights written as
/// Python's `repr` writes them, joined by `", "`; lines joined by `","`, and one `","`
/// first when `continued`. `ValueError` when a weight is not finite.
#[pyfunction]
fn ltr_weight_lines<'py>(
    py: Python<'py>,
    weights: PyReadonlyArray1<'py, f64>,
    per_line: usize,
    indent: &[u8],
    continued: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    let w = weights.as_slice().map_err(|_| PyValueError::new_err("weights not contiguous"))?;
    let work = || model_text::weight_lines(w, per_line, indent, continued);
    match py.detach(|| catch_unwind(AssertUnwindSafe(work))) {
        Ok(Ok(parts)) => {
            let size = parts.iter().map(Vec::len).sum();
            PyBytes::new_with(py, size, |out: &mut [u8]| {
                let mut at = 0;
                for part in &parts {
                    out[at..at + part.len()].copy_from_slice(part);
                    at += part.len();
                }
                Ok(())
            })
        }
        Ok(Err(i)) => Err(PyValueError::new_err(format!("weight {i} is not a finite number"))),
        Err(_) => Err(PyRuntimeError::new_err("internal error writing the weights")),
    }
}

/// The span of a model file's weights and their numbers (see `ltr_model_weights`).
type Found<'py> = Option<(usize, usize, Bound<'py, PyArray1<f64>>)>;

/// `ltr_model_weights(text)`: `(start, end, weights)`, the byte span of the array of
/// the top-level object's one `"weights"` key and its numbers as Python's `json` reads
/// them (float64), or None when the text has not that form (then `json` reads it all).
#[pyfunction]
fn ltr_model_weights<'py>(py: Python<'py>, text: &[u8]) -> PyResult<Found<'py>> {
    let work = || model_text::find_weights(text);
    match py.detach(|| catch_unwind(AssertUnwindSafe(work))) {
        Ok(found) => Ok(found.map(|(start, end, w)| (start, end, PyArray1::from_vec(py, w)))),
        Err(_) => Err(PyRuntimeError::new_err("internal error reading the weights")),
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(ltr_weight_lines, m)?)?;
    m.add_function(wrap_pyfunction!(ltr_model_weights, m)?)
}
