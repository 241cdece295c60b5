//! Why judging failed ([`JudgeError`]) and in which input ([`Input`]).

use std::fmt;

/// Which input a problem is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    Run,
    Qrels,
}

impl fmt::Display for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Input::Run => "run",
            Input::Qrels => "qrels",
        })
    }
}

/// Why judging failed. The Python side reports input problems with its own messages
/// (it reads the inputs again); these only need to tell the cases apart.
#[derive(Debug)]
pub enum JudgeError {
    /// An option Python's `JudgeOptions` refuses.
    Options(&'static str),
    /// The columns are not of the input's kind (a run needs scores, qrels grades), or
    /// not consistent (columns of unequal lengths, string offsets outside their data).
    WrongKind(Input),
    /// No data line.
    Empty(Input),
    /// A document listed twice for one query, with policy `Error`: the pair whose
    /// second line comes first, and the lines of its two occurrences.
    Duplicate { input: Input, query: Vec<u8>, doc: Vec<u8>, lines: (u64, u64) },
    /// The reader found a problem (what and where).
    Read { input: Input, error: cranfield_trec::Error },
    /// The file cannot be opened or read.
    Io { input: Input, error: std::io::Error },
    /// An input read elsewhere (standard input, a pipe, gzip): the caller reads it.
    Unsupported { input: Input, reason: &'static str },
    /// A query of a run read piece by piece whose lines reappear in a later piece,
    /// after another query's (its id, and the line where it reappears).
    Regrouped { path: std::path::PathBuf, query: Vec<u8>, line: u64 },
    /// Memory could not be had to do what is named ("not enough memory to ...") while
    /// reading the run at `path`.
    Memory { path: std::path::PathBuf, what: &'static str },
}

impl fmt::Display for JudgeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JudgeError::Options(what) => f.write_str(what),
            JudgeError::WrongKind(input) => write!(f, "{input}: columns of the wrong kind"),
            JudgeError::Empty(input) => write!(f, "{input}: no lines found"),
            JudgeError::Duplicate { input, query, doc, lines } => write!(
                f,
                "{input}: document {:?} appears twice for query {:?} (lines {} and {})",
                String::from_utf8_lossy(doc),
                String::from_utf8_lossy(query),
                lines.0,
                lines.1
            ),
            JudgeError::Read { input, error } => match error.line {
                Some(line) => write!(f, "{input}, line {line}: {:?}", error.problem),
                None => write!(f, "{input}: {:?}", error.problem),
            },
            JudgeError::Io { input, error } => write!(f, "{input}: {error}"),
            JudgeError::Unsupported { input, reason } => write!(f, "{input}: {reason}"),
            JudgeError::Regrouped { query, line, .. } => write!(
                f,
                "run, line {line}: query {:?} appears again after other queries",
                String::from_utf8_lossy(query)
            ),
            JudgeError::Memory { what, .. } => write!(f, "not enough memory to {what}"),
        }
    }
}

impl std::error::Error for JudgeError {}
