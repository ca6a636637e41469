//! The library's readers of untrusted input, on their own: mutated notes, envelopes, trust files
//! and task lists (`mutations`), the clean check against its corpora (`clean_corpus`), and
//! Sigstore bundles against the Sigstore project's conformance cases (`sigstore_conformance`).

#[path = "../e2e/common/mod.rs"]
mod common;

mod clean_corpus;
mod mutations;
mod sigstore_conformance;
