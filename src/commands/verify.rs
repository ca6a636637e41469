//! `speccoder attest verify`.

use speccoder_attest::check::trust::{SignatureTrust, TrustError};
use speccoder_attest::check::verifier_policy::{PolicyLoadError, load_policy};
use speccoder_attest::exit;
use speccoder_attest::git::{GitError, Head, ObjectId, Repo};
use speccoder_attest::verify::report::Report;
use speccoder_attest::verify::trust::Trust;
use speccoder_attest::verify::{BranchOptions, Checked, VerifyError, verify_branch, verify_commits};
use speccoder_attest::verify::{completeness, github};

use crate::cli::{PolicyArgs, TrustArgs, VerifyArgs};

pub fn run(args: &VerifyArgs) -> u8 {
    let fail = |code: u8, msg: String| {
        if args.json {
            super::output::print_json_error(&msg, code);
        }
        super::output::to_stderr(format_args!("speccoder attest verify: {msg}"));
        code
    };
    let repo = match Repo::discover_to_read(".") {
        Ok(r) => r,
        Err(e) => return fail(exit::GIT_PRECONDITION, e.to_string()),
    };
    let CheckOutcome { report, range: _, unborn } = match check(&repo, &args.request()) {
        Ok(outcome) => outcome,
        Err((code, message)) => return fail(code, message),
    };
    let mut code = match report.exit_code() {
        exit::NOTHING_TO_CHECK if args.allow_empty => exit::OK,
        code => code,
    };
    // An output file that cannot be written makes the run a configuration error (13), unless a
    // tick already fails it (26). The report still reaches stdout whole; the --markdown file is
    // written first so that --json can carry the exit code, the step summary after stdout.
    let output_failed = |code: u8| if code == exit::DOES_NOT_HOLD { code } else { exit::CONFIG };
    let mut unwritten = Vec::new();
    if let Some(path) = &args.markdown
        && let Err(e) = speccoder_attest::output_file::write_whole(path, report.to_markdown().as_bytes())
    {
        unwritten.push(e.to_string());
        code = output_failed(code);
    }
    if args.json {
        super::output::print_json_report(&report, code);
    } else if args.github {
        let head_tree = report
            .head
            .as_deref()
            .map_or_else(|| repo.rev_parse("HEAD^{tree}"), |h| repo.rev_parse(&format!("{h}^{{tree}}")));
        let locate = |task: &str| head_tree.as_ref().ok().and_then(|tree| locate(&repo, *tree, task));
        super::output::to_stdout_workflow(&github::render(&report, &stop_token(), locate));
    } else {
        super::output::to_stdout_text(&report.to_text());
    }
    if args.github
        && let Err(e) = append_step_summary(&report)
    {
        unwritten.push(e);
        code = output_failed(code);
    }
    if report.exit_code() == exit::NOTHING_TO_CHECK && !args.json {
        let why = unborn.as_deref().unwrap_or("nothing to check (no ticked task or task commit in range)");
        super::output::to_stderr(format_args!("speccoder attest verify: {why}"));
    }
    for e in unwritten {
        super::output::to_stderr(format_args!("speccoder attest verify: {e}"));
    }
    code
}

/// What `attest verify` and `attest export` check, and how: the flags they share.
pub(super) struct CheckRequest<'a> {
    /// `REV` or `A..B` (without `branch`).
    pub range: Option<&'a str>,
    /// `--branch [HEAD]`.
    pub branch: Option<&'a str>,
    /// `--base REV`.
    pub base: Option<&'a str>,
    /// `--all`.
    pub all: bool,
    /// Whom the caller trusts.
    pub trust: &'a TrustArgs,
    /// The verifier policy.
    pub policy: &'a PolicyArgs,
    /// `--accept-unsigned`.
    pub accept_unsigned: bool,
    /// `--require-verified`.
    pub require_verified: bool,
    /// `--jobs N`.
    pub jobs: Option<u16>,
}

impl VerifyArgs {
    /// The check these flags ask for.
    fn request(&self) -> CheckRequest<'_> {
        CheckRequest {
            range: self.history.range.as_deref(),
            branch: self.history.branch.as_deref(),
            base: self.history.base.as_deref(),
            all: self.history.all,
            trust: &self.trust,
            policy: &self.policy,
            accept_unsigned: self.accept_unsigned,
            require_verified: self.require_verified,
            jobs: self.jobs,
        }
    }
}

/// What a check found: the report, the history checked, and why there was none (a branch before
/// its first commit: the report is then empty).
pub(super) struct CheckOutcome {
    /// The report.
    pub report: Report,
    /// The history checked; `None` before the branch's first commit.
    pub range: Option<Checked>,
    /// Why nothing was checked, when the branch has no commits yet.
    pub unborn: Option<String>,
}

/// The check `attest verify` runs (and `attest export` before it exports): the history `req`
/// names, against the trust and policy it names. A failure that leaves no report is its exit code
/// and message.
pub(super) fn check(repo: &Repo, req: &CheckRequest<'_>) -> Result<CheckOutcome, (u8, String)> {
    for spec in [&req.trust.allowed_signers_rev, &req.policy.policy_rev].into_iter().flatten() {
        completeness::fetch_revision_file(repo, spec).map_err(|e| (exit::GIT_PRECONDITION, e.to_string()))?;
    }
    let verify_failed = |e: VerifyError| match e {
        e @ (VerifyError::Shallow { .. } | VerifyError::NotesNotFetched { .. }) => {
            (exit::GIT_PRECONDITION, e.to_string())
        }
        VerifyError::Git(
            e @ (GitError::NotesTreeHostile { .. }
            | GitError::NotesTreeTooLarge { .. }
            | GitError::NotesRefUnusable { .. }
            | GitError::GitCommand { .. }),
        ) => (exit::GIT_PRECONDITION, e.to_string()),
        VerifyError::Git(e) => (exit::USAGE, e.to_string()),
        e => (exit::CONFIG, e.to_string()),
    };
    let branch = req.branch.map(|head| BranchOptions {
        head: Some(head.to_owned()),
        base: req.base.map(str::to_owned),
        all: req.all,
    });
    let checked = match &branch {
        Some(opts) => Checked::of_branch(repo, opts),
        None => Checked::of_commits(repo, req.range),
    };
    // A branch before its first commit has nothing to check: an empty report, like a branch
    // that ticks nothing, said as such.
    let (checked, unborn) = match checked {
        Ok(c) => (Some(c), None),
        Err(e @ VerifyError::Unborn(_)) => (None, Some(e.to_string())),
        Err(e) => return Err(verify_failed(e)),
    };
    let trust = build_trust(repo, req, checked.as_ref())?;
    let result = match (&branch, &unborn) {
        (Some(_), Some(_)) => Ok(Report::new("branch", Vec::new(), &trust)),
        (None, Some(_)) => Ok(Report::new("commits", Vec::new(), &trust)),
        (Some(opts), None) => verify_branch(repo, opts, &trust),
        (None, None) => verify_commits(repo, req.range, &trust),
    };
    Ok(CheckOutcome { report: result.map_err(verify_failed)?, range: checked, unborn })
}

/// The caller's trust and policy; a trust or policy revision inside `range` (the history
/// checked) is refused, and so is a trust or policy file the checked tree holds. No range (a
/// branch before its first commit): nothing is checked, and trust and policy are still read, so
/// that a file that cannot be used is said so.
fn build_trust(repo: &Repo, args: &CheckRequest<'_>, range: Option<&Checked>) -> Result<Trust, (u8, String)> {
    let usage_or_config = |e: &TrustError| match e {
        TrustError::Git(_) => exit::USAGE,
        _ => exit::CONFIG,
    };
    let refused = |e: TrustError| (usage_or_config(&e), e.to_string());
    let head = match repo.head().map_err(|e| refused(e.into()))? {
        Head::Branch { commit, .. } | Head::Detached(commit) => Some(commit),
        Head::Unborn(_) => None,
    };
    let checked = match (range, args.branch) {
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
    let files = super::trust::trust_files(args.trust);
    let signers = SignatureTrust::load(repo, &files, checked_tree, &in_range).map_err(refused)?;
    let policy = super::trust::policy_source(args.policy)
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
        signature_time: super::trust::signature_time(args.trust),
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

/// Appends the Markdown report to the file `$GITHUB_STEP_SUMMARY` names, when it is set: a
/// regular file (created if absent), never through a symbolic link, never blocking
/// ([`output_file::append`](speccoder_attest::output_file::append)). What is wrong is said of the
/// variable, with what to do.
fn append_step_summary(report: &Report) -> Result<(), String> {
    let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty()) else {
        return Ok(());
    };
    let path = std::path::PathBuf::from(path);
    speccoder_attest::output_file::append(&path, report.to_markdown().as_bytes()).map_err(|e| {
        format!(
            "cannot append the report to $GITHUB_STEP_SUMMARY ({}): {}; set GITHUB_STEP_SUMMARY to a \
             regular file (or unset it) to have the summary; the report above is complete",
            path.display(),
            e.problem
        )
    })
}
