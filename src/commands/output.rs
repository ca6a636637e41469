//! How a command's result reaches the user: its report on stdout (text, or JSON with `--json`),
//! its failure on stderr, and its exit code. A reader that went away (`speccoder ... | head`)
//! ends the output quietly: the exit code still tells how the command went. Any other failure to
//! write stdout (a full disk, an I/O error) is said on stderr and fails the command
//! ([`delivered`]): a report cut short is never taken for a whole one.

use std::io::Write as _;
use std::sync::OnceLock;

use speccoder_attest::exit::{self, ExitClass};
use speccoder_attest::model::shown::{ci_safe, ci_safe_json, json_path, workflow_safe};

/// Prints a command's result (`--json`: one JSON object, carrying the exit code as
/// [`print_json_report`] adds it; otherwise its Display) and returns its exit code; a failure goes
/// to stderr as `speccoder <command>: <message>` (and to stdout as `{"error", "exit_code"}` with
/// `--json`).
pub(crate) fn finish<R, E>(command: &str, json: bool, result: Result<R, E>, code: impl Fn(&R) -> u8) -> u8
where
    R: serde::Serialize + std::fmt::Display,
    E: std::fmt::Display + ExitClass,
{
    finish_with(command, json, result, code, |_| JsonFields::new())
}

/// [`finish`], a failure's JSON object carrying the failure's own `fields` beside `error` and
/// `exit_code` (what the remote said, for a push it refused).
pub(crate) fn finish_with<R, E>(
    command: &str,
    json: bool,
    result: Result<R, E>,
    code: impl Fn(&R) -> u8,
    fields: impl Fn(&E) -> JsonFields,
) -> u8
where
    R: serde::Serialize + std::fmt::Display,
    E: std::fmt::Display + ExitClass,
{
    match result {
        Ok(report) => {
            let exit_code = code(&report);
            if json {
                print_json_report(&report, exit_code);
            } else {
                to_stdout_text(&report.to_string());
            }
            exit_code
        }
        Err(e) => {
            let exit_code = e.exit_code();
            if json {
                print_json_error_with(&e.to_string(), exit_code, fields(&e));
            }
            failed(command, &e.to_string());
            exit_code
        }
    }
}

/// With `--json` (`json`), refuses the `paths` of this machine the report will name when one is
/// not UTF-8 ([`json_path`]: a JSON string names a path exactly, or not at all), before the command
/// does anything: said as `command`'s failure, with its JSON object, exit 2 (the command line asks
/// for a report that cannot be given). `Err` holds the exit code.
pub(crate) fn refuse_unnamable_paths<P: AsRef<std::path::Path>>(
    command: &str,
    json: bool,
    paths: &[P],
) -> Result<(), u8> {
    if !json {
        return Ok(());
    }
    match paths.iter().find_map(|path| json_path(path.as_ref()).err()) {
        None => Ok(()),
        Some(refused) => {
            print_json_error(&refused.to_string(), exit::USAGE);
            failed(command, &refused.to_string());
            Err(exit::USAGE)
        }
    }
}

/// Says on stderr why `speccoder <command>` failed (`--json` callers print the JSON object
/// first: [`print_json_error`], or the end of a streamed report, which carries the error).
pub(crate) fn failed(command: &str, message: &str) {
    to_stderr(format_args!("speccoder {command}: {message}"));
    if message.contains("`git ")
        && let Some(top) = work_tree_top_above_cwd()
    {
        to_stderr(format_args!(
            "  (the paths above are from the top of the work tree: run those git commands in {})",
            top.display()
        ));
    }
}

/// The top of the work tree the current directory is below (not at): where the repository paths
/// in a message, and the git commands it advises with them, hold, as git's own paths do not
/// (git shows paths from the current directory).
fn work_tree_top_above_cwd() -> Option<std::path::PathBuf> {
    let repo = speccoder_attest::git::Repo::discover(".").ok()?;
    let top = std::fs::canonicalize(repo.workdir()?).ok()?;
    let cwd = std::env::current_dir().ok()?.canonicalize().ok()?;
    (cwd != top && cwd.starts_with(&top)).then_some(top)
}

/// Prints a report as the one JSON object `--json` promises, with `exit_code` (the process's exit
/// code) added beside its own fields: a machine reading stdout learns how the command went from
/// the object alone, whether it is a report (a tick that does not hold: 26) or a failure
/// ([`print_json_error`]).
pub(crate) fn print_json_report<R: serde::Serialize>(report: &R, exit_code: u8) {
    /// The report's own fields, in their order, then `exit_code`.
    #[derive(serde::Serialize)]
    struct WithExitCode<'a, R> {
        #[serde(flatten)]
        report: &'a R,
        exit_code: u8,
    }
    let json = serde_json::to_string(&WithExitCode { report, exit_code }).unwrap_or_default();
    to_stdout(format_args!("{}", ci_safe_json(&json)));
}

/// Whether the command line asks for `--json` (before any `--`): for a failure found before a
/// command's own arguments are read.
pub fn json_asked() -> bool {
    std::env::args_os().skip(1).take_while(|arg| arg != "--").any(|arg| arg == "--json")
}

/// Prints a failure as the one JSON object `--json` promises: `{"error": …, "exit_code": …}`,
/// its message escaped as on stderr ([`ci_safe`]: whatever a name or a path it quotes holds, an
/// ESC, U+202E, a line that reads as a workflow command, shown escaped).
pub fn print_json_error(message: &str, exit_code: u8) {
    print_json_error_with(message, exit_code, JsonFields::new());
}

/// The fields a failure's JSON object carries besides `error` and `exit_code`.
pub(crate) type JsonFields = serde_json::Map<String, serde_json::Value>;

/// [`print_json_error`], with the failure's own `fields` beside `error` and `exit_code`.
fn print_json_error_with(message: &str, exit_code: u8, fields: JsonFields) {
    let mut object = fields;
    object.insert("error".to_owned(), ci_safe(message).into());
    object.insert("exit_code".to_owned(), exit_code.into());
    let json = serde_json::Value::Object(object).to_string();
    to_stdout(format_args!("{}", ci_safe_json(&json)));
}

/// A command line that cannot be run (clap's message, or a `-C` directory that cannot be
/// entered): `said` on stderr, escaped as every message is, and with `--json` the one object on
/// stdout too, `{"error", "exit_code"}`, whose message is `said` before its usage, on one line
/// (the error and clap's tips), without its `error: ` or `speccoder: `. Returns the usage error's
/// exit code.
pub fn usage_failed(said: &str) -> u8 {
    if json_asked() {
        let one_line = |paragraph: &str| paragraph.lines().map(str::trim).collect::<Vec<_>>().join(" ");
        let told = said.trim().split("\n\n").map(one_line);
        let told: Vec<String> =
            told.take_while(|p| !p.starts_with("Usage:") && !p.starts_with("For more")).collect();
        let text = told.join("; ");
        let text =
            ["error: ", "speccoder: "].iter().fold(text.as_str(), |t, p| t.strip_prefix(p).unwrap_or(t));
        print_json_error(text, exit::USAGE);
    }
    to_stderr(format_args!("{}", said.trim_end()));
    exit::USAGE
}

/// Writes clap's help or version (`shown`, an error of either kind) to stdout as clap prints it
/// and returns the exit code: 0, or as [`delivered`] says when stdout did not take it whole.
/// Styled only where anstream's `AutoStream` styles (clap's own printing): on a terminal, unless
/// `NO_COLOR` is set (to anything but empty), `CLICOLOR=0` or `TERM=dumb`; anywhere with
/// `CLICOLOR_FORCE`.
pub fn print_help(shown: &clap::Error) -> u8 {
    let carried = match shown.kind() {
        clap::error::ErrorKind::DisplayVersion => Carried::Version,
        _ => Carried::Help,
    };
    wrote(shown.print());
    flushed(exit::OK, carried)
}

/// Writes one line to stdout.
pub(crate) fn to_stdout(line: std::fmt::Arguments<'_>) {
    wrote(writeln!(std::io::stdout().lock(), "{line}"));
}

/// Writes the human-readable `text` to stdout, as it may reach a terminal or a CI log
/// ([`ci_safe`]).
pub(crate) fn to_stdout_text(text: &str) {
    wrote(std::io::stdout().lock().write_all(ci_safe(text).as_bytes()));
}

/// Writes JSON `text` to stdout, as it may reach a CI log ([`ci_safe_json`]).
pub(crate) fn to_stdout_json(text: &str) {
    wrote(std::io::stdout().lock().write_all(ci_safe_json(text).as_bytes()));
}

/// The first failure to write stdout that was not its reader going away: the report did not
/// reach its reader whole.
static STDOUT_FAILED: OnceLock<String> = OnceLock::new();

/// Keeps the first failure of a write to stdout; a reader that went away (`EPIPE`) is none.
fn wrote(result: std::io::Result<()>) {
    if let Err(e) = result
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        let _ = STDOUT_FAILED.set(e.to_string());
    }
}

/// A report stdout did not take whole: an unexpected failure, not one of the command's own.
#[derive(Debug, thiserror::Error)]
#[error("{} could not be written to standard output ({error}): it is cut short there", .carried.name())]
struct StdoutNotWritten {
    /// What stdout was to carry.
    carried: Carried,
    /// The write's error.
    error: String,
}

/// What a command writes to stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Carried {
    /// A command's report: the command did something, which stands when its report is lost.
    Report,
    /// `--help`: nothing was done.
    Help,
    /// `--version`: nothing was done.
    Version,
}

impl Carried {
    fn name(self) -> &'static str {
        match self {
            Carried::Report => "the report",
            Carried::Help => "the help",
            Carried::Version => "the version",
        }
    }
}

impl ExitClass for StdoutNotWritten {
    fn class(&self) -> exit::Class {
        exit::Class::Internal
    }
}

/// The exit code of a command that ended with `code`, once what it wrote to stdout is flushed:
/// `code` when stdout took all of it (or its reader went away), otherwise the exit code of
/// [`StdoutNotWritten`] in place of success, with the failure said on stderr. What the command
/// did (a tick, a note) stands either way; only its report is lost.
pub(crate) fn delivered(code: u8) -> u8 {
    flushed(code, Carried::Report)
}

/// [`delivered`], for stdout that carried `carried`.
fn flushed(code: u8, carried: Carried) -> u8 {
    wrote(std::io::stdout().lock().flush());
    let Some(error) = STDOUT_FAILED.get() else {
        return code;
    };
    let failure = StdoutNotWritten { carried, error: error.clone() };
    let succeeded = if code == exit::OK && carried == Carried::Report {
        "; the command itself succeeded, and what it wrote stands"
    } else {
        ""
    };
    to_stderr(format_args!("speccoder: {failure}{succeeded}"));
    if code == exit::OK { failure.exit_code() } else { code }
}

/// Writes one line to stderr, as it may reach a terminal or a CI log ([`ci_safe`]).
pub(crate) fn to_stderr(line: std::fmt::Arguments<'_>) {
    let line = line.to_string();
    let _ = writeln!(std::io::stderr().lock(), "{}", ci_safe(&line));
}

/// What a streamed report's stdout is, and so how its text is made safe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stream {
    /// Text for a person ([`ci_safe`]).
    Text,
    /// GitHub workflow commands ([`workflow_safe`]).
    Workflow,
    /// One JSON object, as serde_json writes it (it escapes every control character itself).
    Json,
}

/// stdout for a report written as it is decided (`attest verify`), which cannot go through
/// [`finish`]: its rows leave before its end is known. Whole rows are kept and written in blocks,
/// made safe as [`to_stdout_text`] makes them (workflow commands: [`workflow_safe`], which keeps
/// the lines of its own commands; a block ends at a row's end, so each line is judged whole), at
/// most ten times a second on a terminal and in 64 KiB blocks elsewhere; a progress line on stderr
/// is put aside while they are written (`--json` on a terminal that shows it is written whole at
/// the end). `--json` ends the object with `exit_code` as [`print_json_report`] does, or with
/// `error` and `exit_code` as [`print_json_error`] does. Whatever is left is written when it is
/// dropped.
pub(crate) struct StdoutStream {
    /// What the stream is.
    kind: Stream,
    /// What is not written yet.
    kept: String,
    /// stdout is a terminal: a person reads it as it comes.
    terminal: bool,
    /// When a block was last written.
    written: std::time::Instant,
    /// The progress line drawn on stderr, put aside while stdout is written.
    progress: Option<indicatif::ProgressBar>,
}

/// How much a stream keeps before it writes, when stdout is not a terminal.
const BLOCK: usize = 64 << 10;

/// How long a stream to a terminal keeps what it has before it writes it.
const TERMINAL_EVERY: std::time::Duration = std::time::Duration::from_millis(100);

impl StdoutStream {
    /// A stream of `kind` to stdout, putting `progress` aside while it writes.
    pub(crate) fn new(kind: Stream, progress: Option<indicatif::ProgressBar>) -> Self {
        use std::io::IsTerminal as _;
        StdoutStream {
            kind,
            kept: String::new(),
            terminal: std::io::stdout().is_terminal(),
            written: std::time::Instant::now(),
            progress,
        }
    }

    /// Writes what is kept.
    pub(crate) fn flush(&mut self) {
        if self.kept.is_empty() {
            return;
        }
        let text = std::mem::take(&mut self.kept);
        let write = || {
            let mut out = std::io::stdout().lock();
            wrote(match self.kind {
                Stream::Text => out.write_all(ci_safe(&text).as_bytes()),
                Stream::Workflow => out.write_all(workflow_safe(&text).as_bytes()),
                Stream::Json => out.write_all(ci_safe_json(&text).as_bytes()),
            });
            wrote(out.flush());
        };
        match &self.progress {
            Some(bar) => bar.suspend(write),
            None => write(),
        }
        self.written = std::time::Instant::now();
    }
}

impl std::fmt::Write for StdoutStream {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.kept.push_str(s);
        // JSON is one line until its end: on a terminal that also shows the progress line, a
        // part of it would share the line the progress is drawn on and cleared from, so it is
        // written whole at the end.
        let whole_at_end = self.kind == Stream::Json && self.terminal && self.progress.is_some();
        if !whole_at_end
            && (self.kept.len() >= BLOCK || (self.terminal && self.written.elapsed() >= TERMINAL_EVERY))
        {
            self.flush();
        }
        Ok(())
    }
}

impl Drop for StdoutStream {
    fn drop(&mut self) {
        self.flush();
    }
}
