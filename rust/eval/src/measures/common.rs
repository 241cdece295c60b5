//! Helpers shared by the kernels (the counterpart of `measures/_common.py`).

/// Number of ranked documents within rank `cutoff` (all without one). Any cutoff up to
/// 2^63 - 1 is fine: it is compared with the ranking's length, never allocated.
pub fn top(q: &crate::Query, cutoff: Option<i64>) -> usize {
    let n = q.num_ret();
    match cutoff {
        Some(k) => n.min(usize::try_from(k.max(0)).unwrap_or(usize::MAX)),
        None => n,
    }
}

/// Number of `labels[..n]` with grade >= `level`.
pub fn count_relevant(labels: &crate::Labels, n: usize, level: i64) -> usize {
    (0..n).filter(|&i| labels.relevant(i, level)).count()
}

/// Ranks (1-based) of the ranked documents with grade >= `level`, in rank order.
pub fn relevant_ranks<'a>(q: &'a crate::Query, level: i64) -> impl Iterator<Item = usize> + 'a {
    (0..q.num_ret()).filter(move |&i| q.ranked.relevant(i, level)).map(|i| i + 1)
}

/// `num / den`, or 0 when `den` is 0 (`_common.safe_div`).
pub fn safe_div(num: f64, den: f64) -> f64 {
    if den != 0.0 {
        num / den
    } else {
        0.0
    }
}

/// The C library's `log` as `_common.libm_log` answers: -inf at 0, NaN with the sign
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
