//! The Sigstore backend (cargo feature `sigstore`, on by default), through the Sigstore project's
//! crates. What is ours: how a summary line carries its bundle, matching the bundle's DSSE payload
//! to our envelope, the certificate's keyUsage (`key_usage`) and its one OIDC issuer (`issuer`),
//! mapping results to our outcomes, and the trusted-root cache. Which services may receive the
//! identity token is the producer's rule (`attest::service_url`), which makes the
//! [`SigstoreConfig`] the signer is given.
//!
//! Signing: [`SigstoreSigner`] signs keylessly through `sigstore-sign` (Fulcio certificate, Rekor
//! `dsse` entry); its result is the DSSE signature plus a Sigstore bundle v0.3 that travels in the
//! envelope's `sigstore` field. One signature per tick: the summary line, which names the other
//! lines by digest.
//!
//! Verification: [`verify`](fn@verify) checks a bundle offline through `sigstore-verify` against a
//! [`TrustedRoot`] and the caller's certificate identity and OIDC issuer, or a managed key
//! ([`SigstoreTrust`]), whose root [`SigstoreTrustSource`] resolves on first use. No async runtime runs unless the root is fetched. The default root is the public-good
//! one, fetched through Sigstore's TUF repository by `sigstore-trust-root` and cached a day
//! ([`public_good_root`]).

mod bundle_shape;
mod config;
mod error;
mod issuer;
mod key_usage;
mod net;
mod root_cache;
mod signer;
mod token;
mod trust_source;
mod trusted_root;
mod tuf;
mod verify;

pub use config::SigstoreConfig;
pub use error::SigstoreSignError;
pub use root_cache::{DefaultRoot, Fetch, Refreshed, public_good_root, refresh, refresh_public_good_root};
pub use signer::{SigstoreSignature, SigstoreSigner};
pub use token::TOKEN_ENV;
pub use trust_source::SigstoreTrustSource;
pub use trusted_root::{
    PUBLIC_TUF_URL, RefreshFailure, TrustedRoot, TrustedRootError, Unused, default_cache_path,
};
pub use tuf::fetch_public_good;
pub use verify::{
    CertificateTime, ExpectedSigner, Signed, SigstoreTrust, SigstoreVerified, SigstoreVerifyError, verify,
};
