//! Why the engine does not compute what it is asked: one typed error for the measure
//! kernels, the micro averages, the judged-run checks and trec_eval's printer. Its
//! message ([`fmt::Display`]) is what the caller shows; `rust/engine/src/errors.rs`
//! maps each variant to its Python exception, in one place.

use std::fmt;

use crate::Refusal;

#[derive(Clone, Debug, PartialEq)]
pub enum EvalError {
    /// A measure the engine does not compute (no kernel or no micro average for its
    /// family), or parameters its kernel does not take (Python: `ValueError`; the
    /// caller's general path then reports it in its own words).
    Spec(String),
    /// Arrays, columns or values that do not fit together: a caller's mistake
    /// (Python: `ValueError`).
    Shape(String),
    /// A measure refusing the data (Python: `InputError` or `MeasureError`).
    Refused(Refusal),
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EvalError::Spec(m) | EvalError::Shape(m) => f.write_str(m),
            EvalError::Refused(Refusal::Input(m) | Refusal::Measure(m)) => f.write_str(m),
        }
    }
}

impl std::error::Error for EvalError {}

impl From<Refusal> for EvalError {
    fn from(refusal: Refusal) -> Self {
        EvalError::Refused(refusal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measures::{kernel, test_spec as spec};
    use crate::micro::micro_all;
    use crate::{JudgedView, Labels};

    #[test]
    fn each_failure_has_its_variant_and_its_message() {
        let run = JudgedView {
            offsets: &[0, 1],
            labels: Labels::I8(&[1]),
            qrels_offsets: &[0, 1],
            qrels_grades: Labels::I8(&[1]),
            in_run: &[true],
            rel_level: 1,
            compat: 10,
        };
        let unknown = kernel(&spec("nope", None, &[])).err().unwrap();
        let message = "the engine has no kernel for the measure family \"nope\"";
        assert_eq!(unknown, EvalError::Spec(message.into()));
        assert_eq!(unknown.to_string(), message);
        let no_micro = micro_all(&run, &[spec("AP", None, &[])], &[], &[]).unwrap_err();
        assert_eq!(no_micro, EvalError::Spec("no micro average of AP".into()));
        let unknown = micro_all(&run, &[spec("AP", None, &[])], &["ap".into()], &[]);
        assert_eq!(unknown, Err(EvalError::Spec("AP: no micro average called \"ap\"".into())));
        let short = JudgedView { in_run: &[], ..run };
        assert!(matches!(short.check(), Err(EvalError::Shape(_))));
        let refused = EvalError::from(Refusal::Measure("too few".into()));
        assert_eq!(refused.to_string(), "too few");
    }
}
