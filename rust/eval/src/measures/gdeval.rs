//! The families of `cranfield/core/measures/gdeval.py`: nDCG@k and ERR@k as gdeval.pl
//! (the TREC Web track's graded evaluation script, 2010-2014) computes them.
//!
//! gain 2^g - 1 for a grade g (negative and unjudged: 0); DCG@k = sum_{i<k} (2^g_i - 1)
//! / ln(i + 2), summed left to right from 0 (the natural logarithm, as Perl's `log`:
//! the ratio is that of log2, the last bits are gdeval's); the ideal ranking is the
//! positive judgments sorted by grade; ERR@k = sum_{i<k} R_i D_i / (i + 1), R_i =
//! (2^g_i - 1) / 2^4, D_i = prod_{j<i} (1 - R_j), multiplied out in rank order.

use super::boxed;
use super::common::{depth, rank_cutoff};
use crate::EvalError;
use crate::{Kernel, Query, Spec};

/// The families this module computes.
pub const FAMILIES: &[&str] = &["gdeval_nDCG", "gdeval_ERR"];

/// gdeval.pl's largest grade ($MAX_JUDGMENT).
pub const MAX_JUDGMENT: i64 = 4;

/// The kernel of `spec` when its family is one of [`FAMILIES`].
pub fn kernel(spec: &Spec) -> Option<Result<Box<dyn Kernel>, EvalError>> {
    let err = match spec.family.as_str() {
        "gdeval_nDCG" => false,
        "gdeval_ERR" => true,
        _ => return None,
    };
    Some(boxed(rank_cutoff(spec).map(|cutoff| Gdeval { cutoff, err })))
}

struct Gdeval {
    cutoff: Option<i64>,
    err: bool,
}

/// 2^g - 1 of a grade (0 for a negative one).
fn gain(grade: i64) -> f64 {
    if grade > 0 {
        (2f64).powi(grade.min(1023) as i32) - 1.0
    } else {
        0.0
    }
}

/// DCG of the first `k` gains, gdeval's way.
fn dcg(gains: impl Iterator<Item = f64>) -> f64 {
    let mut score = 0.0;
    for (i, g) in gains.enumerate() {
        score += g / ((i + 2) as f64).ln();
    }
    score
}

impl Kernel for Gdeval {
    fn value(&self, q: &Query) -> f64 {
        let k = depth(q.num_ret(), self.cutoff);
        let ranked = (0..k).map(|i| gain(q.ranked.grade(i)));
        if self.err {
            let scale = (1i64 << MAX_JUDGMENT) as f64;
            let (mut score, mut decay) = (0.0, 1.0);
            for (i, g) in ranked.enumerate() {
                let r = g / scale;
                score += r * decay / (i + 1) as f64;
                decay *= 1.0 - r;
            }
            return if q.num_rel(1) > 0 { score } else { 0.0 };
        }
        // the judged grades come sorted by grade, descending
        let positive = q.num_rel(1);
        if positive == 0 {
            return 0.0;
        }
        let ideal = dcg((0..depth(positive, self.cutoff)).map(|i| gain(q.judged.grade(i))));
        dcg(ranked) / ideal
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measures::{test_query as query, test_spec};

    #[test]
    fn by_hand() {
        let q = query(&[0, 2, -1], &[2, 1, 0]);
        let ndcg = kernel(&test_spec("gdeval_nDCG", Some(20), &[])).unwrap().unwrap();
        let ideal = 3.0 / 2f64.ln() + 1.0 / 3f64.ln();
        assert_eq!(ndcg.value(&q), (3.0 / 3f64.ln()) / ideal);
        let err = kernel(&test_spec("gdeval_ERR", Some(1), &[])).unwrap().unwrap();
        assert_eq!(err.value(&query(&[4, 4], &[4])), 15.0 / 16.0);
        // no relevant judgment: 0 (gdeval.pl leaves the topic out)
        assert_eq!(ndcg.value(&query(&[0], &[0])), 0.0);
    }
}
