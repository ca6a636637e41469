//! `speccoder schema [--check] [--out DIR] [--json]`.

use std::path::{Path, PathBuf};

use speccoder_attest::model::shown::shell_word;

use speccoder_attest::exit::{self, Class, ExitClass};
use speccoder_attest::git::Repo;
use speccoder_attest::model::shown::{exact_path, exact_paths, one_line, one_line_path};
use speccoder_attest::schema;
use speccoder_attest::{input, output_file};

use crate::cli::{SCHEMA_DIR, SchemaArgs};

/// What `speccoder schema` did: the schema files it wrote, or found up to date with `--check`.
#[derive(Debug, serde::Serialize)]
struct SchemaReport {
    /// The directory that holds the schemas, exactly ([`exact_path`]).
    #[serde(serialize_with = "exact_path")]
    dir: PathBuf,
    /// Whether the files were only compared (`--check`).
    check: bool,
    /// The files, each as its path, exactly.
    #[serde(serialize_with = "exact_paths")]
    files: Vec<PathBuf>,
}

impl std::fmt::Display for SchemaReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.check {
            let dir = one_line_path(&self.dir);
            return writeln!(f, "{} schemas in {dir} are up to date", self.files.len());
        }
        self.files.iter().try_for_each(|file| writeln!(f, "wrote {}", one_line_path(file)))
    }
}

/// Why `speccoder schema` stopped.
#[derive(Debug, thiserror::Error)]
enum SchemaError {
    /// `--check`: these files differ from the types, or cannot be read; `regenerate` is the
    /// command that writes them again (with the `--out DIR` that was checked).
    #[error("{}; {}run `{}` to regenerate them, then commit the result",
        .files.join("; "), if *.in_the_way { "remove each symbolic link, directory or other non-file named above, " } else { "" }, one_line(.regenerate))]
    Differ {
        /// Each file and what is wrong with it.
        files: Vec<String>,
        /// Whether something `speccoder schema` never replaces is at a file's path (a symbolic
        /// link, a directory, a FIFO): it must be removed before the schemas are written.
        in_the_way: bool,
        /// `speccoder schema`, with `--out DIR` when DIR is not the default.
        regenerate: String,
    },
    /// `--check`: something other than a directory is at DIR (a `regular file`, a `FIFO`, ...).
    #[error("{} is a {kind}, not a directory of schemas; name the directory that holds them with --out DIR", one_line_path(.dir))]
    NotADirectory {
        /// DIR.
        dir: std::path::PathBuf,
        /// What is there.
        kind: &'static str,
    },
    /// A file or the directory could not be written.
    #[error(transparent)]
    Write(#[from] output_file::OutputError),
}

impl ExitClass for SchemaError {
    fn class(&self) -> Class {
        match self {
            SchemaError::Differ { .. } => Class::DoesNotHold,
            SchemaError::NotADirectory { .. } | SchemaError::Write(_) => Class::Config,
        }
    }
}

/// Runs `speccoder schema`; `started_in` is the `-C DIR` the command line gave, for the advice.
pub fn run(args: &SchemaArgs, started_in: Option<&Path>) -> u8 {
    if let Err(code) = super::output::refuse_unnamable_paths("schema", args.json, &[&args.out]) {
        return code;
    }
    let result = if args.check { check(started_in, &args.out) } else { write(&args.out) };
    super::output::finish("schema", args.json, result, |_| exit::OK)
}

/// The command that writes the schemas into `dir`, run from where this one was: `speccoder
/// schema`, with `-C DIR` when this run was given one (`started_in`) and `--out DIR` unless `dir`
/// is the default, each word quoted for the shell when it needs to be.
fn regenerate_command(started_in: Option<&Path>, dir: &Path) -> String {
    let mut command = "speccoder".to_owned();
    if let Some(started_in) = started_in {
        command.push_str(&format!(" -C {}", shell_word(&started_in.to_string_lossy())));
    }
    command.push_str(" schema");
    if dir != Path::new(SCHEMA_DIR) {
        command.push_str(&format!(" --out {}", shell_word(&dir.to_string_lossy())));
    }
    command
}

/// Compares every schema file in `dir` with what the types generate.
fn check(started_in: Option<&Path>, dir: &Path) -> Result<SchemaReport, SchemaError> {
    // The schemas are the checked tree's own files: never read through a link the tree holds.
    if let Some(link) = output_file::link_on_the_way(dir) {
        return Err(SchemaError::Differ {
            files: vec![format!(
                "{} is a symbolic link, and the schemas are never read through one (a checked branch may have committed it)",
                one_line_path(&link)
            )],
            in_the_way: true,
            regenerate: regenerate_command(started_in, dir),
        });
    }
    if let Ok(meta) = std::fs::metadata(dir)
        && !meta.is_dir()
    {
        let kind = if meta.is_file() { "regular file" } else { input::kind_of(&meta.file_type()) };
        return Err(SchemaError::NotADirectory { dir: dir.to_owned(), kind });
    }
    let files = schema::all();
    let mut differing = Vec::new();
    let mut in_the_way = false;
    for f in &files {
        let path = dir.join(f.name);
        // A file larger than twice what the types generate differs, and is not read whole.
        let bound = u64::try_from(f.text.len()).unwrap_or(u64::MAX).saturating_mul(2);
        match input::read_regular(&path, bound) {
            Ok(bytes) if bytes == f.text.as_bytes() => {}
            Ok(_) | Err(input::InputError::TooLarge { .. }) => {
                differing.push(format!("{} differs from what the types generate", one_line_path(&path)));
            }
            Err(e) => {
                in_the_way |=
                    matches!(e, input::InputError::Symlink { .. } | input::InputError::NotRegular { .. });
                differing.push(format!("{} cannot be read: {}", one_line_path(&path), e.reason()));
            }
        }
    }
    if !differing.is_empty() {
        return Err(SchemaError::Differ {
            files: differing,
            in_the_way,
            regenerate: regenerate_command(started_in, dir),
        });
    }
    Ok(SchemaReport {
        dir: dir.to_owned(),
        check: true,
        files: files.iter().map(|f| dir.join(f.name)).collect(),
    })
}

/// Writes every schema file into `dir`, each replaced whole; never inside the git directory of a
/// repository around the current directory (a submodule's, its superproject's), where a file
/// becomes a ref or breaks one.
fn write(dir: &Path) -> Result<SchemaReport, SchemaError> {
    let git_dirs = Repo::git_dirs_around(Path::new("."));
    output_file::refuse_in_git_dir(dir, &git_dirs.iter().map(PathBuf::as_path).collect::<Vec<_>>())?;
    output_file::make_dir(dir)?;
    let mut written = Vec::new();
    for f in schema::all() {
        let path = dir.join(f.name);
        output_file::write_whole(&path, f.text.as_bytes())?;
        written.push(path);
    }
    Ok(SchemaReport { dir: dir.to_owned(), check: false, files: written })
}
