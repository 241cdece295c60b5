//! The judged-run arrays of TREC files (`cranfield_eval::judge`), for Python.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use cranfield_eval::judge::stream::{judge_streamed, PIECE_BYTES, WHOLE_BYTES};
use cranfield_eval::judge::{
    Duplicates, Input, JudgeError as Failed, JudgeOptions, Judged, Reading,
};
use cranfield_eval::LabelVec;
use cranfield_trec::gzip::GzipError;
use cranfield_trec::Problem;
use numpy::PyArray1;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};
use pyo3::IntoPyObjectExt;

use crate::progress::{counter, ReadCounter};
use crate::MAX_LINE_CAP;

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

/// How the bindings read TREC files: lines capped at [`MAX_LINE_CAP`], gzip within
/// `max_bytes` (no limit when None).
pub(crate) fn reading(
    latin1: bool,
    fractional: bool,
    max_line: usize,
    max_bytes: Option<u64>,
) -> Reading {
    Reading {
        latin1,
        fractional,
        max_line: max_line.min(MAX_LINE_CAP),
        max_bytes: max_bytes.unwrap_or(u64::MAX),
        ..Reading::default()
    }
}

pub(crate) fn policy(name: &str, what: &str) -> PyResult<Duplicates> {
    Duplicates::parse(name).ok_or_else(|| {
        PyValueError::new_err(format!("{what} must be 'error', 'first' or 'max', got {name:?}"))
    })
}

/// The reader's name of a problem (as `ReadError` gives it) and its detail.
fn problem(py: Python<'_>, problem: &Problem) -> (&'static str, Option<Py<PyAny>>) {
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

/// `raise`'s error with a fifth argument: the index of the run (of several) it is in.
pub(crate) fn raise_in_run(py: Python<'_>, failure: Failed, run: usize) -> PyErr {
    let error = raise(py, failure);
    let args = error.value(py).getattr("args").and_then(|a| a.extract::<Vec<Py<PyAny>>>());
    match args {
        Ok(mut args) => {
            args.push(any(py, run).unwrap_or_else(|| py.None()));
            JudgeError::new_err(PyTuple::new(py, args).map_or_else(|_| py.None(), |t| t.into()))
        }
        Err(_) => error,
    }
}

pub(crate) fn raise(py: Python<'_>, failure: Failed) -> PyErr {
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

/// `-M`'s depth as Python gives it: None, or an int, 2**64 or more meaning the whole
/// ranking (None).
fn depth_of(depth: Bound<'_, PyAny>) -> PyResult<Option<u64>> {
    if depth.is_none() {
        return Ok(None);
    }
    match depth.extract::<u64>() {
        Ok(d) => Ok(Some(d)),
        Err(_) if depth.gt(u64::MAX)? => Ok(None),
        Err(e) => Err(e),
    }
}

/// The judging options of the bindings' `options` argument, converted once: a
/// `cranfield.core.options.JudgeOptions` (any object with its six fields as attributes;
/// the engine checks them again, [`JudgeOptions::check`]), or None for its defaults.
/// The qrels' duplicates policy is not one of them (`Qrels.read`'s): `Error` here.
pub(crate) fn judging(options: Option<&Bound<'_, PyAny>>) -> PyResult<JudgeOptions> {
    let Some(o) = options.filter(|o| !o.is_none()) else {
        return Ok(JudgeOptions::default());
    };
    let duplicates: String = o.getattr("duplicates")?.extract()?;
    Ok(JudgeOptions {
        rel_level: o.getattr("rel_level")?.extract()?,
        depth: depth_of(o.getattr("depth")?)?,
        judged_only: o.getattr("judged_only")?.extract()?,
        complete: o.getattr("complete")?.extract()?,
        compat: o.getattr("compat")?.extract()?,
        duplicates: policy(&duplicates, "duplicates")?,
        qrels_duplicates: Duplicates::Error,
    })
}

/// Labels or grades as the NumPy array of their dtype (owning the vector).
pub(crate) fn labels<'py>(py: Python<'py>, labels: LabelVec) -> Bound<'py, PyAny> {
    match labels {
        LabelVec::I8(v) => PyArray1::from_vec(py, v).into_any(),
        LabelVec::I64(v) => PyArray1::from_vec(py, v).into_any(),
        LabelVec::F64(v) => PyArray1::from_vec(py, v).into_any(),
    }
}

/// Read a TREC run and qrels and judge the run: the arrays of
/// `cranfield.core.judged.JudgedRun`, as `judge(Qrels.read(qrels_path,
/// duplicates=qrels_duplicates, ...), Run.read(run_path, duplicates=duplicates, ...),
/// options)` makes them.
///
/// The run is a regular file, a named pipe or standard input (`-`), plain or gzip, read
/// as the engine paths read it (`cranfield_eval::judge::stream`): a plain file up to
/// `whole_bytes` whole, anything larger in query-aligned pieces of `piece_bytes` (0:
/// whole), a run not grouped by query read whole within `max_bytes` and
/// `regroup_bytes` (0: never; None: no limit). The qrels likewise (read whole), or
/// parsed from `qrels_text` when given (their bytes, plain or gzip; `qrels_path` then
/// only names them).
///
/// Returns `(query_ids, offsets, labels, qrels_offsets, qrels_grades, in_run,
/// run_name)`: a list of str, int64, int8/int64/float64, int64, int64/float64 and bool
/// arrays, and the run's tag (decoded as Latin-1 or UTF-8 with replacement). A `depth`
/// of 2**64 or more is the whole ranking; a gzip file, standard input or a pipe may
/// hold at most `max_bytes` of text when read whole (no limit when None). Raises
/// `JudgeError` (see its doc), or ValueError for a bad policy name.
#[pyfunction]
#[pyo3(signature = (run_path, qrels_path, *, options=None, latin1=false, fractional=false,
    qrels_duplicates="error", max_line=1 << 26, max_bytes=None, piece_bytes=PIECE_BYTES,
    whole_bytes=WHOLE_BYTES, regroup_bytes=None, qrels_text=None, progress=None))]
#[allow(clippy::too_many_arguments)]
fn judge_trec_files<'py>(
    py: Python<'py>,
    run_path: PathBuf,
    qrels_path: PathBuf,
    options: Option<&Bound<'py, PyAny>>,
    latin1: bool,
    fractional: bool,
    qrels_duplicates: &str,
    max_line: usize,
    max_bytes: Option<u64>,
    piece_bytes: usize,
    whole_bytes: u64,
    regroup_bytes: Option<u64>,
    qrels_text: Option<&[u8]>,
    progress: Option<&Bound<'py, ReadCounter>>,
) -> PyResult<Bound<'py, PyTuple>> {
    let options = JudgeOptions {
        qrels_duplicates: policy(qrels_duplicates, "qrels_duplicates")?,
        ..judging(options)?
    };
    let reading = Reading {
        piece_bytes,
        whole_bytes,
        regroup_bytes: regroup_bytes.unwrap_or(u64::MAX),
        progress: counter(progress),
        ..reading(latin1, fractional, max_line, max_bytes)
    };
    let text = qrels_text;
    let work = || judge_streamed(&run_path, &qrels_path, text, &reading, &options);
    let judged: Judged = match py.detach(|| catch_unwind(AssertUnwindSafe(work))) {
        Ok(Ok(judged)) => judged,
        Ok(Err(failure)) => return Err(raise(py, failure)),
        Err(_) => {
            return Err(JudgeError::new_err(("internal", py.None(), py.None(), "a panic in judge")))
        }
    };
    let run_name = judged.run_name(latin1);
    let ids = PyList::empty(py);
    for q in 0..judged.num_queries() {
        ids.append(String::from_utf8_lossy(judged.query_id(q)))?;
    }
    let Judged { offsets, labels: ranked, qrels_offsets, qrels_grades, in_run, .. } = judged;
    (
        ids,
        PyArray1::from_vec(py, offsets),
        labels(py, ranked),
        PyArray1::from_vec(py, qrels_offsets),
        labels(py, qrels_grades),
        PyArray1::from_vec(py, in_run),
        run_name,
    )
        .into_pyobject(py)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("JudgeError", m.py().get_type::<JudgeError>())?;
    m.add_function(wrap_pyfunction!(judge_trec_files, m)?)?;
    Ok(())
}
