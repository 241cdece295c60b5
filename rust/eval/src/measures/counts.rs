//! The families of `cranfield/core/measures/counts.py`.

use crate::{Kernel, Query, Spec};

/// The families this module computes.
pub const FAMILIES: &[&str] = &["NumRet"];

/// The kernel of `spec` when its family is one of [`FAMILIES`].
pub fn kernel(spec: &Spec) -> Option<Result<Box<dyn Kernel>, String>> {
    let made: Result<Box<dyn Kernel>, String> = match spec.family.as_str() {
        "NumRet" => NumRet::new(spec).map(|k| Box::new(k) as Box<dyn Kernel>),
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
    fn new(spec: &Spec) -> Result<Self, String> {
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
