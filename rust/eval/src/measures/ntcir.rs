//! The families of `cranfield/core/measures/ntcir.py`: Sakai's Q-measure and nERR as
//! NTCIREVAL computes them (pyNTCIREVAL's conventions).

use super::boxed;
use super::common::{depth, rank_cutoff, Gains};
use crate::EvalError;
use crate::{JudgedView, Kernel, Labels, Query, Refusal, Spec};

/// The families this module computes.
pub const FAMILIES: &[&str] = &["Q_measure", "nERR"];

/// The kernel of `spec` when its family is one of [`FAMILIES`].
pub fn kernel(spec: &Spec) -> Option<Result<Box<dyn Kernel>, EvalError>> {
    let err = match spec.family.as_str() {
        "Q_measure" => false,
        "nERR" => true,
        _ => return None,
    };
    let made = (|| {
        Ok(Ntcir {
            err,
            cutoff: rank_cutoff(spec)?,
            gains: Gains::of(spec)?,
            beta: spec.real("beta")?.unwrap_or(1.0),
            max_gain: 1.0,
        })
    })();
    Some(boxed(made))
}

struct Ntcir {
    err: bool,
    cutoff: Option<i64>,
    gains: Gains,
    beta: f64,
    /// nERR: the gain of the top level (the largest gain in the qrels; set by prepare).
    max_gain: f64,
}

/// Gains of the judged documents (the relevant ones only, with `relevant_only`),
/// largest first.
fn ideal(gains: &Gains, judged: &Labels, relevant_only: bool) -> Vec<f64> {
    let mut out: Vec<f64> = (0..judged.len())
        .filter(|&i| !relevant_only || judged.value(i) > 0.0)
        .map(|i| gains.gain(judged, i))
        .collect();
    out.sort_by(|a, b| b.total_cmp(a));
    out
}

impl Ntcir {
    /// ERR of a list of gains: sum_i r_i (1/i) prod_{j<i} (1 - r_j), r = g / (max + 1).
    fn err(&self, gains: impl Iterator<Item = f64>) -> f64 {
        let (mut total, mut decay) = (0.0, 1.0);
        for (i, g) in gains.enumerate() {
            let r = g / (self.max_gain + 1.0);
            total += r * (1.0 / (i + 1) as f64 * decay);
            decay *= 1.0 - r;
        }
        total
    }
}

impl Kernel for Ntcir {
    fn prepare(&mut self, run: &JudgedView) -> Result<(), Refusal> {
        let grades = &run.qrels_grades;
        self.gains.check(grades)?;
        self.gains.check(&run.labels)?;
        if self.err {
            let top = (0..grades.len()).map(|i| self.gains.gain(grades, i)).reduce(f64::max);
            self.max_gain = top.unwrap_or(1.0);
        }
        Ok(())
    }

    fn value(&self, q: &Query) -> f64 {
        let k = depth(q.num_ret(), self.cutoff);
        let ranked = &q.ranked;
        if self.err {
            let best = ideal(&self.gains, &q.judged, false);
            let top = self.err(best.iter().copied().take(depth(best.len(), self.cutoff)));
            if top <= 0.0 {
                return 0.0;
            }
            return self.err((0..k).map(|i| self.gains.gain(ranked, i))) / top;
        }
        let best = ideal(&self.gains, &q.judged, true);
        if best.is_empty() {
            return 0.0;
        }
        let denom = depth(best.len(), self.cutoff) as f64;
        let (mut relnum, mut cg, mut icg, mut total) = (0usize, 0.0, 0.0, 0.0);
        for i in 0..k {
            cg += self.gains.gain(ranked, i);
            if let Some(g) = best.get(i) {
                icg += g;
            }
            if ranked.value(i) > 0.0 {
                relnum += 1;
                let blended = (relnum as f64 + self.beta * cg) / ((i + 1) as f64 + self.beta * icg);
                total += blended * (1.0 / denom);
            }
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measures::{test_query as query, test_spec};

    #[test]
    fn q_measure_by_hand() {
        // R = 2 (grades 2, 1); ranking 1, 2: (1 + 1) / (1 + 2) and (2 + 3) / (2 + 3)
        let q = query(&[1, 2], &[2, 1]);
        let k = kernel(&test_spec("Q_measure", None, &[])).unwrap().unwrap();
        assert_eq!(k.value(&q), 2.0 / 3.0 * 0.5 + 0.5);
    }
}
