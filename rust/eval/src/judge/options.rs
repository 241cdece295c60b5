//! The judging options ([`JudgeOptions`], [`Duplicates`]) and how the inputs are read
//! ([`Reading`]).

use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use super::{parallel, stream, JudgeError};

/// What to do with a document listed twice for one query (Python's `duplicates`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Duplicates {
    /// An error (as trec_eval).
    #[default]
    Error,
    /// Keep the first line.
    First,
    /// Keep the line with the highest value (the first of equal ones).
    Max,
}

impl Duplicates {
    /// The policy named as in Python: "error", "first" or "max".
    pub fn parse(name: &str) -> Option<Duplicates> {
        match name {
            "error" => Some(Duplicates::Error),
            "first" => Some(Duplicates::First),
            "max" => Some(Duplicates::Max),
            _ => None,
        }
    }
}

/// The judging options of `cranfield/core/options.py`'s `JudgeOptions`, plus the
/// duplicates policy of the qrels (Python's `Qrels.read(duplicates=...)`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JudgeOptions {
    /// Minimum grade of a relevant document (-l).
    pub rel_level: i64,
    /// Keep only the first `depth` documents of each ranking (-M); positive.
    pub depth: Option<u64>,
    /// Drop documents without a judgment from the rankings (-J).
    pub judged_only: bool,
    /// Evaluate every qrels topic, a missing one as an empty ranking (-c).
    pub complete: bool,
    /// 10 (trec_eval 10.0) or 9 (scores rounded to f32 before ranking).
    pub compat: u8,
    /// Documents ranked twice for one query (the run's policy).
    pub duplicates: Duplicates,
    /// Documents judged twice for one query (the qrels' policy).
    pub qrels_duplicates: Duplicates,
}

impl Default for JudgeOptions {
    fn default() -> Self {
        JudgeOptions {
            rel_level: 1,
            depth: None,
            judged_only: false,
            complete: false,
            compat: 10,
            duplicates: Duplicates::Error,
            qrels_duplicates: Duplicates::Error,
        }
    }
}

impl JudgeOptions {
    /// Checks the values Python's `JudgeOptions` refuses.
    pub fn check(&self) -> Result<(), JudgeError> {
        if self.depth == Some(0) {
            return Err(JudgeError::Options("depth must be a positive integer"));
        }
        if !matches!(self.compat, 9 | 10) {
            return Err(JudgeError::Options("compat must be 9 or 10"));
        }
        Ok(())
    }
}

/// How the engine reads a run and qrels ([`stream::judge_files_streamed`]).
#[derive(Clone, Debug)]
pub struct Reading {
    /// Ids as Latin-1 (one character per byte) instead of UTF-8 (checked).
    pub latin1: bool,
    /// Qrels relevance as real numbers (fractional gains).
    pub fractional: bool,
    /// The longest line allowed, in bytes.
    pub max_line: usize,
    /// Worker threads.
    pub threads: usize,
    /// The most bytes a gzip file may decompress to; for a run read piece by piece
    /// ([`stream`]), the most bytes of text read whole when it must be.
    pub max_bytes: u64,
    /// The bytes of a run read per piece by [`stream`] (0: the run read whole).
    pub piece_bytes: usize,
    /// [`stream`] reads a plain regular file of at most this many bytes whole (the
    /// fastest way), larger ones and gzip input in pieces.
    pub whole_bytes: u64,
    /// The most bytes of a run not grouped by query that [`stream`] reads whole instead
    /// (within `max_bytes` too); 0: never, a query reappearing is an error (`--stream`).
    pub regroup_bytes: u64,
    /// A counter of the bytes read from the inputs, for a progress bar ([`counted`]).
    pub progress: Option<Arc<AtomicU64>>,
}

impl Default for Reading {
    fn default() -> Self {
        Reading {
            latin1: false,
            fractional: false,
            max_line: 1 << 26,
            threads: parallel::threads(),
            max_bytes: u64::MAX,
            piece_bytes: stream::PIECE_BYTES,
            whole_bytes: stream::WHOLE_BYTES,
            regroup_bytes: u64::MAX,
            progress: None,
        }
    }
}
