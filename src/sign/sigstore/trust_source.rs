//! Sigstore trust whose trusted root is resolved on first use: the default (public-good) root may
//! need the network, and only a keyless line being checked justifies that.

use std::sync::{Arc, OnceLock};

use super::{DefaultRoot, SigstoreTrust, TrustedRootError};

/// The trust and a warning for the report, or why the trusted root cannot be had (shared: the run
/// that fails on it and every line that asked for it hold it).
type Resolved = Result<(SigstoreTrust, Option<String>), Arc<TrustedRootError>>;

/// Makes the trust when first needed.
type Make = Box<dyn Fn() -> Resolved + Send + Sync>;

/// The caller's Sigstore trust, given whole or resolved on the first keyless line.
pub struct SigstoreTrustSource {
    /// Makes it (a given trust is made already).
    make: Make,
    /// The trust and its warning once made, or why it could not be.
    resolved: OnceLock<Resolved>,
}

impl SigstoreTrustSource {
    /// Trust with its root in hand (`--sigstore-trusted-root FILE`).
    #[must_use]
    pub fn given(trust: SigstoreTrust) -> Self {
        let make = trust.clone();
        SigstoreTrustSource {
            make: Box::new(move || Ok((make.clone(), None))),
            resolved: OnceLock::from(Ok((trust, None))),
        }
    }

    /// Keyless trust in `identity` and `issuer` whose root `resolve` provides, called at most
    /// once and only when a keyless line is checked.
    #[must_use]
    pub fn lazy(
        identity: String,
        issuer: String,
        resolve: impl Fn() -> Result<DefaultRoot, TrustedRootError> + Send + Sync + 'static,
    ) -> Self {
        let make = move || {
            let found = resolve()?;
            Ok((SigstoreTrust::keyless(found.root, identity.clone(), issuer.clone()), found.warning))
        };
        SigstoreTrustSource { make: Box::new(move || make().map_err(Arc::new)), resolved: OnceLock::new() }
    }

    /// The trust, resolved now if it was not yet.
    ///
    /// # Errors
    /// Why the trusted root cannot be had (the message says what to pass instead).
    pub fn get(&self) -> Result<&SigstoreTrust, &TrustedRootError> {
        self.resolved.get_or_init(&self.make).as_ref().map(|(trust, _)| trust).map_err(|e| &**e)
    }

    /// Whether the root was resolved (or given): false means no network was used.
    #[must_use]
    pub fn is_resolved(&self) -> bool {
        self.resolved.get().is_some()
    }

    /// The warning of a resolution that fell back to an older root.
    #[must_use]
    pub fn warning(&self) -> Option<&str> {
        self.resolved.get()?.as_ref().ok()?.1.as_deref()
    }

    /// Why a resolution that was tried failed.
    #[must_use]
    pub fn failure(&self) -> Option<Arc<TrustedRootError>> {
        self.resolved.get()?.as_ref().err().cloned()
    }
}

impl std::fmt::Debug for SigstoreTrustSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigstoreTrustSource").field("resolved", &self.resolved.get()).finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::sign::sigstore::{RefreshFailure, TrustedRoot};

    fn production_root() -> TrustedRoot {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/sigstore-conformance/production-trusted_root.json");
        TrustedRoot::from_file(&path).unwrap_or_else(|e| panic!("the shared production root must load: {e}"))
    }

    /// A lazy source whose resolver counts its calls and returns `result`.
    fn counting(
        result: impl Fn() -> Result<DefaultRoot, TrustedRootError> + Send + Sync + 'static,
    ) -> (SigstoreTrustSource, Arc<AtomicUsize>) {
        let calls = Arc::new(AtomicUsize::new(0));
        let seen = Arc::clone(&calls);
        let source =
            SigstoreTrustSource::lazy("ada@example.com".into(), "https://issuer".into(), move || {
                seen.fetch_add(1, Ordering::SeqCst);
                result()
            });
        (source, calls)
    }

    #[test]
    fn a_lazy_root_is_resolved_once_on_first_use_and_carries_its_warning() {
        let (source, calls) =
            counting(|| Ok(DefaultRoot { root: production_root(), warning: Some("stale".into()) }));
        assert!(!source.is_resolved());
        assert_eq!(source.warning(), None);
        assert_eq!(calls.load(Ordering::SeqCst), 0, "nothing is resolved before a keyless line asks");
        assert!(source.get().is_ok());
        assert!(source.get().is_ok());
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        assert_eq!(source.warning(), Some("stale"));
        assert!(source.failure().is_none());
    }

    #[test]
    fn a_failed_resolution_is_remembered_as_the_failure() {
        let (source, calls) = counting(|| {
            Err(TrustedRootError::NoDefault {
                failure: RefreshFailure::Tuf(sigstore_trust_root::Error::Tuf("offline".into())),
                cache: PathBuf::from("/nowhere/trusted_root.json"),
                unused: None,
            })
        });
        assert!(source.failure().is_none());
        let reason = source.get().unwrap_err().to_string();
        assert!(reason.contains("--sigstore-trusted-root"), "{reason}");
        assert!(source.get().is_err());
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        assert_eq!(source.failure().map(|f| f.to_string()), Some(reason));
    }

    #[test]
    fn a_given_root_is_resolved_from_the_start_and_warns_of_nothing() {
        let source = SigstoreTrustSource::given(SigstoreTrust::keyless(production_root(), "a", "b"));
        assert!(source.is_resolved());
        assert!(source.get().is_ok());
        assert_eq!(source.warning(), None);
        assert!(source.failure().is_none());
    }
}
