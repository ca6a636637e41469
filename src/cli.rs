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
    Attest(AttestArgs),
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
    /// ssh, none, or auto (git's gpg.format and user.signingKey; also `[attest] signer` in speccoder.toml).
    #[arg(long, value_name = "BACKEND")]
    pub signer: Option<String>,
    /// The signing key: a private key file, a public key file whose key is in ssh-agent, or a
    /// `key::ssh-ed25519 AAAA...` literal. Overrides git's user.signingKey and means SSH unless
    /// gpg.format names another format.
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
