//! Exit codes, shared with speccoder's other commands.

/// Everything held.
pub const OK: u8 = 0;
/// A bug or an unexpected failure of ours.
pub const INTERNAL: u8 = 1;
/// The command line was wrong.
pub const USAGE: u8 = 2;
/// A configuration or input file is wrong (speccoder.toml, evidence, trust files, keys).
pub const CONFIG: u8 = 13;
/// The repository is not in a state the command can work in (detached HEAD, unborn branch, ...).
pub const GIT_PRECONDITION: u8 = 14;
/// There was nothing to check.
pub const NOTHING_TO_CHECK: u8 = 15;
/// An attestation does not hold, or generated files differ from what the code generates.
pub const DOES_NOT_HOLD: u8 = 26;
