//! `speccoder attest export`: the check `attest verify` runs, then the pack of a range that
//! holds.

use std::sync::Arc;
use std::time::Instant;

use speccoder_attest::attest::export::{ExportError, Pack, VsaKey, VsaSigner, export};
use speccoder_attest::exit::{self, ExitClass};
use speccoder_attest::git::Repo;
use speccoder_attest::model::bundle::NOTES_REF;
use speccoder_attest::model::held::NoteKeeper;
use speccoder_attest::verify::held::Held;
use speccoder_attest::verify::render::{JsonWriter, TextWriter};
use speccoder_attest::verify::report::{ReportEnd, ReportHead, ReportSink, TickReport};

use super::progress::Progress;
use super::verify::check::{CheckRequest, prepare};
use crate::cli::{ExportArgs, VsaSignerArg};

pub fn run(args: &ExportArgs) -> u8 {
    let started = Instant::now();
    let fail = |code: u8, msg: String| {
        if args.json {
            super::output::print_json_error(&msg, code);
        }
        super::output::to_stderr(format_args!("speccoder attest export: {msg}"));
        code
    };
    let failed = |e: ExportError| fail(e.exit_code(), e.to_string());
    if let Err(code) = super::output::refuse_unnamable_paths("attest export", args.json, &[&args.out]) {
        return code;
    }
    let repo = match Repo::discover_to_read(".") {
        Ok(r) => r,
        Err(e) => return fail(e.exit_code(), e.to_string()),
    };
    // The key and the directory are checked before the range is: a long check is not run for a
    // pack that cannot be signed or written.
    let mut flags = super::signing::sigstore_service_flags(&args.sigstore);
    // The summary is signed as the check trusts: its trusted root, unless one is named for signing.
    flags.trusted_root = flags.trusted_root.or_else(|| args.trust.files.sigstore_trusted_root.clone());
    let key = match (&args.vsa_key, args.vsa_signer) {
        (Some(key), _) => VsaKey::Ssh(key),
        (None, Some(VsaSignerArg::Sigstore) | None) => VsaKey::Sigstore(&flags),
    };
    let signer = match VsaSigner::resolve(&repo, key) {
        Ok(signer) => signer,
        Err(e) => return failed(e),
    };
    // The check writes each note into the pack as it reads it.
    let pack = match Pack::create(&repo, &args.out) {
        Ok(pack) => Arc::new(pack),
        Err(e) => return failed(e.into()),
    };
    let notes_tip = match repo.ref_target(NOTES_REF) {
        Ok(tip) => tip,
        Err(e) => return failed(e.into()),
    };
    let parent = parent_of_bare_rev(&repo, args);
    let mut prepared = match prepare(&repo, &request(args, parent.as_deref())) {
        Ok(prepared) => prepared,
        Err(e) => return fail(e.exit_code(), e.to_string()),
    };
    prepared.trust.keep_notes = Some(Arc::clone(&pack) as Arc<dyn NoteKeeper>);
    let mut checking = Checking::new(args.json, Progress::new(started));
    let ran = prepared.run_into(&repo, &mut checking);
    // The line goes before anything else is said on stderr, whether the check ended or failed.
    checking.progress.clear();
    prepared.trust.keep_notes = None;
    if let Err(e) = ran {
        return fail(e.exit_code(), e.to_string());
    }
    let Some((head, end)) = checking.ended.take() else {
        return failed(ExportError::CheckUnended);
    };
    let held = match prepared.checked {
        Some(checked) if end.exit_code() == exit::OK => checking.held.range(checked),
        _ => None,
    };
    let Some(held) = held else {
        return does_not_hold(checking.report, &head, &end, prepared.unborn.as_deref());
    };
    // The check's threads have ended, and the trust no longer holds the pack.
    let Some(pack) = Arc::into_inner(pack) else {
        return failed(ExportError::PackInUse);
    };
    let result = export(&repo, &held, &signer, pack, notes_tip);
    super::output::finish("attest export", args.json, result, |_| exit::OK)
}

/// The check `args` ask for: `attest verify`'s, with its trust and policy flags, over every tick
/// of the history the summary names ([`every_tick_of`]); `parent` is a bare REV's first parent
/// ([`parent_of_bare_rev`]).
fn request<'a>(args: &'a ExportArgs, parent: Option<&'a str>) -> CheckRequest<'a> {
    let mut request = CheckRequest {
        range: args.history.range.as_deref(),
        branch: args.history.branch.as_deref(),
        base: args.history.base.as_deref(),
        all: args.history.all,
        trust: &args.trust,
        policy: &args.policy,
        accept_unsigned: false,
        require_verified: args.require_verified,
        jobs: args.jobs,
    };
    every_tick_of(&mut request, parent);
    request
}

/// `request` checking its history as `--branch` does: a summary of `<head>` or `<base>..<head>`
/// speaks for every tick of that history, which the task commits of a range alone are not (a box
/// ticked by hand, a note whose commit was amended away, go unseen; so is a box the task commit
/// itself ticks by hand beside its task). No range is `--branch HEAD --all`; `A..B` is `--branch
/// B --base A` (an empty side is HEAD); `REV` is `REV^..REV`, `--branch REV --base <parent>`
/// (`parent`: its first parent), or for a root commit, whose parent is the empty history,
/// `--branch REV --all`. `A...B` is left to the check, which refuses it.
fn every_tick_of<'a>(request: &mut CheckRequest<'a>, parent: Option<&'a str>) {
    if request.branch.is_some() {
        return;
    }
    match request.range {
        None => (request.branch, request.all) = (Some("HEAD"), true),
        Some(range) if range.contains("...") => {}
        Some(range) => {
            request.range = None;
            match range.split_once("..") {
                Some((base, head)) => {
                    request.branch = Some(head_if_empty(head));
                    request.base = Some(head_if_empty(base));
                }
                None => {
                    request.branch = Some(range);
                    match parent {
                        Some(parent) => request.base = Some(parent),
                        None => request.all = true,
                    }
                }
            }
        }
    }
}

/// The first parent (hex) of the commit a bare `REV` names, which [`every_tick_of`] checks it
/// from; `None` for a root commit, and for a REV that names no commit this can read, which the
/// check (of REV's whole history then) resolves again and says why.
fn parent_of_bare_rev(repo: &Repo, args: &ExportArgs) -> Option<String> {
    let rev = args.history.range.as_deref().filter(|rev| !rev.contains(".."))?;
    if args.history.branch.is_some() {
        return None;
    }
    let commit = repo.commit(repo.rev_parse_peeled(rev).ok()?).ok()?;
    commit.parents.first().map(ToString::to_string)
}

/// A side of `A..B`, HEAD when it is empty, as git reads it.
fn head_if_empty(side: &str) -> &str {
    if side.is_empty() { "HEAD" } else { side }
}

/// What the export's check writes as it runs: which ticks hold, and the report as `attest verify`
/// prints it, for a range that does not hold: rendered a row at a time, never kept as rows.
struct Checking {
    /// Which ticks hold.
    held: Held,
    /// The report, rendered so far.
    report: Rendered,
    /// The report's head and end, once the run has ended.
    ended: Option<(ReportHead, ReportEnd)>,
    /// `checked N of M ticks`, on a terminal.
    progress: Progress,
}

/// The report as it is printed: text, or `--json`.
enum Rendered {
    /// The text report.
    Text(TextWriter<String>),
    /// `--json`.
    Json(JsonWriter<String>),
}

impl Checking {
    fn new(json: bool, progress: Progress) -> Self {
        let report = if json {
            Rendered::Json(JsonWriter::new(String::new()))
        } else {
            Rendered::Text(TextWriter { out: String::new() })
        };
        Checking { held: Held::default(), report, ended: None, progress }
    }

    fn report(&mut self) -> &mut dyn ReportSink {
        match &mut self.report {
            Rendered::Text(w) => w,
            Rendered::Json(w) => w,
        }
    }
}

impl ReportSink for Checking {
    fn begin(&mut self, head: &ReportHead) {
        self.progress.begin(head.ticks);
        self.held.begin(head);
        self.report().begin(head);
    }
    fn row(&mut self, tick: TickReport) {
        self.progress.row();
        self.held.take(&tick);
        self.report().row(tick);
    }
    fn end(&mut self, head: &ReportHead, end: &ReportEnd) {
        self.ended = Some((head.clone(), end.clone()));
    }
}

/// A range that does not hold (26), or has nothing to check (15): the verifier's report, as
/// `attest verify` prints it, and nothing written.
fn does_not_hold(report: Rendered, head: &ReportHead, end: &ReportEnd, unborn: Option<&str>) -> u8 {
    let code = match end.exit_code() {
        exit::OK => exit::INTERNAL,
        code => code,
    };
    match report {
        Rendered::Json(mut json) => {
            json.set_exit_code(code);
            json.end(head, end);
            super::output::to_stdout_json(&json.out);
        }
        Rendered::Text(mut text) => {
            text.end(head, end);
            super::output::to_stdout_text(&text.out);
        }
    }
    let why = match code {
        exit::NOTHING_TO_CHECK => unborn.unwrap_or(head.nothing_to_check()),
        _ => "the range does not hold (see the report); nothing was written",
    };
    super::output::to_stderr(format_args!("speccoder attest export: {why}"));
    code
}
