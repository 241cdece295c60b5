//! `ReadCounter`: the bytes an engine call has read, for a progress bar.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use pyo3::prelude::*;

/// A counter of the bytes an engine call reads from its inputs (as stored: compressed
/// for gzip), updated while the call works.
///
/// Pass one as `progress=` to `evaluate_trec_files`, `trec_eval_files` or
/// `judge_trec_files` and read `bytes` from another thread (the call releases the
/// interpreter): `cranfield.progress.Progress.watch` draws a bar from it.
#[pyclass(frozen, module = "cranfield._engine")]
pub struct ReadCounter {
    pub bytes: Arc<AtomicU64>,
}

#[pymethods]
impl ReadCounter {
    #[new]
    fn new() -> Self {
        ReadCounter { bytes: Arc::new(AtomicU64::new(0)) }
    }

    /// The bytes read so far.
    #[getter]
    fn bytes(&self) -> u64 {
        self.bytes.load(Ordering::Relaxed)
    }
}

/// The shared counter of an optional `ReadCounter` argument.
pub fn counter(progress: Option<&Bound<'_, ReadCounter>>) -> Option<Arc<AtomicU64>> {
    progress.map(|p| p.get().bytes.clone())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ReadCounter>()
}
