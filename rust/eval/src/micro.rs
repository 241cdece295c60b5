//! Micro averages: a measure of the contingency counts pooled over every query (micro-
//! vs macro-averaging, Manning, Raghavan & Schütze 2008, sec. 13.6), for the families
//! whose Python definition declares `micro=` ([`MICRO`]: `P`, `R` in `precision.py`;
//! `SetP`, `SetR`, `set_F`, `SetF` in `set_based.py`; `Fallout`, `Generality` in
//! `set_extra.py`; a test checks the two lists equal). The counts are integers summed exactly, then turned into floats
//! and combined with the float operations of the Python definitions, in their order.

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

/// How a family's pooled counts make its micro average (the formula of its Python
/// `micro=`).
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

/// The families with a micro average: exactly those whose Python definition declares
/// `micro=` (checked by tests/engine/test_micro_engine.py through `micro_families`).
pub const MICRO: &[(&str, Micro)] = &[
    ("P", Micro::Precision),
    ("R", Micro::Recall),
    ("SetP", Micro::SetPrecision),
    ("SetR", Micro::SetRecall),
    ("set_F", Micro::SetFx),
    ("SetF", Micro::SetFBeta),
    ("Fallout", Micro::Fallout),
    ("Generality", Micro::Generality),
];

impl Micro {
    /// The micro average of `family`, or None when it has none.
    pub fn of(family: &str) -> Option<Micro> {
        MICRO.iter().find(|(name, _)| *name == family).map(|&(_, m)| m)
    }
}

/// The names of the families with a micro average.
pub fn micro_families() -> Vec<&'static str> {
    MICRO.iter().map(|&(name, _)| name).collect()
}

/// The micro average of `spec` over `run`, or None when its family has none.
/// An error for parameters the family does not take (the caller's general path then
/// reports them).
pub fn micro(spec: &Spec, run: &JudgedView) -> Option<Result<f64, EvalError>> {
    let how = Micro::of(&spec.family)?;
    Some(micro_of(how, spec, run))
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

/// The micro average of each spec over `run`, spec `i` on the judged-only view when
/// `judged_only[i]`; an error when a family has none here or takes other parameters.
pub fn micro_all(
    run: &JudgedView,
    specs: &[Spec],
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
            micro(spec, on).unwrap_or_else(|| {
                Err(EvalError::Spec(format!("no micro average of {}", spec.family)))
            })
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
        let value = |s: Spec| micro(&s, &run).unwrap().unwrap();
        assert_eq!(value(spec("P", Some(2), &[])), 2.0 / 4.0);
        assert_eq!(value(spec("R", Some(1), &[])), 2.0 / 3.0);
        assert_eq!(value(spec("SetP", None, &[])), 2.0 / 4.0);
        assert_eq!(value(spec("SetR", None, &[])), 2.0 / 3.0);
        let n = [("collection_size", Param::Int(10))];
        assert_eq!(value(spec("Fallout", None, &n)), 2.0 / 17.0);
        assert_eq!(value(spec("Generality", None, &n)), 3.0 / 20.0);
        let f = value(spec("SetF", None, &[]));
        assert!((f - 2.0 * 0.5 * (2.0 / 3.0) / (0.5 + 2.0 / 3.0)).abs() < 1e-15);
        assert!(micro(&spec("AP", None, &[]), &run).is_none());
    }
}
