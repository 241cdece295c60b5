//! The batched learning-to-rank objective of cranfield (pure Rust, no Python).
//!
//! Documents are given query by query, each query's documents in the order that
//! breaks ties (the caller sorts them: document id descending for trec_eval's rule,
//! file order for LETOR's). For every (individual, query) the documents are ranked by
//! score descending, ties by that position, and the measures are computed from the
//! labels of the top of the ranking with the same operations, in the same order, as
//! cranfield's NumPy kernels (`src/cranfield/core/measures/`), so values agree to the
//! last bit or nearly so (ERR's `exp` may differ in the last place from NumPy's).
//!
//! Every document is judged (its label is its grade): R, the ideal DCG and the other
//! per-query constants are computed once, at construction.
//!
//! Given the features ([`Kernel::set_features`]), the kernel scores weight vectors
//! itself with [`scoring`], the linear rankers' one scoring function, run of queries by
//! run of queries, fused with the ranking. The crate also holds the SVMlight/LETOR
//! reader ([`svmlight`]) and the
//! bulk text of a model file's weights ([`model_text`]).

pub mod model_text;
pub mod scoring;
pub mod svmlight;

mod fused;
mod kernel;
mod measures;
mod ranking;
mod spec;
#[cfg(test)]
mod tests;

pub use kernel::Kernel;
pub(crate) use kernel::*;
pub use measures::weighted_means;
pub(crate) use measures::*;
pub(crate) use ranking::*;
pub use ranking::{top, top_with};
pub use spec::{Failure, Kind, Normalise, Spec};
