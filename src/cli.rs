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
