//! The families of `cranfield/core/measures/ranked_extra.py`: summaries of the
//! precision-recall points `p_k = relret_k / k`, `r_k = relret_k / R` of every ranked
//! document, and Judged@k.

use super::common::{safe_div, top};
use crate::EvalError;
use crate::{Kernel, Param, Query, Spec};

/// The families this module computes.
pub const FAMILIES: &[&str] = &["PrecAtRecall", "Efficiency", "AUPRC", "Judged"];

/// The kernel of `spec` when its family is one of [`FAMILIES`].
pub fn kernel(spec: &Spec) -> Option<Result<Box<dyn Kernel>, EvalError>> {
    let made: Result<Box<dyn Kernel>, EvalError> = match spec.family.as_str() {
        "PrecAtRecall" => PrecAtRecall::new(spec).map(|k| Box::new(k) as Box<dyn Kernel>),
        "Efficiency" => {
            spec.int("rel").map(|rel| Box::new(Efficiency { rel, cutoff: spec.rank_cutoff() }) as _)
        }
        "AUPRC" => Auprc::new(spec).map(|k| Box::new(k) as Box<dyn Kernel>),
        "Judged" => Ok(Box::new(Judged { cutoff: spec.rank_cutoff() })),
        _ => return None,
    };
    Some(made)
}

/// The precision-recall points of a query, rank by rank (`ranked_extra.pr_points`).
struct Points<'q, 'a> {
    q: &'q Query<'a>,
    level: i64,
    /// R as a float; recall is 0 where R = 0.
    num_rel: f64,
    rank: usize,
    so_far: u64,
}

/// One ranked document's point.
struct Point {
    precision: f64,
    recall: f64,
    relevant: bool,
}

impl<'q, 'a> Points<'q, 'a> {
    fn new(q: &'q Query<'a>, level: i64) -> Self {
        Points { q, level, num_rel: q.num_rel(level) as f64, rank: 0, so_far: 0 }
    }
}

impl Iterator for Points<'_, '_> {
    type Item = Point;

    fn next(&mut self) -> Option<Point> {
        if self.rank >= self.q.num_ret() {
            return None;
        }
        let relevant = self.q.ranked.relevant(self.rank, self.level);
        self.so_far += u64::from(relevant);
        self.rank += 1;
        let so_far = self.so_far as f64;
        Some(Point {
            precision: so_far / self.rank as f64,
            recall: safe_div(so_far, self.num_rel),
            relevant,
        })
    }
}

/// Precision where recall first reaches the cutoff r_t, or (interpolated) the best
/// precision at or after it; 0 when R = 0 or recall never reaches r_t.
struct PrecAtRecall {
    rel: Option<i64>,
    threshold: f64,
    interpolated: bool,
}

impl PrecAtRecall {
    fn new(spec: &Spec) -> Result<Self, EvalError> {
        let threshold = spec.real_cutoff().ok_or_else(|| {
            EvalError::Spec("PrecAtRecall needs a recall cutoff, e.g. PrecAtRecall@0.5".into())
        })?;
        let interpolated = match spec.param("interpolated") {
            Param::None => true,
            Param::Bool(b) => *b,
            other => {
                return Err(EvalError::Spec(format!(
                    "PrecAtRecall: parameter interpolated must be a bool, got {other:?}"
                )))
            }
        };
        Ok(PrecAtRecall { rel: spec.int("rel")?, threshold, interpolated })
    }
}

impl Kernel for PrecAtRecall {
    fn value(&self, q: &Query) -> f64 {
        let points = Points::new(q, self.rel.unwrap_or(q.rel_level));
        if points.num_rel <= 0.0 {
            return 0.0;
        }
        let mut reached = points.filter(|p| p.recall >= self.threshold);
        if self.interpolated {
            reached.fold(0.0, |best: f64, p| best.max(p.precision))
        } else {
            reached.next().map_or(0.0, |p| p.precision)
        }
    }
}

/// 1 - (distance of the closest point within the cutoff to (1, 1)) / sqrt 2; 0 when
/// R = 0 or no point.
struct Efficiency {
    rel: Option<i64>,
    cutoff: Option<i64>,
}

impl Kernel for Efficiency {
    fn value(&self, q: &Query) -> f64 {
        let points = Points::new(q, self.rel.unwrap_or(q.rel_level));
        if points.num_rel <= 0.0 {
            return 0.0;
        }
        let best = points
            .take(top(q, self.cutoff))
            .map(|p| {
                let (a, b) = (1.0 - p.precision, 1.0 - p.recall);
                (a * a + b * b).sqrt()
            })
            .fold(f64::INFINITY, f64::min);
        if best.is_finite() {
            1.0 - best / 2.0f64.sqrt()
        } else {
            0.0
        }
    }
}

/// Area under the precision-recall curve: interpolated step curve or trapezoids.
struct Auprc {
    rel: Option<i64>,
    cutoff: Option<i64>,
    trapezoid: bool,
}

impl Auprc {
    fn new(spec: &Spec) -> Result<Self, EvalError> {
        let trapezoid = match spec.param("method") {
            Param::None => false,
            Param::Text(m) if m == "interpolated" => false,
            Param::Text(m) if m == "trapezoid" => true,
            other => {
                return Err(EvalError::Spec(format!(
                    "AUPRC: parameter method must be 'interpolated' or 'trapezoid', got {other:?}"
                )))
            }
        };
        Ok(Auprc { rel: spec.int("rel")?, cutoff: spec.rank_cutoff(), trapezoid })
    }
}

impl Kernel for Auprc {
    fn value(&self, q: &Query) -> f64 {
        let points = Points::new(q, self.rel.unwrap_or(q.rel_level));
        let num_rel = points.num_rel;
        if num_rel <= 0.0 {
            return 0.0; // no valid point: the sum is +0.0, and 0 / 0 is 0
        }
        let n = top(q, self.cutoff);
        // the heights of the relevant documents in rank order, summed left to right
        let mut total = 0.0;
        if self.trapezoid {
            let mut previous = 1.0;
            for p in points.take(n) {
                if p.relevant {
                    total += (previous + p.precision) / 2.0;
                }
                previous = p.precision;
            }
        } else {
            // interpolated precision: the running maximum from the end of the top n.
            // Between two relevant documents precision falls, so the maximum at or after
            // a relevant document is reached at a relevant document: only those are kept.
            let mut heights: Vec<f64> =
                points.take(n).filter(|p| p.relevant).map(|p| p.precision).collect();
            let mut best = f64::NEG_INFINITY;
            for h in heights.iter_mut().rev() {
                best = best.max(*h);
                *h = best;
            }
            total = heights.iter().fold(total, |sum, h| sum + h);
        }
        total / num_rel
    }
}

/// The fraction of the top min(k, n) present in the qrels; 0 for an empty ranking.
struct Judged {
    cutoff: Option<i64>,
}

impl Kernel for Judged {
    fn value(&self, q: &Query) -> f64 {
        let n = top(q, self.cutoff);
        let judged = (0..n).filter(|&i| q.ranked.pooled(i)).count();
        safe_div(judged as f64, n as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Cutoff, Labels};
    use std::collections::BTreeMap;

    fn spec(family: &str, cutoff: Option<Cutoff>, params: &[(&str, Param)]) -> Spec {
        let params: BTreeMap<String, Param> =
            params.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
        Spec { family: family.into(), cutoff, params }
    }

    // relevant at ranks 1 and 3 of 4, R = 4: points (1, 1/4), (1/2, 1/4), (2/3, 1/2), (1/2, 1/2)
    const RANKED: &[i64] = &[1, 0, 2, -1];
    const JUDGED: &[i64] = &[2, 1, 1, 1, 0];

    fn value(s: Spec) -> f64 {
        let q = Query {
            ranked: Labels::I64(RANKED),
            judged: Labels::I64(JUDGED),
            in_run: true,
            rel_level: 1,
            compat: 10,
        };
        kernel(&s).unwrap().unwrap().value(&q)
    }

    #[test]
    fn hand_computed() {
        let at = |r: f64| Some(Cutoff::Real(r));
        assert_eq!(value(spec("PrecAtRecall", at(0.5), &[])), 2.0 / 3.0);
        assert_eq!(value(spec("PrecAtRecall", at(0.25), &[])), 1.0);
        let first = [("interpolated", Param::Bool(false))];
        assert_eq!(value(spec("PrecAtRecall", at(0.5), &first)), 2.0 / 3.0);
        assert_eq!(value(spec("PrecAtRecall", at(0.75), &[])), 0.0);
        // closest point (2/3, 1/2): distance sqrt(1/9 + 1/4) = sqrt(13) / 6
        let e = 1.0 - 13f64.sqrt() / 6.0 / 2.0f64.sqrt();
        assert!((value(spec("Efficiency", None, &[])) - e).abs() < 1e-15);
        // within the top 1: the point (1, 1/4), distance 3/4
        assert_eq!(
            value(spec("Efficiency", Some(Cutoff::Rank(1)), &[])),
            1.0 - 0.75 / 2.0f64.sqrt()
        );
        // interpolated: (1 + 2/3) / 4; trapezoid: ((1 + 1)/2 + (1/2 + 2/3)/2) / 4
        assert_eq!(value(spec("AUPRC", None, &[])), (1.0 + 2.0 / 3.0) / 4.0);
        let trap = [("method", Param::Text("trapezoid".into()))];
        assert_eq!(value(spec("AUPRC", None, &trap)), (1.0 + (0.5 + 2.0 / 3.0) / 2.0) / 4.0);
        assert_eq!(value(spec("AUPRC", Some(Cutoff::Rank(2)), &[])), 0.25);
        assert_eq!(value(spec("Judged", None, &[])), 0.75);
        assert_eq!(value(spec("Judged", Some(Cutoff::Rank(2)), &[])), 1.0);
    }

    #[test]
    fn bad_parameters_are_errors() {
        let bad = [("method", Param::Text("spline".into()))];
        assert!(kernel(&spec("AUPRC", None, &bad)).unwrap().is_err());
        assert!(kernel(&spec("PrecAtRecall", None, &[])).unwrap().is_err());
        let bad = [("interpolated", Param::Int(1))];
        assert!(kernel(&spec("PrecAtRecall", Some(Cutoff::Real(0.5)), &bad)).unwrap().is_err());
    }
}
