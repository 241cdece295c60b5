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

use crate::judge::parallel;
use crate::EvalError;
use crate::{Column, JudgedView, Kernel, Refusal, Spec};

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
/// reads the whole run ([`Kernel::prepare`]; the first refusal is returned). Blocks of
/// [`QUERIES_PER_BLOCK`] queries then go to `threads` threads as each comes free
/// (the calling thread one of them); a thread computes all kernels of a query in turn
/// (its arrays stay in cache across measures), sharing the query's common work
/// between them ([`Shared`]: relevant ranks, gains, ideal DCG...). Every value
/// depends on its query alone, so the columns are the same on any number of threads.
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
    // blocks of queries handed out as threads come free (a thread slowed by another
    // process, or a slower core, takes fewer), each block's columns joined in order
    let blocks = n.div_ceil(QUERIES_PER_BLOCK);
    let block = |shared: &mut Shared, b: usize| {
        let start = b * QUERIES_PER_BLOCK;
        columns(run, kernels, shared, start..(start + QUERIES_PER_BLOCK).min(n))
    };
    let mut parts = parallel::map(blocks, threads, Shared::default, block).into_iter();
    let mut out =
        parts.next().unwrap_or_else(|| columns(run, kernels, &mut Shared::default(), 0..0));
    for column in &mut out {
        match column {
            Column::Numbers(v) => v.reserve_exact(n - v.len()),
            Column::Texts(v) => v.reserve_exact(n - v.len()),
        }
    }
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

/// The queries of one task of [`compute`]: enough that a task's columns (one vector
/// per kernel) cost little beside its measures, few enough that the threads end
/// together.
const QUERIES_PER_BLOCK: usize = 32;

fn columns(
    run: &JudgedView,
    kernels: &[Box<dyn Kernel>],
    shared: &mut Shared,
    queries: std::ops::Range<usize>,
) -> Vec<Column> {
    let mut out: Vec<Column> = kernels
        .iter()
        .map(|k| if k.is_text() { Column::Texts(Vec::new()) } else { Column::Numbers(Vec::new()) })
        .collect();
    for q in queries {
        let query = run.query(q);
        shared.reset();
        for (column, k) in out.iter_mut().zip(kernels) {
            match column {
                Column::Numbers(v) => v.push(k.value_shared(&query, shared)),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Xorshift as Rng;
    use crate::{JudgedView, Labels};

    /// Every family's kernel the spec without parameters makes, at no cutoff and at 10.
    fn every_kernel() -> Vec<Box<dyn Kernel>> {
        families()
            .into_iter()
            .flat_map(|f| [None, Some(10)].map(|cutoff| kernel(&test_spec(f, cutoff, &[]))))
            .filter_map(Result::ok)
            .collect()
    }

    /// A column with each number as its bits (NaN equals NaN), or its texts.
    type Bits = Result<Vec<u64>, Vec<String>>;

    fn bits(columns: Result<Vec<Column>, Refusal>) -> Result<Vec<Bits>, Refusal> {
        columns.map(|c| {
            c.into_iter()
                .map(|c| match c {
                    Column::Numbers(v) => Ok(v.iter().map(|x| x.to_bits()).collect()),
                    Column::Texts(v) => Err(v),
                })
                .collect()
        })
    }

    #[test]
    fn the_columns_are_the_same_on_any_number_of_threads() {
        let kernels = every_kernel();
        assert!(kernels.len() >= 60, "{} kernels", kernels.len());
        assert!(kernels.iter().any(|k| k.is_text()));
        let mut rng = Rng(0x9e37_79b9);
        // none, fewer than a block, one block, blocks and a part, many
        for queries in [0usize, 1, 31, 32, 33, 100, 317] {
            let mut offsets = vec![0i64];
            let mut qrels_offsets = vec![0i64];
            let (mut labels, mut grades, mut in_run) = (Vec::new(), Vec::new(), Vec::new());
            for _ in 0..queries {
                let ranked = rng.below(60) as usize;
                labels.extend((0..ranked).map(|_| rng.below(6) as i8 - 2));
                offsets.push(labels.len() as i64);
                let mut judged: Vec<i8> = (0..rng.below(40)).map(|_| rng.below(4) as i8).collect();
                judged.sort_unstable_by(|a, b| b.cmp(a));
                grades.extend(judged);
                qrels_offsets.push(grades.len() as i64);
                in_run.push(rng.below(8) != 0);
            }
            let run = JudgedView {
                offsets: &offsets,
                labels: Labels::I8(&labels),
                qrels_offsets: &qrels_offsets,
                qrels_grades: Labels::I8(&grades),
                in_run: &in_run,
                rel_level: 1,
                compat: 10,
            };
            let one = bits(compute(&run, &mut every_kernel(), 1));
            assert!(one.as_ref().is_ok_and(|c| c.len() == kernels.len()));
            for threads in [2, 3, 8] {
                let many = bits(compute(&run, &mut every_kernel(), threads));
                assert_eq!(one, many, "{queries} queries on {threads} threads");
            }
        }
    }
}
