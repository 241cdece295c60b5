//! `cranfield._engine.LtrKernel`: the batched learning-to-rank objective
//! (`cranfield-ltr`) for Python.
//!
//! Built once per objective from the documents in tie order (query offsets, labels,
//! per-measure gains), it evaluates a population's scores (`P x N`, from NumPy's
//! matrix product) or weights (`P x F`, scored here) without the interpreter lock,
//! on several threads, and returns a `P x T x Q` NumPy array that owns the Rust
//! buffer. Non-finite scores raise `FloatingPointError`, bad shapes `ValueError`;
//! a panic would be a bug and is raised as `RuntimeError`, never unwinding into Python.

use std::panic::{catch_unwind, AssertUnwindSafe};

use cranfield_ltr::svmlight::{self, Features, Layout, Problem};
use cranfield_ltr::{Failure, Kernel, Kind, Normalise, Spec};
use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyFloatingPointError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyModule, PyTuple};

use crate::ReadError;

/// One measure as Python describes it: `(kind, cutoff or 0, level, normalise,
/// zero_if_short, gains or None, log_continue or None)`.
type MeasureSpec<'py> = (
    String,
    usize,
    i64,
    String,
    bool,
    Option<PyReadonlyArray1<'py, f64>>,
    Option<PyReadonlyArray1<'py, f64>>,
);

#[pyclass(module = "cranfield._engine", frozen)]
pub struct LtrKernel {
    kernel: Kernel,
    num_features: usize,
}

fn kind(name: &str) -> PyResult<Kind> {
    Ok(match name {
        "ndcg" => Kind::Ndcg,
        "p" => Kind::Precision,
        "recall" => Kind::Recall,
        "success" => Kind::Success,
        "relative_p" => Kind::RelativePrecision,
        "ap" => Kind::AveragePrecision,
        "rprec" => Kind::RPrecision,
        "rr" => Kind::ReciprocalRank,
        "err" => Kind::ExpectedReciprocalRank,
        "bpref" => Kind::Bpref,
        other => return Err(PyValueError::new_err(format!("unknown measure kind {other:?}"))),
    })
}

fn normalise(name: &str) -> PyResult<Normalise> {
    Ok(match name {
        "R" => Normalise::R,
        "min(R,k)" => Normalise::MinRK,
        "relret@k" => Normalise::RelevantRetrieved,
        other => return Err(PyValueError::new_err(format!("unknown normalisation {other:?}"))),
    })
}

fn slice<'a, T: numpy::Element>(a: &'a PyReadonlyArray1<'_, T>, what: &str) -> PyResult<&'a [T]> {
    a.as_slice().map_err(|_| PyValueError::new_err(format!("{what}: a contiguous array is needed")))
}

fn to_error(failure: Failure) -> PyErr {
    match failure {
        Failure::NonFinite => PyFloatingPointError::new_err("a score is not finite"),
        Failure::Shape(text) => PyValueError::new_err(text),
    }
}

/// Run `work` without the interpreter lock; a panic becomes a `RuntimeError`.
fn guarded<F>(py: Python<'_>, work: F) -> PyResult<Vec<f64>>
where
    F: FnOnce() -> Result<Vec<f64>, Failure> + Send,
{
    let result = py.detach(|| catch_unwind(AssertUnwindSafe(work)));
    match result {
        Ok(Ok(values)) => Ok(values),
        Ok(Err(failure)) => Err(to_error(failure)),
        Err(_) => Err(PyRuntimeError::new_err("internal error in the ltr kernel")),
    }
}

#[pymethods]
impl LtrKernel {
    /// `LtrKernel(offsets, labels, discount, measures, features, columns)`: documents
    /// in tie order (`offsets`: Q + 1 int64; `labels`: N int64), `discount[i]` the
    /// divisor of the gain at rank i + 1, `measures` a list of measure tuples,
    /// `features` the `N x F` matrix in the same document order (for
    /// `evaluate_weights`; `0 x F` when it is not called), `columns[i]` the column of document i in the rows given
    /// to `evaluate` (empty: column i).
    #[new]
    fn new(
        offsets: PyReadonlyArray1<'_, i64>,
        labels: PyReadonlyArray1<'_, i64>,
        discount: PyReadonlyArray1<'_, f64>,
        measures: Vec<MeasureSpec<'_>>,
        features: PyReadonlyArray2<'_, f64>,
        columns: PyReadonlyArray1<'_, i64>,
    ) -> PyResult<Self> {
        let columns = slice(&columns, "columns")?
            .iter()
            .map(|&c| u32::try_from(c))
            .collect::<Result<Vec<u32>, _>>()
            .map_err(|_| PyValueError::new_err("columns must be in [0, 2^32)"))?;
        let offsets = slice(&offsets, "offsets")?
            .iter()
            .map(|&o| usize::try_from(o))
            .collect::<Result<Vec<usize>, _>>()
            .map_err(|_| PyValueError::new_err("offsets must not be negative"))?;
        let labels = slice(&labels, "labels")?.to_vec();
        let discount = slice(&discount, "discount")?.to_vec();
        let mut specs = Vec::with_capacity(measures.len());
        for (name, cutoff, level, norm, zero_if_short, gains, log_continue) in measures {
            let mut spec = Spec::new(kind(&name)?, (cutoff > 0).then_some(cutoff), level);
            spec.normalise = normalise(&norm)?;
            spec.zero_if_short = zero_if_short;
            if let Some(g) = gains {
                spec.gains = slice(&g, "gains")?.to_vec();
            }
            if let Some(l) = log_continue {
                spec.log_continue = slice(&l, "log_continue")?.to_vec();
            }
            specs.push(spec);
        }
        let shape = features.shape();
        if shape[0] != labels.len() && shape[0] != 0 {
            return Err(PyValueError::new_err(
                "features: one row per document (or none) is needed",
            ));
        }
        let num_features = shape[1];
        if !features.is_c_contiguous() {
            return Err(PyValueError::new_err("features: a C-contiguous array is needed"));
        }
        let features = features
            .as_slice()
            .map_err(|_| PyValueError::new_err("features: a C-contiguous array is needed"))?;
        let mut kernel = Kernel::new(offsets, labels, discount, specs, columns)
            .map_err(PyValueError::new_err)?;
        if !features.is_empty() {
            kernel.set_features(features, num_features).map_err(PyValueError::new_err)?;
        }
        Ok(LtrKernel { kernel, num_features })
    }

    /// `P x T x Q` values of the scores `P x N` (C-contiguous float64).
    fn evaluate<'py>(
        &self,
        py: Python<'py>,
        scores: PyReadonlyArray2<'py, f64>,
        threads: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let shape = scores.shape();
        let (p, n) = (shape[0], shape[1]);
        if n != self.kernel.num_docs() {
            return Err(PyValueError::new_err(format!(
                "scores: {} documents per row are needed, got {n}",
                self.kernel.num_docs()
            )));
        }
        if !scores.is_c_contiguous() {
            return Err(PyValueError::new_err("scores: a C-contiguous array is needed"));
        }
        let s = scores
            .as_slice()
            .map_err(|_| PyValueError::new_err("scores: a C-contiguous array is needed"))?;
        let size = p * self.kernel.num_terms() * self.kernel.num_queries();
        let values = guarded(py, || {
            let mut out = vec![0.0; size];
            self.kernel.evaluate(s, p, &mut out, threads).map(|_| out)
        })?;
        self.shaped(py, values, p)
    }

    /// `P x T x Q` values of the weights `P x F` (C-contiguous float64), scored here.
    fn evaluate_weights<'py>(
        &self,
        py: Python<'py>,
        weights: PyReadonlyArray2<'py, f64>,
        threads: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let shape = weights.shape();
        let (p, f) = (shape[0], shape[1]);
        if f != self.num_features || f == 0 {
            return Err(PyValueError::new_err(format!(
                "weights: {} features per row are needed, got {f}",
                self.num_features
            )));
        }
        if !weights.is_c_contiguous() {
            return Err(PyValueError::new_err("weights: a C-contiguous array is needed"));
        }
        let w = weights
            .as_slice()
            .map_err(|_| PyValueError::new_err("weights: a C-contiguous array is needed"))?;
        let size = p * self.kernel.num_terms() * self.kernel.num_queries();
        let values = guarded(py, || {
            let mut out = vec![0.0; size];
            self.kernel.evaluate_weights(w, &mut out, threads).map(|_| out)
        })?;
        self.shaped(py, values, p)
    }

    /// The objective (`P` float64) of the weights `P x F` (C-contiguous float64):
    /// per individual, `sum_t shares[t] * (mean over queries of term t)`, as
    /// `cranfield_ltr::weighted_means` sums them (the values are not returned).
    fn objective_weights<'py>(
        &self,
        py: Python<'py>,
        weights: PyReadonlyArray2<'py, f64>,
        shares: PyReadonlyArray1<'py, f64>,
        threads: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (p, f) = (weights.shape()[0], weights.shape()[1]);
        if f != self.num_features || f == 0 {
            return Err(PyValueError::new_err(format!(
                "weights: {} features per row are needed, got {f}",
                self.num_features
            )));
        }
        let contiguous =
            |what: &str| PyValueError::new_err(format!("{what}: a C-contiguous array is needed"));
        let w = weights.as_slice().map_err(|_| contiguous("weights"))?;
        let shares = shares.as_slice().map_err(|_| contiguous("shares"))?;
        let (terms, queries) = (self.kernel.num_terms(), self.kernel.num_queries());
        if shares.len() != terms {
            return Err(PyValueError::new_err(format!(
                "shares: one per measure ({terms}) is needed, got {}",
                shares.len()
            )));
        }
        let means = guarded(py, || {
            let mut out = vec![0.0; p * terms * queries];
            self.kernel.evaluate_weights(w, &mut out, threads)?;
            Ok(cranfield_ltr::weighted_means(&out, p, shares, queries))
        })?;
        Ok(PyArray1::from_vec(py, means).into_any())
    }
}

impl LtrKernel {
    fn shaped<'py>(
        &self,
        py: Python<'py>,
        values: Vec<f64>,
        p: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let shape = [p, self.kernel.num_terms(), self.kernel.num_queries()];
        Ok(PyArray1::from_vec(py, values).reshape(shape)?.into_any())
    }
}

/// `ltr_scores(features, weights)`: the scores `W X^T` (`P x N` float64) of weights
/// `W` (`P x F`) on features `X` (`N x F`), both C-contiguous float64, by the one
/// scoring function of the linear rankers (`cranfield_ltr::scoring`).
#[pyfunction]
fn ltr_scores<'py>(
    py: Python<'py>,
    features: PyReadonlyArray2<'py, f64>,
    weights: PyReadonlyArray2<'py, f64>,
) -> PyResult<Bound<'py, PyAny>> {
    let (n, f) = (features.shape()[0], features.shape()[1]);
    let (p, g) = (weights.shape()[0], weights.shape()[1]);
    if f != g {
        return Err(PyValueError::new_err(format!("{g} weights per row for {f} features")));
    }
    let contiguous = || PyValueError::new_err("a C-contiguous array is needed");
    let x = features.as_slice().map_err(|_| contiguous())?;
    let w = weights.as_slice().map_err(|_| contiguous())?;
    let values = guarded(py, || {
        let mut out = vec![0.0; p * n];
        cranfield_ltr::scoring::scores(x, w, f, &mut out);
        Ok(out)
    })?;
    Ok(PyArray1::from_vec(py, values).reshape([p, n])?.into_any())
}

/// `ltr_scores_csr(indptr, indices, values, weights)`: the scores `W X^T` (`P x N`
/// float64) of weights `W` (`P x F`) on compressed sparse rows (`indptr`: N + 1 int64;
/// `indices`: int32, increasing within a row, below F; `values`: float64), the same
/// numbers as `ltr_scores` on the dense matrix (`cranfield_ltr::scoring::scores_csr`).
#[pyfunction]
fn ltr_scores_csr<'py>(
    py: Python<'py>,
    indptr: PyReadonlyArray1<'py, i64>,
    indices: PyReadonlyArray1<'py, i32>,
    values: PyReadonlyArray1<'py, f64>,
    weights: PyReadonlyArray2<'py, f64>,
) -> PyResult<Bound<'py, PyAny>> {
    let (p, f) = (weights.shape()[0], weights.shape()[1]);
    let indptr = slice(&indptr, "indptr")?;
    let indices = slice(&indices, "indices")?;
    let values = slice(&values, "values")?;
    let contiguous = || PyValueError::new_err("a C-contiguous array is needed");
    let w = weights.as_slice().map_err(|_| contiguous())?;
    let n = indptr.len().saturating_sub(1);
    let ok = !indptr.is_empty()
        && indptr[0] == 0
        && indptr.windows(2).all(|r| r[0] <= r[1])
        && indptr[n] as usize == indices.len()
        && indices.len() == values.len()
        && indices.iter().all(|&k| k >= 0 && (k as usize) < f.max(1));
    if !ok {
        return Err(PyValueError::new_err("not compressed sparse rows of F features"));
    }
    let values = guarded(py, || {
        let mut out = vec![0.0; p * n];
        cranfield_ltr::scoring::scores_csr(indptr, indices, values, w, f, &mut out);
        Ok(out)
    })?;
    Ok(PyArray1::from_vec(py, values).reshape([p, n])?.into_any())
}

/// Parse SVMlight ranking lines held in a bytes object (`cranfield_ltr::svmlight`).
///
/// `layout` is `dense`, `sparse` or `auto` (`cranfield_ltr::svmlight::Layout`).
/// Returns `(labels, qids, features, docs, lines)`: float64 labels, a list of query
/// ids (None when `has_qid` is false), the features (the `N x F` float64 matrix, or
/// the tuple `(indptr int64, indices int32, values float64, F)`), a list of
/// document ids (None unless every document line names one) and the 1-based line
/// number (int64) of each document. Bad input raises `ReadError((what, line,
/// detail))`: what is `label`, `pair`, `index` (detail: the token, bytes), `qid`,
/// `unexpected_qid`, `twice`, `finite`, `empty`, `size` (detail: `(rows, features)`)
/// or `internal` (a panic: a bug).
#[pyfunction]
#[pyo3(signature = (data, has_qid, max_feature, budget=None, layout="dense"))]
fn read_svmlight<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyBytes>,
    has_qid: bool,
    max_feature: usize,
    budget: Option<u64>,
    layout: &str,
) -> PyResult<Bound<'py, PyTuple>> {
    let bytes = data.as_bytes();
    let threads = cranfield_eval::judge::parallel::threads();
    let layout = match layout {
        "dense" => Layout::Dense,
        "sparse" => Layout::Sparse,
        "auto" => Layout::Auto,
        _ => return Err(PyValueError::new_err("layout: dense, sparse or auto")),
    };
    let options = svmlight::Options { has_qid, max_feature, budget, threads, layout };
    let result = py.detach(|| catch_unwind(AssertUnwindSafe(|| svmlight::parse(bytes, options))));
    let parsed = match result {
        Ok(Ok(parsed)) => parsed,
        Ok(Err(err)) => {
            let token = |t: &[u8]| Some(PyBytes::new(py, t).into_any().unbind());
            let (what, detail): (&str, Option<Py<PyAny>>) = match &err.problem {
                Problem::Label(t) => ("label", token(t)),
                Problem::Pair(t) => ("pair", token(t)),
                Problem::Index(t) => ("index", token(t)),
                Problem::Qid => ("qid", None),
                Problem::UnexpectedQid => ("unexpected_qid", None),
                Problem::Twice => ("twice", None),
                Problem::NonFinite => ("finite", None),
                Problem::Empty => ("empty", None),
                Problem::TooLarge(rows, features) => {
                    ("size", Some((*rows, *features).into_pyobject(py)?.into_any().unbind()))
                }
            };
            return Err(ReadError::new_err((what, err.line, detail)));
        }
        Err(_) => return Err(ReadError::new_err(("internal", None::<u64>, None::<u64>))),
    };
    let rows = parsed.labels.len();
    let features = match parsed.features {
        Features::Dense(x) => PyArray1::from_vec(py, x).reshape([rows, parsed.width])?.into_any(),
        Features::Sparse { indptr, indices, values } => (
            PyArray1::from_vec(py, indptr),
            PyArray1::from_vec(py, indices),
            PyArray1::from_vec(py, values),
            parsed.width,
        )
            .into_pyobject(py)?
            .into_any(),
    };
    let lines: Vec<i64> = parsed.lines.iter().map(|&l| l as i64).collect();
    let qids = has_qid.then_some(parsed.qids);
    (
        PyArray1::from_vec(py, parsed.labels),
        qids,
        features,
        parsed.docs,
        PyArray1::from_vec(py, lines),
    )
        .into_pyobject(py)
}

/// Add the class and the reader to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<LtrKernel>()?;
    m.add_function(wrap_pyfunction!(read_svmlight, m)?)?;
    m.add_function(wrap_pyfunction!(ltr_scores, m)?)?;
    m.add_function(wrap_pyfunction!(ltr_scores_csr, m)?)
}
