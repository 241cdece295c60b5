//! The families of `cranfield/core/measures/precision.py`: binary-relevance measures
//! over rankings (precision, recall, AP and relatives).
//!
//! A document is relevant when its grade is at least the level (`rel`, else the run's
//! level); R is the number of judged documents of the query at that level. Each kernel
//! does the float operations of its NumPy kernel in the same order: sums run left to
//! right from 0.0, counts are exact integers converted to f64 where NumPy converts them.

use super::boxed;
use super::common::{c_log, safe_div, top};
use super::Shared;
use crate::EvalError;
use crate::{Cutoff, Kernel, Query, Spec, UNJUDGED};

/// The families this module computes.
pub const FAMILIES: &[&str] = &[
    "P",
    "R",
    "Success",
    "relative_P",
    "AP",
    "GMAP",
    "Rprec",
    "RR",
    "Bpref",
    "GMBpref",
    "infAP",
    "IPrec",
    "11pt_avg",
    "Rprec_mult",
    "yaap",
    "binG",
    "Unjudged",
];

/// The kernel of `spec` when its family is one of [`FAMILIES`].
pub fn kernel(spec: &Spec) -> Option<Result<Box<dyn Kernel>, EvalError>> {
    let made = match spec.family.as_str() {
        "P" => boxed(AtK::new(spec, AtKind::Precision)),
        "R" => boxed(AtK::new(spec, AtKind::Recall)),
        "Success" => boxed(AtK::new(spec, AtKind::Success)),
        "relative_P" => boxed(AtK::new(spec, AtKind::RelativePrecision)),
        "Unjudged" => boxed(AtK::new(spec, AtKind::Unjudged)),
        "AP" => boxed(Ap::new(spec)),
        "GMAP" => boxed(spec.int("rel").map(|rel| Ap { rel, cutoff: None, normalise: Norm::R })),
        "Rprec" => boxed(spec.int("rel").map(|rel| Rprec { rel })),
        "RR" => boxed(Rr::new(spec)),
        "Bpref" | "GMBpref" => boxed(spec.int("rel").map(|rel| Bpref { rel })),
        "infAP" => boxed(spec.int("rel").map(|rel| InfAp { rel })),
        "IPrec" => boxed(Iprec::at_recall(spec)),
        "11pt_avg" => boxed(Iprec::averaged(spec)),
        "Rprec_mult" => boxed(RprecMult::new(spec)),
        "yaap" => boxed(spec.int("rel").map(|rel| Yaap { rel })),
        "binG" => boxed(spec.int("rel").map(|rel| BinG { rel })),
        _ => return None,
    };
    Some(made)
}

/// The rank cutoff of `spec` (>= 1); an error when required and absent, or not a rank.
fn rank_cutoff(spec: &Spec, required: bool) -> Result<Option<i64>, EvalError> {
    match spec.cutoff {
        None if required => Err(EvalError::Spec(format!("{} needs a rank cutoff", spec.family))),
        None => Ok(None),
        Some(Cutoff::Rank(k)) if k >= 1 => Ok(Some(k)),
        Some(other) => Err(EvalError::Spec(format!(
            "{}: the cutoff must be a rank >= 1, got {other:?}",
            spec.family
        ))),
    }
}

/// The kernels here compute with the query's [`Shared`] work; alone, with a fresh one.
macro_rules! alone {
    () => {
        fn value(&self, q: &Query) -> f64 {
            self.value_shared(q, &mut Shared::default())
        }
    };
}

#[derive(Clone, Copy)]
enum AtKind {
    Precision,
    Recall,
    Success,
    RelativePrecision,
    Unjudged,
}

/// The measures of the top k: P, R, Success, relative_P, Unjudged.
struct AtK {
    kind: AtKind,
    cutoff: i64,
    rel: Option<i64>,
}

impl AtK {
    fn new(spec: &Spec, kind: AtKind) -> Result<Self, EvalError> {
        let cutoff = rank_cutoff(spec, true)?.unwrap_or(1);
        let rel = if matches!(kind, AtKind::Unjudged) { None } else { spec.int("rel")? };
        Ok(AtK { kind, cutoff, rel })
    }
}

impl Kernel for AtK {
    alone!();

    fn value_shared(&self, q: &Query, shared: &mut Shared) -> f64 {
        let n = top(q, Some(self.cutoff));
        let k = self.cutoff as f64;
        let level = self.rel.unwrap_or(q.rel_level);
        let mut relevant = || {
            let r = shared.relevant(q, level);
            (r.within(n) as f64, r.num_rel)
        };
        match self.kind {
            AtKind::Precision => relevant().0 / k,
            AtKind::Recall => {
                let (hits, num_rel) = relevant();
                safe_div(hits, num_rel as f64)
            }
            AtKind::Success => f64::from(u8::from(relevant().0 > 0.0)),
            AtKind::RelativePrecision => {
                let (hits, num_rel) = relevant();
                let r = i64::try_from(num_rel).unwrap_or(i64::MAX);
                safe_div(hits, r.min(self.cutoff) as f64)
            }
            AtKind::Unjudged => {
                let judged = (0..n).filter(|&i| q.ranked.judged(i)).count();
                (n - judged) as f64 / k
            }
        }
    }
}

/// AP's denominator.
#[derive(Clone, Copy)]
enum Norm {
    /// R (trec_eval map, map_cut).
    R,
    /// min(R, k).
    MinRk,
    /// The relevant documents in the top k.
    RelRet,
}

/// AP (`normalise`: R, min(R,k), relret@k) and GMAP.
struct Ap {
    rel: Option<i64>,
    cutoff: Option<i64>,
    normalise: Norm,
}

impl Ap {
    fn new(spec: &Spec) -> Result<Self, EvalError> {
        let normalise = match spec.param("normalise") {
            crate::Param::None => Norm::R,
            crate::Param::Text(t) if t == "R" => Norm::R,
            crate::Param::Text(t) if t == "min(R,k)" => Norm::MinRk,
            crate::Param::Text(t) if t == "relret@k" => Norm::RelRet,
            other => {
                return Err(EvalError::Spec(format!(
                    "AP: parameter normalise must be R, min(R,k) or relret@k, got {other:?}"
                )))
            }
        };
        Ok(Ap { rel: spec.int("rel")?, cutoff: rank_cutoff(spec, false)?, normalise })
    }
}

impl Kernel for Ap {
    alone!();

    fn value_shared(&self, q: &Query, shared: &mut Shared) -> f64 {
        let level = self.rel.unwrap_or(q.rel_level);
        let n = top(q, self.cutoff);
        let relevant = shared.relevant(q, level);
        let found = relevant.within(n);
        let num_rel = relevant.num_rel;
        let total = relevant.precision_sums()[found];
        let den = match (self.normalise, self.cutoff) {
            (Norm::R, _) | (Norm::MinRk, None) => num_rel as f64,
            (Norm::MinRk, Some(k)) => i64::try_from(num_rel).unwrap_or(i64::MAX).min(k) as f64,
            (Norm::RelRet, _) => found as f64,
        };
        safe_div(total, den)
    }
}

/// Precision after R documents.
struct Rprec {
    rel: Option<i64>,
}

impl Kernel for Rprec {
    alone!();

    fn value_shared(&self, q: &Query, shared: &mut Shared) -> f64 {
        let relevant = shared.relevant(q, self.rel.unwrap_or(q.rel_level));
        let r = relevant.num_rel;
        let hits = relevant.within(q.num_ret().min(r));
        safe_div(hits as f64, r as f64)
    }
}

/// Reciprocal rank of the first relevant document (within the cutoff).
struct Rr {
    rel: Option<i64>,
    cutoff: Option<i64>,
}

impl Rr {
    fn new(spec: &Spec) -> Result<Self, EvalError> {
        Ok(Rr { rel: spec.int("rel")?, cutoff: rank_cutoff(spec, false)? })
    }
}

impl Kernel for Rr {
    alone!();

    fn value_shared(&self, q: &Query, shared: &mut Shared) -> f64 {
        let level = self.rel.unwrap_or(q.rel_level);
        match shared.relevant(q, level).ranks.first() {
            Some(&rank) if rank <= top(q, self.cutoff) => 1.0 / rank as f64,
            _ => 0.0,
        }
    }
}

/// bpref (and GMBpref, its geometric mean): over the judged ranked documents only.
struct Bpref {
    rel: Option<i64>,
}

impl Kernel for Bpref {
    alone!();

    fn value_shared(&self, q: &Query, shared: &mut Shared) -> f64 {
        let level = self.rel.unwrap_or(q.rel_level);
        let r = q.num_rel(level);
        let num_nonrel = if level > 0 { q.judged.len().saturating_sub(r) } else { 0 };
        let denom = num_nonrel.min(r) as f64;
        let (mut total, mut nonrel_so_far) = (0.0, 0usize);
        // the judged documents are among the pooled ones
        for &i in shared.pooled(q).iter().filter(|&&i| q.ranked.judged(i)) {
            if !q.ranked.relevant(i, level) {
                nonrel_so_far += 1;
            } else if nonrel_so_far > 0 {
                total += 1.0 - nonrel_so_far.min(r) as f64 / denom;
            } else {
                total += 1.0;
            }
        }
        safe_div(total, r as f64)
    }
}

/// `precision.INFAP_EPSILON`.
const INFAP_EPSILON: f64 = 1e-5;

/// Inferred AP (Yilmaz & Aslam 2006): over the pooled ranked documents only.
struct InfAp {
    rel: Option<i64>,
}

impl Kernel for InfAp {
    alone!();

    fn value_shared(&self, q: &Query, shared: &mut Shared) -> f64 {
        let level = self.rel.unwrap_or(q.rel_level);
        let (mut total, mut rel_so_far, mut nonrel_before, mut unj_before) =
            (0.0, 0u64, 0u64, 0u64);
        for &i in shared.pooled(q) {
            let judged = q.ranked.judged(i);
            let relevant = judged && q.ranked.relevant(i, level);
            if relevant {
                rel_so_far += 1;
                let j = i as f64; // rank - 1
                let term = if j == 0.0 {
                    1.0
                } else {
                    let r1 = (rel_so_far - 1) as f64;
                    let nb = nonrel_before as f64;
                    let ub = unj_before as f64;
                    1.0 / (j + 1.0)
                        + (j / (j + 1.0))
                            * ((r1 + nb + ub) / j)
                            * ((r1 + INFAP_EPSILON) / (r1 + nb + 2.0 * INFAP_EPSILON))
                };
                total += term;
            } else if judged {
                nonrel_before += 1;
            } else if q.ranked.value(i) == UNJUDGED as f64 {
                unj_before += 1;
            }
        }
        safe_div(total, q.num_rel(level) as f64)
    }
}

/// Interpolated precision at recall points: IPrec (one point) and 11pt_avg (the mean
/// over its points, summed from the last point to the first as trec_eval does).
struct Iprec {
    rel: Option<i64>,
    points: Vec<f64>,
    average: bool,
}

impl Iprec {
    fn at_recall(spec: &Spec) -> Result<Self, EvalError> {
        let point = match spec.cutoff {
            Some(Cutoff::Real(x)) => x,
            Some(Cutoff::Rank(k)) => k as f64,
            None => {
                return Err(EvalError::Spec("IPrec needs a recall cutoff, e.g. IPrec@0.5".into()))
            }
        };
        Self::checked(spec, vec![point], false)
    }

    fn averaged(spec: &Spec) -> Result<Self, EvalError> {
        let points = match spec.param("points") {
            crate::Param::None => vec![0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0],
            crate::Param::Reals(v) => v.clone(),
            crate::Param::Real(x) => vec![*x],
            other => {
                return Err(EvalError::Spec(format!(
                    "11pt_avg: parameter points must be numbers, got {other:?}"
                )))
            }
        };
        Self::checked(spec, points, true)
    }

    fn checked(spec: &Spec, points: Vec<f64>, average: bool) -> Result<Self, EvalError> {
        if points.is_empty() || points.iter().any(|p| !(0.0..=1.0).contains(p)) {
            return Err(EvalError::Spec(format!(
                "{}: recall levels must be numbers in [0, 1]",
                spec.family
            )));
        }
        Ok(Iprec { rel: spec.int("rel")?, points, average })
    }
}

/// Relevant documents needed at recall `point` (`precision._recall_counts`).
fn recall_count(point: f64, num_rel: usize, compat: u8) -> i64 {
    let product = point * num_rel as f64;
    if compat == 9 {
        (product + 0.9).floor() as i64 // (long)(r*R + 0.9)
    } else if product >= 0.0 {
        (product + 0.5).floor() as i64 // lround: half away from zero
    } else {
        (product - 0.5).ceil() as i64
    }
}

impl Kernel for Iprec {
    alone!();

    fn value_shared(&self, q: &Query, shared: &mut Shared) -> f64 {
        let level = self.rel.unwrap_or(q.rel_level);
        let relevant = shared.relevant(q, level);
        let num_rel = relevant.num_rel;
        // interpolated precision at each relevant document: max P@rank from there on
        // (max is exact in any order)
        let interp = relevant.interpolated();
        let found = i64::try_from(interp.len()).unwrap_or(i64::MAX);
        let at = |point: f64| {
            let c = recall_count(point, num_rel, q.compat);
            if found > 0 && c <= found {
                interp[(c.max(1) - 1) as usize]
            } else {
                0.0
            }
        };
        if !self.average {
            return at(self.points[0]);
        }
        // summed from the last point to the first, left to right from 0.0
        let total = self.points.iter().rev().fold(0.0, |acc, &p| acc + at(p));
        total / self.points.len() as f64
    }
}

/// Precision at c = (long)(x*R + 0.9) documents.
struct RprecMult {
    rel: Option<i64>,
    multiple: f64,
}

impl RprecMult {
    fn new(spec: &Spec) -> Result<Self, EvalError> {
        let multiple = match spec.real_cutoff() {
            Some(x) if x > 0.0 && x.is_finite() => x,
            _ => {
                return Err(EvalError::Spec(
                    "Rprec_mult needs a positive multiple of R as cutoff".into(),
                ))
            }
        };
        Ok(RprecMult { rel: spec.int("rel")?, multiple })
    }
}

impl Kernel for RprecMult {
    alone!();

    fn value_shared(&self, q: &Query, shared: &mut Shared) -> f64 {
        let relevant = shared.relevant(q, self.rel.unwrap_or(q.rel_level));
        let c = (self.multiple * relevant.num_rel as f64 + 0.9).floor() as i64;
        let hits = relevant.within(top(q, Some(c)));
        safe_div(hits as f64, c as f64)
    }
}

/// Yet Another AP: log((1 + S) / (1 + R - S)), S the sum of P@rank of the relevant.
struct Yaap {
    rel: Option<i64>,
}

impl Kernel for Yaap {
    alone!();

    fn value_shared(&self, q: &Query, shared: &mut Shared) -> f64 {
        let relevant = shared.relevant(q, self.rel.unwrap_or(q.rel_level));
        let num_rel = relevant.num_rel;
        let s = *relevant.precision_sums().last().unwrap_or(&0.0);
        c_log((1.0 + s) / (1.0 + num_rel as f64 - s))
    }
}

/// binG: each relevant document earns 1 / log2(2 + non-relevant ranked above it).
struct BinG {
    rel: Option<i64>,
}

impl Kernel for BinG {
    alone!();

    fn value_shared(&self, q: &Query, shared: &mut Shared) -> f64 {
        let relevant = shared.relevant(q, self.rel.unwrap_or(q.rel_level));
        let mut found = 0usize;
        let mut total = 0.0; // left to right from 0.0
        for &rank in &relevant.ranks {
            found += 1;
            total += 1.0 / ((rank - found) as f64 + 2.0).log2();
        }
        safe_div(total, relevant.num_rel as f64) * f64::from(u8::from(found > 0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Param;
    use std::collections::BTreeMap;

    use crate::measures::test_query as query;

    fn value(family: &str, cutoff: Option<Cutoff>, params: &[(&str, Param)], q: &Query) -> f64 {
        let params: BTreeMap<String, Param> =
            params.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
        let spec = Spec { family: family.into(), cutoff, params };
        kernel(&spec).expect("a family of this module").expect("valid parameters").value(q)
    }

    // ranking: rel, nonrel, rel, unjudged (not pooled), rel; 4 relevant in the qrels
    const RANKED: &[i64] = &[1, 0, 2, -1, 1];
    const JUDGED: &[i64] = &[2, 1, 1, 1, 0, 0];

    #[test]
    fn precision_recall_success() {
        let q = query(RANKED, JUDGED);
        assert_eq!(value("P", Some(Cutoff::Rank(2)), &[], &q), 0.5);
        assert_eq!(value("P", Some(Cutoff::Rank(10)), &[], &q), 0.3);
        assert_eq!(value("P", Some(Cutoff::Rank(i64::MAX)), &[], &q), 3.0 / i64::MAX as f64);
        assert_eq!(value("R", Some(Cutoff::Rank(3)), &[], &q), 0.5);
        assert_eq!(value("Success", Some(Cutoff::Rank(1)), &[("rel", Param::Int(2))], &q), 0.0);
        assert_eq!(value("relative_P", Some(Cutoff::Rank(5)), &[], &q), 3.0 / 4.0);
        assert_eq!(value("Unjudged", Some(Cutoff::Rank(5)), &[], &q), 0.2);
    }

    #[test]
    fn average_precision() {
        let q = query(RANKED, JUDGED);
        let ap = (1.0 + 2.0 / 3.0 + 3.0 / 5.0) / 4.0;
        assert_eq!(value("AP", None, &[], &q), ap);
        assert_eq!(value("AP", Some(Cutoff::Rank(2)), &[], &q), 1.0 / 4.0);
        let relret = Param::Text("relret@k".into());
        assert_eq!(
            value("AP", Some(Cutoff::Rank(3)), &[("normalise", relret)], &q),
            (1.0 + 2.0 / 3.0) / 2.0
        );
        let minrk = Param::Text("min(R,k)".into());
        assert_eq!(value("AP", Some(Cutoff::Rank(2)), &[("normalise", minrk)], &q), 0.5);
        assert_eq!(value("GMAP", None, &[("rel", Param::Int(2))], &q), 1.0 / 3.0);
    }

    #[test]
    fn rank_based() {
        let q = query(RANKED, JUDGED);
        assert_eq!(value("Rprec", None, &[], &q), 0.5);
        assert_eq!(value("RR", None, &[("rel", Param::Int(2))], &q), 1.0 / 3.0);
        assert_eq!(value("RR", Some(Cutoff::Rank(2)), &[("rel", Param::Int(2))], &q), 0.0);
        // c = (long)(0.5 * 4 + 0.9) = 2
        assert_eq!(value("Rprec_mult", Some(Cutoff::Real(0.5)), &[], &q), 0.5);
        // bpref: the nonrel at rank 2 is above two relevant: (1 + 2 * (1 - 1/2)) / 4
        assert_eq!(value("Bpref", None, &[], &q), 0.5);
        // binG: 1/log2(2) + 1/log2(3) + 1/log2(4) (the unpooled counts as non-relevant)
        let bing = (1.0 + 1.0 / 3f64.log2() + 0.5) / 4.0;
        assert_eq!(value("binG", None, &[], &q), bing);
    }

    #[test]
    fn interpolated_precision() {
        let q = query(RANKED, JUDGED);
        // precisions at the relevant: 1, 2/3, 3/5; interpolated: 1, 2/3, 3/5
        assert_eq!(value("IPrec", Some(Cutoff::Real(0.0)), &[], &q), 1.0);
        assert_eq!(value("IPrec", Some(Cutoff::Real(0.5)), &[], &q), 2.0 / 3.0);
        assert_eq!(value("IPrec", Some(Cutoff::Real(1.0)), &[], &q), 0.0);
        let points = Param::Reals(vec![0.0, 0.5]);
        assert_eq!(value("11pt_avg", None, &[("points", points)], &q), (2.0 / 3.0 + 1.0) / 2.0);
    }

    #[test]
    fn empty_and_extremes() {
        let q = query(&[], &[]);
        for family in ["AP", "GMAP", "Rprec", "RR", "Bpref", "infAP", "yaap", "binG"] {
            let v = value(family, None, &[], &q);
            assert!(v == 0.0 || family == "yaap", "{family}: {v}");
        }
        assert_eq!(
            value("P", Some(Cutoff::Rank(i64::MAX)), &[("rel", Param::Int(i64::MIN))], &q),
            0.0
        );
        let q = query(RANKED, JUDGED);
        let low = [("rel", Param::Int(i64::MIN))];
        assert_eq!(value("P", Some(Cutoff::Rank(5)), &low, &q), 1.0);
        let high = [("rel", Param::Int(i64::MAX))];
        assert_eq!(value("AP", Some(Cutoff::Rank(i64::MAX)), &high, &q), 0.0);
        assert_eq!(value("Rprec_mult", Some(Cutoff::Real(1e6)), &low, &q), 5.0 / 6_000_000.0);
    }

    #[test]
    fn bad_parameters_are_errors() {
        let spec = |family: &str, cutoff, params: &[(&str, Param)]| Spec {
            family: family.into(),
            cutoff,
            params: params.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(),
        };
        let bad = [
            spec("P", None, &[]),
            spec("P", Some(Cutoff::Rank(0)), &[]),
            spec("P", Some(Cutoff::Real(0.5)), &[]),
            spec("AP", None, &[("normalise", Param::Text("k".into()))]),
            spec("AP", None, &[("rel", Param::Real(1.5))]),
            spec("IPrec", None, &[]),
            spec("IPrec", Some(Cutoff::Real(1.5)), &[]),
            spec("11pt_avg", None, &[("points", Param::Reals(vec![]))]),
            spec("11pt_avg", None, &[("points", Param::Reals(vec![f64::NAN]))]),
            spec("Rprec_mult", Some(Cutoff::Real(0.0)), &[]),
        ];
        for s in &bad {
            assert!(matches!(kernel(s), Some(Err(_))), "{s:?}");
        }
    }
}
