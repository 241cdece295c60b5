//! Judging and the duplicate check of Arrow tables (`cranfield_eval::judge::arrays`),
//! for `cranfield.core.judged.judge` and `cranfield.core.io.dedup.resolve`.
//!
//! Python hands each table over as record batches: per batch the query ids' and
//! document ids' Arrow buffers as NumPy views (offsets int32 or int64, sliced to the
//! batch's rows; data uint8) and the value column (float64 or int64). They are read
//! where they are (not copied), without the interpreter lock.

use std::panic::{catch_unwind, AssertUnwindSafe};

use cranfield_eval::judge::arrays::{
    judge_batches_runs, repeats, Batch, Checked, Offsets, Repeats, StringsRef, ValuesRef,
};
use cranfield_eval::judge::{self, Duplicates, Input, JudgeOptions, Judged, Reading};
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use crate::errors::{internal, judge_error, run_error};
use crate::judge::{judging, labels, policy};

/// A string column's offsets, borrowed from NumPy.
enum HeldOffsets<'py> {
    Small(PyReadonlyArray1<'py, i32>),
    Large(PyReadonlyArray1<'py, i64>),
}

/// A value column, borrowed from NumPy.
enum HeldValues<'py> {
    F64(PyReadonlyArray1<'py, f64>),
    I64(PyReadonlyArray1<'py, i64>),
}

/// One batch's arrays, borrowed from NumPy.
pub(crate) struct Held<'py> {
    query_id: (HeldOffsets<'py>, PyReadonlyArray1<'py, u8>),
    doc_id: (HeldOffsets<'py>, PyReadonlyArray1<'py, u8>),
    values: HeldValues<'py>,
}

fn offsets<'py>(array: &Bound<'py, PyAny>) -> PyResult<HeldOffsets<'py>> {
    if let Ok(a) = array.extract::<PyReadonlyArray1<i32>>() {
        return Ok(HeldOffsets::Small(a));
    }
    if let Ok(a) = array.extract::<PyReadonlyArray1<i64>>() {
        return Ok(HeldOffsets::Large(a));
    }
    Err(PyValueError::new_err("string offsets must be a 1-D int32 or int64 array"))
}

fn values<'py>(array: &Bound<'py, PyAny>) -> PyResult<HeldValues<'py>> {
    if let Ok(a) = array.extract::<PyReadonlyArray1<f64>>() {
        return Ok(HeldValues::F64(a));
    }
    if let Ok(a) = array.extract::<PyReadonlyArray1<i64>>() {
        return Ok(HeldValues::I64(a));
    }
    Err(PyValueError::new_err("values must be a 1-D float64 or int64 array"))
}

/// A batch as Python gives it: query id offsets and data, doc id offsets and data,
/// values.
type Item<'py> = (
    Bound<'py, PyAny>,
    PyReadonlyArray1<'py, u8>,
    Bound<'py, PyAny>,
    PyReadonlyArray1<'py, u8>,
    Bound<'py, PyAny>,
);

pub(crate) fn held<'py>(batches: &Bound<'py, PyAny>) -> PyResult<Vec<Held<'py>>> {
    let mut out = Vec::new();
    for item in batches.try_iter()? {
        let item = item?;
        let (qo, qd, d_o, dd, v): Item<'py> = item.extract()?;
        out.push(Held {
            query_id: (offsets(&qo)?, qd),
            doc_id: (offsets(&d_o)?, dd),
            values: values(&v)?,
        });
    }
    Ok(out)
}

fn contiguous<T>(r: Result<&[T], numpy::AsSliceError>) -> PyResult<&[T]> {
    r.map_err(|_| PyValueError::new_err("arrays must be contiguous and aligned"))
}

fn strings<'a>(held: &'a (HeldOffsets<'_>, PyReadonlyArray1<'_, u8>)) -> PyResult<StringsRef<'a>> {
    let offsets = match &held.0 {
        HeldOffsets::Small(a) => Offsets::Small(contiguous(a.as_slice())?),
        HeldOffsets::Large(a) => Offsets::Large(contiguous(a.as_slice())?),
    };
    Ok(StringsRef { offsets, data: contiguous(held.1.as_slice())? })
}

/// The batches of an input: a run's values are scores (float64), qrels' grades
/// (int64) or gains (float64).
pub(crate) fn batches<'a>(held: &'a [Held<'_>], input: Input) -> PyResult<Vec<Batch<'a>>> {
    held.iter()
        .map(|h| {
            let values = match (&h.values, input) {
                (HeldValues::F64(a), Input::Run) => ValuesRef::Scores(contiguous(a.as_slice())?),
                (HeldValues::F64(a), Input::Qrels) => ValuesRef::Reals(contiguous(a.as_slice())?),
                (HeldValues::I64(a), Input::Qrels) => ValuesRef::Grades(contiguous(a.as_slice())?),
                (HeldValues::I64(_), Input::Run) => {
                    return Err(PyValueError::new_err("a run's scores must be float64"))
                }
            };
            Ok(Batch { query_id: strings(&h.query_id)?, doc_id: strings(&h.doc_id)?, values })
        })
        .collect()
}

/// Qrels judged once for any number of runs and calls: a `Qrels` table's Arrow
/// record batches (see the module's doc; int64 grades or float64 gains, no repeated
/// (query, document) pair) copied into the engine and indexed per topic
/// (`cranfield_eval::judge::QrelsIndex`). `cranfield.Qrels.index()` makes one per
/// table and keeps it. Raises ValueError for arrays of the wrong type or layout,
/// `JudgeError` for malformed columns.
#[pyclass(module = "cranfield._engine", frozen)]
pub struct QrelsIndex {
    pub(crate) index: judge::QrelsIndex,
}

#[pymethods]
impl QrelsIndex {
    #[new]
    fn new(py: Python<'_>, batches: Bound<'_, PyAny>) -> PyResult<Self> {
        let held = held(&batches)?;
        let batches = self::batches(&held, Input::Qrels)?;
        let threads = Reading::default().threads;
        let work = || judge::QrelsIndex::new(&batches, threads);
        match py.detach(|| catch_unwind(AssertUnwindSafe(work))) {
            Ok(Ok(index)) => Ok(QrelsIndex { index }),
            Ok(Err(failure)) => Err(judge_error(py, failure)),
            Err(_) => Err(internal("a panic in QrelsIndex")),
        }
    }

    /// The number of judgments.
    #[getter]
    fn rows(&self) -> usize {
        self.index.rows()
    }

    /// The number of distinct query ids.
    #[getter]
    fn topics(&self) -> usize {
        self.index.topics()
    }
}

/// Runs judged against indexed qrels (`QrelsIndex`), the runs given as Arrow record
/// batches (see the module's doc; `runs` a list of the runs' batches): the arrays of
/// `cranfield.core.judged.JudgedRun` of each run, in order, with trec_eval's judging
/// (`cranfield_eval::judge`). The runs hold no repeated (query, document) pair (their
/// readers applied the duplicates policy).
///
/// Each run's tuple is `(query_ids, offsets, labels, qrels_offsets, qrels_grades,
/// in_run, "", doc_rows)`: a list of str, int64, int8/int64/float64, int64,
/// int64/float64 and bool arrays, an empty run name (the caller knows it), and the run
/// row of each ranked document (int64), or None when they are every row of the run in
/// order or when `doc_rows` is false (not computed). A `depth` of 2**64 or more is the
/// whole ranking. `options` is the `JudgeOptions` value (None: its defaults; its
/// duplicates policy has been applied by the readers). Raises ValueError for arrays of
/// the wrong type or layout, `JudgeError` for malformed columns or options (with more
/// than one run, the index of the run with the problem appended to its args).
#[pyfunction]
#[pyo3(signature = (runs, qrels, *, options=None, doc_rows=true))]
fn judge_arrow_runs<'py>(
    py: Python<'py>,
    runs: Bound<'py, PyAny>,
    qrels: &Bound<'py, QrelsIndex>,
    options: Option<&Bound<'py, PyAny>>,
    doc_rows: bool,
) -> PyResult<Vec<Bound<'py, PyTuple>>> {
    let options = arrow_judging(options)?;
    let runs_held = runs.try_iter()?.map(|run| held(&run?)).collect::<PyResult<Vec<_>>>()?;
    let runs = runs_held.iter().map(|h| batches(h, Input::Run)).collect::<PyResult<Vec<_>>>()?;
    let run_slices: Vec<&[Batch<'_>]> = runs.iter().map(Vec::as_slice).collect();
    let index = &qrels.get().index;
    let threads = Reading::default().threads;
    let work = || judge_batches_runs(&run_slices, index, &options, threads, doc_rows);
    let judged = match py.detach(|| catch_unwind(AssertUnwindSafe(work))) {
        Ok(Ok(judged)) => judged,
        Ok(Err((run, failure))) if run_slices.len() > 1 => return Err(run_error(py, failure, run)),
        Ok(Err((_, failure))) => return Err(judge_error(py, failure)),
        Err(_) => return Err(internal("a panic in judge_arrow_runs")),
    };
    judged.into_iter().map(|(judged, rows)| judged_tuple(py, judged, rows)).collect()
}

/// The judging options of tables (`options`, see [`judging`]): their readers applied
/// the duplicates policies, so none is applied again.
pub(crate) fn arrow_judging(options: Option<&Bound<'_, PyAny>>) -> PyResult<JudgeOptions> {
    Ok(JudgeOptions {
        duplicates: Duplicates::First,
        qrels_duplicates: Duplicates::First,
        ..judging(options)?
    })
}

/// The tuple of one judged run (see [`judge_arrow_runs`]).
fn judged_tuple<'py>(
    py: Python<'py>,
    judged: Judged,
    rows: Option<Vec<i64>>,
) -> PyResult<Bound<'py, PyTuple>> {
    let ids = PyList::empty(py);
    for q in 0..judged.num_queries() {
        ids.append(String::from_utf8_lossy(judged.query_id(q)))?;
    }
    let rows = rows.map(|r| PyArray1::from_vec(py, r));
    (
        ids,
        PyArray1::from_vec(py, judged.offsets),
        labels(py, judged.labels),
        PyArray1::from_vec(py, judged.qrels_offsets),
        labels(py, judged.qrels_grades),
        PyArray1::from_vec(py, judged.in_run),
        "",
        rows,
    )
        .into_pyobject(py)
}

/// The repeated (query id, document id) pairs of a table given as Arrow record
/// batches (`kind` "run": float64 scores; "qrels": int64 grades or float64 gains),
/// under `policy`: for "error", None or `(first row, second row)` of the first pair
/// repeated (by its second row); for "first" (keep each pair's first row) and "max"
/// (its row with the highest value, the first of equal ones), the rows to drop, an
/// ascending int64 array (empty when no pair repeats).
#[pyfunction]
fn repeated_pairs<'py>(
    py: Python<'py>,
    table: Bound<'py, PyAny>,
    kind: &str,
    policy_name: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let input = match kind {
        "run" => Input::Run,
        "qrels" => Input::Qrels,
        other => {
            return Err(PyValueError::new_err(format!(
                "kind must be 'run' or 'qrels', got {other:?}"
            )))
        }
    };
    let policy = policy(policy_name, "policy")?;
    let table_held = held(&table)?;
    let table = batches(&table_held, input)?;
    let threads = Reading::default().threads;
    let work = || Checked::new(&table, input).map(|c| repeats(&c, policy, threads));
    let found = match py.detach(|| catch_unwind(AssertUnwindSafe(work))) {
        Ok(Ok(found)) => found,
        Ok(Err(failure)) => return Err(judge_error(py, failure)),
        Err(_) => return Err(internal("a panic in repeated_pairs")),
    };
    match found {
        Repeats::First(None) => Ok(py.None().into_bound(py)),
        Repeats::First(Some(pair)) => Ok(pair.into_pyobject(py)?.into_any()),
        Repeats::Drop(rows) => {
            let rows: Vec<i64> = rows.into_iter().map(|r| r as i64).collect();
            Ok(PyArray1::from_vec(py, rows).into_any())
        }
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<QrelsIndex>()?;
    m.add_function(wrap_pyfunction!(judge_arrow_runs, m)?)?;
    m.add_function(wrap_pyfunction!(repeated_pairs, m)?)?;
    Ok(())
}
