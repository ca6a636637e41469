//! `speccoder attest verify`.

use speccoder_attest::check::trust::{AllowedSource, SignatureTrust, TrustError, TrustFiles};
use speccoder_attest::exit;
use speccoder_attest::git::{GitError, Head, ObjectId, Repo};
use speccoder_attest::verify::report::Report;
use speccoder_attest::verify::trust::{SignatureTime, Trust};
use speccoder_attest::verify::{BranchOptions, Checked, VerifyError, verify_branch, verify_commits};
use speccoder_attest::verify::{completeness, github};

use crate::cli::{SignatureTimeArg, VerifyArgs};

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
    if let Some(spec) = &args.allowed_signers_rev
        && let Err(e) = completeness::fetch_revision_file(&repo, spec)
    {
        return fail(exit::GIT_PRECONDITION, e.to_string());
    }
    let verify_failed = |e: VerifyError| match e {
        e @ (VerifyError::Shallow { .. } | VerifyError::NotesNotFetched { .. }) => {
            fail(exit::GIT_PRECONDITION, e.to_string())
        }
        VerifyError::Git(
            e @ (GitError::NotesTreeHostile { .. }
            | GitError::NotesTreeTooLarge { .. }
            | GitError::NotesRefUnusable { .. }
            | GitError::GitCommand { .. }),
        ) => fail(exit::GIT_PRECONDITION, e.to_string()),
        VerifyError::Git(e) => fail(exit::USAGE, e.to_string()),
        e => fail(exit::CONFIG, e.to_string()),
    };
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
        Err(e) => return verify_failed(e),
    };
    let trust = match build_trust(&repo, args, checked.as_ref()) {
        Ok(t) => t,
        Err(TrustError::Git(e)) => return fail(exit::USAGE, e.to_string()),
        Err(e) => return fail(exit::CONFIG, e.to_string()),
    };
    let result = match (&branch, &unborn) {
        (Some(_), Some(_)) => Ok(Report::new("branch", Vec::new(), &trust)),
        (None, Some(_)) => Ok(Report::new("commits", Vec::new(), &trust)),
        (Some(opts), None) => verify_branch(&repo, opts, &trust),
        (None, None) => verify_commits(&repo, args.range.as_deref(), &trust),
    };
    let report: Report = match result {
        Ok(r) => r,
        Err(e) => return verify_failed(e),
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

/// The caller's trust; a trust revision inside `range` (the history checked) is refused, and so
/// is a trust file the checked tree holds. No range (a branch before its first commit): nothing
/// is checked, and trust is still read, so that a trust file that cannot be used is said so.
fn build_trust(repo: &Repo, args: &VerifyArgs, range: Option<&Checked>) -> Result<Trust, TrustError> {
    let head = match repo.head()? {
        Head::Branch { commit, .. } | Head::Detached(commit) => Some(commit),
        Head::Unborn(_) => None,
    };
    let checked = match (range, &args.branch) {
        (None, _) => None,
        (Some(_), Some(rev)) => Some(repo.rev_parse(rev)?),
        (Some(_), None) => head,
    };
    // The tree a trust file may not come from; before the first commit, none.
    let checked_tree = match checked {
        Some(commit) => repo.commit_tree(commit)?,
        None => repo.empty_tree_id(),
    };
    let in_range = |c: ObjectId| range.is_some_and(|range| range.contains(repo, c));
    let files = TrustFiles {
        allowed: match (&args.allowed_signers, &args.allowed_signers_rev) {
            (Some(p), _) => Some(AllowedSource::File(p.clone())),
            (None, Some(spec)) => Some(AllowedSource::Rev(spec.clone())),
            (None, None) => None,
        },
        revoked: args.revoked.clone(),
        openpgp_certs: args.openpgp_certs.clone(),
    };
    let signers = SignatureTrust::load(repo, &files, checked_tree, &in_range)?;
    #[cfg(feature = "sigstore")]
    let sigstore = match (&args.certificate_identity, &args.certificate_oidc_issuer) {
        (Some(identity), Some(issuer)) => {
            use speccoder_attest::sign::sigstore::SigstoreTrustSource;
            use speccoder_attest::sign::sigstore::{SigstoreTrust, TrustedRoot, public_good_root};
            Some(match &args.sigstore_trusted_root {
                Some(path) => {
                    speccoder_attest::check::trust::refuse_in_tree(repo, path, checked_tree)?;
                    let root = TrustedRoot::from_file(path).map_err(|e| TrustError::File(e.to_string()))?;
                    SigstoreTrustSource::given(SigstoreTrust::keyless(root, identity.clone(), issuer.clone()))
                }
                // The public-good root, cached or fetched through TUF when a keyless line needs it.
                None => SigstoreTrustSource::lazy(identity.clone(), issuer.clone(), public_good_root),
            })
        }
        _ => None,
    };
    #[cfg(not(feature = "sigstore"))]
    if args.certificate_identity.is_some() {
        return Err(TrustError::File(speccoder_attest::sign::SIGSTORE_MISSING_REASON.to_owned()));
    }
    Ok(Trust {
        signers: SignatureTrust {
            #[cfg(feature = "sigstore")]
            sigstore,
            via_tools: args.via_tools,
            ..signers
        },
        accept_unsigned: args.accept_unsigned,
        require_verified: args.require_verified,
        jobs: args.jobs.and_then(|n| std::num::NonZeroUsize::new(usize::from(n))),
        signature_time: match args.signature_time {
            SignatureTimeArg::Commit => SignatureTime::Commit,
            SignatureTimeArg::Now => SignatureTime::Now(time::OffsetDateTime::now_utc()),
        },
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
