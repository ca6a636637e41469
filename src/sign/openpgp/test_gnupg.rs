//! Test helpers around the real GnuPG: an isolated keyring directory per test (passed as
//! `--homedir`, never the user's), keys made by `gpg --quick-gen-key`, signatures by
//! `gpg --detach-sign`, verdicts of `gpg --verify`. Its gpg-agent is stopped when dropped.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

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
