//! Aggregation of per-query values into one number per run (the counterpart of
//! `cranfield.core.results.aggregate`, which calls it).
//!
//! Sums run left to right in topic order from the first value, as trec_eval adds and as
//! NumPy's `cumsum` does (a lone -0.0 stays -0.0; an empty sum is +0.0), so aggregates
//! agree with trec_eval to the last digit.

/// The floor of the geometric mean (trec_eval's `MIN_GEO_MEAN`).
pub const MIN_GEO_MEAN: f64 = 1e-5;

/// How per-query values aggregate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum How {
    Mean,
    Sum,
    GeometricMean,
}

impl How {
    pub fn parse(name: &str) -> Option<How> {
        match name {
            "mean" => Some(How::Mean),
            "sum" => Some(How::Sum),
            "gmean" => Some(How::GeometricMean),
            _ => None,
        }
    }
}

/// `v0 + v1 + ...` left to right from the first value; +0.0 when empty.
pub fn sequential_sum(values: impl IntoIterator<Item = f64>) -> f64 {
    let mut values = values.into_iter();
    match values.next() {
        None => 0.0,
        Some(first) => values.fold(first, |total, v| total + v),
    }
}

/// The C library's log as trec_eval meets it: -inf at 0, NaN (sign set) below.
fn c_log(x: f64) -> f64 {
    if x < 0.0 {
        -f64::NAN
    } else {
        x.ln()
    }
}

/// The aggregate of `values` over `queries` queries (`values.len()` when None): the mean
/// divides by `queries` (queries without a value count as 0); the geometric mean is
/// `exp(sum(log(max(v, 1e-5))) / n)`, each query without a value at the floor.
pub fn aggregate(values: &[f64], how: How, queries: Option<usize>) -> f64 {
    let n = queries.unwrap_or(values.len());
    match how {
        How::Sum => sequential_sum(values.iter().copied()),
        _ if n == 0 => 0.0,
        How::Mean => sequential_sum(values.iter().copied()) / n as f64,
        How::GeometricMean => {
            // max(v, floor) keeps NaN, as NumPy's maximum does
            let floored = |v: f64| if v.is_nan() || v > MIN_GEO_MEAN { v } else { MIN_GEO_MEAN };
            let mut total = sequential_sum(values.iter().map(|&v| c_log(floored(v))));
            total += n.saturating_sub(values.len()) as f64 * c_log(MIN_GEO_MEAN);
            (total / n as f64).exp()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_run_left_to_right_from_the_first_value() {
        assert_eq!(sequential_sum([]), 0.0);
        assert!(sequential_sum([-0.0]).is_sign_negative());
        assert_eq!(sequential_sum([1e16, 1.0, 1.0]), (1e16 + 1.0) + 1.0);
        assert_eq!(aggregate(&[1.0, 2.0], How::Mean, Some(4)), 0.75);
        assert_eq!(aggregate(&[], How::Mean, None), 0.0);
        assert_eq!(aggregate(&[3.0, 4.0], How::Sum, Some(10)), 7.0);
    }

    #[test]
    fn geometric_mean_floors_and_counts_missing_queries() {
        let g = aggregate(&[0.0, 1.0], How::GeometricMean, Some(3));
        let want = ((2.0 * MIN_GEO_MEAN.ln()) / 3.0).exp();
        assert_eq!(g, want);
        assert!(aggregate(&[f64::NAN], How::GeometricMean, None).is_nan());
        assert_eq!(aggregate(&[0.25, 0.25], How::GeometricMean, None), (0.25f64.ln()).exp());
    }
}
