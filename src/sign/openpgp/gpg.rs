//! The user's `gpg` as a signer, the way git runs it for `gpg.format=openpgp`: never a shell,
//! always `--batch --no-tty`, the data on stdin, status lines on stderr (`--status-fd 2`).

use std::ffi::OsStr;
use std::path::Path;
use std::process::Output;

use super::certs::OpenPgpCerts;
use super::error::OpenPgpSignError;
use crate::sign::tool::{self, Run, ToolError};
use crate::sign::{KeySetting, SignError};

/// One `gpg` program and, optionally, its home directory (`--homedir`, else `GNUPGHOME`).
#[derive(Clone, Copy)]
pub(crate) struct Gpg<'a> {
    /// The program (git's `gpg.program`), `gpg` by default.
    pub program: &'a OsStr,
    /// The keyring directory, when not the user's default.
    pub home: Option<&'a Path>,
}

/// A secret key gpg lists for a key specification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SecretKey {
    /// The primary key fingerprint, uppercase hex.
    pub fingerprint: String,
    /// gpg's validity letter for it (`e` expired, `r` revoked, `i` invalid, `d` disabled, ...).
    pub validity: String,
}

impl SecretKey {
    /// Whether gpg would refuse to sign with it.
    pub fn unusable(&self) -> Option<&'static str> {
        match self.validity.as_str() {
            "e" => Some("expired"),
            "r" => Some("revoked"),
            "i" => Some("invalid"),
            "d" => Some("disabled"),
            _ => None,
        }
    }
}

impl Gpg<'_> {
    /// The program's name for messages.
    pub fn name(&self) -> String {
        self.program.to_string_lossy().into_owned()
    }

    /// The secret keys matching `key` (`gpg --list-secret-keys`), in gpg's order, and what gpg
    /// said on stderr (it exits 2 when nothing matches; an empty listing says the same).
    pub fn secret_keys(&self, key: &str) -> Result<(Vec<SecretKey>, String), SignError> {
        let output = self.run(&["--with-colons", "--list-secret-keys", "--", key], None)?;
        let keys = parse_secret_keys(&String::from_utf8_lossy(&output.stdout));
        Ok((keys, tool::stderr_text(&output)))
    }

    /// The public certificate of `fingerprint` from the keyring, minimal (its self-signatures
    /// only): third-party certifications do not check our signature, and a key that collected
    /// many from a keyserver would otherwise pass the packet limit of [`OpenPgpCerts`].
    pub fn export(&self, fingerprint: &str) -> Result<OpenPgpCerts, SignError> {
        let output =
            self.run(&["--export-options", "export-minimal", "--export", "--", fingerprint], None)?;
        let origin = format!("`{} --export {fingerprint}`", self.name());
        OpenPgpCerts::parse(&output.stdout, Path::new(&origin)).map_err(|e| {
            SignError::from(OpenPgpSignError::GpgOutput {
                program: self.name(),
                reason: format!("{e} ({})", tool::stderr_text(&output)),
            })
        })
    }

    /// `gpg --detach-sign --armor --local-user <key>` over `data`; the armored signature. Advice
    /// about the key names `setting`, where it was given.
    pub fn detach_sign(&self, key: &str, setting: KeySetting, data: &[u8]) -> Result<Vec<u8>, SignError> {
        let temp = |source| SignError::from(OpenPgpSignError::Temp { source });
        let file = tempfile::NamedTempFile::new().map_err(temp)?;
        std::fs::write(file.path(), data).map_err(temp)?;
        let args = [
            "--status-fd",
            "2",
            "--detach-sign",
            "--armor",
            "--no-textmode",
            "--digest-algo",
            "SHA512",
            "--local-user",
            key,
        ];
        let output = self.run(&args, Some(file.path()))?;
        if !output.status.success() {
            return Err(OpenPgpSignError::GpgFailed {
                program: self.name(),
                status: output.status.to_string(),
                stderr: tool::stderr_text(&output),
                hint: failure_hint(&output, key, setting),
            }
            .into());
        }
        Ok(output.stdout)
    }

    fn run(&self, args: &[&str], stdin: Option<&Path>) -> Result<Output, SignError> {
        let mut run = Run::new(self.program);
        if let Some(home) = self.home {
            run = run.args([OsStr::new("--homedir"), home.as_os_str()]);
        }
        run = run.args(["--batch", "--no-tty"]).args(args);
        if let Some(path) = stdin {
            run = run.stdin_file(path);
        }
        run.output().map_err(|e| match e {
            ToolError::Missing(program) => SignError::ToolMissing { program },
            ToolError::Io(program, source) => OpenPgpSignError::GpgStart { program, source }.into(),
        })
    }
}

/// The `sec` records of `gpg --with-colons` output with the fingerprint that follows each.
fn parse_secret_keys(colons: &str) -> Vec<SecretKey> {
    let mut keys = Vec::new();
    let mut pending: Option<String> = None;
    for line in colons.lines() {
        let fields: Vec<&str> = line.split(':').collect();
        match fields.first().copied() {
            Some("sec") => pending = Some(fields.get(1).copied().unwrap_or("").to_owned()),
            Some("fpr") => {
                if let (Some(validity), Some(fpr)) = (pending.take(), fields.get(9)) {
                    keys.push(SecretKey { fingerprint: fpr.to_ascii_uppercase(), validity });
                }
            }
            Some("ssb" | "pub" | "sub") => pending = None,
            _ => {}
        }
    }
    keys
}

/// Advice for a failed `--detach-sign`, from gpg's status lines (starting with "; ").
fn failure_hint(output: &Output, key: &str, setting: KeySetting) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr);
    let status: Vec<Vec<&str>> =
        stderr.lines().filter_map(|l| l.strip_prefix("[GNUPG:] ")).map(|l| l.split(' ').collect()).collect();
    let has = |keyword: &str| status.iter().any(|s| s.first() == Some(&keyword));
    if let Some(code) = status.iter().find(|s| s.first() == Some(&"INV_SGNR")).and_then(|s| s.get(1)) {
        let why = match *code {
            "1" | "9" => "gpg has no secret key for it",
            "2" => "it matches more than one key; give the fingerprint",
            "3" => "that key may not sign",
            "4" => "that key is revoked",
            "5" => "that key is expired",
            "13" => "that key is disabled",
            _ => "gpg cannot sign with it",
        };
        return format!("; {setting} `{key}`: {why} (see `gpg --list-secret-keys`)");
    }
    if has("BAD_PASSPHRASE") || has("PINENTRY_LAUNCHED") || stderr.contains("pinentry") {
        return "; gpg-agent could not get the key's passphrase: unlock it once in a terminal (e.g. `echo | gpg --clearsign`) or configure a pinentry".to_owned();
    }
    String::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_key_listings_yield_each_primary_fingerprint_with_its_validity() {
        let listing = "sec:u:255:22:38AAABD541478BD9:1796009052:::u:::scSC:::+::ed25519:::0:\n\
            fpr:::::::::ECDEB6A69B1AD4408B43F00F38AAABD541478BD9:\n\
            grp:::::::::CF98D1E79AFE5BA97D7F1D4F77B94D91F37A0A42:\n\
            uid:u::::1796009052::AD66::Alice <alice@example.com>::::::::::0:\n\
            ssb:u:255:22:2BBC413560DDBEF4:1796009052::::::s:::+::ed25519::\n\
            fpr:::::::::1358054AA6CA779C25BC779F2BBC413560DDBEF4:\n\
            sec:e:255:22:9705632F06836337:1577836800:1577923200::u:::sc:::::ed25519:::0:\n\
            fpr:::::::::4a0a7f0fea21c897cd5697639705632f06836337:\n";
        let keys = parse_secret_keys(listing);
        assert_eq!(
            keys,
            vec![
                SecretKey {
                    fingerprint: "ECDEB6A69B1AD4408B43F00F38AAABD541478BD9".to_owned(),
                    validity: "u".to_owned(),
                },
                SecretKey {
                    fingerprint: "4A0A7F0FEA21C897CD5697639705632F06836337".to_owned(),
                    validity: "e".to_owned(),
                },
            ]
        );
        assert_eq!(keys[0].unusable(), None);
        assert_eq!(keys[1].unusable(), Some("expired"));
        assert!(parse_secret_keys("").is_empty());
        assert!(parse_secret_keys("sec\nfpr\n:::\n").is_empty());
    }

    use crate::sign::openpgp::OpenPgpSigner;
    use crate::sign::openpgp::test_support::PAE;
    use crate::sign::{KeySetting, SignError, Signer as _};

    #[test]
    fn a_missing_gpg_program_is_tool_missing_never_a_signature() {
        let signer = OpenPgpSigner::configured(
            Some(std::ffi::OsStr::new("0123456789ABCDEF0123456789ABCDEF01234567")),
            KeySetting::GitConfig,
            Some(std::ffi::OsStr::new("/nonexistent/gpg")),
        )
        .expect("a key spec");
        match signer.sign(PAE) {
            Err(SignError::ToolMissing { program }) => assert_eq!(program, "/nonexistent/gpg"),
            other => panic!("expected ToolMissing, got {other:?}"),
        }
        assert_eq!(signer.keyid(), "0123456789ABCDEF0123456789ABCDEF01234567");
    }
}
