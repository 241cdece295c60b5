//! Click logs read by the engine (`cranfield.clicks.log`): JSON lines, PyClick's and
//! Yandex's text formats from their bytes, and tables (CSV, TSV, Parquet, Arrow) from
//! the Arrow columns Python read, into the arrays the click models fit on: interned
//! query and document ids, and `sessions x ranks` documents, clicks and times.
//! One pass over the input; no object per session.

mod json;
mod record;
mod stream;
mod table;
mod text;
mod value;

use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};

use crate::ReadError;
use record::Sessions;
use table::{Column, Kind};
use text::Failure;

/// The sessions as `sessions x ranks` arrays (row-major), padded after a shorter list
/// with document -1, no click and time NaN.
struct Padded {
    k: usize,
    docs: Vec<i64>,
    clicks: Vec<bool>,
    times: Option<Vec<f64>>,
}

fn pad(s: &mut Sessions) -> Padded {
    let n = s.lengths.len();
    let k = s.lengths.iter().copied().max().unwrap_or(0);
    if s.lengths.iter().all(|&len| len == k) {
        // every session shows k documents: the flat arrays are the padded ones (their
        // spare capacity handed back: NumPy keeps the whole allocation)
        fn fit<T>(v: &mut Vec<T>) -> Vec<T> {
            let mut v = std::mem::take(v);
            v.shrink_to_fit();
            v
        }
        return Padded {
            k,
            docs: fit(&mut s.flat_docs),
            clicks: fit(&mut s.flat_clicks),
            times: s.any_time.then(|| fit(&mut s.flat_times)),
        };
    }
    let mut docs = vec![-1i64; n * k];
    let mut clicks = vec![false; n * k];
    let mut times = s.any_time.then(|| vec![f64::NAN; n * k]);
    let mut at = 0;
    for (row, &len) in s.lengths.iter().enumerate() {
        let cells = row * k..row * k + len;
        docs[cells.clone()].copy_from_slice(&s.flat_docs[at..at + len]);
        clicks[cells.clone()].copy_from_slice(&s.flat_clicks[at..at + len]);
        if let Some(t) = times.as_mut() {
            t[cells].copy_from_slice(&s.flat_times[at..at + len]);
        }
        at += len;
    }
    Padded { k, docs, clicks, times }
}

fn names<'py>(py: Python<'py>, names: &[Box<str>]) -> PyResult<Bound<'py, PyList>> {
    PyList::new(py, names.iter().map(|n| &**n))
}

/// `(query, docs, clicks, times or None, user or None, query names, doc names, user
/// names, ranks)`: `docs`, `clicks` and `times` flat, `sessions x ranks` row-major.
fn to_python(py: Python<'_>, mut s: Sessions) -> PyResult<Bound<'_, PyTuple>> {
    let padded = py.detach(|| pad(&mut s));
    let user = s.any_user.then(|| PyArray1::from_vec(py, s.user));
    (
        PyArray1::from_vec(py, s.query),
        PyArray1::from_vec(py, padded.docs),
        PyArray1::from_vec(py, padded.clicks),
        padded.times.map(|t| PyArray1::from_vec(py, t)),
        user,
        names(py, &s.queries.names)?,
        names(py, &s.docs.names)?,
        names(py, &s.users.names)?,
        padded.k,
    )
        .into_pyobject(py)
}

/// A click log in a text format (`"jsonl"`, `"pyclick"` or `"yandex"`), from its bytes.
///
/// Returns `(query, docs, clicks, times, user, query_names, doc_names, user_names,
/// ranks)` (see `cranfield.clicks.log`). Raises `ReadError(what, line, detail)`: `what`
/// is `"click"` (detail: the message), `"click_json"` (a line that is not JSON; detail:
/// the parser's words) or `"utf8"`.
#[pyfunction]
pub fn read_click_text<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyBytes>,
    format: &str,
) -> PyResult<Bound<'py, PyTuple>> {
    let read: stream::Lines = match format {
        "yandex" => text::yandex,
        other => text_format(other)?,
    };
    let bytes = data.as_bytes();
    let result = py.detach(|| {
        let mut sessions = Sessions::default();
        let text = text::utf8(bytes)?;
        read(text, &mut sessions).map(|()| sessions)
    });
    match result {
        Ok(sessions) => to_python(py, sessions),
        Err(Failure::Record(line, message)) => Err(ReadError::new_err(("click", line, message))),
        Err(Failure::Json(line, words)) => Err(ReadError::new_err(("click_json", line, words))),
        Err(Failure::Utf8(line)) => Err(ReadError::new_err(("utf8", line, py.None()))),
    }
}

/// The reader of a format whose lines stand alone (`"jsonl"`, `"pyclick"`).
fn text_format(format: &str) -> PyResult<stream::Lines> {
    Ok(match format {
        "jsonl" => text::jsonl,
        "pyclick" => text::pyclick,
        other => return Err(PyValueError::new_err(format!("unknown click-log format {other:?}"))),
    })
}

/// A line-based click log (`"jsonl"`, `"pyclick"` or `"yandex"`) read from pieces of
/// its bytes as they arrive (`feed`, then `finish`): each piece's complete lines read
/// at once (JSON lines and PyClick in two halves on two threads), the rest carried on;
/// the text is never held whole.
/// `finish` returns what `read_click_text` returns. Raises `ReadError` as it does,
/// `"click_json"` with a fourth item: the text of the line.
#[pyclass(module = "cranfield._engine")]
pub struct ClickTextReader {
    stream: Option<stream::Stream>,
}

fn refused(py: Python<'_>, r: stream::Refused) -> PyErr {
    match r.failure {
        Failure::Record(line, message) => ReadError::new_err(("click", line, message)),
        Failure::Json(line, words) => {
            ReadError::new_err(("click_json", line, words, r.line.unwrap_or_default()))
        }
        Failure::Utf8(line) => ReadError::new_err(("utf8", line, py.None())),
    }
}

#[pymethods]
impl ClickTextReader {
    /// `parallel_from`: pieces of at least this many bytes are read in two halves at
    /// once (None: all on one thread; the Yandex log is read on one, a click referring
    /// to a page any number of lines before).
    #[new]
    #[pyo3(signature = (format, parallel_from = Some(1 << 16)))]
    fn new(format: &str, parallel_from: Option<usize>) -> PyResult<Self> {
        let format = match format {
            "yandex" => stream::Format::Yandex(Box::default()),
            other => stream::Format::Lines(text_format(other)?),
        };
        Ok(ClickTextReader { stream: Some(stream::Stream::new(format, parallel_from)) })
    }

    fn feed(&mut self, py: Python<'_>, piece: &Bound<'_, PyBytes>) -> PyResult<()> {
        let stream = self.stream.as_mut().ok_or_else(|| PyValueError::new_err("finished"))?;
        let bytes = piece.as_bytes();
        py.detach(|| stream.feed(bytes)).map_err(|r| refused(py, r))
    }

    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let mut stream = self.stream.take().ok_or_else(|| PyValueError::new_err("finished"))?;
        py.detach(|| stream.finish()).map_err(|r| refused(py, r))?;
        to_python(py, stream.sessions)
    }
}

/// One column as Python hands it: `(name, kind, lists, offsets, data, valid)`;
/// `kind` "s", "i", "f" or "b" (what the strings were before cast to text), `lists`
/// None or `(list offsets, list validity or None)`.
type ColumnArgs<'py> = (
    String,
    String,
    Option<(PyReadonlyArray1<'py, i64>, Option<PyReadonlyArray1<'py, bool>>)>,
    PyReadonlyArray1<'py, i64>,
    PyReadonlyArray1<'py, u8>,
    Option<PyReadonlyArray1<'py, bool>>,
);

fn slice<'a, T: numpy::Element>(a: &'a PyReadonlyArray1<'_, T>) -> PyResult<&'a [T]> {
    a.as_slice().map_err(|_| PyValueError::new_err("arrays must be contiguous"))
}

/// The columns' arrays as the table reader reads them, checked against `rows`.
fn table_columns<'a>(columns: &'a [ColumnArgs<'_>], rows: usize) -> PyResult<Vec<Column<'a>>> {
    let mut held = Vec::with_capacity(columns.len());
    for (name, kind, lists, offsets, data, valid) in columns {
        let kind = Kind::of(kind).ok_or_else(|| PyValueError::new_err("kind: s, i, f or b"))?;
        let lists = match lists {
            Some((l, v)) => Some((slice(l)?, v.as_ref().map(slice).transpose()?)),
            None => None,
        };
        let valid = valid.as_ref().map(slice).transpose()?;
        let column = Column {
            name: name.clone(),
            kind,
            lists,
            offsets: slice(offsets)?,
            data: slice(data)?,
            valid,
        };
        column.check(rows).map_err(PyValueError::new_err)?;
        held.push(column);
    }
    Ok(held)
}

/// `rows` rows of a table, one session a row, read into `sessions`.
fn feed_table(
    py: Python<'_>,
    sessions: &mut Sessions,
    columns: &[ColumnArgs<'_>],
    rows: usize,
    text: bool,
) -> PyResult<()> {
    let held = table_columns(columns, rows)?;
    py.detach(|| table::read(&held, rows, text, sessions))
        .map_err(|(row, message)| ReadError::new_err(("click_row", row, message)))
}

/// A click log held as a table of `rows` rows, one session a row: its columns as
/// `ColumnArgs` (strings; numbers and booleans cast to text). `text`: the table came
/// from CSV or TSV (blank cells are missing). Returns what `read_click_text` returns;
/// raises `ReadError("click_row", row (0-based), message)`.
#[pyfunction]
pub fn read_click_table<'py>(
    py: Python<'py>,
    columns: Vec<ColumnArgs<'py>>,
    rows: usize,
    text: bool,
) -> PyResult<Bound<'py, PyTuple>> {
    let mut sessions = Sessions::default();
    feed_table(py, &mut sessions, &columns, rows, text)?;
    to_python(py, sessions)
}

/// A click log held as a table read a record batch at a time (`feed` each batch's
/// columns as `read_click_table` takes them, in order, then `finish`): every batch
/// reduced at once to the sessions' codes, ids interned across batches in order of
/// first appearance. `feed` raises `ReadError("click_row", row of the batch, message)`;
/// `finish` returns what `read_click_table` returns for the batches as one table.
#[pyclass(module = "cranfield._engine")]
pub struct ClickTableReader {
    sessions: Option<Sessions>,
}

#[pymethods]
impl ClickTableReader {
    #[new]
    fn new() -> Self {
        ClickTableReader { sessions: Some(Sessions::default()) }
    }

    fn feed(
        &mut self,
        py: Python<'_>,
        columns: Vec<ColumnArgs<'_>>,
        rows: usize,
        text: bool,
    ) -> PyResult<()> {
        let sessions = self.sessions.as_mut().ok_or_else(|| PyValueError::new_err("finished"))?;
        feed_table(py, sessions, &columns, rows, text)
    }

    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let sessions = self.sessions.take().ok_or_else(|| PyValueError::new_err("finished"))?;
        to_python(py, sessions)
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(read_click_text, m)?)?;
    m.add_function(wrap_pyfunction!(read_click_table, m)?)?;
    m.add_class::<ClickTextReader>()?;
    m.add_class::<ClickTableReader>()?;
    Ok(())
}
