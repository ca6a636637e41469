//! `speccoder attest verify`.

use speccoder_attest::check::trust::{SignatureTrust, TrustError};
use speccoder_attest::check::verifier_policy::{PolicyLoadError, load_policy};
use speccoder_attest::exit;
use speccoder_attest::git::{GitError, Head, ObjectId, Repo};
use std::io::IsTerminal as _;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use speccoder_attest::output_file::{self, OutputError};
use speccoder_attest::verify::github::GithubWriter;
use speccoder_attest::verify::render::{JsonWriter, MarkdownWriter, TextWriter};
use speccoder_attest::verify::report::{Report, ReportEnd, ReportHead, ReportSink, TickReport};
use speccoder_attest::verify::trust::Trust;
use speccoder_attest::verify::{
    BranchOptions, Checked, VerifyError, verify_branch_into, verify_commits_into,
};
use speccoder_attest::verify::{completeness, github};

use super::output::{StdoutStream, Stream};

use crate::cli::VerifyArgs;

pub fn run(args: &VerifyArgs) -> u8 {
    let started = Instant::now();
    let fail = |code: u8, msg: String| {
        if args.json {
            super::output::print_json_error(&msg, code);
        }
        super::output::failed("attest verify", &msg);
        code
    };
    let repo = match Repo::discover_to_read(".") {
        Ok(r) => r,
        Err(e) => return fail(exit::GIT_PRECONDITION, e.to_string()),
    };
    for spec in [&args.trust.allowed_signers_rev, &args.policy.policy_rev].into_iter().flatten() {
        if let Err(e) = completeness::fetch_revision_file(&repo, spec) {
            return fail(exit::GIT_PRECONDITION, e.to_string());
        }
    }
    let branch = args.branch.as_ref().map(|head| BranchOptions {
        head: Some(head.clone()),
        base: args.base.clone(),
        all: args.all,
    });
    let checked = match &branch {
        Some(opts) => Checked::of_branch(&repo, opts),
        None => Checked::of_commits(&repo, args.range.as_deref()),
    };
    // A branch before its first commit has nothing to check: an empty report, like a branch
    // that ticks nothing, said as such.
    let (checked, unborn) = match checked {
        Ok(c) => (Some(c), None),
        Err(e @ VerifyError::Unborn(_)) => (None, Some(e.to_string())),
        Err(e) => return fail(exit_code_of(&e), e.to_string()),
    };
    let trust = match build_trust(&repo, args, checked.as_ref()) {
        Ok(t) => t,
        Err((code, message)) => return fail(code, message),
    };
    let mut out = Streamed::new(args, &repo, started);
    let result = match (&branch, &unborn) {
        (_, Some(_)) => {
            let mode = if branch.is_some() { "branch" } else { "commits" };
            Report::new(mode, Vec::new(), &trust).replay(&mut out);
            Ok(())
        }
        (Some(opts), None) => verify_branch_into(&repo, opts, &trust, &mut out).map(drop),
        (None, None) => verify_commits_into(&repo, args.range.as_deref(), &trust, &mut out).map(drop),
    };
    match result {
        Ok(()) => out.close(args, unborn.as_deref()),
        Err(e) => {
            let code = exit_code_of(&e);
            if !out.fail(&e.to_string(), code) {
                return fail(code, e.to_string());
            }
            super::output::failed("attest verify", &e.to_string());
            code
        }
    }
}

/// The exit code of a run that could not happen: 14 for what the clone lacks or a notes ref
/// that cannot be used, 2 for a revision that does not resolve, 13 for the rest.
fn exit_code_of(e: &VerifyError) -> u8 {
    match e {
        VerifyError::Shallow { .. } | VerifyError::NotesNotFetched { .. } => exit::GIT_PRECONDITION,
        VerifyError::Git(
            GitError::NotesTreeHostile { .. }
            | GitError::NotesTreeTooLarge { .. }
            | GitError::NotesRefUnusable { .. }
            | GitError::GitCommand { .. },
        ) => exit::GIT_PRECONDITION,
        VerifyError::Git(_) => exit::USAGE,
        _ => exit::CONFIG,
    }
}

/// Where `attest verify` puts its report as the run decides it ([`ReportSink`]): stdout (text,
/// `--json` or `--github`), the Markdown of `--markdown` and `$GITHUB_STEP_SUMMARY` (its rows
/// kept in a temporary file until the summary that heads them is known), and the progress line
/// on a terminal. The run's end is kept until [`Streamed::close`] has the exit code.
struct Streamed<'r> {
    /// What goes to stdout.
    stdout: Stdout<'r>,
    /// The Markdown rows, when a Markdown report is asked for.
    markdown: Option<MarkdownWriter<std::io::BufWriter<std::fs::File>>>,
    /// A temporary file for them could not be made.
    markdown_failed: Option<std::io::Error>,
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
    fn new(args: &VerifyArgs, repo: &'r Repo, started: Instant) -> Self {
        let progress = Progress::new(started);
        let bar = progress.bar.clone();
        let stdout = if args.json {
            Stdout::Json(JsonWriter::new(StdoutStream::new(Stream::Json, bar)))
        } else if args.github {
            let head = args.branch.as_deref().unwrap_or("HEAD");
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
        Streamed { stdout, markdown, markdown_failed, progress, ended: None }
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
    /// error. False when nothing was written yet (the caller says it all).
    fn fail(&mut self, message: &str, code: u8) -> bool {
        self.progress.clear();
        let begun = match &mut self.stdout {
            Stdout::Json(w) if w.is_open() => {
                w.fail(message, code);
                true
            }
            Stdout::Json(_) => false,
            Stdout::Text(_) | Stdout::Github(_) => self.progress.begun,
        };
        self.stream().flush();
        begun
    }

    /// Writes the Markdown report (first, so that `--json` can carry the exit code), then the end
    /// of stdout, then the step summary; returns the exit code. An output file that cannot be
    /// written makes the run a configuration error (13), unless a tick already fails it (26); the
    /// report still reaches stdout whole.
    fn close(mut self, args: &VerifyArgs, unborn: Option<&str>) -> u8 {
        self.progress.clear();
        let Some((head, end)) = self.ended.take() else { return exit::INTERNAL };
        let mut code = match end.exit_code() {
            exit::NOTHING_TO_CHECK if args.allow_empty => exit::OK,
            code => code,
        };
        let output_failed = |code: u8| if code == exit::DOES_NOT_HOLD { code } else { exit::CONFIG };
        let mut unwritten = Vec::new();
        let markdown = self.markdown_spool(&mut unwritten);
        if let Some(path) = &args.markdown
            && let Err(e) = markdown_to(&markdown, |write| output_file::write_whole_with(path, write))
        {
            unwritten.push(e.to_string());
        }
        if !unwritten.is_empty() {
            code = output_failed(code);
        }
        if let Stdout::Json(w) = &mut self.stdout {
            w.set_exit_code(code);
        }
        self.sink().end(&head, &end);
        drop(self.stdout);
        if args.github
            && let Some(path) = step_summary()
            && let Err(e) = markdown_to(&markdown, |write| output_file::append_with(&path, write))
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
            let why = unborn.unwrap_or("nothing to check (no ticked task or task commit in range)");
            super::output::to_stderr(format_args!("speccoder attest verify: {why}"));
        }
        for e in unwritten {
            super::output::to_stderr(format_args!("speccoder attest verify: {e}"));
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

/// `checked N of M ticks` on stderr, redrawn in place, once a check has run for a second; only
/// when stderr is a terminal (indicatif draws nothing elsewhere either).
struct Progress {
    /// The line, when stderr is a terminal.
    bar: Option<ProgressBar>,
    /// When the command started.
    started: Instant,
    /// The line is drawn.
    shown: bool,
    /// The run began its report.
    begun: bool,
}

/// How long a check runs before its progress is shown.
const PROGRESS_AFTER: Duration = Duration::from_secs(1);

impl Progress {
    fn new(started: Instant) -> Self {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
            if let Ok(style) = ProgressStyle::with_template("checked {pos} of {len} ticks") {
                bar.set_style(style);
            }
            bar
        });
        Progress { bar, started, shown: false, begun: false }
    }

    /// The run checks `ticks` ticks.
    fn begin(&mut self, ticks: usize) {
        self.begun = true;
        if let Some(bar) = &self.bar {
            bar.set_length(ticks as u64);
        }
        self.row_at(0);
    }

    /// A row was decided (the rows after the ticks, skips and bug tasks, leave it at M).
    fn row(&mut self) {
        self.row_at(1);
    }

    fn row_at(&mut self, more: u64) {
        let Some(bar) = &self.bar else { return };
        if bar.position() < bar.length().unwrap_or(0) {
            bar.inc(more);
        }
        if !self.shown && self.started.elapsed() >= PROGRESS_AFTER {
            self.shown = true;
            bar.set_draw_target(ProgressDrawTarget::stderr());
        }
    }

    /// Takes the line away, for what comes after it on stderr.
    fn clear(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

/// The caller's trust and policy; a trust or policy revision inside `range` (the history
/// checked) is refused, and so is a trust or policy file the checked tree holds. No range (a
/// branch before its first commit): nothing is checked, and trust and policy are still read, so
/// that a file that cannot be used is said so.
fn build_trust(repo: &Repo, args: &VerifyArgs, range: Option<&Checked>) -> Result<Trust, (u8, String)> {
    let usage_or_config = |e: &TrustError| match e {
        TrustError::Git(_) => exit::USAGE,
        _ => exit::CONFIG,
    };
    let refused = |e: TrustError| (usage_or_config(&e), e.to_string());
    let head = match repo.head().map_err(|e| refused(e.into()))? {
        Head::Branch { commit, .. } | Head::Detached(commit) => Some(commit),
        Head::Unborn(_) => None,
    };
    let checked = match (range, &args.branch) {
        (None, _) => None,
        (Some(_), Some(rev)) => Some(repo.rev_parse(rev).map_err(|e| refused(e.into()))?),
        (Some(_), None) => head,
    };
    // The tree a trust or policy file may not come from; before the first commit, none.
    let checked_tree = match checked {
        Some(commit) => repo.commit_tree(commit).map_err(|e| refused(e.into()))?,
        None => repo.empty_tree_id(),
    };
    let in_range = |c: ObjectId| range.is_some_and(|range| range.contains(repo, c));
    let files = super::trust::trust_files(&args.trust);
    let signers = SignatureTrust::load(repo, &files, checked_tree, &in_range).map_err(refused)?;
    let policy = super::trust::policy_source(&args.policy)
        .map(|source| load_policy(repo, &source, checked_tree, &in_range))
        .transpose()
        .map_err(|e| match e {
            PolicyLoadError::Place(e) => refused(e),
            e => (exit::CONFIG, e.to_string()),
        })?;
    Ok(Trust {
        signers,
        accept_unsigned: args.accept_unsigned,
        require_verified: args.require_verified,
        jobs: args.jobs.and_then(|n| std::num::NonZeroUsize::new(usize::from(n))),
        signature_time: super::trust::signature_time(&args.trust),
        policy,
    })
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
    let facts = speccoder_attest::spec::read_any_task(&repo.tree(tree), unit, id).ok()?;
    Some(if facts.is_trailer_only() {
        github::Location { file: format!("{}/assessment.md", facts.tasks_path), line: 1 }
    } else {
        github::Location { file: facts.tasks_path, line: facts.line_index + 1 }
    })
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
