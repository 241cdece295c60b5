//! Team-draft interleaving (Radlinski, Kurup & Joachims 2008) and multileaving (Schuth
//! et al. 2014) of many impressions at once, for `cranfield.online.interleaving`.
//!
//! Each impression walks its ranking set one position at a time: among the rankings
//! that still have a document not yet in the list, those with the fewest picks so far
//! are eligible; the one with the smallest random key picks (the keys are NumPy's
//! draws, so a seed gives the same lists as the array version this replaces), adding
//! its highest-ranked document not yet in the list.

use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

fn contiguous<'a, T: numpy::Element>(a: &'a PyReadonlyArray1<'_, T>) -> PyResult<&'a [T]> {
    a.as_slice().map_err(|_| PyValueError::new_err("arrays must be contiguous"))
}

/// Each position's local document code and the ranking that placed it.
type Lists<'py> = (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>);

/// The lists and teams of `which.len()` impressions.
///
/// `sets`: `G x R x M` local document codes, flattened (codes `0..d`, `d` pads a short
/// ranking); `which[i]`: impression `i`'s set; `keys`: `steps x n x R` draws in
/// `[0, 1)`, flattened, for the first `steps <= positions` positions (an impression has at
/// most `R * M` documents to show). Returns `(out, team)`, each `n x positions` flattened: the local
/// code at each position (`d` where the impression ran out of documents) and the index
/// of the ranking that placed it (`-1` there).
#[pyfunction]
fn team_draft_lists<'py>(
    py: Python<'py>,
    sets: PyReadonlyArray1<'py, i64>,
    shape: (usize, usize, usize),
    which: PyReadonlyArray1<'py, i64>,
    keys: PyReadonlyArray1<'py, f64>,
    positions: usize,
) -> PyResult<Lists<'py>> {
    let (g, r, m) = shape;
    let (sets, which, keys) = (contiguous(&sets)?, contiguous(&which)?, contiguous(&keys)?);
    let n = which.len();
    let d = r * m;
    let steps = keys.len().checked_div(n * r).unwrap_or(0);
    if sets.len() != g * d || keys.len() != steps * n * r || steps > positions || r == 0 {
        return Err(PyValueError::new_err("array sizes do not match the shape"));
    }
    if which.iter().any(|&w| w < 0 || w as usize >= g)
        || sets.iter().any(|&c| c < 0 || c as usize > d)
    {
        return Err(PyValueError::new_err("codes or set indices out of range"));
    }
    let (out, team) = py.detach(|| {
        let mut out = vec![d as i64; n * positions];
        let mut team = vec![-1i64; n * positions];
        let mut used = vec![false; d + 1];
        let mut count = vec![0usize; r];
        let mut first = vec![0usize; r]; // each ranking's first position not yet used
        for i in 0..n {
            let set = &sets[which[i] as usize * d..][..d];
            used.iter_mut().for_each(|u| *u = false);
            used[d] = true;
            count.iter_mut().for_each(|c| *c = 0);
            first.iter_mut().for_each(|f| *f = 0);
            for pos in 0..steps {
                // skip each ranking's documents already in the list
                for s in 0..r {
                    let ranking = &set[s * m..][..m];
                    while first[s] < m && used[ranking[first[s]] as usize] {
                        first[s] += 1;
                    }
                }
                let fewest = (0..r).filter(|&s| first[s] < m).map(|s| count[s]).min();
                let Some(fewest) = fewest else { break };
                let key = &keys[(pos * n + i) * r..][..r];
                let mut pick = usize::MAX;
                for s in 0..r {
                    if first[s] < m
                        && count[s] == fewest
                        && (pick == usize::MAX || key[s] < key[pick])
                    {
                        pick = s;
                    }
                }
                let doc = set[pick * m + first[pick]];
                out[i * positions + pos] = doc;
                team[i * positions + pos] = pick as i64;
                used[doc as usize] = true;
                count[pick] += 1;
            }
        }
        (out, team)
    });
    Ok((PyArray1::from_vec(py, out), PyArray1::from_vec(py, team)))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(team_draft_lists, m)?)
}
