//! A task as the command line names it: `<unit>/<task>`.

use crate::exit::{Class, ExitClass};

/// A target that is not `<unit>/<task>`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not <unit>/<task> (for example 001-bookmark-tags/T005)")]
pub struct BadTarget(pub String);

impl ExitClass for BadTarget {
    fn class(&self) -> Class {
        Class::Usage
    }
}

/// `<unit>/<task>` split at the first `/`, both parts non-empty.
///
/// # Errors
/// [`BadTarget`].
pub fn split_target(target: &str) -> Result<(&str, &str), BadTarget> {
    match target.split_once('/') {
        Some((u, t)) if !u.is_empty() && !t.is_empty() => Ok((u, t)),
        _ => Err(BadTarget(target.to_owned())),
    }
}
