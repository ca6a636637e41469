//! The files of git that speccoder looks at before gix reads them, named for a refusal.

/// What a file is to git, for the refusal's words and its exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GitFile {
    /// A configuration file of the user or the system (`GIT_CONFIG_GLOBAL`, `~/.gitconfig`,
    /// `$XDG_CONFIG_HOME/git/config`, the system's).
    UserConfig,
    /// The repository's own configuration (`config`, `config.worktree`).
    RepositoryConfig,
    /// The `commondir` file of a linked work tree.
    CommonDir,
    /// The repository's `packed-refs`.
    PackedRefs,
    /// The index.
    Index,
    /// A `HEAD` file where the search for the repository looks for one (`.git/HEAD`, a bare
    /// repository's, the one a `.git` file points at).
    Head,
    /// A `.git` file, which names the git directory of a linked work tree or a submodule.
    GitLink,
    /// An attributes file (`.gitattributes`, `info/attributes`, `core.attributesFile`, the
    /// system's).
    Attributes,
}

impl GitFile {
    /// What the file is, in a few words.
    #[must_use]
    pub fn what(self) -> &'static str {
        match self {
            GitFile::UserConfig => "the git configuration file",
            GitFile::RepositoryConfig => "the repository's git configuration",
            GitFile::CommonDir => "the work tree's `commondir` file",
            GitFile::PackedRefs => "the repository's packed references",
            GitFile::Index => "the index",
            GitFile::Head => "a HEAD file on the way to the repository",
            GitFile::GitLink => "a `.git` file (`gitdir: <path>`)",
            GitFile::Attributes => "the git attributes file",
        }
    }

    /// What to do about it.
    #[must_use]
    pub fn remedy(self) -> &'static str {
        match self {
            GitFile::UserConfig => {
                "put a regular file there or remove it (or point GIT_CONFIG_GLOBAL, GIT_CONFIG_SYSTEM at one, or set GIT_CONFIG_NOSYSTEM=1)"
            }
            GitFile::RepositoryConfig | GitFile::CommonDir | GitFile::PackedRefs => {
                "put the regular file git wrote back in its place"
            }
            GitFile::Index => "remove it and run `git reset` to rebuild it from HEAD",
            GitFile::Head | GitFile::GitLink => {
                "put the regular file git wrote back in its place, or remove it where no repository is meant to be"
            }
            GitFile::Attributes => "put a regular file there or remove it",
        }
    }

    /// The exit class of its refusal: the repository's own files are its state, the user's and
    /// the attributes files configuration.
    #[must_use]
    pub fn class(self) -> crate::exit::Class {
        match self {
            GitFile::RepositoryConfig
            | GitFile::CommonDir
            | GitFile::PackedRefs
            | GitFile::Index
            | GitFile::Head
            | GitFile::GitLink => crate::exit::Class::GitPrecondition,
            GitFile::UserConfig | GitFile::Attributes => crate::exit::Class::Config,
        }
    }
}
