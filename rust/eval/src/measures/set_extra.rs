//! The families of `cranfield/core/measures/set_extra.py`: fallout and generality,
//! which need the collection size |A| (`collection_size`).
//!
//! A collection smaller than a query's relevant or retrieved documents is refused, in
//! `prepare`, as the family's run check in Python (`MeasureDef.check`) refuses it.

use super::common::{count_relevant, safe_div, top};
use crate::EvalError;
use crate::{JudgedView, Kernel, Param, Query, Refusal, Spec};

/// The families this module computes.
pub const FAMILIES: &[&str] = &["Fallout", "Generality"];

/// The kernel of `spec` when its family is one of [`FAMILIES`].
pub fn kernel(spec: &Spec) -> Option<Result<Box<dyn Kernel>, EvalError>> {
    let generality = match spec.family.as_str() {
        "Fallout" => false,
        "Generality" => true,
        _ => return None,
    };
    let made = collection_size(spec).and_then(|n| {
        let rel = spec.int("rel")?;
        Ok(if generality {
            Box::new(Generality { n, rel }) as Box<dyn Kernel>
        } else {
            Box::new(Fallout { n, rel, cutoff: spec.rank_cutoff() })
        })
    });
    Some(made)
}

/// |A| as a float (`set_extra._collection_size`): a required integer >= 1.
fn collection_size(spec: &Spec) -> Result<f64, EvalError> {
    let name = &spec.family;
    match spec.param("collection_size") {
        Param::Int(n) if *n >= 1 => Ok(*n as f64),
        Param::None => Err(EvalError::Spec(format!(
            "{name} needs the collection size: write {name}(collection_size=N), \
             N = number of documents in the collection"
        ))),
        other => Err(EvalError::Spec(format!(
            "{name}: collection_size must be an integer >= 1, got {other:?}"
        ))),
    }
}

/// (ret - relret) / (|A| - R), ranks up to the cutoff; 0 when every document is relevant.
struct Fallout {
    n: f64,
    rel: Option<i64>,
    cutoff: Option<i64>,
}

/// `set_extra._check_fits`: a MeasureError when a query has more relevant documents
/// (at `rel`, else the run's level) or, with `cutoff` given (Fallout), more retrieved
/// documents up to that cutoff than the collection holds.
fn check_fits(
    name: &str,
    n: f64,
    run: &JudgedView,
    rel: Option<i64>,
    cutoff: Option<Option<i64>>,
) -> Result<(), Refusal> {
    let too_many = (0..run.num_queries()).any(|q| {
        let q = run.query(q);
        let ret = cutoff.map_or(0, |c| top(&q, c));
        q.num_rel(rel.unwrap_or(q.rel_level)) as f64 > n || ret as f64 > n
    });
    if too_many {
        return Err(Refusal::Measure(format!(
            "{name}: collection_size={} is smaller than the number of relevant or retrieved \
             documents of a query",
            n as i64
        )));
    }
    Ok(())
}

impl Kernel for Fallout {
    fn prepare(&mut self, run: &JudgedView) -> Result<(), Refusal> {
        check_fits("Fallout", self.n, run, self.rel, Some(self.cutoff))
    }

    fn value(&self, q: &Query) -> f64 {
        let level = self.rel.unwrap_or(q.rel_level);
        let ret = top(q, self.cutoff);
        let relret = count_relevant(&q.ranked, ret, level) as f64;
        safe_div(ret as f64 - relret, self.n - q.num_rel(level) as f64)
    }
}

/// R / |A|.
struct Generality {
    n: f64,
    rel: Option<i64>,
}

impl Kernel for Generality {
    fn prepare(&mut self, run: &JudgedView) -> Result<(), Refusal> {
        check_fits("Generality", self.n, run, self.rel, None)
    }

    fn value(&self, q: &Query) -> f64 {
        q.num_rel(self.rel.unwrap_or(q.rel_level)) as f64 / self.n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Labels;

    use crate::measures::test_spec as spec;

    fn value(s: Spec) -> f64 {
        // 4 retrieved, 1 relevant among them, R = 2
        let q = Query {
            ranked: Labels::I8(&[0, 1, -1, -2]),
            judged: Labels::I8(&[3, 1, 0]),
            in_run: true,
            rel_level: 1,
            compat: 10,
        };
        kernel(&s).unwrap().unwrap().value(&q)
    }

    #[test]
    fn hand_computed() {
        let n = [("collection_size", Param::Int(10))];
        assert_eq!(value(spec("Fallout", None, &n)), 3.0 / 8.0);
        assert_eq!(value(spec("Fallout", Some(2), &n)), 1.0 / 8.0);
        assert_eq!(value(spec("Generality", None, &n)), 0.2);
        let n3 = [("collection_size", Param::Int(10)), ("rel", Param::Int(3))];
        assert_eq!(value(spec("Generality", None, &n3)), 0.1);
        // every document of the collection relevant: 0
        assert_eq!(value(spec("Fallout", None, &[("collection_size", Param::Int(2))])), 0.0);
    }

    #[test]
    fn collection_size_is_required_and_positive() {
        for bad in [Param::None, Param::Int(0), Param::Real(3.0)] {
            let s = spec("Fallout", None, &[("collection_size", bad)]);
            assert!(kernel(&s).unwrap().is_err());
        }
        assert!(kernel(&spec("Generality", None, &[])).unwrap().is_err());
    }
}
