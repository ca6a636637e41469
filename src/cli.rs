//! The command line: clap types only, no behaviour.
//!
//! The argument structs and subcommand enums carry plain comments, not doc comments: clap takes
//! those as the description of the subcommand they define, and with deferred subcommands
//! (`defer`) that would replace the one written on the enum variant.
//!
//! The doc comments here are `--help` text, printed as written: `<unit>` is a placeholder, a URL
//! is plain text and `[attest]` a table of `speccoder.toml`, none of them rustdoc's markup.
#![allow(rustdoc::invalid_html_tags, rustdoc::bare_urls, rustdoc::broken_intra_doc_links)]

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// speccoder's attestation side: sign what was proven about a task, and verify it again.
#[derive(Debug, Parser)]
#[command(name = "speccoder", version, about, long_about = None, after_help = EXIT_CODES)]
pub struct Cli {
    /// Run as if started in DIR. The repository is the one git would use there (GIT_DIR and
    /// GIT_WORK_TREE are honoured); another user's repository that safe.directory does not name,
    /// a repository extension git refuses, a reftable repository, and (for every command but
    /// `attest verify`) a repository with extensions.compatObjectFormat or core.sharedRepository
    /// set are refused with exit 14. Given more than once (before or after
    /// a command's name), each DIR is taken from the one before, as git's `-C a -C b` is `-C a/b`.
    #[arg(short = 'C', global = true, value_name = "DIR", action = clap::ArgAction::Append)]
    pub dir: Vec<PathBuf>,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The exit codes every command shares, as `speccoder --help` ends with them (each command's
/// `--help` names its own; a test holds both to docs/cli.md).
const EXIT_CODES: &str = concat!(
    "Exit codes, shared with speccoder's other commands: 0 ok, 1 internal error (or a report ",
    "stdout could not take), 2 usage (a bad ",
    "target, an unknown unit, task or revision), 13 configuration or input file, 14 repository ",
    "state, 15 nothing to check, 26 an attestation (or a generated file, or a held-out set) does ",
    "not hold."
);

// The subcommands. Each one's arguments are built only when it is the one run (`defer`): every
// run building every subcommand's arguments, `attest verify`'s seventeen among them, was a
// measurable part of a tick.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum Command {
    /// Write the JSON Schemas generated from the wire types, or check the committed ones.
    ///
    /// Exit codes: 0 written or up to date; 26 with `--check` when a file differs, is missing or
    /// cannot be read (each such file is named, with the command that regenerates them); 13 when
    /// DIR or a schema file cannot be written (something other than a directory at DIR; a symbolic
    /// link, a FIFO or a directory at a schema file's path: remove it first), naming that path; 2
    /// with `--json`, a DIR that is not UTF-8 (nothing is read or written); 1 internal error.
    Schema(SchemaArgs),
    /// Tick a finished task, commit it with trailers, and attach its signed evidence as a git note.
    ///
    /// `speccoder attest <unit>/<task> --evidence FILE` creates the task commit on the current
    /// branch (HEAD's tree, plus what is staged, plus the tick), builds one test-result statement per
    /// phase, the task-verification statement and the verification summary, signs each DSSE
    /// envelope and writes them as JSON Lines to the commit's note in refs/notes/speccoder.
    ///
    /// `speccoder attest <unit>/bug:<slug> --evidence FILE` closes the bug home
    /// `.specify/bugs/<slug>/` instead: the commit ticks nothing (HEAD's tree plus what is staged)
    /// and the task-verification's `bug.triad_sha256` anchors the home's three files.
    ///
    /// The signer is chosen like git's: --signer/--key, else `gpg.format=ssh` and `user.signingKey`.
    /// With no key configured at all the lines are written unsigned and `speccoder attest sign`
    /// signs them later; a signer named by --signer, or a configured key that cannot sign, stops
    /// the command (exit 13) before anything is written. With commit.gpgsign set, git's own key
    /// (gpg.format, user.signingKey) signs the task commit, never --key; without one that can
    /// sign, nothing is written (exit 13).
    ///
    /// A held_out phase must name a set the held-out store holds (`speccoder held-out store`;
    /// --held-out-store, else `<git common dir>/speccoder/held-out`), written for this very task,
    /// whose files still match its manifest; otherwise nothing is written (exit 13).
    ///
    /// Exit codes: 0 written; 2 bad target, unknown unit or task, a `--held-out-store` inside a
    /// work tree of the repository; 13 bad evidence (the field is named), a held_out phase naming a
    /// set the held-out store does not hold, that was stored for another task or whose files or
    /// manifest changed since (the digest is named), a `--held-out-store` that does not exist or is
    /// not a directory, spec file (a task id that appears more than once in `tasks.md` too: give
    /// each task its own id), bug home, `speccoder.toml` (signing keylessly, Sigstore URLs in
    /// `[attest.sigstore]` too; a unit of another format than its `[spec] format`), identity, signer, key or Sigstore service URL, `commit.gpgsign`
    /// set and git's own key unable to sign the commit, a statement that would leak, or a
    /// `tasks.md` conversion (line endings, a filter driver) that fails, a required filter driver
    /// that names no command for it (`filter.<driver>.required` without its `clean` or `smudge`
    /// command nor a `process` one), or a
    /// `working-tree-encoding` that cannot be written back as git writes it (such as
    /// `UTF-16BE-BOM`); 14 repository state: not a repository, detached HEAD, unborn branch, a
    /// branch whose name is not UTF-8 (named, with the `git branch -m` that renames it), a
    /// merge, cherry-pick, revert, rebase, `git am` or bisect in progress (finish or abort it
    /// first), the index or a reference (`packed-refs.lock` too) locked by another command for more
    /// than 5 s (the lock file is named), HEAD or the branch moved by another command while this one
    /// signed (another branch checked out, a commit made: nothing is published on either branch,
    /// nor staged; run it again), a full disk or quota or a file past the file-size limit (`ulimit
    /// -f`; before the task commit and its note are written the message says nothing was written,
    /// after it, as for a refused permission, that running the same command again finishes the
    /// tick), an index that cannot be read (a damaged one: the message says how to rebuild it from HEAD), task already ticked, a unit in the work tree but not
    /// committed or staged (untracked, or added with `git add -N` only: the message names its
    /// `tasks.md` and says `git add <unit dir>`), an index that lacks what HEAD holds (empty or
    /// missing, as a `GIT_INDEX_FILE` naming a new one leaves it: `git reset` fills it from HEAD; a
    /// unit HEAD holds removed from it: `git reset -- <unit dir>`), where a task commit made from
    /// it would delete what it lacks, a unit directory this user may not write (nothing written:
    /// the directory and the reason are named), a task of an archived OpenSpec change (or of one
    /// `openspec archive` moved in the work tree, not committed yet: commit it, or bring the
    /// change's directory back), bug closed
    /// already and unchanged, a staged task list that would untick a task HEAD ticks (the index
    /// lags behind HEAD, as a writer stopped after moving the branch leaves it: tick the box again
    /// in the file and stage it, which keeps your changes there; `git checkout HEAD -- <tasks.md>`
    /// brings it up but drops them) or tick another task than the one attested (a box ticked by
    /// hand and staged, which the task commit would hold without evidence: clear it in the file
    /// and stage that, or unstage another unit's list, `git restore --staged -- <tasks.md>`), a
    /// `tasks.md` outside the sparse checkout (`git sparse-checkout
    /// add <unit dir>` in cone mode; `git sparse-checkout add /<unit dir>/ /<unit dir>/tasks.md` in
    /// non-cone mode, which wins over a pattern that excludes the task list) or marked
    /// skip-worktree where no sparse checkout is configured (`git update-index --no-skip-worktree
    /// <tasks.md>`), unstaged `tasks.md` (one the index marks assume-unchanged, whose changes
    /// `git status` does not show and `git add` does not stage: `git update-index
    /// --no-assume-unchanged <tasks.md>` first) or one that is not a readable regular file (a link,
    /// a FIFO), or `tasks.md` edited in the work tree while the command ran (the tick is committed
    /// with its note and staged, and your edit is kept, never overwritten); 1 internal error.
    // A subcommand's name after `-C DIR` (a global option, so one of attest's) must still name
    // the subcommand: clap's `args_conflicts_with_subcommands` would take it as <UNIT/TASK>, so
    // main refuses attest's own options before a subcommand instead (`attest_options_before`).
    #[command(
        subcommand_negates_reqs = true,
        override_usage = "speccoder attest [OPTIONS] --evidence <FILE> <UNIT/TASK>\n       speccoder attest <COMMAND>"
    )]
    Attest(Box<AttestArgs>),
    /// Tick a task on a person's word, without test evidence (Verdict: attested).
    ///
    /// `speccoder accept <unit>/<task> --reason TEXT` ticks the task on the current branch in a
    /// commit with the trailers Spec-Task:, Verdict: attested, Accepted-By: and Reason:, and
    /// attaches one signed task-verification line with `decider {by, reason}` and no test evidence
    /// as its note. The name (--by, default git's user.name) is recorded as asserted: the verifier
    /// shows it, and only the signature says who signed. Staged changes are committed with it.
    /// The reason is at most 2000 characters and the name at most 200, each counted as the trailer
    /// carries it (runs of whitespace and control characters as one space, the ends trimmed, a
    /// bidirectional control or zero-width character as its escape); a reason that starts with `-`
    /// is given as --reason=-TEXT.
    ///
    /// Exit codes: 0 written; 2 bad target, unknown unit or task, a bug task, an empty reason or
    /// one longer than 2000 characters, an empty `--by` or one longer than 200 characters; 13 no
    /// name (no `--by` given and no `user.name`), a `user.name` (the default of `--by`) that holds
    /// no name that can be shown or is longer than 200 characters, a bad spec file (a task id that
    /// appears more than once in `tasks.md` too: give each task its own id), `speccoder.toml` (a
    /// unit of another format than its `[spec] format` too) or key (git's own key under
    /// `commit.gpgsign` too), a reason that would leak a secret or a local path, a `tasks.md`
    /// conversion (line endings, a filter driver, a required one that names no command for it, a
    /// `working-tree-encoding`) that fails or is refused; 14 repository state: detached HEAD,
    /// unborn branch, a branch whose name is not UTF-8 (named, with the `git branch -m` that
    /// renames it), a merge, cherry-pick, revert, rebase, `git am` or bisect in progress, the
    /// index locked by another command, an index that cannot be read, task already ticked (by an
    /// `attest` whose run stopped before updating the work tree too: that tick is finished, and no
    /// acceptance recorded), a task of an archived OpenSpec change (or of one `openspec archive`
    /// moved in the work tree, not committed yet: commit it, or bring the change's directory
    /// back), a unit in the work tree but not staged (named, with the `git add` that
    /// brings it in), a staged task list that would untick a task HEAD ticks or tick another task
    /// (a box ticked by hand and staged: named, with how to clear it), unstaged `tasks.md`
    /// (one the index marks assume-unchanged too: `git update-index --no-assume-unchanged
    /// <tasks.md>` first) or one that is not a readable regular file, or `tasks.md` edited in the work tree while the
    /// command ran (then, as for `attest`, the tick is committed with its note and staged, and your
    /// edit is kept in the work tree); 1 internal error. Otherwise nothing is written on any
    /// failure.
    Accept(AcceptArgs),
    /// Record that a task is skipped, without ticking it; --undo removes the record.
    ///
    /// `speccoder skip <unit>/<task> --reason TEXT` writes a commit of HEAD's tree that no branch
    /// holds, with the trailers Spec-Task:, Verdict: skipped, Skipped-By: and Reason: and a signed
    /// one-line `skipped` decision as its note, and points refs/speccoder/skipped/<unit>/<task> at
    /// it (unit and task escaped: every byte other than A-Z a-z 0-9 - _ becomes %XX). The branch
    /// and the task list do not change. `attest verify --branch` lists the skip as `skipped`, never
    /// as verified. `--undo` deletes the ref, and the published speccoder's spelling of it (the
    /// unit as it is, only % and : of the task escaped), by compare-and-swap, naming each. The
    /// reason and the name are held
    /// to the limits `accept` holds them to (2000 and 200 characters).
    ///
    /// Exit codes: 0 written or undone; 2 bad target, unknown unit or task, a bug task, an empty
    /// reason or one longer than 2000 characters, an empty `--by` or one longer than 200
    /// characters; 13 no name (no `--by` given and no `user.name`), a `user.name` (the default of
    /// `--by`) that holds no name that can be shown or is longer than 200 characters, a bad spec
    /// file (a task id that appears more than once in `tasks.md` too: give each task its own id),
    /// `speccoder.toml` (a unit of another format than its `[spec] format` too) or key (git's
    /// own key under `commit.gpgsign` too), a unit or task
    /// whose escaped name passes the 250 bytes a reference's name may hold; 14 the task is ticked
    /// at HEAD, a task of an archived OpenSpec change, for `--undo` too (its skip is part of what
    /// the closed change recorded: move the change back first; the skip of a unit HEAD has
    /// nowhere, removed or renamed, is undone), or of one `openspec archive` moved in the work
    /// tree, not committed yet (but for `--undo`: commit it, or bring the change's directory
    /// back), a unit in
    /// the work tree but not committed (named, with the `git add` and `git commit` that bring it
    /// in), a skip exists already (under either spelling), the skip ref's name holding the
    /// published speccoder's skip of another task, another reference in the way of the skip ref's
    /// name (named, with the `git update-ref --no-deref -d` that removes it alone), `--undo`
    /// without a skip, unborn branch, an index that cannot be read, a lock held by another command
    /// (the message names the lock file to remove if no such command is running); 1 internal
    /// error. Nothing is written on any failure.
    Skip(SkipArgs),
    /// Held-out test sets: store one outside the work tree, publish those closed tasks name.
    #[command(subcommand)]
    HeldOut(HeldOutSub),
    /// Git hooks that keep the evidence with the work: install them.
    #[command(subcommand)]
    Hooks(HooksSub),
    /// Sigstore's public-good trusted root: refresh the copy `attest verify` uses.
    #[cfg(feature = "sigstore")]
    #[command(subcommand)]
    Sigstore(SigstoreSub),
}

// Subcommands of `speccoder hooks`.
#[derive(Debug, Subcommand)]
pub enum HooksSub {
    /// Install a post-rewrite hook that runs `speccoder attest carry` after a rebase or an amend.
    ///
    /// Writes `post-rewrite` into the hooks directory git uses (`core.hooksPath`, relative to the
    /// work tree when relative, else `.git/hooks`). After `git commit --amend` and `git rebase`,
    /// git runs it with the rewritten commits; it runs `speccoder attest carry --rewritten`, which
    /// re-issues the evidence of each rewritten task commit for its new commit when the change is
    /// the same. It runs this `speccoder` by its full path, else the one on PATH; in a hooks
    /// directory inside a work tree of the repository (shared through the repository) only the
    /// one on PATH, so that the file names no one's own path. The hook is marked as speccoder's by its second
    /// line: installing again replaces it (and makes it executable again), and a hook that
    /// speccoder did not write is never overwritten (add the line `speccoder attest carry
    /// --rewritten` to it yourself); what is no hook file there (a directory, a FIFO, a link to
    /// nothing) is named, to be removed. A hooks directory reached through a symbolic link in a
    /// work tree of the repository (the main one or any linked one), which the repository may
    /// have committed, is refused, however the path spells it (`.git/../.githooks`).
    ///
    /// Exit codes: 0 installed, updated, unchanged or a link to speccoder's hook left as it is; 13
    /// a hooks path reached through a symbolic link in a work tree of the repository; 14 a `post-rewrite` hook
    /// speccoder did not write or something that is no hook file at its path, a hooks path that is
    /// not a directory or cannot be written, an empty `core.hooksPath` or one starting with
    /// `%(prefix)`; 2 with `--json`, a hook or program path that is not UTF-8 (nothing is
    /// written); 1 internal error.
    Install(HooksInstallArgs),
}

// `speccoder hooks install`.
#[derive(Debug, Args)]
pub struct HooksInstallArgs {
    /// Print one JSON object instead of the human summary.
    #[arg(long)]
    pub json: bool,
}

// Subcommands of `speccoder sigstore`.
#[cfg(feature = "sigstore")]
#[derive(Debug, Subcommand)]
pub enum SigstoreSub {
    /// Refresh the cached public-good trusted root through Sigstore's TUF repository now.
    ///
    /// Loads https://tuf-repo-cdn.sigstore.dev from the TUF root built into speccoder, verifies its
    /// signed metadata and their expiry, fetches the target trusted_root.json, checks it against
    /// its signed length and hashes, parses it, and writes it as parsed over
    /// $XDG_CACHE_HOME/speccoder/sigstore/trusted_root.json ($HOME/.cache/... without
    /// XDG_CACHE_HOME; a relative value of either is ignored) by an atomic rename, readable and
    /// writable by you alone, in directories that are yours alone (made so when they are yours;
    /// another user's is refused before fetching). Prints the path and the file's sha256. `attest verify` does the same by itself when it checks a keyless line and the cache
    /// is missing or older than a day.
    ///
    /// Run in a repository whose tree at HEAD provides the cache (a file there, a submodule at or
    /// above it, or a symbolic link on the way to it), it refuses it, as `attest verify` would.
    ///
    /// Exit codes: 0 refreshed; 13 the repository cannot be reached or does not verify, the cache
    /// cannot be written, or the tree at HEAD provides it (the cache is then unchanged); 2 with
    /// `--json`, a cache path that is not UTF-8 (nothing is fetched); 1 internal error.
    FetchRoot(FetchRootArgs),
}

// `speccoder sigstore fetch-root`.
#[cfg(feature = "sigstore")]
#[derive(Debug, Args)]
pub struct FetchRootArgs {
    /// Print one JSON object instead of the human summary.
    #[arg(long)]
    pub json: bool,
}

// `speccoder accept`.
#[derive(Debug, Args)]
pub struct AcceptArgs {
    /// The task: `<unit>/<task>`, e.g. `001-bookmark-tags/T002`.
    #[arg(value_name = "UNIT/TASK")]
    pub target: String,
    /// Why the task is accepted without tests (one line, at most 2000 characters; recorded in
    /// Reason: and signed). One that starts with `-`: --reason=-TEXT.
    #[arg(long, value_name = "TEXT")]
    pub reason: String,
    /// Who accepts it (default: git's user.name; at most 200 characters). Asserted, not proven.
    #[arg(long, value_name = "NAME")]
    pub by: Option<String>,
    /// How to sign, and how to report.
    #[command(flatten)]
    pub run: SignedRunArgs,
}

// `speccoder skip`.
#[derive(Debug, Args)]
pub struct SkipArgs {
    /// The task: `<unit>/<task>`, e.g. `001-bookmark-tags/T006`.
    #[arg(value_name = "UNIT/TASK")]
    pub target: String,
    /// Why the task is skipped (one line, at most 2000 characters; recorded in Reason: and
    /// signed). One that starts with `-`: --reason=-TEXT.
    #[arg(long, value_name = "TEXT", required_unless_present = "undo", conflicts_with = "undo")]
    pub reason: Option<String>,
    /// Who skips it (default: git's user.name; at most 200 characters). Asserted, not proven.
    #[arg(long, value_name = "NAME", conflicts_with = "undo")]
    pub by: Option<String>,
    /// Remove the skip of this task instead (deletes its ref under every spelling, by
    /// compare-and-swap).
    #[arg(long)]
    pub undo: bool,
    /// How to sign, and how to report.
    #[command(flatten)]
    pub run: SignedRunArgs,
}

// Subcommands of `speccoder held-out`.
#[derive(Debug, Subcommand)]
pub enum HeldOutSub {
    /// Copy a task's held-out test files into the local store and print the manifest digest.
    ///
    /// `speccoder held-out store <unit>/<task> DIR` copies every regular file under DIR into
    /// `<store>/<unit>/<key>/files/`, writes `<store>/<unit>/<key>/manifest.json` (version, task,
    /// run, each file's path and sha256; schema/held-out-manifest.schema.json) and prints
    /// `sha256:<hex>`, the manifest's digest and the set's key, which the evidence file's held_out
    /// phase names as `manifest`. Storing the same files again changes nothing. The store is
    /// `<git common dir>/speccoder/held-out` unless --store says otherwise; never inside a work
    /// tree of the repository (this one, the main one or a linked one of `git worktree add`).
    /// --store must name a directory, or a path where one can be created. A set holds at most
    /// 10,000 files of at most 64 MiB each (no limit on their total); files are copied one at a
    /// time, streamed, so memory stays small whatever the set's size. Names that differ only in
    /// letter case (A.rs, a.rs) or Unicode normalization (é composed or decomposed) are refused:
    /// a clone on macOS or Windows would hold only one of them.
    ///
    /// Exit codes: 0 stored (or stored already); 2 bad target, unknown unit or task, a store inside
    /// a work tree of the repository (named), with `--json` a store whose path is not UTF-8
    /// (nothing is stored); 13 DIR holds no files, more than 10,000 files, a file
    /// larger than 64 MiB, a symbolic link, a special file or an unusable name (not UTF-8, one git
    /// takes for `.git` or `.gitmodules` such as `GIT~1` or `.git.`, one Windows cannot hold, or
    /// two names that differ only in case or normalization), a manifest that would leak (an
    /// absolute local path in `--run`, such as `/home/alice/run`, or a token) or be larger than
    /// the 4 MiB every reader accepts (fewer files or shorter paths), a unit whose escaped name
    /// passes the 250 bytes a reference's name may hold (its set could never be published; see
    /// `skip`), or a damaged set
    /// with the same key exists; a `--store` that is not a directory (a regular file, `/dev/null`), a symbolic link to nothing (named, with what to do),
    /// or cannot be created, or a store that cannot be written, a `speccoder.toml` at HEAD that
    /// cannot be read or whose `[spec]` is malformed or names another format than the unit's; 14
    /// unborn branch; 1 internal error.
    Store(HeldOutStoreArgs),
    /// Publish the stored sets that closed tasks on HEAD name to refs/speccoder/held-out/<unit>.
    ///
    /// Every commit reachable from HEAD with Spec-Task: and Verdict: names a held-out set by its
    /// manifest digest (its held_out test-result line, its Held-Out: trailer). Such a commit closes
    /// its task for a set only when it is one plain claim of `verified` or `regression_only`, the
    /// task's box is ticked in its task list at HEAD, and its note agrees with it, verifies against
    /// your trust (the trust flags, as `attest approve` holds a note to them) and names the set in
    /// its held_out line: trailers and notes are anyone's to write, and a held-out set is released
    /// once. A set that only commits closing nothing name (an open task's, an unsigned or
    /// untrusted note's, a trailer's alone) is left unpublished and named with why (`not_closed`
    /// in --json), without failing the run. Each set a closing commit names in
    /// the store is checked against its manifest and added to one new commit per unit whose tree
    /// holds `<key>/manifest.json` and `<key>/files/...` for every published set. The ref only
    /// moves forward, by compare-and-swap, retried when another publisher moved it first;
    /// publishing again is a no-op. A set whose files no longer match its manifest is named as
    /// tampered and left out; a set named by a closed task other than the one its manifest was
    /// written for is named with both tasks, and left out unless its own task names it too; a
    /// named set the local store does not hold is named and left out (another clone may hold
    /// it); a stored set no closed task names stays local. The ref is read as `attest verify`
    /// reads it: a named set the ref holds with other bytes, or cannot read (its objects are
    /// missing), is named (`differs_on_ref`) and never called published; a ref whose tree is not
    /// as publish writes it (a name twice, entries out of git's order, anything but sets at its
    /// top) gets nothing added. Both say what to do.
    ///
    /// Exit codes: 0 published (or nothing to publish; a named set not in the local store is said
    /// so); 26 a named set was tampered, named by a task it was not written for, or held
    /// otherwise by the ref (`differs_on_ref`; the others were published, unless the ref's tree
    /// is not as publish writes it: then nothing was written); 2 unknown `--unit`, a store inside a
    /// work tree of the repository, with `--json` a store whose path is not UTF-8 (nothing is
    /// read); 13 a
    /// `--store` that does not exist, is a symbolic link to nothing, or is not a directory (the default store may be absent:
    /// nothing was stored yet), a trust file that cannot be used, no trust at all while a closed
    /// task names a set (nothing is written), a manifest that is not valid, would leak, or names a path outside
    /// its set or one `held-out store` refuses, or a symbolic link in a set (the message names the
    /// set and the path; nothing is written), a unit whose escaped name passes the 250 bytes a
    /// reference's name may hold (named; nothing is written), with `--unit`, a `speccoder.toml` at
    /// HEAD that cannot be read or whose `[spec]` is malformed or names another format than the
    /// unit's; 14 unborn branch, a shallow clone holding a stored
    /// set that no task commit above its boundary names (one below may: fetch the whole history;
    /// nothing is written), the ref kept moving or stayed locked (the message names the lock file
    /// to remove if no command holds it), a refs/speccoder/held-out/<unit> that names a blob, a
    /// tree or a tag instead of a commit (the message says how to point it back at its last commit
    /// or delete it; nothing is written); 1 internal error.
    Publish(HeldOutPublishArgs),
}

// `speccoder held-out store`.
#[derive(Debug, Args)]
pub struct HeldOutStoreArgs {
    /// The task the set is for: `<unit>/<task>` (a bug task `<unit>/bug:<slug>` too).
    #[arg(value_name = "UNIT/TASK")]
    pub target: String,
    /// The directory holding the held-out test files.
    #[arg(value_name = "DIR")]
    pub source: PathBuf,
    /// The run that uses the set (recorded in the manifest; refused if it would leak, as the
    /// evidence's run is).
    #[arg(long, value_name = "RUN")]
    pub run: Option<String>,
    /// The store (default: <git common dir>/speccoder/held-out).
    #[arg(long, value_name = "DIR")]
    pub store: Option<PathBuf>,
    /// Print one JSON object instead of the digest.
    #[arg(long)]
    pub json: bool,
}

// `speccoder held-out publish`.
#[derive(Debug, Args)]
pub struct HeldOutPublishArgs {
    /// Publish the sets of this unit only.
    #[arg(long, value_name = "UNIT")]
    pub unit: Option<String>,
    /// The store (default: <git common dir>/speccoder/held-out).
    #[arg(long, value_name = "DIR")]
    pub store: Option<PathBuf>,
    /// Print what would be published; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Whom you trust: a set is published only for a tick whose note verifies against it.
    #[command(flatten)]
    pub trust: TrustArgs,
    /// Print one JSON object instead of the human summary.
    #[arg(long)]
    pub json: bool,
}

// `speccoder attest`.
#[derive(Debug, Args)]
pub struct AttestArgs {
    /// Subcommands of attest.
    #[command(subcommand)]
    pub sub: Option<AttestSub>,
    /// The task: `<unit>/<task>`, e.g. `001-bookmark-tags/T005` or `add-tag-filter/1.2`.
    #[arg(value_name = "UNIT/TASK", required = true)]
    pub target: Option<String>,
    /// The evidence file the runner wrote (schema/evidence.schema.json).
    #[arg(long, value_name = "FILE", required = true)]
    pub evidence: Option<PathBuf>,
    /// The held-out store that holds the set the evidence's held_out phase names (default:
    /// <git common dir>/speccoder/held-out; never inside a work tree of the repository), as
    /// `held-out store --store` names it.
    #[arg(long, value_name = "DIR")]
    pub held_out_store: Option<PathBuf>,
    /// How to sign, and how to report.
    #[command(flatten)]
    pub run: SignedRunArgs,
}

// What every command that signs takes besides its own arguments.
#[derive(Debug, Args, Clone)]
pub struct SignedRunArgs {
    /// How to sign.
    #[command(flatten)]
    pub signing: SigningArgs,
    /// Print one JSON object instead of the human summary.
    #[arg(long)]
    pub json: bool,
}

// Signer selection, shared by every command that signs.
#[derive(Debug, Args, Clone)]
pub struct SigningArgs {
    /// ssh, openpgp, sigstore, none, or git (also auto: git's gpg.format and user.signingKey); else --key signs, else `[attest] signer` in speccoder.toml.
    #[arg(long, value_name = "BACKEND")]
    pub signer: Option<String>,
    /// The signing key. SSH: a private key file, a public key file whose key is in ssh-agent, or a
    /// `key::ssh-ed25519 AAAA...` literal. OpenPGP: a secret key file (signed in-process), or a
    /// key id, fingerprint or user id in gpg's keyring (signed by gpg). Overrides git's
    /// user.signingKey for the note's lines (never for a commit commit.gpgsign signs). Without
    /// --signer it signs whatever speccoder.toml says (`[attest] signer = "none"` or "sigstore",
    /// `sign_at = "later"`): as an SSH key where `[attest] signer` is "ssh", as an OpenPGP key
    /// where it is "openpgp", else as gpg.format says (unset: an SSH key means SSH, anything else
    /// OpenPGP).
    #[arg(long, value_name = "KEY")]
    pub key: Option<String>,
    /// Where keyless signing sends what.
    #[command(flatten)]
    pub sigstore: SigstoreArgs,
}

// The Sigstore services of keyless signing: the person signing chooses them, never speccoder.toml.
#[derive(Debug, Args, Clone)]
pub struct SigstoreArgs {
    /// Keyless signing: the Fulcio that receives your identity token (else
    /// SPECCODER_SIGSTORE_FULCIO_URL, else `git config speccoder.sigstore.fulcioUrl`, else
    /// https://fulcio.sigstore.dev). Never read from speccoder.toml.
    #[arg(long = "sigstore-fulcio-url", value_name = "URL")]
    pub fulcio_url: Option<String>,
    /// Keyless signing: the Rekor that logs the signature (else SPECCODER_SIGSTORE_REKOR_URL, else
    /// `git config speccoder.sigstore.rekorUrl`, else https://rekor.sigstore.dev).
    #[arg(long = "sigstore-rekor-url", value_name = "URL")]
    pub rekor_url: Option<String>,
    /// Keyless signing: the OIDC issuer of the interactive login (else
    /// SPECCODER_SIGSTORE_OIDC_ISSUER, else `git config speccoder.sigstore.oidcIssuer`, else
    /// https://oauth2.sigstore.dev/auth).
    #[arg(long = "sigstore-oidc-issuer", value_name = "URL")]
    pub oidc_issuer: Option<String>,
    /// Let the Sigstore URLs above be plain http to a loopback address (for tests); otherwise
    /// every one must be https.
    #[arg(long = "sigstore-allow-http-loopback")]
    pub allow_http_loopback: bool,
    /// Keyless signing: the Sigstore trusted root (trusted_root.json) of the instance you sign
    /// with; each bundle Fulcio and Rekor return is verified against it, as the token's identity
    /// and issuer, before anything is written, and signing fails (exit 13) when it does not (else
    /// SPECCODER_SIGSTORE_SIGNING_ROOT, else `git config speccoder.sigstore.signingRoot`, else the
    /// public-good root as `attest verify` resolves it).
    #[arg(long = "sigstore-signing-root", value_name = "FILE")]
    pub signing_root: Option<PathBuf>,
}

// Subcommands of `speccoder attest`, deferred like `Command`'s.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum AttestSub {
    /// Sign the lines of a task commit's note that lack your signature, leaving the payloads unchanged.
    ///
    /// Signs only a note that the commit's own checks accept (the verifier's claim check and
    /// agreement rules, unsigned lines allowed): one plain claim (no merge, one Spec-Task: and one
    /// Verdict:), every line about exactly this task at this commit, with its tree, task line,
    /// story text and policy, a summary naming exactly the other lines, and for a decision no field
    /// only a tick carries. Otherwise each failing line is named with its finding and nothing is
    /// signed.
    ///
    /// A line counts as signed only when one of its signatures verifies over it with your own
    /// signing key (checked as `attest verify` checks signatures; with an SSH certificate as the
    /// key, a signature made with that same certificate); otherwise your signature is added. Other signatures (another signer's, or ones that do not verify) are kept as they
    /// are, and the report names their lines. The report says how many lines were signed now and
    /// how many carried your signature already (`--json`: signed_now, signed_before,
    /// other_signatures); run again, it has nothing to sign and changes nothing. A keyless
    /// (Sigstore) signer signs the summary alone, and leaves a summary whose Sigstore bundle
    /// verifies as it is (a line holds one bundle).
    ///
    /// Exit codes: 0 signed (or nothing left to sign); 26 a line does not agree with the commit
    /// (nothing signed); 2 unknown revision; 13 bad key, no key configured (or `--signer none`),
    /// a `speccoder.toml` at HEAD whose `[attest]` turns attestation off or is malformed (or whose `[spec]` is); 14
    /// unborn branch, a shallow clone without the commit's parent (nothing signed), not a task
    /// commit (no Spec-Task:, or not one plain claim: not_one_claim), no note, a line to sign that already carries the 16 signatures a line may,
    /// or a keyless signer's summary carrying a Sigstore bundle that does not verify (nothing
    /// signed), or the notes ref locked by another command; 1 internal error.
    Sign(AttestSignArgs),
    /// Check task commits, or every ticked task of a branch, against your own trust.
    ///
    /// Without --branch: checks the task commits (those carrying Spec-Task:) among the commits
    /// named (REV alone is that one commit, `<rev>^!`: a REV that is no task commit leaves
    /// nothing to check, 15; A..B; default every commit on the current branch). With --branch: checks every ticked task of the
    /// units the branch touched since its base (their directory differs from the base's, or a
    /// commit since the base changed it; --all: every unit), including ticks without evidence,
    /// evidence left behind by a squash or rebase merge, and ticks set again after their task
    /// commit by another commit, a merge included (ticked_again).
    ///
    /// Trust comes only from you: --allowed-signers FILE (default git's
    /// gpg.ssh.allowedSignersFile) or --allowed-signers-rev REV:PATH, and --revoked FILE. A trust
    /// file that the checked tree itself provides is refused.
    ///
    /// In a clone: a shallow clone whose history the check needs is cut off stops with exit 14
    /// (fetch the whole history: `git fetch --unshallow`, or `fetch-depth: 0`); a clone with a
    /// remote and no refs/notes/speccoder at all stops with exit 14 (run `speccoder attest
    /// fetch`); a partial clone (`--filter=blob:none`) fetches the file contents the check needs
    /// from its promisor remote first, in one batch.
    ///
    /// A skip or a bug task is checked like a tick: a branch whose only rows are skips exits 0
    /// when they hold (26 under --require-verified).
    ///
    /// Where refs/speccoder/held-out/<unit> exists and holds the held-out set a tick names (its
    /// held_out line, its Held-Out: trailer), the published copy must be that set: its
    /// manifest.json hashes to the key, names the tick's own task, and files/ holds exactly the
    /// manifest's files; the set holds nothing else, the ref's top nothing but sets, and every
    /// tree is one git writes (no name twice, git's order); otherwise the tick fails (`mismatch`:
    /// `held_out_published_tampered`, `held_out_other_task`, `held_out_ref_unreadable`,
    /// `held_out_published_unreadable`). A ref that lacks the set is no failure.
    ///
    /// With a verifier policy (--policy FILE or --policy-rev REV:PATH, from outside the checked
    /// history; docs/policy.md), the first rule whose unit globs match a tick's unit judges it
    /// from the signed evidence: signers, verdicts, phases, approvals, mutation score, strength,
    /// monitor, sandbox, carried evidence and skips; a tick no rule matches fails
    /// (policy_no_rule). A task ticked by hand at the policy's baseline commit, unchanged since
    /// and without a task commit, holds as `baseline`. Each row names its rule, and the report
    /// names the policy's source and sha256.
    ///
    /// Exit codes: 0 every tick holds (or nothing to check, with `--allow-empty`); 26 a tick is stale
    /// or unverifiable (a published held-out set that is not the set it names too), a skip or a baseline tick `--require-verified` does not accept, or the verifier policy refuses a
    /// row (`policy_signer`, `policy_verdict`, `policy_phase`, `policy_approval`, `policy_evidence`,
    /// `policy_carried`, `policy_skip`, `policy_no_rule`, `policy_mixed_script`); a spec file that cannot be read is a row of
    /// its unit (26); 15 nothing to check (a branch with no commits yet too); 13 a trust file or the
    /// verifier policy is unusable (the policy named by line and column; a `--allowed-signers-rev` or
    /// `--policy-rev` revision inside the checked history), no Sigstore trusted root can be had, the
    /// `--markdown` file or `$GITHUB_STEP_SUMMARY` cannot be written (the report is printed all the
    /// same; 26 stays 26), or an object the check reads cannot be read (one larger than speccoder
    /// reads, a corrupt one; a task commit's note or commit too: its row is
    /// reported, then the error naming the object; a commit of the checked history, the head's or
    /// the base's commit, and the notes commit too, the error naming it); 14 repository state (a
    /// shallow clone cut short, notes never fetched, an
    /// object a row needs missing from the repository, which the row's finding and a warning name,
    /// whatever the other rows say; one the run needs before any row, the head's or the base's
    /// commit, a commit of the checked history, the head's `specs/` or a unit's directory tree,
    /// which the error names; the promisor remote unreachable, a notes tree that is not one git writes: one tree object reached
    /// twice, or a lookup needing more than 64 trees; names are read in lowercase hex only, and two
    /// notes for one commit make that commit `malformed`, `note_ambiguous`); 2 usage; 1 internal error.
    Verify(VerifyArgs),
    /// Export the evidence of a range that holds, with a signed verification summary.
    ///
    /// Runs the check `attest verify --branch` runs on the history the summary names, with the
    /// same trust and policy flags: no range is checked as --branch --all, A..B as --branch B
    /// --base A (every tick of that history, not only the task commits of the range), REV as
    /// REV^..REV (every tick of the units that commit touched, a box it ticks by hand among them;
    /// a root commit as its whole history). When every tick holds, it writes the new directory
    /// DIR (nothing there, or an empty directory, outside the git directory):
    /// `<commit>.intoto.jsonl` for each task commit of the range (its note, byte for byte),
    /// `<head>.commit` (the head's commit object as git hashes it: its sha1 is the commit id, its
    /// sha256 the summary's subject digest), and the
    /// SLSA verification summary (https://slsa.dev/verification_summary/v1) of the head, naming
    /// every note line by its payload's sha256 and the lowest level every tick meets
    /// (SPECCODER_VERIFIED, SPECCODER_REGRESSION_ONLY, SPECCODER_ATTESTED, SPECCODER_BASELINE).
    /// Its resourceUri and subject name say what was checked: `git+<origin>@<head>` for the
    /// head's whole history (no range, --branch --all, a branch with no default branch, or a root
    /// commit REV), `…@<base>..<head>` for part of it (A..B, REV as `<parent>..<REV>`, --branch
    /// since --base or the merge base with the default branch); a gate that expects the head's
    /// URI refuses a summary of part of its history.
    /// With --vsa-key: `vsa.intoto.json`, a DSSE envelope with one raw signature over the PAE
    /// (ed25519, or ECDSA P-256 as DER; keyid the key's SHA256: fingerprint), which plain DSSE
    /// readers verify (securesystemslib, slsa-verifier verify-vsa) against the signer's public
    /// key as the reader got it, and `vsa.pub.pem`, the key as SPKI PEM, only to compare with it.
    /// With --vsa-signer sigstore: `vsa.sigstore.json`, a Sigstore bundle v0.3 with the envelope,
    /// signed keylessly. The files are written beside DIR and renamed into place whole: a run
    /// that fails leaves nothing at DIR. docs/export.md says how a third party checks a pack.
    ///
    /// Exit codes: 0 exported; 26 a tick does not hold (the report is printed, and nothing is
    /// written); 15 nothing to export (no ticked task or task commit in the range, or only
    /// skips); 13 a trust file, the verifier policy or the summary's key is unusable (a key other
    /// than ed25519 or ECDSA P-256, or an agent that does not sign), keyless signing fails, the
    /// summary would leak, or DIR cannot be written (a file, a symbolic link, a mount point or a
    /// directory with files in it is there, its parent does not exist or does not let you create
    /// in it, or it lies inside the repository's git directory); 14 repository state, as for
    /// `attest verify`, or refs/notes/speccoder moved during the export; 2 usage (with `--json`,
    /// a DIR that is not UTF-8: nothing is checked or written); 1 internal error.
    Export(ExportArgs),
    /// Approve a tick: add your signature to the line that covers it.
    ///
    /// Signs the covering line of REV's note (the summary of a tick; the one task-verification
    /// line of a decision) with your key, chosen as `speccoder attest` chooses it (--signer, --key,
    /// [attest] signer, git's user.signingKey; an SSH or OpenPGP key: a line holds one Sigstore
    /// bundle, its author's). Only after the note passes the commit's own agreement checks and
    /// every line's signatures verify against your own trust (the trust flags, as attest verify
    /// takes them): nobody approves what they cannot verify. The signature is added through the
    /// notes reference's compare-and-swap, every payload and every other signature kept byte for
    /// byte, so a concurrent writer never loses a signature; `attest push` and `attest fetch`
    /// carry it. A verifier policy's `approvals` counts it; the signer of the tick never counts as
    /// its own approver (nor a key that may be theirs: another key of their principal, one the
    /// trust lists under a pattern such as ada@* that matches it), and one principal counts once.
    /// When, under your trust, the signature counts as no approval, it is written and a warning
    /// says why.
    ///
    /// Exit codes: 0 approved (or approved already by this key: nothing changed); 26 the note
    /// does not agree with the commit, or a line does not verify against your trust (each
    /// named; nothing written); 2 unknown revision; 13 no trust given or configured, a
    /// trust file that is unusable, a key that cannot sign, no key configured, a Sigstore signer,
    /// a `speccoder.toml` at HEAD whose `[attest]` turns attestation off or is malformed (or whose
    /// `[spec]` is), a note the approval would make larger than a reader takes (its largest part
    /// named; nothing written); 14 unborn branch, a shallow clone without REV's parent (nothing
    /// written), not a task commit, no note, the line carries 16 signatures already, the notes ref locked
    /// by another command; 1 internal error.
    Approve(ApproveArgs),
    /// The verifier policy: print a starter one, or check one.
    #[command(subcommand)]
    Policy(PolicySub),
    /// Push the branch, its evidence (refs/notes/speccoder) and refs/speccoder/* in one atomic push.
    ///
    /// REMOTE defaults to the remote `git push` would choose: branch.<name>.pushRemote, else
    /// remote.pushDefault, else the branch's upstream remote, else `origin`. The push goes through
    /// `git push --atomic`, so your credential helpers, SSH and HTTPS settings apply: the
    /// current branch (where `git push` sends it by push.default: with `simple`, git's default,
    /// to the same name, refusing a branch whose upstream has another name; with `upstream` to
    /// its upstream branch; with `current` or `matching` to the same name), the notes and every
    /// reference under refs/speccoder/ (skips, published held-out sets) arrive together or not
    /// at all. When another clone pushed evidence meanwhile, the notes or those references
    /// are refused as not fast-forward: it then fetches and merges them (`attest fetch`, by its
    /// rules: what it refuses is never pushed) and pushes again, at most 5 times. A reference
    /// the remote held when last fetched or pushed and has since deleted is no refusal, so the
    /// remote's references are listed first and, when one is gone, it fetches before pushing:
    /// fetch deletes ours unless it changed since, and then it is pushed. A reference of the
    /// remote's evidence that is a symbolic reference (refs/notes/speccoder naming
    /// refs/heads/main) stops the push before anything is sent: the remote would move the
    /// reference it names; only whoever keeps the remote can remove the link alone. It never
    /// forces; when the branch itself is refused it stops and says how to integrate the remote's
    /// commits. One fetch or push of a repository runs at a time: a push (not --dry-run) holds
    /// .git/speccoder-fetch.lock, and waits up to 5 seconds for another's.
    ///
    /// Exit codes: 0 pushed (or, with `--dry-run`, shown); 2 unknown remote, or one whose name no
    /// reference name can hold (named, with the `git remote rename` that fixes it; nothing
    /// changed); 13 no identity for a notes merge commit, a `push.default` git does not accept, a
    /// trust file that is unusable; 14 not on a branch, a branch whose name is not UTF-8 (named,
    /// with the `git branch -m` that renames it; nothing sent), a remote the branch's
    /// configuration names that is not UTF-8 (named with its key, and the `git remote rename` that
    /// fixes it; nothing sent), a branch `push.default` does not
    /// push (named, with how to push it), another fetch or push holding the fetch lock (named, with
    /// what to do if none runs), a reference of the remote's evidence that is a symbolic reference
    /// (named, with what it names; nothing sent), the branch or a reference refused (named, with
    /// git's reason and what the remote said), notes or
    /// references that cannot be joined (a reference conflict is named, with how to keep one side),
    /// the remote unreachable, the evidence kept moving; 1 internal error.
    Push(AttestPushArgs),
    /// Fetch the remote's evidence and merge it into yours.
    ///
    /// REMOTE defaults to the current branch's upstream remote, else `origin`. Fetches the
    /// remote's refs/notes/speccoder into refs/notes/remotes/<remote>/speccoder and its
    /// refs/speccoder/* into refs/speccoder-remotes/<remote>/* (in a partial clone, with the
    /// notes' contents: no filter), then merges (each refs/speccoder/* reference arrives first
    /// in refs/speccoder-fetching/<remote>/*, and its remote-tracking copy moves only once its
    /// merge is written, so a fetch stopped half-way, killed or refused, is safe to run again):
    /// notes of different commits are joined as their union; two notes of one commit must hold
    /// the same statements, and two copies of a line are joined only when they are the same
    /// envelope apart from `signatures` (every other field byte for byte): the line keeps ours
    /// and gains each remote signature that verifies over it by a key not yet on it (SSH with the
    /// key it carries, OpenPGP with --openpgp-certs), up to 16 (a line signed later replaces its
    /// unsigned copy). Anything else is a conflict, reported with the commit and why, and then
    /// refs/notes/speccoder is not changed: different statements, a differing field, a remote
    /// signature that does not verify or cannot be checked, signatures past the cap, a note over
    /// 2 MiB, a join that would make a note that holds here fail. A remote notes history that
    /// descends from ours is checked note by note the same way (a note of ours it changes or
    /// removes is a conflict). The result is a notes commit with both parents (or a
    /// fast-forward). A skip
    /// reference takes the remote's value when ours did not change since the last merged fetch
    /// (or push). A held-out reference only moves forward: it takes the remote's value only
    /// when that descends from ours, keeps ours when the remote deleted it, and otherwise (two publishers,
    /// or a remote copy replaced by force) joins both histories in a commit whose tree holds
    /// every set of both, so no published set is lost. Two different skips of one task are a conflict,
    /// reported by every fetch (and by push) with how to keep one side: `git update-ref --no-deref
    /// <ref> <theirs>` takes the remote's, `git push <remote> --delete <ref>` keeps yours. A remote
    /// reference no merge can take (not a commit, a held-out tree holding `.git`, a name one of
    /// ours takes, a symbolic reference, a name this clone cannot keep as a file: the last two are
    /// not fetched) is a conflict of its own, named
    /// with how to settle it on the remote, and the other references still merge; the notes come
    /// first, by a fetch of their own. Notes trees are read as git reads them (hex names of either
    /// case, flat or fanned out): two notes of one commit in the remote's, a remote notes
    /// reference that is not a notes commit (one whose tree holds anything but notes: a branch's
    /// commit), or one that is a symbolic reference (not fetched), is the remote's damage, named
    /// with how to repair it there (the remote-tracking copy comes back as it is on every fetch).
    /// Running it again changes nothing. One fetch or push of a repository runs at a time: a fetch
    /// holds .git/speccoder-fetch.lock, and waits up to 5 seconds for another's.
    ///
    /// Exit codes: 0 fetched and merged; 2 unknown remote, or one whose name no reference name can
    /// hold (named, with the `git remote rename` that fixes it; nothing changed); 13 no identity
    /// for a merge commit, a trust file that is unusable; 14 a remote the branch's configuration
    /// names that is not UTF-8 (named with its key, and the `git remote rename` that fixes it;
    /// nothing fetched), a conflict (named; the conflicting
    /// references are left as they were, the others merged), the remote's notes damaged (named, to
    /// repair there), another fetch or push holding the fetch lock (named, with what to do if none
    /// runs; nothing changed), the remote unreachable; 1 internal error.
    Fetch(AttestFetchArgs),
    /// Re-issue the evidence of task commits rewritten by a rebase, an amend or a cherry-pick.
    ///
    /// Without arguments: for each task whose newest task commit on the current branch has no
    /// note (or only a note git copied from another commit, with notes.rewriteRef), it looks for
    /// a note on a commit the branch no longer holds with the same Spec-Task:. When the change is
    /// the same (the same bytes in the same place: equal patches against the parents with three
    /// lines of context, whitespace and hunk positions included; the same series of changes before
    /// it, as `git cherry` reads a series: every non-merge commit the old task commit's history
    /// holds and the new one's does not has a commit of the same change among those the new one's
    /// holds and the old one's does not; the same task line and lines its text wraps onto; the
    /// same requirement text; the same judge configuration), it re-issues that evidence for the new
    /// commit: every statement's subject names the new commit, the task verification its tree and
    /// `carried {from, patch_id, time}`, the summary the new resource and the new lines' digests;
    /// everything is signed afresh with your key, chosen as `speccoder attest` chooses it. A
    /// changed change is refused, naming both commits and how to attest it again (run its checks, clear its box in a commit of its
    /// own, then `speccoder attest`; a bug task is closed again by `speccoder attest`). So is a
    /// task commit whose earlier commits were dropped, squashed or amended (series_differs, naming
    /// the first commit of the old series the new one lacks: the evidence judged a tree that held
    /// it; a merge counts by its change of its own, what its resolution changed of what merging its
    /// parents gives, which a rebase that flattens it drops), or a commit inserted before it that
    /// undoes a change the evidence judged (series_differs, naming both: its change is the inverse
    /// of the old task commit's own or of a commit of its series, as a revert makes it, even one
    /// reverted again), and one whose series is longer than
    /// 5000 commits (series_too_long). Of several commits
    /// off the branch with the same change, the newest whose series holds is carried.
    ///
    /// Only evidence you would accept today is re-signed: every line of the old note must carry a
    /// valid signature by a signer your own trust accepts now (as `attest verify --signature-time
    /// now` checks it), the trust `attest verify` reads (git's gpg.ssh.allowedSignersFile, or
    /// --allowed-signers FILE; the keys --revoked FILE and git's gpg.ssh.revocationFile revoke;
    /// --openpgp-certs FILE). An OpenPGP certificate and signing key are judged at the time of the
    /// carry, not the signature's: expired since (expired_key) or revoked since, for any reason,
    /// "superseded" and "retired" included (revoked_key), they are refused. A bad signature
    /// (content changed after signing), an untrusted, expired or revoked signer (named by its key),
    /// an unsigned line or a keyless (Sigstore) line is refused, with how to go on.
    /// Without any trust configured nothing is carried (exit 13). --from and --to naming the same
    /// commit is refused (same_commit): its note stays as it is. So is a new commit whose
    /// Spec-Task: or Verdict: trailer (not_the_same_task), Held-Out: trailer (held_out_differs), Run: trailer (run_differs) or decision trailers,
    /// Accepted-By:, Skipped-By: or Reason: (decision_differs), are not the old one's: restore the
    /// trailer and carry again.
    ///
    /// `--from OLD --to NEW` carries one explicitly. `--rewritten` reads `<old> <new>` lines on
    /// stdin, as git gives them to the post-rewrite hook (`speccoder hooks install`).
    ///
    /// Exit codes: 0 carried (or nothing to carry); 26 a task's change, its series of changes
    /// (`series_differs`, `series_too_long`), task or verdict (`not_the_same_task`), task line, requirement text, `Held-Out:` or `Run:` trailer, decision trailer (`Accepted-By:`, `Skipped-By:`,
    /// `Reason:`) or judge configuration differs, its evidence does not hold or is not validly
    /// signed by a signer you trust, or is on a commit the repository does not hold
    /// (`evidence_gone`: left behind by a rewrite and removed since, or never fetched here; attest
    /// the task again), the new commit holds a note of its own, or `--from` and
    /// `--to` are the same commit (each named; the others were carried); 13 no trust configured, a
    /// trust file that is unusable, bad signer or key, a `speccoder.toml` at HEAD whose `[attest]`
    /// turns attestation off or is malformed (or whose `[spec]` is), a statement that would leak; 2 unknown
    /// revisions, a `--rewritten` input that is not `<old> <new>` lines of full commit ids (the
    /// first such line named by its number; not UTF-8 text, over 16 MiB), or whose new commit is
    /// not in the repository; 14 `--from` without a note, the notes ref locked by another command;
    /// 1 internal error.
    Carry(AttestCarryArgs),
    /// Repair a note git joined line by line: keep the commit's own note, each statement once
    /// with the signatures of all its copies.
    ///
    /// `git notes merge -s union` or `-s cat_sort_uniq`, and a rebase that copies notes onto a
    /// squash or fixup (notes.rewriteMode=concatenate), join two notes of one commit line by
    /// line; `attest verify` reports such a note as joined_notes and advises this command. Of the
    /// copies of each of REV's own statements (lines of the same payload; a line repeated byte
    /// for byte is read once), the one that holds best under your trust is kept (a trusted
    /// signature that verifies and none by a trusted key that fails, then the most trusted keys;
    /// never merely the most signatures: anyone can add one; of equals, one without envelope
    /// fields no signature covers, then the one with fewest signatures), and every other copy is
    /// joined to it as `attest fetch` joins two clones' copies of a line: each signature that
    /// verifies over the line by a key not yet on it is added (SSH with the key it carries,
    /// OpenPGP with --openpgp-certs), up to 16, those your trust accepts first; one that does not
    /// verify, or whose key your trust revokes, is left out and named, as is each past the 16. A
    /// copy that differs only in fields no signature covers is joined all the same, the kept
    /// copy's fields written. What is joined never makes a line that holds under your trust on
    /// its own fail. Lines about other commits (a copy git made on a rewrite) are dropped, blank
    /// lines too. A note of up to 8 MiB (four notes' worth) is read. Your trust is the one
    /// `attest verify` reads (the trust flags); a trust file REV's tree holds, or a trust
    /// revision that is REV, is refused. Nothing is signed. The note is written through the notes
    /// reference's compare-and-swap (--ref: another notes reference, such as a copy of a remote's
    /// notes, to repair it there), and the joined note stays in its history. A note that is not
    /// joined line by line is left as it is.
    ///
    /// Exit codes: 0 rejoined (or not joined: nothing changed); 26 the note is larger than
    /// rejoin reads (with how to keep one of each of its lines), holds lines that cannot be read,
    /// none of its lines is REV's own, or its own lines are two different notes of it (two
    /// different statements of one kind: each named, with what to do; nothing written); 2 unknown
    /// revision, a --ref outside refs/notes/ or that is no reference name git takes; 13 no trust
    /// given or configured, a trust file that is unusable, a rejoined note larger than a reader
    /// takes; 14 no note, the notes ref locked by another command; 1 internal error.
    Rejoin(RejoinArgs),
}

// `speccoder attest rejoin`.
#[derive(Debug, Args)]
pub struct RejoinArgs {
    /// The commit whose note git joined line by line.
    #[arg(value_name = "REV")]
    pub rev: String,
    /// The notes reference that holds the note (a full name under refs/notes/, one git takes).
    #[arg(long = "ref", value_name = "REF", default_value = "refs/notes/speccoder", value_parser = notes_ref)]
    pub notes_ref: String,
    /// Whom you trust: each statement keeps the copy that holds best under it.
    #[command(flatten)]
    pub trust: TrustArgs,
    /// Print one JSON object instead of the human summary.
    #[arg(long)]
    pub json: bool,
}

/// A notes reference named in full (`refs/notes/...`), a name git takes for a reference (its rules,
/// as gix checks them: no `..`, no `.lock` at the end of a part, no space or control character).
fn notes_ref(value: &str) -> Result<String, NotNotesRef> {
    match value.strip_prefix("refs/notes/") {
        Some(rest) if !rest.is_empty() => {
            gix::validate::reference::name(value.as_bytes().into()).map_err(NotNotesRef::Invalid)?;
            Ok(value.to_owned())
        }
        _ => Err(NotNotesRef::Outside),
    }
}

/// A value that is not a notes reference's full name.
#[derive(Debug, thiserror::Error)]
pub enum NotNotesRef {
    /// Not under `refs/notes/`.
    #[error("takes a notes reference's full name, refs/notes/<name>")]
    Outside,
    /// Under it, but not a name git takes for a reference.
    #[error(
        "takes a notes reference's full name, refs/notes/<name>, and git takes no reference by this name ({0})"
    )]
    Invalid(gix::validate::reference::name::Error),
}

// `speccoder attest push`.
#[derive(Debug, Args)]
pub struct AttestPushArgs {
    /// The remote (default: branch.<name>.pushRemote, else remote.pushDefault, else the branch's
    /// upstream remote, else origin).
    #[arg(value_name = "REMOTE")]
    pub remote: Option<String>,
    /// Show what would be pushed; send nothing, merge nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// OpenPGP certificates you trust, to check the OpenPGP signatures the remote adds to notes
    /// this clone holds (as for `attest fetch`).
    #[arg(long, value_name = "FILE")]
    pub openpgp_certs: Option<PathBuf>,
    /// Print one JSON object instead of the human summary.
    #[arg(long)]
    pub json: bool,
}

// `speccoder attest fetch`.
#[derive(Debug, Args)]
pub struct AttestFetchArgs {
    /// The remote (default: the current branch's upstream remote, else origin).
    #[arg(value_name = "REMOTE")]
    pub remote: Option<String>,
    /// OpenPGP certificates you trust: an OpenPGP signature the remote adds to a note this clone
    /// holds is joined only when it verifies with one of them.
    #[arg(long, value_name = "FILE")]
    pub openpgp_certs: Option<PathBuf>,
    /// Print one JSON object instead of the human summary.
    #[arg(long)]
    pub json: bool,
}

// `speccoder attest carry`.
#[derive(Debug, Args)]
pub struct AttestCarryArgs {
    /// The task commit whose note to carry (with --to).
    #[arg(long, value_name = "OLD", requires = "to", conflicts_with = "rewritten")]
    pub from: Option<String>,
    /// The commit that now carries the same change (with --from).
    #[arg(long, value_name = "NEW", requires = "from", conflicts_with = "rewritten")]
    pub to: Option<String>,
    /// Read `<old> <new>` pairs on stdin, as git's post-rewrite hook receives them.
    #[arg(long)]
    pub rewritten: bool,
    /// The allowed-signers file the old evidence's SSH signatures are checked against before it is
    /// re-signed (default: git's gpg.ssh.allowedSignersFile).
    #[arg(long, value_name = "FILE")]
    pub allowed_signers: Option<PathBuf>,
    /// SSH public keys that are revoked, one per line (besides those of git's
    /// gpg.ssh.revocationFile).
    #[arg(long, value_name = "FILE")]
    pub revoked: Option<PathBuf>,
    /// OpenPGP certificates you trust (armored or binary, one or more; at most 10,000 packets,
    /// 100 user IDs and subkeys a certificate), for OpenPGP-signed evidence.
    #[arg(long, value_name = "FILE")]
    pub openpgp_certs: Option<PathBuf>,
    /// How to sign, and how to report.
    #[command(flatten)]
    pub run: SignedRunArgs,
}

// `speccoder attest verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// What is checked.
    #[command(flatten)]
    pub history: HistoryArgs,
    /// Whom you trust.
    #[command(flatten)]
    pub trust: TrustArgs,
    /// The rules that judge each unit.
    #[command(flatten)]
    pub policy: PolicyArgs,
    /// Count unsigned evidence as holding; the report says it was accepted unsigned.
    #[arg(long)]
    pub accept_unsigned: bool,
    /// Fail regression_only, attested and skipped ticks too (reason not_verified), and ticks a
    /// verifier policy's baseline holds; a skip is still listed and counted as skipped, a baseline
    /// tick as baseline.
    #[arg(long)]
    pub require_verified: bool,
    /// How many threads check task commits, 1 to 256 (default: one per core, at most 8); the
    /// report is the same whatever the number.
    #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u16).range(1..=256))]
    pub jobs: Option<u16>,
    /// Print one JSON object: the report, with `exit_code`.
    #[arg(long)]
    pub json: bool,
    /// Also write a Markdown report (for a pull request comment) to FILE: a regular file or
    /// nothing, in an existing directory, outside `.git` (otherwise exit 13, the report still
    /// printed). Text from
    /// the repository is shown as code, never as formatting, HTML or links.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// For GitHub Actions: an `::error file=<tasks.md>,line=<n>::` annotation per tick that does
    /// not hold, and the Markdown report appended to $GITHUB_STEP_SUMMARY when it is set. The
    /// report itself is printed between `::stop-commands::` markers, so that nothing the checked
    /// repository wrote is read as a workflow command. The summary is appended after the report
    /// and annotations are printed, to a regular file only: a symbolic link, FIFO or directory
    /// there is never written through or waited on, and exits 13 (26 stays 26) with a message
    /// naming $GITHUB_STEP_SUMMARY.
    #[arg(long, conflicts_with = "json")]
    pub github: bool,
    /// Nothing to check (no ticked task, skip or bug task, no task commit, or a branch with no
    /// commits yet) is a success: exit 0 instead of 15.
    #[arg(long)]
    pub allow_empty: bool,
}

// `speccoder attest export`. The summary is signed by one of `--vsa-key` and `--vsa-signer`, and
// a command line without either names both.
#[derive(Debug, Args)]
#[group(id = "summary_signer", required = true, multiple = false)]
pub struct ExportArgs {
    /// What is checked and exported.
    #[command(flatten)]
    pub history: HistoryArgs,
    /// The directory to write: nothing may be there yet, or an empty directory of yours (the new
    /// one keeps its owner, group and permissions); outside `.git`.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Whom you trust.
    #[command(flatten)]
    pub trust: TrustArgs,
    /// The rules that judge each unit.
    #[command(flatten)]
    pub policy: PolicyArgs,
    /// Fail regression_only, attested and skipped ticks too, as `attest verify --require-verified`.
    #[arg(long)]
    pub require_verified: bool,
    /// How many threads check task commits, 1 to 256 (default: one per core, at most 8).
    #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u16).range(1..=256))]
    pub jobs: Option<u16>,
    /// The SSH key that signs the summary (ed25519 or ECDSA P-256): a private key file, a public
    /// key file (the unencrypted private key of the same name beside it signs, else ssh-agent's
    /// key), or a `key::ssh-ed25519 AAAA...` literal whose key is in ssh-agent.
    #[arg(long, value_name = "KEY", group = "summary_signer")]
    pub vsa_key: Option<String>,
    /// Sign the summary keylessly instead: `sigstore` (a Fulcio certificate for your identity and
    /// a Rekor entry; the identity token as for `attest --signer sigstore`).
    #[arg(long, value_enum, value_name = "SIGNER", group = "summary_signer")]
    pub vsa_signer: Option<VsaSignerArg>,
    /// Where keyless signing sends what.
    #[command(flatten)]
    pub sigstore: SigstoreArgs,
    /// Print one JSON object: what was written (on a range that does not hold, the report), with
    /// `exit_code`.
    #[arg(long)]
    pub json: bool,
}

/// The tip of a usage error that gives `--base` or `--all` beside `REV | A..B`.
pub const BRANCH_ONLY_TIP: &str = "--base and --all go with --branch, which checks the ticks of a branch; a REV or an A..B is checked as it is, without them";

/// The options of [`HistoryArgs`] that go with `--branch` only, as clap names them in an error.
pub const BRANCH_ONLY: [&str; 2] = ["--base <REV>", "--all"];

// The history `attest verify` checks and `attest export` checks and exports.
#[derive(Debug, Args, Clone)]
pub struct HistoryArgs {
    /// A task commit, or a range A..B of commits (not with --branch).
    #[arg(value_name = "REV | A..B", conflicts_with = "branch")]
    pub range: Option<String>,
    /// The ticked tasks of a branch (default HEAD).
    #[arg(long, value_name = "HEAD", num_args = 0..=1, default_missing_value = "HEAD")]
    pub branch: Option<String>,
    /// The revision the branch started from (default: the merge base with the first of origin/HEAD,
    /// origin/main, origin/master, main and master that exists and is not the head itself).
    // Each option that `requires` an argument another conflicts with conflicts with that other
    // too: clap lets a requirement go unchecked once an argument it conflicts with is present
    // (`HEAD --all` would check HEAD alone).
    #[arg(long, value_name = "REV", requires = "branch", conflicts_with = "range")]
    pub base: Option<String>,
    /// Every unit, not only those the branch touched (whose directory differs from the base's, or
    /// that a commit since the base changed).
    #[arg(long, requires = "branch", conflicts_with_all = ["base", "range"])]
    pub all: bool,
}

/// `--vsa-signer`: how the summary is signed without a key of yours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum VsaSignerArg {
    /// Keyless, through Sigstore.
    Sigstore,
}

// The caller's trust, shared by every command that checks signatures against it: `attest verify`,
// `attest export`, `attest approve`.
#[derive(Debug, Args, Clone)]
pub struct TrustArgs {
    /// Whom you trust.
    #[command(flatten)]
    pub files: TrustFileArgs,
    /// Check signatures with the real tools (ssh-keygen -Y, sqv) instead of in-process; a tool
    /// that fails without a verdict is tool_missing, never a pass. OpenPGP signatures gpg 2.2 and
    /// sqv cannot check (v6, SHA3, RFC 9580 keys) are unsupported_openpgp on both paths.
    #[arg(long)]
    pub via_tools: bool,
    /// When SSH keys must have been trusted: `commit`, each task commit's committer date (as git
    /// verify-commit checks; the signer chose it), or `now`, the time of verification, for every
    /// valid-after/valid-before window and certificate (what a CI gate wants). The report names
    /// the time used. OpenPGP keys are judged at their signature's creation time either way, as
    /// sqv judges them.
    #[arg(long, value_enum, value_name = "WHEN", default_value = "commit")]
    pub signature_time: SignatureTimeArg,
}

// Whom the caller trusts: the trust files and identities, without how signatures are checked.
// `attest policy init|check` read principals from them and check no signature.
#[derive(Debug, Args, Clone)]
pub struct TrustFileArgs {
    /// The SSH allowed-signers file you trust (ssh-keygen's format); default git's
    /// gpg.ssh.allowedSignersFile.
    #[arg(long, value_name = "FILE", conflicts_with = "allowed_signers_rev")]
    pub allowed_signers: Option<PathBuf>,
    /// An allowed-signers file read from a revision, meant to be the base: REV:PATH. A revision
    /// inside the history checked is refused (attest verify: the range, or the branch since its
    /// base; with --all or no base, all of it; attest approve: the commit approved); PATH must be
    /// a regular file of at most 16 MiB there.
    #[arg(long, value_name = "REV:PATH", value_parser = rev_path)]
    pub allowed_signers_rev: Option<String>,
    /// SSH public keys that are revoked, one per line (besides those of git's
    /// gpg.ssh.revocationFile).
    #[arg(long, value_name = "FILE")]
    pub revoked: Option<PathBuf>,
    /// OpenPGP certificates you trust (armored or binary, one or more; at most 10,000 packets,
    /// 100 user IDs and subkeys a certificate: `gpg --export-options export-minimal --export`
    /// keeps a flooded key small).
    #[arg(long, value_name = "FILE")]
    pub openpgp_certs: Option<PathBuf>,
    /// The Sigstore trusted root (trusted_root.json); default: the public-good root from Sigstore's
    /// TUF repository, cached a day in $XDG_CACHE_HOME/speccoder/sigstore/ (used only while the
    /// cache and its directories are yours alone: owned by you, writable by no one else) and
    /// fetched only when a keyless line is checked (offline, an older cached copy is used with a
    /// warning). Read only
    /// with the identity it is to check (--certificate-identity and --certificate-oidc-issuer).
    #[arg(long, value_name = "FILE", requires = "certificate_identity")]
    pub sigstore_trusted_root: Option<PathBuf>,
    /// The identity a keyless signing certificate must carry (its SAN, e.g. an email or a CI
    /// workflow URI).
    #[arg(long, value_name = "IDENTITY", requires = "certificate_oidc_issuer")]
    pub certificate_identity: Option<String>,
    /// The OIDC issuer a keyless signing certificate must name.
    #[arg(long, value_name = "URL", requires = "certificate_identity")]
    pub certificate_oidc_issuer: Option<String>,
}

// The verifier policy, shared by `attest verify` and every command that judges ticks as it does
// (`attest export`).
#[derive(Debug, Args, Clone)]
pub struct PolicyArgs {
    /// The verifier policy (TOML, docs/policy.md): rules per unit for who may tick, which verdicts,
    /// phases and evidence count, approvals, and a baseline of hand ticks. A file of the checked
    /// tree is refused. Without it every trusted signer may tick anything, as before.
    #[arg(long, value_name = "FILE", conflicts_with = "policy_rev")]
    pub policy: Option<PathBuf>,
    /// The verifier policy read from a revision, meant to be the base: REV:PATH (e.g.
    /// refs/remotes/origin/main:.github/speccoder-policy.toml). A revision inside the history
    /// checked is refused, as for --allowed-signers-rev; PATH must be a regular file of at most
    /// 1 MiB there.
    #[arg(long, value_name = "REV:PATH", value_parser = rev_path)]
    pub policy_rev: Option<String>,
}

// `speccoder attest approve`.
#[derive(Debug, Args)]
pub struct ApproveArgs {
    /// The task commit whose tick you approve (its summary line, or a decision's one line).
    #[arg(value_name = "REV")]
    pub rev: String,
    /// Whom you trust: the note's signatures must verify against it before you approve.
    #[command(flatten)]
    pub trust: TrustArgs,
    /// How to sign, and how to report.
    #[command(flatten)]
    pub run: SignedRunArgs,
}

// Subcommands of `speccoder attest policy`.
#[derive(Debug, Subcommand)]
pub enum PolicySub {
    /// Print a starter verifier policy for this repository.
    ///
    /// Prints, on stdout, a policy (docs/policy.md) with a comment on each key: a baseline at REV
    /// (default HEAD) when tasks are ticked there without a task commit (by hand, before
    /// speccoder was adopted), so that those ticks hold as `baseline` while every later tick
    /// follows the rules, and, as comments, every checked box the baseline will not hold with
    /// what verify says of it; and one catch-all rule whose signers are the principals of the trust
    /// files given (or "*" when none is given or they name none; an OpenPGP certificate's
    /// fingerprint and the user IDs it validly binds and has not revoked). Review it, put it where the verifier reads it (the base
    /// branch, read with --policy-rev), and tighten the rules per unit.
    ///
    /// Exit codes: 0 printed (a task list that cannot be read is named among the boxes the
    /// baseline will not hold); 2 an unknown --baseline revision; 13 a trust file that is
    /// unusable; 14 unborn branch, a shallow clone whose history the ticks counted need is cut
    /// off, as verify refuses it (fetch the whole history: `git fetch --unshallow`); 1 internal
    /// error.
    Init(PolicyInitArgs),
    /// Check a verifier policy and show what each rule matches today.
    ///
    /// Parses FILE as `attest verify --policy` would (an unknown key, a wrong type or a bad glob
    /// is named by line and column), then shows, for each rule, the units of HEAD it judges (the
    /// first matching rule judges a unit), the principals it names that no trust file given names
    /// or that more than one OpenPGP certificate of the trust binds (such a name names none of
    /// them), and whether an earlier rule shadows it (takes every unit it would match). Units no
    /// rule matches are listed (their ticks would fail with policy_no_rule), so are units whose
    /// names may pass for another's (their ticks would fail with policy_mixed_script), so is each
    /// task list that cannot be read (its ticks fail with tasks_unreadable), so is each place that
    /// holds ticks but is no unit's, such as a directory whose name cannot be a unit's (its ticks
    /// fail with not_a_unit or nested_project, and no rule judges them), and so is what the
    /// baseline holds.
    ///
    /// Exit codes: 0 the policy reads (what it matches is shown); 2 an unknown `--allowed-signers-rev` revision; 13 it does not, or a trust file
    /// is unusable; 14 unborn branch, a shallow clone whose history the ticks counted or the
    /// baseline commit may lie beyond, as verify refuses it (fetch the whole history: `git fetch
    /// --unshallow`); 1 internal error.
    Check(PolicyCheckArgs),
}

// `speccoder attest policy init`.
#[derive(Debug, Args)]
pub struct PolicyInitArgs {
    /// The commit the baseline names (default HEAD): the tasks ticked there by hand hold.
    #[arg(long, value_name = "REV")]
    pub baseline: Option<String>,
    /// Whose principals the catch-all rule names.
    #[command(flatten)]
    pub trust: TrustFileArgs,
    /// Print one JSON object (`policy`, `baseline`, `hand_ticks`, `unheld`, `principals`,
    /// `left_out`) instead.
    #[arg(long)]
    pub json: bool,
}

// `speccoder attest policy check`.
#[derive(Debug, Args)]
pub struct PolicyCheckArgs {
    /// The policy file.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Whose principals the policy's principals are compared with.
    #[command(flatten)]
    pub trust: TrustFileArgs,
    /// Print one JSON object instead.
    #[arg(long)]
    pub json: bool,
}

// `speccoder attest sign`.
#[derive(Debug, Args)]
pub struct AttestSignArgs {
    /// The task commit (default HEAD).
    #[arg(value_name = "REV", default_value = "HEAD")]
    pub rev: String,
    /// How to sign, and how to report.
    #[command(flatten)]
    pub run: SignedRunArgs,
}

/// Where `speccoder schema` writes and checks without `--out`.
pub const SCHEMA_DIR: &str = "schema";

// `speccoder schema`.
#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// Compare instead of writing: fail and name every file that differs from the types.
    #[arg(long)]
    pub check: bool,
    /// The directory that holds the schemas (written: outside `.git`).
    #[arg(long, default_value = SCHEMA_DIR, value_name = "DIR")]
    pub out: PathBuf,
    /// Print the result as one JSON object (`dir`, `check`, `files`, `exit_code`; on failure
    /// `error` and `exit_code`).
    #[arg(long)]
    pub json: bool,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory as _;

    /// clap's own consistency checks, over every subcommand, deferred ones included.
    #[test]
    fn every_subcommand_definition_passes_clap_s_checks() {
        super::Cli::command().debug_assert();
    }

    #[test]
    fn a_notes_ref_git_takes_no_reference_by_is_a_usage_error() {
        use clap::Parser as _;
        let parse =
            |r: &str| super::Cli::try_parse_from(["speccoder", "attest", "rejoin", "HEAD", "--ref", r]);
        for bad in [
            "refs/notes/a..b",
            "refs/notes/x.lock",
            "refs/notes/a b",
            "refs/notes/a/",
            "refs/heads/x",
            "refs/notes/",
        ] {
            let e = parse(bad).map(drop).expect_err(bad);
            assert_eq!(e.kind(), clap::error::ErrorKind::ValueValidation, "{bad}: {e}");
            assert_eq!(e.exit_code(), 2, "{bad}");
        }
        for good in ["refs/notes/speccoder", "refs/notes/remotes/origin/speccoder", "refs/notes/a.b"] {
            assert!(parse(good).is_ok(), "{good}");
        }
    }
}

/// `--signature-time`: when SSH keys must have been trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SignatureTimeArg {
    /// Each task commit's committer date.
    Commit,
    /// The time of verification.
    Now,
}

/// `--allowed-signers-rev`'s value, refused as a usage error unless it is `REV:PATH`.
fn rev_path(value: &str) -> Result<String, NotRevPath> {
    match speccoder_attest::check::trust::split_rev_path(value) {
        Some(_) => Ok(value.to_owned()),
        None => Err(NotRevPath),
    }
}

/// A value that is not `REV:PATH`.
#[derive(Debug, thiserror::Error)]
#[error(
    "takes {}, PATH a file's path in that tree: relative to its root, without an empty, `.` or `..` part",
    speccoder_attest::check::trust::REV_PATH_FORM
)]
pub struct NotRevPath;
