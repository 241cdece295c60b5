//! The engine's typed errors as Python exceptions, in one place: an [`EvalError`] of
//! the measure kernels, micro averages and trec_eval's printer ([`eval_error`]), a
//! failure of the judge ([`judge_error`], the exception `JudgeError`), a reader's
//! [`Problem`] (as `ReadError` and `JudgeError` give it: [`problem`]).

use std::path::PathBuf;

use cranfield_eval::judge::{Input, JudgeError as Failed};
use cranfield_eval::{EvalError, Refusal};
use cranfield_trec::gzip::GzipError;
use cranfield_trec::Problem;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};
use pyo3::IntoPyObjectExt;

create_exception!(
    _engine,
    JudgeError,
    PyException,
    "Judging TREC files failed: args are (what, input, line or None, detail or None); \
     what is 'unsupported' (read the input in Python), 'io' (detail ('os', errno, text), \
     ('gzip', message) or ('too_large', limit)), 'read' (detail (problem, value) as \
     ReadError gives them), 'empty', 'duplicate' (detail (query, doc, first line, second \
     line)), 'no_query' (detail: the run's name), 'wrong_kind', 'options', 'regrouped' \
     (a run read in pieces whose query reappears; detail: the query id and the run's \
     path), 'memory' (detail: the message and the run's path) or 'internal'; input is \
     'run', 'qrels' or None."
);

/// `JudgeError("internal", None, None, detail)`: a panic (a bug) caught.
pub(crate) fn internal(detail: &str) -> PyErr {
    JudgeError::new_err(("internal", None::<String>, None::<u64>, detail.to_string()))
}

/// The exception of `error`: a spec the engine does not compute or arrays that do not
/// fit are `ValueError` (the caller's general path then reports the spec); a measure
/// refusing the data is the exception its NumPy kernel raises
/// (`cranfield.errors.InputError` or `MeasureError`), with the same message.
pub(crate) fn eval_error(py: Python<'_>, error: EvalError) -> PyErr {
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

/// The reader's name of a problem (as `ReadError` gives it) and its detail.
pub(crate) fn problem(py: Python<'_>, problem: &Problem) -> (&'static str, Option<Py<PyAny>>) {
    let bytes = |v: &[u8]| Some(PyBytes::new(py, v).into_any().unbind());
    match problem {
        Problem::Nul => ("nul", None),
        Problem::LongLine => ("long_line", None),
        Problem::Fields(got) => {
            ("fields", got.into_pyobject(py).ok().map(|v| v.into_any().unbind()))
        }
        Problem::Score(value) => ("score", bytes(value)),
        Problem::NanScore => ("nan", None),
        Problem::Grade(value) => ("grade", bytes(value)),
        Problem::Utf8 { column: 0, value } => ("query_id", bytes(value)),
        Problem::Utf8 { value, .. } => ("doc_id", bytes(value)),
        Problem::Empty => ("empty", None),
        Problem::Memory => ("memory", None),
    }
}

/// `JudgeError("no_query", "run", None, name)`: a run and the qrels share no query
/// (nothing to evaluate: the mean over no query is undefined).
pub(crate) fn no_query(name: String) -> PyErr {
    JudgeError::new_err(("no_query", "run", None::<u64>, name))
}

/// `JudgeError("no_relevant", "run", None, name)`: no query of a run has a relevant
/// document, and such queries are skipped.
pub(crate) fn no_relevant(name: String) -> PyErr {
    JudgeError::new_err(("no_relevant", "run", None::<u64>, name))
}

/// [`judge_error`]'s error with a fifth argument: the index of the run (of several) it is in.
pub(crate) fn run_error(py: Python<'_>, failure: Failed, run: usize) -> PyErr {
    let error = judge_error(py, failure);
    let args = error.value(py).getattr("args").and_then(|a| a.extract::<Vec<Py<PyAny>>>());
    match args {
        Ok(mut args) => {
            args.push(any(py, run).unwrap_or_else(|| py.None()));
            JudgeError::new_err(PyTuple::new(py, args).map_or_else(|_| py.None(), |t| t.into()))
        }
        Err(_) => error,
    }
}

/// The `JudgeError` of a failure of the judge (see its doc).
pub(crate) fn judge_error(py: Python<'_>, failure: Failed) -> PyErr {
    let name = |input: Input| Some(input.to_string());
    let text =
        |t: String| Some(t.into_pyobject(py).map_or_else(|_| py.None(), |v| v.into_any().unbind()));
    let (what, input, line, detail): (&str, Option<String>, Option<u64>, Option<Py<PyAny>>) =
        match &failure {
            Failed::Options(message) => ("options", None, None, text(message.to_string())),
            Failed::WrongKind(input) => ("wrong_kind", name(*input), None, None),
            Failed::Empty(input) => ("empty", name(*input), None, None),
            Failed::Duplicate { input, query, doc, lines } => {
                let detail = (PyBytes::new(py, query), PyBytes::new(py, doc), lines.0, lines.1);
                ("duplicate", name(*input), Some(lines.1), any(py, detail))
            }
            Failed::Read { input, error } => {
                let (kind, detail) = problem(py, &error.problem);
                (
                    "read",
                    name(*input),
                    error.line,
                    Some(
                        (kind, detail)
                            .into_pyobject(py)
                            .map_or_else(|_| py.None(), |v| v.into_any().unbind()),
                    ),
                )
            }
            Failed::Io { input, error } => ("io", name(*input), None, io_detail(py, error)),
            Failed::Unsupported { input, reason } => {
                ("unsupported", name(*input), None, text(reason.to_string()))
            }
            // the query (or what lacked memory) and the run's path
            Failed::Regrouped { path, query, line } => {
                let detail = (String::from_utf8_lossy(query), path.clone());
                ("regrouped", name(Input::Run), Some(*line), pair(py, detail))
            }
            Failed::Memory { path, what } => {
                let detail = (format!("not enough memory to {what}"), path.clone());
                ("memory", name(Input::Run), None, pair(py, detail))
            }
        };
    JudgeError::new_err((what, input, line, detail))
}

fn pair(py: Python<'_>, detail: (impl AsRef<str>, PathBuf)) -> Option<Py<PyAny>> {
    let (text, path) = detail;
    any(py, (text.as_ref(), path))
}

fn any<'py>(py: Python<'py>, value: impl IntoPyObject<'py>) -> Option<Py<PyAny>> {
    value.into_py_any(py).ok()
}

/// What went wrong reading a file: `("too_large", limit)` or `("gzip", message)` for a
/// gzip file beyond the budget or corrupt (the messages of `ReadError`), else `("os",
/// errno or None, message)`.
fn io_detail(py: Python<'_>, error: &std::io::Error) -> Option<Py<PyAny>> {
    match GzipError::of(error) {
        Some(GzipError::TooLarge(limit)) => any(py, ("too_large", *limit)),
        Some(gz) => any(py, ("gzip", gz.to_string())),
        None => any(py, ("os", error.raw_os_error(), error.to_string())),
    }
}
