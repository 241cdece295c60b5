//! The judged-run arrays of TREC files (`cranfield_eval::judge`), for Python.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use cranfield_eval::judge::stream::{
    judge_files_streamed, judge_run_streamed, PIECE_BYTES, WHOLE_BYTES,
};
use cranfield_eval::judge::{
    Duplicates, Input, JudgeError as Failed, JudgeOptions, Judged, Reading,
};
use cranfield_eval::LabelVec;
use numpy::PyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use crate::errors::{internal, judge_error, JudgeError};
use crate::judge_arrays::QrelsIndex;
use crate::progress::{counter, ReadCounter};
use crate::MAX_LINE_CAP;

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
/// indexed already: a `QrelsIndex` (a `Qrels` object's, `Qrels.index()`) in place of
/// their path (no repeated pair: `qrels_duplicates` is not applied).
///
/// Returns `(query_ids, offsets, labels, qrels_offsets, qrels_grades, in_run,
/// run_name)`: a list of str, int64, int8/int64/float64, int64, int64/float64 and bool
/// arrays, and the run's tag (decoded as Latin-1 or UTF-8 with replacement). A `depth`
/// of 2**64 or more is the whole ranking; a gzip file, standard input or a pipe may
/// hold at most `max_bytes` of text when read whole (no limit when None). Raises
/// `JudgeError` (see its doc), or ValueError for a bad policy name.
#[pyfunction]
#[pyo3(signature = (run_path, qrels, *, options=None, latin1=false, fractional=false,
    qrels_duplicates="error", max_line=1 << 26, max_bytes=None, piece_bytes=PIECE_BYTES,
    whole_bytes=WHOLE_BYTES, regroup_bytes=None, progress=None))]
#[allow(clippy::too_many_arguments)]
fn judge_trec_files<'py>(
    py: Python<'py>,
    run_path: PathBuf,
    qrels: &Bound<'py, PyAny>,
    options: Option<&Bound<'py, PyAny>>,
    latin1: bool,
    fractional: bool,
    qrels_duplicates: &str,
    max_line: usize,
    max_bytes: Option<u64>,
    piece_bytes: usize,
    whole_bytes: u64,
    regroup_bytes: Option<u64>,
    progress: Option<&Bound<'py, ReadCounter>>,
) -> PyResult<Bound<'py, PyTuple>> {
    let index = qrels.cast::<QrelsIndex>().ok().map(|i| &i.get().index);
    let qrels_duplicates = match index {
        Some(_) => Duplicates::First, // (the index's qrels hold no repeated pair)
        None => policy(qrels_duplicates, "qrels_duplicates")?,
    };
    let qrels_path = if index.is_some() { PathBuf::new() } else { qrels.extract()? };
    let options = JudgeOptions { qrels_duplicates, ..judging(options)? };
    let reading = Reading {
        piece_bytes,
        whole_bytes,
        regroup_bytes: regroup_bytes.unwrap_or(u64::MAX),
        progress: counter(progress),
        ..reading(latin1, fractional, max_line, max_bytes)
    };
    let work = || match index.map(|i| i.parts()) {
        None => judge_files_streamed(&run_path, &qrels_path, &reading, &options),
        Some(Some((qrels, prepared))) => {
            judge_run_streamed(&run_path, qrels, prepared, &reading, &options)
        }
        Some(None) => Err(Failed::Empty(Input::Qrels)),
    };
    let judged: Judged = match py.detach(|| catch_unwind(AssertUnwindSafe(work))) {
        Ok(Ok(judged)) => judged,
        Ok(Err(failure)) => return Err(judge_error(py, failure)),
        Err(_) => return Err(internal("a panic in judge")),
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
