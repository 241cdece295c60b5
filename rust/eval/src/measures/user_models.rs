//! The families of `cranfield/core/measures/user_models.py`: trec_eval's rank-biased
//! precision (Moffat & Zobel 2008) and its residual.

use super::common::{label_is, no_cutoff, persistence, powers, seq_sum, Gains};
use super::Shared;
use crate::EvalError;
use crate::{Kernel, Labels, Query, Spec};

/// The families this module computes.
pub const FAMILIES: &[&str] = &["rbp", "rbp_resid"];

/// The kernel of `spec` when its family is one of [`FAMILIES`].
pub fn kernel(spec: &Spec) -> Option<Result<Box<dyn Kernel>, EvalError>> {
    let made: Result<Box<dyn Kernel>, EvalError> = match spec.family.as_str() {
        "rbp" => Rbp::new(spec).map(|k| Box::new(k) as Box<dyn Kernel>),
        "rbp_resid" => RbpResid::new(spec).map(|k| Box::new(k) as Box<dyn Kernel>),
        _ => return None,
    };
    Some(made)
}

/// rbp = (1 - p) sum_i gain_i p^(i-1), with trec_eval's gains: a query's gain list (the
/// custom gains and the grades 0..max grade of its judgments) min-max normalised when
/// some lies outside [0, 1]; labels not in the list gain 0.
struct Rbp {
    p: f64,
    gains: Gains,
    /// min and max of the custom gains (+inf and -inf without any).
    lo: f64,
    hi: f64,
    /// The smallest grade >= 0 without a custom gain.
    smallest: i64,
}

impl Rbp {
    fn new(spec: &Spec) -> Result<Self, EvalError> {
        no_cutoff(spec)?;
        let gains = Gains::of(spec)?;
        // Python's min and max: the first of equal values is kept
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for (j, &(_, g)) in gains.0.iter().enumerate() {
            if j == 0 || g < lo {
                lo = g;
            }
            if j == 0 || g > hi {
                hi = g;
            }
        }
        let mut smallest = 0i64;
        while gains.names(smallest) {
            smallest += 1;
        }
        Ok(Rbp { p: persistence(spec, 0.9)?, gains, lo, hi, smallest })
    }
}

/// Whether label `i` is in [0, top] (NumPy's comparison of the label with an int64).
#[inline]
fn within(labels: &Labels, i: usize, top: i64) -> bool {
    match labels {
        Labels::I8(v) => v[i] >= 0 && (v[i] as i64) <= top,
        Labels::I64(v) => v[i] >= 0 && v[i] <= top,
        Labels::F64(v) => v[i] >= 0.0 && v[i] <= top as f64,
    }
}

impl Kernel for Rbp {
    fn value(&self, q: &Query) -> f64 {
        self.value_shared(q, &mut Shared::default())
    }

    fn value_shared(&self, q: &Query, shared: &mut Shared) -> f64 {
        // the query's largest judged grade (-1 without judgments)
        let top = if q.judged.is_empty() { -1 } else { q.judged.grade(0) };
        let lo =
            if self.smallest <= top { f64::min(self.lo, self.smallest as f64) } else { self.lo };
        let mut largest = top;
        for _ in 0..=self.gains.0.len() {
            if largest >= 0 && self.gains.names(largest) {
                largest -= 1;
            }
        }
        let hi = if largest >= 0 { f64::max(self.hi, largest as f64) } else { self.hi };
        let normalise = lo < 0.0 || hi > 1.0;
        let labels = &q.ranked;
        let n = q.num_ret();
        let (ranked, mut w) = shared.gains_and_powers(q, &self.gains, self.p, n);
        let in_list = |i: usize| {
            within(labels, i, top) || self.gains.0.iter().any(|&(l, _)| label_is(labels, i, l))
        };
        let gain = |raw: f64| if normalise { (raw - lo) / (hi - lo) } else { raw };
        if normalise && lo != 0.0 {
            // a zero gain may count: every document
            let terms = (0..n).zip(powers(self.p)).map(|(i, w)| {
                let g = if in_list(i) { gain(self.gains.gain(labels, i)) } else { 0.0 };
                if g != 0.0 {
                    g * w
                } else {
                    0.0
                }
            });
            return (1.0 - self.p) * seq_sum(terms);
        }
        // only the documents with a non-zero gain count: their terms summed left to right
        // from the first; the +0.0 terms of the others change a -0.0 sum into +0.0 only
        let mut active = 0usize;
        let mut total = -0.0; // -0.0 + x == x: the first term starts the sum
        for (&i, &raw) in ranked.positions.iter().zip(&ranked.values) {
            let g = gain(raw);
            if in_list(i) && g != 0.0 {
                total += g * w.at(i);
                active += 1;
            }
        }
        let total = if active == n && active > 0 { total } else { total + 0.0 };
        (1.0 - self.p) * total
    }
}

/// rbp_resid = p^n + (1 - p) sum_{unjudged i} p^(i-1); 0 when every ranked document is
/// judged, and for the queries `complete` (-c) adds.
struct RbpResid {
    p: f64,
}

impl RbpResid {
    fn new(spec: &Spec) -> Result<Self, EvalError> {
        no_cutoff(spec)?;
        Ok(RbpResid { p: persistence(spec, 0.9)? })
    }
}

impl Kernel for RbpResid {
    fn value(&self, q: &Query) -> f64 {
        let n = q.num_ret();
        let labels = &q.ranked;
        let unjudged = |i: usize| !labels.judged(i);
        if !q.in_run || !(0..n).any(unjudged) {
            return 0.0;
        }
        // every term is >= +0.0: the sum from the first term is the sum from +0.0; the
        // weight multiplied by p once per rank, as `common::powers` (p**n at the end)
        let (mut total, mut w) = (0.0, 1.0);
        for i in 0..n {
            if unjudged(i) {
                total += w;
            }
            w *= self.p;
        }
        w + (1.0 - self.p) * total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Param, Spec};

    fn make(family: &str, params: &[(&str, Param)]) -> Box<dyn Kernel> {
        let params = params.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
        kernel(&Spec { family: family.into(), cutoff: None, params }).unwrap().unwrap()
    }

    fn query<'a>(ranked: &'a [i64], judged: &'a [i64], in_run: bool) -> Query<'a> {
        Query {
            ranked: Labels::I64(ranked),
            judged: Labels::I64(judged),
            in_run,
            rel_level: 1,
            compat: 10,
        }
    }

    #[test]
    fn rbp_normalises_grades_above_one() {
        // grades 0..2: gains 0, 0.5, 1; ranking 2, 1 at p = 0.5: 0.5 (1 + 0.5 * 0.5)
        let q = query(&[2, 1], &[2, 1, 0], true);
        assert_eq!(make("rbp", &[("p", Param::Real(0.5))]).value(&q), 0.625);
        // binary grades are not rescaled
        let q = query(&[1, 0, 1], &[1, 0], true);
        assert_eq!(make("rbp", &[("p", Param::Real(0.5))]).value(&q), 0.5 * (1.0 + 0.25));
    }

    #[test]
    fn rbp_resid_by_hand() {
        let k = make("rbp_resid", &[("p", Param::Real(0.5))]);
        // unjudged at rank 2 of 3: p^3 + 0.5 * p
        assert_eq!(k.value(&query(&[1, -1, 0], &[1, 0], true)), 0.125 + 0.25);
        assert_eq!(k.value(&query(&[1, 0], &[1, 0], true)), 0.0);
        assert_eq!(k.value(&query(&[], &[1], false)), 0.0);
        let extremes = query(&[i64::MIN, i64::MAX], &[i64::MAX], true);
        assert!(k.value(&extremes).is_finite());
        assert!(make("rbp", &[]).value(&extremes).is_finite());
    }
}
