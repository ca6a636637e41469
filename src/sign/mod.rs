//! Signers and verifiers, one pair per backend.
