//! Test helpers around the real GnuPG and sqv: an isolated keyring directory per test (passed as
//! `--homedir`, never the user's), keys made by `gpg --quick-gen-key`, signatures by
//! `gpg --detach-sign`, verdicts of `gpg --verify`; its gpg-agent is stopped when dropped. Every
//! key is made by `gpg`; sequoia signs only what gpg refuses to make (signatures by expired or
//! non-signing keys, v6 keys). The in-process and sqv verdicts are compared by name.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::SystemTime;

use sequoia_openpgp::armor::{self, Kind};
use sequoia_openpgp::packet::key::{Key4, PrimaryRole, SecretParts};
use sequoia_openpgp::packet::signature::SignatureBuilder;
use sequoia_openpgp::packet::{Key, UserID};
use sequoia_openpgp::parse::Parse;
use sequoia_openpgp::serialize::SerializeInto;
use sequoia_openpgp::serialize::stream::{Armorer, Message, Signer as StreamSigner};
use sequoia_openpgp::types::{HashAlgorithm, KeyFlags, SignatureType};
use sequoia_openpgp::{Cert, Packet};
use time::OffsetDateTime;

use super::{OpenPgpCerts, OpenPgpVerified, OpenPgpVerifyError, Sqv, SqvError, verify};

/// One isolated GnuPG home in a temporary directory.
pub struct GnuPg {
    // Held so that the directory lives as long as the keyring.
    _dir: tempfile::TempDir,
    /// The `--homedir` of this keyring.
    pub home: PathBuf,
}

impl GnuPg {
    /// A fresh, empty keyring.
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let home = dir.path().join("gnupg");
        std::fs::create_dir(&home).expect("mkdir gnupg home");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o700))
                .expect("chmod 700 gnupg home");
        }
        Self { _dir: dir, home }
    }

    /// A scratch file path beside the keyring.
    pub fn path(&self, name: &str) -> PathBuf {
        self.home.parent().expect("home has a parent").join(name)
    }

    /// Runs `gpg --homedir <home> --batch --pinentry-mode loopback --passphrase '' <args>`.
    pub fn run(&self, args: &[&str], stdin: Option<&[u8]>) -> Output {
        self.run_as("", args, stdin)
    }

    /// As [`Self::run`] with `passphrase` for every key operation.
    pub fn run_with_passphrase(&self, passphrase: &str, args: &[&str]) -> Output {
        self.run_as(passphrase, args, None)
    }

    fn run_as(&self, passphrase: &str, args: &[&str], stdin: Option<&[u8]>) -> Output {
        let mut child = Command::new("gpg")
            .arg("--homedir")
            .arg(&self.home)
            .args(["--batch", "--no-tty", "--pinentry-mode", "loopback"])
            .args(["--passphrase", passphrase])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("gpg runs (GnuPG must be installed for these tests)");
        let mut input = child.stdin.take().expect("stdin");
        input.write_all(stdin.unwrap_or_default()).expect("write stdin");
        drop(input);
        child.wait_with_output().expect("gpg finishes")
    }

    /// Runs gpg and insists that it succeeds; its stdout.
    pub fn ok(&self, args: &[&str], stdin: Option<&[u8]>) -> Vec<u8> {
        let out = self.run(args, stdin);
        assert!(out.status.success(), "gpg {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        out.stdout
    }

    /// `--quick-gen-key uid algo usage expire` (optionally at a faked time); the fingerprint.
    pub fn gen_key(&self, uid: &str, usage: &str, expire: &str, faked: Option<&str>) -> String {
        let mut args = Vec::new();
        if let Some(t) = faked {
            args.extend(["--faked-system-time", t]);
        }
        args.extend(["--quick-gen-key", uid, "ed25519", usage, expire]);
        self.ok(&args, None);
        self.fingerprint(uid)
    }

    /// `--quick-add-key fpr ed25519 usage`; the new subkey's fingerprint.
    pub fn add_subkey(&self, fpr: &str, usage: &str) -> String {
        self.ok(&["--quick-add-key", fpr, "ed25519", usage], None);
        let listing =
            String::from_utf8(self.ok(&["--with-colons", "--list-keys", fpr], None)).expect("utf-8 listing");
        let mut last_sub = None;
        let mut in_sub = false;
        for line in listing.lines() {
            if line.starts_with("sub:") {
                in_sub = true;
            } else if line.starts_with("fpr:") && in_sub {
                last_sub = line.split(':').nth(9).map(str::to_owned);
                in_sub = false;
            }
        }
        last_sub.expect("a subkey fingerprint")
    }

    /// The primary fingerprint of the first key matching `who`.
    pub fn fingerprint(&self, who: &str) -> String {
        let listing =
            String::from_utf8(self.ok(&["--with-colons", "--list-keys", who], None)).expect("utf-8 listing");
        listing
            .lines()
            .find(|l| l.starts_with("fpr:"))
            .and_then(|l| l.split(':').nth(9))
            .expect("a fingerprint")
            .to_owned()
    }

    /// The armored public certificates of `who`.
    pub fn export(&self, who: &[&str]) -> Vec<u8> {
        let mut args = vec!["--export", "--armor"];
        args.extend(who);
        self.ok(&args, None)
    }

    /// The secret key of `who`, armored or binary.
    pub fn export_secret(&self, who: &str, armor: bool) -> Vec<u8> {
        let mut args = vec!["--export-secret-keys"];
        if armor {
            args.push("--armor");
        }
        args.push(who);
        self.ok(&args, None)
    }

    /// `gpg --detach-sign --armor --local-user who [extra] ` over `data`.
    pub fn sign(&self, who: &str, data: &[u8], extra: &[&str]) -> Vec<u8> {
        let mut args = extra.to_vec();
        args.extend(["--detach-sign", "--armor", "--local-user", who]);
        self.ok(&args, Some(data))
    }

    /// Imports armored or binary key material.
    pub fn import(&self, material: &[u8]) {
        self.ok(&["--import"], Some(material));
    }

    /// The revocation certificate gpg stored when it made `fpr`, ready to import.
    pub fn revocation(&self, fpr: &str) -> Vec<u8> {
        let file = self.home.join("openpgp-revocs.d").join(format!("{fpr}.rev"));
        let text = std::fs::read_to_string(file).expect("stored revocation certificate");
        text.replace(":-----BEGIN PGP PUBLIC KEY BLOCK-----", "-----BEGIN PGP PUBLIC KEY BLOCK-----")
            .into_bytes()
    }

    /// Revokes the first subkey of `fpr` ("no reason specified": a hard revocation) through
    /// `gpg --edit-key`, as a person does at the prompt.
    pub fn revoke_first_subkey(&self, fpr: &str) {
        self.ok(&["--command-fd", "0", "--edit-key", fpr], Some(b"key 1\nrevkey\ny\n0\n\ny\nsave\n"));
    }

    /// Whether `gpg --verify sig data` in this keyring accepts the signature.
    pub fn verifies(&self, sig: &[u8], data: &[u8]) -> bool {
        let sig_file = self.path("gpg-verify.sig");
        let data_file = self.path("gpg-verify.data");
        std::fs::write(&sig_file, sig).expect("write signature");
        std::fs::write(&data_file, data).expect("write data");
        let out = self
            .run(&["--verify", sig_file.to_str().expect("utf-8"), data_file.to_str().expect("utf-8")], None);
        out.status.success()
    }

    /// Writes `bytes` to a scratch file and returns its path.
    pub fn write(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.path(name);
        std::fs::write(&path, bytes).expect("write scratch file");
        path
    }
}

impl Drop for GnuPg {
    fn drop(&mut self) {
        // Only the agent of this keyring, by its home directory.
        let _ = Command::new("gpgconf")
            .arg("--homedir")
            .arg(&self.home)
            .args(["--kill", "gpg-agent"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

/// The PAE bytes the tests sign.
pub const PAE: &[u8] = b"DSSEv1 28 application/vnd.in-toto+json 13 {\"a\":\"b\\u0000\"}";

/// [`PAE`] with one byte of the body changed.
pub const TAMPERED: &[u8] = b"DSSEv1 28 application/vnd.in-toto+json 13 {\"a\":\"c\\u0000\"}";

/// The time of verification.
pub fn now() -> OffsetDateTime {
    OffsetDateTime::now_utc()
}

/// Writes `material` as the trusted keyring `name` and reads it back.
pub fn trust(gpg: &GnuPg, name: &str, material: &[u8]) -> (PathBuf, OpenPgpCerts) {
    let path = gpg.write(name, material);
    let certs = OpenPgpCerts::read(&path).expect("trusted certificates read");
    (path, certs)
}

/// The outcome's name, to compare in-process and sqv verdicts.
pub fn outcome(result: &Result<OpenPgpVerified, OpenPgpVerifyError>) -> &'static str {
    match result {
        Ok(_) => "ok",
        Err(OpenPgpVerifyError::Malformed { .. }) => "malformed",
        Err(OpenPgpVerifyError::BadSignature { .. }) => "bad_signature",
        Err(OpenPgpVerifyError::UntrustedSigner { .. }) => "untrusted_signer",
        Err(OpenPgpVerifyError::Expired { .. }) => "expired",
        Err(OpenPgpVerifyError::Revoked { .. }) => "revoked",
        Err(OpenPgpVerifyError::NotYetValid { .. }) => "not_yet_valid",
        Err(OpenPgpVerifyError::NotSigningCapable { .. }) => "not_signing_capable",
        Err(OpenPgpVerifyError::Unsupported { .. }) => "unsupported",
        Err(OpenPgpVerifyError::BindingRejected { .. }) => "binding_rejected",
    }
}

/// The outcome's name of an sqv verdict; a failure to check fails the test.
pub fn sqv_outcome(result: &Result<String, SqvError>) -> &'static str {
    match result {
        Ok(_) => "ok",
        Err(SqvError::Rejected(e)) => outcome(&Err(e.clone())),
        Err(e) => panic!("sqv could not check: {e}"),
    }
}

/// A signature by the (sub)key `key_fpr` of the secret key `tsk`, made by sequoia at `created`,
/// whatever the key's validity: for signatures gpg refuses to make.
pub fn sequoia_sign(tsk: &[u8], key_fpr: &str, created: SystemTime, data: &[u8]) -> Vec<u8> {
    sequoia_sign_over(tsk, key_fpr, created, data, HashAlgorithm::SHA512)
}

/// [`sequoia_sign`] over the hash `hash`.
pub fn sequoia_sign_over(
    tsk: &[u8],
    key_fpr: &str,
    created: SystemTime,
    data: &[u8],
    hash: HashAlgorithm,
) -> Vec<u8> {
    let cert = Cert::from_bytes(tsk).expect("secret key parses");
    let key = cert
        .keys()
        .secret()
        .find(|k| k.key().fingerprint().to_hex() == key_fpr)
        .expect("the key is in the secret key file")
        .key()
        .clone();
    let mut keypair = key.into_keypair().expect("an unencrypted secret key");
    if hash != HashAlgorithm::SHA512 {
        // The streaming signer picks among the hashes it prefers; a builder signs with any.
        let sig = SignatureBuilder::new(SignatureType::Binary)
            .set_hash_algo(hash)
            .set_signature_creation_time(created)
            .expect("time")
            .set_issuer_fingerprint(keypair.public().fingerprint())
            .expect("issuer")
            .sign_message(&mut keypair, data)
            .expect("signs");
        return rearmor(&Packet::from(sig).to_vec().expect("serialize"));
    }
    let mut out = Vec::new();
    let message = Message::new(&mut out);
    let message = Armorer::new(message).kind(Kind::Signature).build().expect("armorer");
    let mut signer = StreamSigner::new(message, keypair)
        .expect("signer")
        .detached()
        .hash_algo(hash)
        .expect("hash")
        .creation_time(created)
        .build()
        .expect("signer builds");
    signer.write_all(data).expect("sign data");
    signer.finalize().expect("finalize");
    out
}

/// The binary packets inside an armored block.
pub fn dearmor(armored: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    std::io::Read::read_to_end(
        &mut armor::Reader::from_bytes(armored, armor::ReaderMode::Tolerant(None)),
        &mut out,
    )
    .expect("dearmor");
    out
}

/// `binary` in signature armor.
pub fn rearmor(binary: &[u8]) -> Vec<u8> {
    let mut writer = armor::Writer::new(Vec::new(), Kind::Signature).expect("armor writer");
    writer.write_all(binary).expect("armor");
    writer.finalize().expect("armor finalize")
}

/// The secret key of `who` exported from the keyring into the file `name`.
pub fn secret_key_file(gpg: &GnuPg, who: &str, name: &str, armor: bool) -> PathBuf {
    gpg.write(name, &gpg.export_secret(who, armor))
}

/// The in-process and sqv verdicts on `sig` over [`PAE`] with `material` as the trusted keyring;
/// the test fails if they disagree.
pub fn agreed_outcome(gpg: &GnuPg, name: &str, material: &[u8], sig: &[u8]) -> &'static str {
    let (trust_path, certs) = trust(gpg, name, material);
    let at = now();
    let in_process = verify(sig, PAE, &certs, at);
    let by_sqv = Sqv::default().verify(sig, PAE, &trust_path, at);
    assert_eq!(outcome(&in_process), sqv_outcome(&by_sqv), "{name}: ours {in_process:?}, sqv {by_sqv:?}");
    outcome(&in_process)
}

/// The armored certificate of the secret key `holder_tsk` with the subkey `subkey_fpr` of the
/// certificate `other` bound to it too, by a binding signature of the holder with `flags` and no
/// back-signature: what anyone can append to their own certificate (gpg cannot make it).
pub fn bind_foreign_subkey(holder_tsk: &[u8], other: &[u8], subkey_fpr: &str, flags: KeyFlags) -> Vec<u8> {
    bind_subkey(holder_tsk, other, subkey_fpr, flags, false)
}

/// The armored certificate of the secret key `holder_tsk` with the signing subkey `subkey_fpr` of
/// the secret key `owner_tsk` bound to it too, with the back-signature a signing subkey needs,
/// made by the subkey: one key two certificates validly bind, which only the subkey's holder can
/// make (gpg cannot).
pub fn bind_shared_subkey(holder_tsk: &[u8], owner_tsk: &[u8], subkey_fpr: &str) -> Vec<u8> {
    bind_subkey(holder_tsk, owner_tsk, subkey_fpr, KeyFlags::empty().set_signing(), true)
}

/// [`bind_foreign_subkey`], with the subkey's back-signature when `back` (`other` then holds its
/// secret).
fn bind_subkey(holder_tsk: &[u8], other: &[u8], subkey_fpr: &str, flags: KeyFlags, back: bool) -> Vec<u8> {
    let holder = Cert::from_bytes(holder_tsk).expect("holder's secret key parses");
    let other = Cert::from_bytes(other).expect("other certificate parses");
    let subkey = other
        .keys()
        .subkeys()
        .find(|k| k.key().fingerprint().to_hex() == subkey_fpr)
        .expect("the subkey is in the other certificate")
        .key()
        .clone();
    let mut signer = holder
        .primary_key()
        .key()
        .clone()
        .parts_into_secret()
        .expect("secret")
        .into_keypair()
        .expect("keypair");
    // Not before either key was made: a slow machine may make the holder seconds after the
    // subkey, and a binding older than its signer is no binding at all.
    let made = subkey.creation_time().max(holder.primary_key().key().creation_time());
    let mut binding = SignatureBuilder::new(SignatureType::SubkeyBinding)
        .set_key_flags(flags)
        .expect("flags")
        .set_signature_creation_time(made)
        .expect("time");
    if back {
        let mut by_subkey =
            subkey.clone().parts_into_secret().expect("the subkey's secret").into_keypair().expect("keypair");
        let backsig = SignatureBuilder::new(SignatureType::PrimaryKeyBinding)
            .set_signature_creation_time(made)
            .expect("time")
            .sign_primary_key_binding(&mut by_subkey, holder.primary_key().key(), &subkey)
            .expect("back-signature signs");
        binding = binding.set_embedded_signature(backsig).expect("embedded");
    }
    let binding =
        binding.sign_subkey_binding(&mut signer, holder.primary_key().key(), &subkey).expect("binding signs");
    let (bound, _) = holder
        .strip_secret_key_material()
        .insert_packets([Packet::from(subkey.parts_into_public()), Packet::from(binding)])
        .expect("inserted");
    bound.armored().to_vec().expect("armor")
}

/// A v4 certificate whose primary key is an RFC 9580 Ed25519 key (public-key algorithm 27, not
/// gpg's EdDSA), with one user ID, as a transferable secret key; and its fingerprint.
pub fn v4_key_of_algorithm_27(uid: &str, created: SystemTime) -> (Vec<u8>, String) {
    let mut key: Key<SecretParts, PrimaryRole> = Key4::generate_ed25519().expect("ed25519").into();
    key.set_creation_time(created).expect("creation time");
    let mut signer = key.clone().into_keypair().expect("keypair");
    let uid = UserID::from(uid);
    let binding = SignatureBuilder::new(SignatureType::PositiveCertification)
        .set_key_flags(KeyFlags::empty().set_signing().set_certification())
        .expect("flags")
        .set_signature_creation_time(created)
        .expect("time")
        .sign_userid_binding(&mut signer, key.parts_as_public(), &uid)
        .expect("binding signs");
    let fpr = key.fingerprint().to_hex();
    let cert = Cert::try_from(vec![Packet::from(key), Packet::from(uid), Packet::from(binding)])
        .expect("certificate");
    (cert.as_tsk().to_vec().expect("serialize"), fpr)
}
