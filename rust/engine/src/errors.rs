//! The engine's typed errors as Python exceptions, in one place: an
//! [`EvalError`] of the measure kernels, micro averages and trec_eval's printer. (A
//! problem in an input while judging is `JudgeError`, made by `judge::raise`.)

use cranfield_eval::{EvalError, Refusal};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// The exception of `error`: a spec the engine does not compute or arrays that do not
/// fit are `ValueError` (the caller's general path then reports the spec); a measure
/// refusing the data is the exception its NumPy kernel raises
/// (`cranfield.errors.InputError` or `MeasureError`), with the same message.
pub(crate) fn raise(py: Python<'_>, error: EvalError) -> PyErr {
    let class = match &error {
        EvalError::Spec(_) | EvalError::Shape(_) => {
            return PyValueError::new_err(error.to_string())
        }
        EvalError::Refused(Refusal::Input(_)) => "InputError",
        EvalError::Refused(Refusal::Measure(_)) => "MeasureError",
    };
    let message = error.to_string();
    match py.import("cranfield.errors").and_then(|m| m.getattr(class)?.call1((message.as_str(),))) {
        Ok(error) => PyErr::from_value(error),
        Err(_) => PyValueError::new_err(message),
    }
}
