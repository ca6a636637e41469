//! References: reading them and moving them only by compare-and-swap.

use gix::ObjectId;
use gix::bstr::{BString, ByteSlice};
use gix::refs::transaction::{Change, LogChange, PreviousValue, RefEdit, RefLog};
use gix::refs::{FullName, Target};

use std::path::PathBuf;
use std::time::Duration;

use gix::lock::acquire::Fail;

use super::error::{GitError, GixResultExt, NotesRefFault, access_refused};
use super::lock_wait::{Backoff, StuckLock};
use super::ref_name::listed_name;
use super::repo::{Head, Repo};
use crate::model::refs::MAX_COMPONENT_BYTES;
use crate::model::shown::bytes_shown;

/// The longest path the system takes, with the NUL that ends it (Linux's `PATH_MAX`).
const PATH_MAX: usize = 4096;

/// How often [`Repo::update_ref_retrying`] reads the reference again and retries after another
/// writer moved it first.
pub const CAS_TRIES: usize = 20;

/// How long one attempt of a reference transaction waits for a reference's lock file (gix's
/// default), with the interrupts held; the retries around it decide how long in all
/// ([`StuckLock`]). `core.filesRefLockTimeout` is not read: it could hold them for ever.
const REF_LOCK_TRY: Fail = Fail::AfterDurationWithBackoff(Duration::from_millis(100));

/// How long one attempt waits for `packed-refs.lock` (gix's default); `core.packedRefsTimeout`
/// is not read, as [`REF_LOCK_TRY`] says.
const PACKED_REFS_LOCK_TRY: Fail = Fail::AfterDurationWithBackoff(Duration::from_secs(1));

/// What one attempt of [`Repo::update_ref_retrying`] decided, from the value it read.
#[derive(Debug)]
pub enum CasUpdate<T> {
    /// Leave the reference as it is, and return this.
    Keep(T),
    /// Move the reference from the value read to `new` (a reflog entry saying `reflog` where git
    /// keeps one), and return `then` once it moved.
    Move {
        /// The new target.
        new: ObjectId,
        /// The reflog message.
        reflog: String,
        /// What the update returns once the reference moved.
        then: T,
    },
    /// Delete the reference (it must still hold the value read), and return `then` once it is gone.
    Delete {
        /// What the update returns once the reference is deleted.
        then: T,
    },
}

/// Parse a full reference name (`refs/...` or `HEAD`).
pub(crate) fn full_name(name: &str) -> Result<FullName, GitError> {
    FullName::try_from(name)
        .map_err(|e| GitError::InvalidRefName { name: name.to_owned(), reason: e.to_string() })
}

/// Where gix is asked to list the references starting with `prefix`: `prefix` itself when gix
/// takes it as a relative path, else its leading directories up to the first it does not take
/// (`""`: none), whose listing the caller filters by `prefix`. gix checks a listing's prefix as a
/// path on every platform, Windows' rules included, and so refuses parts git takes in a reference
/// name (`a|b`, `a<b`, `a.`, `aux`): a remote's name in `refs/speccoder-remotes/<remote>/`.
fn listing_root(prefix: &str) -> &str {
    let takes = |part: &str| <&gix::path::RelativePath>::try_from(part).is_ok();
    if takes(prefix) {
        return prefix;
    }
    let mut root = "";
    for (at, _) in prefix.match_indices('/') {
        let directory = &prefix[..=at];
        if !takes(directory) {
            break;
        }
        root = directory;
    }
    root
}

/// A reflog message on one line (git's reflog format has no room for newlines).
pub(crate) fn one_line(message: &str) -> String {
    message.split(|c: char| c.is_control()).filter(|s| !s.is_empty()).collect::<Vec<_>>().join(" ")
}

impl Repo {
    /// The object reference `name` points to (symbolic references followed); `None` when it does
    /// not exist or points nowhere.
    pub fn ref_target(&self, name: &str) -> Result<Option<ObjectId>, GitError> {
        let Some(mut reference) = self.find_reference(name)? else {
            return Ok(None);
        };
        match reference.follow_to_object() {
            Ok(id) => Ok(Some(id.detach())),
            Err(err) if err.is_not_found() => Ok(None),
            Err(source) => Err(GitError::Gix { action: format!("resolve reference {name}"), source }),
        }
    }

    /// The reference `name`, `None` when it does not exist. A reference the operating system
    /// does not let this user read is [`GitError::Permission`]; a notes reference git cannot read
    /// otherwise (a damaged file) is [`GitError::NotesRefUnusable`], with its advice, for every
    /// reader of it.
    pub(crate) fn find_reference(&self, name: &str) -> Result<Option<gix::Reference<'_>>, GitError> {
        let full = full_name(name)?;
        self.inner.try_find_reference(full.as_ref()).map_err(|source| self.unreadable_ref(name, source))
    }

    /// Why the reference `name` could not be read: a read the operating system refused, named at
    /// the reference's directory (the one gix names, else the one `name` is kept in); a notes
    /// reference whose file is damaged; else what gix reported.
    fn unreadable_ref(&self, name: &str, source: gix::Error) -> GitError {
        if name.starts_with("refs/notes/") && !access_refused(&source) {
            let (name, target) = (name.to_owned(), "something unreadable".to_owned());
            let (reason, fault) = (source.to_string(), NotesRefFault::Damaged);
            return GitError::NotesRefUnusable { name, target, reason, fault };
        }
        GitError::gix(format!("read reference {name}"), source, Some(&self.ref_lock_path(name)))
    }

    /// Every reference whose full name starts with `prefix`, with the object it points to, sorted
    /// by name. Symbolic references that point nowhere are left out.
    ///
    /// # Errors
    /// [`GitError::RefNameNotUtf8`] for a name that is not UTF-8: each is named, and acted on, as
    /// text. Or the references cannot be listed.
    pub fn refs_with_prefix(&self, prefix: &str) -> Result<Vec<(String, ObjectId)>, GitError> {
        let listed = self.targets_with_prefix(prefix)?;
        let names = listed.into_iter().map(|(name, id)| Ok((listed_name(name.as_ref())?.to_owned(), id)));
        names.collect()
    }

    /// [`Repo::refs_with_prefix`], each name exactly as git keeps it, whatever bytes it holds.
    pub(crate) fn targets_with_prefix(&self, prefix: &str) -> Result<Vec<(BString, ObjectId)>, GitError> {
        let action = || format!("list references under {prefix}");
        let platform = self.inner.references().during(action)?;
        let listed = match listing_root(prefix) {
            "" => platform.all(),
            root => platform.prefixed(root),
        };
        let mut out = Vec::new();
        for reference in listed.during(action)? {
            let mut reference = reference.during(action)?;
            let name = reference.name().as_bstr().to_owned();
            if !name.starts_with(prefix.as_bytes()) {
                continue;
            }
            match reference.follow_to_object() {
                Ok(id) => out.push((name, id.detach())),
                Err(err) if err.is_not_found() => {}
                Err(source) => {
                    let action = format!("resolve reference {}", bytes_shown(&name));
                    return Err(GitError::Gix { action, source });
                }
            }
        }
        out.sort();
        Ok(out)
    }

    /// A reference that keeps `name` from being made: one named by a leading part of it (`a` for
    /// `a/b`) or one below it (`a/b` for `a`), as git keeps references as files in directories.
    pub fn name_taken_by(&self, name: &str) -> Result<Option<String>, GitError> {
        let below = self.refs_with_prefix(&format!("{name}/"))?;
        if let Some((first, _)) = below.into_iter().next() {
            return Ok(Some(first));
        }
        for (at, _) in name.match_indices('/').skip(1) {
            let above = &name[..at];
            if self.ref_target(above)?.is_some() {
                return Ok(Some(above.to_owned()));
            }
        }
        Ok(None)
    }

    /// Why a reference cannot be made while `by` ([`Repo::name_taken_by`]) is in the way of its
    /// name, as fetch and skip say it.
    #[must_use]
    pub fn name_taken(by: &str) -> String {
        format!("{by} exists here, and git cannot keep a reference and a directory of references of one name")
    }

    /// Why the reference `name` cannot be kept in this repository, when it cannot: git and gix
    /// keep each reference as a file named by its name below the git directory, so a part of the
    /// name longer than a file's name may be ([`MAX_COMPONENT_BYTES`], git's `.lock` added to the
    /// 255 bytes a file system takes), or a name whose lock file or reflog (`logs/<name>`) would
    /// lie at a path past the system's [`PATH_MAX`] as gix writes them, cannot be written. git
    /// works in the repository by relative paths and may write one gix cannot: the staged copy
    /// a fetch could then neither merge nor remove.
    #[must_use]
    pub fn cannot_keep(&self, name: &str) -> Option<String> {
        if let Some(part) = name.split('/').find(|part| part.len() > MAX_COMPONENT_BYTES) {
            return Some(format!(
                "a part of its name is {} bytes long, more than the {MAX_COMPONENT_BYTES} a reference file's name may hold (the file system's 255, less git's `.lock`)",
                part.len()
            ));
        }
        // gix makes a relative git directory absolute by joining it to the current one, `.`
        // components and all. `<dir>/logs/<name>` and `<dir>/<name>.lock` are as long as each other.
        let dir = self.common_dir();
        let dir = match std::env::current_dir() {
            Ok(current) if dir.is_relative() => current.join(dir),
            _ => dir.to_owned(),
        };
        let longest = dir.as_os_str().len() + "/logs/".len() + name.len();
        (longest >= PATH_MAX).then(|| {
            format!(
                "its lock file and reflog in this repository would lie at paths of {longest} bytes, past the {} the system takes",
                PATH_MAX - 1
            )
        })
    }

    /// Point `name` at `new` only if it currently points at `expected` (`None`: it must not exist),
    /// writing a reflog entry with `reflog_message` where git would keep one.
    pub fn update_ref_cas(
        &self,
        name: &str,
        expected: Option<ObjectId>,
        new: ObjectId,
        reflog_message: &str,
    ) -> Result<(), GitError> {
        self.apply_ref_edit(cas_edit(name, expected, new, reflog_message)?, name, expected)
    }

    /// Updates `name` by compare-and-swap from what `attempt` computes out of its current target
    /// (`None`: it does not exist). When another writer moved or locked it first, it is read again
    /// and `attempt` runs again, up to [`CAS_TRIES`] times with growing, jittered waits, so
    /// concurrent writers never overwrite one another: each builds on what the last one wrote.
    ///
    /// A lock file that stays in place, unchanged, for [`LOCK_WAIT`](super::lock_wait::LOCK_WAIT) is one a stopped command
    /// left ([`StuckLock`]): the update gives up then, naming it, instead of trying [`CAS_TRIES`]
    /// times.
    ///
    /// # Errors
    /// What `attempt` returns, a failed read or write, [`GitError::RefLocked`] when a lock it
    /// needs (its own, or `packed-refs.lock`) stayed in place, or [`GitError::Contention`] when
    /// the reference kept moving.
    pub fn update_ref_retrying<T, E: From<GitError>>(
        &self,
        name: &str,
        mut attempt: impl FnMut(Option<ObjectId>) -> Result<CasUpdate<T>, E>,
    ) -> Result<T, E> {
        let (mut stuck, mut backoff) = (StuckLock::default(), Backoff::new());
        for _ in 0..CAS_TRIES {
            let current = self.ref_target(name)?;
            let outcome = match attempt(current)? {
                CasUpdate::Keep(value) => return Ok(value),
                CasUpdate::Move { new, reflog, then } => {
                    self.update_ref_cas(name, current, new, &reflog).map(|()| then)
                }
                CasUpdate::Delete { then } => {
                    let Some(expected) = current else { return Ok(then) };
                    self.delete_ref_cas(name, expected).map(|()| then)
                }
            };
            match outcome {
                Ok(then) => return Ok(then),
                Err(GitError::RefMoved { .. }) => backoff.wait(),
                Err(err @ GitError::RefLocked { .. }) if stuck.left_behind(&err) => return Err(err.into()),
                Err(GitError::RefLocked { .. }) => backoff.wait(),
                Err(other) => return Err(other.into()),
            }
        }
        Err(self.exhausted(&[name]).into())
    }

    /// Where git keeps the lock file of reference `name` (per work tree for `HEAD`, shared for
    /// `refs/...`), as an absolute path, so that a message naming it holds wherever it is read.
    pub(crate) fn ref_lock_path(&self, name: &str) -> PathBuf {
        let dir = if name.starts_with("refs/") { self.common_dir() } else { self.git_dir() };
        let lock = dir.join(format!("{name}.lock"));
        std::path::absolute(&lock).unwrap_or(lock)
    }

    /// The lock of the packed references, as an absolute path. gix's reference transaction takes
    /// it for every update while the file exists (to read the packed references while no one
    /// rewrites them), so one that `git pack-refs` or `git gc` left behind holds up every update.
    fn packed_refs_lock_path(&self) -> PathBuf {
        let lock = self.common_dir().join("packed-refs.lock");
        std::path::absolute(&lock).unwrap_or(lock)
    }

    /// The lock files that exist among those of the references a writer moves: `HEAD`, the branch
    /// it names, the notes reference, and `packed-refs`. A writer stopped inside its reference
    /// update leaves several; naming them together saves a round of waiting for each.
    pub(crate) fn writer_ref_locks(&self) -> Vec<PathBuf> {
        let branch = self.inner.head_name().ok().flatten().map(|name| name.as_bstr().to_string());
        let names = ["HEAD".to_owned(), super::NOTES_REF.to_owned()].into_iter().chain(branch);
        names
            .map(|name| self.ref_lock_path(&name))
            .chain(std::iter::once(self.packed_refs_lock_path()))
            .filter(|lock| lock.exists())
            .collect()
    }

    /// The lock file in the way of an update of `names`: the first of their own lock files that
    /// exists, else `packed-refs.lock` when it exists (named with the first reference).
    pub(crate) fn held_lock(&self, names: &[&str]) -> Option<GitError> {
        let own = names.iter().map(|name| (*name, self.ref_lock_path(name))).find(|(_, lock)| lock.exists());
        let packed =
            || Some(self.packed_refs_lock_path()).filter(|lock| lock.exists()).map(|l| (names[0], l));
        own.or_else(packed).map(|(name, lock)| GitError::RefLocked { name: name.to_owned(), lock })
    }

    /// Why [`CAS_TRIES`] attempts to move `names` failed: a lock file in their way that stayed in
    /// place ([`Repo::held_lock`], a writer that was stopped while it held it), else other
    /// writers that kept moving the first ([`GitError::Contention`]).
    pub(crate) fn exhausted(&self, names: &[&str]) -> GitError {
        self.held_lock(names)
            .unwrap_or_else(|| GitError::Contention { name: names[0].to_owned(), tries: CAS_TRIES })
    }

    /// Delete `name` (and its reflog) only if it currently points at `expected`.
    pub fn delete_ref_cas(&self, name: &str, expected: ObjectId) -> Result<(), GitError> {
        let edit = RefEdit::new(
            full_name(name)?,
            Change::Delete {
                expected: PreviousValue::MustExistAndMatch(Target::Object(expected)),
                log: RefLog::AndReference,
            },
        );
        self.apply_ref_edit(edit, name, Some(expected))
    }

    /// Delete every reference of `refs` (and its reflog) only if each points at its expected
    /// commit, in one transaction: all of them go, or none. A failure names the first that moved
    /// (else the first), as [`Repo::delete_ref_cas`] names its one.
    pub fn delete_refs_cas(&self, refs: &[(String, ObjectId)]) -> Result<(), GitError> {
        let Some(first) = refs.first() else { return Ok(()) };
        let mut edits = Vec::new();
        for (name, expected) in refs {
            let change = Change::Delete {
                expected: PreviousValue::MustExistAndMatch(Target::Object(*expected)),
                log: RefLog::AndReference,
            };
            edits.push(RefEdit::new(full_name(name)?, change));
        }
        self.edit_refs(edits).map_err(|source| {
            let moved = refs
                .iter()
                .find(|(name, expected)| self.ref_target(name).is_ok_and(|found| found != Some(*expected)));
            let (name, expected) = moved.unwrap_or(first);
            self.ref_edit_error(source, name, Some(*expected))
        })
    }

    /// Apply one edit; a lost race becomes [`GitError::RefMoved`], a held lock [`GitError::RefLocked`].
    pub(crate) fn apply_ref_edit(
        &self,
        edit: RefEdit,
        name: &str,
        expected: Option<ObjectId>,
    ) -> Result<(), GitError> {
        self.edit_refs([edit]).map_err(|source| self.ref_edit_error(source, name, expected))
    }

    /// Apply `edits` as one transaction: every reference is locked and checked against its
    /// expected value before any of them moves.
    pub(crate) fn edit_refs(&self, edits: impl IntoIterator<Item = RefEdit>) -> Result<(), gix::Error> {
        self.lock_refs(edits)?.commit()
    }

    /// Lock every reference of `edits` (HEAD too for an edit through it) and check each against
    /// its expected value, as gix's transaction does, without moving any: [`LockedRefs::commit`]
    /// moves them, dropping it releases the locks.
    pub(crate) fn lock_refs(
        &self,
        edits: impl IntoIterator<Item = RefEdit>,
    ) -> Result<LockedRefs<'_>, gix::Error> {
        // An interrupt waits for the transaction: delivered while gix creates a lock file, before
        // the lock is registered for removal, it would leave that lock behind.
        let held = super::HeldSignals::hold();
        let transaction = self.inner.refs.transaction().prepare(edits, REF_LOCK_TRY, PACKED_REFS_LOCK_TRY)?;
        Ok(LockedRefs { repo: self, transaction, _held: held })
    }

    /// Refuses a HEAD that no longer names `branch`, the branch a writer read at its start
    /// ([`GitError::HeadMoved`]). Read while HEAD's lock is held ([`Repo::lock_refs`] of an edit
    /// through HEAD), it is a compare-and-swap: `git checkout` and `git symbolic-ref` take that
    /// lock to re-point HEAD.
    pub(crate) fn ensure_head_names(&self, branch: &str) -> Result<(), GitError> {
        let found = match self.head()? {
            Head::Branch { name, .. } | Head::Unborn(name) => Some(name),
            Head::Detached(_) => None,
        };
        if found.as_ref().is_some_and(|name| name.is(branch)) {
            return Ok(());
        }
        Err(GitError::HeadMoved { expected: branch.to_owned(), found: found.map(|name| name.to_string()) })
    }

    /// What the failure `source` of an edit of `name`, expected at `expected`, means: the
    /// reference moved ([`GitError::RefMoved`]), its lock is held ([`GitError::RefLocked`]), a
    /// reference (the one gix names, else `name`) may not be written ([`GitError::Permission`]),
    /// or something else went wrong.
    pub(crate) fn ref_edit_error(
        &self,
        source: gix::Error,
        name: &str,
        expected: Option<ObjectId>,
    ) -> GitError {
        if source.is_conflict() || source.is_not_found() {
            match self.ref_target(name) {
                Ok(found) if found != expected => {
                    GitError::RefMoved { name: name.to_owned(), expected, found }
                }
                Ok(_) => GitError::Gix { action: format!("update reference {name}"), source },
                Err(unreadable) => unreadable,
            }
        } else if source.is_retryable() {
            self.held_lock(&[name]).unwrap_or_else(|| GitError::RefLocked {
                name: name.to_owned(),
                lock: self.ref_lock_path(name),
            })
        } else if access_refused(&source) {
            // Named as gix names it: the reference whose lock file could not be made (a branch
            // that `HEAD` leads to, not the notes reference edited with it), else `name`.
            let failed = refused_ref(&source).unwrap_or_else(|| name.to_owned());
            let lock = self.ref_lock_path(&failed);
            GitError::gix(format!("write reference {failed}"), source, Some(&lock))
        } else {
            GitError::Gix { action: format!("update reference {name}"), source }
        }
    }
}

/// A reference transaction whose references are locked and checked, none moved yet.
pub(crate) struct LockedRefs<'r> {
    /// The repository, for the reflogs' signature.
    repo: &'r Repo,
    /// gix's transaction, prepared.
    transaction: gix::refs::file::Transaction<'r, 'r>,
    /// Interrupts wait until the transaction is committed or dropped.
    _held: super::HeldSignals,
}

impl LockedRefs<'_> {
    /// Moves every reference, each with its reflog entry, and releases the locks.
    pub(crate) fn commit(self) -> Result<(), gix::Error> {
        let committer = self.repo.reflog_signature();
        let mut time = gix::date::parse::TimeBuf::default();
        self.transaction.commit(Some(committer.to_ref(&mut time))).map(drop)
    }
}

/// The reference whose write gix reports failed in `source`: the innermost it names, the one a
/// symbolic reference led to (`referent`) before the one edited (`reference`).
fn refused_ref(source: &gix::Error) -> Option<String> {
    let name = |values: &gix::error::Metadata| match values.get("referent").or(values.get("reference")) {
        Some(gix::error::MetadataValue::Bytes(name)) => Some(name.to_str_lossy().into_owned()),
        Some(gix::error::MetadataValue::String(name)) => Some(name.clone()),
        _ => None,
    };
    source.metadata().filter_map(name).last()
}

/// The edit that points `name` at `new` only if it points at `expected` (`None`: only if it does
/// not exist), with a reflog entry saying `reflog_message` where git would keep one.
pub(crate) fn cas_edit(
    name: &str,
    expected: Option<ObjectId>,
    new: ObjectId,
    reflog_message: &str,
) -> Result<RefEdit, GitError> {
    Ok(RefEdit::update_with_log(
        full_name(name)?,
        new,
        previous(expected),
        LogChange {
            mode: RefLog::AndReference,
            force_create_reflog: false,
            message: one_line(reflog_message).into(),
        },
    ))
}

/// The compare-and-swap condition for an expected value.
pub(crate) fn previous(expected: Option<ObjectId>) -> PreviousValue {
    match expected {
        Some(id) => PreviousValue::MustExistAndMatch(Target::Object(id)),
        None => PreviousValue::MustNotExist,
    }
}
