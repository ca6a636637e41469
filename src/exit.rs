//! Exit codes, shared with speccoder's other commands, and the one way a failure becomes one.
//!
//! Every error type a command can end with implements [`ExitClass`] once, beside the type, as one
//! match over its variants without a catch-all: a new variant does not compile until it is given
//! a class. An error that wraps another (a [`crate::git::GitError`] inside an operation's error)
//! takes the class of the one it wraps, so that the same failure exits the same from every
//! command. A command's report (a tick that does not hold) has its own exit code; this is for
//! the failures.

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

/// What kind of failure ended a command: each class is one exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// A bug or an unexpected failure of ours ([`INTERNAL`]).
    Internal,
    /// The command line was wrong: a bad target, an unknown unit, task, revision or remote
    /// ([`USAGE`]).
    Usage,
    /// A configuration or input file is wrong ([`CONFIG`]).
    Config,
    /// The repository is not in a state the command can work in ([`GIT_PRECONDITION`]).
    GitPrecondition,
    /// There was nothing to check, or nothing to do it with ([`NOTHING_TO_CHECK`]).
    NothingToCheck,
    /// What the command checks does not hold ([`DOES_NOT_HOLD`]).
    DoesNotHold,
}

impl Class {
    /// The exit code of this class.
    #[must_use]
    pub const fn code(self) -> u8 {
        match self {
            Class::Internal => INTERNAL,
            Class::Usage => USAGE,
            Class::Config => CONFIG,
            Class::GitPrecondition => GIT_PRECONDITION,
            Class::NothingToCheck => NOTHING_TO_CHECK,
            Class::DoesNotHold => DOES_NOT_HOLD,
        }
    }
}

/// A failure a command can end with: its class, and so its exit code.
pub trait ExitClass {
    /// The class of this failure.
    fn class(&self) -> Class;

    /// The exit code of this failure.
    fn exit_code(&self) -> u8 {
        self.class().code()
    }
}

impl<T: ExitClass + ?Sized> ExitClass for Box<T> {
    fn class(&self) -> Class {
        (**self).class()
    }
}
