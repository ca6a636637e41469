//! A work-tree file and its blob, converted as git converts them: `core.autocrlf`, `core.eol`, the
//! `.gitattributes` `text`, `eol`, `ident`, `working-tree-encoding` and `filter` attributes, and
//! the clean and smudge drivers (`filter.<driver>.clean`, `.smudge`, `.process`) the repository's
//! configuration defines, run as git runs them. All of it is gix's filter pipeline, primed with the
//! attributes of the work tree and of the locked index.

use std::io::Read as _;
use std::path::Path;

use gix::bstr::ByteSlice;
use gix::filter::plumbing::driver::apply::Delay;
use gix::filter::plumbing::pipeline::convert::to_worktree;
use gix::worktree::stack::state::attributes::Source;

use super::error::{Conversion, GitError};
use super::repo::{OBJECT_SIZE_LIMIT, Repo};

/// `worktree`, the content of the work-tree file `path`, in git's form: what `git add` would stage,
/// and what `git status` compares with the staged blob.
pub(super) fn to_git(
    repo: &Repo,
    index: &gix::index::State,
    path: &str,
    worktree: &[u8],
) -> Result<Vec<u8>, GitError> {
    let failed = failure(path, Conversion::ToGit);
    let mut pipeline = pipeline(repo, index).map_err(failed)?;
    let converted = pipeline.convert_to_git(worktree, Path::new(path), index).map_err(failed)?;
    read_bounded(converted, path, Conversion::ToGit)
}

/// `blob`, the content of `path` in git's form, in the form `git checkout` writes into the work
/// tree.
pub(super) fn to_worktree(
    repo: &Repo,
    index: &gix::index::State,
    path: &str,
    blob: &[u8],
) -> Result<Vec<u8>, GitError> {
    let failed = failure(path, Conversion::ToWorktree);
    let mut pipeline = pipeline(repo, index).map_err(failed)?;
    // A process filter may not put the file off: it is written now, under the index lock.
    let options = to_worktree::Options {
        can_delay: Delay::Forbid,
        unknown_encoding: to_worktree::UnknownEncoding::Fail,
    };
    let converted = pipeline.convert_to_worktree(blob, path.as_bytes().as_bstr(), options).map_err(failed)?;
    read_bounded(converted, path, Conversion::ToWorktree)
}

/// gix's pipeline for this repository, its attributes read from the work tree and, for a file the
/// work tree lacks (a sparse checkout), from `index`.
fn pipeline<'r>(repo: &'r Repo, index: &gix::index::State) -> Result<gix::filter::Pipeline<'r>, gix::Error> {
    let attributes = repo.inner.attributes_only(index, Source::WorktreeThenIdMapping)?;
    gix::filter::Pipeline::new(&repo.inner, attributes.detach())
}

/// Reads what a conversion gives, at most [`OBJECT_SIZE_LIMIT`] bytes (a filter driver's output is
/// the driver's to choose).
fn read_bounded(
    converted: impl std::io::Read,
    path: &str,
    conversion: Conversion,
) -> Result<Vec<u8>, GitError> {
    let limit = u64::try_from(OBJECT_SIZE_LIMIT).unwrap_or(u64::MAX);
    let mut bytes = Vec::new();
    converted.take(limit.saturating_add(1)).read_to_end(&mut bytes).map_err(|e| GitError::Convert {
        path: path.to_owned(),
        conversion,
        reason: e.to_string(),
    })?;
    if bytes.len() > OBJECT_SIZE_LIMIT {
        return Err(GitError::Convert {
            path: path.to_owned(),
            conversion,
            reason: format!(
                "the result is larger than the {OBJECT_SIZE_LIMIT} bytes speccoder reads of one file"
            ),
        });
    }
    Ok(bytes)
}

/// The error of a conversion of `path` that gix refused.
fn failure(path: &str, conversion: Conversion) -> impl Fn(gix::Error) -> GitError + Copy + '_ {
    move |source| GitError::Convert { path: path.to_owned(), conversion, reason: source.to_string() }
}
