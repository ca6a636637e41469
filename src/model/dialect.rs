//! Whose statement shapes a note is read in. Most of the task-verification predicate and the
//! test-result lines are written alike by this crate and by the published speccoder; a few
//! members are not (`regression`, a `collection` file, a held_out line's counts). A verifier reads
//! the published speccoder's shapes only in a note under its published recipe
//! ([`super::policy::Recipe::Published`], the digest that hashes in the version its signed summary
//! records), so that evidence it wrote keeps verifying, and never in a note under the version-free
//! recipe this crate writes: its weaker shapes cannot stand in for ours.

/// The shapes a note's statements are read in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// This crate's: what it writes, and what a note under the version-free recipe must hold.
    Ours,
    /// The published speccoder's, read as it meant them: only in a note under its published recipe.
    Published,
}
