//! The command line: clap types only, no behaviour.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// speccoder's attestation side: sign what was proven about a task, and verify it again.
#[derive(Debug, Parser)]
#[command(name = "speccoder", version, about, long_about = None)]
pub struct Cli {
    /// Run as if started in DIR.
    #[arg(short = 'C', global = true, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Write the JSON Schemas generated from the wire types, or check the committed ones.
    ///
    /// Exit codes: 0 written or up to date; 26 with --check when a file differs or is missing
    /// (each such file is named); 1 when a file cannot be read or written.
    Schema(SchemaArgs),
    /// Tick a finished task, commit it with trailers, and attach its signed evidence as a git note.
    ///
    /// `speccoder attest <unit>/<task> --evidence FILE` creates the task commit on the current
    /// branch (HEAD's tree, plus what is staged, plus the tick), builds one test-result statement per
    /// phase, the task-verification statement and the verification summary, signs each DSSE
    /// envelope and writes them as JSON Lines to the commit's note in refs/notes/speccoder.
    ///
    /// The signer is chosen like git's: --signer/--key, else `gpg.format=ssh` and `user.signingKey`.
    /// Without a key the lines are written unsigned and `speccoder attest sign` signs them later.
    ///
    /// Exit codes: 0 written; 2 bad target or unknown unit/task; 13 bad evidence, spec file,
    /// speccoder.toml, identity or key, or a statement that would leak; 14 repository state (not a
    /// repository, detached HEAD, unborn branch, already ticked, unstaged tasks.md); 1 internal error.
    #[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
    Attest(Box<AttestArgs>),
}

/// `speccoder attest`.
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
    /// How to sign.
    #[command(flatten)]
    pub signing: SigningArgs,
    /// Print one JSON object instead of the human summary.
    #[arg(long)]
    pub json: bool,
}

/// Signer selection, shared by every command that signs.
#[derive(Debug, Args, Clone)]
pub struct SigningArgs {
    /// ssh, openpgp, none, or auto (git's gpg.format and user.signingKey; also `[attest] signer` in speccoder.toml).
    #[arg(long, value_name = "BACKEND")]
    pub signer: Option<String>,
    /// The signing key. SSH: a private key file, a public key file whose key is in ssh-agent, or a
    /// `key::ssh-ed25519 AAAA...` literal. OpenPGP: a secret key file (signed in-process), or a
    /// key id, fingerprint or user id in gpg's keyring (signed by gpg). Overrides git's
    /// user.signingKey; without gpg.format or --signer, an SSH key means SSH, anything else OpenPGP.
    #[arg(long, value_name = "KEY")]
    pub key: Option<String>,
}

/// Subcommands of `speccoder attest`.
#[derive(Debug, Subcommand)]
pub enum AttestSub {
    /// Sign the unsigned lines of a task commit's note, leaving the payloads unchanged.
    ///
    /// Exit codes: 0 signed (or nothing left to sign); 13 bad key; 14 unknown revision, no note,
    /// or no key configured; 1 internal error.
    Sign(AttestSignArgs),
    /// Check task commits, or every ticked task of a branch, against your own trust.
    ///
    /// Without --branch: checks the task commits named (REV, or A..B; default every commit on
    /// the current branch carrying Spec-Task:). With --branch: checks every ticked task of the
    /// units the branch touched since its base (--all: every unit), including ticks without
    /// evidence and evidence left behind by a squash or rebase merge.
    ///
    /// Trust comes only from you: --allowed-signers FILE (default git's
    /// gpg.ssh.allowedSignersFile) or --allowed-signers-rev REV:PATH, and --revoked FILE. A trust
    /// file that the checked tree itself provides is refused.
    ///
    /// Exit codes: 0 every tick holds; 26 a tick is stale or unverifiable; 15 nothing to check;
    /// 13 a trust file is unusable; 14 repository state; 2 usage; 1 internal error.
    Verify(VerifyArgs),
}

/// `speccoder attest verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// A task commit, or a range A..B of commits (not with --branch).
    #[arg(value_name = "REV | A..B", conflicts_with = "branch")]
    pub range: Option<String>,
    /// Check the ticked tasks of a branch (default HEAD).
    #[arg(long, value_name = "HEAD", num_args = 0..=1, default_missing_value = "HEAD")]
    pub branch: Option<String>,
    /// The revision the branch started from (default: the merge base with origin/HEAD, main or master).
    #[arg(long, value_name = "REV", requires = "branch")]
    pub base: Option<String>,
    /// Check every unit, not only those the branch touched.
    #[arg(long, requires = "branch", conflicts_with = "base")]
    pub all: bool,
    /// The SSH allowed-signers file you trust (ssh-keygen's format).
    #[arg(long, value_name = "FILE", conflicts_with = "allowed_signers_rev")]
    pub allowed_signers: Option<PathBuf>,
    /// An allowed-signers file read from a revision, meant to be the base: REV:PATH.
    #[arg(long, value_name = "REV:PATH")]
    pub allowed_signers_rev: Option<String>,
    /// SSH public keys that are revoked, one per line.
    #[arg(long, value_name = "FILE")]
    pub revoked: Option<PathBuf>,
    /// OpenPGP certificates you trust (armored or binary, one or more).
    #[arg(long, value_name = "FILE")]
    pub openpgp_certs: Option<PathBuf>,
    /// Count unsigned evidence as holding; the report says it was accepted unsigned.
    #[arg(long)]
    pub accept_unsigned: bool,
    /// Fail regression_only and attested ticks too.
    #[arg(long)]
    pub require_verified: bool,
    /// Check signatures with the real tools (ssh-keygen -Y, sqv) instead of in-process.
    #[arg(long)]
    pub via_tools: bool,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Also write a Markdown report (for a pull request comment) to FILE.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
}

/// `speccoder attest sign`.
#[derive(Debug, Args)]
pub struct AttestSignArgs {
    /// The task commit (default HEAD).
    #[arg(value_name = "REV", default_value = "HEAD")]
    pub rev: String,
    /// How to sign.
    #[command(flatten)]
    pub signing: SigningArgs,
    /// Print one JSON object instead of the human summary.
    #[arg(long)]
    pub json: bool,
}

/// `speccoder schema`.
#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// Compare instead of writing: fail and name every file that differs from the types.
    #[arg(long)]
    pub check: bool,
    /// The directory that holds the schemas.
    #[arg(long, default_value = "schema", value_name = "DIR")]
    pub out: PathBuf,
}
