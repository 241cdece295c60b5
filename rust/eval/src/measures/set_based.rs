//! The families of `cranfield/core/measures/set_based.py`: the retrieved list taken as
//! a set, from relret (relevant retrieved), ret (retrieved) and R (relevant).

use super::common::safe_div;
use super::Shared;
use crate::EvalError;
use crate::{Kernel, Query, Spec};

/// The families this module computes.
pub const FAMILIES: &[&str] = &["SetP", "SetR", "SetRelP", "SetAP", "set_F", "SetF"];

/// The kernel of `spec` when its family is one of [`FAMILIES`].
pub fn kernel(spec: &Spec) -> Option<Result<Box<dyn Kernel>, EvalError>> {
    let formula = match spec.family.as_str() {
        "SetP" => match spec.param("relative") {
            crate::Param::None | crate::Param::Bool(false) => Formula::Precision,
            crate::Param::Bool(true) => Formula::RelativePrecision,
            other => {
                return Some(Err(EvalError::Spec(format!(
                    "SetP: parameter relative must be a bool, got {other:?}"
                ))))
            }
        },
        "SetR" => Formula::Recall,
        "SetRelP" => Formula::RelativePrecision,
        "SetAP" => Formula::PrecisionTimesRecall,
        "set_F" => match spec.real("x") {
            Ok(x) => Formula::F(x.unwrap_or(1.0)),
            Err(e) => return Some(Err(e)),
        },
        "SetF" => match spec.real("beta") {
            Ok(beta) => {
                let beta = beta.unwrap_or(1.0);
                Formula::F(beta * beta)
            }
            Err(e) => return Some(Err(e)),
        },
        _ => return None,
    };
    Some(spec.int("rel").map(|rel| Box::new(SetMeasure { formula, rel }) as Box<dyn Kernel>))
}

#[derive(Clone, Copy, Debug)]
enum Formula {
    /// relret / ret
    Precision,
    /// relret / min(ret, R)
    RelativePrecision,
    /// relret / R
    Recall,
    /// relret^2 / (ret R)
    PrecisionTimesRecall,
    /// (b2 + 1) P R / (b2 P + R), 0 when relret = 0 (b2 = beta^2 = trec_eval's x)
    F(f64),
}

struct SetMeasure {
    formula: Formula,
    rel: Option<i64>,
}

impl Kernel for SetMeasure {
    fn value(&self, q: &Query) -> f64 {
        self.value_shared(q, &mut Shared::default())
    }

    fn value_shared(&self, q: &Query, shared: &mut Shared) -> f64 {
        let relevant = shared.relevant(q, self.rel.unwrap_or(q.rel_level));
        let ret = q.num_ret() as f64;
        let relret = relevant.ranks.len() as f64;
        let r = relevant.num_rel as f64;
        match self.formula {
            Formula::Precision => safe_div(relret, ret),
            Formula::RelativePrecision => safe_div(relret, ret.min(r)),
            Formula::Recall => safe_div(relret, r),
            Formula::PrecisionTimesRecall => safe_div(relret * relret, ret * r),
            Formula::F(b2) => f_measure(relret, ret, r, b2),
        }
    }
}

/// `set_based.f_measure` for one query, in its order of operations.
pub(crate) fn f_measure(relret: f64, ret: f64, r: f64, b2: f64) -> f64 {
    let p = safe_div(relret, ret);
    let rec = safe_div(relret, r);
    let den = b2 * p + rec;
    if relret > 0.0 {
        safe_div((b2 + 1.0) * p * rec, den)
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Param;
    use std::collections::BTreeMap;

    fn spec(family: &str, params: &[(&str, Param)]) -> Spec {
        let params: BTreeMap<String, Param> =
            params.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
        Spec { family: family.into(), cutoff: None, params }
    }

    use crate::measures::test_query as query;

    // 4 retrieved, 2 of them relevant, R = 3
    const RANKED: &[i64] = &[1, 0, -1, 2];
    const JUDGED: &[i64] = &[2, 1, 1, 0];

    fn value(family: &str, params: &[(&str, Param)]) -> f64 {
        kernel(&spec(family, params)).unwrap().unwrap().value(&query(RANKED, JUDGED))
    }

    #[test]
    fn hand_computed() {
        assert_eq!(value("SetP", &[]), 0.5);
        assert_eq!(value("SetP", &[("relative", Param::Bool(true))]), 2.0 / 3.0);
        assert_eq!(value("SetR", &[]), 2.0 / 3.0);
        assert_eq!(value("SetRelP", &[]), 2.0 / 3.0);
        assert_eq!(value("SetAP", &[]), 4.0 / 12.0);
        // F1 = 2PR / (P + R), P = 1/2, R = 2/3
        assert_eq!(value("set_F", &[]), 2.0 * 0.5 * (2.0 / 3.0) / (0.5 + 2.0 / 3.0));
        assert_eq!(value("SetF", &[("beta", Param::Real(1.0))]), value("set_F", &[]));
        // rel=2: one relevant retrieved of 1
        assert_eq!(value("SetR", &[("rel", Param::Int(2))]), 1.0);
    }

    #[test]
    fn empty_query_is_zero() {
        let k = kernel(&spec("set_F", &[])).unwrap().unwrap();
        assert_eq!(k.value(&query(&[], &[])), 0.0);
        let k = kernel(&spec("SetAP", &[])).unwrap().unwrap();
        assert_eq!(k.value(&query(&[], &[1])).to_bits(), 0.0f64.to_bits());
    }

    #[test]
    fn bad_parameters_are_errors() {
        assert!(kernel(&spec("SetP", &[("relative", Param::Int(3))])).unwrap().is_err());
        assert!(kernel(&spec("SetF", &[("beta", Param::Text("x".into()))])).unwrap().is_err());
        assert!(kernel(&spec("SetR", &[("rel", Param::Real(1.5))])).unwrap().is_err());
        assert!(kernel(&spec("NumRet", &[])).is_none());
    }
}
