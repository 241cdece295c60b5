//! The families of `cranfield/core/measures/ranked_extra.py`.

use crate::{Kernel, Spec};

/// The families this module computes.
pub const FAMILIES: &[&str] = &[];

/// The kernel of `spec` when its family is one of [`FAMILIES`].
pub fn kernel(spec: &Spec) -> Option<Result<Box<dyn Kernel>, String>> {
    let _ = spec;
    None
}
