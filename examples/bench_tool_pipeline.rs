//! The signature checks of `attest verify`, done the way the published speccoder does them: one
//! `git` process per tick and two `ssh-keygen` processes per line. The yardstick of
//! `benches/verify.sh`.
//!
//! ```text
//! cargo run --release --example bench_tool_pipeline -- --repo DIR --allowed-signers FILE [--sample N]
//! ```
//!
//! It lists the task commits of HEAD (`git log`, commits with a `Spec-Task:` trailer), then for
//! each tick of the sample: `git notes --ref=speccoder show <commit>`; for each line of the note,
//! decodes the envelope's payload and signature, computes the DSSE PAE, writes the signature and
//! the PAE to files, runs `ssh-keygen -Y find-principals -f FILE -s SIG` and, for the principal it
//! names, `ssh-keygen -Y verify -f FILE -I PRINCIPAL -n in-toto -s SIG < PAE`. Decoding and PAE
//! are done in-process (with this crate's own functions), so only the tool processes are counted
//! against the pipeline: the comparison is in its favour.
//!
//! `--sample N` checks N ticks spread evenly over the history instead of all of them; the per-tick
//! cost is then scaled to every tick, and the output says so. Every line must verify: a failure
//! stops the run with an error, so a fast wrong answer can never be reported as a time.
//!
//! Prints one line of `key=value` pairs: `ticks` (all on the branch), `sampled`, `lines`,
//! `seconds` (wall time of the sample, listing included), `per_tick_ms`, `per_line_ms`,
//! `scaled_seconds` (per-tick cost times all ticks), `scaled` (whether a sample was taken).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use speccoder_attest::model::bundle;
use speccoder_attest::model::dsse::Envelope;
use speccoder_attest::sign::ssh::sshsig::NAMESPACE;

type Error = Box<dyn std::error::Error>;

struct Args {
    repo: PathBuf,
    allowed: PathBuf,
    sample: Option<usize>,
}

fn parse_args() -> Result<Args, Error> {
    let (mut repo, mut allowed, mut sample) = (None, None, None);
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--repo" => repo = Some(PathBuf::from(it.next().ok_or("--repo needs a directory")?)),
            "--allowed-signers" => {
                allowed = Some(PathBuf::from(it.next().ok_or("--allowed-signers needs a file")?));
            }
            "--sample" => sample = Some(it.next().ok_or("--sample needs a number")?.parse::<usize>()?),
            "-h" | "--help" => {
                println!("usage: bench_tool_pipeline --repo DIR --allowed-signers FILE [--sample N]");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument `{other}` (see --help)").into()),
        }
    }
    let allowed = std::path::absolute(allowed.ok_or("--allowed-signers FILE is required")?)?;
    Ok(Args { repo: repo.ok_or("--repo DIR is required")?, allowed, sample: sample.filter(|n| *n > 0) })
}

fn main() {
    if let Err(e) = run() {
        eprintln!("bench_tool_pipeline: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), Error> {
    let args = parse_args()?;
    let scratch = tempfile::tempdir()?;
    let started = Instant::now();

    let log = output(Command::new("git").current_dir(&args.repo).args([
        "log",
        "--format=%H %(trailers:key=Spec-Task,valueonly,separator=%x2C)",
        "HEAD",
    ]))?;
    let ticks: Vec<&str> = std::str::from_utf8(&log)?
        .lines()
        .filter_map(|l| l.split_once(' ').filter(|(_, task)| !task.trim().is_empty()).map(|(c, _)| c))
        .collect();
    if ticks.is_empty() {
        return Err("HEAD has no task commits".into());
    }
    let sampled: Vec<&str> = match args.sample {
        Some(n) if n < ticks.len() => (0..n).map(|i| ticks[i * ticks.len() / n]).collect(),
        _ => ticks.clone(),
    };

    let mut lines = 0usize;
    for commit in &sampled {
        let note = output(Command::new("git").current_dir(&args.repo).args([
            "notes",
            "--ref=speccoder",
            "show",
            commit,
        ]))?;
        for (i, raw) in bundle::split(&note).into_iter().enumerate() {
            let envelope = Envelope::parse(raw).map_err(|e| format!("{commit} line {}: {e}", i + 1))?;
            let pae = envelope.pae();
            let pae_file = scratch.path().join("pae");
            std::fs::write(&pae_file, &pae)?;
            if envelope.signatures.is_empty() {
                return Err(format!("{commit} line {}: unsigned", i + 1).into());
            }
            for sig in &envelope.signatures {
                let sig_file = scratch.path().join("sig");
                std::fs::write(&sig_file, &sig.sig)?;
                check_line(&args.allowed, &sig_file, &pae_file)
                    .map_err(|e| format!("{commit} line {}: {e}", i + 1))?;
            }
            lines += 1;
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    let per_tick = seconds / sampled.len() as f64;
    println!(
        "ticks={} sampled={} lines={lines} seconds={seconds:.3} per_tick_ms={:.3} per_line_ms={:.3} scaled_seconds={:.2} scaled={}",
        ticks.len(),
        sampled.len(),
        per_tick * 1000.0,
        seconds * 1000.0 / lines as f64,
        per_tick * ticks.len() as f64,
        sampled.len() < ticks.len(),
    );
    Ok(())
}

/// `-Y find-principals`, then `-Y verify` as the first principal it names.
fn check_line(allowed: &Path, sig: &Path, pae: &Path) -> Result<(), Error> {
    let found = output(
        Command::new("ssh-keygen").args(["-Y", "find-principals", "-f"]).arg(allowed).arg("-s").arg(sig),
    )?;
    let principal = String::from_utf8(found)?.lines().next().map(str::to_owned).ok_or("no principal")?;
    let status = Command::new("ssh-keygen")
        .args(["-Y", "verify", "-f"])
        .arg(allowed)
        .args(["-I", &principal, "-n", NAMESPACE, "-s"])
        .arg(sig)
        .stdin(std::fs::File::open(pae)?)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()?;
    if !status.status.success() {
        return Err(format!("ssh-keygen -Y verify: {}", String::from_utf8_lossy(&status.stderr)).into());
    }
    Ok(())
}

/// Runs `cmd`, returning its stdout; a failure is an error with its stderr.
fn output(cmd: &mut Command) -> Result<Vec<u8>, Error> {
    let out = cmd.output()?;
    if !out.status.success() {
        return Err(
            format!("{cmd:?} failed ({}): {}", out.status, String::from_utf8_lossy(&out.stderr)).into()
        );
    }
    Ok(out.stdout)
}
