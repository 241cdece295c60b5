//! Helpers shared by the kernels (the counterpart of `measures/_common.py`).

use crate::EvalError;

/// Left-to-right sum as NumPy's `cumsum` along a row (`segments.sequential_sum`): the
/// first term is the start (a lone -0.0 stays -0.0); an empty sum is +0.0.
pub use crate::aggregate::sequential_sum as seq_sum;

/// `log2(rank + 1)` for a 1-based rank, with the C library's log2 (`segments.log2_discounts`).
pub fn log2_discount(rank: usize) -> f64 {
    ((rank - 1) as f64 + 2.0).log2()
}

/// log2 as `cranfield.core.libm.log2`: -inf at 0 and -NaN (sign set) below 0.
pub fn c_log2(x: f64) -> f64 {
    if x < 0.0 {
        f64::from_bits(0xfff8_0000_0000_0000)
    } else {
        x.log2()
    }
}

/// `num / den`, 0 when `den` is 0 (`_common.safe_div`).
pub fn safe_div(num: f64, den: f64) -> f64 {
    if den != 0.0 {
        num / den
    } else {
        0.0
    }
}

/// The number of documents within a rank cutoff (all `n` without one).
pub fn depth(n: usize, cutoff: Option<i64>) -> usize {
    match cutoff {
        Some(k) => n.min(usize::try_from(k.max(0)).unwrap_or(usize::MAX)),
        None => n,
    }
}

/// `labels[i] == level` as NumPy compares an array with a Python int (a float label
/// with the level rounded to a double).
pub fn label_is(labels: &crate::Labels, i: usize, level: i64) -> bool {
    match labels {
        crate::Labels::I8(v) => v[i] as i64 == level,
        crate::Labels::I64(v) => v[i] == level,
        crate::Labels::F64(v) => v[i] == level as f64,
    }
}

/// Whether some label is not a whole number (`labels != floor(labels)`).
pub fn fractional(labels: &crate::Labels) -> bool {
    match labels {
        crate::Labels::F64(v) => v.iter().any(|x| *x != x.floor()),
        _ => false,
    }
}

/// The `gains` parameter: (grade, gain) pairs (`gain.gain_of`).
#[derive(Clone, Debug, Default)]
pub struct Gains(pub Vec<(i64, f64)>);

impl Gains {
    pub fn of(spec: &crate::Spec) -> Result<Self, EvalError> {
        match spec.param("gains") {
            crate::Param::None => Ok(Gains::default()),
            crate::Param::Gains(pairs) => {
                if pairs.iter().any(|(_, g)| !g.is_finite()) {
                    return Err(EvalError::Spec(format!(
                        "{}: every gain must be a finite number",
                        spec.family
                    )));
                }
                Ok(Gains(pairs.clone()))
            }
            other => Err(EvalError::Spec(format!(
                "{}: gains must be grade=gain pairs, got {other:?}",
                spec.family
            ))),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether a custom gain names `level`.
    pub fn names(&self, level: i64) -> bool {
        self.0.iter().any(|(l, _)| *l == level)
    }

    /// Gain of label `i`: the grade (0 below 0) unless a pair names it (the last one that
    /// matches wins, as NumPy's successive assignments).
    #[inline]
    pub fn gain(&self, labels: &crate::Labels, i: usize) -> f64 {
        let v = labels.value(i);
        let mut g = if v >= 0.0 { v } else { 0.0 };
        for &(level, gain) in &self.0 {
            if label_is(labels, i, level) {
                g = gain;
            }
        }
        g
    }

    /// The refusal of `gain_of` when custom gains meet fractional labels.
    pub fn check(&self, labels: &crate::Labels) -> Result<(), crate::Refusal> {
        if !self.is_empty() && fractional(labels) {
            return Err(crate::Refusal::Input(
                "gains= maps whole grades to gains, and these qrels hold fractional values; \
                 put the gains in the qrels instead (e.g. cranfield aggregate --soft --gains)"
                    .into(),
            ));
        }
        Ok(())
    }
}

/// `p**i` for i = 0, 1, ... by repeated multiplication (`segments.powers`).
pub fn powers(p: f64) -> impl Iterator<Item = f64> {
    std::iter::successors(Some(1.0), move |w| Some(w * p))
}

/// `p**n` by `n` repeated multiplications (as [`powers`]).
pub fn power(p: f64, n: usize) -> f64 {
    let mut w = 1.0;
    for _ in 0..n {
        if w == 0.0 {
            break; // 0 * p stays +0.0 for p in (0, 1)
        }
        w *= p;
    }
    w
}

/// The persistence parameter `p` (`default` when absent), in (0, 1).
pub fn persistence(spec: &crate::Spec, default: f64) -> Result<f64, EvalError> {
    match spec.real("p")?.unwrap_or(default) {
        p if p > 0.0 && p < 1.0 => Ok(p),
        p => Err(EvalError::Spec(format!("{}: p must be in (0, 1), got {p}", spec.family))),
    }
}

/// A float as Python's `format(x, "g")` (6 significant digits).
pub fn format_g(x: f64) -> String {
    if !x.is_finite() {
        return if x.is_nan() {
            "nan".into()
        } else if x > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    let sci = format!("{x:.5e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let trim = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if (-4..6).contains(&exp) {
        trim(&format!("{:.*}", (5 - exp) as usize, x))
    } else {
        format!("{}e{}{:02}", trim(mantissa), if exp < 0 { '-' } else { '+' }, exp.abs())
    }
}

/// A whole number as Python prints `int(x)` (exact digits).
pub fn format_int(x: f64) -> String {
    format!("{x:.0}")
}

/// The rank cutoff of a family that takes one (an error for a real cutoff).
pub fn rank_cutoff(spec: &crate::Spec) -> Result<Option<i64>, EvalError> {
    match spec.cutoff {
        Some(crate::Cutoff::Real(x)) => {
            Err(EvalError::Spec(format!("{} takes a rank cutoff, got {x}", spec.family)))
        }
        _ => Ok(spec.rank_cutoff()),
    }
}

/// An error for a cutoff given to a family that takes none.
pub fn no_cutoff(spec: &crate::Spec) -> Result<(), EvalError> {
    match spec.cutoff {
        Some(_) => Err(EvalError::Spec(format!("{} takes no cutoff", spec.family))),
        None => Ok(()),
    }
}

/// Number of ranked documents within rank `cutoff` (all without one). Any cutoff up to
/// 2^63 - 1 is fine: it is compared with the ranking's length, never allocated.
pub fn top(q: &crate::Query, cutoff: Option<i64>) -> usize {
    depth(q.num_ret(), cutoff)
}

/// Number of `labels[..n]` with grade >= `level` (as [`crate::Labels::relevant`] decides,
/// one comparison per label over the typed slice, so that it vectorises).
pub fn count_relevant(labels: &crate::Labels, n: usize, level: i64) -> usize {
    match labels {
        crate::Labels::I8(v) => match i8::try_from(level) {
            Ok(l) => v[..n].iter().filter(|&&x| x >= l).count(),
            Err(_) if level < 0 => n, // every int8 label is above a level below -128
            Err(_) => 0,
        },
        crate::Labels::I64(v) => v[..n].iter().filter(|&&x| x >= level).count(),
        crate::Labels::F64(v) => {
            let l = level as f64;
            v[..n].iter().filter(|&&x| x >= l).count()
        }
    }
}

/// The C library's `log` as `cranfield.core.libm.log` answers: -inf at 0, NaN with the sign
/// set below 0.
pub fn c_log(x: f64) -> f64 {
    if x == 0.0 {
        f64::NEG_INFINITY
    } else if x < 0.0 {
        -f64::NAN
    } else {
        x.ln()
    }
}

#[cfg(test)]
mod tests {
    use super::count_relevant;
    use crate::Labels;

    #[test]
    fn count_relevant_is_relevant_counted() {
        let small: Vec<i8> = vec![-2, -1, 0, 1, 2, 127, -128, 5];
        let large: Vec<i64> = small.iter().map(|&x| i64::from(x) * 1_000_000_007).collect();
        let real: Vec<f64> = small.iter().map(|&x| f64::from(x) / 2.0).collect();
        for labels in [Labels::I8(&small), Labels::I64(&large), Labels::F64(&real)] {
            for level in [i64::MIN, -200, -129, -128, -2, -1, 0, 1, 2, 127, 128, 1 << 40, i64::MAX]
            {
                for n in 0..=labels.len() {
                    let want = (0..n).filter(|&i| labels.relevant(i, level)).count();
                    assert_eq!(count_relevant(&labels, n, level), want, "{labels:?} {level} {n}");
                }
            }
        }
    }
}
