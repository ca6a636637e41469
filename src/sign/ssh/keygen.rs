//! The same verification as [`super::verify`], done by the real `ssh-keygen` (for
//! `--via-tools` and differential tests). It runs `-Y check-novalidate` (is the signature sound?),
//! then `-Y verify` (with and, to tell revocation apart, without `-r`) for each principal the key
//! may sign as: each one this verifier reads the allowed-signers file to list it under, on every
//! line, and each one `-Y find-principals` prints, which are those of the first line listing the
//! key only. All run at `-O verify-time=` of the caller's time. Where `ssh-keygen` and this
//! verifier's reading of the file differ on a principal, the signature fails closed; a principal
//! this verifier refuses by a rule `ssh-keygen` does not apply (a certificate's critical option)
//! is refused here too, unasked.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Output;

use time::OffsetDateTime;
use time::macros::format_description;

use super::allowed_signers::AllowedSigners;
use super::sshsig::{CERT_SUFFIX, is_certificate_line};
use super::verify::{CertificateInfo, SshVerified, SshVerifyError, ToConfirm, principals_to_confirm};
use crate::sign::tool::{self, SignatureTool, SignedFiles, SshKeygenKind, ViaToolError};

/// The trust files as `ssh-keygen` reads them.
#[derive(Clone, Copy, Debug)]
pub struct ToolTrust<'a> {
    /// The allowed-signers file (`-f`).
    pub allowed_signers: &'a Path,
    /// The same file as this verifier parsed it: the principals `ssh-keygen` is asked to confirm.
    pub parsed: &'a AllowedSigners,
    /// The revoked-keys file (`-r`), when there is one.
    pub revoked: Option<&'a Path>,
}

/// Why the tool-based verification did not succeed.
pub type SshToolError = ViaToolError<SshVerifyError>;

/// `ssh-keygen` as a verifier.
pub type SshKeygen = SignatureTool<SshKeygenKind>;

impl SshKeygen {
    /// Verifies as [`super::verify::verify`] does, with `ssh-keygen` making every decision.
    pub fn verify(
        &self,
        armored_sig: &[u8],
        message: &[u8],
        namespace: &str,
        trust: ToolTrust<'_>,
        at: OffsetDateTime,
    ) -> Result<SshVerified, SshToolError> {
        let files = SignedFiles::write(armored_sig, message).map_err(|e| self.fail(e.to_string()))?;
        let time = verify_time(at)
            .ok_or_else(|| self.fail(format!("the time {at} cannot be given to ssh-keygen")))?;
        let (fingerprint, public_line) = self.soundness(&files, namespace)?;
        let reading = principals_to_confirm(armored_sig, namespace, trust.parsed, at);
        let asked = Asked { files: &files, namespace, trust, time: &time };
        let principals = self.principals(&asked, &fingerprint, &reading)?;
        let certificate = if is_certificate_line(&public_line) {
            Some(self.certificate_info(files.dir(), &public_line)?)
        } else {
            None
        };
        let key_type = public_line.split_whitespace().next().unwrap_or("");
        Ok(SshVerified {
            principals,
            fingerprint,
            key_type: key_type.trim_end_matches(CERT_SUFFIX).to_owned(),
            certificate,
        })
    }

    /// `-Y check-novalidate`: whether the signature is sound whoever made it; the key's
    /// fingerprint and public key line when it is.
    fn soundness(&self, files: &SignedFiles, namespace: &str) -> Result<(String, String), SshToolError> {
        let sound = self.output(
            self.command()
                .args(["-Y", "check-novalidate", "-n", namespace, "-O", "print-pubkey", "-s"])
                .args([&files.signature])
                .stdin_file(&files.message),
        )?;
        if !sound.status.success() {
            return Err(soundness_failure(&sound).into());
        }
        good_signature(&sound).ok_or_else(|| {
            self.fail(format!(
                "unexpected output of -Y check-novalidate: {}",
                String::from_utf8_lossy(&sound.stdout)
            ))
        })
    }

    /// The principals the key may sign as at the time asked: each `reading` lists (this
    /// verifier's reading of the file, or why it lists the key under none) and each other that
    /// `-Y find-principals` prints, once, checked by `-Y verify` unless `reading` refuses it; or
    /// why none (revoked, untrusted, a disagreement).
    fn principals(
        &self,
        asked: &Asked<'_>,
        fingerprint: &str,
        reading: &ToConfirm,
    ) -> Result<Vec<String>, SshToolError> {
        let found = self.output(
            self.command()
                .args(["-Y", "find-principals", "-O", asked.time, "-f"])
                .args([asked.trust.allowed_signers])
                .args(["-s"])
                .args([&asked.files.signature]),
        )?;
        let printed = if found.status.success() { String::from_utf8_lossy(&found.stdout) } else { "".into() };
        let ours: &[String] = reading.listed.as_deref().unwrap_or_default();
        let mut answers = Answers::default();
        for principal in ours.iter().map(String::as_str) {
            answers.ours(principal, self.confirm(asked, principal)?, asked.trust.parsed);
        }
        // find-principals prints a line's patterns one a line, its negations among them (those
        // name no principal; each one's own check below refuses them anyway), and a principal
        // a line lists twice, twice: each is asked about once.
        let mut asked_about: HashSet<&str> = ours.iter().map(String::as_str).collect();
        let theirs = printed.lines().filter(|p| !p.is_empty() && !p.starts_with('!'));
        for principal in theirs.filter(|p| asked_about.insert(p)) {
            match reading.refused.iter().find(|(p, _)| p == principal) {
                Some((_, why)) => answers.refusals.push(format!("{principal}: {why}")),
                None => answers.theirs(
                    principal,
                    self.confirm(asked, principal)?,
                    asked.trust.parsed,
                    &reading.listed,
                ),
            }
        }
        if let Some(file) = answers.revoked_by {
            return Err(revoked(fingerprint, file).into());
        }
        if !answers.disputes.is_empty() {
            return Err(self.disagrees(answers.disputes.join("; ")));
        }
        if !answers.principals.is_empty() {
            return Ok(answers.principals);
        }
        if !found.status.success() {
            let reason = tool::stderr_text(&found);
            return Err(
                SshVerifyError::UntrustedSigner { fingerprint: fingerprint.to_owned(), reason }.into()
            );
        }
        Err(none_allowed(fingerprint, &answers.refusals, &printed).into())
    }

    /// `-Y verify -I principal`, with `-r` and, when that refuses, without it: whether the key
    /// may sign as `principal`, and if not, whether the revocation list decided it.
    fn confirm(&self, asked: &Asked<'_>, principal: &str) -> Result<Answer, SshToolError> {
        let verify = |revoked: Option<&Path>| {
            let run = self
                .command()
                .args(["-Y", "verify", "-n", asked.namespace, "-I", principal, "-O", asked.time, "-f"])
                .args([asked.trust.allowed_signers])
                .args(["-s"])
                .args([&asked.files.signature])
                .stdin_file(&asked.files.message);
            let run = match revoked {
                Some(r) => run.args([OsStr::new("-r"), r.as_os_str()]),
                None => run,
            };
            self.output(run)
        };
        let checked = verify(asked.trust.revoked)?;
        Ok(match asked.trust.revoked {
            _ if checked.status.success() => Answer::Holds,
            Some(file) if verify(None)?.status.success() => Answer::Revoked(file.to_owned()),
            _ => Answer::Refused(refusal(&checked)),
        })
    }

    /// Key id, serial and CA fingerprint of a certificate, from `ssh-keygen -L`.
    fn certificate_info(&self, dir: &Path, cert_line: &str) -> Result<CertificateInfo, SshToolError> {
        let file = dir.join("signer-cert.pub");
        std::fs::write(&file, format!("{cert_line}\n"))
            .map_err(|e| self.fail(format!("cannot write a temporary file: {e}")))?;
        let out = self.output(self.command().args(["-L", "-f"]).args([&file]))?;
        let text = String::from_utf8_lossy(&out.stdout);
        let field =
            |name: &str| text.lines().find_map(|l| l.trim().strip_prefix(name).map(|v| v.trim().to_owned()));
        let info = (|| {
            let key_id = field("Key ID:")?.strip_prefix('"')?.strip_suffix('"')?.to_owned();
            let serial = field("Serial:")?.parse().ok()?;
            let ca_fingerprint =
                field("Signing CA:")?.split_whitespace().find(|w| w.starts_with("SHA256:"))?.to_owned();
            Some(CertificateInfo { key_id, serial, ca_fingerprint })
        })();
        info.ok_or_else(|| self.fail(format!("unexpected output of -L: {text}")))
    }
}

/// One signature's check, as `ssh-keygen` is asked about each principal.
struct Asked<'a> {
    /// The signature and the signed bytes.
    files: &'a SignedFiles,
    /// The namespace the signature must be made for.
    namespace: &'a str,
    /// The trust files.
    trust: ToolTrust<'a>,
    /// `verify-time=` of the caller's time.
    time: &'a str,
}

/// What `ssh-keygen -Y verify -I <principal>` says of one principal.
enum Answer {
    /// The key may sign as the principal.
    Holds,
    /// It may, but the revocation list (this file) refuses the key.
    Revoked(PathBuf),
    /// It may not, for this reason.
    Refused(String),
}

/// The answers about every principal asked, sorted by what they mean.
#[derive(Default)]
struct Answers {
    /// The principals both readings give the key, in this verifier's (file) order.
    principals: Vec<String>,
    /// The principals `-Y find-principals` printed that `-Y verify`, or a rule of this verifier's
    /// own, refused, with why.
    refusals: Vec<String>,
    /// Where `ssh-keygen` and this verifier's reading of the file differ, each said.
    disputes: Vec<String>,
    /// The revocation list, when it decided.
    revoked_by: Option<PathBuf>,
}

impl Answers {
    /// The answer about a principal this verifier reads the file to list the key under.
    fn ours(&mut self, principal: &str, answer: Answer, parsed: &AllowedSigners) {
        match answer {
            Answer::Holds => self.principals.push(principal.to_owned()),
            Answer::Revoked(file) => self.revoked_by = Some(file),
            Answer::Refused(why) => self.disputes.push(format!(
                "{} lists the key as {principal} for this namespace and time as this verifier reads it, but ssh-keygen -Y verify -I {principal} refuses it ({why})",
                parsed.path.display()
            )),
        }
    }

    /// The answer about a principal only `-Y find-principals` printed; `listed` is this
    /// verifier's reading of the file.
    fn theirs(
        &mut self,
        principal: &str,
        answer: Answer,
        parsed: &AllowedSigners,
        listed: &Result<Vec<String>, String>,
    ) {
        match answer {
            Answer::Holds => self.disputes.push(format!(
                "ssh-keygen -Y verify -I {principal} accepts the key, but {} lists it as {principal} on no line this verifier reads as applying ({})",
                parsed.path.display(),
                match listed {
                    Ok(ours) => format!("it reads the key as {}", ours.join(", ")),
                    Err(why) => why.clone(),
                }
            )),
            Answer::Revoked(file) => self.revoked_by = Some(file),
            Answer::Refused(why) => self.refusals.push(format!("{principal}: {why}")),
        }
    }
}

/// The key is revoked: `ssh-keygen` accepts it without the revocation list `file`, not with it.
fn revoked(fingerprint: &str, file: PathBuf) -> SshVerifyError {
    SshVerifyError::Revoked {
        fingerprint: fingerprint.to_owned(),
        reason: format!("ssh-keygen refuses it with -r {}", file.display()),
    }
}

/// Why no principal `ssh-keygen -Y find-principals` printed (`printed`) may sign with the key:
/// every principal was negated, or each was refused (`refusals`).
fn none_allowed(fingerprint: &str, refusals: &[String], printed: &str) -> SshVerifyError {
    let fingerprint = fingerprint.to_owned();
    if refusals.is_empty() {
        return SshVerifyError::UntrustedSigner {
            fingerprint,
            reason: format!("every principal ssh-keygen finds for the key is negated: {}", printed.trim()),
        };
    }
    SshVerifyError::UntrustedSigner { fingerprint, reason: refusals.join("; ") }
}

/// `verify-time=YYYYMMDDHHMMSSZ` for `at`, when `ssh-keygen` can take it.
fn verify_time(at: OffsetDateTime) -> Option<String> {
    let utc = at.to_offset(time::UtcOffset::UTC);
    if !(1970..=9999).contains(&utc.year()) {
        return None;
    }
    let stamp = utc.format(format_description!("[year][month][day][hour][minute][second]")).ok()?;
    Some(format!("verify-time={stamp}Z"))
}

/// A failed `-Y check-novalidate`: a signature that decoded but did not verify (content, namespace,
/// hash) is bad; anything else ssh-keygen could not even parse is malformed.
fn soundness_failure(out: &Output) -> SshVerifyError {
    const VERIFY_FAILURES: [&str; 4] =
        ["incorrect signature", "namespace does not match", "unsupported hash algorithm", "not permitted"];
    let reason = tool::stderr_text(out);
    if VERIFY_FAILURES.iter().any(|m| reason.contains(m)) {
        SshVerifyError::BadSignature { reason }
    } else {
        SshVerifyError::Malformed { reason }
    }
}

/// From `Good "ns" signature with TYPE key SHA256:…` and the printed public key: both.
fn good_signature(out: &Output) -> Option<(String, String)> {
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = text.lines();
    let good = lines.find(|l| l.starts_with("Good "))?;
    let fingerprint = good.split_whitespace().find(|w| w.starts_with("SHA256:"))?.to_owned();
    let public_line = lines.find(|l| !l.trim().is_empty())?.trim().to_owned();
    Some((fingerprint, public_line))
}

/// Why `ssh-keygen -Y verify -I <principal>` refused: what it says on stderr, or, when it says
/// nothing there (a principal its own line vetoes), that it refused and how it exited.
fn refusal(checked: &std::process::Output) -> String {
    let said = tool::stderr_text(checked);
    if said.is_empty() {
        let code = checked.status.code().map_or_else(|| "a signal".to_owned(), |c| c.to_string());
        return format!("ssh-keygen -Y verify refuses it (exit {code}) and says nothing more");
    }
    said
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sign::Signer as _;
    use crate::sign::ssh::allowed_signers::AllowedSigners;
    use crate::sign::ssh::revoked_keys::RevokedKeys;
    use crate::sign::ssh::signer::SshSigner;
    use crate::sign::ssh::sshsig::NAMESPACE;
    use crate::sign::ssh::test_support::{certify, keygen, public_line, ssh_keygen, tool_sign};
    use crate::sign::ssh::verify::verify;
    use std::path::PathBuf;
    use time::macros::datetime;

    const MESSAGE: &[u8] = b"DSSEv1 28 application/vnd.in-toto+json 2 {}";
    const AT: OffsetDateTime = datetime!(2030-06-01 12:00 UTC);

    /// What a case should come to; `Trusted` names the principals in file order.
    #[derive(Debug, PartialEq)]
    enum Expect {
        Trusted(&'static [&'static str]),
        Malformed,
        BadSignature,
        Untrusted,
        Revoked,
    }

    /// The outcome class of a verification, principals left out.
    fn class(r: Result<&SshVerified, &SshVerifyError>) -> &'static str {
        match r {
            Ok(_) => "trusted",
            Err(SshVerifyError::Malformed { .. }) => "malformed",
            Err(SshVerifyError::BadSignature { .. }) => "bad_signature",
            Err(SshVerifyError::UntrustedSigner { .. }) => "untrusted",
            Err(SshVerifyError::Revoked { .. }) => "revoked",
            Err(SshVerifyError::Unsupported { .. }) => "unsupported",
        }
    }

    fn expected_class(e: &Expect) -> &'static str {
        match e {
            Expect::Trusted(_) => "trusted",
            Expect::Malformed => "malformed",
            Expect::BadSignature => "bad_signature",
            Expect::Untrusted => "untrusted",
            Expect::Revoked => "revoked",
        }
    }

    struct Case {
        name: &'static str,
        sig: Vec<u8>,
        message: &'static [u8],
        revoked: PathBuf,
        expect: Expect,
    }

    /// The keys and certificates of the corpus, made by `ssh-keygen`.
    struct Keys {
        alice: PathBuf,
        bob: PathBuf,
        carol: PathBuf,
        mallory: PathBuf,
        erin: PathBuf,
        frank: PathBuf,
        grace: PathBuf,
        henry: PathBuf,
        ivan: PathBuf,
        vic: PathBuf,
        ca: PathBuf,
        rsa_ca: PathBuf,
        dave_cert: PathBuf,
        eve_cert: PathBuf,
        zed_cert: PathBuf,
        olive_cert: PathBuf,
        paul_cert: PathBuf,
        quinn_host_cert: PathBuf,
        rita: PathBuf,
        rita_cert: PathBuf,
        rita_other_cert: PathBuf,
        sam: PathBuf,
        sam_cert: PathBuf,
        tom_expired_cert: PathBuf,
        ca2_cert: PathBuf,
        uma_cert: PathBuf,
    }

    /// A copy of the key `key` as `d/name`: a second file of the same key, for a second
    /// certificate of it (`ssh-keygen -s` writes `<key>-cert.pub`).
    fn copy_key(d: &Path, key: &Path, name: &str) -> PathBuf {
        let copy = d.join(name);
        std::fs::copy(key, &copy).expect("copy key");
        std::fs::copy(format!("{}.pub", key.display()), format!("{}.pub", copy.display())).expect("copy");
        copy
    }

    /// Every key of the corpus, in `d`.
    fn corpus_keys(d: &Path) -> Keys {
        let k = |name: &str, kind: &str| keygen(d, name, kind);
        let (ca, rsa_ca) = (k("ca", "ed25519"), k("rsa_ca", "rsa"));
        // ssh-key 0.6 cannot decode "forever" certificates (see the test below): give a validity.
        let valid = ["-V", "20200101:20991231"];
        let dave_cert = certify(
            &ca,
            &k("dave", "ed25519"),
            "dave-id",
            "dave@example.com,dave@other.org",
            &["-z", "7", valid[0], valid[1]],
        );
        let eve_cert = certify(&ca, &k("eve", "ecdsa"), "eve-id", "eve@example.com", &valid);
        let zed_cert = certify(&ca, &k("zed", "ed25519"), "zed-id", "zed@other.org", &valid);
        let olive_cert = certify(
            &ca,
            &k("olive", "ed25519"),
            "olive-id",
            "olive@example.com",
            &["-V", "20200101:20210101"],
        );
        let paul_cert = certify(&rsa_ca, &k("paul", "rsa"), "paul-id", "paul@example.com", &valid);
        let quinn = k("quinn", "ed25519");
        let quinn_host_cert =
            certify(&ca, &quinn, "quinn-id", "quinn@example.com", &["-h", valid[0], valid[1]]);
        // Certificates that allowed-signers lines name themselves, from a CA no line trusts; the
        // first valid forever, the default of `ssh-keygen -s`.
        let loose_ca = k("loose_ca", "ed25519");
        let rita = k("rita", "ed25519");
        let rita_cert = certify(&loose_ca, &rita, "rita-id", "rita@elsewhere.org", &[]);
        let rita_other = copy_key(d, &rita, "rita_other");
        let rita_other_cert = certify(&loose_ca, &rita_other, "rita-2", "rita@elsewhere.org", &[]);
        let sam = k("sam", "ed25519");
        let sam_cert = certify(&loose_ca, &sam, "sam-id", "sam@example.com", &valid);
        let tom = k("tom", "ed25519");
        let tom_expired_cert =
            certify(&loose_ca, &tom, "tom-id", "tom@example.com", &["-V", "20200101:20210101"]);
        let ca2 = k("ca2", "ed25519");
        let ca2_cert = certify(&loose_ca, &ca2, "ca2-id", "ca2", &valid);
        let uma_cert = certify(&ca2, &k("uma", "ed25519"), "uma-id", "uma@example.com", &valid);
        Keys {
            alice: k("alice", "ed25519"),
            bob: k("bob", "ecdsa"),
            carol: k("carol", "rsa"),
            mallory: k("mallory", "ed25519"),
            erin: k("erin", "ed25519"),
            frank: k("frank", "ed25519"),
            grace: k("grace", "ed25519"),
            henry: k("henry", "ed25519"),
            ivan: k("ivan", "ed25519"),
            vic: k("vic", "ed25519"),
            ca,
            rsa_ca,
            dave_cert,
            eve_cert,
            zed_cert,
            olive_cert,
            paul_cert,
            quinn_host_cert,
            rita,
            rita_cert,
            rita_other_cert,
            sam,
            sam_cert,
            tom_expired_cert,
            ca2_cert,
            uma_cert,
        }
    }

    /// The corpus's allowed-signers file in `d`, and its parse.
    fn corpus_allowed_signers(d: &Path, keys: &Keys) -> (PathBuf, AllowedSigners) {
        let allowed_text = format!(
            "# corpus\n\
             alice@example.com {}\n\
             bob@example.com namespaces=\"in-toto,file\" {}\n\
             carol@example.com valid-after=\"20200101Z\",valid-before=\"20991231Z\" {}\n\
             erin@example.com namespaces=\"git\" {}\n\
             frank@example.com valid-before=\"20200101Z\" {}\n\
             grace@example.com valid-after=\"20990101Z\" {}\n\
             henry@example.com {}\n\
             !ivan@example.com {}\n\
             vic@example.com,!v*@example.com {}\n\
             *@example.com,!eve@example.com cert-authority {}\n\
             paul@example.com cert-authority {}\n\
             rita@example.com {}\n\
             sam@example.com {}\n\
             tom@example.com {}\n\
             uma@example.com cert-authority {}\n",
            public_line(&keys.alice),
            public_line(&keys.bob),
            public_line(&keys.carol),
            public_line(&keys.erin),
            public_line(&keys.frank),
            public_line(&keys.grace),
            public_line(&keys.henry),
            public_line(&keys.ivan),
            public_line(&keys.vic),
            public_line(&keys.ca),
            public_line(&keys.rsa_ca),
            cert_line(&keys.rita_cert),
            public_line(&keys.sam),
            cert_line(&keys.tom_expired_cert),
            cert_line(&keys.ca2_cert),
        );
        let allowed_path = d.join("allowed_signers");
        std::fs::write(&allowed_path, &allowed_text).expect("write allowed signers");
        let allowed = AllowedSigners::read(&allowed_path).expect("corpus allowed signers parse");
        (allowed_path, allowed)
    }

    /// The line of the certificate file `cert`.
    fn cert_line(cert: &Path) -> String {
        std::fs::read_to_string(cert).expect("certificate file").trim().to_owned()
    }

    /// A signature of [`MESSAGE`] by `key` with `ssh-keygen -O hashalg=sha256`.
    fn sha256_signature(d: &Path, key: &Path) -> Vec<u8> {
        let data = d.join("sha256-data");
        std::fs::write(&data, MESSAGE).expect("write");
        let out = ssh_keygen(
            &[
                "-Y",
                "sign",
                "-n",
                NAMESPACE,
                "-O",
                "hashalg=sha256",
                "-f",
                key.to_str().expect("utf-8"),
                data.to_str().expect("utf-8"),
            ],
            None,
        );
        assert!(out.status.success());
        std::fs::read(d.join("sha256-data.sig")).expect("sig")
    }

    /// The cases of the corpus, with their revoked-keys files in `d`.
    fn corpus_cases(d: &Path, k: &Keys) -> Vec<Case> {
        let revoked_henry = d.join("revoked-henry");
        std::fs::write(&revoked_henry, format!("# revoked\n{}\n", public_line(&k.henry))).expect("write");
        let revoked_ca = d.join("revoked-ca");
        std::fs::write(&revoked_ca, format!("{}\n", public_line(&k.ca))).expect("write");
        let ours = |key: &Path| {
            SshSigner::from_key_path(key).expect("key loads").without_agent().sign(MESSAGE).expect("signs")
        };
        let theirs = |key: &Path, ns: &str| tool_sign(d, key, ns, MESSAGE);
        let case =
            |name, sig, expect| Case { name, sig, message: MESSAGE, revoked: revoked_henry.clone(), expect };
        let garbage_armor =
            b"-----BEGIN SSH SIGNATURE-----\nU1NIU0lHAAAAAQAAAAR0cnVu\n-----END SSH SIGNATURE-----\n";
        vec![
            case("ed25519, ours", ours(&k.alice), Expect::Trusted(&["alice@example.com"])),
            case("p256, ours", ours(&k.bob), Expect::Trusted(&["bob@example.com"])),
            case("rsa, through the tool", ours(&k.carol), Expect::Trusted(&["carol@example.com"])),
            case("sha256 hash", sha256_signature(d, &k.alice), Expect::Trusted(&["alice@example.com"])),
            Case {
                message: b"DSSEv1 28 application/vnd.in-toto+json 2 []",
                ..case("tampered message", ours(&k.alice), Expect::BadSignature)
            },
            case("wrong key", ours(&k.mallory), Expect::Untrusted),
            case("wrong namespace", theirs(&k.alice, "file"), Expect::BadSignature),
            case("principal absent (only negated)", ours(&k.ivan), Expect::Untrusted),
            case("principal vetoed by its own line's negation", ours(&k.vic), Expect::Untrusted),
            case("namespaces= excludes in-toto", ours(&k.erin), Expect::Untrusted),
            case("valid-before in the past", ours(&k.frank), Expect::Untrusted),
            case("valid-after in the future", ours(&k.grace), Expect::Untrusted),
            case("revoked key", ours(&k.henry), Expect::Revoked),
            case(
                "certificate from a trusted CA",
                theirs(&k.dave_cert, NAMESPACE),
                Expect::Trusted(&["dave@example.com"]),
            ),
            case("certificate for an excluded principal", theirs(&k.eve_cert, NAMESPACE), Expect::Untrusted),
            case(
                "certificate for a principal the CA line does not cover",
                theirs(&k.zed_cert, NAMESPACE),
                Expect::Untrusted,
            ),
            case("expired certificate", theirs(&k.olive_cert, NAMESPACE), Expect::Untrusted),
            case("host certificate", theirs(&k.quinn_host_cert, NAMESPACE), Expect::Untrusted),
            case(
                "certificate from an RSA CA",
                theirs(&k.paul_cert, NAMESPACE),
                Expect::Trusted(&["paul@example.com"]),
            ),
            Case {
                revoked: revoked_ca.clone(),
                ..case("certificate whose CA is revoked", theirs(&k.dave_cert, NAMESPACE), Expect::Revoked)
            },
            case(
                "certificate a line names itself",
                theirs(&k.rita_cert, NAMESPACE),
                Expect::Trusted(&["rita@example.com"]),
            ),
            case("plain key of a line naming its certificate", ours(&k.rita), Expect::Untrusted),
            case(
                "another certificate of the key of a line naming a certificate",
                theirs(&k.rita_other_cert, NAMESPACE),
                Expect::Untrusted,
            ),
            case(
                "certificate of a key a line names plain",
                theirs(&k.sam_cert, NAMESPACE),
                Expect::Untrusted,
            ),
            case(
                "expired certificate a line names itself",
                theirs(&k.tom_expired_cert, NAMESPACE),
                Expect::Trusted(&["tom@example.com"]),
            ),
            case(
                "certificate from a CA a cert-authority line names by a certificate of it",
                theirs(&k.uma_cert, NAMESPACE),
                Expect::Trusted(&["uma@example.com"]),
            ),
            case("not a signature", b"hello".to_vec(), Expect::Malformed),
            case("armor around a truncated blob", garbage_armor.to_vec(), Expect::Malformed),
        ]
    }

    #[test]
    fn in_process_and_ssh_keygen_verification_agree_on_a_corpus() {
        let dir = tempfile::tempdir().expect("temp dir");
        let d = dir.path();
        let keys = corpus_keys(d);
        let (allowed_path, allowed) = corpus_allowed_signers(d, &keys);
        let tool = SshKeygen::default();
        for c in &corpus_cases(d, &keys) {
            let revoked = RevokedKeys::read(&c.revoked).expect("revoked list parses");
            let in_process = verify(&c.sig, c.message, NAMESPACE, &allowed, &revoked, AT);
            let trust =
                ToolTrust { allowed_signers: &allowed_path, parsed: &allowed, revoked: Some(&c.revoked) };
            let via_tool = tool.verify(&c.sig, c.message, NAMESPACE, trust, AT);
            let tool_class = match &via_tool {
                Ok(v) => class(Ok(v)),
                Err(SshToolError::Rejected(e)) => class(Err(e)),
                Err(other) => panic!("{}: ssh-keygen could not be used: {other}", c.name),
            };
            let expected = expected_class(&c.expect);
            assert_eq!(class(in_process.as_ref()), expected, "{}: in-process gave {in_process:?}", c.name);
            assert_eq!(tool_class, expected, "{}: ssh-keygen gave {via_tool:?}", c.name);
            if let (Ok(x), Ok(y), Expect::Trusted(principals)) = (&in_process, &via_tool, &c.expect) {
                assert_eq!(x, y, "{}: the two verifiers describe the signer differently", c.name);
                assert_eq!(x.principals, *principals, "{}", c.name);
            }
        }
    }

    #[test]
    fn a_certificate_valid_forever_verifies_in_process_and_through_ssh_keygen_alike() {
        let dir = tempfile::tempdir().expect("temp dir");
        let d = dir.path();
        let (ca, key) = (keygen(d, "ca", "ed25519"), keygen(d, "kim", "ed25519"));
        let cert = certify(&ca, &key, "kim-id", "kim@example.com", &[]);
        let sig = tool_sign(d, &cert, NAMESPACE, MESSAGE);
        let allowed_path = d.join("allowed_signers");
        std::fs::write(&allowed_path, format!("*@example.com cert-authority {}\n", public_line(&ca)))
            .expect("write");
        let allowed = AllowedSigners::read(&allowed_path).expect("parses");
        let ours =
            verify(&sig, MESSAGE, NAMESPACE, &allowed, &RevokedKeys::default(), AT).expect("in process");
        let trust = ToolTrust { allowed_signers: &allowed_path, parsed: &allowed, revoked: None };
        let v =
            SshKeygen::default().verify(&sig, MESSAGE, NAMESPACE, trust, AT).expect("ssh-keygen accepts it");
        assert_eq!(v.principals, ["kim@example.com"]);
        assert_eq!(v.certificate.as_ref().map(|c| c.key_id.as_str()), Some("kim-id"));
        assert_eq!(ours, v);
    }

    /// The principals of every line listing the key, as `ssh-keygen -Y find-principals` (which
    /// prints the first line's only, whatever its namespaces) would not give them.
    #[test]
    fn a_key_listed_on_several_lines_has_every_line_s_principals_through_ssh_keygen_as_in_process() {
        let dir = tempfile::tempdir().expect("temp dir");
        let d = dir.path();
        let key = keygen(d, "multi", "ed25519");
        let line = public_line(&key);
        let sig = SshSigner::from_key_path(&key).expect("loads").sign(MESSAGE).expect("signs");
        let allowed_path = d.join("allowed_signers");
        let lines = [
            format!("git@x namespaces=\"git\" {line}\na@x {line}\nb@x,!c@x {line}\n"),
            format!("a@x {line}\nb@x valid-before=\"20200101Z\" {line}\nc@x,a@x {line}\n"),
        ];
        for (text, expected) in lines.iter().zip([&["a@x", "b@x"][..], &["a@x", "c@x"]]) {
            std::fs::write(&allowed_path, text).expect("write");
            let allowed = AllowedSigners::read(&allowed_path).expect("parses");
            let ours =
                verify(&sig, MESSAGE, NAMESPACE, &allowed, &RevokedKeys::default(), AT).expect("in process");
            let trust = ToolTrust { allowed_signers: &allowed_path, parsed: &allowed, revoked: None };
            let theirs =
                SshKeygen::default().verify(&sig, MESSAGE, NAMESPACE, trust, AT).expect("ssh-keygen");
            assert_eq!(ours.principals, expected, "{text}");
            assert_eq!(theirs, ours, "{text}");
        }
    }

    /// Where `ssh-keygen` and this verifier's reading of the file differ on a principal (here a
    /// reading of another file), the signature counts for no one, and the message says each way.
    #[test]
    fn a_principal_ssh_keygen_and_this_reading_of_the_file_differ_on_fails_closed() {
        let dir = tempfile::tempdir().expect("temp dir");
        let d = dir.path();
        let key = keygen(d, "kim", "ed25519");
        let line = public_line(&key);
        let sig = SshSigner::from_key_path(&key).expect("loads").sign(MESSAGE).expect("signs");
        let allowed_path = d.join("allowed_signers");
        std::fs::write(&allowed_path, format!("a@x {line}\n")).expect("write");
        let read_otherwise =
            AllowedSigners::parse(format!("b@x {line}\n").as_bytes(), &allowed_path).expect("parses");
        let trust = ToolTrust { allowed_signers: &allowed_path, parsed: &read_otherwise, revoked: None };
        match SshKeygen::default().verify(&sig, MESSAGE, NAMESPACE, trust, AT) {
            Err(e @ SshToolError::Disagrees { .. }) => {
                let said = e.to_string();
                assert!(
                    said.contains("lists the key as b@x") && said.contains("-I b@x refuses it"),
                    "{said}"
                );
                assert!(
                    said.contains("-I a@x accepts the key") && said.contains("it reads the key as b@x"),
                    "{said}"
                );
                assert!(said.contains("verify without --via-tools"), "{said}");
            }
            other => panic!("expected a disagreement, got {other:?}"),
        }
    }

    /// `ssh-keygen` ignores a certificate's critical options; this verifier does not honour them,
    /// so it does not let `ssh-keygen` accept such a certificate under a cert-authority line: the
    /// signer is untrusted on both paths, the option named, and no disagreement.
    #[test]
    fn a_certificate_with_a_critical_option_is_refused_through_ssh_keygen_as_in_process() {
        let dir = tempfile::tempdir().expect("temp dir");
        let d = dir.path();
        let (ca, key) = (keygen(d, "ca", "ed25519"), keygen(d, "kim", "ed25519"));
        let options = ["-V", "20200101:20991231", "-O", "force-command=/bin/true"];
        let sig =
            tool_sign(d, &certify(&ca, &key, "kim-id", "kim@example.com", &options), NAMESPACE, MESSAGE);
        let allowed_path = d.join("allowed_signers");
        std::fs::write(&allowed_path, format!("*@example.com cert-authority {}\n", public_line(&ca)))
            .expect("write");
        let allowed = AllowedSigners::read(&allowed_path).expect("parses");
        let ours = verify(&sig, MESSAGE, NAMESPACE, &allowed, &RevokedKeys::default(), AT);
        assert!(matches!(ours, Err(SshVerifyError::UntrustedSigner { .. })), "{ours:?}");
        let trust = ToolTrust { allowed_signers: &allowed_path, parsed: &allowed, revoked: None };
        match SshKeygen::default().verify(&sig, MESSAGE, NAMESPACE, trust, AT) {
            Err(SshToolError::Rejected(SshVerifyError::UntrustedSigner { reason, .. })) => assert!(
                reason.starts_with("kim@example.com: ")
                    && reason.contains("critical option \"force-command\""),
                "{reason}"
            ),
            other => panic!("expected an untrusted signer, got {other:?}"),
        }
    }

    /// A principal a line lists twice, which `-Y find-principals` prints twice, is asked about
    /// and reported once, trusted or refused.
    #[test]
    fn a_principal_listed_twice_is_asked_about_and_reported_once() {
        let dir = tempfile::tempdir().expect("temp dir");
        let d = dir.path();
        let key = keygen(d, "kim", "ed25519");
        let line = public_line(&key);
        let sig = SshSigner::from_key_path(&key).expect("loads").sign(MESSAGE).expect("signs");
        let allowed_path = d.join("allowed_signers");
        let verify_with = |text: String| {
            std::fs::write(&allowed_path, text).expect("write");
            let allowed = AllowedSigners::read(&allowed_path).expect("parses");
            let trust = ToolTrust { allowed_signers: &allowed_path, parsed: &allowed, revoked: None };
            SshKeygen::default().verify(&sig, MESSAGE, NAMESPACE, trust, AT)
        };
        let trusted = verify_with(format!("a@x,a@x {line}\n")).expect("trusted");
        assert_eq!(trusted.principals, ["a@x"]);
        match verify_with(format!("a@x,a@x namespaces=\"git\" {line}\n")) {
            Err(SshToolError::Rejected(SshVerifyError::UntrustedSigner { reason, .. })) => {
                assert_eq!(reason.matches("a@x:").count(), 1, "{reason}");
            }
            other => panic!("expected an untrusted signer, got {other:?}"),
        }
    }

    #[test]
    fn a_missing_ssh_keygen_is_tool_missing_never_a_pass() {
        let dir = tempfile::tempdir().expect("temp dir");
        let allowed = dir.path().join("allowed");
        std::fs::write(&allowed, "").expect("write");
        let tool = SshKeygen::at("/nonexistent/ssh-keygen");
        let parsed = AllowedSigners::read(&allowed).expect("parses");
        let trust = ToolTrust { allowed_signers: &allowed, parsed: &parsed, revoked: None };
        match tool.verify(b"sig", MESSAGE, NAMESPACE, trust, AT) {
            Err(e @ SshToolError::ToolMissing { .. }) => assert_eq!(
                e.to_string(),
                "`/nonexistent/ssh-keygen` was not found, so no SSH signature was checked; install OpenSSH's ssh-keygen (8.9 or newer) or verify without --via-tools"
            ),
            other => panic!("expected ToolMissing, got {other:?}"),
        }
    }

    #[test]
    fn the_verify_time_is_given_to_ssh_keygen_in_utc() {
        let at = datetime!(2030-06-01 14:00:05 +02:00);
        assert_eq!(verify_time(at).as_deref(), Some("verify-time=20300601120005Z"));
        assert_eq!(verify_time(datetime!(1969-12-31 0:00 UTC)), None);
    }
}
