//! The families of `cranfield/core/measures/graded_extra.py`: cumulated gain, ERR and
//! ir_measures' RBP with its residual.

use super::boxed;
use super::common::{
    depth, format_g, format_int, persistence, power, powers, rank_cutoff, safe_div, seq_sum, Gains,
};
use crate::EvalError;
use crate::{JudgedView, Kernel, Labels, Query, Refusal, Spec};

/// The families this module computes.
pub const FAMILIES: &[&str] = &["CG", "nCG", "ERR", "RBP", "RBPResidual"];

/// The kernel of `spec` when its family is one of [`FAMILIES`].
pub fn kernel(spec: &Spec) -> Option<Result<Box<dyn Kernel>, EvalError>> {
    let made = match spec.family.as_str() {
        "CG" => boxed(Cg::new(spec, false)),
        "nCG" => boxed(Cg::new(spec, true)),
        "ERR" => boxed(Cascade::new(spec)),
        "RBP" => boxed(Rbp::new(spec, false)),
        "RBPResidual" => boxed(Rbp::new(spec, true)),
        _ => return None,
    };
    Some(made)
}

/// CG@k (the sum of the top k gains) and nCG@k = CG@k / (k * rel_max).
struct Cg {
    gains: Gains,
    cutoff: Option<i64>,
    /// nCG: `max_gain`, the largest gain of the qrels when not given (set by prepare).
    normalise: bool,
    max_gain: Option<f64>,
    /// The NumPy sum leaves zero terms out (long runs of mostly zero gains): it matters
    /// for -0.0 gains only.
    sparse: bool,
}

impl Cg {
    fn new(spec: &Spec, normalise: bool) -> Result<Self, EvalError> {
        let cutoff = rank_cutoff(spec)?;
        let max_gain = spec.real("max_gain")?;
        if normalise {
            if !matches!(cutoff, Some(k) if k >= 1) {
                return Err(EvalError::Spec(format!(
                    "{} needs a rank cutoff of at least 1",
                    spec.family
                )));
            }
            if matches!(max_gain, Some(m) if !m.is_finite()) {
                return Err(EvalError::Spec(format!(
                    "{}: max_gain must be a finite number",
                    spec.family
                )));
            }
        }
        Ok(Cg { gains: Gains::of(spec)?, cutoff, normalise, max_gain, sparse: false })
    }

    fn cg(&self, q: &Query) -> f64 {
        let n = q.num_ret();
        let k = depth(n, self.cutoff);
        let terms = (0..k).map(|i| self.gains.gain(&q.ranked, i));
        if self.sparse {
            seq_sum(terms.filter(|&g| g != 0.0))
        } else if k < n {
            seq_sum(terms) + 0.0 // the zero terms past the cutoff
        } else {
            seq_sum(terms)
        }
    }
}

impl Kernel for Cg {
    fn prepare(&mut self, run: &JudgedView) -> Result<(), Refusal> {
        if self.normalise && self.max_gain.is_none() {
            self.gains.check(&run.qrels_grades)?;
            let grades = &run.qrels_grades;
            let largest = (0..grades.len())
                .map(|i| self.gains.gain(grades, i))
                .fold(None, |m: Option<f64>, g| Some(m.map_or(g, |m| if g > m { g } else { m })));
            self.max_gain = Some(largest.unwrap_or(0.0));
        }
        self.gains.check(&run.labels)?;
        let negative_zero = self.gains.0.iter().any(|(_, g)| *g == 0.0 && g.is_sign_negative());
        if negative_zero || run.labels.is_real() {
            // segments.sequential_sum: over 4096 terms, mostly zero, the zeros are left out
            let n = run.labels.len();
            let nonzero: usize = (0..run.num_queries())
                .map(|q| {
                    let q = run.query(q);
                    let k = depth(q.num_ret(), self.cutoff);
                    (0..k).filter(|&i| self.gains.gain(&q.ranked, i) != 0.0).count()
                })
                .sum();
            self.sparse = n > 4096 && nonzero * 2 < n;
        }
        Ok(())
    }

    fn value(&self, q: &Query) -> f64 {
        let cg = self.cg(q);
        if !self.normalise {
            return cg;
        }
        let k = self.cutoff.unwrap_or(1) as f64;
        let m = self.max_gain.unwrap_or(0.0);
        safe_div(cg, k * if 0.0 > m { 0.0 } else { m })
    }
}

/// ERR's largest max_grade (2^g - 1 exact for every grade up to it).
const MAX_ERR_GRADE: i64 = 53;

/// ERR@k = sum_i (1/i) R_i prod_{j<i} (1 - R_j), R_i = (2^g_i - 1) / 2^max_grade.
struct Cascade {
    max_grade: i64,
    cutoff: Option<i64>,
}

impl Cascade {
    fn new(spec: &Spec) -> Result<Self, EvalError> {
        let max_grade = spec.int("max_grade")?.unwrap_or(4);
        if !(0..=MAX_ERR_GRADE).contains(&max_grade) {
            return Err(EvalError::Spec(format!(
                "{}: max_grade must be an integer in [0, {MAX_ERR_GRADE}], got {max_grade}",
                spec.family
            )));
        }
        Ok(Cascade { max_grade, cutoff: rank_cutoff(spec)? })
    }
}

impl Kernel for Cascade {
    fn prepare(&mut self, run: &JudgedView) -> Result<(), Refusal> {
        // the largest grade within the cutoff must not exceed max_grade (R_i <= 1)
        let mut top: Option<f64> = None;
        let mut top_int: Option<i64> = None;
        for q in 0..run.num_queries() {
            let q = run.query(q);
            for i in 0..depth(q.num_ret(), self.cutoff) {
                match q.ranked {
                    Labels::F64(v) => {
                        top = Some(top.map_or(v[i], |t| if v[i] > t { v[i] } else { t }))
                    }
                    _ => {
                        top_int =
                            Some(top_int.map_or(q.ranked.grade(i), |t| t.max(q.ranked.grade(i))))
                    }
                }
            }
        }
        let (too_high, text, ceil) = match (top, top_int) {
            (Some(t), _) => (
                t > self.max_grade as f64,
                if t == t.floor() { format_int(t) } else { format_g(t) },
                format_int(t.ceil()),
            ),
            // math.ceil of an int64 goes through a double, as here
            (None, Some(t)) => (t > self.max_grade, t.to_string(), format_int((t as f64).ceil())),
            (None, None) => return Ok(()),
        };
        if too_high {
            return Err(Refusal::Measure(format!(
                "ERR: grade {text} exceeds max_grade={}; use ERR(max_grade={ceil})",
                self.max_grade
            )));
        }
        Ok(())
    }

    fn value(&self, q: &Query) -> f64 {
        let scale = (1u64 << self.max_grade) as f64;
        let mut log_reach = 0.0f64; // sum of log(1 - R_j) above the rank, from +0.0
        let mut total = -0.0; // -0.0 + x == x: the first term starts the sum
        let k = depth(q.num_ret(), self.cutoff);
        for i in 0..k {
            let g = if q.ranked.value(i) > 0.0 { q.ranked.value(i) } else { 0.0 };
            let stop = (g.exp2() - 1.0) / scale;
            total += stop * log_reach.exp() / (i + 1) as f64;
            log_reach += (-stop).ln_1p();
        }
        if k == 0 {
            0.0
        } else {
            total
        }
    }
}

/// RBP@k = (1 - p) sum_{i<=k} gain_i p^(i-1), and its residual: the most that unjudged
/// and unretrieved documents could add.
struct Rbp {
    p: f64,
    rel: Option<i64>,
    cutoff: Option<i64>,
    residual: bool,
    /// The residual's scale without `rel`: the largest grade of the qrels, at least 1.
    scale: f64,
}

impl Rbp {
    fn new(spec: &Spec, residual: bool) -> Result<Self, EvalError> {
        Ok(Rbp {
            p: persistence(spec, 0.8)?,
            rel: spec.int("rel")?,
            cutoff: rank_cutoff(spec)?,
            residual,
            scale: 1.0,
        })
    }
}

impl Kernel for Rbp {
    fn prepare(&mut self, run: &JudgedView) -> Result<(), Refusal> {
        if self.residual && self.rel.is_none() {
            let grades = &run.qrels_grades;
            let top = match grades {
                Labels::I8(v) => v.iter().max().map(|&g| g as f64),
                Labels::I64(v) => v.iter().max().map(|&g| g as f64),
                Labels::F64(v) => {
                    v.iter().copied().reduce(|m, g| if g > m || g.is_nan() { g } else { m })
                }
            };
            let top = top.unwrap_or(1.0);
            self.scale = if 1.0 > top { 1.0 } else { top };
        }
        Ok(())
    }

    fn value(&self, q: &Query) -> f64 {
        let d = depth(q.num_ret(), self.cutoff);
        let labels = &q.ranked;
        if self.residual {
            let total =
                seq_sum(
                    (0..d)
                        .zip(powers(self.p))
                        .map(|(i, w)| if !labels.judged(i) { w } else { 0.0 }),
                );
            let value = power(self.p, d) + (1.0 - self.p) * total;
            return if self.rel.is_none() { value * self.scale } else { value };
        }
        let gain = |i: usize| match self.rel {
            None => {
                if labels.value(i) > 0.0 {
                    labels.value(i)
                } else {
                    0.0
                }
            }
            Some(level) => {
                if labels.relevant(i, level) {
                    1.0
                } else {
                    0.0
                }
            }
        };
        (1.0 - self.p) * seq_sum((0..d).zip(powers(self.p)).map(|(i, w)| gain(i) * w))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Cutoff, Param};
    use std::collections::BTreeMap;

    fn make(family: &str, cutoff: Option<i64>, params: &[(&str, Param)]) -> Box<dyn Kernel> {
        let params: BTreeMap<String, Param> =
            params.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
        let spec = Spec { family: family.into(), cutoff: cutoff.map(Cutoff::Rank), params };
        kernel(&spec).unwrap().unwrap()
    }

    use crate::measures::test_query as query;

    #[test]
    fn err_by_hand() {
        // grades 2, 0, 1 with max_grade 2: R = 3/4, 0, 1/4
        let q = query(&[2, 0, 1], &[2, 1, 0]);
        let k = make("ERR", None, &[("max_grade", Param::Int(2))]);
        let expected = 0.75 + 0.0 + 0.25 * (1.0 - 0.75) / 3.0;
        assert!((k.value(&q) - expected).abs() < 1e-15);
        assert_eq!(make("ERR", Some(1), &[("max_grade", Param::Int(2))]).value(&q), 0.75);
    }

    #[test]
    fn err_refuses_a_grade_above_max_grade() {
        let (offsets, labels, q_offsets, grades) = ([0i64, 2], [5i64, 1], [0i64, 1], [5i64]);
        let run = JudgedView {
            offsets: &offsets,
            labels: Labels::I64(&labels),
            qrels_offsets: &q_offsets,
            qrels_grades: Labels::I64(&grades),
            in_run: &[true],
            rel_level: 1,
            compat: 10,
        };
        let mut k = make("ERR", None, &[]);
        let refusal = k.prepare(&run).unwrap_err();
        assert_eq!(
            refusal,
            Refusal::Measure("ERR: grade 5 exceeds max_grade=4; use ERR(max_grade=5)".into())
        );
        // beyond the cutoff, the grade does not count
        assert!(make("ERR", Some(1), &[("max_grade", Param::Int(5))]).prepare(&run).is_ok());
    }

    #[test]
    fn rbp_and_residual_by_hand() {
        // p = 0.5: grades 1, unjudged, 2 -> binary (rel 1) RBP = 0.5 (1 + 0.25)
        let q = query(&[1, -1, 2], &[2, 1]);
        let p = ("p", Param::Real(0.5));
        assert_eq!(make("RBP", None, &[p.clone(), ("rel", Param::Int(1))]).value(&q), 0.625);
        // graded: 0.5 (1 + 2 * 0.25)
        assert_eq!(make("RBP", None, std::slice::from_ref(&p)).value(&q), 0.75);
        // residual with rel: p^3 + 0.5 * p^1
        let resid = make("RBPResidual", None, &[p.clone(), ("rel", Param::Int(1))]);
        assert_eq!(resid.value(&q), 0.125 + 0.25);
        // at cutoff 1: p^1, nothing unjudged above it
        let resid = make("RBPResidual", Some(1), &[p, ("rel", Param::Int(1))]);
        assert_eq!(resid.value(&q), 0.5);
    }

    #[test]
    fn cg_and_ncg_by_hand() {
        let q = query(&[3, -2, 1, 0], &[3, 1, 0]);
        assert_eq!(make("CG", Some(3), &[]).value(&q), 4.0);
        let ncg = make("nCG", Some(2), &[("max_gain", Param::Real(3.0))]);
        assert_eq!(ncg.value(&q), 3.0 / 6.0);
        assert_eq!(make("CG", Some(i64::MAX), &[]).value(&query(&[], &[])), 0.0);
    }

    #[test]
    fn bad_parameters_are_errors() {
        let spec = |family: &str, cutoff, params: &[(&str, Param)]| Spec {
            family: family.into(),
            cutoff,
            params: params.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(),
        };
        assert!(kernel(&spec("nCG", None, &[])).unwrap().is_err());
        assert!(kernel(&spec("ERR", None, &[("max_grade", Param::Int(54))])).unwrap().is_err());
        assert!(kernel(&spec("RBP", None, &[("p", Param::Real(1.0))])).unwrap().is_err());
    }
}
