//! The OpenPGP signer. A secret key file (armored or binary, as `gpg --export-secret-keys` writes
//! it) signs in-process with its newest alive, non-revoked, signing-capable v4 (sub)key; a key id,
//! fingerprint or user id signs through `gpg --detach-sign` with the key in the user's keyring,
//! as git does for `gpg.format=openpgp` and `user.signingKey`. Either way the signature is an
//! armored, detached, binary-mode v4 signature over SHA-512 (gpg 2.2 reads no v6).

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::SystemTime;

use sequoia_openpgp::Cert;
use sequoia_openpgp::crypto::{KeyPair, Password, S2K};
use sequoia_openpgp::packet::key::SecretKeyMaterial;
use sequoia_openpgp::types::RevocationStatus;

use super::certs::{
    MAX_COMPONENTS, MAX_PACKETS, OpenPgpCerts, ReadCertsError, policy, read_certs, too_many_components,
};
use super::error::OpenPgpSignError;
use super::gpg::Gpg;
use super::signature;
use super::verify::verify;
use crate::sign::{KeySetting, SignError, Signer, SignerKind};

/// The environment variable that may hold the passphrase of an encrypted secret key file.
pub const PASSPHRASE_ENV: &str = "SPECCODER_PGP_PASSPHRASE";

/// The default OpenPGP program, as git's `gpg.program` defaults to it.
const GPG: &str = "gpg";

/// One configured OpenPGP signing key and how it signs.
#[derive(Clone)]
pub struct OpenPgpSigner {
    how: How,
    program: OsString,
    gnupg_home: Option<PathBuf>,
    /// Where the key was named, for advice when gpg cannot sign with it.
    setting: KeySetting,
}

/// How signatures are made.
#[derive(Clone)]
enum How {
    /// sequoia signs with the unlocked secret key read from a file.
    InProcess(Box<InProcess>),
    /// `gpg --detach-sign --local-user <key>`.
    Gpg {
        /// The key as configured (key id, fingerprint, user id), or a certificate's fingerprint.
        key: String,
        /// The certificate file the key was named by, if any.
        cert_file: Option<PathBuf>,
        /// The keyring's certificate for `key`, looked up once.
        resolved: OnceLock<Resolved>,
    },
}

/// A secret key read from a file and ready to sign.
#[derive(Clone)]
struct InProcess {
    keypair: KeyPair,
    /// The key file's certificate, secret material removed.
    certs: OpenPgpCerts,
    fingerprint: String,
    signing_key: String,
    path: PathBuf,
}

/// The certificate gpg signs for, found in the keyring.
#[derive(Clone)]
struct Resolved {
    fingerprint: String,
    certs: OpenPgpCerts,
}

impl OpenPgpSigner {
    /// A signer for the key named by `setting` (git's `user.signingKey`, or `--key`) with
    /// `gpg.program` (or `gpg.openpgp.program`): a path (with `~/` expanded) where something other
    /// than a directory exists is a key file, read in-process (a FIFO or a device there is
    /// refused, never waited on); anything else names a key in gpg's keyring (a key id,
    /// fingerprint or user id, passed to `gpg --local-user` as git does). Advice about a key that
    /// cannot be used, now or when gpg signs, names `setting`.
    pub fn configured(
        signing_key: Option<&OsStr>,
        setting: KeySetting,
        program: Option<&OsStr>,
    ) -> Result<Self, SignError> {
        let configured = crate::sign::configured(signing_key).ok_or_else(|| {
            SignError::NoKeyConfigured {
                hint: "set one with `git config user.signingKey <fingerprint>` (see `gpg --list-secret-keys`), or point it at a secret key file".to_owned(),
            }
        })?;
        let path = expand_home(configured);
        let found = std::fs::metadata(&path);
        let mut signer = match (&found, configured.to_str()) {
            (Ok(meta), _) if !meta.is_dir() => {
                Self::from_key_file(&path).map_err(|e| e.key_named_by(setting))?
            }
            (_, Some(text)) => Self::from_gpg_keyring(text),
            // Not UTF-8: no key id, fingerprint or user id, so a key file that is not there.
            (_, None) => {
                let source = found.err().unwrap_or_else(|| std::io::ErrorKind::IsADirectory.into());
                return Err(OpenPgpSignError::Unreadable { path, setting, source }.into());
            }
        };
        signer.setting = setting;
        Ok(match crate::sign::configured(program) {
            Some(p) => signer.with_program(p),
            None => signer,
        })
    }

    /// A signer from a key file, unlocked with [`PASSPHRASE_ENV`] when it is encrypted; a file
    /// holding only a public certificate, or a GnuPG stub in place of the signing key's secret
    /// (a smartcard key), signs through gpg with that certificate's key.
    pub fn from_key_file(path: &Path) -> Result<Self, SignError> {
        let passphrase = std::env::var(PASSPHRASE_ENV).ok();
        Self::from_key_file_with_passphrase(path, passphrase.as_deref())
    }

    /// As [`Self::from_key_file`], with the passphrase given (or none).
    pub fn from_key_file_with_passphrase(path: &Path, passphrase: Option<&str>) -> Result<Self, SignError> {
        let bytes = crate::input::read_regular_through_links(path, super::certs::MAX_BYTES).map_err(|e| {
            OpenPgpSignError::Unreadable {
                path: path.to_owned(),
                setting: KeySetting::GitConfig,
                source: e.into_io(),
            }
        })?;
        let cert = single_cert(&bytes, path)?;
        let in_process = if cert.is_tsk() { signing_key(&cert, path, passphrase)? } else { None };
        Ok(Self::new(match in_process {
            Some(key) => How::InProcess(Box::new(key)),
            None => How::Gpg {
                key: cert.fingerprint().to_hex(),
                cert_file: Some(path.to_owned()),
                resolved: OnceLock::new(),
            },
        }))
    }

    /// A signer for a key in gpg's keyring: a key id, fingerprint or user id, as `--local-user`.
    #[must_use]
    pub fn from_gpg_keyring(key: &str) -> Self {
        Self::new(How::Gpg { key: key.trim().to_owned(), cert_file: None, resolved: OnceLock::new() })
    }

    /// Uses `program` instead of `gpg` (git's `gpg.program`).
    #[must_use]
    pub fn with_program(mut self, program: impl Into<OsString>) -> Self {
        self.program = program.into();
        self.forget_resolution();
        self
    }

    /// Uses the keyring in `home` (`gpg --homedir`) instead of `GNUPGHOME` or `~/.gnupg`.
    #[must_use]
    pub fn with_gnupg_home(mut self, home: impl Into<PathBuf>) -> Self {
        self.gnupg_home = Some(home.into());
        self.forget_resolution();
        self
    }

    /// Whether signatures are made in-process (otherwise through gpg).
    #[must_use]
    pub fn signs_in_process(&self) -> bool {
        matches!(self.how, How::InProcess(_))
    }

    fn new(how: How) -> Self {
        Self { how, program: OsString::from(GPG), gnupg_home: None, setting: KeySetting::GitConfig }
    }

    fn forget_resolution(&mut self) {
        if let How::Gpg { resolved, .. } = &mut self.how {
            *resolved = OnceLock::new();
        }
    }

    fn gpg(&self) -> Gpg<'_> {
        Gpg { program: &self.program, home: self.gnupg_home.as_deref() }
    }

    /// The keyring's certificate for the configured key, looked up once.
    fn resolve<'s>(&self, key: &str, resolved: &'s OnceLock<Resolved>) -> Result<&'s Resolved, SignError> {
        if let Some(r) = resolved.get() {
            return Ok(r);
        }
        let gpg = self.gpg();
        let (found, stderr) = gpg.secret_keys(key)?;
        let not_in_keyring = |reason: String| OpenPgpSignError::NotInKeyring {
            key: key.to_owned(),
            setting: self.setting,
            program: gpg.name(),
            reason,
        };
        let usable: Vec<_> = found.iter().filter(|k| k.unusable().is_none()).collect();
        let fingerprint = match usable.as_slice() {
            [one] => one.fingerprint.clone(),
            [] => {
                let reason = match found.first() {
                    Some(k) => format!("its key {} is {}", k.fingerprint, k.unusable().unwrap_or("unusable")),
                    None if stderr.is_empty() => "no secret key matches".to_owned(),
                    None => format!("no secret key matches ({stderr})"),
                };
                return Err(not_in_keyring(reason).into());
            }
            many => {
                return Err(OpenPgpSignError::Ambiguous {
                    key: key.to_owned(),
                    setting: self.setting,
                    fingerprints: many.iter().map(|k| k.fingerprint.clone()).collect(),
                }
                .into());
            }
        };
        let certs = gpg.export(&fingerprint)?;
        let _ = resolved.set(Resolved { fingerprint, certs });
        resolved.get().ok_or_else(|| not_in_keyring("the lookup did not persist".to_owned()).into())
    }

    fn sign_with_gpg(
        &self,
        key: &str,
        resolved: &OnceLock<Resolved>,
        pae: &[u8],
    ) -> Result<Vec<u8>, SignError> {
        let resolved = self.resolve(key, resolved)?;
        let armored = self.gpg().detach_sign(key, self.setting, pae)?;
        self.check_gpg_output(&armored, pae, resolved)?;
        Ok(armored)
    }

    /// Refuses gpg output that is not a v4 signature by the resolved certificate over `pae`.
    fn check_gpg_output(
        &self,
        armored: &[u8],
        pae: &[u8],
        resolved: &Resolved,
    ) -> Result<(), OpenPgpSignError> {
        let fail = |reason: String| OpenPgpSignError::GpgOutput {
            program: self.program.to_string_lossy().into_owned(),
            reason,
        };
        let parsed = signature::parse_armored(armored)
            .map_err(|reason| fail(format!("not a detached signature: {reason}")))?;
        if parsed.sig.version() != 4 {
            return Err(fail(format!(
                "it wrote a v{} signature, which gpg 2.2 cannot read; sign with a v4 key",
                parsed.sig.version()
            )));
        }
        let now = time::OffsetDateTime::now_utc();
        let verified = verify(armored, pae, &resolved.certs, now)
            .map_err(|e| fail(format!("its signature does not check out: {e}")))?;
        if verified.fingerprint != resolved.fingerprint {
            return Err(fail(format!(
                "it signed with {} instead of {}",
                verified.fingerprint, resolved.fingerprint
            )));
        }
        Ok(())
    }
}

impl Signer for OpenPgpSigner {
    fn kind(&self) -> SignerKind {
        SignerKind::OpenPgp
    }

    /// The primary key fingerprint of the signing certificate; for a keyring key that gpg cannot
    /// resolve (yet), the key as configured (a hint only: signing reports the real problem).
    fn keyid(&self) -> String {
        match &self.how {
            How::InProcess(k) => k.fingerprint.clone(),
            How::Gpg { key, resolved, .. } => {
                self.resolve(key, resolved).map_or_else(|_| key.clone(), |r| r.fingerprint.clone())
            }
        }
    }

    fn describe(&self) -> String {
        match &self.how {
            How::InProcess(k) => {
                let subkey = if k.signing_key == k.fingerprint {
                    String::new()
                } else {
                    format!(", signing subkey {}", k.signing_key)
                };
                format!(
                    "openpgp {} {} (key file {}{subkey})",
                    k.keypair.public().pk_algo(),
                    k.fingerprint,
                    k.path.display()
                )
            }
            How::Gpg { key, cert_file, resolved } => {
                let origin = match cert_file {
                    Some(p) => format!("certificate file {}, secret key in the gpg keyring", p.display()),
                    None => format!("gpg keyring key `{key}`"),
                };
                // Runs nothing: the fingerprint shows once signing or keyid() has looked it up.
                let shown = resolved.get().map_or(key, |r| &r.fingerprint);
                format!("openpgp {shown} ({origin}, signed by {})", self.program.to_string_lossy())
            }
        }
    }

    fn sign(&self, pae: &[u8]) -> Result<Vec<u8>, SignError> {
        match &self.how {
            How::InProcess(k) => signature::sign_armored(k.keypair.clone(), pae)
                .map_err(|e| OpenPgpSignError::InProcess { reason: e.to_string() }.into()),
            How::Gpg { key, resolved, .. } => self.sign_with_gpg(key, resolved, pae),
        }
    }

    fn own_key(&self) -> Result<Option<crate::sign::OwnKey>, SignError> {
        let certs = match &self.how {
            How::InProcess(k) => k.certs.clone(),
            How::Gpg { key, resolved, .. } => self.resolve(key, resolved)?.certs.clone(),
        };
        Ok(Some(crate::sign::OwnKey::OpenPgp(certs)))
    }

    /// git's OpenPGP commit signature is an armored detached signature over the commit bytes,
    /// which is what [`Signer::sign`] makes of any bytes.
    fn sign_git_commit(&self, commit: &[u8]) -> Result<String, SignError> {
        let armored = self.sign(commit)?;
        String::from_utf8(armored)
            .map_err(|_| SignError::CannotSign("the OpenPGP signature is not armored text".into()))
    }
}

impl fmt::Debug for OpenPgpSigner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never prints key material.
        f.write_str(&self.describe())
    }
}

/// The one certificate (or secret key) a key file must hold.
fn single_cert(bytes: &[u8], path: &Path) -> Result<Cert, OpenPgpSignError> {
    let not_a_key = |reason: String| OpenPgpSignError::NotAKey {
        path: path.to_owned(),
        setting: KeySetting::GitConfig,
        reason,
    };
    let reason = |e: ReadCertsError| match e {
        ReadCertsError::TooManyPackets => not_a_key(format!(
            "it holds more than {MAX_PACKETS} OpenPGP packets, more than any key needs, so it is refused; export the key alone with `--export-options export-minimal`"
        )),
        ReadCertsError::NotOpenPgp(reason) => not_a_key(reason),
        ReadCertsError::TrailingBytes(count) => not_a_key(format!(
            "it holds {count} bytes after its key that are not OpenPGP data; remove them, or export the key again with `gpg --export-secret-keys --armor <fingerprint>`"
        )),
    };
    let certs = read_certs(bytes).map_err(reason)?.collect::<Result<Vec<Cert>, _>>().map_err(reason)?;
    match <[Cert; 1]>::try_from(certs) {
        Ok([cert]) => match too_many_components(&cert) {
            Some(count) => Err(not_a_key(format!(
                "its key has {count} user IDs, user attributes and subkeys, more than the {MAX_COMPONENTS} any real key has; export it again from gpg with the signing user ID only: `--export-options export-minimal --export-filter keep-uid='mbox = <email>'`"
            ))),
            None => Ok(cert),
        },
        Err(certs) if certs.is_empty() => Err(not_a_key("it holds no OpenPGP key".to_owned())),
        Err(certs) => {
            Err(not_a_key(format!("it holds {} keys; export just the one to sign with", certs.len())))
        }
    }
}

/// The newest alive, non-revoked, signing-capable (sub)key with its secret, unlocked; `None` when
/// its secret is a GnuPG stub (the key lives on a smartcard or in gpg-agent only).
fn signing_key(
    cert: &Cert,
    path: &Path,
    passphrase: Option<&str>,
) -> Result<Option<InProcess>, OpenPgpSignError> {
    let unusable = |reason: String| OpenPgpSignError::NoUsableKey { path: path.to_owned(), reason };
    if cert.primary_key().key().version() != 4 {
        return Err(OpenPgpSignError::NotV4 {
            path: path.to_owned(),
            version: cert.primary_key().key().version(),
        });
    }
    // The verifier's policy: a key it would refuse (an RFC 9580 algorithm) does not sign.
    let (policy, now) = (policy(), SystemTime::now());
    let valid = cert.with_policy(&policy, now).map_err(|e| {
        if cert.with_policy(&sequoia_openpgp::policy::StandardPolicy::new(), now).is_ok() {
            return unusable(format!(
                "its primary key is an RFC 9580 {} key, which gpg 2.2 and sqv cannot check; make a key they can (`gpg --quick-gen-key <user id> ed25519 sign`)",
                cert.primary_key().key().pk_algo()
            ));
        }
        unusable(format!("the key is not valid under the standard policy ({e})"))
    })?;
    valid.alive().map_err(|e| unusable(format!("the key is not alive ({e})")))?;
    if let RevocationStatus::Revoked(_) = valid.revocation_status() {
        return Err(unusable("the key is revoked".to_owned()));
    }
    let signing = || valid.keys().supported().alive().revoked(false).for_signing();
    if signing().next().is_none() {
        return Err(unusable("none of its keys is flagged for signing, alive and not revoked".to_owned()));
    }
    let chosen = signing().secret().max_by_key(|ka| ka.key().creation_time()).ok_or_else(|| {
        unusable(
            "the file lacks the secret part of its signing keys (export it with `gpg --export-secret-keys`)"
                .to_owned(),
        )
    })?;
    let key = chosen.key().clone();
    if key.version() != 4 {
        return Err(OpenPgpSignError::NotV4 { path: path.to_owned(), version: key.version() });
    }
    if let SecretKeyMaterial::Encrypted(e) = key.secret()
        && matches!(e.s2k(), S2K::Private { .. })
    {
        return Ok(None);
    }
    let key = if key.has_unencrypted_secret() {
        key
    } else {
        let passphrase = passphrase.ok_or_else(|| OpenPgpSignError::Encrypted {
            path: path.to_owned(),
            setting: KeySetting::GitConfig,
        })?;
        key.decrypt_secret(&Password::from(passphrase)).map_err(|e| OpenPgpSignError::WrongPassphrase {
            path: path.to_owned(),
            setting: KeySetting::GitConfig,
            reason: e.to_string(),
        })?
    };
    let signing_key = key.fingerprint().to_hex();
    let keypair = key.into_keypair().map_err(|e| OpenPgpSignError::InProcess { reason: e.to_string() })?;
    Ok(Some(InProcess {
        keypair,
        certs: OpenPgpCerts::of(cert, path),
        fingerprint: cert.fingerprint().to_hex(),
        signing_key,
        path: path.to_owned(),
    }))
}

/// `~/…` expanded against `HOME`, as users write key paths; anything else unchanged.
fn expand_home(configured: &OsStr) -> PathBuf {
    let path = Path::new(configured);
    match (configured.as_encoded_bytes().starts_with(b"~/"), std::env::var_os("HOME")) {
        (true, Some(home)) => PathBuf::from(home).join(path.strip_prefix("~").unwrap_or(path)),
        _ => path.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use sequoia_openpgp::cert::CertBuilder;
    use sequoia_openpgp::serialize::SerializeInto;
    use sequoia_openpgp::types::HashAlgorithm;

    use super::*;
    use crate::sign::openpgp::signature::parse_armored;
    use crate::sign::openpgp::sqv::Sqv;
    use crate::sign::openpgp::test_support::*;
    use crate::sign::openpgp::*;
    use crate::sign::{KeySetting, Signer, SignerKind};

    #[test]
    fn a_signature_made_in_process_is_an_armored_v4_sha512_signature_that_sqv_gpg_and_we_accept() {
        let gpg = GnuPg::new();
        let alice = gpg.gen_key("Alice <alice@example.com>", "sign", "0", None);
        let key_file = secret_key_file(&gpg, &alice, "alice.asc", true);
        let signer = OpenPgpSigner::from_key_file_with_passphrase(&key_file, None).expect("key loads");
        assert!(signer.signs_in_process());
        assert_eq!(signer.kind(), SignerKind::OpenPgp);
        assert_eq!(signer.keyid(), alice);
        let sig = signer.sign(PAE).expect("signs");

        let text = String::from_utf8(sig.clone()).expect("armor is text");
        assert!(text.starts_with("-----BEGIN PGP SIGNATURE-----\n"), "{text}");
        assert!(text.trim_end().ends_with("-----END PGP SIGNATURE-----"), "{text}");
        let parsed = parse_armored(&sig).expect("one detached signature");
        assert_eq!(parsed.sig.version(), 4);
        assert_eq!(parsed.sig.hash_algo(), HashAlgorithm::SHA512);

        let (trust_path, certs) = trust(&gpg, "trusted.asc", &gpg.export(&[&alice]));
        let verified = verify(&sig, PAE, &certs, now()).expect("verifies in-process");
        assert_eq!(verified.fingerprint, alice);
        assert_eq!(verified.signing_key_fingerprint, alice);
        assert_eq!(verified.user_ids, vec!["Alice <alice@example.com>".to_owned()]);
        assert_eq!(Sqv::default().verify(&sig, PAE, &trust_path, now()).expect("sqv accepts"), alice);
        let verifier = GnuPg::new();
        verifier.import(&gpg.export(&[&alice]));
        assert!(verifier.verifies(&sig, PAE), "gpg --verify accepts");
        assert!(!verifier.verifies(&sig, TAMPERED), "gpg --verify refuses tampered data");
    }

    #[test]
    fn a_binary_key_file_with_a_signing_subkey_signs_with_the_newest_subkey_and_names_the_primary() {
        let gpg = GnuPg::new();
        let bob = gpg.gen_key("Bob <bob@example.com>", "cert", "0", None);
        let first = gpg.add_subkey(&bob, "sign");
        std::thread::sleep(Duration::from_millis(1100));
        let second = gpg.add_subkey(&bob, "sign");
        let key_file = secret_key_file(&gpg, &bob, "bob.gpg", false);
        let signer = OpenPgpSigner::from_key_file_with_passphrase(&key_file, None).expect("key loads");
        assert_eq!(signer.keyid(), bob);
        assert_eq!(
            signer.describe(),
            format!("openpgp EdDSA {bob} (key file {}, signing subkey {second})", key_file.display())
        );
        let sig = signer.sign(PAE).expect("signs");
        let (trust_path, certs) = trust(&gpg, "trusted.asc", &gpg.export(&[&bob]));
        let verified = verify(&sig, PAE, &certs, now()).expect("verifies");
        assert_eq!(verified.fingerprint, bob);
        assert_eq!(verified.signing_key_fingerprint, second);
        assert_ne!(first, second);
        assert_eq!(Sqv::default().verify(&sig, PAE, &trust_path, now()).expect("sqv accepts"), bob);
    }

    #[test]
    fn the_gpg_keyring_path_signs_with_a_key_held_only_in_the_isolated_keyring() {
        let gpg = GnuPg::new();
        let dana = gpg.gen_key("Dana <dana@example.com>", "sign", "0", None);
        let signer =
            OpenPgpSigner::configured(Some(OsStr::new("dana@example.com")), KeySetting::GitConfig, None)
                .expect("a user id names a keyring key")
                .with_gnupg_home(&gpg.home);
        assert!(!signer.signs_in_process());
        assert_eq!(signer.keyid(), dana);
        assert_eq!(
            signer.describe(),
            format!("openpgp {dana} (gpg keyring key `dana@example.com`, signed by gpg)")
        );
        let sig = signer.sign(PAE).expect("gpg signs");
        assert_eq!(parse_armored(&sig).expect("detached").sig.version(), 4);
        let (trust_path, certs) = trust(&gpg, "trusted.asc", &gpg.export(&[&dana]));
        assert_eq!(verify(&sig, PAE, &certs, now()).expect("verifies").fingerprint, dana);
        assert_eq!(Sqv::default().verify(&sig, PAE, &trust_path, now()).expect("sqv accepts"), dana);

        // A public certificate file names its key, whose secret half gpg holds.
        let cert_file = gpg.write("dana.pub.asc", &gpg.export(&[&dana]));
        let signer = OpenPgpSigner::configured(
            Some(cert_file.as_os_str()),
            KeySetting::GitConfig,
            Some(OsStr::new("gpg")),
        )
        .expect("a certificate file names a keyring key")
        .with_gnupg_home(&gpg.home);
        assert!(!signer.signs_in_process());
        assert!(
            signer.describe().contains(&format!(
                "(certificate file {}, secret key in the gpg keyring, signed by gpg)",
                cert_file.display()
            )),
            "{}",
            signer.describe()
        );
        let sig = signer.sign(PAE).expect("gpg signs");
        assert_eq!(verify(&sig, PAE, &certs, now()).expect("verifies").fingerprint, dana);
    }

    #[test]
    fn a_secret_key_file_whose_signing_key_is_a_gnupg_stub_signs_through_gpg() {
        let gpg = GnuPg::new();
        let nina = gpg.gen_key("Nina <nina@example.com>", "sign", "0", None);
        let auth = gpg.add_subkey(&nina, "auth");
        let stubbed = gpg.ok(&["--export-secret-subkeys", "--armor", &format!("{auth}!")], None);
        let key_file = gpg.write("nina-stub.asc", &stubbed);
        let signer = OpenPgpSigner::from_key_file_with_passphrase(&key_file, None)
            .expect("the stub names a keyring key")
            .with_gnupg_home(&gpg.home);
        assert!(!signer.signs_in_process(), "{}", signer.describe());
        assert_eq!(signer.keyid(), nina);
        let sig = signer.sign(PAE).expect("gpg signs");
        let (_, certs) = trust(&gpg, "trusted.asc", &gpg.export(&[&nina]));
        assert_eq!(verify(&sig, PAE, &certs, now()).expect("verifies").fingerprint, nina);
    }

    #[test]
    fn git_config_reads_an_existing_file_in_process_and_anything_else_as_a_keyring_key() {
        let gpg = GnuPg::new();
        let erin = gpg.gen_key("Erin <erin@example.com>", "sign", "0", None);
        let key_file = secret_key_file(&gpg, &erin, "erin.asc", true);
        let signer = OpenPgpSigner::configured(Some(key_file.as_os_str()), KeySetting::GitConfig, None)
            .expect("file loads");
        assert!(signer.signs_in_process());
        let signer = OpenPgpSigner::configured(Some(OsStr::new(&erin)), KeySetting::GitConfig, None)
            .expect("fingerprint");
        assert!(!signer.signs_in_process());
        let missing = gpg.path("no-such-key.asc");
        let signer = OpenPgpSigner::configured(Some(missing.as_os_str()), KeySetting::GitConfig, None)
            .expect("a key spec");
        assert!(!signer.signs_in_process());
    }

    #[test]
    fn git_config_without_a_key_says_how_to_configure_one() {
        for configured in [None, Some(""), Some("  ")] {
            let err = OpenPgpSigner::configured(configured.map(OsStr::new), KeySetting::GitConfig, None)
                .unwrap_err()
                .to_string();
            assert!(
                err.starts_with("no signing key configured: set one with `git config user.signingKey"),
                "{err}"
            );
        }
    }

    #[test]
    fn a_key_that_is_not_utf8_is_a_key_file_and_one_that_is_not_there_is_named() {
        use std::os::unix::ffi::OsStrExt as _;
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join(OsStr::from_bytes(b"k\xe9y.asc"));
        let Err(err) = OpenPgpSigner::configured(Some(missing.as_os_str()), KeySetting::GitConfig, None)
        else {
            panic!("no key id, and no file");
        };
        let err = err.to_string();
        assert!(
            err.starts_with("cannot read the OpenPGP key") && err.contains("check user.signingKey"),
            "{err}"
        );
    }

    #[test]
    fn a_key_the_keyring_lacks_or_names_twice_is_an_error_that_says_which() {
        let gpg = GnuPg::new();
        let err = OpenPgpSigner::from_gpg_keyring("nobody@example.com")
            .with_gnupg_home(&gpg.home)
            .sign(PAE)
            .unwrap_err()
            .to_string();
        assert!(err.contains("has no usable secret key for user.signingKey `nobody@example.com`"), "{err}");
        let one = gpg.gen_key("Fay <fay@example.com>", "sign", "0", None);
        let two = gpg.gen_key("Gus <gus@example.com>", "sign", "0", None);
        let err = OpenPgpSigner::from_gpg_keyring("example.com")
            .with_gnupg_home(&gpg.home)
            .sign(PAE)
            .unwrap_err()
            .to_string();
        assert!(err.contains("matches 2 secret keys") && err.contains(&one) && err.contains(&two), "{err}");
        assert!(err.starts_with("user.signingKey `example.com`"), "{err}");
        // Named by --key, the same keys are advised about as --key.
        for (key, says) in [
            ("example.com", "--key `example.com` matches 2 secret keys"),
            ("example.com", "; give --key the fingerprint of the one to sign with"),
            ("nobody@example.com", "has no usable secret key for --key `nobody@example.com`"),
            ("nobody@example.com", "and give --key one fingerprint"),
        ] {
            let err = OpenPgpSigner::configured(Some(OsStr::new(key)), KeySetting::Flag, None)
                .expect("a key spec")
                .with_gnupg_home(&gpg.home)
                .sign(PAE)
                .unwrap_err()
                .to_string();
            assert!(err.contains(says) && !err.contains("user.signingKey"), "{err}");
        }
        let old = gpg.gen_key("Old <old@example.com>", "sign", "1d", Some("20200101T000000"));
        let err = OpenPgpSigner::from_gpg_keyring("old@example.com")
            .with_gnupg_home(&gpg.home)
            .sign(PAE)
            .unwrap_err()
            .to_string();
        assert!(err.contains(&format!("its key {old} is expired")), "{err}");
    }

    #[test]
    fn a_passphrase_protected_key_file_signs_only_with_its_passphrase_and_says_how_otherwise() {
        let gpg = GnuPg::new();
        let out = gpg.run_with_passphrase(
            "hunter2",
            &["--quick-gen-key", "Hank <hank@example.com>", "ed25519", "sign", "0"],
        );
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let hank = gpg.fingerprint("hank@example.com");
        let out = gpg.run_with_passphrase("hunter2", &["--export-secret-keys", "--armor", &hank]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let key_file = gpg.write("hank.asc", &out.stdout);

        let err = OpenPgpSigner::from_key_file_with_passphrase(&key_file, None).unwrap_err().to_string();
        assert!(
            err.starts_with(&format!("{} is passphrase-protected", key_file.display()))
                && err.contains(&format!("gpg --import {}", key_file.display()))
                && err.contains("SPECCODER_PGP_PASSPHRASE"),
            "{err}"
        );
        let err =
            OpenPgpSigner::from_key_file_with_passphrase(&key_file, Some("wrong")).unwrap_err().to_string();
        assert!(
            err.starts_with("the passphrase in SPECCODER_PGP_PASSPHRASE does not unlock")
                && err.contains(&key_file.display().to_string()),
            "{err}"
        );
        let signer = OpenPgpSigner::from_key_file_with_passphrase(&key_file, Some("hunter2"))
            .expect("the passphrase unlocks the key");
        let sig = signer.sign(PAE).expect("signs");
        let (_, certs) = trust(&gpg, "trusted.asc", &gpg.export(&[&hank]));
        assert_eq!(verify(&sig, PAE, &certs, now()).expect("verifies").fingerprint, hank);
    }

    #[test]
    fn a_key_file_without_a_key_that_can_sign_now_is_refused_naming_the_file() {
        let gpg = GnuPg::new();
        let old = gpg.gen_key("Old <old@example.com>", "sign", "1d", Some("20200101T000000"));
        let key_file = secret_key_file(&gpg, &old, "old.asc", true);
        let err = OpenPgpSigner::from_key_file_with_passphrase(&key_file, None).unwrap_err().to_string();
        assert!(
            err.starts_with(&format!("{} has no key that can sign now", key_file.display()))
                && err.contains("not alive"),
            "{err}"
        );

        let ivy = gpg.gen_key("Ivy <ivy@example.com>", "cert", "0", None);
        gpg.add_subkey(&ivy, "auth");
        let key_file = secret_key_file(&gpg, &ivy, "ivy.asc", true);
        let err = OpenPgpSigner::from_key_file_with_passphrase(&key_file, None).unwrap_err().to_string();
        assert!(err.contains("none of its keys is flagged for signing"), "{err}");

        let two =
            gpg.write("two.asc", &[gpg.export_secret(&old, true), gpg.export_secret(&ivy, true)].concat());
        let err = OpenPgpSigner::from_key_file_with_passphrase(&two, None).unwrap_err().to_string();
        assert!(err.contains("it holds 2 keys; export just the one"), "{err}");
    }

    #[test]
    fn a_v4_key_file_of_rfc_9580_ed25519_is_refused_as_the_verifier_would_refuse_its_signatures() {
        let (tsk, _) = v4_key_of_algorithm_27(
            "Nat <nat@example.com>",
            SystemTime::now() - std::time::Duration::from_secs(60),
        );
        let dir = tempfile::tempdir().expect("temp dir");
        let key_file = dir.path().join("nat.pgp");
        std::fs::write(&key_file, tsk).expect("write");
        let err = OpenPgpSigner::from_key_file_with_passphrase(&key_file, None).unwrap_err().to_string();
        assert!(err.contains("an RFC 9580 Ed25519 key, which gpg 2.2 and sqv cannot check"), "{err}");
    }

    #[test]
    fn a_v6_key_file_is_refused_because_gpg_2_2_cannot_read_v6_signatures() {
        let (cert, _) = CertBuilder::general_purpose(Some("Vera <vera@example.com>"))
            .set_profile(sequoia_openpgp::Profile::RFC9580)
            .expect("v6 profile")
            .generate()
            .expect("v6 key");
        let dir = tempfile::tempdir().expect("temp dir");
        let key_file = dir.path().join("vera.asc");
        std::fs::write(&key_file, cert.as_tsk().armored().to_vec().expect("armor")).expect("write");
        let err = OpenPgpSigner::from_key_file_with_passphrase(&key_file, None).unwrap_err().to_string();
        assert!(err.starts_with(&format!("{} holds a v6 key", key_file.display())), "{err}");
    }

    #[test]
    fn files_that_are_not_openpgp_are_refused_with_the_file_named() {
        let dir = tempfile::tempdir().expect("temp dir");
        let junk = dir.path().join("junk.asc");
        std::fs::write(&junk, "hello, I am not a keyring\n").expect("write");
        let err = OpenPgpCerts::read(&junk).unwrap_err().to_string();
        assert!(
            err.starts_with(&format!("{} is not an OpenPGP certificate or keyring", junk.display())),
            "{err}"
        );
        let err = OpenPgpSigner::from_key_file_with_passphrase(&junk, None).unwrap_err().to_string();
        assert!(err.starts_with(&format!("{} is not a usable OpenPGP key", junk.display())), "{err}");

        let ssh_like = dir.path().join("id_ed25519.pub");
        std::fs::write(&ssh_like, "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA x\n").expect("write");
        assert!(matches!(
            OpenPgpCerts::read(&ssh_like),
            Err(OpenPgpCertsError::NotOpenPgp { .. } | OpenPgpCertsError::Empty { .. })
        ));

        let empty = dir.path().join("empty.gpg");
        std::fs::write(&empty, b"").expect("write");
        let err = OpenPgpCerts::read(&empty).unwrap_err().to_string();
        assert!(err.contains(&empty.display().to_string()), "{err}");

        let absent = dir.path().join("absent.asc");
        let err = OpenPgpCerts::read(&absent).unwrap_err().to_string();
        assert!(
            err.starts_with(&format!("cannot read the OpenPGP certificates {}", absent.display())),
            "{err}"
        );
        let err = OpenPgpSigner::from_key_file(&absent).unwrap_err().to_string();
        assert!(err.starts_with("cannot read the OpenPGP key"), "{err}");
    }
}
