//! Where `attest verify` puts its report while the check decides it: stdout (text, `--json` or
//! `--github`), the Markdown of `--markdown` and `$GITHUB_STEP_SUMMARY`, and the progress line
//! on a terminal.

use std::time::Instant;

use speccoder_attest::exit;
use speccoder_attest::git::{ObjectId, Repo};
use speccoder_attest::model::shown::ci_safe;
use speccoder_attest::output_file::{self, OutputError};
use speccoder_attest::verify::github::{self, GithubWriter};
use speccoder_attest::verify::render::{JsonWriter, MarkdownWriter, TextWriter};
use speccoder_attest::verify::report::{ReportEnd, ReportHead, ReportSink, TickReport};

use crate::cli::VerifyArgs;
use crate::commands::output::{StdoutStream, Stream};
use crate::commands::progress::Progress;

/// Where `attest verify` puts its report as the run decides it ([`ReportSink`]): stdout (text,
/// `--json` or `--github`), the Markdown of `--markdown` and `$GITHUB_STEP_SUMMARY` (its rows
/// kept in a temporary file until the summary that heads them is known), and the progress line
/// on a terminal. The run's end is kept until [`Streamed::close`] has the exit code.
pub(super) struct Streamed<'r> {
    /// What goes to stdout.
    stdout: Stdout<'r>,
    /// The Markdown rows, when a Markdown report is asked for.
    markdown: Option<MarkdownWriter<std::io::BufWriter<std::fs::File>>>,
    /// A temporary file for them could not be made.
    markdown_failed: Option<std::io::Error>,
    /// The git directories where no report is ever written ([`Repo::git_dirs_guarded`]: a file
    /// there becomes a ref, or breaks one).
    git_dirs: Vec<std::path::PathBuf>,
    /// `checked N of M ticks`.
    progress: Progress,
    /// The report's head and end, once the run has ended.
    ended: Option<(ReportHead, ReportEnd)>,
}

/// Where a task's line is in the head's tree, for `--github`'s annotations.
type Locate<'r> = Box<dyn Fn(&str) -> Option<github::Location> + 'r>;

/// The rendering stdout gets.
enum Stdout<'r> {
    /// The text report.
    Text(TextWriter<StdoutStream>),
    /// `--json`.
    Json(JsonWriter<StdoutStream>),
    /// `--github`: workflow commands, each failing tick annotated at its line in the head's tree.
    Github(GithubWriter<StdoutStream, Locate<'r>>),
}

impl<'r> Streamed<'r> {
    pub(super) fn new(args: &VerifyArgs, repo: &'r Repo, started: Instant) -> Self {
        let progress = Progress::new(started);
        let bar = progress.bar();
        let stdout = if args.json {
            Stdout::Json(JsonWriter::new(StdoutStream::new(Stream::Json, bar)))
        } else if args.github {
            let head = args.history.branch.as_deref().unwrap_or("HEAD");
            let head_tree = repo.rev_parse(&format!("{head}^{{tree}}"));
            let locate = move |task: &str| head_tree.as_ref().ok().and_then(|tree| locate(repo, *tree, task));
            Stdout::Github(GithubWriter::new(
                StdoutStream::new(Stream::Workflow, bar),
                stop_token(),
                Box::new(locate),
            ))
        } else {
            Stdout::Text(TextWriter { out: StdoutStream::new(Stream::Text, bar) })
        };
        let wants_markdown = args.markdown.is_some() || (args.github && step_summary().is_some());
        let (markdown, markdown_failed) = match wants_markdown.then(tempfile::tempfile) {
            None => (None, None),
            Some(Ok(file)) => (Some(MarkdownWriter::new(std::io::BufWriter::new(file))), None),
            Some(Err(e)) => (None, Some(e)),
        };
        let git_dirs = repo.git_dirs_guarded();
        Streamed { stdout, markdown, markdown_failed, git_dirs, progress, ended: None }
    }

    fn stream(&mut self) -> &mut StdoutStream {
        match &mut self.stdout {
            Stdout::Text(w) => &mut w.out,
            Stdout::Json(w) => &mut w.out,
            Stdout::Github(w) => &mut w.out,
        }
    }

    fn sink(&mut self) -> &mut dyn ReportSink {
        match &mut self.stdout {
            Stdout::Text(w) => w,
            Stdout::Json(w) => w,
            Stdout::Github(w) => w,
        }
    }

    /// Ends the output of a run that failed after it began: `--json` closes its object with the
    /// error, `--github` its fence, with the annotations of the rows so far and the error's. False
    /// when nothing was written yet (the caller says it all).
    pub(super) fn fail(&mut self, message: &str, code: u8) -> bool {
        self.progress.clear();
        let begun = match &mut self.stdout {
            Stdout::Json(w) if w.is_open() => {
                w.fail(&ci_safe(message), code);
                true
            }
            Stdout::Github(w) if w.is_open() => {
                w.fail(message, code);
                true
            }
            Stdout::Json(_) | Stdout::Github(_) => false,
            Stdout::Text(_) => self.progress.begun(),
        };
        self.stream().flush();
        begun
    }

    /// Writes the Markdown report (first, so that `--json` can carry the exit code), then the end
    /// of stdout, then the step summary; returns the exit code. An output file that cannot be
    /// written makes the run a configuration error (13), unless a tick already fails it (26); the
    /// report still reaches stdout whole.
    pub(super) fn close(mut self, args: &VerifyArgs, unborn: Option<&str>) -> u8 {
        self.progress.clear();
        let Some((head, end)) = self.ended.take() else { return exit::INTERNAL };
        let mut code = match end.exit_code() {
            exit::NOTHING_TO_CHECK if args.allow_empty => exit::OK,
            code => code,
        };
        let output_failed = |code: u8| if code == exit::DOES_NOT_HOLD { code } else { exit::CONFIG };
        let mut unwritten = Vec::new();
        let git_dirs = std::mem::take(&mut self.git_dirs);
        let markdown = self.markdown_spool(&mut unwritten);
        if let Some(path) = &args.markdown
            && let Err(e) = outside(&git_dirs, path)
                .and_then(|()| markdown_to(&markdown, |write| output_file::write_whole_with(path, write)))
        {
            unwritten.push(e.to_string());
        }
        if !unwritten.is_empty() {
            code = output_failed(code);
        }
        if let Stdout::Json(w) = &mut self.stdout {
            w.set_exit_code(code);
            if !unwritten.is_empty() {
                w.set_error(unwritten.join("; "));
            }
        }
        self.sink().end(&head, &end);
        drop(self.stdout);
        if args.github
            && let Some(path) = step_summary()
            && let Err(e) = outside(&git_dirs, &path)
                .and_then(|()| markdown_to(&markdown, |write| output_file::append_with(&path, write)))
        {
            unwritten.push(format!(
                "cannot append the report to $GITHUB_STEP_SUMMARY ({}): {}; set GITHUB_STEP_SUMMARY to a \
                 regular file (or unset it) to have the summary; the report above is complete",
                path.display(),
                e.problem
            ));
            code = output_failed(code);
        }
        if end.exit_code() == exit::NOTHING_TO_CHECK && !args.json {
            let why = unborn.unwrap_or(head.nothing_to_check());
            crate::commands::output::to_stderr(format_args!("speccoder attest verify: {why}"));
        }
        for e in unwritten {
            crate::commands::output::to_stderr(format_args!("speccoder attest verify: {e}"));
        }
        code
    }

    /// The Markdown report's heading and its rows' file, rewound; what went wrong, in `unwritten`.
    fn markdown_spool(&mut self, unwritten: &mut Vec<String>) -> Option<(String, std::fs::File)> {
        let spooled = match (self.markdown.take(), self.markdown_failed.take()) {
            (_, Some(e)) => Err(e),
            (None, None) => return None,
            (Some(writer), None) => match writer.finish() {
                (_, _, Some(e)) => Err(e),
                (heading, rows, None) => rows
                    .into_inner()
                    .map_err(std::io::IntoInnerError::into_error)
                    .map(|file| (heading.unwrap_or_default(), file)),
            },
        };
        match spooled {
            Ok(spooled) => Some(spooled),
            Err(e) => {
                unwritten.push(format!("cannot keep the Markdown report in a temporary file: {e}"));
                None
            }
        }
    }
}

/// Refuses `path` inside `git_dirs` ([`Repo::git_dirs_guarded`]: the repository's git directory,
/// the common one of its worktrees, and those of the repositories around it), as
/// [`output_file::refuse_in_git_dir`] does.
fn outside(git_dirs: &[std::path::PathBuf], path: &std::path::Path) -> Result<(), OutputError> {
    output_file::refuse_in_git_dir(
        path,
        &git_dirs.iter().map(std::path::PathBuf::as_path).collect::<Vec<_>>(),
    )
}

/// Writes the Markdown report (`heading` and the rows' file) through `to`; nothing when it
/// could not be kept (said already).
fn markdown_to(
    markdown: &Option<(String, std::fs::File)>,
    to: impl FnOnce(&mut dyn FnMut(&mut dyn std::io::Write) -> std::io::Result<()>) -> Result<(), OutputError>,
) -> Result<(), OutputError> {
    let Some((heading, file)) = markdown else { return Ok(()) };
    to(&mut |out: &mut dyn std::io::Write| {
        use std::io::Seek as _;
        let mut rows = file;
        rows.seek(std::io::SeekFrom::Start(0))?;
        out.write_all(heading.as_bytes())?;
        std::io::copy(&mut rows, out).map(drop)
    })
}

impl ReportSink for Streamed<'_> {
    fn begin(&mut self, head: &ReportHead) {
        self.progress.begin(head.ticks);
        if let Some(w) = &mut self.markdown {
            w.begin(head);
        }
        self.sink().begin(head);
    }

    fn row(&mut self, tick: TickReport) {
        self.progress.row();
        if let Some(w) = &mut self.markdown {
            w.row(tick.clone());
        }
        self.sink().row(tick);
    }

    fn end(&mut self, head: &ReportHead, end: &ReportEnd) {
        if let Some(w) = &mut self.markdown {
            w.end(head, end);
        }
        self.ended = Some((head.clone(), end.clone()));
    }
}

/// Where GitHub annotates a tick: its line in the task list at the head (a bug task: its home's
/// assessment).
fn locate(repo: &Repo, tree: ObjectId, task: &str) -> Option<github::Location> {
    let (unit, id) = task.split_once('/')?;
    // An unrecognized tick's row is named `<unit>/tasks.md:<line>`.
    if let Some(line) = id.strip_prefix("tasks.md:").and_then(|n| n.parse::<usize>().ok()) {
        let loc = speccoder_attest::spec::locate_unit(&repo.tree(tree), unit).ok()?;
        return Some(github::Location { file: loc.tasks, line });
    }
    let (file, line) = speccoder_attest::spec::task_location(&repo.tree(tree), unit, id).ok()?;
    Some(github::Location { file, line })
}

/// A token nobody who wrote the checked repository can guess, to fence the report off from the
/// runner's command parser.
fn stop_token() -> String {
    use ssh_key::rand_core::RngCore as _;
    let mut bytes = [0u8; 16];
    ssh_key::rand_core::OsRng.fill_bytes(&mut bytes);
    format!("speccoder-{}", hex::encode(bytes))
}

/// The file `$GITHUB_STEP_SUMMARY` names, when it is set.
fn step_summary() -> Option<std::path::PathBuf> {
    std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty()).map(std::path::PathBuf::from)
}
