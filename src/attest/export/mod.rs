//! `attest export`: the evidence of a range that holds, as a pack that standard in-toto and
//! Sigstore tools check without speccoder: each task commit's note as it is
//! (`<commit>.intoto.jsonl`), the head's commit object as git hashes it (`<head>.commit`), and a
//! verification summary of the head signed with a raw key (`vsa.intoto.json`, `vsa.pub.pem`) or
//! keylessly (`vsa.sigstore.json`).
//!
//! The verifier decides whether the range holds; its verdict arrives here as a
//! [`HeldRange`] (`model::held`), so that this producer of a signed statement and the verifier
//! never see each other's types. The summary is built like every statement (canonical bytes after
//! the clean check), its resource URI as the tick's summary names it
//! ([`crate::attest::statements::resource_uri`]) with the revision the check covered
//! ([`HeldRange::revision`]: a range is never named as the head's whole history), and the key is
//! read by the SSH backend's own key reader. The pack appears whole or not at all ([`NewDir`]);
//! its notes are written as the check reads them ([`Pack`]).

mod error;
mod pack;
mod vsa;

use std::fmt;

use gix::ObjectId;
use serde::Serialize;

pub use error::ExportError;
pub use pack::Pack;
use pack::notes_file;

use crate::attest::signing::{Chosen, SigstoreFlags, keyless};
use crate::attest::statements::resource_uri;
use crate::git::Repo;
use crate::model::bundle::NOTES_REF;
use crate::model::digest::git_object_sha256;
use crate::model::dsse::{Envelope, Signature};
use crate::model::held::HeldRange;
use crate::model::shown::{exact_path, in_line, one_line_path};
use crate::output_file::NewDir;
use crate::sign::ssh::SshSigner;
use crate::sign::{KeySetting, SignError, Signer};

/// The file of the raw-key summary: a DSSE envelope.
pub const VSA_ENVELOPE: &str = "vsa.intoto.json";
/// The public key of the raw-key summary, SubjectPublicKeyInfo PEM.
pub const VSA_PUBLIC_KEY: &str = "vsa.pub.pem";
/// The file of the keyless summary: a Sigstore bundle v0.3 with DSSE content.
pub const VSA_BUNDLE: &str = "vsa.sigstore.json";

/// Which key signs the summary, as the command line names it.
#[derive(Debug, Clone, Copy)]
pub enum VsaKey<'a> {
    /// `--vsa-key KEY`: an SSH key file, a `.pub` whose key is in ssh-agent, or a `key::` literal.
    Ssh(&'a str),
    /// `--vsa-signer sigstore`, with the services keyless signing may use.
    Sigstore(&'a SigstoreFlags),
}

/// How the summary is signed.
pub enum VsaSigner {
    /// A raw ed25519 or ECDSA P-256 signature over the PAE.
    Key(Box<SshSigner>),
    /// Keylessly: the Sigstore bundle carries the envelope.
    Keyless(Box<dyn Signer>),
}

impl fmt::Debug for VsaSigner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

impl VsaSigner {
    /// The signer `key` names, checked before the range is: a key DSSE readers verify (ed25519
    /// or P-256), or the keyless signer with its service URLs.
    ///
    /// # Errors
    /// A key that cannot be read or is of another kind ([`ExportError::Sign`]); keyless signing
    /// this build or its configuration cannot do ([`ExportError::Signer`], [`ExportError::Sign`]).
    pub fn resolve(repo: &Repo, key: VsaKey<'_>) -> Result<VsaSigner, ExportError> {
        match key {
            VsaKey::Ssh(key) => {
                let signer =
                    SshSigner::configured(Some(std::ffi::OsStr::new(key)), KeySetting::VsaKey, None)?;
                signer.public_key_pem()?;
                Ok(VsaSigner::Key(Box::new(signer)))
            }
            VsaKey::Sigstore(flags) => match keyless(repo, flags)? {
                Chosen::Signer(signer) => Ok(VsaSigner::Keyless(signer)),
                Chosen::Unsigned(why) => Err(SignError::CannotSign(why.to_string()).into()),
            },
        }
    }

    /// One line for the user (`ssh ed25519 SHA256:… (key file …)`, `sigstore keyless (…)`).
    #[must_use]
    pub fn describe(&self) -> String {
        match self {
            VsaSigner::Key(signer) => signer.describe(),
            VsaSigner::Keyless(signer) => signer.describe(),
        }
    }

    /// Signs `payload` (the summary statement) and writes the summary's files into `dir`;
    /// returns the envelope's `keyid`.
    fn sign_into(&self, payload: Vec<u8>, dir: &NewDir) -> Result<String, ExportError> {
        let mut envelope = Envelope::unsigned(payload);
        match self {
            VsaSigner::Key(signer) => {
                let sig = signer.sign_raw(&envelope.pae())?;
                let keyid = signer.keyid();
                envelope.signatures.push(Signature { keyid: keyid.clone(), sig });
                let mut line = envelope.to_line();
                line.push(b'\n');
                dir.write(VSA_ENVELOPE, &line)?;
                dir.write(VSA_PUBLIC_KEY, signer.public_key_pem()?.as_bytes())?;
                Ok(keyid)
            }
            VsaSigner::Keyless(signer) => {
                signer.sign(&envelope.pae())?;
                let bundle =
                    signer.take_bundle().ok_or_else(|| SignError::NoBundle { signer: signer.describe() })?;
                let mut json = serde_json::to_vec(&bundle).map_err(ExportError::Encode)?;
                json.push(b'\n');
                dir.write(VSA_BUNDLE, &json)?;
                Ok(signer.keyid())
            }
        }
    }
}

/// What `attest export` wrote, for people (Display) and machines (`--json`).
#[derive(Debug, Clone, Serialize)]
pub struct Exported {
    /// The directory written, exactly ([`exact_path`]).
    #[serde(serialize_with = "exact_path")]
    pub out: std::path::PathBuf,
    /// The head commit the summary is about.
    pub head: String,
    /// The sha256 of the head's commit object (the summary's subject `sha256`).
    pub head_sha256: String,
    /// The summary's `resourceUri` and subject name: `…@<head>` for the head's whole history,
    /// `…@<base>..<head>` for a range.
    #[serde(serialize_with = "in_line")]
    pub resource_uri: String,
    /// What the summary covers: `history` (every commit the head reaches) or `range` (those
    /// `base` does not reach).
    pub checked: &'static str,
    /// The commit the range excludes (hex), for `range`.
    pub base: Option<String>,
    /// The level the summary names (`verifiedLevels`).
    pub level: &'static str,
    /// The task commits whose notes are in the pack.
    pub task_commits: usize,
    /// The note lines the summary names (`inputAttestations`).
    pub input_attestations: usize,
    /// Who signed the summary.
    #[serde(serialize_with = "in_line")]
    pub signer: String,
    /// The summary envelope's `keyid` (an SSH key's `SHA256:` fingerprint, or `sigstore`).
    pub keyid: String,
    /// The summary's files.
    pub summary_files: Vec<&'static str>,
}

impl fmt::Display for Exported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "exported {} task commits ({} note lines) and {}.commit to {}",
            self.task_commits,
            self.input_attestations,
            self.head,
            one_line_path(&self.out)
        )?;
        writeln!(f, "verification summary: {} ({})", self.level, self.summary_files.join(", "))?;
        writeln!(f, "about: {} sha256:{}", self.resource_uri, self.head_sha256)?;
        match (self.checked, &self.base) {
            ("range", Some(base)) => writeln!(
                f,
                "checked: the commits {} reaches and {base} does not, not the head's whole history",
                self.head
            )?,
            _ => writeln!(f, "checked: the head's whole history")?,
        }
        writeln!(f, "signed by: {}", self.signer)
    }
}

/// Finishes the pack of `held` at its path: the notes of its task commits the check wrote into
/// `pack` as it read them, the head's commit object, and the summary signed by `signer`. The
/// check read the notes of `refs/notes/speccoder` as it was before the range was checked, at
/// `notes_tip`: when the ref moved since, the summary would be about notes that are no longer
/// the branch's evidence, and nothing is written.
///
/// # Errors
/// [`ExportError`]; nothing is left at the pack's path on any.
pub fn export(
    repo: &Repo,
    held: &HeldRange,
    signer: &VsaSigner,
    pack: Pack,
    notes_tip: Option<ObjectId>,
) -> Result<Exported, ExportError> {
    let level = held.level().ok_or(ExportError::NoTick)?;
    let (dir, mut kept) = pack.into_parts()?;
    if repo.ref_target(NOTES_REF)? != notes_tip {
        return Err(ExportError::NotesMoved);
    }
    let head = parse_id(&held.head)?;
    let head_object = repo.read_kind(head, gix::object::Kind::Commit)?;
    let head_sha256 = git_object_sha256("commit", &head_object);
    let commits = held.task_commits();
    let mut inputs = Vec::with_capacity(commits.len());
    for commit in &commits {
        let lines = kept.remove(*commit).ok_or_else(|| {
            inconsistent(commit, "was not handed on by the check that found its tick holds".to_owned())
        })?;
        inputs.push((notes_file(commit), lines));
    }
    // Notes the check read of commits that are no tick of the range.
    for commit in kept.keys() {
        dir.remove(&notes_file(commit))?;
    }
    let mut commit_file = format!("commit {}\0", head_object.len()).into_bytes();
    commit_file.extend_from_slice(&head_object);
    dir.write(&format!("{head}.commit"), &commit_file)?;
    let out = dir.path().to_owned();
    let uri = resource_uri(repo.origin_url_without_credentials().as_deref(), &held.revision());
    let time = crate::attest::now_rfc3339();
    let input_count = inputs.iter().map(|(_, lines)| lines.len()).sum();
    let payload = vsa::statement(vsa::Facts {
        head: &held.head,
        head_sha256: &head_sha256,
        resource_uri: &uri,
        policy: held.policy.as_ref(),
        inputs,
        level,
        time: &time,
    })?;
    let keyid = signer.sign_into(payload, &dir)?;
    dir.finish()?;
    Ok(Exported {
        out,
        head: held.head.clone(),
        head_sha256,
        resource_uri: uri,
        checked: held.history.name(),
        base: held.history.base().map(str::to_owned),
        level: level.as_str(),
        task_commits: commits.len(),
        input_attestations: input_count,
        signer: signer.describe(),
        keyid,
        summary_files: match signer {
            VsaSigner::Key(_) => vec![VSA_ENVELOPE, VSA_PUBLIC_KEY],
            VsaSigner::Keyless(_) => vec![VSA_BUNDLE],
        },
    })
}

/// A commit id the verifier reported (hex).
fn parse_id(hex: &str) -> Result<ObjectId, ExportError> {
    ObjectId::from_hex(hex.as_bytes())
        .map_err(|_| inconsistent(hex, "is named by an id that is not hex".to_owned()))
}

fn inconsistent(commit: &str, what: String) -> ExportError {
    ExportError::Inconsistent { commit: commit.to_owned(), what }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::test_support::Fixture;
    use crate::model::held::{HeldTick, History, Level, NoteKeeper as _};

    #[test]
    fn notes_that_moved_after_the_check_read_them_write_nothing() {
        let fx = Fixture::new();
        fx.git(&["commit", "-q", "--allow-empty", "-m", "task"]);
        let commit = fx.git(&["rev-parse", "HEAD"]).trim().to_owned();
        fx.git(&["notes", "--ref", NOTES_REF, "add", "-m", "{}", &commit]);
        let key = fx.home().join("vsa");
        let made = std::process::Command::new("ssh-keygen")
            .args(["-q", "-t", "ed25519", "-N", "", "-f"])
            .arg(&key)
            .status()
            .unwrap();
        assert!(made.success());
        let repo = fx.repo();
        let signer = VsaSigner::resolve(&repo, VsaKey::Ssh(key.to_str().unwrap())).unwrap();
        let checked_at = repo.ref_target(NOTES_REF).unwrap();
        let out = fx.home().join("pack");
        let pack = Pack::create(&repo, &out).unwrap();
        pack.keep(&commit, b"{}\n", &["d"]);
        fx.git(&["notes", "--ref", NOTES_REF, "append", "-m", "{}", &commit]);
        let held = HeldRange {
            head: commit.clone(),
            history: History::Whole,
            ticks: vec![HeldTick { commit: Some(commit), level: Level::Verified }],
            policy: None,
        };
        let err = export(&repo, &held, &signer, pack, checked_at).unwrap_err();
        assert!(matches!(err, ExportError::NotesMoved), "{err}");
        assert!(!out.exists());
        let left: Vec<_> = std::fs::read_dir(fx.home()).unwrap().flatten().map(|e| e.file_name()).collect();
        assert!(!left.iter().any(|n| n.to_string_lossy().contains("partial")), "{left:?}");
    }
}
