//! The most speccoder reads of a repository: one object, and each kind of file gix opens.

/// The largest object, inflated, that speccoder reads (gix's `gitoxide.objects.allocLimit`): far
/// above any commit, tree, note or spec file it reads, and a bound on what a checked branch can
/// make it hold, since a few MiB of compressed zeros in a pack can stand for gigabytes. It
/// applies to every repository opened ([`Repo::discover`](super::Repo::discover) opens none with reduced trust).
pub const OBJECT_SIZE_LIMIT: usize = 256 << 20;

/// The largest configuration or attributes file read: the bound of `speccoder.toml`
/// ([`crate::model::policy::CONFIG_MAX_BYTES`], 1 MiB), far above any real one.
pub const SETTINGS_FILE_LIMIT: u64 = crate::model::policy::CONFIG_MAX_BYTES as u64;

/// The largest attributes file read: one byte under git's `ATTR_MAX_FILE_SIZE` (100 MiB), from
/// which git ignores one (a real one, generated lists of a large project's files included,
/// holds a few MiB at most).
pub const ATTRIBUTES_FILE_LIMIT: u64 = (100 << 20) - 1;

/// The largest index or `packed-refs` file read: [`OBJECT_SIZE_LIMIT`], as for an object.
pub(super) const REPOSITORY_FILE_LIMIT: u64 = OBJECT_SIZE_LIMIT as u64;
