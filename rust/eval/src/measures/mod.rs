//! The measure families of cranfield's registry (`cranfield/core/measures/*.py`), one
//! module per Python module, each family computed one query at a time.
//!
//! Every family gives the same value, bit for bit, as the registry's NumPy kernel it
//! replaces (tests/engine/test_measure_kernels.py compares them on random judged runs);
//! the formulas, sources and edge cases are documented with the Python declaration.

pub(crate) mod common;
mod counts;
pub mod cwl;
mod gain;
mod gdeval;
mod graded_extra;
mod ntcir;
mod precision;
mod ranked_extra;
pub(crate) mod set_based;
mod set_extra;
mod shared;
mod user_models;

pub use shared::Shared;

use crate::EvalError;
use crate::{Column, JudgedView, Kernel, Refusal, Spec};
use cranfield_trec::room::spawn;

/// Each module: `FAMILIES` it computes and `kernel(spec)` (None for another module's family).
type Maker = fn(&Spec) -> Option<Result<Box<dyn Kernel>, EvalError>>;

const MODULES: &[(&[&str], Maker)] = &[
    (precision::FAMILIES, precision::kernel),
    (counts::FAMILIES, counts::kernel),
    (gain::FAMILIES, gain::kernel),
    (graded_extra::FAMILIES, graded_extra::kernel),
    (user_models::FAMILIES, user_models::kernel),
    (set_based::FAMILIES, set_based::kernel),
    (ranked_extra::FAMILIES, ranked_extra::kernel),
    (set_extra::FAMILIES, set_extra::kernel),
    (cwl::FAMILIES, cwl::kernel),
    (gdeval::FAMILIES, gdeval::kernel),
    (ntcir::FAMILIES, ntcir::kernel),
];

/// A made kernel, boxed (the modules' `kernel` functions build theirs with it).
fn boxed<K: Kernel + 'static>(made: Result<K, EvalError>) -> Result<Box<dyn Kernel>, EvalError> {
    made.map(|k| Box::new(k) as Box<dyn Kernel>)
}

/// The names of the families the engine computes.
pub fn families() -> Vec<&'static str> {
    MODULES.iter().flat_map(|(names, _)| names.iter().copied()).collect()
}

/// The kernel of one measure; an error for an unknown family or a bad parameter.
pub fn kernel(spec: &Spec) -> Result<Box<dyn Kernel>, EvalError> {
    for (_, make) in MODULES {
        if let Some(made) = make(spec) {
            return made;
        }
    }
    Err(EvalError::Spec(format!(
        "the engine has no kernel for the measure family {:?}",
        spec.family
    )))
}

/// Every measure for every query of `run`: one column per kernel. Each kernel first
/// reads the whole run ([`Kernel::prepare`]; the first refusal is returned). Queries
/// are then split into `threads` contiguous chunks; each thread computes all kernels
/// of its queries (one query's arrays stay in cache across measures), sharing the
/// query's common work between them ([`Shared`]: relevant ranks, gains, ideal DCG...).
pub fn compute(
    run: &JudgedView,
    kernels: &mut [Box<dyn Kernel>],
    threads: usize,
) -> Result<Vec<Column>, Refusal> {
    for k in kernels.iter_mut() {
        k.prepare(run)?;
    }
    let kernels: &[Box<dyn Kernel>] = kernels;
    let n = run.num_queries();
    let threads = threads.clamp(1, n.max(1));
    let chunk = n.div_ceil(threads).max(1);
    // the first chunks on threads of their own, the last on this one (a single chunk,
    // the common case of a small run, starts no thread)
    let starts: Vec<usize> = (0..n).step_by(chunk).collect();
    let last = starts.last().copied().unwrap_or(0);
    let parts: Vec<Vec<Column>> = std::thread::scope(|scope| {
        let handles: Vec<_> = starts[..starts.len().saturating_sub(1)]
            .iter()
            .map(|&start| {
                let end = (start + chunk).min(n);
                // a thread the system refuses (no memory for its stack): done here
                spawn(scope, move || columns(run, kernels, start..end))
                    .ok_or_else(|| columns(run, kernels, start..end))
            })
            .collect();
        let here = columns(run, kernels, last..n);
        let join = |h: std::thread::ScopedJoinHandle<'_, _>| h.join();
        let mut parts: Vec<Vec<Column>> = handles
            .into_iter()
            .map(|h| h.map_or_else(Ok, join).expect("a measure kernel panicked"))
            .collect();
        parts.push(here);
        parts
    });
    if let [_] = parts.as_slice() {
        return Ok(parts.into_iter().next().unwrap_or_default());
    }
    let mut out: Vec<Column> = kernels
        .iter()
        .map(|k| {
            if k.is_text() {
                Column::Texts(Vec::with_capacity(n))
            } else {
                Column::Numbers(Vec::with_capacity(n))
            }
        })
        .collect();
    for part in parts {
        for (all, piece) in out.iter_mut().zip(part) {
            match (all, piece) {
                (Column::Numbers(a), Column::Numbers(p)) => a.extend(p),
                (Column::Texts(a), Column::Texts(p)) => a.extend(p),
                _ => unreachable!("a kernel's column kind is fixed"),
            }
        }
    }
    Ok(out)
}

fn columns(
    run: &JudgedView,
    kernels: &[Box<dyn Kernel>],
    queries: std::ops::Range<usize>,
) -> Vec<Column> {
    let mut out: Vec<Column> = kernels
        .iter()
        .map(|k| if k.is_text() { Column::Texts(Vec::new()) } else { Column::Numbers(Vec::new()) })
        .collect();
    let mut shared = Shared::default();
    for q in queries {
        let query = run.query(q);
        shared.reset();
        for (column, k) in out.iter_mut().zip(kernels) {
            match column {
                Column::Numbers(v) => v.push(k.value_shared(&query, &mut shared)),
                Column::Texts(v) => v.push(k.text(&query)),
            }
        }
    }
    out
}

/// A query of an integer-labelled ranking, in the run, default level and compat (the
/// kernels' unit tests).
#[cfg(test)]
pub(crate) fn test_query<'a>(ranked: &'a [i64], judged: &'a [i64]) -> crate::Query<'a> {
    crate::Query {
        ranked: crate::Labels::I64(ranked),
        judged: crate::Labels::I64(judged),
        in_run: true,
        rel_level: 1,
        compat: 10,
    }
}

/// A spec for tests: `family`, a rank cutoff, parameters.
#[cfg(test)]
pub(crate) fn test_spec(
    family: &str,
    cutoff: Option<i64>,
    params: &[(&str, crate::Param)],
) -> Spec {
    let params = params.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
    Spec { family: family.into(), cutoff: cutoff.map(crate::Cutoff::Rank), params }
}
