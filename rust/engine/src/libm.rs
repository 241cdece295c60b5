//! The C library's transcendental functions over float64 arrays, for
//! `cranfield.core.libm`: the engine's kernels call `log`, `log2`, `log1p`, `exp`,
//! `exp2` and `pow` of the platform's libm (Rust's `f64::ln` and friends lower to those
//! calls), so Python code that must agree with them bit for bit calls the same functions
//! here, a whole array at a time, instead of NumPy's (whose SIMD versions differ by CPU).

use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

fn contiguous<'a>(a: &'a PyReadonlyArray1<'_, f64>) -> PyResult<&'a [f64]> {
    a.as_slice().map_err(|_| PyValueError::new_err("arrays must be contiguous"))
}

/// `name(x)` element by element (`name`: log, log2, log1p, exp, exp2), as the C library
/// answers, special values included.
#[pyfunction]
fn libm_unary<'py>(
    py: Python<'py>,
    name: &str,
    x: PyReadonlyArray1<'py, f64>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let f: fn(f64) -> f64 = match name {
        "log" => f64::ln,
        "log2" => f64::log2,
        "log1p" => f64::ln_1p,
        "exp" => f64::exp,
        "exp2" => f64::exp2,
        _ => return Err(PyValueError::new_err(format!("no libm function {name:?}"))),
    };
    let x = contiguous(&x)?;
    let out: Vec<f64> = py.detach(|| x.iter().map(|&v| f(v)).collect());
    Ok(PyArray1::from_vec(py, out))
}

/// `x[i] ^ y[i]` by the C library's `pow` (arrays of one length).
#[pyfunction]
fn libm_pow<'py>(
    py: Python<'py>,
    x: PyReadonlyArray1<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let (x, y) = (contiguous(&x)?, contiguous(&y)?);
    if x.len() != y.len() {
        return Err(PyValueError::new_err("x and y must have one length"));
    }
    let out: Vec<f64> = py.detach(|| x.iter().zip(y).map(|(&a, &b)| a.powf(b)).collect());
    Ok(PyArray1::from_vec(py, out))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(libm_unary, m)?)?;
    m.add_function(wrap_pyfunction!(libm_pow, m)?)
}
