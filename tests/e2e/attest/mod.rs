//! `speccoder attest` end to end: the built binary against real repositories in temporary
//! directories, checked with the real `git`, `ssh-keygen` and `openspec`, never with our own
//! decoders. One test binary, split by concern:
//!
//! - `wire`: what a tick writes (note lines, signatures, trailers, statements, schemas, fsck);
//! - `refusals`: bad input and repository states, each refused with nothing written;
//! - `signing`: where the key comes from, agents, unsigned lines and `attest sign`;
//! - `clean`: leaks refused with their origin, red output withheld, `resourceUri` without paths;
//! - `cli`: the human summary, `--json`, `-C`;
//! - `integrity`: files read only where they should be, crash and lock states, the published
//!   `[attest]` table, signing that fails closed;
//! - `parallel`: two worktrees attesting at the same time;
//! - `conversion`: a task list that git converts (`core.autocrlf`, `eol`, filters) ticked in both
//!   of its forms.

use crate::common;

mod clean;
mod cli;
mod conversion;
mod integrity;
mod parallel;
mod refusals;
mod signing;
mod wire;

use std::path::PathBuf;

use common::{Evidence, Key, Project, SPECKIT_UNIT};

/// The task the Spec Kit tests attest: labelled `[US1]`, citing FR-001 and FR-002.
pub const T005: &str = "001-bookmark-tags/T005";

/// A Spec Kit project with an ed25519 key, its allowed-signers file and evidence for T005.
pub struct Setup {
    pub project: Project,
    pub key: Key,
    pub allowed: PathBuf,
    pub evidence: PathBuf,
}

impl Setup {
    /// The Spec Kit fixture, a key `ada` and evidence of `kind` for [`T005`].
    pub fn speckit(kind: Evidence) -> Setup {
        let project = Project::speckit();
        let key = common::ed25519(&project.scratch, "ada");
        let allowed =
            common::allowed_signers(&project.scratch.join("allowed_signers"), &[(common::PRINCIPAL, &key)]);
        let evidence = common::write_evidence(&project.scratch_dir("evidence"), T005, kind);
        Setup { project, key, allowed, evidence }
    }

    /// `speccoder attest T005 --evidence … --key <private key>` plus `extra`; must succeed.
    #[track_caller]
    pub fn attest_signed(&self, extra: &[&str]) -> common::Run {
        let key = self.key.private.to_str().unwrap();
        let mut args = vec!["--key", key];
        args.extend(extra);
        self.project.attest(T005, &self.evidence, &args).success()
    }
}

/// `<unit>/<task>` of the Spec Kit fixture.
pub fn speckit_task(id: &str) -> String {
    format!("{SPECKIT_UNIT}/{id}")
}
