//! Helpers shared by the kernels (the counterpart of `measures/_common.py`).

// --- set and precision-recall helpers (set_based, ranked_extra, set_extra) ---

/// `num / den` where `den != 0`, else +0.0 (`_common.safe_div`).
#[inline]
pub fn safe_div(num: f64, den: f64) -> f64 {
    if den != 0.0 {
        num / den
    } else {
        0.0
    }
}

/// The number of ranked documents at rank <= `cutoff` (all without one).
#[inline]
pub fn top(q: &crate::Query, cutoff: Option<i64>) -> usize {
    match cutoff {
        Some(k) => q.num_ret().min(usize::try_from(k.max(0)).unwrap_or(usize::MAX)),
        None => q.num_ret(),
    }
}

/// The number of documents among the first `n` ranked with label >= `level`
/// (`JudgedRun.at_least(level)` counted up to rank `n`).
#[inline]
pub fn relevant_in(q: &crate::Query, level: i64, n: usize) -> usize {
    (0..n).filter(|&i| q.ranked.relevant(i, level)).count()
}
