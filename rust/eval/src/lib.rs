//! Evaluation of judged rankings, without Python.
//!
//! The input is a judged run in the layout of `cranfield.core.judged.JudgedRun`
//! (trec_eval's `RES_RELS` for all queries at once, as flat arrays with CSR offsets):
//! per query, the labels of the ranked documents in rank order (a grade >= 0,
//! [`NOT_POOLED`] or [`UNJUDGED`]) and the grades of every judged document sorted
//! descending (the material of ideal rankings). [`measures`] computes every measure
//! family of cranfield's registry from it, one value per query.

pub mod aggregate;
pub mod diversity;
pub mod error;
pub mod fusion;
pub mod intent_graded;
pub mod judge;
pub mod measures;
pub mod micro;
pub mod ndeval;
pub mod runs;
pub mod trec_eval;
pub mod views;

#[cfg(test)]
pub(crate) mod test_rng;

use std::collections::BTreeMap;

pub use error::EvalError;

/// Label of a retrieved document absent from the qrels.
pub const NOT_POOLED: i64 = -1;
/// Label of a retrieved document the qrels list with a negative value (pooled, unjudged).
pub const UNJUDGED: i64 = -2;

/// [`Labels`], owned: the NumPy dtypes of `JudgedRun`'s arrays (a judged run, its
/// judged-only view, a subset of its queries, the placeholder rankings of `-c`).
#[derive(Clone, Debug, PartialEq)]
pub enum LabelVec {
    I8(Vec<i8>),
    I64(Vec<i64>),
    F64(Vec<f64>),
}

impl LabelVec {
    pub fn view(&self) -> Labels<'_> {
        match self {
            LabelVec::I8(v) => Labels::I8(v),
            LabelVec::I64(v) => Labels::I64(v),
            LabelVec::F64(v) => Labels::F64(v),
        }
    }

    pub fn len(&self) -> usize {
        self.view().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Grades or labels of documents: small or large integers, or fractional gains (qrels
/// read with `fractional=True`, where the codes -1 and -2 are -1.0 and -2.0).
#[derive(Clone, Copy, Debug)]
pub enum Labels<'a> {
    I8(&'a [i8]),
    I64(&'a [i64]),
    F64(&'a [f64]),
}

impl<'a> Labels<'a> {
    pub fn len(&self) -> usize {
        match self {
            Labels::I8(v) => v.len(),
            Labels::I64(v) => v.len(),
            Labels::F64(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The labels `start..end`.
    pub fn slice(&self, start: usize, end: usize) -> Labels<'a> {
        match self {
            Labels::I8(v) => Labels::I8(&v[start..end]),
            Labels::I64(v) => Labels::I64(&v[start..end]),
            Labels::F64(v) => Labels::F64(&v[start..end]),
        }
    }

    /// Whether the labels are fractional gains.
    pub fn is_real(&self) -> bool {
        matches!(self, Labels::F64(_))
    }

    /// Label `i` as a float (NumPy's int64 -> float64 conversion).
    #[inline]
    pub fn value(&self, i: usize) -> f64 {
        match self {
            Labels::I8(v) => v[i] as f64,
            Labels::I64(v) => v[i] as f64,
            Labels::F64(v) => v[i],
        }
    }

    /// Label `i` as an integer (fractional labels truncated toward zero; the codes stay
    /// -1 and -2).
    #[inline]
    pub fn grade(&self, i: usize) -> i64 {
        match self {
            Labels::I8(v) => v[i] as i64,
            Labels::I64(v) => v[i],
            Labels::F64(v) => v[i] as i64,
        }
    }

    /// Whether document `i` is relevant at threshold `level` (grade >= level; for
    /// fractional gains, gain >= level). Codes -1/-2 are never relevant for level >= 0.
    #[inline]
    pub fn relevant(&self, i: usize, level: i64) -> bool {
        match self {
            Labels::I8(v) => v[i] as i64 >= level,
            Labels::I64(v) => v[i] >= level,
            Labels::F64(v) => v[i] >= level as f64,
        }
    }

    /// Whether document `i` is judged (label >= 0).
    #[inline]
    pub fn judged(&self, i: usize) -> bool {
        match self {
            Labels::I8(v) => v[i] >= 0,
            Labels::I64(v) => v[i] >= 0,
            Labels::F64(v) => v[i] >= 0.0,
        }
    }

    /// Whether document `i` is in the qrels (judged or pooled-unjudged: not [`NOT_POOLED`]).
    #[inline]
    pub fn pooled(&self, i: usize) -> bool {
        match self {
            Labels::I8(v) => v[i] as i64 != NOT_POOLED,
            Labels::I64(v) => v[i] != NOT_POOLED,
            Labels::F64(v) => v[i] != NOT_POOLED as f64,
        }
    }
}

/// A judged run: the arrays of `cranfield.core.judged.JudgedRun`, borrowed.
#[derive(Clone, Copy, Debug)]
pub struct JudgedView<'a> {
    /// `labels[offsets[q]..offsets[q + 1]]` is the ranking of query `q`.
    pub offsets: &'a [i64],
    pub labels: Labels<'a>,
    /// `qrels_grades[qrels_offsets[q]..qrels_offsets[q + 1]]`: the non-negative grades
    /// of every judged document of query `q`, sorted descending.
    pub qrels_offsets: &'a [i64],
    pub qrels_grades: Labels<'a>,
    /// False for the queries evaluated as empty rankings because of `complete` (-c).
    pub in_run: &'a [bool],
    /// Default relevance threshold (trec_eval -l).
    pub rel_level: i64,
    /// 10 (trec_eval 10.0) or 9 (trec_eval 9.x, pytrec_eval).
    pub compat: u8,
}

impl<'a> JudgedView<'a> {
    pub fn num_queries(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Query `q`: its ranking and its judged grades.
    pub fn query(&self, q: usize) -> Query<'a> {
        let (s, e) = (self.offsets[q] as usize, self.offsets[q + 1] as usize);
        let (qs, qe) = (self.qrels_offsets[q] as usize, self.qrels_offsets[q + 1] as usize);
        Query {
            ranked: self.labels.slice(s, e),
            judged: self.qrels_grades.slice(qs, qe),
            in_run: self.in_run[q],
            rel_level: self.rel_level,
            compat: self.compat,
        }
    }

    /// Checks the arrays are consistent (lengths, monotone offsets); an error names the
    /// first problem. Kernels may then index without further checks.
    pub fn check(&self) -> Result<(), EvalError> {
        let monotone = |o: &[i64], len: usize, what: &str| -> Result<(), EvalError> {
            if o.first().copied().unwrap_or(0) != 0
                || o.windows(2).any(|w| w[0] > w[1])
                || o.last().copied().unwrap_or(0) as usize != len
            {
                return Err(EvalError::Shape(format!(
                    "{what} offsets are not a partition of {len} entries"
                )));
            }
            Ok(())
        };
        if self.offsets.is_empty() || self.qrels_offsets.len() != self.offsets.len() {
            return Err(EvalError::Shape(
                "offsets and qrels offsets must have one entry per query plus one".into(),
            ));
        }
        if self.in_run.len() != self.num_queries() {
            return Err(EvalError::Shape("in_run must have one entry per query".into()));
        }
        monotone(self.offsets, self.labels.len(), "ranking")?;
        monotone(self.qrels_offsets, self.qrels_grades.len(), "qrels")
    }
}

/// One query of a judged run.
#[derive(Clone, Copy, Debug)]
pub struct Query<'a> {
    /// Labels of the ranked documents, in rank order.
    pub ranked: Labels<'a>,
    /// Grades (>= 0) of every judged document of the query, sorted descending.
    pub judged: Labels<'a>,
    /// False when the query was added by `complete` (-c) with an empty ranking.
    pub in_run: bool,
    pub rel_level: i64,
    pub compat: u8,
}

impl Query<'_> {
    /// Number of ranked documents.
    pub fn num_ret(&self) -> usize {
        self.ranked.len()
    }

    /// Number of judged documents with grade >= `level` (R).
    pub fn num_rel(&self, level: i64) -> usize {
        // judged grades are sorted descending: count the prefix at or above the level
        (0..self.judged.len()).take_while(|&i| self.judged.relevant(i, level)).count()
    }
}

/// A rank cutoff (an integer up to 2^63 - 1) or a real one (recall level, multiple of R).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cutoff {
    Rank(i64),
    Real(f64),
}

/// A parameter value, as the Python registry holds it after validation.
#[derive(Clone, Debug, PartialEq)]
pub enum Param {
    None,
    Bool(bool),
    Int(i64),
    Real(f64),
    Text(String),
    /// `gains`: (grade, gain) pairs.
    Gains(Vec<(i64, f64)>),
    /// A list of numbers (e.g. 11pt_avg's points).
    Reals(Vec<f64>),
}

/// One measure: a family of the registry, its cutoff and every parameter (defaults
/// filled in, `judged_only` already applied by the caller).
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    pub family: String,
    pub cutoff: Option<Cutoff>,
    pub params: BTreeMap<String, Param>,
}

impl Spec {
    pub fn param(&self, name: &str) -> &Param {
        self.params.get(name).unwrap_or(&Param::None)
    }

    /// An optional integer parameter (`rel`): None when absent or None.
    pub fn int(&self, name: &str) -> Result<Option<i64>, EvalError> {
        match self.param(name) {
            Param::None => Ok(None),
            Param::Int(v) => Ok(Some(*v)),
            other => {
                let m =
                    format!("{}: parameter {name} must be an integer, got {other:?}", self.family);
                Err(EvalError::Spec(m))
            }
        }
    }

    /// An optional real parameter (integers are accepted).
    pub fn real(&self, name: &str) -> Result<Option<f64>, EvalError> {
        match self.param(name) {
            Param::None => Ok(None),
            Param::Int(v) => Ok(Some(*v as f64)),
            Param::Real(v) => Ok(Some(*v)),
            other => {
                let m =
                    format!("{}: parameter {name} must be a number, got {other:?}", self.family);
                Err(EvalError::Spec(m))
            }
        }
    }

    /// The relevance threshold: the `rel` parameter, else the run's default.
    pub fn level(&self, q: &Query) -> Result<i64, EvalError> {
        Ok(self.int("rel")?.unwrap_or(q.rel_level))
    }

    pub fn rank_cutoff(&self) -> Option<i64> {
        match self.cutoff {
            Some(Cutoff::Rank(k)) => Some(k),
            _ => None,
        }
    }

    pub fn real_cutoff(&self) -> Option<f64> {
        match self.cutoff {
            Some(Cutoff::Real(x)) => Some(x),
            Some(Cutoff::Rank(k)) => Some(k as f64),
            None => None,
        }
    }
}

/// Why a kernel refuses a run: data the family does not define a value for.
#[derive(Clone, Debug, PartialEq)]
pub enum Refusal {
    /// The input data (Python: `cranfield.errors.InputError`).
    Input(String),
    /// The measure's parameters do not fit the data (Python: `MeasureError`).
    Measure(String),
}

/// A measure ready to compute: one value per query.
pub trait Kernel: Send + Sync {
    /// A pre-pass over the whole run before any query is computed (default: nothing):
    /// a scale taken from every evaluated topic, or a refusal of the run's data.
    fn prepare(&mut self, _run: &JudgedView) -> Result<(), Refusal> {
        Ok(())
    }

    /// The value for one query (numeric families).
    fn value(&self, q: &Query) -> f64;

    /// The value for one query, reading the work shared with the query's other kernels
    /// from `shared` (which [`measures::compute`] resets between queries). The default
    /// computes [`Kernel::value`]; a kernel that overrides it gives the same bits either way.
    fn value_shared(&self, q: &Query, _shared: &mut measures::Shared) -> f64 {
        self.value(q)
    }

    /// The text for one query (string families: relstring); numeric families never
    /// receive this call.
    fn text(&self, _q: &Query) -> String {
        String::new()
    }

    /// Whether the family's values are texts.
    fn is_text(&self) -> bool {
        false
    }
}

/// A computed column: one value (or text) per query.
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    Numbers(Vec<f64>),
    Texts(Vec<String>),
}
