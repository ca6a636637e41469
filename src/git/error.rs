//! The one error type of the repository adapter: each message says what was wrong and what to do.

use std::path::{Path, PathBuf};

use gix::ObjectId;

use super::extensions::ExtensionRefusal;
use super::ref_advice::set_ref_command;
use crate::exit::{Class, ExitClass};
use crate::model::clean;
use crate::model::shown::{one_line, shell_word, with_causes};

/// Everything that can go wrong while reading or writing the repository.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// No repository could be opened at or above the given directory.
    #[error("no git repository found at or above {path}: run the command inside a git work tree")]
    Discover {
        /// The directory the search started from.
        path: PathBuf,
        /// What gix reported.
        #[source]
        source: gix::Error,
    },

    /// The only repository above the directory is in a ceiling directory
    /// (`GIT_CEILING_DIRECTORIES`), which git does not search from below.
    #[error(
        "no git repository found at or above {} below the ceiling {} (GIT_CEILING_DIRECTORIES), which git does not go up into: run the command inside the work tree's root, or take {} out of GIT_CEILING_DIRECTORIES",
        .path.display(), .ceiling.display(), .ceiling.display()
    )]
    BeyondCeiling {
        /// The directory the search started from.
        path: PathBuf,
        /// The ceiling directory holding the repository.
        ceiling: PathBuf,
    },

    /// The search met a `.git` file that names no repository: git stops there ("not a git
    /// repository"), where gix would search on to a repository above it.
    #[error(
        "{} is a .git file that names no repository (it does not say `gitdir: <a git directory>`): git stops there and finds none; fix it or remove it, or run the command outside that directory",
        .path.display()
    )]
    GitFileNamesNone {
        /// The `.git` file.
        path: PathBuf,
    },

    /// A repository was found, but gix cannot open it (an unsupported object format, a broken
    /// configuration, an ownership it does not trust).
    #[error("the git repository {git_dir} cannot be opened: {reason}")]
    Open {
        /// The repository's git directory.
        git_dir: PathBuf,
        /// What stops it, and what to do when that is known.
        reason: String,
    },

    /// The repository is owned by another user and `safe.directory` does not name it: git refuses
    /// it ("dubious ownership"), and so does speccoder.
    #[error(
        "the git repository at {} is owned by another user, and git refuses to work in it (\"detected dubious ownership\"); so does speccoder. If you trust it, add an exception as git advises: `git config --global --add safe.directory {}`, then run the command again",
        .path.display(), shell_word(&.path.to_string_lossy())
    )]
    DubiousOwnership {
        /// The path `safe.directory` must name: the work tree, or the git directory when bare.
        path: PathBuf,
    },

    /// git's configuration of the command scope (`GIT_CONFIG_PARAMETERS`, which `git -c` sets
    /// for the programs it runs, or `GIT_CONFIG_COUNT` and what it counts) cannot be read as git
    /// reads it, or holds a key speccoder cannot hand on.
    #[error(
        "the git configuration in {variable} cannot be taken: {problem}. Fix or unset {variable} (git sets GIT_CONFIG_PARAMETERS for the programs it runs from `git -c key=value`; GIT_CONFIG_COUNT and the GIT_CONFIG_KEY_<n> and GIT_CONFIG_VALUE_<n> it counts are set by hand or by a CI), then run the command again"
    )]
    CommandConfig {
        /// The variable (`GIT_CONFIG_PARAMETERS`, `GIT_CONFIG_COUNT`).
        variable: &'static str,
        /// What is wrong with it.
        problem: String,
    },

    /// The repository's format (`core.repositoryFormatVersion`, `extensions.*`) is one git refuses,
    /// or asks of every writer or reader what speccoder cannot do.
    #[error("{}", extension_refused(.git_dir, .refusal))]
    Extension {
        /// The repository's common git directory.
        git_dir: PathBuf,
        /// What the format asks, and why speccoder refuses it.
        refusal: Box<ExtensionRefusal>,
    },

    /// `GIT_DIR` is set without `GIT_WORK_TREE`, and git would take the current directory as the
    /// work tree where gix takes another (or none).
    #[error(
        "GIT_DIR is set ({}) without GIT_WORK_TREE, so git takes the current directory {} as the work tree, while speccoder would take {}: set GIT_WORK_TREE to the work tree's root too, or unset GIT_DIR and run the command inside the work tree",
        .git_dir.display(), .cwd.display(),
        .ours.as_ref().map_or_else(|| "no work tree".to_owned(), |p| p.display().to_string())
    )]
    GitDirWithoutWorkTree {
        /// The git directory `GIT_DIR` names.
        git_dir: PathBuf,
        /// The current directory, git's work tree.
        cwd: PathBuf,
        /// The work tree gix found, if any.
        ours: Option<PathBuf>,
    },

    /// The repository is shared with a group (`core.sharedRepository`), whose permissions
    /// speccoder does not apply to what it creates.
    #[error(
        "the git repository {} is shared (core.sharedRepository = {value}): git makes what it creates there writable for the group, speccoder cannot (the refs, logs and object directories it creates would be writable only by you, and a teammate could no longer add evidence), so nothing was written. Run speccoder in a clone of your own and push from there (`speccoder attest push`)",
        .git_dir.display()
    )]
    SharedRepository {
        /// The repository's common git directory.
        git_dir: PathBuf,
        /// The configured value.
        value: String,
    },

    /// The operating system refused a read or write of the repository: a directory or file
    /// another user owns, or a read-only file system.
    #[error(
        "could not {action}: permission denied at {} ({cause}): this user may not read or write there as the command needs; make it readable and writable for this user (see `ls -ld {}`), or run the command as the user who owns the repository",
        .path.display(), shell_word(&.path.to_string_lossy())
    )]
    Permission {
        /// What was attempted (`write reference refs/heads/main`, `write a blob`).
        action: String,
        /// The file this user may not read, or the nearest directory there is to where the read
        /// or write was refused, as an absolute path.
        path: PathBuf,
        /// What the operating system reported, with every step of gix's that led to it.
        cause: String,
    },

    /// The file system had no room for a write: a full disk, a full quota, or a file past this
    /// process's file-size limit (`ulimit -f`).
    #[error(
        "could not {action}: no room{} ({cause}): the file system or this user's quota is full, or the file would pass this process's file-size limit (`ulimit -f`); make room (`df -h` shows what is free) or raise the limit, then run the command again",
        .path.as_ref().map(|p| format!(" at {}", p.display())).unwrap_or_default()
    )]
    NoRoom {
        /// What was attempted (`write a blob`, `write the index`).
        action: String,
        /// The nearest directory there is to where the write was refused, as an absolute path,
        /// when the failure names one.
        path: Option<PathBuf>,
        /// What the operating system reported, with every step of gix's that led to it.
        cause: String,
    },

    /// The operation needs a work tree but the repository is bare.
    #[error("the repository at {git_dir} has no work tree: run this in a checkout, not a bare repository")]
    NoWorkTree {
        /// The repository's git directory.
        git_dir: PathBuf,
    },

    /// A revision could not be resolved to an object.
    #[error(
        "unknown revision `{spec}`: check the name (for example with `git rev-parse {}`)",
        shell_word(.spec)
    )]
    UnknownRevision {
        /// The revision as given.
        spec: String,
        /// What gix reported.
        #[source]
        source: gix::Error,
    },

    /// A revision that names a tree or a blob where a commit is needed.
    #[error("`{}` names a {kind}, not a commit: name a commit (a branch, a tag, a commit id)", one_line(.spec))]
    NotACommit {
        /// The revision as given.
        spec: String,
        /// What it names.
        kind: String,
    },

    /// A short reference name that names more than one reference, so that which one it means
    /// depends on git's lookup order: a pushed tag `origin/main` comes before the remote-tracking
    /// branch `refs/remotes/origin/main`.
    #[error(
        "`{name}` is ambiguous: it names {} (git would take the first); name the one you mean in full, for example `{}`",
        .candidates.join(" and "),
        .candidates.last().map_or("", String::as_str)
    )]
    AmbiguousRevision {
        /// The short name as given.
        name: String,
        /// The full names it could mean, in git's lookup order.
        candidates: Vec<String>,
    },

    /// A revision reads HEAD on a branch with no commits yet.
    #[error("the branch {branch} has no commits yet, so `{}` names no commit: commit first, then run the command again", one_line(.spec))]
    UnbornHead {
        /// The branch HEAD names.
        branch: String,
        /// The revision as given.
        spec: String,
    },

    /// An object the repository refers to is not in the object database.
    #[error("{}", object_missing(.id, .tree_filter.as_deref()))]
    ObjectMissing {
        /// The missing object.
        id: ObjectId,
        /// In a partial clone whose filter leaves trees on the promisor remote (`--filter=tree:0`),
        /// that remote and filter: the trees of the history are fetched whole, once, by the user.
        tree_filter: Option<Box<TreeFilter>>,
    },

    /// A revision's steps go past the shallow boundary, where this clone's history stops: a
    /// history to fetch, not damage to repair.
    #[error(transparent)]
    Shallow(ShallowCut),

    /// An object exists but has another kind than expected.
    #[error("object {id} is a {found}, expected a {expected}: the reference or tree pointing to it is wrong")]
    WrongKind {
        /// The object.
        id: ObjectId,
        /// The kind the caller needed.
        expected: &'static str,
        /// The kind the object has.
        found: String,
    },

    /// An object is larger than speccoder holds in memory ([`crate::git::OBJECT_SIZE_LIMIT`]):
    /// a few MiB of compressed zeros in a checked branch can stand for gigabytes.
    #[error(
        "object {id} is a {kind} of {size} bytes, more than the {limit} bytes speccoder reads of one object: it is refused unread"
    )]
    ObjectTooLarge {
        /// The object.
        id: ObjectId,
        /// Its kind.
        kind: &'static str,
        /// Its size, inflated.
        size: u64,
        /// The most speccoder reads.
        limit: usize,
    },

    /// A note larger than a reader takes, which is not read.
    #[error(
        "the note of {annotated} in {notes_ref} is {size} bytes, more than the {limit} a note may be, so it is not read; {}",
        crate::model::bundle::keep_too_large_note(.notes_ref, &.annotated.to_string())
    )]
    NoteTooLarge {
        /// The notes reference.
        notes_ref: String,
        /// The annotated object.
        annotated: ObjectId,
        /// The note's size, from its object header.
        size: u64,
        /// The cap ([`crate::model::bundle::MAX_NOTE_BYTES`]).
        limit: u64,
    },

    /// An object could not be decoded.
    #[error("object {id} is not a valid {kind} ({reason}): repair the repository (`git fsck`)")]
    CorruptObject {
        /// The object.
        id: ObjectId,
        /// The kind it was read as.
        kind: &'static str,
        /// What was wrong with it.
        reason: String,
    },

    /// A repository-relative path is not acceptable.
    #[error("`{path}` is not a usable repository path: {reason}")]
    InvalidPath {
        /// The path as given.
        path: String,
        /// Why it is refused.
        reason: &'static str,
    },

    /// A reference name is not acceptable.
    #[error("`{name}` is not a usable reference name: {reason}")]
    InvalidRefName {
        /// The name as given.
        name: String,
        /// Why it is refused.
        reason: String,
    },

    /// A reference whose name is not UTF-8 (git takes any bytes in one but a few): speccoder acts
    /// on a reference only by its exact name, and a text with U+FFFD in place of each byte that is
    /// not UTF-8 names another reference, so it refuses this one.
    #[error(
        "{what} {name} has a name that is not UTF-8 (each such byte shown as \\xNN), and speccoder acts on a reference only by its exact name, so it refuses it; nothing was changed: {remedy}"
    )]
    RefNameNotUtf8 {
        /// What the reference is (`HEAD's branch`, `the reference`).
        what: &'static str,
        /// Its name, each byte that is not UTF-8 escaped ([`crate::model::shown::bytes_shown`]).
        name: String,
        /// What to do.
        remedy: String,
    },

    /// A compare-and-swap of a reference found another value than expected.
    #[error(
        "reference {name} moved meanwhile (expected {}, found {}): another process changed it; re-read the repository and try again",
        show(.expected),
        show(.found)
    )]
    RefMoved {
        /// The reference.
        name: String,
        /// The value the caller expected (`None`: absent).
        expected: Option<ObjectId>,
        /// The value found (`None`: absent).
        found: Option<ObjectId>,
    },

    /// HEAD names another branch than the one a writer read at its start, or none: another
    /// command checked out another branch (or detached HEAD) while this one worked.
    #[error(
        "HEAD moved meanwhile (it named {expected} when the command began, and {} now): another command checked out another branch in this work tree; nothing was written on either branch: run the command again on the branch you mean",
        .found.as_deref().map_or_else(|| "a commit, detached,".to_owned(), |name| format!("names {name}"))
    )]
    HeadMoved {
        /// The branch HEAD named at the start (full reference name).
        expected: String,
        /// The branch HEAD names now (`None`: detached).
        found: Option<String>,
    },

    /// A lock an update of a reference needs (its own, or `packed-refs.lock`) stayed taken while
    /// we retried.
    #[error(
        "cannot update reference {name}: the lock {} exists, so another git or speccoder command holds it; try again when it is done. If no such command is running, one was stopped while it held the lock: remove {}",
        .lock.display(), .lock.display()
    )]
    RefLocked {
        /// The reference.
        name: String,
        /// The lock file in the way: the reference's own, or `packed-refs.lock`.
        lock: PathBuf,
    },

    /// The index is locked by another writer.
    #[error(
        "another speccoder or git command holds the index ({}.lock exists); try again when it is done. If no such command is running, one was stopped while it held the lock: remove {}.lock{}",
        .path.display(), .path.display(), also_left(.others)
    )]
    IndexLocked {
        /// The index file.
        path: PathBuf,
        /// The lock files of the references a writer moves that exist too (left by the same
        /// stopped writer, or held by a running one), so that all are named at once.
        others: Vec<PathBuf>,
    },

    /// Another `attest fetch` or `attest push` of the repository holds the fetch lock
    /// ([`super::FetchLock`]), or a killed one left it.
    #[error(
        "another speccoder attest fetch or push of this repository holds the lock {}, so this one changed nothing; try again when it is done. If no such command is running, one was stopped while it held the lock: remove {}, then run this again",
        .lock.display(), .lock.display()
    )]
    FetchLocked {
        /// The lock file.
        lock: PathBuf,
    },

    /// The index holds unresolved merge conflicts.
    #[error("the index has unresolved conflicts in {}: resolve them and `git add` the files first", .paths.join(", "))]
    Unmerged {
        /// The conflicted paths (at most a few).
        paths: Vec<String>,
    },

    /// The index file cannot be read: damaged (a stopped writer, a disk error), or in a form gix
    /// does not read.
    #[error(
        "the index {} cannot be read ({}); if `git status` refuses it too, it is damaged, and `rm {} && git reset` rebuilds it from HEAD (the files in the work tree stay as they are; changes staged and not committed become unstaged): do that, then run the command again",
        .path.display(), one_line(.reason), shell_word(&.path.to_string_lossy())
    )]
    IndexUnreadable {
        /// The index file.
        path: PathBuf,
        /// What gix reported.
        reason: String,
    },

    /// The index is in a shape that cannot become a tree.
    #[error(
        "the index cannot be written as a tree: {reason}; repair it (for example `git reset`) and try again"
    )]
    InvalidIndex {
        /// What is wrong.
        reason: String,
    },

    /// A tree being built would hold a file and a directory of the same name.
    #[error("`{path}` would be both a file and a directory in the new tree: keep only one of them")]
    PathConflict {
        /// The clashing path (relative to the directory being built).
        path: String,
    },

    /// A path to be replaced is not a regular file in the index.
    #[error("`{path}` is a {kind} in the index, not a regular file: it cannot be replaced with file content")]
    NotAFile {
        /// The path.
        path: String,
        /// What it is instead.
        kind: &'static str,
    },

    /// A work-tree path runs through a symbolic link or another non-directory.
    #[error(
        "refusing to write `{path}`: {reason}; make each directory on its way a plain directory of the work tree (as `git checkout` makes it), then run the command again"
    )]
    UnsafeWorktreePath {
        /// The repository-relative path.
        path: String,
        /// What was found on the way.
        reason: &'static str,
    },

    /// A directory stands where a writer puts the new content of a work-tree file before it
    /// renames it over the file: a name of the writer's own, which it would replace were it a file.
    #[error(
        "`{path}` is a directory, where speccoder writes a task list's new content before renaming it over the task list; nothing was written: remove it (`rm -r -- {}`) and run the command again",
        shell_word(.path)
    )]
    DirectoryInTheWay {
        /// The repository-relative path.
        path: String,
    },

    /// A file could not be converted as git converts it (`core.autocrlf`, `.gitattributes`, a
    /// filter driver of the repository's config).
    #[error(
        "`{path}` could not be converted {conversion}: {reason}; check what git applies to it (`git check-attr -a -- {path_w}`, `git config --get-regexp '^(core\\.(autocrlf|eol|safecrlf)|filter\\.)'`) and that `git add {path_w}` works",
        path_w = shell_word(.path)
    )]
    Convert {
        /// The repository-relative path.
        path: String,
        /// Which way.
        conversion: Conversion,
        /// What gix or the filter reported.
        reason: String,
    },

    /// A file's `filter` driver is required (`filter.<driver>.required`) and names no command for
    /// a conversion (neither the one of its way, `clean` or `smudge`, nor `process`; an empty one
    /// names none): git refuses to convert the file (`git add` fails with `clean filter
    /// '<driver>' failed`), where gix would pass it through unconverted.
    #[error(
        "`{path}` has the attribute `filter={d}`, a required driver (`filter.{d}.required`), but neither `filter.{d}.{command}` nor `filter.{d}.process` names a command, so git refuses to convert it; nothing was written: set `filter.{d}.{command}` (or `.process`) to the driver's command, or stop requiring it (`git config --unset {key}`)",
        d = one_line(.driver),
        key = shell_word(&format!("filter.{}.required", .driver))
    )]
    RequiredFilterWithoutCommand {
        /// The repository-relative path.
        path: String,
        /// The driver's name, as the attribute gives it.
        driver: String,
        /// The command the conversion needs: `clean` (into git's form) or `smudge`.
        command: &'static str,
    },

    /// A file's `working-tree-encoding` cannot be converted as git converts it.
    #[error(
        "`{path}` has the attribute `working-tree-encoding={encoding}` (`git check-attr working-tree-encoding -- {}` names the .gitattributes line), and {why}; nothing was written: use one of {known}, or an encoding of the WHATWG Encoding Standard (for example ISO-8859-2, windows-1252, Shift_JIS, GBK), for it",
        shell_word(.path)
    )]
    UnsupportedEncoding {
        /// The repository-relative path.
        path: String,
        /// The attribute's value.
        encoding: String,
        /// Why it cannot be converted.
        why: String,
        /// The Unicode encodings that can be.
        known: &'static str,
    },

    /// No author or committer identity is configured.
    #[error(
        "no {role} identity configured: set it with `git config user.name \"Your Name\"` and `git config user.email you@example.com` (or GIT_{env}_NAME / GIT_{env}_EMAIL)"
    )]
    IdentityMissing {
        /// `author` or `committer`.
        role: &'static str,
        /// `AUTHOR` or `COMMITTER`.
        env: &'static str,
    },

    /// An identity has an empty name after git's cleanup.
    #[error(
        "the {role} name is empty after removing the characters git does not allow: set a real `user.name`"
    )]
    EmptyIdentityName {
        /// `author` or `committer`.
        role: &'static str,
    },

    /// A date from the environment or configuration could not be parsed.
    #[error("invalid date `{value}` in {variable}: use a date git accepts, for example `@1700000000 +0000`")]
    BadDate {
        /// The environment variable (or configuration key) holding it.
        variable: &'static str,
        /// The value found.
        value: String,
    },

    /// The notes tree maps one object to more than one note.
    #[error(
        "the notes in {notes_ref} hold more than one note for {annotated}: the notes tree is damaged; remove the duplicate with `git notes --ref={} remove {annotated}` and write it again",
        shell_word(.notes_ref)
    )]
    AmbiguousNote {
        /// The notes reference.
        notes_ref: String,
        /// The annotated object.
        annotated: ObjectId,
    },

    /// The notes tree is too large to list (or built to explode when walked).
    #[error(
        "the notes tree of {notes_ref} has more than {limit} entries: refusing to walk it; inspect the notes ref"
    )]
    NotesTreeTooLarge {
        /// The notes reference.
        notes_ref: String,
        /// The entry budget that was exceeded.
        limit: usize,
    },

    /// A notes reference another clone wrote points at a commit whose tree holds something that
    /// is neither a note nor a fan-out directory: no notes commit (a branch's, most likely).
    #[error(
        "{notes_ref} points at {commit}, whose tree holds {entry}, neither a note nor a fan-out directory: it is no notes commit (a branch's commit, most likely), so it is not read as notes"
    )]
    NotANotesCommit {
        /// The notes reference.
        notes_ref: String,
        /// The commit it points at.
        commit: ObjectId,
        /// The first entry that is no note, quoted.
        entry: String,
    },

    /// The notes tree is built to make a reader walk it over and over: one tree object reached
    /// twice, or a lookup that needs more trees than any tree git writes.
    #[error(
        "the notes tree of {notes_ref} is not one git writes ({reason}): refusing to read it; inspect it with `git ls-tree {}` and reset the ref to a good notes commit",
        shell_word(.notes_ref)
    )]
    NotesTreeHostile {
        /// The notes reference.
        notes_ref: String,
        /// What was found.
        reason: String,
    },

    /// Our reading of the notes tree and gix's editing disagree about an existing note.
    #[error(
        "the notes tree of {notes_ref} has a layout we cannot edit safely for {annotated}: inspect it with `git ls-tree -r {}`",
        shell_word(.notes_ref)
    )]
    NotesLayout {
        /// The notes reference.
        notes_ref: String,
        /// The annotated object.
        annotated: ObjectId,
    },

    /// Other writers kept moving the notes reference.
    #[error(
        "gave up updating {name} after {tries} concurrent changes by other writers: try again when they are done"
    )]
    Contention {
        /// The reference.
        name: String,
        /// How many attempts were made.
        tries: usize,
    },

    /// The notes reference exists but cannot take a note. Its repair never deletes it: deleting
    /// a symbolic one through git (`git update-ref -d`) would delete what it points at, and every
    /// note there.
    #[error("{}", notes_ref_unusable(.name, .target, .reason, *.fault))]
    NotesRefUnusable {
        /// The notes reference.
        name: String,
        /// What it points at (a reference name or an object id).
        target: String,
        /// Why that cannot hold notes.
        reason: String,
        /// Which way it is wrong, which decides the repair.
        fault: NotesRefFault,
    },

    /// A file-system operation failed.
    #[error("could not {action} {}: {source}", .path.display())]
    Io {
        /// What was attempted.
        action: &'static str,
        /// Where.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },

    /// The `git` program (run for remotes, promisor fetches and the patches of changes) failed or could not run.
    /// git's own words stay on the error's line, each newline escaped (`\n`).
    #[error("{action} failed{}: {}", exit_status(.status), if .stderr.is_empty() { "git printed nothing".into() } else { one_line(.stderr) })]
    GitCommand {
        /// What was attempted (`git fetch origin`, ...).
        action: String,
        /// The exit code (`None`: it could not run, or was killed).
        status: Option<i32>,
        /// What git printed on stderr (or why it could not run).
        stderr: String,
    },

    /// A remote that is not configured was named.
    #[error("{}", unknown_remote(.name))]
    UnknownRemote {
        /// The name as given.
        name: String,
    },

    /// A configured remote whose name git takes in `git push` but not in a reference name (`git
    /// check-ref-format`, which `git remote add` applies), or one git reads as an option: its
    /// evidence cannot be kept in `refs/notes/remotes/<remote>/` and `refs/speccoder-remotes/<remote>/`.
    #[error(
        "the remote `{}` is configured, but its name cannot be part of a reference name (`git remote add` refuses it too), and the remote's evidence is kept in refs/notes/remotes/<remote>/ and refs/speccoder-remotes/<remote>/: rename it with `git remote rename -- {} <new-name>`, then run the command again with the new name; nothing was changed",
        one_line(.name),
        shell_word(.name)
    )]
    RemoteNameUnusable {
        /// The name as configured.
        name: String,
    },

    /// The remote a branch's configuration names (`branch.<name>.remote`, `branch.<name>.pushRemote`,
    /// `remote.pushDefault`) is not UTF-8: it is run through git and built into reference names as
    /// text, and a text with U+FFFD in place of its bytes would name another remote.
    #[error(
        "`{key}` names the remote {name}, a name that is not UTF-8 (each such byte shown as \\xNN), and speccoder runs a remote only by its exact name, so it refuses it; nothing was sent: rename the remote (`git remote rename -- {word} <new-name>`, which renames it in `{key}` too), or name another remote on the command line, then run the command again"
    )]
    RemoteNameNotUtf8 {
        /// The key that names it, a subsection not UTF-8 shown as the name is.
        key: String,
        /// The name, each byte that is not UTF-8 escaped ([`crate::model::shown::bytes_shown`]).
        name: String,
        /// The name as a shell reads it back ([`crate::model::shown::shell_bytes_word`]).
        word: String,
    },

    /// An attributes file of a tree (`.gitattributes`, by its path in the tree; several, joined,
    /// when gix cannot say which) that cannot be read: more than git reads of one, or its blob
    /// missing or corrupt.
    #[error("the attributes file `{}` of the tree cannot be read: {reason}", one_line(.path))]
    TreeAttributes {
        /// Its path in the tree.
        path: String,
        /// Why it cannot be read.
        reason: String,
    },

    /// A file gix would open for speccoder (git's configuration, the index, `packed-refs`, an
    /// attributes file) is not a regular file of a bounded size: gix would block on a FIFO, or
    /// read a device without end.
    #[error(
        "{} {} is not read: {reason}; speccoder reads it only as a regular file of a bounded size (a FIFO would block it, a device be read without end): {}, then run the command again",
        .file.what(), one_line(&.path.to_string_lossy()), .file.remedy()
    )]
    UnusableFile {
        /// The file.
        path: PathBuf,
        /// What it is to git.
        file: super::git_file::GitFile,
        /// Why it was not read.
        reason: String,
    },

    /// A configuration value git would refuse too.
    #[error(
        "configuration `{key}` is `{value}`, which git does not accept ({expected}): fix it with `git config {key} <value>`"
    )]
    BadConfig {
        /// The key.
        key: &'static str,
        /// Its value.
        value: String,
        /// What it may be.
        expected: &'static str,
    },

    /// A configuration value that must be text is set to bytes that are not UTF-8.
    #[error(
        "configuration `{key}` is set, but its value is not UTF-8 text, which speccoder needs to use it; nothing was written: set it again in UTF-8 (`git config {} <value>`), then run the command again",
        shell_word(.key)
    )]
    ConfigNotText {
        /// The key.
        key: String,
    },

    /// A configuration key read as a string whose last entry is the key alone, without a value
    /// (`git -c key`, a line `key` without `=` in a file): git refuses it ("missing value for").
    #[error(
        "configuration `{key}` is given without a value ({origin}), and git refuses a key given alone where it needs a value (\"missing value for '{key}'\"); so does speccoder, rather than take a value set before it: give it a value (`{key}=<value>`) or remove that entry, then run the command again"
    )]
    ConfigWithoutValue {
        /// The key, a subsection not UTF-8 shown with each such byte escaped.
        key: String,
        /// Where the entry is set (a file, the command line).
        origin: String,
    },

    /// A gix operation failed for a reason not covered above: gix's error and each of its causes.
    #[error("could not {action}: {}", with_causes(.source))]
    Gix {
        /// What was attempted.
        action: String,
        /// What gix reported.
        #[source]
        source: gix::Error,
    },
}

impl ExitClass for GitError {
    /// Decided here once for every command: a name the command line gave that does not resolve
    /// is usage; a repository the command cannot work in (not one, held locks, moved or unusable
    /// references, missing objects, a remote git could not reach, an index that cannot be read or
    /// written as a tree, a work-tree path through a link) is its state; an identity, a
    /// configuration value or a conversion git's settings break, and an object too large or
    /// damaged to read, is configuration or input; the rest is ours.
    fn class(&self) -> Class {
        match self {
            GitError::UnknownRevision { .. }
            | GitError::NotACommit { .. }
            | GitError::AmbiguousRevision { .. }
            | GitError::UnknownRemote { .. }
            | GitError::RemoteNameUnusable { .. } => Class::Usage,
            GitError::Discover { .. }
            | GitError::BeyondCeiling { .. }
            | GitError::GitFileNamesNone { .. }
            | GitError::Open { .. }
            | GitError::DubiousOwnership { .. }
            | GitError::Extension { .. }
            | GitError::GitDirWithoutWorkTree { .. }
            | GitError::SharedRepository { .. }
            | GitError::Permission { .. }
            | GitError::NoRoom { .. }
            | GitError::NoWorkTree { .. }
            | GitError::UnbornHead { .. }
            | GitError::ObjectMissing { .. }
            | GitError::WrongKind { .. }
            | GitError::RefMoved { .. }
            | GitError::HeadMoved { .. }
            | GitError::RefNameNotUtf8 { .. }
            | GitError::RemoteNameNotUtf8 { .. }
            | GitError::RefLocked { .. }
            | GitError::IndexLocked { .. }
            | GitError::FetchLocked { .. }
            | GitError::Contention { .. }
            | GitError::NotesRefUnusable { .. }
            | GitError::AmbiguousNote { .. }
            | GitError::NotesTreeHostile { .. }
            | GitError::NotesTreeTooLarge { .. }
            | GitError::NotANotesCommit { .. }
            | GitError::NoteTooLarge { .. }
            | GitError::Unmerged { .. }
            | GitError::IndexUnreadable { .. }
            | GitError::InvalidIndex { .. }
            | GitError::NotAFile { .. }
            | GitError::UnsafeWorktreePath { .. }
            | GitError::DirectoryInTheWay { .. }
            | GitError::GitCommand { .. } => Class::GitPrecondition,
            GitError::IdentityMissing { .. }
            | GitError::EmptyIdentityName { .. }
            | GitError::BadDate { .. }
            | GitError::Convert { .. }
            | GitError::RequiredFilterWithoutCommand { .. }
            | GitError::UnsupportedEncoding { .. }
            | GitError::BadConfig { .. }
            | GitError::CommandConfig { .. }
            | GitError::ConfigNotText { .. }
            | GitError::ConfigWithoutValue { .. }
            | GitError::ObjectTooLarge { .. }
            | GitError::TreeAttributes { .. }
            | GitError::CorruptObject { .. } => Class::Config,
            GitError::UnusableFile { file, .. } => file.class(),
            GitError::Shallow(cut) => cut.class(),
            GitError::InvalidPath { .. }
            | GitError::InvalidRefName { .. }
            | GitError::PathConflict { .. }
            | GitError::NotesLayout { .. }
            | GitError::Io { .. }
            | GitError::Gix { .. } => Class::Internal,
        }
    }
}

/// A partial clone's filter that leaves trees on its promisor remote ([`GitError::ObjectMissing`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeFilter {
    /// The promisor remote.
    pub remote: String,
    /// Its filter (`remote.<remote>.partialCloneFilter`), as configured.
    pub filter: String,
}

impl TreeFilter {
    /// Whether the filter `spec` leaves trees out, as git reads it: `tree:<depth>`, or
    /// `object:type=` of another type, alone or in a `combine:` (`blob:none`, `blob:limit` and
    /// `sparse:oid` leave file contents only).
    #[must_use]
    pub fn leaves_trees(spec: &str) -> bool {
        let spec = spec.trim().to_ascii_lowercase();
        let parts =
            spec.strip_prefix("combine:").map_or_else(|| vec![spec.as_str()], |c| c.split('+').collect());
        parts.iter().any(|part| {
            part.starts_with("tree:") || part.strip_prefix("object:type=").is_some_and(|kind| kind != "tree")
        })
    }
}

/// What [`GitError::ObjectMissing`] says: in a partial clone that leaves trees on its promisor
/// remote, that filter and the commands that fetch the trees and keep them; else fetch or repair.
fn object_missing(id: &ObjectId, tree_filter: Option<&TreeFilter>) -> String {
    let Some(TreeFilter { remote, filter }) = tree_filter else {
        return format!(
            "object {id} is missing from the repository: fetch it or repair the repository (`git fsck`)"
        );
    };
    let key = shell_word(&format!("remote.{remote}.partialCloneFilter"));
    format!(
        "object {id} is missing from this partial clone, whose filter `{filter}` (remote.{remote}.partialCloneFilter) leaves the trees of the history on the promisor remote {remote}: speccoder fetches the files it reads from there, not the trees of the commits it checks. Fetch the trees once and keep them: `git config {key} blob:none`, then `git fetch --refetch {}` (git 2.36 or later), and run the command again",
        shell_word(remote)
    )
}

/// Which way a notes reference cannot take a note ([`GitError::NotesRefUnusable`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotesRefFault {
    /// It is a symbolic reference, naming another reference.
    Symbolic,
    /// It points at an object that is not a notes commit (another kind, or one not there).
    NotACommit,
    /// Its file cannot be read, by git either.
    Damaged,
}

/// What [`GitError::NotesRefUnusable`] says: what is wrong, and the repair that keeps every note;
/// for a symbolic reference, the commands that change the link alone, never what it names.
fn notes_ref_unusable(name: &str, target: &str, reason: &str, fault: NotesRefFault) -> String {
    let name_w = shell_word(name);
    match fault {
        NotesRefFault::Symbolic => {
            let target_w = shell_word(target);
            format!(
                "the notes reference {name} is a symbolic reference to {target}, and a notes reference must point directly at a notes commit. `git symbolic-ref {name_w}` shows where it points; to keep the notes {target} holds as speccoder's, make {name} point at its notes commit directly (`{}`), or remove the link alone (`git symbolic-ref --delete {name_w}`); deleting {name} with `git update-ref` without `--no-deref` would delete {target} and every note in it",
                set_ref_command(name, &target_w)
            )
        }
        NotesRefFault::NotACommit => format!(
            "the notes reference {name} points at {target}: {reason}; a notes reference must point directly at a notes commit. Point it back at the notes commit it held before: `git rev-parse {name_w}@{{1}}` names what it held before its last change (`@{{2}}` the one before), and `{}` puts it back",
            set_ref_command(name, "<that commit>")
        ),
        NotesRefFault::Damaged => format!(
            "the notes reference {name} cannot be read ({reason}), by git either, which can neither update nor remove it. Repair its file by hand: the last line of its log (`logs/{name}` in the git directory) names, as its second id, the notes commit it last held; write that id, alone on a line, into `{name}` in the git directory in place of what is there"
        ),
    }
}

/// What [`GitError::Extension`] says: the key, why speccoder will not work in the repository (as
/// git refuses it, or as it cannot keep what the key asks), and the `git config` that repairs it
/// or the clone to work in.
fn extension_refused(git_dir: &Path, refusal: &ExtensionRefusal) -> String {
    let config = shell_word(&git_dir.join("config").to_string_lossy());
    let dir = git_dir.display();
    let unset = |key: &str| format!("`git config --file {config} --unset-all {}`", shell_word(key));
    match refusal {
        ExtensionRefusal::Version { version } => format!(
            "the git repository {dir} is of format version {version} (core.repositoryFormatVersion), past the 1 git and speccoder read: git refuses to work in it, and so does speccoder; nothing was read or written. Use the tool that made it"
        ),
        ExtensionRefusal::Unknown { key } => format!(
            "the git repository {dir} sets `{key}`, a repository extension speccoder does not know (nor does git 2.47: \"unknown repository extension found\"): at core.repositoryFormatVersion 1 a tool must refuse an extension it does not know, as it cannot keep what the extension asks, so speccoder refuses the repository and nothing was read or written. If it was set by mistake, remove it ({}); otherwise work in this repository with the tool that set it",
            unset(key)
        ),
        ExtensionRefusal::VersionZero { key } => format!(
            "the git repository {dir} sets `{key}`, an extension git reads only at core.repositoryFormatVersion 1, and the version is 0: git refuses to work in it (\"repo version is 0, but v1-only extension found\"), and so does speccoder; nothing was read or written. If the repository was made with that extension, set the version it needs (`git config --file {config} core.repositoryFormatVersion 1`); if not, remove it ({})",
            unset(key)
        ),
        ExtensionRefusal::Invalid { key, value, why } => format!(
            "the git repository {dir} sets `{key}`{}, which {why}: git refuses to work in it, and so does speccoder; nothing was read or written. Correct the value (`git config --file {config} --replace-all {} <value>`) or remove it ({})",
            value.as_ref().map(|v| format!(" = {}", one_line(v))).unwrap_or_default(),
            shell_word(key),
            unset(key)
        ),
        ExtensionRefusal::RefStorage { format } => format!(
            "the git repository {dir} stores its references as `{format}` (extensions.refStorage), which speccoder cannot read: it supports the `files` format only. Convert the repository with `git refs migrate --ref-format=files` (git 2.48 or later; git 2.46 and 2.47 refuse a repository with reflogs or linked worktrees), or work in a clone made in the files format (`git clone --ref-format=files {} <dir>`, then `speccoder attest fetch` for the evidence), then run the command again",
            shell_word(&git_dir.to_string_lossy())
        ),
        ExtensionRefusal::ObjectFormat { format } => format!(
            "the git repository {dir} stores its objects as {format} (extensions.objectFormat): speccoder reads SHA-1 repositories only; nothing was read or written"
        ),
        ExtensionRefusal::CompatObjectFormat { key, format } => format!(
            "the git repository {dir} keeps a second object format (`{key} = {format}`): git records every object it writes under its {format} name too (in objects/loose-object-idx), speccoder cannot, and git would then fail on the objects speccoder wrote (\"Failed to convert object\"), so nothing was written. `speccoder attest verify` reads the repository as it is; to write, work in a clone, which git makes without the second format (`git clone {} <dir>`, then `speccoder attest fetch` there), and push from it (`speccoder attest push`)",
            shell_word(&git_dir.to_string_lossy())
        ),
    }
}

/// What [`GitError::UnknownRemote`] says of `name`, a remote as given: the name, and the command
/// that adds it, only when it passes the clean check, for a push URL given in its place can hold a
/// password.
fn unknown_remote(name: &str) -> String {
    let advice = "see `git remote -v`, or add it with `git remote add";
    match clean::check_str(name) {
        Ok(()) => {
            format!(
                "no remote named `{}` is configured: {advice} {} <url>`",
                one_line(name),
                shell_word(name)
            )
        }
        Err(leak) => {
            format!("no remote named {} is configured: {advice} <name> <url>`", clean::not_shown(&leak))
        }
    }
}

fn exit_status(status: &Option<i32>) -> String {
    status.map(|code| format!(" (exit {code})")).unwrap_or_default()
}

fn show(id: &Option<ObjectId>) -> String {
    id.map_or_else(|| "no reference".to_owned(), |id| id.to_string())
}

/// Attaching an action to gix results.
pub(crate) trait GixResultExt<T> {
    /// Turn a gix error into [`GitError::Gix`] describing `action`.
    fn during(self, action: impl FnOnce() -> String) -> Result<T, GitError>;
}

impl<T, E: Into<gix::Error>> GixResultExt<T> for Result<T, E> {
    fn during(self, action: impl FnOnce() -> String) -> Result<T, GitError> {
        self.map_err(|source| GitError::gix(action(), source.into(), None))
    }
}

impl GitError {
    /// What the failure `source` of gix while doing `action` means: [`GitError::Permission`] when
    /// the operating system refused a read or write ([`access_refused`]), [`GitError::NoRoom`] when
    /// the file system had no room for a write ([`out_of_room`]), each at the directory of the
    /// path gix names (else of `at`, the file the caller was reading or writing), else
    /// [`GitError::Gix`].
    pub(crate) fn gix(action: String, source: gix::Error, at: Option<&Path>) -> GitError {
        let path = named_path(&source).or(at.map(Path::to_owned));
        let cause = with_causes(&source);
        match path {
            Some(path) if access_refused(&source) => {
                GitError::Permission { action, path: refused_at(&path), cause }
            }
            path if out_of_room(&source) => {
                GitError::NoRoom { action, path: path.map(|p| refused_at(&p)), cause }
            }
            _ => GitError::Gix { action, source },
        }
    }
}

/// Whether the operating system refused `source` a read or a write: permission denied, or a
/// read-only file system (which gix does not classify).
pub(crate) fn access_refused(source: &gix::Error) -> bool {
    let read_only = |e: &std::io::Error| e.kind() == std::io::ErrorKind::ReadOnlyFilesystem;
    source.is_permission_denied()
        || source.iter_errors().filter_map(|e| e.downcast_ref::<std::io::Error>()).any(read_only)
}

/// Whether the file system had no room for a write of `source` ([`no_room`]).
pub(crate) fn out_of_room(source: &gix::Error) -> bool {
    source.iter_errors().filter_map(|e| e.downcast_ref::<std::io::Error>()).any(|e| no_room(e.kind()))
}

/// Whether an error of `kind` says the file system had no room for a write: a full disk
/// (`ENOSPC`), a full quota (`EDQUOT`), or a file past the process's size limit (`EFBIG`).
fn no_room(kind: std::io::ErrorKind) -> bool {
    use std::io::ErrorKind::{FileTooLarge, QuotaExceeded, StorageFull};
    matches!(kind, StorageFull | QuotaExceeded | FileTooLarge)
}

/// The innermost path gix records in `source` (its `path` value: an object directory, a reflog).
fn named_path(source: &gix::Error) -> Option<PathBuf> {
    let path = |values: &gix::error::Metadata| match values.get("path") {
        Some(gix::error::MetadataValue::Path(path)) => Some(path.clone()),
        _ => None,
    };
    source.metadata().filter_map(path).last()
}

/// `path` when it is a file this user may not read (what refused a read), else the nearest
/// directory there is at or above it (a lock file that could not be made is not there; a
/// directory on its way may not be either), as an absolute path, so that a message naming it
/// holds wherever it is read.
fn refused_at(path: &Path) -> PathBuf {
    let unreadable_file = crate::input::open_regular_sized(path, u64::MAX)
        .is_err_and(|e| e.into_io().kind() == std::io::ErrorKind::PermissionDenied)
        && path.symlink_metadata().is_ok_and(|meta| meta.is_file());
    let there =
        if unreadable_file { path } else { path.ancestors().find(|dir| dir.is_dir()).unwrap_or(path) };
    std::path::absolute(there).unwrap_or(there.to_owned())
}

impl GitError {
    /// The object the repository lacks, when that is the failure.
    #[must_use]
    pub fn missing_object(&self) -> Option<ObjectId> {
        match self {
            GitError::ObjectMissing { id, .. } => Some(*id),
            _ => None,
        }
    }

    /// The object the repository holds but cannot decode, when that is the failure.
    #[must_use]
    pub fn corrupt_object(&self) -> Option<ObjectId> {
        match self {
            GitError::CorruptObject { id, .. } => Some(*id),
            _ => None,
        }
    }
}

/// Attaching a path and action to I/O results: [`GitError::Permission`], at the nearest directory
/// there is, when the operating system refused the read or write, [`GitError::NoRoom`] there when
/// the file system had no room for it, else [`GitError::Io`].
pub(crate) fn io_error(
    action: &'static str,
    path: impl Into<PathBuf>,
) -> impl FnOnce(std::io::Error) -> GitError {
    let path = path.into();
    move |source| match source.kind() {
        std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem => {
            let action = format!("{action} {}", path.display());
            GitError::Permission { action, path: refused_at(&path), cause: source.to_string() }
        }
        kind if no_room(kind) => {
            let path = Some(refused_at(&path));
            GitError::NoRoom { action: action.to_owned(), path, cause: source.to_string() }
        }
        _ => GitError::Io { action, path, source },
    }
}

/// Which way a file is converted.
#[derive(Clone, Copy, Debug)]
pub enum Conversion {
    /// From the work tree into git's form (`git add`: "clean").
    ToGit,
    /// From git's form into the work tree's (`git checkout`: "smudge").
    ToWorktree,
}

impl std::fmt::Display for Conversion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Conversion::ToGit => "from the work tree into git's form",
            Conversion::ToWorktree => "from git's form into the work tree's",
        })
    }
}

/// " and X and Y", naming the other lock files of [`GitError::IndexLocked`], or nothing.
fn also_left(others: &[PathBuf]) -> String {
    others.iter().map(|lock| format!(" and {}", lock.display())).collect()
}

/// A shallow clone whose history the check needs is cut off.
#[derive(Debug, thiserror::Error)]
#[error(
    "this clone is shallow (its history stops at {boundary}) and {why}: fetch the whole history (`git fetch --unshallow`, or `fetch-depth: 0` for actions/checkout) and run again"
)]
pub struct ShallowCut {
    /// A commit at the shallow boundary.
    pub boundary: String,
    /// What the check needs beyond it.
    pub why: String,
}

impl ExitClass for ShallowCut {
    /// The repository's state, whichever command found it.
    fn class(&self) -> Class {
        Class::GitPrecondition
    }
}

#[cfg(test)]
mod tests {
    //! Errors must cross threads: the verifier checks task commits on several.

    #[test]
    fn a_path_or_name_in_an_advised_command_is_one_shell_word() {
        use crate::git::{ExtensionRefusal, GitError};
        let hostile = std::path::PathBuf::from("/tmp/rs $(touch${IFS}P);x/.git");
        let errors = [
            GitError::Extension {
                git_dir: hostile.clone(),
                refusal: Box::new(ExtensionRefusal::RefStorage { format: "reftable".into() }),
            },
            GitError::Extension {
                git_dir: "/tmp/r/.git".into(),
                refusal: Box::new(ExtensionRefusal::Unknown { key: "extensions.o$(id).x".into() }),
            },
            GitError::DirectoryInTheWay { path: "specs/a$(id)/.tasks.md.speccoder-new".into() },
            GitError::Permission { action: "read x".into(), path: hostile, cause: "denied".into() },
            GitError::UnknownRemote { name: "o$(id)".into() },
        ];
        for error in errors {
            let said = error.to_string();
            let commands = said.split('`').skip(1).step_by(2).filter(|q| q.contains(' ') && q.contains("$("));
            for command in commands {
                assert!(
                    command.contains("'/tmp/rs $(")
                        || command.contains("'specs/a$(")
                        || command.contains("'o$(")
                        || command.contains("'extensions.o$("),
                    "{command}"
                );
            }
        }
    }

    #[test]
    fn a_remote_given_as_a_url_with_a_password_is_named_by_what_it_holds() {
        use crate::git::GitError;
        let url = "https://ci:S3cr3tPassw0rdQ9@git.example.net/x.git";
        let said = GitError::UnknownRemote { name: url.into() }.to_string();
        assert!(!said.contains("S3cr3t"), "{said}");
        assert!(
            said.starts_with(
                "no remote named (a value not shown, as it holds a URL with a user name and password) is configured"
            ),
            "{said}"
        );
        let said = GitError::UnknownRemote { name: "upstream".into() }.to_string();
        assert!(said.starts_with("no remote named `upstream` is configured"), "{said}");
        assert!(said.ends_with("`git remote add upstream <url>`"), "{said}");
    }

    #[test]
    fn a_filter_leaves_trees_when_git_would_leave_them_on_the_promisor_remote() {
        use crate::git::TreeFilter;
        for spec in ["tree:0", "tree:3", "combine:blob:none+tree:1", "object:type=blob", "TREE:0"] {
            assert!(TreeFilter::leaves_trees(spec), "{spec}");
        }
        for spec in ["blob:none", "blob:limit=1m", "sparse:oid=main:.sparse", "object:type=tree", ""] {
            assert!(!TreeFilter::leaves_trees(spec), "{spec}");
        }
    }

    #[test]
    fn git_errors_can_cross_threads() {
        fn send_sync<T: Send + Sync + 'static>() {}
        send_sync::<crate::git::GitError>();
    }

    #[test]
    fn a_read_only_file_system_is_a_refused_write_named_at_the_directory_gix_names() {
        use gix::error::{ErrorExt, Message};
        let dir = tempfile::tempdir().unwrap();
        let os = std::io::Error::from(std::io::ErrorKind::ReadOnlyFilesystem);
        let source =
            os.and_raise(Message::new("Could not create temporary object file").with("path", dir.path()));
        let e = crate::git::GitError::gix("write a blob".into(), source, None);
        let crate::git::GitError::Permission { path, cause, .. } = &e else { panic!("{e:?}") };
        assert_eq!(path, dir.path());
        assert!(
            cause.contains(&std::io::Error::from(std::io::ErrorKind::ReadOnlyFilesystem).to_string()),
            "{e}"
        );
        assert_eq!(crate::exit::ExitClass::class(&e), crate::exit::Class::GitPrecondition);
    }

    #[test]
    fn a_file_the_os_refuses_is_a_refused_read_or_write_named_at_its_directory_not_an_internal_error() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(".tasks.md.speccoder-new");
        let os = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        let e = super::io_error("write", &file)(os);
        let crate::git::GitError::Permission { action, path, .. } = &e else { panic!("{e:?}") };
        assert_eq!(
            (action.as_str(), path.as_path()),
            (format!("write {}", file.display()).as_str(), dir.path())
        );
        assert_eq!(crate::exit::ExitClass::class(&e), crate::exit::Class::GitPrecondition);
        let other = super::io_error("write", &file)(std::io::Error::other("the disk is on fire"));
        assert!(matches!(other, crate::git::GitError::Io { .. }), "{other:?}");
    }

    /// `ENOSPC`, `EDQUOT` and `EFBIG` as the operating system reports them.
    fn no_room_errors() -> [std::io::Error; 3] {
        [28, 122, 27].map(std::io::Error::from_raw_os_error)
    }

    #[test]
    fn a_full_disk_a_full_quota_or_a_file_size_limit_is_the_environment_s_not_an_internal_error() {
        use gix::error::{ErrorExt, Message};
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("index.lock");
        for os in no_room_errors() {
            let shown = os.to_string();
            let e = super::io_error("write the index", &file)(os);
            let crate::git::GitError::NoRoom { path, cause, .. } = &e else { panic!("{e:?}") };
            assert_eq!((path.as_deref(), cause.as_str()), (Some(dir.path()), shown.as_str()));
            assert_eq!(crate::exit::ExitClass::exit_code(&e), crate::exit::GIT_PRECONDITION, "{e}");
            assert!(e.to_string().contains("make room"), "{e}");
        }
        for os in no_room_errors() {
            let source =
                os.and_raise(Message::new("Could not write loose object").with("path", file.as_path()));
            let e = crate::git::GitError::gix("write a blob".into(), source, None);
            assert!(
                matches!(&e, crate::git::GitError::NoRoom { path: Some(p), .. } if p == dir.path()),
                "{e:?}"
            );
            assert_eq!(crate::exit::ExitClass::exit_code(&e), crate::exit::GIT_PRECONDITION, "{e}");
        }
        // gix names no path where it writes through a writer it was handed (the index).
        let [os, ..] = no_room_errors();
        let e = crate::git::GitError::gix("write the index".into(), os.raise(), None);
        assert!(matches!(&e, crate::git::GitError::NoRoom { path: None, .. }), "{e:?}");
        assert_eq!(crate::exit::ExitClass::exit_code(&e), crate::exit::GIT_PRECONDITION, "{e}");
    }

    #[test]
    fn a_failure_of_gix_shows_the_cause_below_its_outermost_step() {
        use gix::error::{ErrorExt, message};
        let source = std::io::Error::other("the disk is on fire").and_raise(message("Could not write"));
        let e = crate::git::GitError::gix("write a blob".into(), source, None);
        assert!(matches!(e, crate::git::GitError::Gix { .. }), "{e:?}");
        assert_eq!(e.to_string(), "could not write a blob: Could not write: the disk is on fire");
    }

    #[test]
    fn git_s_words_in_an_error_stay_on_its_line() {
        let e = crate::git::GitError::GitCommand {
            action: "fetch the missing objects".to_owned(),
            status: Some(128),
            stderr: "fatal: could not read from remote repository.\n\nPlease make sure you have access"
                .to_owned(),
        };
        let shown = e.to_string();
        assert!(!shown.contains('\n'), "{shown}");
        assert!(shown.contains("repository.\\n\\nPlease make sure"), "{shown}");
    }
}
