//! What the kernel is asked to compute: the measures, their specifications, and why
//! an evaluation fails.

/// A measure the kernel computes (cranfield's definitions; see the Python side).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// DCG@k / IDCG@k with per-document gains and the kernel's discount divisors.
    Ndcg,
    /// relevant in the top k / k.
    Precision,
    /// relevant in the top k / R.
    Recall,
    /// 1 if a relevant document is in the top k.
    Success,
    /// relevant in the top k / min(k, R).
    RelativePrecision,
    /// sum of P@rank over relevant ranks <= k, over R, min(R, k) or the relevant found.
    AveragePrecision,
    /// relevant in the top R / R.
    RPrecision,
    /// 1 / rank of the first relevant document within k.
    ReciprocalRank,
    /// expected reciprocal rank (stop probabilities per document).
    ExpectedReciprocalRank,
    /// bpref over the judged (all) documents.
    Bpref,
}

/// The denominator of average precision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Normalise {
    /// R, all relevant documents of the query.
    R,
    /// min(R, k).
    MinRK,
    /// the relevant documents found in the top k.
    RelevantRetrieved,
}

/// One measure: its kind, rank cutoff, relevance level and per-document numbers.
#[derive(Clone, Debug)]
pub struct Spec {
    pub kind: Kind,
    /// Rank cutoff k (None: the whole ranking).
    pub cutoff: Option<usize>,
    /// A document is relevant when its label >= level.
    pub level: i64,
    pub normalise: Normalise,
    /// LETOR's rule: NDCG@k of a query with fewer than k documents is 0.
    pub zero_if_short: bool,
    /// Per document: the gain (Ndcg) or the stop probability (ERR).
    pub gains: Vec<f64>,
    /// Per document: ln(1 - stop probability) (ERR).
    pub log_continue: Vec<f64>,
}

impl Spec {
    /// A measure on labels alone (no per-document numbers).
    pub fn new(kind: Kind, cutoff: Option<usize>, level: i64) -> Spec {
        Spec {
            kind,
            cutoff,
            level,
            normalise: Normalise::R,
            zero_if_short: false,
            gains: Vec::new(),
            log_continue: Vec::new(),
        }
    }

    /// Whether the whole ranking is needed (not only the top `cutoff`).
    pub(crate) fn needs_all(&self) -> bool {
        self.cutoff.is_none() || matches!(self.kind, Kind::RPrecision | Kind::Bpref)
    }
}

/// Why an evaluation failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// A score was NaN or infinite.
    NonFinite,
    /// Arrays of the wrong size (a caller's bug).
    Shape(String),
}
