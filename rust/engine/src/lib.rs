//! `cranfield._engine`: the compiled readers of cranfield, for Python.
//!
//! The work runs without the interpreter lock, in threads; columns are handed to
//! Python as NumPy arrays that own the Rust buffers (no copy). No panic reaches
//! Python: one would be a bug, reported as `ReadError("internal", ...)`.

mod clicks;
mod cwl;
mod diversity;
mod errors;
mod evaluate;
mod fusion;
mod interleave;
mod judge;
mod judge_arrays;
mod libm;
mod ltr;
mod ltr_model;
mod measures;
mod out_of_memory;
mod progress;
mod text;
mod trec_eval;

use std::io::{Read, Seek, SeekFrom};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use cranfield_trec::gzip::{self, GzipError};
use cranfield_trec::room::NoRoom;
use cranfield_trec::{
    parse, read_stored, Error, Kind, Options, Parsed, Problem, ReadError as Failed, Strings, Values,
};
use numpy::PyArray1;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};

create_exception!(
    _engine,
    ReadError,
    PyException,
    "A problem with an input: args are (what, line or None, detail or None)."
);

/// Lines may not be longer than this, whatever the caller asks (32-bit offsets).
pub(crate) const MAX_LINE_CAP: usize = 1 << 29;

enum Failure {
    Input(Error),
    Io(std::io::Error),
    Panic(String),
}

fn options(kind: &str, latin1: bool, max_line: usize) -> PyResult<Options> {
    let kind = match kind {
        "run" => Kind::Run,
        "qrels" => Kind::Qrels,
        "fractional_qrels" => Kind::FractionalQrels,
        other => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "kind must be 'run', 'qrels' or 'fractional_qrels', got {other:?}"
            )))
        }
    };
    let threads = cranfield_eval::judge::parallel::threads();
    Ok(Options { kind, latin1, max_line: max_line.min(MAX_LINE_CAP), threads })
}

/// Run `work` without the interpreter lock, turning a panic into a failure.
fn guarded<T, F>(py: Python<'_>, work: F) -> Result<T, Failure>
where
    F: FnOnce() -> Result<T, Failure> + Send,
    T: Send,
{
    py.detach(|| {
        catch_unwind(AssertUnwindSafe(work)).unwrap_or_else(|panic| {
            let text = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            Err(Failure::Panic(text))
        })
    })
}

fn raise(py: Python<'_>, failure: Failure) -> PyErr {
    let (what, line, detail): (&str, Option<u64>, Option<Py<PyAny>>) = match failure {
        Failure::Io(err) => match GzipError::of(&err) {
            Some(GzipError::TooLarge(limit)) => {
                ("too_large", None, Some(limit.into_pyobject(py).unwrap().into_any().unbind()))
            }
            Some(gz) => {
                ("gzip", None, Some(gz.to_string().into_pyobject(py).unwrap().into_any().unbind()))
            }
            None => return err.into(),
        },
        Failure::Panic(text) => {
            ("internal", None, Some(text.into_pyobject(py).unwrap().into_any().unbind()))
        }
        Failure::Input(Error { problem, line }) => {
            let (what, detail) = errors::problem(py, &problem);
            // (no input, or no memory: a problem of no line)
            let line =
                if matches!(problem, Problem::Empty | Problem::Memory) { None } else { line };
            (what, line, detail)
        }
    };
    ReadError::new_err((what, line, detail))
}

/// A parsed input and the query ids of each piece one per row: the reader keeps one
/// per block of rows (the engine's own judge reads them so), the Python side takes an
/// Arrow string column; only this read path pays for the copy.
struct ForPython {
    parsed: Parsed,
    query_ids: Vec<Strings>,
}

/// [`ForPython`] of a parsed input (made without the interpreter lock); a lack of
/// memory for the per-row ids is [`Problem::Memory`], as for the other columns.
fn per_row(parsed: Parsed) -> Result<ForPython, Failure> {
    let query_ids: Result<Vec<Strings>, NoRoom> =
        parsed.columns.iter().map(|c| c.query_id.to_rows()).collect();
    let query_ids = query_ids.map_err(|no_room| Failure::Input(no_room.into()))?;
    Ok(ForPython { parsed, query_ids })
}

/// The parsed columns as Python objects:
/// `(pieces, lines, query_starts, tag, rows)`, each piece
/// `(query offsets, query bytes, doc offsets, doc bytes, values)`.
fn to_python(py: Python<'_>, input: ForPython) -> PyResult<Bound<'_, PyTuple>> {
    let ForPython { parsed, query_ids } = input;
    let pieces = PyList::empty(py);
    for (columns, query_id) in parsed.columns.into_iter().zip(query_ids) {
        let values = match columns.values {
            Values::Scores(v) | Values::Reals(v) => PyArray1::from_vec(py, v).into_any(),
            Values::Grades(v) => PyArray1::from_vec(py, v).into_any(),
        };
        pieces.append((
            PyArray1::from_vec(py, query_id.offsets),
            PyArray1::from_vec(py, query_id.data),
            PyArray1::from_vec(py, columns.doc_id.offsets),
            PyArray1::from_vec(py, columns.doc_id.data),
            values,
        ))?;
    }
    let lines = parsed.lines.map(|l| PyArray1::from_vec(py, l));
    let starts = PyArray1::from_vec(py, parsed.query_starts);
    let tag = parsed.tag.map(|t| PyBytes::new(py, &t));
    (pieces, lines, starts, tag, parsed.rows).into_pyobject(py)
}

/// Parse TREC text held in a bytes object.
///
/// `kind` is "run" or "qrels"; `latin1` reads ids as Latin-1 (else UTF-8, checked);
/// `max_line` is the longest line allowed. Raises `ReadError` for bad input.
#[pyfunction]
fn read_trec_bytes<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyBytes>,
    kind: &str,
    latin1: bool,
    max_line: usize,
) -> PyResult<Bound<'py, PyTuple>> {
    let options = options(kind, latin1, max_line)?;
    let bytes = data.as_bytes();
    match guarded(py, || parse(bytes, &options).map_err(Failure::Input).and_then(per_row)) {
        Ok(parsed) => to_python(py, parsed),
        Err(failure) => Err(raise(py, failure)),
    }
}

/// Read and parse a regular TREC file, plain or gzip-compressed (recognised by its
/// first two bytes), piece by piece (memory holds the columns and a few pieces): checked
/// for NUL bytes and overlong lines as it is read, then parsed as `read_trec_bytes`
/// parses. A gzip file may decompress to at most `max_bytes` (`ReadError("too_large")`
/// beyond; `ReadError("gzip", None, message)` when it is corrupt or truncated). An OS
/// error is raised as `OSError`.
#[pyfunction]
#[pyo3(signature = (path, kind, latin1, max_line, max_bytes=None))]
fn read_trec_file<'py>(
    py: Python<'py>,
    path: PathBuf,
    kind: &str,
    latin1: bool,
    max_line: usize,
    max_bytes: Option<u64>,
) -> PyResult<Bound<'py, PyTuple>> {
    let options = options(kind, latin1, max_line)?;
    let work = || {
        let mut file = std::fs::File::open(&path).map_err(Failure::Io)?;
        let mut magic = [0u8; 2];
        let got = file.read(&mut magic).map_err(Failure::Io)?;
        file.seek(SeekFrom::Start(0)).map_err(Failure::Io)?;
        let gzipped = got == 2 && magic == gzip::MAGIC;
        let regular = file.metadata().map_err(Failure::Io)?.is_file();
        let result = if gzipped || !regular {
            read_stored(file, gzipped, max_bytes.unwrap_or(u64::MAX), &options)
        } else {
            // each piece read by the thread that parses it
            cranfield_trec::positioned::read_file(&file, &options, None)
        };
        let parsed = result.map_err(|e| match e {
            Failed::Io(err) => Failure::Io(err),
            Failed::Input(err) => Failure::Input(err),
        })?;
        per_row(parsed)
    };
    match guarded(py, work) {
        Ok(parsed) => to_python(py, parsed),
        Err(failure) => Err(raise(py, failure)),
    }
}

/// How this engine was built, for `cranfield --version`: the profile (optimised or
/// with debug assertions), the target, and the Python ABI it was built for.
fn build_description() -> String {
    let profile = if cfg!(debug_assertions) { "debug" } else { "release" };
    format!("{profile} build, {}-{}, abi3-py310", std::env::consts::ARCH, std::env::consts::OS)
}

#[pymodule]
fn _engine(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // this thread's thread-locals of the extension, and the destructor of its handle,
    // had now: glibc allocates them at their first use, and ends the process when it
    // cannot (out_of_memory.rs); later, memory may be short
    drop(std::thread::current());
    m.add("ReadError", m.py().get_type::<ReadError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("BUILD", build_description())?;
    m.add_function(wrap_pyfunction!(out_of_memory::set_out_of_memory_line, m)?)?;
    m.add_function(wrap_pyfunction!(read_trec_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(diversity::diversity_families, m)?)?;
    m.add_function(wrap_pyfunction!(diversity::diversity_measures, m)?)?;
    m.add_function(wrap_pyfunction!(diversity::ndeval_report, m)?)?;
    m.add_function(wrap_pyfunction!(diversity::ndeval_report_files, m)?)?;
    m.add_function(wrap_pyfunction!(diversity::number_subtopic_qrels, m)?)?;
    m.add_function(wrap_pyfunction!(diversity::read_subtopic_qrels, m)?)?;
    m.add_function(wrap_pyfunction!(read_trec_file, m)?)?;
    ltr::register(m)?;
    ltr_model::register(m)?;
    measures::register(m)?;
    clicks::register(m)?;
    cwl::register(m)?;
    fusion::register(m)?;
    interleave::register(m)?;
    text::register(m)?;
    judge::register(m)?;
    judge_arrays::register(m)?;
    libm::register(m)?;
    evaluate::register(m)?;
    trec_eval::register(m)?;
    progress::register(m)?;
    Ok(())
}
