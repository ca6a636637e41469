//! The library's readers of untrusted input, on their own: mutated notes, envelopes, trust files
//! and task lists (`mutations`), the clean check against its corpora (`clean_corpus`), Sigstore
//! bundles against the Sigstore project's conformance cases (`sigstore_conformance`), and the spec
//! readers on the fixture projects, with digests computed by `sha256sum` (`spec_fixtures`).

#[path = "../e2e/common/mod.rs"]
mod common;

mod clean_corpus;
mod mutations;
mod sigstore_conformance;
mod spec_fixtures;
