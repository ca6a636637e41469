//! The signature checks of `attest verify`, alone and in-process: the floor a check of every tick
//! stands on, for `benches/verify.sh`.
//!
//! ```text
//! cargo run --release --example bench_signatures -- --repo DIR --allowed-signers FILE
//! ```
//!
//! It reads every note of `refs/notes/speccoder` and each line of it (the envelopes parsed, with
//! the annotated commit's time and object digest, as the verifier reads them), then, timed, checks
//! the signatures of every note's lines against the allowed signers with the verifier's own
//! function (`check::signatures::check_note_every`), on this one thread. Every line must be
//! signed by a trusted key: anything else stops the run with an error, so a fast wrong answer can
//! never be reported as a time.
//!
//! Prints one line of `key=value` pairs: `notes`, `lines`, `cpu_seconds` (this thread's time on a
//! CPU while it checked, from `/proc/thread-self/schedstat`), `seconds` (wall time) and
//! `per_tick_ms` (CPU per note).

use std::path::PathBuf;
use std::time::Instant;

use speccoder_attest::check::line::read_lines;
use speccoder_attest::check::signatures::{NoteLineSignature, check_note_every};
use speccoder_attest::check::trust::{SignatureTime, SignatureTrust, TrustFiles};
use speccoder_attest::git::Repo;
use speccoder_attest::model::bundle::NOTES_REF;

type Error = Box<dyn std::error::Error>;

fn main() {
    if let Err(e) = run() {
        eprintln!("bench_signatures: {e}");
        std::process::exit(1);
    }
}

/// This thread's time on a CPU so far, in seconds.
fn cpu_seconds() -> Result<f64, Error> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat")?;
    let ns: u64 = stat.split_whitespace().next().ok_or("an empty schedstat")?.parse()?;
    Ok(ns as f64 / 1e9)
}

fn run() -> Result<(), Error> {
    let (mut repo_dir, mut allowed) = (None, None);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--repo" => repo_dir = args.next().map(PathBuf::from),
            "--allowed-signers" => allowed = args.next().map(PathBuf::from),
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    let usage = "usage: bench_signatures --repo DIR --allowed-signers FILE";
    let repo = Repo::discover(repo_dir.ok_or(usage)?)?;
    let files = TrustFiles { allowed_signers: Some(allowed.ok_or(usage)?), ..TrustFiles::default() };
    let trust = SignatureTrust::load(&repo, &files, repo.empty_tree_id(), &|_| false)?;

    // Everything the checks take, read first.
    let mut notes = Vec::new();
    for (annotated, blob) in repo.notes(NOTES_REF)? {
        let mut findings = Vec::new();
        let lines = read_lines(&repo.blob(blob)?, &mut findings);
        if !findings.is_empty() {
            return Err(format!("the note of {annotated} does not read: {findings:?}").into());
        }
        let at = SignatureTime::Commit.at(repo.commit(annotated)?.committer.seconds);
        let commit_sha256 = speccoder_attest::attest::commit_object_sha256(&repo, annotated)?;
        notes.push((lines, at, commit_sha256));
    }

    let (started, cpu_started) = (Instant::now(), cpu_seconds()?);
    let mut lines = 0;
    for (note, at, commit_sha256) in &notes {
        let (verdicts, _) = check_note_every(note, &trust, *at, commit_sha256, None);
        for verdict in verdicts {
            if !matches!(verdict, NoteLineSignature::Trusted(_)) {
                return Err(format!("a line does not verify: {verdict:?}").into());
            }
            lines += 1;
        }
    }
    let cpu = cpu_seconds()? - cpu_started;
    println!(
        "notes={} lines={lines} cpu_seconds={cpu:.3} seconds={:.3} per_tick_ms={:.4}",
        notes.len(),
        started.elapsed().as_secs_f64(),
        cpu * 1000.0 / notes.len().max(1) as f64,
    );
    Ok(())
}
