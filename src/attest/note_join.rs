//! How `attest fetch` decides about one commit's note that both sides hold, or that the remote's
//! notes no longer hold: the bundle rule ([`bundle::merge`], every remote signature checked by
//! [`RemoteSignatures`]), within the size a reader takes, and never at the cost of evidence that
//! holds here. A note of ours that passes this clone's own check (every line read, and signed by
//! a signer this clone's trust accepts, or covered by a trusted summary) must still pass it
//! after the join; otherwise, as for any other conflict, nothing moves.

use gix::ObjectId;
use time::OffsetDateTime;

use crate::attest::commit_object_sha256;
use crate::attest::remote_signatures::RemoteSignatures;
use crate::check::line::{copied_from_another_commit, read_lines};
use crate::check::outcome::Finding;
use crate::check::signatures;
use crate::check::trust::SignatureTrust;
use crate::git::{GitError, Joined, Repo};
use crate::model::bundle::{self, MAX_NOTE_BYTES, MergeConflict};
use crate::model::shown::Quoted;

/// Why the two notes of one commit are not joined.
#[derive(Debug, thiserror::Error)]
pub enum NoteConflict {
    /// The bundle rule refuses them.
    #[error(transparent)]
    Rule(#[from] MergeConflict),
    /// A note larger than a reader takes.
    #[error("{side} note is {size} bytes, more than the {MAX_NOTE_BYTES} a note may be, so it is not read")]
    TooLarge {
        /// `our` or `their`.
        side: &'static str,
        /// Its size, from the object's header.
        size: u64,
    },
    /// The joined note would fail this clone's check, which ours passes.
    #[error("the note holds here, and joined with theirs it would not ({0})")]
    WouldFail(Quoted),
    /// A note could not be read.
    #[error("the note cannot be read: {0}")]
    Git(#[from] GitError),
}

/// Joins notes for `attest fetch` (see the module documentation).
pub struct NoteJoiner<'r> {
    repo: &'r Repo,
    trust: &'r SignatureTrust,
    now: OffsetDateTime,
}

impl<'r> NoteJoiner<'r> {
    /// A joiner checking against `trust`, this clone's own, at `now`.
    #[must_use]
    pub fn new(repo: &'r Repo, trust: &'r SignatureTrust, now: OffsetDateTime) -> Self {
        NoteJoiner { repo, trust, now }
    }

    /// The note of `annotated` from our blob and theirs (`None`: their notes no longer hold one).
    ///
    /// # Errors
    /// [`NoteConflict`]: a note too large or unreadable, the rule's conflict, or a join that
    /// would make our note fail here.
    pub fn join(
        &self,
        annotated: ObjectId,
        ours: ObjectId,
        theirs: Option<ObjectId>,
    ) -> Result<Joined, NoteConflict> {
        let ours_bytes = self.read("our", ours)?;
        let Some(theirs) = theirs else {
            let mut lines = Vec::new();
            for raw in bundle::lines(&ours_bytes) {
                if let Ok(envelope) = crate::model::dsse::Envelope::parse(raw) {
                    lines.push(bundle::statement_name(&envelope));
                }
            }
            return Err(MergeConflict::Removed { ours: lines }.into());
        };
        let theirs_bytes = self.read("their", theirs)?;
        let check = RemoteSignatures { openpgp: self.trust.openpgp.as_ref(), now: self.now };
        let joined = match bundle::merge(&ours_bytes, &theirs_bytes, &check) {
            Ok(joined) => joined,
            Err(conflict) => {
                return match copy_replaced(annotated, &ours_bytes, &theirs_bytes) {
                    // Theirs takes the place of a copy only when it holds here, as ours did.
                    Some(Joined::Theirs) if self.holds(annotated, &theirs_bytes).is_err() => {
                        Err(conflict.into())
                    }
                    Some(joined) => Ok(joined),
                    None => Err(conflict.into()),
                };
            }
        };
        if joined == ours_bytes {
            return Ok(Joined::Ours);
        }
        if self.holds(annotated, &ours_bytes).is_ok()
            && let Err(why) = self.holds(annotated, &joined)
        {
            return Err(NoteConflict::WouldFail(Quoted::from(why.to_string())));
        }
        Ok(if joined == theirs_bytes { Joined::Theirs } else { Joined::New(joined) })
    }

    /// The note blob `id`, when it is within [`MAX_NOTE_BYTES`] (its size read from the object's
    /// header first).
    fn read(&self, side: &'static str, id: ObjectId) -> Result<Vec<u8>, NoteConflict> {
        self.repo.blob_within(id, MAX_NOTE_BYTES)?.map_err(|size| NoteConflict::TooLarge { side, size })
    }

    /// Whether `note` passes this clone's own check, as `attest verify` checks a note's lines and
    /// signatures; otherwise the first reason it does not.
    fn holds(&self, annotated: ObjectId, note: &[u8]) -> Result<(), NotHeld> {
        let mut findings = Vec::new();
        let lines = read_lines(note, &mut findings);
        if let Some(f) = findings.into_iter().next() {
            return Err(NotHeld::Finding(f));
        }
        if lines.is_empty() {
            return Err(NotHeld::Empty);
        }
        let commit_sha256 = commit_object_sha256(self.repo, annotated).unwrap_or_default();
        match signatures::unheld(&lines, self.trust, self.now, &commit_sha256).into_iter().next() {
            Some(f) => Err(NotHeld::Finding(f)),
            None => Ok(()),
        }
    }
}

/// Of two notes of `annotated` that cannot be joined, the one that is its own, when the other is
/// a copy git made of another commit's note (`notes.rewriteRef`, [`copied_from_another_commit`]):
/// `attest carry` replaces such a copy, and it is no evidence for `annotated`, so nothing that is
/// evidence for it is lost. Both notes must read whole; their note takes the place of our copy
/// only when it passes this clone's own check ([`NoteJoiner::join`]).
fn copy_replaced(annotated: ObjectId, ours: &[u8], theirs: &[u8]) -> Option<Joined> {
    let copied = |note: &[u8]| {
        let mut findings = Vec::new();
        let lines = read_lines(note, &mut findings);
        findings.is_empty().then(|| copied_from_another_commit(&lines, annotated))
    };
    match (copied(ours)?, copied(theirs)?) {
        (false, true) => Some(Joined::Ours),
        (true, false) => Some(Joined::Theirs),
        _ => None,
    }
}

/// Why a note does not pass this clone's own check: the first reason.
#[derive(Debug, thiserror::Error)]
enum NotHeld {
    /// A line is not read, or does not verify.
    #[error("{0}")]
    Finding(Finding),
    /// The note holds no lines.
    #[error("the note holds no lines")]
    Empty,
}
