//! The measure kernels of `cranfield-eval`, for `cranfield.core.measures.engine`.

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

use cranfield_eval::aggregate::{aggregate as aggregated, How};
use cranfield_eval::measures::{compute, families, kernel};
use cranfield_eval::{Column, Cutoff, JudgedView, Kernel, Labels, Param, Spec};
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use crate::errors;

/// Labels or grades: an int8, int64 or float64 NumPy array, borrowed.
enum Borrowed<'py> {
    I8(PyReadonlyArray1<'py, i8>),
    I64(PyReadonlyArray1<'py, i64>),
    F64(PyReadonlyArray1<'py, f64>),
}

impl<'py> Borrowed<'py> {
    fn of(array: &Bound<'py, PyAny>, what: &str) -> PyResult<Self> {
        if let Ok(a) = array.extract::<PyReadonlyArray1<i8>>() {
            return Ok(Borrowed::I8(a));
        }
        if let Ok(a) = array.extract::<PyReadonlyArray1<i64>>() {
            return Ok(Borrowed::I64(a));
        }
        if let Ok(a) = array.extract::<PyReadonlyArray1<f64>>() {
            return Ok(Borrowed::F64(a));
        }
        Err(PyValueError::new_err(format!("{what} must be a 1-D int8, int64 or float64 array")))
    }

    fn labels(&self) -> PyResult<Labels<'_>> {
        let contiguous = || PyValueError::new_err("label arrays must be contiguous");
        Ok(match self {
            Borrowed::I8(a) => Labels::I8(a.as_slice().map_err(|_| contiguous())?),
            Borrowed::I64(a) => Labels::I64(a.as_slice().map_err(|_| contiguous())?),
            Borrowed::F64(a) => Labels::F64(a.as_slice().map_err(|_| contiguous())?),
        })
    }
}

fn param(value: &Bound<'_, PyAny>, family: &str, name: &str) -> PyResult<Param> {
    if value.is_none() {
        return Ok(Param::None);
    }
    if let Ok(b) = value.cast::<pyo3::types::PyBool>() {
        return Ok(Param::Bool(b.is_true()));
    }
    if let Ok(v) = value.extract::<i64>() {
        return Ok(Param::Int(v));
    }
    if let Ok(v) = value.extract::<f64>() {
        return Ok(Param::Real(v));
    }
    if let Ok(v) = value.extract::<String>() {
        return Ok(Param::Text(v));
    }
    if let Ok(v) = value.extract::<Vec<(i64, f64)>>() {
        return Ok(Param::Gains(v));
    }
    if let Ok(v) = value.extract::<Vec<f64>>() {
        return Ok(Param::Reals(v));
    }
    Err(PyValueError::new_err(format!("{family}: unsupported value for parameter {name}")))
}

/// `(family, cutoff, params)` -> Spec.
pub(crate) fn spec(item: &Bound<'_, PyAny>) -> PyResult<Spec> {
    let (family, cutoff, params): (String, Bound<'_, PyAny>, Bound<'_, PyDict>) = item.extract()?;
    let cutoff = if cutoff.is_none() {
        None
    } else if let Ok(k) = cutoff.extract::<i64>() {
        Some(Cutoff::Rank(k))
    } else {
        Some(Cutoff::Real(cutoff.extract::<f64>()?))
    };
    let mut values = BTreeMap::new();
    for (k, v) in params.iter() {
        let name: String = k.extract()?;
        let value = param(&v, &family, &name)?;
        values.insert(name, value);
    }
    Ok(Spec { family, cutoff, params: values })
}

/// The names of the measure families the engine computes.
#[pyfunction]
fn measure_families() -> Vec<&'static str> {
    families()
}

/// The names of the formulas of micro averages the engine computes (the values of
/// the declarations' `micro=`).
#[pyfunction]
fn micro_formulas() -> Vec<&'static str> {
    cranfield_eval::micro::micro_formulas()
}

/// Micro averages on a judged run (the arrays of `JudgedRun`, as `compute_measures`
/// takes them): spec `i` by the formula named `formulas[i]` (its declaration's
/// `micro=`). Raises ValueError for an unknown formula or family, a bad parameter or
/// inconsistent arrays.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn micro_averages<'py>(
    py: Python<'py>,
    specs: &Bound<'py, PyList>,
    formulas: Vec<String>,
    offsets: PyReadonlyArray1<'py, i64>,
    labels: &Bound<'py, PyAny>,
    qrels_offsets: PyReadonlyArray1<'py, i64>,
    qrels_grades: &Bound<'py, PyAny>,
    in_run: PyReadonlyArray1<'py, bool>,
    rel_level: i64,
    compat: u8,
) -> PyResult<Vec<f64>> {
    let specs: Vec<Spec> = specs.iter().map(|s| spec(&s)).collect::<PyResult<_>>()?;
    let labels = Borrowed::of(labels, "labels")?;
    let grades = Borrowed::of(qrels_grades, "qrels_grades")?;
    let run = view(&offsets, &labels, &qrels_offsets, &grades, &in_run, rel_level, compat)?;
    run.check().map_err(|e| errors::eval_error(py, e))?;
    cranfield_eval::micro::micro_all(&run, &specs, &formulas, &[])
        .map_err(|e| errors::eval_error(py, e))
}

/// Compute measures on a judged run (the arrays of `JudgedRun`).
///
/// `specs` is a list of `(family, cutoff, params)`; returns one column per spec: a
/// float64 array, or a list of str for text families. Raises ValueError for an unknown
/// family, a bad parameter or inconsistent arrays.
#[pyfunction]
#[pyo3(signature = (specs, offsets, labels, qrels_offsets, qrels_grades, in_run, rel_level, compat, threads=1))]
#[allow(clippy::too_many_arguments)]
fn compute_measures<'py>(
    py: Python<'py>,
    specs: &Bound<'py, PyList>,
    offsets: PyReadonlyArray1<'py, i64>,
    labels: &Bound<'py, PyAny>,
    qrels_offsets: PyReadonlyArray1<'py, i64>,
    qrels_grades: &Bound<'py, PyAny>,
    in_run: PyReadonlyArray1<'py, bool>,
    rel_level: i64,
    compat: u8,
    threads: usize,
) -> PyResult<Bound<'py, PyList>> {
    let specs: Vec<Spec> = specs.iter().map(|s| spec(&s)).collect::<PyResult<_>>()?;
    let mut kernels: Vec<Box<dyn Kernel>> = specs
        .iter()
        .map(kernel)
        .collect::<Result<_, _>>()
        .map_err(|e| errors::eval_error(py, e))?;
    let labels = Borrowed::of(labels, "labels")?;
    let grades = Borrowed::of(qrels_grades, "qrels_grades")?;
    let run = view(&offsets, &labels, &qrels_offsets, &grades, &in_run, rel_level, compat)?;
    run.check().map_err(|e| errors::eval_error(py, e))?;
    let columns = py
        .detach(|| catch_unwind(AssertUnwindSafe(|| compute(&run, &mut kernels, threads))))
        .map_err(|_| PyRuntimeError::new_err("internal error: a measure kernel panicked"))?
        .map_err(|r| errors::eval_error(py, r.into()))?;
    let out = PyList::empty(py);
    for column in columns {
        match column {
            Column::Numbers(v) => out.append(PyArray1::from_vec(py, v))?,
            Column::Texts(v) => out.append(PyTuple::new(py, v)?)?,
        }
    }
    Ok(out)
}

/// The judged run of the arrays of a `JudgedRun` (not yet checked).
fn view<'a>(
    offsets: &'a PyReadonlyArray1<'_, i64>,
    labels: &'a Borrowed<'_>,
    qrels_offsets: &'a PyReadonlyArray1<'_, i64>,
    grades: &'a Borrowed<'_>,
    in_run: &'a PyReadonlyArray1<'_, bool>,
    rel_level: i64,
    compat: u8,
) -> PyResult<JudgedView<'a>> {
    let contiguous = |_| PyValueError::new_err("offset arrays must be contiguous");
    Ok(JudgedView {
        offsets: offsets.as_slice().map_err(contiguous)?,
        labels: labels.labels()?,
        qrels_offsets: qrels_offsets.as_slice().map_err(contiguous)?,
        qrels_grades: grades.labels()?,
        in_run: in_run.as_slice().map_err(contiguous)?,
        rel_level,
        compat,
    })
}

/// The aggregate of per-query values (`cranfield.core.results.aggregate`): `how` is
/// "mean", "sum" or "gmean"; `values` a float64 array or a sequence of floats.
#[pyfunction]
#[pyo3(signature = (values, how, num_queries=None))]
fn aggregate(values: &Bound<'_, PyAny>, how: &str, num_queries: Option<usize>) -> PyResult<f64> {
    let how = How::parse(how).ok_or_else(|| {
        PyValueError::new_err(format!("how must be 'mean', 'sum' or 'gmean', got {how:?}"))
    })?;
    // a list is no array, and looking for one would import NumPy (0.1 s) into the
    // command line's engine path, which hands lists of floats
    if !values.is_instance_of::<PyList>() {
        if let Ok(array) = values.extract::<PyReadonlyArray1<f64>>() {
            if let Ok(slice) = array.as_slice() {
                return Ok(aggregated(slice, how, num_queries));
            }
        }
    }
    let values: Vec<f64> = values.extract()?;
    Ok(aggregated(&values, how, num_queries))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(aggregate, m)?)?;
    m.add_function(wrap_pyfunction!(measure_families, m)?)?;
    m.add_function(wrap_pyfunction!(micro_formulas, m)?)?;
    m.add_function(wrap_pyfunction!(micro_averages, m)?)?;
    m.add_function(wrap_pyfunction!(compute_measures, m)?)?;
    Ok(())
}
