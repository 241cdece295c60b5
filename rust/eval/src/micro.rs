//! Micro averages: a measure of the contingency counts pooled over every query (micro-
//! vs macro-averaging, Manning, Raghavan & Schütze 2008, sec. 13.6). Which formula a
//! measure's micro average is, is its Python declaration's `micro=` field
//! (`core/measures/declaration.py`, `Micro(formula, specification)`): the caller
//! passes the formula's name ([`MICRO`]) with each spec, and no family name is known
//! here. The counts are integers summed exactly, then turned into floats and combined
//! with the float operations of the declared NumPy specifications, in their order.

use crate::measures::set_based::f_measure;
use crate::views::JudgedOnly;
use crate::EvalError;
use crate::{JudgedView, Labels, Param, Spec};

/// Relevant ranked documents (label >= `level`) among the first `n` of `ranked`.
fn relevant_in(ranked: &Labels, n: usize, level: i64) -> u64 {
    (0..n).filter(|&i| ranked.relevant(i, level)).count() as u64
}

/// The first `cutoff` ranks of a ranking of `n` documents (all of them without one).
fn depth(n: usize, cutoff: Option<i64>) -> usize {
    cutoff.map_or(n, |k| n.min(usize::try_from(k.max(0)).unwrap_or(usize::MAX)))
}

/// Pooled counts: relevant retrieved (up to `cutoff`), retrieved (up to `cutoff`) and
/// relevant, summed over the queries of `run` at `rel` (else the run's level).
fn pooled(run: &JudgedView, rel: Option<i64>, cutoff: Option<i64>) -> (u64, u64, u64) {
    let (mut relret, mut ret, mut r) = (0u64, 0u64, 0u64);
    for q in 0..run.num_queries() {
        let query = run.query(q);
        let level = rel.unwrap_or(query.rel_level);
        let n = depth(query.num_ret(), cutoff);
        relret += relevant_in(&query.ranked, n, level);
        ret += n as u64;
        r += query.num_rel(level) as u64;
    }
    (relret, ret, r)
}

fn safe_div(num: f64, den: f64) -> f64 {
    if den != 0.0 {
        num / den
    } else {
        0.0
    }
}

fn real(spec: &Spec, name: &str, default: f64) -> Result<f64, EvalError> {
    Ok(spec.real(name)?.unwrap_or(default))
}

fn collection_size(spec: &Spec) -> Result<f64, EvalError> {
    match spec.param("collection_size") {
        Param::Int(n) => Ok(*n as f64),
        _ => Err(EvalError::Spec(format!(
            "{}: micro average without a collection size",
            spec.family
        ))),
    }
}

/// How pooled counts make a micro average (the formula a Python declaration names in
/// its `micro=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Micro {
    /// relret@k / (k * queries)
    Precision,
    /// relret@k / R (every ranked document without a cutoff)
    Recall,
    /// relret / ret
    SetPrecision,
    /// relret / R
    SetRecall,
    /// F with beta^2 = `x`
    SetFx,
    /// F with beta^2 = `beta`^2
    SetFBeta,
    /// (ret@k - relret@k) / (queries * N - R)
    Fallout,
    /// R / (queries * N)
    Generality,
}

/// The formulas of micro averages, by the names declarations give them (a test checks
/// that every declared name is here: tests/engine/test_kernels_registry.py).
pub const MICRO: &[(&str, Micro)] = &[
    ("precision", Micro::Precision),
    ("recall", Micro::Recall),
    ("set_precision", Micro::SetPrecision),
    ("set_recall", Micro::SetRecall),
    ("set_f", Micro::SetFx),
    ("set_f_beta", Micro::SetFBeta),
    ("fallout", Micro::Fallout),
    ("generality", Micro::Generality),
];

impl Micro {
    /// The formula named `name`, or None when there is none of that name.
    pub fn of(name: &str) -> Option<Micro> {
        MICRO.iter().find(|(known, _)| *known == name).map(|&(_, m)| m)
    }
}

/// The names of the formulas of micro averages.
pub fn micro_formulas() -> Vec<&'static str> {
    MICRO.iter().map(|&(name, _)| name).collect()
}

/// The micro average of `spec` over `run` by the formula named `formula`; an error for
/// an unknown formula or parameters the formula does not take (the caller's general
/// path then reports them).
pub fn micro(spec: &Spec, formula: &str, run: &JudgedView) -> Result<f64, EvalError> {
    let how = Micro::of(formula).ok_or_else(|| {
        EvalError::Spec(format!("{}: no micro average called {formula:?}", spec.family))
    })?;
    micro_of(how, spec, run)
}

fn micro_of(how: Micro, spec: &Spec, run: &JudgedView) -> Result<f64, EvalError> {
    let rel = spec.int("rel")?;
    let nq = run.num_queries();
    Ok(match how {
        Micro::Precision => {
            let k = spec
                .rank_cutoff()
                .ok_or_else(|| EvalError::Spec("P: micro average without a cutoff".into()))?;
            let (relret, _, _) = pooled(run, rel, Some(k));
            if nq == 0 {
                0.0
            } else {
                // Python: relret / (cutoff * num_queries), an exact integer product
                relret as f64 / (i128::from(k) * nq as i128) as f64
            }
        }
        Micro::Recall => {
            let (relret, _, r) = pooled(run, rel, spec.rank_cutoff());
            safe_div(relret as f64, r as f64)
        }
        Micro::SetPrecision => {
            let (relret, ret, _) = pooled(run, rel, None);
            safe_div(relret as f64, ret as f64)
        }
        Micro::SetRecall => {
            let (relret, _, r) = pooled(run, rel, None);
            safe_div(relret as f64, r as f64)
        }
        Micro::SetFx | Micro::SetFBeta => {
            let beta2 = if how == Micro::SetFx {
                real(spec, "x", 1.0)?
            } else {
                real(spec, "beta", 1.0)?.powi(2)
            };
            let (relret, ret, r) = pooled(run, rel, None);
            f_measure(relret as f64, ret as f64, r as f64, beta2)
        }
        Micro::Fallout => {
            let n = collection_size(spec)?;
            let (relret, ret, r) = pooled(run, rel, spec.rank_cutoff());
            safe_div((ret - relret) as f64, nq as f64 * n - r as f64)
        }
        Micro::Generality => {
            let n = collection_size(spec)?;
            let (_, _, r) = pooled(run, rel, None);
            safe_div(r as f64, nq as f64 * n)
        }
    })
}

/// The micro average of each spec over `run` by its formula (`formulas[i]`, the names
/// of [`MICRO`]), spec `i` on the judged-only view when `judged_only[i]`; an error when
/// a spec has no formula or takes other parameters.
pub fn micro_all(
    run: &JudgedView,
    specs: &[Spec],
    formulas: &[String],
    judged_only: &[bool],
) -> Result<Vec<f64>, EvalError> {
    let on_view = |i: usize| judged_only.get(i).copied().unwrap_or(false);
    let data = (0..specs.len()).any(on_view).then(|| JudgedOnly::of(run));
    let view = data.as_ref().map(|d| d.view(run));
    specs
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            let on = if on_view(i) { view.as_ref().unwrap_or(run) } else { run };
            let formula = formulas
                .get(i)
                .ok_or_else(|| EvalError::Spec(format!("no micro average of {}", spec.family)))?;
            micro(spec, formula, on)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::measures::test_spec as spec;

    #[test]
    fn pooled_counts_over_queries() {
        // q0: ranked 1, 0, -1 (R = 2); q1: ranked 2 (R = 1)
        let labels = [1i8, 0, -1, 2];
        let run = JudgedView {
            offsets: &[0, 3, 4],
            labels: Labels::I8(&labels),
            qrels_offsets: &[0, 3, 4],
            qrels_grades: Labels::I8(&[3, 1, 0, 2]),
            in_run: &[true, true],
            rel_level: 1,
            compat: 10,
        };
        let value = |s: Spec, formula: &str| micro(&s, formula, &run).unwrap();
        assert_eq!(value(spec("P", Some(2), &[]), "precision"), 2.0 / 4.0);
        assert_eq!(value(spec("R", Some(1), &[]), "recall"), 2.0 / 3.0);
        assert_eq!(value(spec("SetP", None, &[]), "set_precision"), 2.0 / 4.0);
        assert_eq!(value(spec("SetR", None, &[]), "set_recall"), 2.0 / 3.0);
        let n = [("collection_size", Param::Int(10))];
        assert_eq!(value(spec("Fallout", None, &n), "fallout"), 2.0 / 17.0);
        assert_eq!(value(spec("Generality", None, &n), "generality"), 3.0 / 20.0);
        let f = value(spec("SetF", None, &[]), "set_f_beta");
        assert!((f - 2.0 * 0.5 * (2.0 / 3.0) / (0.5 + 2.0 / 3.0)).abs() < 1e-15);
        assert!(micro(&spec("AP", None, &[]), "average_precision", &run).is_err());
    }
}
