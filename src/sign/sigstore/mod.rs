//! The Sigstore backend (cargo feature `sigstore`, on by default).
//!
//! Signing: [`SigstoreSigner`] signs keylessly with the sigstore crate's ephemeral key and OAuth
//! flow, a Fulcio certificate and a Rekor `dsse` entry; its result is the DSSE signature plus a
//! Sigstore bundle v0.3 that travels in the envelope's `sigstore` field. One signature per tick:
//! the summary line, which names the other lines by digest.
//!
//! Verification: [`verify`] checks a bundle offline against a [`TrustedRoot`] file and the
//! caller's certificate identity and OIDC issuer ([`SigstoreTrust`]); [`verify_bundle`] also takes
//! plain artifacts and managed keys, for the Sigstore conformance cases. The default root is the
//! public-good one, fetched through Sigstore's TUF repository and cached ([`public_good_root`]).

mod bundle;
mod config;
mod crypto;
mod der;
mod root_cache;
mod sct;
mod services;
mod signer;
mod timestamp;
mod tlog;
mod token;
mod trusted_root;
mod tuf;
mod verify;
mod x509;

#[cfg(test)]
mod tests;

pub use config::{PUBLIC_FULCIO_URL, PUBLIC_OIDC_ISSUER, PUBLIC_REKOR_URL, SigstoreConfig};
pub use root_cache::{
    CACHE_MAX_AGE, DefaultRoot, Fetch, Refreshed, public_good_root, refresh, refresh_public_good_root,
    resolve,
};
pub use signer::{KEYID, SigstoreSignError, SigstoreSignature, SigstoreSigner};
pub use token::{TOKEN_ENV, TokenSource, ambient_token_available};
pub use trusted_root::{TrustedRoot, TrustedRootError, default_cache_path};
pub use tuf::{PUBLIC_TUF_URL, TRUSTED_ROOT_TARGET, fetch_public_good};
pub use verify::{
    ExpectedSigner, Signed, SigstoreTrust, SigstoreVerified, SigstoreVerifyError, verify, verify_bundle,
};
