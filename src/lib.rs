//! speccoder attest: signed in-toto evidence for ticked spec tasks, kept in git notes, and the
//! verifier that checks it again against the caller's own trust.
//!
//! The house (docs/architecture.md): a pure model at the bottom ([`model`]), adapters for the
//! spec formats ([`spec`]), the repository ([`git`]) and the signers ([`sign`]), the rules a note
//! must meet against its task commit ([`check`]), and two wings on top that never reach into each
//! other: the producer ([`attest`]) and the verifier ([`verify`]).

#![forbid(unsafe_code)]
// The docs are written for the next engineer, who reads them with their private items
// (`cargo doc --document-private-items`): a link to a private item is meant.
#![allow(rustdoc::private_intra_doc_links)]

pub mod attest;
pub mod check;
pub mod exit;
pub mod git;
pub mod input;
pub mod model;
pub mod output_file;
pub mod schema;
pub mod sign;
pub mod spec;
pub mod verify;
