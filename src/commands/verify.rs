//! `speccoder attest verify`.

use speccoder_attest::check::trust::{AllowedSource, SignatureTrust, SshTrust, TrustError};
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
    let repo = match Repo::discover(".") {
        Ok(r) => r,
        Err(e) => return fail(exit::GIT_PRECONDITION, e.to_string()),
    };
    if let Some(spec) = &args.allowed_signers_rev
        && let Err(e) = completeness::fetch_revision_file(&repo, spec)
    {
        return fail(exit::GIT_PRECONDITION, e.to_string());
    }
    let verify_failed = |e: VerifyError| match e {
        VerifyError::Unborn(b) => {
            fail(exit::NOTHING_TO_CHECK, format!("the branch {b} has no commits; nothing to check"))
        }
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
    let checked = match checked {
        Ok(c) => c,
        Err(e) => return verify_failed(e),
    };
    let trust = match build_trust(&repo, args, checked) {
        Ok(t) => t,
        Err(TrustError::Git(e)) => return fail(exit::USAGE, e.to_string()),
        Err(e) => return fail(exit::CONFIG, e.to_string()),
    };
    let result = match &branch {
        Some(opts) => verify_branch(&repo, opts, &trust),
        None => verify_commits(&repo, args.range.as_deref(), &trust),
    };
    let report: Report = match result {
        Ok(r) => r,
        Err(e) => return verify_failed(e),
    };
    if let Some(path) = &args.markdown
        && let Err(e) = speccoder_attest::output_file::write_whole(path, report.to_markdown().as_bytes())
    {
        return fail(exit::INTERNAL, e.to_string());
    }
    if args.github
        && let Err(e) = append_step_summary(&report)
    {
        return fail(exit::INTERNAL, e);
    }
    if args.json {
        super::output::to_stdout(format_args!("{}", serde_json::to_string(&report).unwrap_or_default()));
    } else if args.github {
        let head_tree = report
            .head
            .as_deref()
            .map_or_else(|| repo.rev_parse("HEAD^{tree}"), |h| repo.rev_parse(&format!("{h}^{{tree}}")));
        let locate = |task: &str| head_tree.as_ref().ok().and_then(|tree| locate(&repo, *tree, task));
        super::output::to_stdout_raw(&github::render(&report, &stop_token(), locate));
    } else {
        super::output::to_stdout_raw(&report.to_text());
    }
    let code = report.exit_code();
    if code == exit::NOTHING_TO_CHECK {
        if !args.json {
            super::output::to_stderr(format_args!(
                "speccoder attest verify: nothing to check (no ticked task or task commit in range)"
            ));
        }
        if args.allow_empty {
            return exit::OK;
        }
    }
    code
}

/// The caller's trust; a trust revision inside `range` (the history checked) is refused.
fn build_trust(repo: &Repo, args: &VerifyArgs, range: Checked) -> Result<Trust, TrustError> {
    let head = match repo.head()? {
        Head::Branch { commit, .. } | Head::Detached(commit) => Some(commit),
        Head::Unborn(_) => None,
    };
    let checked = match &args.branch {
        Some(rev) => Some(repo.rev_parse(rev)?),
        None => head,
    };
    let source = match (&args.allowed_signers, &args.allowed_signers_rev) {
        (Some(p), _) => Some(AllowedSource::File(p.clone())),
        (None, Some(spec)) => Some(AllowedSource::Rev(spec.clone())),
        (None, None) => repo.config_path("gpg.ssh.allowedSignersFile")?.map(AllowedSource::File),
    };
    let ssh = match (source, checked) {
        (Some(source), Some(checked)) => {
            let in_range = |c: ObjectId| range.contains(repo, c);
            let tree = repo.commit_tree(checked)?;
            Some(SshTrust::load(repo, &source, args.revoked.as_deref(), tree, &in_range)?)
        }
        _ => None,
    };
    let openpgp = match (&args.openpgp_certs, checked) {
        (Some(path), Some(checked)) => {
            let tree = repo.commit_tree(checked)?;
            Some(speccoder_attest::check::trust::load_openpgp(repo, path, tree)?)
        }
        _ => None,
    };
    #[cfg(feature = "sigstore")]
    let sigstore = match (&args.certificate_identity, &args.certificate_oidc_issuer) {
        (Some(identity), Some(issuer)) => {
            use speccoder_attest::sign::sigstore::SigstoreTrustSource;
            use speccoder_attest::sign::sigstore::{SigstoreTrust, TrustedRoot, public_good_root};
            Some(match &args.sigstore_trusted_root {
                Some(path) => {
                    if let Some(checked) = checked {
                        speccoder_attest::check::trust::refuse_in_tree(
                            repo,
                            path,
                            repo.commit_tree(checked)?,
                        )?;
                    }
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
            ssh,
            openpgp,
            #[cfg(feature = "sigstore")]
            sigstore,
            via_tools: args.via_tools,
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
/// regular file (created if absent), never through a symbolic link, never blocking.
fn append_step_summary(report: &Report) -> Result<(), String> {
    use std::io::Write as _;
    let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty()) else {
        return Ok(());
    };
    let path = std::path::PathBuf::from(path);
    let cannot = |e: &dyn std::fmt::Display| {
        format!("cannot append to $GITHUB_STEP_SUMMARY ({}): {e}", path.display())
    };
    let mut options = std::fs::OpenOptions::new();
    options.append(true).create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let mut file = options.open(&path).map_err(|e| cannot(&e))?;
    if !file.metadata().map_err(|e| cannot(&e))?.is_file() {
        return Err(cannot(&"it is not a regular file"));
    }
    file.write_all(report.to_markdown().as_bytes()).map_err(|e| cannot(&e))
}
