//! ndeval's diversity measures (`cranfield_eval::diversity`, `cranfield_eval::ndeval`),
//! for `cranfield.core.diversity` and `cranfield ndeval`.

use std::os::unix::fs::FileExt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use cranfield_eval::diversity::{evaluate, number, Asked, Intents, Line, Measure, FAMILIES};
use cranfield_eval::ndeval::{
    evaluate_files, evaluate_sources, read_table, Input, Names, NdError, Options, Source,
};
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};

use crate::errors::internal;

/// `cranfield.errors.InputError(message, file, line)`.
fn input_error(py: Python<'_>, e: NdError) -> PyErr {
    let made = py
        .import("cranfield.errors")
        .and_then(|m| m.getattr("InputError")?.call1((e.message.as_str(), e.file, e.line)));
    match made {
        Ok(error) => PyErr::from_value(error),
        Err(_) => PyValueError::new_err(e.message),
    }
}

/// `work` without the interpreter lock, a panic reported as an internal error.
fn detached<T: Send>(
    py: Python<'_>,
    work: impl FnOnce() -> Result<T, NdError> + Send,
) -> PyResult<T> {
    match py.detach(|| catch_unwind(AssertUnwindSafe(work))) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(input_error(py, e)),
        Err(_) => Err(internal("a diversity kernel panicked")),
    }
}

/// The families of the diversity kernels.
#[pyfunction]
pub fn diversity_families() -> Vec<&'static str> {
    FAMILIES.to_vec()
}

/// ndeval's options from `options`, a mapping with the keys `alpha`, `beta`,
/// `traditional`, `depth` (None: the whole ranking), `complete`, `risk_alpha` and
/// `risk_alpha_text` (as `cranfield.cli.ndeval_cmd.parse` makes it): they cross the
/// boundary as one value.
fn ndeval_options(options: &Bound<'_, PyAny>) -> PyResult<Options> {
    let get = |key: &str| options.get_item(key);
    Ok(Options {
        alpha: get("alpha")?.extract()?,
        beta: get("beta")?.extract()?,
        traditional: get("traditional")?.extract()?,
        depth: get("depth")?.extract()?,
        complete: get("complete")?.extract()?,
        risk_alpha: get("risk_alpha")?.extract()?,
        risk_alpha_text: get("risk_alpha_text")?.extract()?,
    })
}

/// Bytes and their name, as slices.
fn given<'a>((data, name): &'a (Bound<'_, PyBytes>, String)) -> (&'a [u8], &'a str) {
    (data.as_bytes(), name.as_str())
}

/// ndeval's report of `run` (bytes, named `run_name` in errors) against the subtopic
/// qrels `qrels`, optionally relative to `baseline` (`(bytes, name)`), with ndeval's
/// `options` (see `ndeval_options`); raises `InputError` for a file ndeval refuses.
#[pyfunction]
pub fn ndeval_report(
    py: Python<'_>,
    qrels: (Bound<'_, PyBytes>, String),
    run: (Bound<'_, PyBytes>, String),
    baseline: Option<(Bound<'_, PyBytes>, String)>,
    options: &Bound<'_, PyAny>,
) -> PyResult<String> {
    let options = ndeval_options(options)?;
    let (q, r, b) = (given(&qrels), given(&run), baseline.as_ref().map(given));
    detached(py, || evaluate_files(q, r, b, &options))
}

/// `path` as a [`Source`] when the engine can read it as plainly as the Python reader
/// would: a regular file of at most `max_bytes`, not gzip-compressed; what only reading
/// shows (a NUL byte, a line longer than `max_line`) sends it elsewhere as it is read.
/// `None` otherwise, and for any error of the system: the Python reader then says what
/// is wrong.
fn plain_file(path: &Path, max_line: usize, max_bytes: u64) -> Option<Source<'static>> {
    let file = std::fs::File::open(path).ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.len() > max_bytes {
        return None;
    }
    let mut start = [0u8; 2];
    let magic = cranfield_trec::gzip::MAGIC;
    if meta.len() >= 2 && file.read_exact_at(&mut start, 0).is_ok() && start.starts_with(&magic) {
        return None;
    }
    Some(Source::File { file, len: meta.len(), max_line })
}

/// [`ndeval_report`] of files the engine reads itself (each half of a large file read
/// piece by piece by the thread that parses it, without Python bytes in between);
/// `None` when one of them is not a plain regular file (see `plain_file`): the caller
/// then reads them in Python.
#[pyfunction]
pub fn ndeval_report_files(
    py: Python<'_>,
    qrels: (PathBuf, String),
    run: (PathBuf, String),
    baseline: Option<(PathBuf, String)>,
    options: &Bound<'_, PyAny>,
    max_line: usize,
    max_bytes: u64,
) -> PyResult<Option<String>> {
    let options = ndeval_options(options)?;
    let names = Names {
        qrels: &qrels.1,
        run: &run.1,
        baseline: baseline.as_ref().map(|(_, name)| name.as_str()),
    };
    let open = |input: Input| {
        let path = match input {
            Input::Qrels => &qrels.0,
            Input::Run => &run.0,
            Input::Baseline => &baseline.as_ref()?.0,
        };
        plain_file(path, max_line, max_bytes)
    };
    detached(py, || evaluate_sources(open, &names, &options).transpose())
}

/// Subtopic qrels in TREC text: `(query offsets, query bytes, subtopic, doc offsets,
/// doc bytes, grade)`; raises `InputError` naming `name` and the line.
#[pyfunction]
pub fn read_subtopic_qrels<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyBytes>,
    name: String,
) -> PyResult<Bound<'py, PyTuple>> {
    let bytes = data.as_bytes();
    let t = detached(py, || read_table(bytes, &name))?;
    (
        PyArray1::from_vec(py, t.query_offsets),
        PyArray1::from_vec(py, t.query_data),
        PyArray1::from_vec(py, t.subtopic),
        PyArray1::from_vec(py, t.doc_offsets),
        PyArray1::from_vec(py, t.doc_data),
        PyArray1::from_vec(py, t.grade),
    )
        .into_pyobject(py)
}

fn slice<'a, T: numpy::Element>(a: &'a PyReadonlyArray1<'_, T>, what: &str) -> PyResult<&'a [T]> {
    a.as_slice().map_err(|_| PyValueError::new_err(format!("{what} must be contiguous")))
}

/// The values of the diversity measures `asked` (`(family, cutoff, alpha, beta,
/// gamma)`) on
/// rankings: subtopic judgment lines (`line_topic`, `line_doc` numbered as
/// `cranfield_eval::diversity::Line` says, `line_subtopic`, `line_grade` >= 0) with the
/// documents of each topic `topic_docs` (CSR); ranking `q` of topic `topics[q]`
/// (negative: none) holds the documents `ranked[offsets[q]..offsets[q + 1]]`
/// (negative: not judged). `weights`, when given: intent probabilities
/// `(topic, subtopic, probability)` arrays. One float64 array per measure.
#[pyfunction]
#[pyo3(signature = (asked, line_topic, line_doc, line_subtopic, line_grade, topic_docs, topics, offsets, ranked, weights=None))]
#[allow(clippy::too_many_arguments)]
pub fn diversity_measures<'py>(
    py: Python<'py>,
    asked: Vec<(String, usize, f64, f64, f64)>,
    line_topic: PyReadonlyArray1<'py, i64>,
    line_doc: PyReadonlyArray1<'py, i64>,
    line_subtopic: PyReadonlyArray1<'py, i64>,
    line_grade: PyReadonlyArray1<'py, i64>,
    topic_docs: PyReadonlyArray1<'py, i64>,
    topics: PyReadonlyArray1<'py, i64>,
    offsets: PyReadonlyArray1<'py, i64>,
    ranked: PyReadonlyArray1<'py, i64>,
    weights: Option<(
        PyReadonlyArray1<'py, i64>,
        PyReadonlyArray1<'py, i64>,
        PyReadonlyArray1<'py, f64>,
    )>,
) -> PyResult<Bound<'py, PyList>> {
    let mut specs = Vec::with_capacity(asked.len());
    for (family, cutoff, alpha, beta, gamma) in asked {
        let measure = Measure::of(&family).ok_or_else(|| {
            PyValueError::new_err(format!("no diversity kernel for the family {family:?}"))
        })?;
        specs.push(Asked { measure, cutoff: cutoff.max(1), alpha, beta, gamma });
    }
    let (lt, ld) = (slice(&line_topic, "line_topic")?, slice(&line_doc, "line_doc")?);
    let (ls, lg) = (slice(&line_subtopic, "line_subtopic")?, slice(&line_grade, "line_grade")?);
    let td: Vec<usize> = slice(&topic_docs, "topic_docs")?.iter().map(|&x| x as usize).collect();
    let (tq, off, rk) =
        (slice(&topics, "topics")?, slice(&offsets, "offsets")?, slice(&ranked, "ranked")?);
    let n_topics = td.len().saturating_sub(1) as i64;
    let n_docs = td.last().copied().unwrap_or(0) as i64;
    let sizes = [lt.len(), ld.len(), ls.len()].iter().all(|&n| n == lg.len());
    let shaped = sizes
        && off.len() == tq.len() + 1
        && off.first() == Some(&0)
        && off.windows(2).all(|w| w[0] <= w[1])
        && off.last().is_some_and(|&e| e as usize == rk.len())
        && lt.iter().all(|&t| (0..n_topics).contains(&t))
        && ld.iter().all(|&d| (0..n_docs).contains(&d))
        && ls.iter().chain(lg).all(|&x| x >= 0)
        && tq.iter().all(|&t| t < n_topics)
        && rk.iter().all(|&d| d < n_docs);
    if !shaped {
        return Err(PyValueError::new_err("diversity arrays that do not fit together"));
    }
    let mut weighted: Vec<(u32, i64, f64)> = Vec::new();
    if let Some((wt, ws, wv)) = &weights {
        let (wt, ws, wv) = (slice(wt, "weight topics")?, slice(ws, "subtopics")?, slice(wv, "w")?);
        let fits = wt.len() == ws.len()
            && ws.len() == wv.len()
            && wt.iter().all(|&t| (0..n_topics).contains(&t))
            && wv.iter().all(|w| w.is_finite() && *w >= 0.0);
        if !fits {
            return Err(PyValueError::new_err("intent probabilities that do not fit"));
        }
        weighted = (0..wt.len()).map(|i| (wt[i] as u32, ws[i], wv[i])).collect();
    }
    let columns = py.detach(|| {
        catch_unwind(AssertUnwindSafe(|| {
            let lines: Vec<Line> = (0..lt.len())
                .map(|i| Line {
                    topic: lt[i] as u32,
                    doc: ld[i] as u32,
                    subtopic: ls[i],
                    grade: lg[i],
                })
                .collect();
            let mut intents = Intents::build(&lines, td);
            intents.set_weights(&weighted);
            evaluate(&intents, &specs, tq, off, rk)
        }))
    });
    let columns = columns.map_err(|_| internal("a diversity kernel panicked"))?;
    let out = PyList::empty(py);
    for c in columns {
        out.append(PyArray1::from_vec(py, c))?;
    }
    Ok(out)
}

/// The strings of an Arrow string column (int64 offsets, bytes), checked.
fn strings<'a>(offsets: &'a [i64], data: &'a [u8], what: &str) -> PyResult<Vec<&'a [u8]>> {
    let fits = offsets.windows(2).all(|w| 0 <= w[0] && w[0] <= w[1])
        && offsets.last().map_or(true, |&e| e as usize <= data.len());
    if !fits {
        return Err(PyValueError::new_err(format!("{what}: offsets that do not fit the data")));
    }
    Ok(offsets.windows(2).map(|w| &data[w[0] as usize..w[1] as usize]).collect())
}

/// Number subtopic judgment lines (query ids and document ids as Arrow string buffers
/// with int64 offsets): `(line_topic, line_doc, topic_docs, topic_line, doc_line)`,
/// topics and the documents of each in byte order; `topic_line` and `doc_line` give a
/// line of each topic and document (their ids).
#[pyfunction]
pub fn number_subtopic_qrels<'py>(
    py: Python<'py>,
    query_offsets: PyReadonlyArray1<'py, i64>,
    query_data: PyReadonlyArray1<'py, u8>,
    doc_offsets: PyReadonlyArray1<'py, i64>,
    doc_data: PyReadonlyArray1<'py, u8>,
) -> PyResult<Bound<'py, PyTuple>> {
    let queries = strings(
        slice(&query_offsets, "query_offsets")?,
        slice(&query_data, "query_data")?,
        "query ids",
    )?;
    let docs =
        strings(slice(&doc_offsets, "doc_offsets")?, slice(&doc_data, "doc_data")?, "doc ids")?;
    if queries.len() != docs.len() {
        return Err(PyValueError::new_err("as many query ids as doc ids are needed"));
    }
    let work = || {
        let lines: Vec<(&[u8], &[u8])> =
            queries.iter().copied().zip(docs.iter().copied()).collect();
        let n = number(&lines);
        let mut topic_line = vec![0i64; n.topics.len()];
        let mut doc_line = vec![0i64; n.docs.len()];
        for (r, (&t, &d)) in n.line_topic.iter().zip(&n.line_doc).enumerate() {
            topic_line[t as usize] = r as i64;
            doc_line[d as usize] = r as i64;
        }
        let widen = |v: &[u32]| v.iter().map(|&x| x as i64).collect::<Vec<i64>>();
        let topic_docs: Vec<i64> = n.topic_docs.iter().map(|&x| x as i64).collect();
        (widen(&n.line_topic), widen(&n.line_doc), topic_docs, topic_line, doc_line)
    };
    let done = py.detach(|| catch_unwind(AssertUnwindSafe(work)));
    let (a, b, c, d, e) = done.map_err(|_| internal("numbering subtopic qrels panicked"))?;
    (
        PyArray1::from_vec(py, a),
        PyArray1::from_vec(py, b),
        PyArray1::from_vec(py, c),
        PyArray1::from_vec(py, d),
        PyArray1::from_vec(py, e),
    )
        .into_pyobject(py)
}
