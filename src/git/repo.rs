//! Opening the repository, where it lives, what HEAD is, and reading objects by id.

use std::path::{Path, PathBuf};

use gix::ObjectId;
use gix::bstr::ByteSlice;
pub use gix::state::InProgress;

use super::cache::{OBJECT_CACHE_BYTES, PACK_CACHE_BYTES, SharedCaches};
use super::command_config::CommandScope;
use super::error::{GitError, GixResultExt, TreeFilter, access_refused, io_error};
use super::extensions::Access;
use super::files;
use super::limits::OBJECT_SIZE_LIMIT;
use super::ownership;
use super::ref_name::BranchName;

/// An open repository, the one entry point of the git adapter; it stays on its thread (another
/// thread gets its own from [`Repo::handle`]).
pub struct Repo {
    pub(crate) inner: gix::Repository,
    /// The caches shared with every `Repo` opened from [`Repo::handle`]: objects made from pack
    /// deltas, whole objects, and the sizes of objects whose header was read.
    caches: SharedCaches,
}

/// A repository that can cross threads, to be opened on each as a [`Repo`] ([`Repo::handle`]).
/// Every `Repo` opened from one handle shares its object store, so a pack is mapped and its
/// index read once per process, however many threads read it, and its caches.
pub struct RepoHandle {
    shared: gix::ThreadSafeRepository,
    /// The caches every `Repo` opened from it shares.
    caches: SharedCaches,
}

impl RepoHandle {
    /// This thread's own `Repo` of the repository, reading through the handle's caches.
    #[must_use]
    pub fn open(&self) -> Repo {
        Repo::with_caches(self.shared.to_thread_local(), self.caches.clone())
    }
}

/// What HEAD points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Head {
    /// HEAD is a symbolic reference to an existing branch.
    Branch {
        /// The branch's full reference name (`refs/heads/main`), exactly.
        name: BranchName,
        /// The commit the branch points to.
        commit: ObjectId,
    },
    /// HEAD points directly at a commit.
    Detached(ObjectId),
    /// HEAD names a branch that has no commit yet (full reference name, exactly).
    Unborn(BranchName),
}

/// How many symbolic references HEAD's branch is followed through, as git follows them
/// (`SYMREF_MAXDEPTH`); a longer chain is read where it stops, and resolving it fails as in git.
const MAX_SYMBOLIC_HOPS: usize = 5;

/// `GIT_INDEX_FILE` when it is set and not empty (gix refuses an empty one when it opens the
/// repository).
fn index_file_variable() -> Option<std::ffi::OsString> {
    std::env::var_os("GIT_INDEX_FILE").filter(|v| !v.is_empty())
}

/// Why no repository could be opened from `dir`: none is there, or the one git would use cannot
/// be opened by gix, said with gix's own reasons.
fn unopened(dir: &Path, source: gix::Error) -> GitError {
    // Said in full: `.` names nothing to a person who ran the command with `-C DIR`.
    let Some((git_dir, _)) = ownership::found(dir) else {
        return GitError::Discover { path: std::path::absolute(dir).unwrap_or(dir.to_owned()), source };
    };
    let mut reason = crate::model::shown::with_causes(&source);
    if reason.contains("Object format is not enabled") {
        reason.push_str(" (speccoder reads SHA-1 repositories only)");
    }
    GitError::Open { git_dir, reason }
}

/// How gix opens every repository: the object size limit, never through `refs/replace/*`, the
/// command scope's `-c` configuration over every file's. A repository reaches gix only once
/// [`ownership::refuse_dubious`] let it through, as git lets it through, so gix is told to trust
/// it fully: it never refuses one on a judgement of its own (it reads `safe.directory` more
/// widely than git: conditional includes, an entry `<repo>/*` for the repository itself), and its
/// configuration is read whole, as git reads that of a repository it works in, whoever owns it
/// (gix would otherwise pass over the settings it takes from trusted files only). One set of
/// options whatever the ownership, so the object size limit applies to every repository opened.
fn open_options(scope: &CommandScope) -> gix::sec::trust::Mapping<gix::open::Options> {
    use gix::sec::trust::DefaultForLevel as _;
    fn every_section(_: &gix::config::file::Metadata) -> bool {
        true
    }
    // Objects are read as their ids say, never through `refs/replace/*`: a replacement is a
    // local, unsigned rewrite of what an id means, and the evidence names raw ids.
    let options = gix::open::Options::default_for_level(gix::sec::Trust::Full)
        .cli_overrides(scope.overrides())
        .config_overrides([
            format!("gitoxide.objects.allocLimit={OBJECT_SIZE_LIMIT}"),
            "core.useReplaceRefs=false".to_owned(),
        ])
        .bail_if_untrusted(false)
        .filter_config_section(every_section);
    gix::sec::trust::Mapping { full: options.clone(), reduced: options }
}

impl Repo {
    /// Open the repository containing `dir` as git finds it: `GIT_DIR` and `GIT_WORK_TREE` when
    /// they are set (also `GIT_CEILING_DIRECTORIES` and `GIT_DISCOVERY_ACROSS_FILESYSTEM`), else
    /// searching upwards. As git does, a repository owned by another user is refused unless
    /// `safe.directory` names it in protected configuration (the system's, the user's, or the
    /// command's: `git -c`, `GIT_CONFIG_COUNT`; never the repository's own), judged as git judges
    /// it ([`ownership::refuse_dubious`]), and configuration the command scope sets is read over
    /// every file's. So is a repository whose format (`extensions.*`) git refuses
    /// or speccoder cannot keep ([`Repo::refuse_format`]: reftable references, a second object
    /// format). No object larger than [`OBJECT_SIZE_LIMIT`] is read.
    ///
    /// Every command that writes opens the repository this way: a repository shared with a group
    /// (`core.sharedRepository`) is refused too ([`Repo::refuse_shared`]). A command that only
    /// reads opens it with [`Repo::discover_to_read`], which reads a repository with a second
    /// object format (`extensions.compatObjectFormat`) as git does.
    pub fn discover(dir: impl AsRef<Path>) -> Result<Repo, GitError> {
        let repo = Repo::discover_to_read(dir)?;
        repo.refuse_format(Access::Write)?;
        repo.refuse_shared()?;
        Ok(repo)
    }

    /// [`Repo::discover`] for a command that writes nothing in the repository (`attest verify`):
    /// a shared repository is read like any other.
    pub fn discover_to_read(dir: impl AsRef<Path>) -> Result<Repo, GitError> {
        let dir = dir.as_ref();
        files::check_before_open(dir)?;
        files::refuse_beyond_ceiling(dir)?;
        let scope = CommandScope::from_env()?;
        ownership::refuse_dubious(dir, &scope)?;
        let inner = gix::ThreadSafeRepository::discover_with_environment_overrides_opts(
            dir,
            files::discovery(),
            open_options(&scope),
        )
        .map_err(|source| unopened(dir, source))?;
        let repo = Repo::from_gix(inner.into());
        files::check_index(&repo.index_path())?;
        repo.refuse_format(Access::Read)?;
        repo.refuse_work_tree_git_would_not_use()?;
        Ok(repo)
    }

    /// Refuses a repository shared with a group or everyone (`core.sharedRepository` set to
    /// anything but `umask`, `false` or `0`; an invalid value too, which git refuses): git makes
    /// what it creates there group-writable, gix creates refs, reflogs and object directories with
    /// the process's umask, so a teammate could no longer write where speccoder wrote first.
    /// Checked before anything is written.
    pub fn refuse_shared(&self) -> Result<(), GitError> {
        const KEY: &str = "core.sharedRepository";
        let snapshot = self.inner.config_snapshot();
        let value = snapshot.string(KEY);
        if value.is_none() && snapshot.boolean(KEY).is_none() {
            return Ok(());
        }
        let mode = gix::config::tree::Core::SHARED_REPOSITORY.try_into_shared_repository(value.as_deref());
        if matches!(mode, Ok(0)) {
            return Ok(());
        }
        Err(GitError::SharedRepository {
            git_dir: self.common_dir_absolute(),
            value: value.map_or_else(|| "true".to_owned(), |v| v.to_str_lossy().into_owned()),
        })
    }

    /// Refuses `GIT_DIR` without `GIT_WORK_TREE` when git would take another work tree than gix:
    /// git then takes the current directory (unless `core.worktree` names one or `core.bare` is
    /// true), gix the parent of a `.git` directory or none at all; ticking a task list in another
    /// tree than the one git commits from would record work git does not see.
    fn refuse_work_tree_git_would_not_use(&self) -> Result<(), GitError> {
        let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
        if !set("GIT_DIR")
            || set("GIT_WORK_TREE")
            || self.config_bool("core.bare") == Some(true)
            || self.config_is_set("core.worktree")
        {
            return Ok(());
        }
        let cwd = std::env::current_dir().map_err(io_error("read the current directory", "."))?;
        let same = |a: &Path, b: &Path| match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
            (Ok(a), Ok(b)) => a == b,
            _ => a == b,
        };
        if self.workdir().is_some_and(|workdir| same(workdir, &cwd)) {
            return Ok(());
        }
        Err(GitError::GitDirWithoutWorkTree {
            git_dir: self.git_dir().to_owned(),
            cwd,
            ours: self.workdir().map(Path::to_owned),
        })
    }

    fn from_gix(inner: gix::Repository) -> Repo {
        Repo::with_caches(inner, SharedCaches::new())
    }

    fn with_caches(mut inner: gix::Repository, caches: SharedCaches) -> Repo {
        caches.install(&mut inner.objects);
        Repo { inner, caches }
    }

    /// A handle from which other threads open this same repository (same directories,
    /// configuration and object store) as their own `Repo`.
    #[must_use]
    pub fn handle(&self) -> RepoHandle {
        RepoHandle { shared: self.inner.clone().into_sync(), caches: self.caches.clone() }
    }

    /// The merge, cherry-pick, revert, rebase, `git am` or bisect this work tree is in the middle
    /// of, as git's status reads it from the repository's own directory; `None` when there is none.
    #[must_use]
    pub fn operation_in_progress(&self) -> Option<InProgress> {
        self.inner.state()
    }

    /// The git directories (each one's own and its common one) of the repository around `dir` and
    /// of every repository around that one's work tree in turn: a submodule's superproject, and any
    /// around it. The search ends at a bare repository, where none opens, or at one seen already
    /// (`GIT_DIR` names the same repository wherever it looks).
    #[must_use]
    pub fn git_dirs_around(dir: &Path) -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> = Vec::new();
        let mut at = Some(dir.to_owned());
        while let Some(repo) = at.take().and_then(|d| Repo::discover_to_read(d).ok()) {
            let own = std::fs::canonicalize(repo.git_dir()).unwrap_or_else(|_| repo.git_dir().to_owned());
            if dirs.contains(&own) {
                break;
            }
            dirs.extend([own, repo.common_dir().to_owned()]);
            at = repo
                .workdir()
                .and_then(|w| std::fs::canonicalize(w).ok())
                .and_then(|w| w.parent().map(Path::to_owned));
        }
        dirs
    }

    /// The git directories no output of a command may lie in: this repository's own and common
    /// one, and those of every repository around its work tree ([`Self::git_dirs_around`]: a
    /// submodule's superproject, whose refs a path such as `../.git/refs/heads/x` would break).
    #[must_use]
    pub fn git_dirs_guarded(&self) -> Vec<PathBuf> {
        let mut dirs = vec![self.git_dir().to_owned(), self.common_dir().to_owned()];
        let above = self
            .workdir()
            .and_then(|w| std::fs::canonicalize(w).ok())
            .and_then(|w| w.parent().map(Path::to_owned));
        dirs.extend(above.map(|dir| Repo::git_dirs_around(&dir)).unwrap_or_default());
        dirs
    }

    /// The work tree's root, `None` for a bare repository.
    pub fn workdir(&self) -> Option<&Path> {
        self.inner.workdir()
    }

    /// Every work tree of this repository, as gix lists them: the main one (none when the
    /// repository is bare) and each linked one (`git worktree add`), this one among them. A linked
    /// work tree whose directory is gone is still listed, where git registered it.
    ///
    /// # Errors
    /// The list of linked work trees, or the main repository, cannot be read.
    pub fn work_trees(&self) -> Result<Vec<PathBuf>, GitError> {
        let action = || "list the work trees of the repository".to_owned();
        let mut out: Vec<PathBuf> = self.workdir().map(Path::to_owned).into_iter().collect();
        let main = self.inner.main_repo().during(action)?;
        out.extend(main.workdir().map(Path::to_owned));
        for linked in self.inner.worktrees().during(action)? {
            out.push(linked.base().during(action)?);
        }
        Ok(out)
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

    /// [`Repo::common_dir`] as an absolute path, for a message read anywhere.
    pub(super) fn common_dir_absolute(&self) -> PathBuf {
        std::path::absolute(self.common_dir()).unwrap_or_else(|_| self.common_dir().to_owned())
    }

    /// The path of this work tree's index file, as git takes it: `GIT_INDEX_FILE` when it is set,
    /// a relative one from the work tree's top (git changes into the top before it reads the
    /// index, wherever in the tree it was run), else the git directory's `index`. Every reader
    /// and writer of the index takes it from here.
    pub fn index_path(&self) -> PathBuf {
        match (index_file_variable(), self.workdir()) {
            (Some(named), Some(top)) if Path::new(&named).is_relative() => top.join(named),
            _ => self.inner.index_path(),
        }
    }

    /// Whether `GIT_INDEX_FILE` names the index ([`Repo::index_path`]) rather than the git
    /// directory's own.
    #[must_use]
    pub fn index_named_by_environment(&self) -> bool {
        index_file_variable().is_some()
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
                let mut reference = gix::prelude::ReferenceExt::attach(reference, &self.inner);
                // HEAD may name its branch through other symbolic references (`refs/heads/link`
                // naming `refs/heads/main`): the branch is the last of them, as git takes it.
                for _ in 0..MAX_SYMBOLIC_HOPS {
                    let Some(next) = reference.follow() else { break };
                    match next {
                        Ok(next) => reference = next,
                        Err(e) if e.is_not_found() => {
                            let name = reference.target().try_name().map_or_else(
                                || reference.name().to_owned(),
                                gix::refs::FullNameRef::to_owned,
                            );
                            return Ok(Head::Unborn(BranchName::new(name)));
                        }
                        Err(e) => return Err(e).during(|| "resolve HEAD's branch".into()),
                    }
                }
                let name = BranchName::new(reference.name().to_owned());
                let commit =
                    reference.follow_to_object().during(|| format!("resolve HEAD's branch {name}"))?.detach();
                Head::Branch { name, commit }
            }
            gix::head::Kind::Detached { target, .. } => Head::Detached(target),
            gix::head::Kind::Unborn(name) => Head::Unborn(BranchName::new(name)),
        })
    }

    /// Resolve a revision (`HEAD~2`, a branch, a hex id) to an object id.
    ///
    /// # Errors
    /// [`GitError::UnknownRevision`] for a name that does not resolve; [`GitError::ObjectMissing`]
    /// or [`GitError::CorruptObject`] when its leading name resolves to an object the repository
    /// lacks or cannot read, or its steps (`HEAD~1`, `HEAD^2`, a tag peeled) pass through one, or
    /// the history it searches (`HEAD^{/fix}`, `:/fix`) holds one (a repository to fetch into or
    /// repair, not a mistyped name); [`GitError::Shallow`] when its steps go past a shallow
    /// clone's boundary.
    pub fn rev_parse(&self, spec: &str) -> Result<ObjectId, GitError> {
        self.refuse_ambiguous_name(spec)?;
        self.searched_history_reads(spec)?;
        let id = self.inner.rev_parse_single(spec).map(gix::Id::detach).map_err(|source| {
            self.unreadable_name(spec)
                .unwrap_or_else(|| GitError::UnknownRevision { spec: spec.to_owned(), source })
        })?;
        // gix names a parent (`HEAD~1^`) from its child without reading it: one this clone lacks
        // is said as the step that reached it (past a shallow boundary, or a missing commit).
        let lacks = |e: &GitError| e.missing_object().is_some();
        if spec != leading_name(spec) && self.header(id).as_ref().is_err_and(lacks) {
            return Err(self.unreadable_name(spec).unwrap_or_else(|| self.missing(id)));
        }
        Ok(id)
    }

    /// Why the object the leading name of `spec` resolves to (a hex id, or a reference followed
    /// to its object without reading it) cannot be read, or else a commit or tag its steps
    /// (`~N`, `^N`, `^{}`) pass through ([`Repo::unreadable_on_the_way`]); `None` when it names
    /// none, or when every object on the way reads.
    fn unreadable_name(&self, spec: &str) -> Option<GitError> {
        let name = leading_name(spec);
        let id = ObjectId::from_hex(name.as_bytes()).ok().or_else(|| {
            let mut reference = self.inner.try_find_reference(name).ok()??;
            reference.follow_to_object().ok().map(gix::Id::detach)
        })?;
        match self.header(id) {
            Ok(header) => self.read_kind(id, header.kind()).err(),
            Err(e) => Some(e),
        }
        .or_else(|| self.unreadable_on_the_way(id, spec, &spec[name.len()..]))
    }

    /// [`Self::rev_parse`] for a revision that names a commit, an annotated tag peeled to the
    /// object it tags (as git's `<rev>^{}`): a release tag names its commit.
    ///
    /// # Errors
    /// As [`Self::rev_parse`], and [`GitError::NotACommit`] for a revision that names a tree or
    /// a blob (`HEAD^{tree}`, `HEAD:tasks.md`): a usage error, never a repository to repair.
    pub fn rev_parse_peeled(&self, spec: &str) -> Result<ObjectId, GitError> {
        let mut id = self.rev_parse(spec).map_err(|e| self.unborn_head(spec, e))?;
        let mut kind = self.inner.find_header(id).map(|header| header.kind());
        if matches!(kind, Ok(gix::object::Kind::Tag)) {
            id = self.rev_parse(&format!("{id}^{{}}"))?;
            kind = self.inner.find_header(id).map(|header| header.kind());
        }
        match kind {
            Ok(named @ (gix::object::Kind::Tree | gix::object::Kind::Blob)) => {
                Err(GitError::NotACommit { spec: spec.to_owned(), kind: kind_name(named).to_owned() })
            }
            // A commit; or an object whose header cannot be read, which its reader names.
            _ => Ok(id),
        }
    }

    /// `e`, the failure to resolve `spec`, unless `spec` reads HEAD on a branch with no commits
    /// yet: that is the repository's state ([`GitError::UnbornHead`]), not a mistyped name.
    fn unborn_head(&self, spec: &str, e: GitError) -> GitError {
        let leading = spec.split([':', '^', '~', '@']).next().unwrap_or(spec);
        match (&e, self.head()) {
            (GitError::UnknownRevision { .. }, Ok(Head::Unborn(branch))) if leading == "HEAD" => {
                GitError::UnbornHead { branch: branch.to_string(), spec: spec.to_owned() }
            }
            _ => e,
        }
    }

    /// Refuses a revision whose leading reference name (before any `:`, `^`, `~` or `@{`) is short
    /// and names more than one reference by git's lookup rules (`refs/<n>`, `refs/tags/<n>`,
    /// `refs/heads/<n>`, `refs/remotes/<n>`, `refs/remotes/<n>/HEAD`). git only warns and takes the
    /// first; a revision that chooses a base or a trust file must not depend on which refs someone
    /// pushed (a tag `origin/main` shadows the remote-tracking branch).
    fn refuse_ambiguous_name(&self, spec: &str) -> Result<(), GitError> {
        let name = leading_name(spec);
        if name.is_empty() || name.starts_with("refs/") || name == "HEAD" || name.contains("..") {
            return Ok(());
        }
        let candidates: Vec<String> = [
            format!("refs/{name}"),
            format!("refs/tags/{name}"),
            format!("refs/heads/{name}"),
            format!("refs/remotes/{name}"),
            format!("refs/remotes/{name}/HEAD"),
        ]
        .into_iter()
        .filter(|full| self.ref_target(full).ok().flatten().is_some())
        .collect();
        if candidates.len() > 1 {
            return Err(GitError::AmbiguousRevision { name: name.to_owned(), candidates });
        }
        Ok(())
    }

    /// Read an object that must exist and must have `kind`, returning its raw bytes.
    pub(crate) fn read_kind(&self, id: ObjectId, kind: gix::object::Kind) -> Result<Vec<u8>, GitError> {
        self.read_kind_in(&self.inner, id, kind)
    }

    /// [`Self::read_kind`] through `inner` (this repository, or a view of it without a cache).
    fn read_kind_in(
        &self,
        inner: &gix::Repository,
        id: ObjectId,
        kind: gix::object::Kind,
    ) -> Result<Vec<u8>, GitError> {
        // A failure to read an object that is there is damage (a truncated file, a broken pack).
        let object = inner
            .try_find_object(id)
            .map_err(|e| self.unreadable(id, kind, e))?
            .ok_or_else(|| self.missing(id))?;
        if object.kind != kind {
            return Err(GitError::WrongKind {
                id,
                expected: kind_name(kind),
                found: kind_name(object.kind).to_owned(),
            });
        }
        Ok(object.detach().data)
    }

    /// Why the object `id`, read as a `kind`, could not be read: too large to hold (its header
    /// says so, read only on this failure), else [`Self::object_unreadable`].
    fn unreadable(&self, id: ObjectId, kind: gix::object::Kind, error: gix::Error) -> GitError {
        let size = self.inner.try_find_header(id).ok().flatten().map(|header| header.size());
        match size {
            Some(size) if size > OBJECT_SIZE_LIMIT as u64 => {
                GitError::ObjectTooLarge { id, kind: kind_name(kind), size, limit: OBJECT_SIZE_LIMIT }
            }
            _ => self.object_unreadable(id, kind_name(kind), error),
        }
    }

    /// Why the object `id` (or its header), read as a `kind`, could not be read: a read the
    /// operating system refused ([`GitError::Permission`], at the directory gix names, else at
    /// [`Self::object_place`]), else damage ([`GitError::CorruptObject`]).
    pub(crate) fn object_unreadable(&self, id: ObjectId, kind: &'static str, error: gix::Error) -> GitError {
        if access_refused(&error) {
            return GitError::gix(format!("read object {id}"), error, Some(&self.object_place(id)));
        }
        GitError::CorruptObject { id, kind, reason: error.to_string() }
    }

    /// Where the object `id` is kept: its loose file when there is one (or this user may not
    /// look), else the pack directory.
    fn object_place(&self, id: ObjectId) -> PathBuf {
        let loose = self.loose_file(id);
        if loose.try_exists().unwrap_or(true) { loose } else { self.pack_dir() }
    }

    /// [`GitError::ObjectMissing`] for the object `id` gix did not find, unless a file that may
    /// hold it is one this user may not read: gix passes over a pack whose index it may not read
    /// as if it were not there, so the refused read is said instead ([`GitError::Permission`]).
    /// Looked at only once an object is found missing.
    pub(crate) fn missing(&self, id: ObjectId) -> GitError {
        self.refused_object_file(id)
            .unwrap_or_else(|| GitError::ObjectMissing { id, tree_filter: self.tree_filter() })
    }

    /// The promisor remote and its filter when this is a partial clone whose filter leaves trees
    /// out ([`TreeFilter::leaves_trees`]), whose missing objects are the trees of the history.
    fn tree_filter(&self) -> Option<Box<TreeFilter>> {
        let remote = self.promisor_remote()?;
        let filter = self.config_string(&format!("remote.{remote}.partialclonefilter")).ok().flatten()?;
        TreeFilter::leaves_trees(&filter).then(|| Box::new(TreeFilter { remote, filter }))
    }

    /// The first file that may hold the object `id` (a pack, its index, the multi-pack index,
    /// the loose file of `id`), or the pack directory, that this user may not open for reading,
    /// as a [`GitError::Permission`] naming it. Alternate object directories are not looked at.
    fn refused_object_file(&self, id: ObjectId) -> Option<GitError> {
        let refused = |e: &std::io::Error| e.kind() == std::io::ErrorKind::PermissionDenied;
        let pack_dir = self.pack_dir();
        let mut files: Vec<PathBuf> = match std::fs::read_dir(&pack_dir) {
            Ok(entries) => {
                entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| holds_objects(p)).collect()
            }
            Err(e) if refused(&e) => return Some(io_error("list", pack_dir)(e)),
            Err(_) => Vec::new(),
        };
        files.push(self.loose_file(id));
        files.into_iter().find_map(|file| {
            let e = crate::input::open_regular_sized(&file, u64::MAX).err()?.into_io();
            refused(&e).then(|| io_error("read", file)(e))
        })
    }

    /// The path of the loose file the object `id` would be kept in.
    fn loose_file(&self, id: ObjectId) -> PathBuf {
        let hex = id.to_hex().to_string();
        self.common_dir_absolute().join("objects").join(&hex[..2]).join(&hex[2..])
    }

    /// The directory of the repository's packs.
    fn pack_dir(&self) -> PathBuf {
        self.common_dir_absolute().join("objects").join("pack")
    }

    /// The size in bytes of the object `id`, read from its header without reading the object, so
    /// that a caller with a limit can refuse a large one before holding it.
    pub fn object_size(&self, id: ObjectId) -> Result<u64, GitError> {
        if let Some(size) = self.caches.sizes.get(id) {
            return Ok(size);
        }
        let size = self.header(id)?.size();
        self.caches.sizes.put(id, size);
        Ok(size)
    }

    /// The header (kind and size) of the object `id`: [`GitError::ObjectMissing`] when the
    /// repository lacks it, [`GitError::CorruptObject`] when its header cannot be read.
    pub(crate) fn header(&self, id: ObjectId) -> Result<gix::odb::find::Header, GitError> {
        match self.inner.try_find_header(id) {
            Ok(Some(header)) => Ok(header),
            Ok(None) => Err(self.missing(id)),
            Err(e) => Err(self.object_unreadable(id, "object", e)),
        }
    }

    /// The bytes of the blob `id`.
    ///
    /// A blob larger than a cache is read past it: gix copies every object it reads into its
    /// caches, and keeps the buffer of a copy too large to cache for reuse, so a verifier that
    /// reads one large `spec.md` per tick would hold one such buffer per tick. Such a blob could
    /// not stay in the cache anyway.
    pub fn blob(&self, id: ObjectId) -> Result<Vec<u8>, GitError> {
        let size = self.object_size(id).unwrap_or(0);
        if size > PACK_CACHE_BYTES as u64 {
            let mut past = self.inner.clone();
            past.objects.unset_pack_cache();
            if size > OBJECT_CACHE_BYTES as u64 {
                past.objects.unset_object_cache();
            }
            return self.read_kind_in(&past, id, gix::object::Kind::Blob);
        }
        self.read_kind(id, gix::object::Kind::Blob)
    }

    /// The bytes of the blob `id` when it holds at most `max` bytes, else its size: read from the
    /// object's header first, so that a larger blob is never read.
    ///
    /// # Errors
    /// The object is missing or cannot be read.
    pub fn blob_within(&self, id: ObjectId, max: u64) -> Result<Result<Vec<u8>, u64>, GitError> {
        let size = self.object_size(id)?;
        if size > max {
            return Ok(Err(size));
        }
        self.blob(id).map(Ok)
    }

    /// Write `bytes` as a blob (a loose object, as git writes one) and return its id.
    pub fn write_blob(&self, bytes: &[u8]) -> Result<ObjectId, GitError> {
        self.inner.write_blob(bytes).map(gix::Id::detach).during(|| "write a blob".into())
    }

    /// Write the `size` bytes `reader` yields as a blob, streamed into a loose object (hashed and
    /// compressed as they are read, never held in memory whole), and return its id. A reader
    /// that fails, or yields fewer bytes, writes nothing.
    pub fn write_blob_stream(&self, size: u64, reader: &mut dyn std::io::Read) -> Result<ObjectId, GitError> {
        use gix::objs::Write as _;
        self.inner
            .objects
            .write_stream(gix::object::Kind::Blob, size, reader)
            .during(|| "write a blob".into())
    }

    /// The id of the empty tree in this repository's hash kind.
    pub fn empty_tree_id(&self) -> ObjectId {
        ObjectId::empty_tree(self.object_hash())
    }
}

/// The reference name or id a revision starts with: `spec` before any `:`, `^`, `~` or `@{`.
fn leading_name(spec: &str) -> &str {
    let end = spec.find([':', '^', '~']).into_iter().chain(spec.find("@{")).min().unwrap_or(spec.len());
    spec.get(..end).unwrap_or(spec)
}

/// Whether `path`, in the pack directory, holds objects or says where they are: a pack, its
/// index, or the multi-pack index.
fn holds_objects(path: &Path) -> bool {
    let ext = path.extension().and_then(|ext| ext.to_str());
    matches!(ext, Some("pack" | "idx")) || path.file_name().is_some_and(|name| name == "multi-pack-index")
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::Repo;
    use crate::git::GitError;
    use crate::git::cache::SIZES_KEPT;
    use crate::git::test_support::Fixture;

    #[test]
    fn a_submodule_guards_its_superproject_s_git_directory_beside_its_own() {
        let (outer, inner) = (Fixture::new(), Fixture::new());
        outer.commit_file("a.txt", "a\n", "outer");
        inner.commit_file("b.txt", "b\n", "inner");
        let from = inner.path().to_str().unwrap();
        outer.git(&["-c", "protocol.file.allow=always", "submodule", "add", "-q", from, "sub"]);
        let sub = Repo::discover_to_read(outer.path().join("sub")).unwrap();
        let guarded = sub.git_dirs_guarded();
        let canonical = |p: &std::path::Path| std::fs::canonicalize(p).unwrap();
        let has = |dir: std::path::PathBuf| {
            guarded.iter().any(|g| std::fs::canonicalize(g).ok() == Some(canonical(&dir)))
        };
        assert!(has(outer.path().join(".git")), "the superproject's: {guarded:?}");
        assert!(has(outer.path().join(".git/modules/sub")), "its own: {guarded:?}");
        let alone = inner.repo().git_dirs_guarded();
        assert!(alone.iter().all(|g| !canonical(g).starts_with(canonical(outer.path()))), "{alone:?}");
    }

    #[test]
    fn an_annotated_tag_is_peeled_to_its_commit_and_a_tree_or_a_blob_is_refused_naming_it() {
        let fx = Fixture::new();
        let commit = fx.commit_file("a.txt", "a\n", "one");
        fx.git(&["tag", "-a", "v1", "-m", "release"]);
        fx.git(&["tag", "-a", "v1-again", "-m", "a tag of a tag", "v1"]);
        let repo = fx.repo();
        assert_ne!(repo.rev_parse("v1").unwrap(), commit);
        for tag in ["v1", "v1-again", "HEAD"] {
            assert_eq!(repo.rev_parse_peeled(tag).unwrap(), commit, "{tag}");
        }
        for (spec, kind) in [("HEAD^{tree}", "tree"), ("HEAD:a.txt", "blob")] {
            let err = repo.rev_parse_peeled(spec).unwrap_err();
            assert!(matches!(&err, super::GitError::NotACommit { kind: k, .. } if k == kind), "{err}");
            assert_eq!(crate::exit::ExitClass::class(&err), crate::exit::Class::Usage, "{err}");
        }
    }

    /// Removes the loose object `id` from the fixture's repository.
    fn remove_object(fx: &Fixture, id: gix::ObjectId) {
        let hex = id.to_string();
        std::fs::remove_file(fx.path().join(".git/objects").join(&hex[..2]).join(&hex[2..])).unwrap();
    }

    /// Cuts the loose object `id` to half its bytes, as a write stopped halfway leaves it.
    fn truncate_object(fx: &Fixture, id: gix::ObjectId) {
        let hex = id.to_string();
        let file = fx.path().join(".git/objects").join(&hex[..2]).join(&hex[2..]);
        let bytes = std::fs::read(&file).unwrap();
        std::fs::set_permissions(&file, std::os::unix::fs::PermissionsExt::from_mode(0o644)).unwrap();
        std::fs::write(&file, &bytes[..bytes.len() / 2]).unwrap();
    }

    #[test]
    fn a_commit_missing_behind_a_parent_step_or_a_tag_is_named_missing_never_an_unknown_revision() {
        use crate::exit::ExitClass as _;
        let fx = Fixture::new();
        let root = fx.commit_file("a.txt", "a\n", "one");
        fx.git(&["tag", "-a", "v1", "-m", "release"]);
        let middle = fx.commit_file("a.txt", "b\n", "two");
        fx.git(&["checkout", "-q", "-b", "side", &root.to_string()]);
        let side = fx.commit_file("s.txt", "s\n", "side");
        fx.git(&["checkout", "-q", "-"]);
        fx.git(&["merge", "-q", "--no-ff", "-m", "merge", "side"]);
        let tag = fx.rev("v1");
        fx.git(&["tag", "-a", "v2", "-m", "a tag of a tag", "v1"]);
        for id in [middle, side, root] {
            remove_object(&fx, id);
        }
        let repo = fx.repo();
        for (spec, missing) in [
            ("HEAD~1", middle),
            ("HEAD~2", middle),
            ("HEAD^1~1", middle),
            ("HEAD^2", side),
            ("v1", root),
            ("v2~1", root),
            (&format!("{tag}^{{}}"), root),
        ] {
            // A revision gix resolves without reading its object names that object, and reading
            // it fails as reading a missing HEAD does.
            let err = repo.rev_parse_peeled(spec).and_then(|id| repo.commit(id)).unwrap_err();
            assert!(matches!(err, GitError::ObjectMissing { id, .. } if id == missing), "{spec}: {err:?}");
            assert_eq!(err.class(), crate::exit::Class::GitPrecondition, "{spec}");
        }
    }

    /// Three commits of `a.txt` on `fx`'s branch, the second and third with the messages given,
    /// oldest first.
    fn three_commits(fx: &Fixture, second: &str, third: &str) -> [gix::ObjectId; 3] {
        let first = fx.commit_file("a.txt", "a\n", "one");
        [first, fx.commit_file("a.txt", "b\n", second), fx.commit_file("a.txt", "c\n", third)]
    }

    #[test]
    fn a_damaged_commit_behind_a_parent_step_is_named_damaged_never_an_unknown_revision() {
        let fx = Fixture::new();
        let [_, middle, _] = three_commits(&fx, "two", "three");
        truncate_object(&fx, middle);
        let err = fx.repo().rev_parse_peeled("HEAD~2").unwrap_err();
        assert!(matches!(err, GitError::CorruptObject { id, .. } if id == middle), "{err:?}");
        assert_eq!(crate::exit::ExitClass::class(&err), crate::exit::Class::Config);
    }

    #[test]
    fn a_search_through_a_missing_commit_names_that_commit_and_never_panics() {
        use crate::exit::ExitClass as _;
        let fx = Fixture::new();
        let [_, middle, _] = three_commits(&fx, "two alpha", "three beta");
        fx.git(&["tag", "-a", "v3", "-m", "release"]);
        let repo = fx.repo();
        assert_eq!(repo.rev_parse_peeled("HEAD^{/alpha}").unwrap(), middle);
        assert_eq!(repo.rev_parse_peeled(":/alpha").unwrap(), middle);
        for spec in ["HEAD^{/nomatch}", ":/nomatch", "HEAD:a.txt^{/alpha}"] {
            let err = repo.rev_parse_peeled(spec).unwrap_err();
            assert!(matches!(err, GitError::UnknownRevision { .. }), "{spec}: {err:?}");
        }
        remove_object(&fx, middle);
        let repo = fx.repo();
        for spec in
            ["HEAD^{/alpha}", "HEAD^{/nomatch}", "v3^{/alpha}", "HEAD~0^{/beta}~1", ":/alpha", ":/nomatch"]
        {
            let err = repo.rev_parse_peeled(spec).unwrap_err();
            assert!(matches!(err, GitError::ObjectMissing { id, .. } if id == middle), "{spec}: {err:?}");
            assert_eq!(err.class(), crate::exit::Class::GitPrecondition, "{spec}");
        }
    }

    #[test]
    fn a_search_through_a_damaged_commit_names_that_commit_damaged() {
        let fx = Fixture::new();
        let [_, middle, _] = three_commits(&fx, "two alpha", "three beta");
        truncate_object(&fx, middle);
        for spec in ["HEAD^{/alpha}", ":/nomatch"] {
            let err = fx.repo().rev_parse_peeled(spec).unwrap_err();
            assert!(matches!(err, GitError::CorruptObject { id, .. } if id == middle), "{spec}: {err:?}");
        }
    }

    #[test]
    fn a_step_past_a_shallow_boundary_is_the_shallow_clone_s_never_a_missing_object() {
        use crate::exit::ExitClass as _;
        let fx = Fixture::new();
        let [root, boundary, _] = three_commits(&fx, "two", "three");
        // What `git clone --depth 2` leaves: the boundary listed, the commit below it not fetched.
        std::fs::write(fx.path().join(".git/shallow"), format!("{boundary}\n")).unwrap();
        remove_object(&fx, root);
        let repo = fx.repo();
        assert_eq!(repo.rev_parse_peeled("HEAD~1").unwrap(), boundary);
        for spec in ["HEAD~2", "HEAD^~1", "HEAD~1^2", "HEAD~5", "HEAD~1^", "HEAD^^", "HEAD~1^1"] {
            let err = repo.rev_parse_peeled(spec).unwrap_err();
            let GitError::Shallow(cut) = &err else { panic!("{spec}: {err:?}") };
            assert_eq!(cut.boundary, boundary.to_string(), "{spec}");
            assert!(err.to_string().contains("`git fetch --unshallow`"), "{spec}: {err}");
            assert_eq!(err.class(), crate::exit::Class::GitPrecondition, "{spec}");
        }
        // A search stops at the boundary, as git's does: nothing found is a name to correct.
        let err = repo.rev_parse_peeled("HEAD^{/one}").unwrap_err();
        assert!(matches!(err, GitError::UnknownRevision { .. }), "{err:?}");
    }

    #[test]
    fn a_step_beyond_an_intact_history_or_from_a_tree_stays_an_unknown_revision() {
        let fx = Fixture::new();
        fx.commit_file("a.txt", "a\n", "one");
        fx.commit_file("a.txt", "b\n", "two");
        let repo = fx.repo();
        for spec in ["HEAD~99", "HEAD^2", "HEAD~1^2", "HEAD^3~1", "HEAD^{tree}~1", "HEAD^{tree}^0"] {
            let err = repo.rev_parse_peeled(spec).unwrap_err();
            assert!(matches!(err, GitError::UnknownRevision { .. }), "{spec}: {err:?}");
        }
    }

    #[test]
    fn head_names_the_branch_at_the_end_of_a_chain_of_symbolic_references_as_git_does() {
        let fx = Fixture::new();
        let commit = fx.commit_file("a.txt", "a\n", "one");
        let main = fx.git(&["symbolic-ref", "HEAD"]).trim().to_owned();
        fx.git(&["symbolic-ref", "refs/heads/link", &main]);
        fx.git(&["symbolic-ref", "HEAD", "refs/heads/link"]);
        let shown = format!("refs/heads/{}", fx.git(&["branch", "--show-current"]).trim());
        assert_eq!(shown, main, "git takes the end of the chain");
        assert_eq!(fx.repo().head().unwrap(), super::Head::Branch { name: main.into(), commit });
        fx.git(&["symbolic-ref", "refs/heads/link", "refs/heads/unborn"]);
        assert_eq!(fx.repo().head().unwrap(), super::Head::Unborn("refs/heads/unborn".into()));
    }

    #[test]
    fn head_on_a_branch_with_no_commits_is_the_repository_s_state_and_another_name_a_mistake() {
        use crate::exit::ExitClass as _;
        let fx = Fixture::new();
        fx.commit_file("a.txt", "a\n", "one");
        fx.git(&["checkout", "-q", "--orphan", "fresh"]);
        let repo = fx.repo();
        for spec in ["HEAD", "HEAD~1"] {
            let err = repo.rev_parse_peeled(spec).unwrap_err();
            assert!(
                matches!(&err, GitError::UnbornHead { branch, .. } if branch == "refs/heads/fresh"),
                "{err:?}"
            );
            assert_eq!(err.class(), crate::exit::Class::GitPrecondition);
        }
        assert!(matches!(repo.rev_parse_peeled("nosuch"), Err(GitError::UnknownRevision { .. })));
    }

    #[test]
    fn an_object_size_is_its_header_s_and_the_sizes_kept_stay_bounded() {
        let fx = Fixture::new();
        let repo: Repo = fx.repo();
        let ids: Vec<_> =
            (0..=SIZES_KEPT).map(|i| repo.write_blob(format!("blob {i}\n").as_bytes()).unwrap()).collect();
        for (i, id) in ids.iter().enumerate() {
            let expected = format!("blob {i}\n").len() as u64;
            assert_eq!(repo.object_size(*id).unwrap(), expected);
            assert_eq!(repo.object_size(*id).unwrap(), expected, "kept, and the same");
            assert!(repo.caches.sizes.len() <= SIZES_KEPT);
        }
        let shell = fx.git(&["cat-file", "-s", &ids[0].to_string()]);
        assert_eq!(repo.object_size(ids[0]).unwrap().to_string(), shell.trim());
    }

    #[test]
    fn repositories_opened_from_one_handle_share_its_caches_and_no_other() {
        let fx = Fixture::new();
        let repo: Repo = fx.repo();
        let opened = repo.handle().open();
        let other: Repo = fx.repo();
        let (ours, theirs, another) = (&repo.caches, &opened.caches, &other.caches);
        assert!(Arc::ptr_eq(&ours.pack.0, &theirs.pack.0) && !Arc::ptr_eq(&ours.pack.0, &another.pack.0));
        assert!(
            Arc::ptr_eq(&ours.objects.0, &theirs.objects.0)
                && !Arc::ptr_eq(&ours.objects.0, &another.objects.0)
        );
        assert!(Arc::ptr_eq(&ours.sizes.0, &theirs.sizes.0) && !Arc::ptr_eq(&ours.sizes.0, &another.sizes.0));
    }

    #[test]
    fn an_object_one_thread_read_is_read_by_another_without_the_object_store() {
        let fx = Fixture::new();
        let repo: Repo = fx.repo();
        let (seen, probed) =
            (repo.write_blob(b"read whole\n").unwrap(), repo.write_blob(b"probed\n").unwrap());
        assert_eq!(repo.blob(seen).unwrap(), b"read whole\n");
        assert_eq!(repo.object_size(probed).unwrap(), 7);
        // Both loose files gone: what the other thread gets can only come from the caches.
        for id in [seen, probed] {
            let hex = id.to_string();
            std::fs::remove_file(fx.path().join(".git/objects").join(&hex[..2]).join(&hex[2..])).unwrap();
        }
        let handle = repo.handle();
        std::thread::scope(|scope| {
            scope.spawn(|| {
                let theirs = handle.open();
                assert_eq!(theirs.blob(seen).unwrap(), b"read whole\n");
                assert_eq!(theirs.object_size(probed).unwrap(), 7);
                assert!(matches!(theirs.blob(probed), Err(crate::git::GitError::ObjectMissing { .. })));
            });
        });
        // A repository opened anew has caches of its own.
        assert!(matches!(fx.repo().blob(seen), Err(crate::git::GitError::ObjectMissing { .. })));
    }

    #[test]
    fn blobs_of_delta_chains_read_by_two_threads_through_one_pack_cache_are_the_blobs_written() {
        let fx = Fixture::new();
        let texts: Vec<String> = (0..40)
            .map(|i| {
                (0..200)
                    .map(|line| format!("- [{}] T{line:03} a task\n", if line < i { 'x' } else { ' ' }))
                    .collect()
            })
            .collect();
        for (i, text) in texts.iter().enumerate() {
            fx.write(&format!("notes/{i}.txt"), text);
        }
        fx.git(&["add", "-A"]);
        fx.git(&["commit", "-qm", "notes"]);
        fx.git(&["repack", "-adfq", "--depth=50", "--window=50"]);
        let ids: Vec<_> = (0..texts.len()).map(|i| fx.rev(&format!("HEAD:notes/{i}.txt"))).collect();
        // Each packed object with the base it is a delta of: some base is itself a delta.
        let listed = fx.git(&["cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(deltabase)"]);
        let base_of: std::collections::HashMap<&str, &str> =
            listed.lines().filter_map(|l| l.split_once(' ')).collect();
        let zero = "0".repeat(40);
        assert!(
            base_of.values().any(|base| base_of.get(base).is_some_and(|b| *b != zero)),
            "the pack holds a chain of deltas: {listed}"
        );
        let repo: Repo = fx.repo();
        let handle = repo.handle();
        std::thread::scope(|scope| {
            for turn in 0..2 {
                let (handle, ids, texts) = (&handle, &ids, &texts);
                scope.spawn(move || {
                    let mine = handle.open();
                    for round in 0..3 {
                        for i in 0..ids.len() {
                            let at = if (turn + round) % 2 == 0 { i } else { ids.len() - 1 - i };
                            assert_eq!(mine.blob(ids[at]).unwrap(), texts[at].as_bytes());
                        }
                    }
                });
            }
        });
    }
}
