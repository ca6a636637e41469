//! How `attest fetch` decides about one commit's note that both sides hold, or that the remote's
//! notes no longer hold: the bundle rule ([`bundle::merge`], every remote signature checked by
//! [`RemoteSignatures`]), within the size a reader takes, and never at the cost of evidence that
//! holds here. A note of ours that passes this clone's own check (every line read, and signed by
//! a signer this clone's trust accepts, or covered by a trusted summary) must still pass it
//! after the join; otherwise, as for any other conflict, nothing moves.
//!
//! Two notes that hold different statements are told by what made them so, where that can be
//! told: a note that is several notes joined line by line ([`JoinedNote`]), on either side, or two
//! carries of the same evidence to the same commit, one in each clone.

use gix::ObjectId;
use time::OffsetDateTime;

use crate::attest::commit_object_sha256;
use crate::attest::remote_signatures::RemoteSignatures;
use crate::check::line::{Body, JoinedNote, ReadLine, copied_from_another_commit, joined_note, read_lines};
use crate::check::outcome::Finding;
use crate::check::signatures;
use crate::check::trust::SignatureTrust;
use crate::git::{GitError, Joined, Repo};
use crate::model::bundle::NOTES_REF;
use crate::model::bundle::{self, MAX_NOTE_BYTES, MergeConflict};
use crate::model::shown::{Quoted, shell_word};

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
    /// A note is several notes joined line by line: the statements it repeats, or that are about
    /// another commit, are what the two notes differ by.
    #[error("{side} note is {}", .joined.described(*.annotated))]
    Joined {
        /// `our` or `their`.
        side: &'static str,
        /// The commit annotated.
        annotated: ObjectId,
        /// What the join is.
        joined: Box<JoinedNote>,
    },
    /// Both notes re-issue the evidence of one commit for this one, at different times.
    #[error(
        "both notes carry the evidence of {} to this commit: `speccoder attest carry` ran here and in another clone, at different times, so the same evidence was re-issued twice (nothing was attested twice)",
        .from
    )]
    CarriedTwice {
        /// The commit the evidence was carried from, as both notes name it (quoted).
        from: Quoted,
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
        let check = RemoteSignatures { trust: self.trust, now: self.now, at: self.now };
        let joined = match bundle::merge(&ours_bytes, &theirs_bytes, &check) {
            Ok(joined) => joined,
            Err(conflict) => {
                let tell = || told(annotated, &ours_bytes, &theirs_bytes, conflict.clone());
                return match copy_replaced(annotated, &ours_bytes, &theirs_bytes) {
                    // Theirs takes the place of a copy only when it holds here, as ours did.
                    Some(Joined::Theirs) if self.holds(annotated, &theirs_bytes).is_err() => Err(tell()),
                    Some(joined) => Ok(joined),
                    None => Err(tell()),
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

/// The rule's `conflict` about the notes of `annotated`, told by what made the two notes hold
/// different statements where that can be told: our note, or theirs, several notes joined line by
/// line ([`NoteConflict::Joined`]), or both carries of the evidence of one commit
/// ([`NoteConflict::CarriedTwice`]).
fn told(annotated: ObjectId, ours: &[u8], theirs: &[u8], conflict: MergeConflict) -> NoteConflict {
    if !matches!(conflict, MergeConflict::Statements { .. }) {
        return conflict.into();
    }
    let (ours, theirs) = (read_lines(ours, &mut Vec::new()), read_lines(theirs, &mut Vec::new()));
    for (side, lines) in [("our", &ours), ("their", &theirs)] {
        if let Some(joined) = joined_note(lines, annotated) {
            return NoteConflict::Joined { side, annotated, joined: Box::new(joined) };
        }
    }
    match (carried_from(&ours), carried_from(&theirs)) {
        (Some(a), Some(b)) if a == b => NoteConflict::CarriedTwice { from: Quoted::from(a) },
        _ => conflict.into(),
    }
}

/// The commit the one task-verification line of `lines` was carried from, when it was carried.
fn carried_from(lines: &[ReadLine]) -> Option<&str> {
    let mut carried = lines.iter().filter_map(|l| match &l.body {
        Body::TaskVerification(p) => Some(p.carried.as_ref().map(|c| c.from.as_str())),
        _ => None,
    });
    match (carried.next(), carried.next()) {
        (Some(from), None) => from,
        _ => None,
    }
}

impl NoteConflict {
    /// How to settle this conflict about the note of `annotated` with `remote`, when it is told by
    /// its cause ([`NoteConflict::Joined`], [`NoteConflict::CarriedTwice`]), as commands that work
    /// as given; a remote's note is repaired through `repair_ref`, a copy of the remote's notes
    /// pushed back as a fast-forward. `None` for a conflict the rule alone tells.
    #[must_use]
    pub fn advice(&self, annotated: ObjectId, remote: &str, repair_ref: &str) -> Option<String> {
        let remote_w = shell_word(remote);
        match self {
            NoteConflict::Joined { side: "our", joined, .. } => Some(joined.remedy(NOTES_REF, annotated)),
            NoteConflict::Joined { joined, .. } => {
                let (how, command) = match joined.rejoin_command(repair_ref, annotated) {
                    Some(rejoin) => {
                        ("keeping this commit's own note, the copies of each statement joined", rejoin)
                    }
                    None => (
                        "removing it (it is not one note of this commit: its lines are another's, or two notes of it that differ)",
                        format!("git notes --ref={repair_ref} remove {annotated}"),
                    ),
                };
                Some(format!(
                    "every fetch brings {remote}'s notes back as they are, so repair it there, {how}: `git fetch {remote_w} +{NOTES_REF}:{repair_ref}`, `{command}`, then `git push {remote_w} {repair_ref}:{NOTES_REF}` (a fast-forward of theirs)"
                ))
            }
            NoteConflict::CarriedTwice { .. } => Some(format!(
                "keep one: drop yours with `git notes --ref={NOTES_REF} remove {annotated}` (the next fetch takes theirs), or keep yours and ask whoever carried theirs to remove it on {remote}"
            )),
            _ => None,
        }
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
