//! Opening the repository, where it lives, what HEAD is, and reading objects by id.

use std::cell::RefCell;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

use gix::ObjectId;
use gix::bstr::ByteSlice;

use super::error::{GitError, GixResultExt, io_error};
use super::loose::LooseObjects;
use super::tree::TreeCache;

/// An open repository, the one entry point of the git adapter; it stays on its thread (open one per thread).
pub struct Repo {
    pub(crate) inner: gix::Repository,
    pub(crate) trees: RefCell<TreeCache>,
    /// Objects known to be in the repository, or held to be written with the next pack: those
    /// [`Repo::flush_new_objects`] has stored and those [`Repo::write_once`] has written or found. Asking the
    /// object database instead costs a file-system lookup (and may re-list the pack directory).
    pub(super) known: RefCell<HashSet<ObjectId>>,
    /// The index as last parsed for building trees, with the file version it was parsed from.
    pub(crate) index_cache: RefCell<Option<(super::index::IndexStamp, std::rc::Rc<gix::index::File>)>>,
    /// Small loose objects, read without gix (see [`super::loose`]).
    loose: LooseObjects,
    /// Author and committer as configured, looked up once (see [`super::identity`]).
    pub(super) idents: super::identity::Idents,
}

/// A repository that can cross threads, to be opened on each as a [`Repo`] ([`Repo::handle`]).
/// (gix shares a repository's state through `Rc` unless built for threads, so each thread opens
/// its own from the git directory.)
pub struct RepoHandle {
    git_dir: PathBuf,
}

impl RepoHandle {
    /// This thread's own `Repo` of the repository (its caches start empty).
    ///
    /// # Errors
    /// The repository can no longer be opened (removed meanwhile).
    pub fn open(&self) -> Result<Repo, GitError> {
        gix::open(&self.git_dir).map(Repo::from_gix).map_err(|e| GitError::Gix {
            action: format!("open {} again", self.git_dir.display()),
            source: e,
        })
    }
}

/// What HEAD points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Head {
    /// HEAD is a symbolic reference to an existing branch.
    Branch {
        /// The branch's full reference name (`refs/heads/main`).
        name: String,
        /// The commit the branch points to.
        commit: ObjectId,
    },
    /// HEAD points directly at a commit.
    Detached(ObjectId),
    /// HEAD names a branch that has no commit yet (full reference name).
    Unborn(String),
}

impl Repo {
    /// Open the repository containing `dir` (searching upwards, like git does).
    pub fn discover(dir: impl AsRef<Path>) -> Result<Repo, GitError> {
        let dir = dir.as_ref();
        let inner =
            gix::discover(dir).map_err(|source| GitError::Discover { path: dir.to_owned(), source })?;
        Ok(Repo::from_gix(inner))
    }

    fn from_gix(mut inner: gix::Repository) -> Repo {
        inner.object_cache_size_if_unset(8 * 1024 * 1024);
        let loose = LooseObjects::new(inner.objects.store_ref().path());
        Repo {
            loose,
            inner,
            trees: RefCell::new(TreeCache::default()),
            known: RefCell::default(),
            index_cache: RefCell::default(),
            idents: super::identity::Idents::default(),
        }
    }

    /// A handle from which other threads open this same repository (same directories and
    /// configuration) as their own `Repo`.
    #[must_use]
    pub fn handle(&self) -> RepoHandle {
        RepoHandle { git_dir: self.git_dir().to_owned() }
    }

    /// From now on the objects this repository writes stay in memory until a reference or the
    /// index is about to name them; then [`Repo::flush_new_objects`] writes them all as one pack.
    /// For commands that write several objects in one go (`attest`): a pack of eight objects costs
    /// two files where loose objects cost eight files and their fan-out directories. Objects still
    /// held when the `Repo` is dropped were never named by anything and are simply not written.
    #[must_use]
    pub fn holding_new_objects(mut self) -> Repo {
        self.inner.objects.enable_object_memory();
        self
    }

    /// Writes the objects held in memory (see [`Repo::holding_new_objects`]) to the object
    /// database as one pack. Every reference and index update calls this first, so nothing on
    /// disk ever names an object that exists only in this process.
    pub(crate) fn flush_new_objects(&self) -> Result<(), GitError> {
        let Some(mut held) = self.inner.objects.reset_object_memory() else { return Ok(()) };
        if held.is_empty() {
            return Ok(());
        }
        let pack_dir = self.inner.objects.store_ref().path().join("pack");
        let objects: Vec<_> = held.drain().map(|(id, (kind, data))| (id, kind, data)).collect();
        let ids: Vec<ObjectId> = objects.iter().map(|(id, _, _)| *id).collect();
        let written =
            std::fs::create_dir_all(&pack_dir).and_then(|()| super::pack::write_pack(&pack_dir, objects));
        let mut known = self.known.borrow_mut();
        if written.is_err() {
            // The held trees listed as known are lost with the pack.
            known.retain(|id| !ids.contains(id));
        }
        written.map_err(io_error("write the new objects as a pack into", &pack_dir))?;
        known.extend(ids);
        Ok(())
    }

    /// The work tree's root, `None` for a bare repository.
    pub fn workdir(&self) -> Option<&Path> {
        self.inner.workdir()
    }

    /// The work tree's root, or an error naming the bare repository.
    pub(crate) fn require_workdir(&self) -> Result<&Path, GitError> {
        self.workdir().ok_or_else(|| GitError::NoWorkTree { git_dir: self.git_dir().to_owned() })
    }

    /// This work tree's own git directory (`.git`, or `.git/worktrees/<name>` in a linked worktree).
    pub fn git_dir(&self) -> &Path {
        self.inner.git_dir()
    }

    /// The directory shared by all worktrees: objects, refs and config live here.
    pub fn common_dir(&self) -> &Path {
        self.inner.common_dir()
    }

    /// The path of this work tree's index file.
    pub fn index_path(&self) -> PathBuf {
        self.inner.index_path()
    }

    /// The hash kind of this repository (sha1 or sha256).
    pub fn object_hash(&self) -> gix::hash::Kind {
        self.inner.object_hash()
    }

    /// What HEAD points at right now.
    pub fn head(&self) -> Result<Head, GitError> {
        let head = self.inner.head().during(|| "read HEAD".into())?;
        Ok(match head.kind {
            gix::head::Kind::Symbolic(reference) => {
                let name = reference.name.as_bstr().to_str_lossy().into_owned();
                let mut reference = gix::prelude::ReferenceExt::attach(reference, &self.inner);
                let commit =
                    reference.follow_to_object().during(|| format!("resolve HEAD's branch {name}"))?.detach();
                Head::Branch { name, commit }
            }
            gix::head::Kind::Detached { target, .. } => Head::Detached(target),
            gix::head::Kind::Unborn(name) => Head::Unborn(name.as_bstr().to_str_lossy().into_owned()),
        })
    }

    /// Resolve a revision (`HEAD~2`, a branch, a hex id) to an object id.
    pub fn rev_parse(&self, spec: &str) -> Result<ObjectId, GitError> {
        self.inner
            .rev_parse_single(spec)
            .map(gix::Id::detach)
            .map_err(|source| GitError::UnknownRevision { spec: spec.to_owned(), source })
    }

    /// Read an object that must exist and must have `kind`, returning its raw bytes.
    pub(crate) fn read_kind(&self, id: ObjectId, kind: gix::object::Kind) -> Result<Vec<u8>, GitError> {
        // A small loose file first. An object also held in memory (`holding_new_objects`) and
        // found loose is the same object: an id names one content.
        // (The empty tree is no file: gix knows it without one.)
        let direct = if id.is_empty_tree() { None } else { self.loose.read(id)? };
        let (found, data) = match direct {
            Some(object) => object,
            None => {
                let object = self
                    .inner
                    .try_find_object(id)
                    .during(|| format!("read object {id}"))?
                    .ok_or(GitError::ObjectMissing { id })?;
                (object.kind, object.detach().data)
            }
        };
        if found != kind {
            return Err(GitError::WrongKind {
                id,
                expected: kind_name(kind),
                found: kind_name(found).to_owned(),
            });
        }
        Ok(data)
    }

    /// The bytes of the blob `id`.
    pub fn blob(&self, id: ObjectId) -> Result<Vec<u8>, GitError> {
        self.read_kind(id, gix::object::Kind::Blob)
    }

    /// Write `bytes` as a blob and return its id.
    pub fn write_blob(&self, bytes: &[u8]) -> Result<ObjectId, GitError> {
        self.write_once(gix::object::Kind::Blob, bytes)
    }

    /// Write an object of `kind` unless it is known or already stored, and return its id.
    ///
    /// An object already stored is not written again, as git does: the `tasks.md` staged after its
    /// task commit was written would otherwise be stored twice, and a tick's second tree would
    /// repeat every directory away from `tasks.md`. The check leaves out packs added since the
    /// object database was last listed, as gix's own writes do: a new object always misses, and a
    /// miss that may re-list the pack directory costs more than storing once more an object
    /// another process has just added.
    pub(super) fn write_once(&self, kind: gix::object::Kind, bytes: &[u8]) -> Result<ObjectId, GitError> {
        let id =
            gix::objs::compute_hash(self.object_hash(), kind, bytes).during(|| format!("hash a {kind}"))?;
        if self.known.borrow().contains(&id) {
            return Ok(id);
        }
        if !self.inner.objects.exists_without_refresh(&id) {
            // Straight to the object store: `gix::Repository::write_object` would look again.
            gix::objs::Write::write_buf(&self.inner.objects, kind, bytes)
                .during(|| format!("write a {kind}"))?;
        }
        self.known.borrow_mut().insert(id);
        Ok(id)
    }

    /// The id of the empty tree in this repository's hash kind.
    pub fn empty_tree_id(&self) -> ObjectId {
        ObjectId::empty_tree(self.object_hash())
    }
}

/// The name git uses for an object kind.
pub(crate) fn kind_name(kind: gix::object::Kind) -> &'static str {
    match kind {
        gix::object::Kind::Blob => "blob",
        gix::object::Kind::Tree => "tree",
        gix::object::Kind::Commit => "commit",
        gix::object::Kind::Tag => "tag",
    }
}
