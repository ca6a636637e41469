//! A work-tree file and its blob, converted as git converts them: `core.autocrlf`, `core.eol`, the
//! `.gitattributes` `text`, `eol`, `ident`, `working-tree-encoding` and `filter` attributes, and
//! the clean and smudge drivers (`filter.<driver>.clean`, `.smudge`, `.process`) the repository's
//! configuration defines, run as git runs them. All of it is gix's filter pipeline, primed with the
//! attributes of the work tree and of the locked index, except the Unicode working-tree encodings
//! (UTF-16, UTF-32 and git's `UTF-16LE-BOM`), which gix's `encoding_rs` cannot write: those are
//! converted by [`super::unicode`], at the place in the pipeline where git converts them, and an
//! encoding neither can convert as git does is refused before anything is written.

use std::borrow::Cow;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use gix::attrs::StateRef;
use gix::bstr::{BStr, BString, ByteSlice};
use gix::filter::plumbing::driver::apply::Delay;
use gix::filter::plumbing::pipeline::convert::to_worktree;
use gix::worktree::stack::state::attributes::Source;

use super::error::{Conversion, GitError};
use super::files::{Links, check};
use super::git_file::GitFile;
use super::limits::{ATTRIBUTES_FILE_LIMIT, OBJECT_SIZE_LIMIT};
use super::repo::Repo;
use super::unicode::{self, Unicode};

/// The attributes gix's pipeline reads, in its order, with `working-tree-encoding` replaced by a
/// name no attribute can have: the pipeline then sees no encoding, for a path whose Unicode
/// encoding is converted here ([`Unicode`]) before (to git) or after (to the work tree) it, at the
/// place git converts it.
const WITHOUT_ENCODING: [&str; 6] = ["crlf", "ident", "filter", "eol", "text", "speccoder:no-encoding"];

/// `worktree`, the content of the work-tree file `path`, in git's form: what `git add` would stage,
/// and what `git status` compares with the staged blob.
pub(super) fn to_git(
    repo: &Repo,
    index: &gix::index::State,
    path: &str,
    worktree: &[u8],
) -> Result<Vec<u8>, GitError> {
    let failed = failure(path, Conversion::ToGit);
    let (mut pipeline, mut stack, unicode) = pipeline(repo, index, path, Conversion::ToGit)?;
    // git decodes right after the clean filter, which is refused with a Unicode encoding.
    let src = match unicode {
        Some(unicode) => Cow::Owned(unicode.decode(path, worktree).map_err(|reason| GitError::Convert {
            path: path.to_owned(),
            conversion: Conversion::ToGit,
            reason: reason.to_string(),
        })?),
        None => Cow::Borrowed(worktree),
    };
    let entry =
        stack.at_entry(path, None, &repo.inner.objects).map_err(|e| failed(gix::Error::from_error(e)))?;
    let converted = pipeline
        .convert_to_git(
            &*src,
            Path::new(path),
            &mut |_, attrs| attributes(&entry, attrs, unicode.is_some()),
            &mut |buf| {
                // The staged blob, for `core.autocrlf`'s look at the index (as gix's own pipeline).
                let Some(staged) = index.entry_by_path(path.as_bytes().as_bstr()) else {
                    return Ok(None);
                };
                let object = gix::objs::Find::try_find(&repo.inner.objects, &staged.id, buf)?;
                Ok(object.filter(|o| o.kind == gix::object::Kind::Blob).map(|_| ()))
            },
        )
        .map_err(failed)?;
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
    let (mut pipeline, mut stack, unicode) = pipeline(repo, index, path, Conversion::ToWorktree)?;
    let entry =
        stack.at_entry(path, None, &repo.inner.objects).map_err(|e| failed(gix::Error::from_error(e)))?;
    // A process filter may not put the file off: it is written now, under the index lock.
    let options = to_worktree::Options {
        can_delay: Delay::Forbid,
        unknown_encoding: to_worktree::UnknownEncoding::Fail,
    };
    let converted = pipeline
        .convert_to_worktree(
            blob,
            path.as_bytes().as_bstr(),
            &mut |_, attrs| attributes(&entry, attrs, unicode.is_some()),
            options,
        )
        .map_err(failed)?;
    let converted = read_bounded(converted, path, Conversion::ToWorktree)?;
    // git encodes right before the smudge filter, which is refused with a Unicode encoding.
    match unicode {
        Some(unicode) => unicode.encode(&converted).map_err(|reason| GitError::Convert {
            path: path.to_owned(),
            conversion: Conversion::ToWorktree,
            reason: reason.to_string(),
        }),
        None => Ok(converted),
    }
}

/// Fills `attrs` with the attributes of `entry` that gix's pipeline reads; without
/// `working-tree-encoding` when `hide_encoding` ([`WITHOUT_ENCODING`]).
fn attributes(
    entry: &gix::worktree::stack::Platform<'_>,
    attrs: &mut gix::attrs::search::Outcome,
    hide_encoding: bool,
) {
    if hide_encoding {
        attrs.initialize_with_selection(&gix::attrs::search::MetadataCollection::default(), WITHOUT_ENCODING);
    }
    entry.matching_attributes(attrs);
}

/// gix's pipeline for this repository and its attribute stack, the attributes read from the work
/// tree and, for a file the work tree lacks (a sparse checkout), from `index`; and the Unicode
/// encoding of `path` that is converted here rather than by the pipeline.
///
/// # Errors
/// [`GitError::UnsupportedEncoding`]: the `working-tree-encoding` of `path` is one that neither
/// gix nor this module converts as git does.
fn pipeline(
    repo: &Repo,
    index: &gix::index::State,
    path: &str,
    conversion: Conversion,
) -> Result<(gix::filter::plumbing::Pipeline, gix::worktree::Stack, Option<Unicode>), GitError> {
    let failed = failure(path, conversion);
    check_attributes(repo, index, path)?;
    let attributes = repo.inner.attributes_only(index, Source::WorktreeThenIdMapping).map_err(failed)?;
    let (pipeline, mut stack) =
        gix::filter::Pipeline::new(&repo.inner, attributes.detach()).map_err(failed)?.into_parts();
    let (encoding, filter) = encoding_and_filter(repo, &mut stack, path, conversion)?;
    let drivers = gix::filter::Pipeline::options(&repo.inner).map_err(failed)?.drivers;
    let driver = filter.and_then(|filter| drivers.into_iter().find(|d| d.name == filter.as_bstr()));
    if let Some(driver) = &driver {
        refuse_required_without_command(path, driver, conversion)?;
    }
    let unicode = match encoding {
        Some(name) => unicode_encoding(path, &name.to_str_lossy(), driver.map(|d| d.name.to_string()))?,
        None => None,
    };
    Ok((pipeline, stack, unicode))
}

/// Refuses a required `driver` (`filter.<driver>.required`) that names no command for
/// `conversion`: neither its `clean` (into git's form) or `smudge` command nor a `process` one,
/// an empty one naming none, as git reads them. git then refuses the file (`clean filter
/// '<driver>' failed`); gix's pipeline would pass it through unconverted.
///
/// # Errors
/// [`GitError::RequiredFilterWithoutCommand`].
fn refuse_required_without_command(
    path: &str,
    driver: &gix::filter::plumbing::Driver,
    conversion: Conversion,
) -> Result<(), GitError> {
    let (command, own) = match conversion {
        Conversion::ToGit => ("clean", &driver.clean),
        Conversion::ToWorktree => ("smudge", &driver.smudge),
    };
    let names = |command: &Option<BString>| command.as_ref().is_some_and(|c| !c.is_empty());
    if !driver.required || names(own) || names(&driver.process) {
        return Ok(());
    }
    Err(GitError::RequiredFilterWithoutCommand {
        path: path.to_owned(),
        driver: driver.name.to_str_lossy().into_owned(),
        command,
    })
}

/// Whether git converts `path` between its work-tree form and git's at the line ends alone
/// (`core.autocrlf`, `eol`, `text`, `ident`): no `filter` attribute names a driver for it, and its
/// `working-tree-encoding`, if any, is UTF-8 (which git does not convert).
///
/// # Errors
/// An attributes file on the way that cannot be read ([`check_attributes`]).
pub(super) fn at_line_ends_only(
    repo: &Repo,
    index: &gix::index::State,
    path: &str,
) -> Result<bool, GitError> {
    let failed = failure(path, Conversion::ToWorktree);
    check_attributes(repo, index, path)?;
    let attributes = repo.inner.attributes_only(index, Source::WorktreeThenIdMapping).map_err(failed)?;
    let (encoding, filter) =
        encoding_and_filter(repo, &mut attributes.detach(), path, Conversion::ToWorktree)?;
    Ok(filter.is_none() && encoding.is_none_or(|name| name.eq_ignore_ascii_case(b"UTF-8")))
}

/// The values of the `working-tree-encoding` and `filter` attributes `stack` gives `path` (a set or
/// unset attribute names nothing).
fn encoding_and_filter(
    repo: &Repo,
    stack: &mut gix::worktree::Stack,
    path: &str,
    conversion: Conversion,
) -> Result<(Option<BString>, Option<BString>), GitError> {
    let failed = failure(path, conversion);
    let mut found = stack.selected_attribute_matches(["working-tree-encoding", "filter"]);
    stack
        .at_entry(path, None, &repo.inner.objects)
        .map_err(|e| failed(gix::Error::from_error(e)))?
        .matching_attributes(&mut found);
    let mut values = found.iter_selected().map(|m| match m.assignment.state {
        StateRef::Value(value) => Some(value.as_bstr().to_owned()),
        _ => None,
    });
    Ok((values.next().flatten(), values.next().flatten()))
}

/// The attributes files of a tree on the way to some paths: each the `.gitattributes` blob of one
/// directory, by its path in the tree (the root's, then each directory's down), as gix's attribute
/// stack reads them, parsed once for every path asked of it ([`Self::filter_of`]).
#[derive(Clone)]
pub(super) struct TreeFilters {
    /// gix's attribute stacks over the files' blobs: patterns matched with case, as a clone that
    /// minds case does, and without, as one under `core.ignorecase` does. Neither alone gives
    /// every filter: `[!T]asks.md` matches `tasks.md` only with case.
    stacks: [gix::worktree::Stack; 2],
    /// The files' paths, for messages.
    files: String,
}

impl TreeFilters {
    /// A stack over `files` that reads those blobs and nothing else (git's built-in macros
    /// aside: no work tree, `info/attributes`, user's or system's file), as git reads a tree's
    /// attributes, matching patterns with and without regard to case: a filter some clone
    /// applies (with `core.ignorecase` or without) is a filter.
    ///
    /// # Errors
    /// [`GitError::TreeAttributes`]: a blob of more than [`super::ATTRIBUTES_FILE_LIMIT`] bytes
    /// (refused unread), or one that cannot be read.
    pub(super) fn new(repo: &Repo, files: &[(String, gix::ObjectId)]) -> Result<Self, GitError> {
        use gix::worktree::stack::{State, state::Attributes};
        let all = files.iter().map(|(at, _)| at.as_str()).collect::<Vec<_>>().join("`, `");
        let mut mappings = Vec::with_capacity(files.len());
        for (at, id) in files {
            let size = repo.object_size(*id).map_err(|e| unreadable(at, e.to_string()))?;
            if size > super::ATTRIBUTES_FILE_LIMIT {
                let limit = super::ATTRIBUTES_FILE_LIMIT + 1;
                let reason =
                    format!("its blob {id} holds {size} bytes, and git reads none of {limit} bytes or more");
                return Err(unreadable(at, reason));
            }
            mappings.push((at.as_str().into(), *id));
        }
        // The stack finds each directory's file by a binary search of these paths.
        mappings.sort();
        let mut collection = gix::attrs::search::MetadataCollection::default();
        let mut buf = Vec::new();
        let none = std::iter::empty::<std::path::PathBuf>();
        let globals = gix::attrs::Search::new_globals(none, &mut buf, &mut collection)
            .map_err(|e| unreadable(&all, e.to_string()))?;
        let attributes = Attributes::new(globals, None, Source::IdMapping, collection);
        let state = State::AttributesStack(attributes);
        let stack = |case| {
            gix::worktree::Stack::new(
                std::path::PathBuf::new(),
                state.clone(),
                case,
                buf.clone(),
                mappings.clone(),
            )
        };
        use gix::glob::pattern::Case;
        Ok(TreeFilters { stacks: [stack(Case::Sensitive), stack(Case::Fold)], files: all })
    }

    /// The driver the `filter` attribute names for `path`, a path below the directories of the
    /// files. Only a value names a driver (`filter` set or unset names none, for git too).
    ///
    /// # Errors
    /// [`GitError::TreeAttributes`]: a file that cannot be read or parsed.
    pub(super) fn filter_of(&mut self, repo: &Repo, path: &str) -> Result<Option<String>, GitError> {
        for stack in &mut self.stacks {
            let mut found = stack.selected_attribute_matches(["filter"]);
            stack
                .at_entry(path, None, &repo.inner.objects)
                .map_err(|e| unreadable(&self.files, e.to_string()))?
                .matching_attributes(&mut found);
            let driver = found.iter_selected().find_map(|m| match m.assignment.state {
                StateRef::Value(driver) => Some(driver.as_bstr().to_str_lossy().into_owned()),
                _ => None,
            });
            if driver.is_some() {
                return Ok(driver);
            }
        }
        Ok(None)
    }
}

/// An attributes file of a tree, at `at`, that cannot be read for `reason`.
fn unreadable(at: &str, reason: String) -> GitError {
    GitError::TreeAttributes { path: at.to_owned(), reason }
}

/// The Unicode encoding converted here for the `working-tree-encoding` `name` of `path`, `None`
/// for one gix converts as git does, or the refusal of one that cannot be converted as git does:
/// `encoding_rs` would write UTF-8 for it (UTF-16 under another name), or knows it not, or git
/// cannot read it back (`UTF-16BE-BOM`: `git add` fails "failed to encode ... from UTF-16BE-BOM to
/// UTF-8"), or a filter driver of the file would have to run between the encoding and the rest.
fn unicode_encoding(path: &str, name: &str, driver: Option<String>) -> Result<Option<Unicode>, GitError> {
    let refuse = |why: String| GitError::UnsupportedEncoding {
        path: path.to_owned(),
        encoding: name.to_owned(),
        why,
        known: unicode::KNOWN_NAMES,
    };
    if let Some(unicode) = Unicode::named(name) {
        return match driver {
            Some(driver) => Err(refuse(format!(
                "its filter driver `{driver}` too: git converts {unicode} between the driver and the line endings, which speccoder cannot do"
            ))),
            None => Ok(Some(unicode)),
        };
    }
    if name.eq_ignore_ascii_case("UTF-16BE-BOM") {
        return Err(refuse(
            "git writes that encoding but cannot read it back (`git add` fails \"failed to encode ... from UTF-16BE-BOM to UTF-8\")"
                .to_owned(),
        ));
    }
    match gix::filter::plumbing::encoding::Encoding::for_label(name.as_bytes()) {
        Some(encoding) if encoding.output_encoding() == encoding => Ok(None),
        Some(encoding) => Err(refuse(format!(
            "speccoder can read that name only as {}, and cannot write it as git does",
            encoding.name()
        ))),
        None => Err(refuse("speccoder does not know that encoding".to_owned())),
    }
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

/// Looks at the attributes files gix's filter pipeline reads for `path` (repository-relative,
/// `/`-separated), before it reads them: the system's and the user's (`core.attributesFile`),
/// `info/attributes`, and the `.gitattributes` of the work tree's root and of each directory on
/// the way to `path`, or, where the work tree has none, the one `index` stages. Each must be
/// absent or a regular file of at most [`ATTRIBUTES_FILE_LIMIT`] bytes; a `.gitattributes` of the
/// work tree that is a symbolic link is taken as none, as git takes it.
///
/// # Errors
/// [`GitError::UnusableFile`] for the first that is not; [`GitError::Gix`] when gix cannot say
/// where `core.attributesFile` is.
fn check_attributes(repo: &Repo, index: &gix::index::State, path: &str) -> Result<(), GitError> {
    let inner = &repo.inner;
    let globals = inner.attribute_global_paths().map_err(|source| GitError::Gix {
        action: "find the attributes files of `core.attributesFile`".to_owned(),
        source,
    })?;
    let info = inner.current_dir().join(inner.common_dir()).join("info").join("attributes");
    for global in globals.iter().chain([&info]) {
        check(global, GitFile::Attributes, Links::Follow, ATTRIBUTES_FILE_LIMIT)?;
    }
    // gix reads the `.gitattributes` of each directory from the root down to the path's own.
    let parts: Vec<&str> = path.split('/').collect();
    for depth in 0..parts.len() {
        let relative = match depth {
            0 => ".gitattributes".to_owned(),
            _ => format!("{}/.gitattributes", parts[..depth].join("/")),
        };
        check_in_tree(repo, index, &relative)?;
    }
    Ok(())
}

/// Looks at the `.gitattributes` at `relative` gix reads: the work tree's, else the staged one
/// (gix takes a link or a directory there as none, and reads the staged blob instead).
fn check_in_tree(repo: &Repo, index: &gix::index::State, relative: &str) -> Result<(), GitError> {
    if let Some(workdir) = repo.workdir() {
        let on_disk = workdir.join(relative);
        check(&on_disk, GitFile::Attributes, Links::Absent, ATTRIBUTES_FILE_LIMIT)?;
        if std::fs::symlink_metadata(&on_disk).is_ok_and(|meta| meta.is_file()) {
            return Ok(());
        }
    }
    let staged: &BStr = relative.as_bytes().as_bstr();
    let Some(entry) = index.entry_by_path(staged) else { return Ok(()) };
    let size = repo.object_size(entry.id)?;
    if size > ATTRIBUTES_FILE_LIMIT {
        return Err(GitError::UnusableFile {
            path: PathBuf::from(relative),
            file: GitFile::Attributes,
            reason: format!(
                "the staged blob {} holds {size} bytes, more than the {ATTRIBUTES_FILE_LIMIT} speccoder reads",
                entry.id
            ),
        });
    }
    Ok(())
}
