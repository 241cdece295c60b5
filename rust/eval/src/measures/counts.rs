//! The families of `cranfield/core/measures/counts.py`.

use super::common::top;
use super::Shared;
use crate::EvalError;
use crate::{Cutoff, Kernel, Query, Spec, NOT_POOLED, UNJUDGED};

/// The families this module computes.
pub const FAMILIES: &[&str] =
    &["NumQ", "NumRet", "NumRel", "NumRelRet", "NumNonRelJudgedRet", "utility", "relstring"];

/// The kernel of `spec` when its family is one of [`FAMILIES`].
pub fn kernel(spec: &Spec) -> Option<Result<Box<dyn Kernel>, EvalError>> {
    let made: Result<Box<dyn Kernel>, EvalError> = match spec.family.as_str() {
        "NumQ" => Ok(Box::new(NumQ) as Box<dyn Kernel>),
        "NumRet" => NumRet::new(spec).map(|k| Box::new(k) as Box<dyn Kernel>),
        "NumRel" => spec.int("rel").map(|rel| Box::new(NumRel { rel }) as Box<dyn Kernel>),
        "NumRelRet" => NumRelRet::new(spec).map(|k| Box::new(k) as Box<dyn Kernel>),
        "NumNonRelJudgedRet" => {
            spec.int("rel").map(|rel| Box::new(NumNonRelJudgedRet { rel }) as Box<dyn Kernel>)
        }
        "utility" => Utility::new(spec).map(|k| Box::new(k) as Box<dyn Kernel>),
        "relstring" => RelString::new(spec).map(|k| Box::new(k) as Box<dyn Kernel>),
        _ => return None,
    };
    Some(made)
}

/// `|ranking|` (up to the cutoff); with `rel`: the retrieved documents with grade >= rel.
struct NumRet {
    cutoff: Option<i64>,
    rel: Option<i64>,
}

impl NumRet {
    fn new(spec: &Spec) -> Result<Self, EvalError> {
        Ok(NumRet { cutoff: spec.rank_cutoff(), rel: spec.int("rel")? })
    }
}

impl Kernel for NumRet {
    fn value(&self, q: &Query) -> f64 {
        let n = match self.cutoff {
            Some(k) => q.num_ret().min(k.max(0) as usize),
            None => q.num_ret(),
        };
        match self.rel {
            None => n as f64,
            Some(level) => (0..n).filter(|&i| q.ranked.relevant(i, level)).count() as f64,
        }
    }
}

/// 1 per evaluated query.
struct NumQ;

impl Kernel for NumQ {
    fn value(&self, _q: &Query) -> f64 {
        1.0
    }
}

/// R: the judged documents with grade >= rel.
struct NumRel {
    rel: Option<i64>,
}

impl Kernel for NumRel {
    fn value(&self, q: &Query) -> f64 {
        q.num_rel(self.rel.unwrap_or(q.rel_level)) as f64
    }
}

/// The relevant documents retrieved (up to the cutoff).
struct NumRelRet {
    cutoff: Option<i64>,
    rel: Option<i64>,
}

impl NumRelRet {
    fn new(spec: &Spec) -> Result<Self, EvalError> {
        Ok(NumRelRet { cutoff: spec.rank_cutoff(), rel: spec.int("rel")? })
    }
}

impl Kernel for NumRelRet {
    fn value(&self, q: &Query) -> f64 {
        self.value_shared(q, &mut Shared::default())
    }

    fn value_shared(&self, q: &Query, shared: &mut Shared) -> f64 {
        shared.relevant(q, self.rel.unwrap_or(q.rel_level)).within(top(q, self.cutoff)) as f64
    }
}

/// The judged non-relevant documents retrieved (0 <= grade < rel).
struct NumNonRelJudgedRet {
    rel: Option<i64>,
}

impl Kernel for NumNonRelJudgedRet {
    fn value(&self, q: &Query) -> f64 {
        self.value_shared(q, &mut Shared::default())
    }

    fn value_shared(&self, q: &Query, shared: &mut Shared) -> f64 {
        let level = self.rel.unwrap_or(q.rel_level);
        let r = &q.ranked;
        // the judged documents are among the pooled ones
        shared.pooled(q).iter().filter(|&&i| r.judged(i) && !r.relevant(i, level)).count() as f64
    }
}

/// Set utility: a*relret + b*(ret - relret) + c*(R - relret) + d*(N + relret - ret - R);
/// 0 for the queries missing from the run (-c), as trec_eval scores them.
struct Utility {
    weights: [f64; 4],
    collection_size: f64,
    rel: Option<i64>,
}

impl Utility {
    fn new(spec: &Spec) -> Result<Self, EvalError> {
        let weight = |name: &str, default: f64| -> Result<f64, EvalError> {
            match spec.real(name)?.unwrap_or(default) {
                w if w.is_finite() => Ok(w),
                w => Err(EvalError::Spec(format!(
                    "utility: parameter {name} must be a finite number, got {w}"
                ))),
            }
        };
        let size = spec.int("collection_size")?.unwrap_or(0);
        if size < 0 {
            return Err(EvalError::Spec(format!(
                "utility: parameter collection_size must be >= 0, got {size}"
            )));
        }
        Ok(Utility {
            weights: [weight("a", 1.0)?, weight("b", -1.0)?, weight("c", 0.0)?, weight("d", 0.0)?],
            collection_size: size as f64,
            rel: spec.int("rel")?,
        })
    }
}

impl Kernel for Utility {
    fn value(&self, q: &Query) -> f64 {
        self.value_shared(q, &mut Shared::default())
    }

    fn value_shared(&self, q: &Query, shared: &mut Shared) -> f64 {
        if !q.in_run {
            return 0.0;
        }
        let relevant = shared.relevant(q, self.rel.unwrap_or(q.rel_level));
        let [a, b, c, d] = self.weights;
        let relret = relevant.ranks.len() as f64;
        let ret = q.num_ret() as f64;
        let r = relevant.num_rel as f64;
        a * relret
            + b * (ret - relret)
            + c * (r - relret)
            + d * (self.collection_size + relret - ret - r)
    }
}

/// The labels of the top n documents (10 by default) as text: grade 0-9 as a digit,
/// '>' above 9, '-' not pooled, '.' pooled but unjudged.
struct RelString {
    depth: i64,
}

impl RelString {
    fn new(spec: &Spec) -> Result<Self, EvalError> {
        match spec.cutoff {
            None => Ok(RelString { depth: 10 }),
            Some(Cutoff::Rank(k)) if k >= 1 => Ok(RelString { depth: k }),
            Some(other) => Err(EvalError::Spec(format!(
                "relstring: the cutoff must be a rank >= 1, got {other:?}"
            ))),
        }
    }
}

/// The character of one label (`counts.relstring_values`).
fn relstring_char(label: f64) -> char {
    match label {
        v if (0.0..=9.0).contains(&v) => char::from(b'0' + v as u8),
        v if v > 9.0 => '>',
        v if v == NOT_POOLED as f64 => '-',
        v if v == UNJUDGED as f64 => '.',
        _ => '<',
    }
}

impl Kernel for RelString {
    fn value(&self, _q: &Query) -> f64 {
        f64::NAN
    }

    fn text(&self, q: &Query) -> String {
        (0..top(q, Some(self.depth))).map(|i| relstring_char(q.ranked.value(i))).collect()
    }

    fn is_text(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Labels, Param};
    use std::collections::BTreeMap;

    fn make(family: &str, cutoff: Option<Cutoff>, params: &[(&str, Param)]) -> Box<dyn Kernel> {
        let params: BTreeMap<String, Param> =
            params.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
        let spec = Spec { family: family.into(), cutoff, params };
        kernel(&spec).expect("a family of this module").expect("valid parameters")
    }

    const RANKED: &[i64] = &[1, 0, 12, -1, -2, 3];
    const JUDGED: &[i64] = &[12, 3, 2, 1, 0, 0];

    fn query(in_run: bool) -> Query<'static> {
        Query {
            ranked: Labels::I64(RANKED),
            judged: Labels::I64(JUDGED),
            in_run,
            rel_level: 1,
            compat: 10,
        }
    }

    #[test]
    fn counts() {
        let q = query(true);
        assert_eq!(make("NumQ", None, &[]).value(&q), 1.0);
        assert_eq!(make("NumRel", None, &[]).value(&q), 4.0);
        assert_eq!(make("NumRel", None, &[("rel", Param::Int(i64::MIN))]).value(&q), 6.0);
        assert_eq!(make("NumRelRet", None, &[]).value(&q), 3.0);
        assert_eq!(make("NumRelRet", Some(Cutoff::Rank(2)), &[]).value(&q), 1.0);
        assert_eq!(make("NumRelRet", Some(Cutoff::Rank(i64::MAX)), &[]).value(&q), 3.0);
        assert_eq!(make("NumNonRelJudgedRet", None, &[]).value(&q), 1.0);
        let high = [("rel", Param::Int(i64::MAX))];
        assert_eq!(make("NumNonRelJudgedRet", None, &high).value(&q), 4.0);
    }

    #[test]
    fn utility() {
        // relret 3, ret 6, R 4, N 100: 2*3 - 1*3 + 0.5*1 + 1*(100 + 3 - 6 - 4)
        let params = [
            ("a", Param::Real(2.0)),
            ("c", Param::Real(0.5)),
            ("d", Param::Int(1)),
            ("collection_size", Param::Int(100)),
        ];
        let k = make("utility", None, &params);
        assert_eq!(k.value(&query(true)), 96.5);
        assert_eq!(k.value(&query(false)), 0.0);
    }

    #[test]
    fn relstring() {
        let q = query(true);
        let k = make("relstring", None, &[]);
        assert!(k.is_text());
        assert_eq!(k.text(&q), "10>-.3");
        assert_eq!(make("relstring", Some(Cutoff::Rank(2)), &[]).text(&q), "10");
        let empty = Query { ranked: Labels::I64(&[]), ..q };
        assert_eq!(k.text(&empty), "");
    }
}
