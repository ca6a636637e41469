//! Checking the signatures of one line, and of a note's lines together, against the caller's
//! trust. The kind of a signature is told from its content (the SSHSIG armor); a kind this build
//! cannot check is `tool_missing`, never a pass. The verifier applies it to every task commit;
//! `attest carry` to the evidence it would re-sign.

use serde::Serialize;
use time::OffsetDateTime;

use crate::check::line::{Body, ReadLine};
use crate::check::outcome::{CommitOutcome, Finding};
use crate::check::trust::{SignatureTrust as Trust, SshTrust};
use crate::model::dsse::Envelope;
use crate::model::shown::in_line;
use crate::model::verifier_policy::{gives_address, person_named};
use crate::sign::openpgp::{self, ARMOR_HEADER as OPENPGP_ARMOR, OpenPgpVerifyError, Sqv, SqvError};
use crate::sign::ssh::keygen::{SshKeygen, SshToolError, ToolTrust};
use crate::sign::ssh::sshsig;
use crate::sign::ssh::sshsig::NAMESPACE;
use crate::sign::ssh::verify::{self as ssh_verify, SshVerified, SshVerifyError};

/// The finding of an SSH signature when the caller gave no allowed-signers file.
const NO_SSH_TRUST: &str = "no_ssh_trust";
/// The finding of an OpenPGP signature when the caller gave no certificates.
const NO_OPENPGP_TRUST: &str = "no_openpgp_trust";
/// The finding of a signature `--via-tools` fails closed: the tool and this verifier read the
/// trust file differently. It fails the line whatever else holds on it.
const TOOL_DISAGREES: &str = "tool_disagrees";

/// Who signed a line, as the caller's trust established it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SignerInfo {
    /// `ssh`.
    pub kind: &'static str,
    /// The key's fingerprint.
    #[serde(serialize_with = "in_line")]
    pub key: String,
    /// The principals the caller's trust allows for that key (a trust file's text: quoted): an
    /// SSH key's, of every allowed-signers line listing it; an OpenPGP certificate's, its user
    /// ids and, where a key it binds made a signature that other trusted certificates bind too,
    /// theirs ([`openpgp_signers`]).
    #[serde(serialize_with = "in_line")]
    pub principals: Vec<String>,
}

/// Adds `info` to `signers`, one entry per key: a key already there takes the principals of
/// `info` it lacks (an OpenPGP certificate signing with a key of its own and with one other
/// certificates bind too), so that the order of a line's signatures, which nobody signs, changes
/// nothing.
pub fn add_signer(signers: &mut Vec<SignerInfo>, info: &SignerInfo) {
    match signers.iter_mut().find(|s| s.kind == info.kind && s.key == info.key) {
        // A key's principals are the same each time but for OpenPGP's shared keys: a trust may
        // give one key a hundred thousand, which are compared once, in a time that grows with them.
        Some(known) if known.principals == info.principals => {}
        Some(known) => {
            let mut seen: std::collections::HashSet<String> = known.principals.iter().cloned().collect();
            let new: Vec<String> =
                info.principals.iter().filter(|p| seen.insert((*p).clone())).cloned().collect();
            known.principals.extend(new);
        }
        None => signers.push(info.clone()),
    }
}

/// The trusted signers of the line that covers a note: who made it, and everyone whose
/// signature on it holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineSigners {
    /// Who made the line, as the note's signed content tells it ([`maker_of`]); never the order
    /// of its signatures, which nobody signs.
    pub maker: Maker,
    /// Every signature that verifies with a trusted key, each key once, in the order of their
    /// keys (never the line's, which nobody signs): the maker's and those who approved the line
    /// (`attest approve` adds signatures).
    pub every: Vec<SignerInfo>,
    /// Every signature of the line by a key the trust does not accept, in the line's order: an
    /// approval by a key it no longer (or not yet) accepts is told apart from one never made.
    pub refused: Vec<Refused>,
}

/// A signature of a line by a key the caller's trust does not accept (an outcome of
/// `untrusted_signer`: a key it does not list, one its entry restricts out at the time checked or
/// for the namespace, a revoked or expired key, or no trust of its kind given): whose key it
/// claims, and why the trust refuses it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// The key it claims and the principals the trust would give that key but for what refuses
    /// it (none when no entry of the trust names the key).
    pub claimed: SignerInfo,
    /// Why: the finding the line's check made of this signature.
    pub why: Finding,
}

/// Who made a covering line, as far as its signed content tells it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Maker {
    /// The one trusted signer told to be the maker.
    Known(SignerInfo),
    /// Each of these trusted signers (in the order of their keys) could be the maker, and
    /// nothing signed tells which: the rules never pick one.
    Several(Vec<SignerInfo>),
    /// No trusted signer of the line can be the maker: none signed the note's other lines too
    /// (someone outside the trust made it, or the note was changed), or none signed at all.
    #[default]
    Unknown,
}

impl Maker {
    /// The trusted signers who may have made a line whose trusted signers are `every`: the one
    /// known, the several that cannot be told apart, or, when none is known, any of `every`.
    #[must_use]
    pub fn possible<'a>(&'a self, every: &'a [SignerInfo]) -> &'a [SignerInfo] {
        match self {
            Maker::Known(one) => std::slice::from_ref(one),
            Maker::Several(some) => some,
            Maker::Unknown => every,
        }
    }
}

/// The trusted signers of one line, as [`check_line`] found them.
#[derive(Debug, Clone, Default)]
struct Trusted {
    /// A keyless line's maker: the signer of its bundle when it holds (`None` for a line
    /// without a bundle, `Some(None)` for one whose bundle does not hold).
    bundle: Option<Option<SignerInfo>>,
    /// Every signature that verifies with a trusted key, each key once, in the order of their
    /// keys.
    every: Vec<SignerInfo>,
    /// Every signature by a key the trust does not accept, in the line's order.
    refused: Vec<Refused>,
}

impl Trusted {
    /// Whether `signer`'s key has a trusted signature on this line.
    fn signed_by(&self, signer: &SignerInfo) -> bool {
        self.every.iter().any(|s| s.kind == signer.kind && s.key == signer.key)
    }
}

/// The verdict on one line's signatures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineSignature {
    /// At least one signature verified with a trusted key.
    Trusted(SignerInfo),
    /// No signatures at all.
    Unsigned,
    /// No trusted signature; the finding says why (the worst reason among the signatures).
    Failed(Finding),
}

/// Checks every signature of `env`: one trusted signature is enough, unless another signature
/// by a key the trust accepts does not verify over the line, which fails it (`bad_signature`):
/// the line or that signature was changed after it was signed; or `--via-tools` and this
/// verifier read the trust file differently for another (`tool_disagrees`), which fails it too. A signature by a key the trust
/// does not accept, or of a kind it cannot check, beside a trusted one is not counted, for or
/// against. `commit_sha256` is the sha256 of the task commit object (`commit <len>\0...`),
/// recomputed from the repository: a keyless bundle must be bound to it.
#[must_use]
pub fn check(env: &Envelope, trust: &Trust, at: OffsetDateTime, commit_sha256: &str) -> LineSignature {
    check_line(env, trust, at, commit_sha256).0
}

/// How well one copy of a line holds under a trust, to choose among copies of one statement (a
/// note git joined line by line, which `attest rejoin` repairs): ordered from worst to best by
/// the line's verdict ([`check`]: a signature by a trusted key that fails it, then no signature,
/// then signatures that a trusted summary may still cover as it covers an unsigned line, then a
/// trusted signature), then by how many trusted keys signed it. Never by how many signatures the
/// line carries: anyone can add one that does not verify.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Standing {
    verdict: u8,
    trusted: usize,
}

impl Standing {
    /// Whether the line holds on its own: a signature by a trusted key verifies over it, and none
    /// by a trusted key fails.
    #[must_use]
    pub fn holds(self) -> bool {
        self.verdict == Self::TRUSTED
    }

    const TRUSTED: u8 = 3;
}

/// How well `env` holds under `trust` ([`Standing`]), judged as [`check`] judges it.
#[must_use]
pub fn standing(env: &Envelope, trust: &Trust, at: OffsetDateTime, commit_sha256: &str) -> Standing {
    let (verdict, trusted) = check_line(env, trust, at, commit_sha256);
    let verdict = match verdict {
        LineSignature::Trusted(_) => Standing::TRUSTED,
        LineSignature::Failed(f)
            if matches!(f.outcome, CommitOutcome::UntrustedSigner | CommitOutcome::ToolMissing) =>
        {
            2
        }
        LineSignature::Unsigned => 1,
        LineSignature::Failed(_) => 0,
    };
    Standing { verdict, trusted: trusted.every.len() }
}

/// [`check`], and the line's trusted signers.
fn check_line(
    env: &Envelope,
    trust: &Trust,
    at: OffsetDateTime,
    commit_sha256: &str,
) -> (LineSignature, Trusted) {
    let mut signers: Vec<SignerInfo> = Vec::new();
    let mut add = |info: &SignerInfo| add_signer(&mut signers, info);
    let mut keyless = None;
    let mut refused = Vec::new();
    let verdict = if let Some(bundle) = &env.sigstore {
        // The bundle is authoritative for a keyless line; the envelope's `sig` is only its copy.
        // Parsed here, one line at a time, its text bounded by the envelope reader.
        let verdict = match bundle.to_value() {
            Ok(bundle) => match check_sigstore(&bundle, &env.payload, commit_sha256, trust) {
                Ok(info) => LineSignature::Trusted(info),
                Err(f) => LineSignature::Failed(f),
            },
            Err(e) => LineSignature::Failed(Finding::new(
                CommitOutcome::Malformed,
                "malformed_signature",
                format!("the sigstore field is not a Sigstore bundle: {e}"),
            )),
        };
        let maker = match &verdict {
            LineSignature::Trusted(info) => Some(info.clone()),
            _ => None,
        };
        if let Some(info) = &maker {
            add(info);
        }
        keyless = Some(maker);
        // Others may have approved a keyless line with their own (SSH or OpenPGP) keys.
        let others = check_each(beside_bundle(env), &env.pae(), trust, at, &mut add);
        refused = others.refused;
        match (verdict, others.tampered, others.disputed) {
            (LineSignature::Trusted(good), Some(bad), _) => LineSignature::Failed(beside(&good, bad)),
            (LineSignature::Trusted(_), None, Some(disputed)) => LineSignature::Failed(disputed),
            (verdict, ..) => verdict,
        }
    } else if env.signatures.is_empty() {
        LineSignature::Unsigned
    } else {
        let each = check_each(env.signatures.iter(), &env.pae(), trust, at, &mut add);
        refused = each.refused;
        match (each.first, each.tampered, each.disputed) {
            (Some(good), Some(bad), _) => LineSignature::Failed(beside(&good, bad)),
            (Some(_), None, Some(disputed)) => LineSignature::Failed(disputed),
            (Some(info), None, None) => LineSignature::Trusted(info),
            (None, ..) => LineSignature::Failed(none_verified(each.failures)),
        }
    };
    signers.sort_by(|a, b| (a.kind, &a.key).cmp(&(b.kind, &b.key)));
    (verdict, Trusted { bundle: keyless, every: signers, refused })
}

/// The signatures of a keyless line that are signatures of their own, beside its bundle: those
/// in SSHSIG or OpenPGP armor (approvals); the rest are the bundle's copy, or of no kind checked.
pub fn beside_bundle(env: &Envelope) -> impl Iterator<Item = &crate::model::dsse::Signature> {
    env.signatures.iter().filter(|sig| {
        sig.sig.trim_ascii_start().starts_with(OPENPGP_ARMOR.as_bytes()) || sshsig::looks_armored(&sig.sig)
    })
}

/// Every signature of a line, each checked.
struct Each {
    /// The first that verified with a trusted key.
    first: Option<SignerInfo>,
    /// Why each of the others failed, in the line's order.
    failures: Vec<Finding>,
    /// The first that does not verify although its key is one the trust accepts: who it claims,
    /// and why it failed.
    tampered: Option<(SignerInfo, Finding)>,
    /// The first the tool and this verifier's reading of the trust disagree on (`--via-tools`).
    disputed: Option<Finding>,
    /// Those by a key the trust does not accept, in the line's order.
    refused: Vec<Refused>,
}

/// Checks each of `sigs` over `pae`, handing every trusted signer to `add`.
fn check_each<'s>(
    sigs: impl Iterator<Item = &'s crate::model::dsse::Signature>,
    pae: &[u8],
    trust: &Trust,
    at: OffsetDateTime,
    add: &mut impl FnMut(&SignerInfo),
) -> Each {
    let mut each =
        Each { first: None, failures: Vec::new(), tampered: None, disputed: None, refused: Vec::new() };
    for sig in sigs {
        match check_one(&sig.sig, pae, trust, at) {
            Ok(infos) => {
                infos.iter().for_each(&mut *add);
                if let Some(first) = infos.into_iter().next() {
                    each.first.get_or_insert(first);
                }
            }
            Err(f) => {
                if each.tampered.is_none()
                    && f.outcome == CommitOutcome::BadSignature
                    && let Some(claimed) = trusted_claim(&sig.sig, trust, at)
                {
                    each.tampered = Some((claimed, f.clone()));
                }
                if f.code == TOOL_DISAGREES {
                    each.disputed.get_or_insert_with(|| f.clone());
                }
                if f.outcome == CommitOutcome::UntrustedSigner
                    && let Some(claimed) = claimed_by(&sig.sig, trust, at)
                {
                    each.refused.push(Refused { claimed, why: f.clone() });
                }
                each.failures.push(f);
            }
        }
    }
    each
}

/// Why no signature of a line verified: the worst failure (among those as bad, the first whose
/// kind of key the trust was given for, which judged its key), naming the others' reasons too
/// when they differ, so that each signature's reason is said.
fn none_verified(mut failures: Vec<Finding>) -> Finding {
    let judged = |f: &Finding| !matches!(f.code, NO_SSH_TRUST | NO_OPENPGP_TRUST);
    let pick = failures
        .iter()
        .enumerate()
        .max_by_key(|(i, f)| (f.outcome, judged(f), std::cmp::Reverse(*i)))
        .map(|(i, _)| i);
    let Some(pick) = pick else {
        return Finding::new(CommitOutcome::BadSignature, "bad_signature", "no signature verified");
    };
    let mut chosen = failures.remove(pick);
    let mut others: Vec<String> = Vec::new();
    for f in failures.iter().filter(|f| f.code != chosen.code || f.message != chosen.message) {
        let said = format!("{} ({})", f.message, f.code);
        if !others.contains(&said) {
            others.push(said);
        }
    }
    if !others.is_empty() {
        chosen.message =
            format!("{}; the line's other signatures fail too: {}", chosen.message, others.join("; "));
    }
    chosen
}

/// The key a signature that did not verify says it was made by, when the trust accepts that key:
/// an SSH key the allowed-signers file trusts for `in-toto` at `at` and no revocation names, or
/// an OpenPGP key of a trusted certificate. Read from the trust files in-process on both paths
/// (`--via-tools` too), so that the two agree on it; whether the signature verifies is each
/// path's own verdict.
fn trusted_claim(sig: &[u8], trust: &Trust, at: OffsetDateTime) -> Option<SignerInfo> {
    if sig.trim_ascii_start().starts_with(OPENPGP_ARMOR.as_bytes()) {
        let issuers = openpgp::issuer_key_ids(sig).ok()?;
        let (key, principals) = trust.openpgp.as_ref()?.holder_of(&issuers)?;
        return Some(SignerInfo { kind: "openpgp", key, principals });
    }
    let ssh = trust.ssh.as_ref()?;
    let (key, principals) = ssh_verify::trusted_claim(sig, NAMESPACE, &ssh.allowed, &ssh.revoked, at)?;
    Some(SignerInfo { kind: "ssh", key, principals })
}

/// The key a signature the trust refuses says it was made by, and the principals the trust would
/// give that key but for what refuses it: an SSH key with those of the allowed-signers lines that
/// list it whatever restricts them ([`ssh_verify::listed_as`]), an OpenPGP key with its
/// certificate's in the trust (none when the trust holds no certificate of it: its issuer's key
/// id). `None` for a signature of no kind it reads.
fn claimed_by(sig: &[u8], trust: &Trust, at: OffsetDateTime) -> Option<SignerInfo> {
    if sig.trim_ascii_start().starts_with(OPENPGP_ARMOR.as_bytes()) {
        let issuers = openpgp::issuer_key_ids(sig).ok()?;
        let (key, principals) = match trust.openpgp.as_ref().and_then(|pgp| pgp.holder_of(&issuers)) {
            Some(held) => held,
            None => (issuers.first()?.clone(), Vec::new()),
        };
        return Some(SignerInfo { kind: "openpgp", key, principals });
    }
    let (key, principals) = ssh_verify::listed_as(sig, trust.ssh.as_ref().map(|ssh| &ssh.allowed), at)?;
    Some(SignerInfo { kind: "ssh", key, principals })
}

/// The finding of a line with a good signature by `good` and one by a trusted key that does not
/// verify.
fn beside(good: &SignerInfo, (bad, failure): (SignerInfo, Finding)) -> Finding {
    Finding::new(
        CommitOutcome::BadSignature,
        "bad_signature",
        format!(
            "a signature by the {} key {} ({}), which your trust accepts, does not verify over this line, beside a good one by the {} key {}: the line or that signature was changed after it was signed ({}); a failing signature by a trusted key is never passed over: find who changed the note, and attest the task again",
            bad.kind,
            bad.key,
            principals(&bad),
            good.kind,
            good.key,
            failure.message
        ),
    )
}

/// A signer's principals for a message, or that the trust names none.
fn principals(s: &SignerInfo) -> String {
    if s.principals.is_empty() { "no principal named".to_owned() } else { s.principals.join(", ") }
}

/// The verdict on one line of a note, the note's other lines considered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoteLineSignature {
    /// A signature of the line verified with a trusted key.
    Trusted(SignerInfo),
    /// The line holds through a trusted summary that names it by digest: it carries no signature
    /// of its own, or none the trust can vouch for (Sigstore signs only the summary).
    Covered,
    /// No signature at all, and no trusted summary names it.
    Unsigned,
    /// No trusted signature; the finding (at the line) says why.
    Failed(Finding),
}

/// Checks the signatures of every line of a note ([`check`]), then lets a trusted summary cover
/// the lines it names: an unsigned line, or one whose signer is untrusted or cannot be checked. A
/// bad signature is never covered. One verdict per line, in the note's order.
#[must_use]
pub fn check_note(
    lines: &[ReadLine],
    trust: &Trust,
    at: OffsetDateTime,
    commit_sha256: &str,
) -> Vec<NoteLineSignature> {
    check_note_every(lines, trust, at, commit_sha256, None).0
}

/// [`check_note`], and the trusted signers of the line at position `every_of` in `lines` (the
/// covering line, whose signatures other than its maker's are approvals), its maker told by
/// [`maker_of`].
#[must_use]
pub fn check_note_every(
    lines: &[ReadLine],
    trust: &Trust,
    at: OffsetDateTime,
    commit_sha256: &str,
    every_of: Option<usize>,
) -> (Vec<NoteLineSignature>, LineSigners) {
    let (results, trusted): (Vec<LineSignature>, Vec<Trusted>) =
        lines.iter().map(|l| check_line(&l.envelope, trust, at, commit_sha256)).unzip();
    let every_signer = every_of
        .filter(|i| *i < lines.len())
        .map(|i| LineSigners {
            maker: maker_of(lines, &trusted, i),
            every: trusted[i].every.clone(),
            refused: trusted[i].refused.clone(),
        })
        .unwrap_or_default();
    let summary_digests: std::collections::HashSet<String> = lines
        .iter()
        .zip(&results)
        .filter_map(|(l, r)| match (&l.body, r) {
            (Body::Summary(s), LineSignature::Trusted(_)) => Some(s),
            _ => None,
        })
        .flat_map(|s| s.input_attestations.iter().filter_map(|i| i.digest.get("sha256").cloned()))
        .collect();
    let verdicts = lines
        .iter()
        .zip(results)
        .map(|(line, result)| {
            let covered = summary_digests.contains(&line.payload_sha256);
            match result {
                LineSignature::Trusted(info) => NoteLineSignature::Trusted(info),
                LineSignature::Unsigned if covered => NoteLineSignature::Covered,
                LineSignature::Unsigned => NoteLineSignature::Unsigned,
                LineSignature::Failed(f)
                    if matches!(f.outcome, CommitOutcome::UntrustedSigner | CommitOutcome::ToolMissing)
                        && covered =>
                {
                    NoteLineSignature::Covered
                }
                LineSignature::Failed(f) => NoteLineSignature::Failed(f.at_line(line.number)),
            }
        })
        .collect();
    (verdicts, every_signer)
}

/// Who made the covering line at `covering` of `lines`, whose trusted signers are `trusted`,
/// told from what was signed and never from the order of its signatures, which nobody signs:
/// - a keyless line: the signer of its bundle (the one field of the line that holds it);
/// - a decision (a task-verification line with `decider`) made on its own commit: the one trusted
///   signer that `decider.by` names ([`person_named`]); when `by` is a bare name, which names no
///   signer ([`gives_address`]), the line's only trusted signer;
/// - a tick, or a decision `attest carry` re-issued (with `carried`: its `by` still names who
///   decided, not who re-signed it, whom nothing signed names): the one trusted signer of the
///   covering line who signed every other line of the note too (`attest approve` signs the
///   covering line alone); of a decision, whose note is its one line, that line's only trusted signer.
///
/// Several that fit (an approved carried decision: nothing signed tells its carrier from its
/// approver), or a decision's several signers none of whom a bare name tells apart, are
/// [`Maker::Several`]; none, or a decision whose address names none of its signers (its
/// decider's signature is not on the line), is [`Maker::Unknown`].
fn maker_of(lines: &[ReadLine], trusted: &[Trusted], covering: usize) -> Maker {
    let line = &trusted[covering];
    if let Some(bundle) = &line.bundle {
        return bundle.clone().map_or(Maker::Unknown, Maker::Known);
    }
    let on_every_other_line =
        |s: &&SignerInfo| trusted.iter().enumerate().all(|(i, other)| i == covering || other.signed_by(s));
    let fits: Vec<&SignerInfo> = line.every.iter().filter(on_every_other_line).collect();
    let decider = match &lines[covering].body {
        Body::TaskVerification(p) if p.carried.is_none() => p.decider.as_ref(),
        _ => None,
    };
    let named: Vec<&SignerInfo> = decider
        .map(|d| fits.iter().copied().filter(|s| person_named(&d.by, s.kind, &s.principals)).collect())
        .unwrap_or_default();
    let addressed = decider.is_some_and(|d| gives_address(&d.by));
    match (named.as_slice(), fits.as_slice()) {
        ([one], _) => Maker::Known((*one).clone()),
        ([], _) if addressed => Maker::Unknown,
        ([], []) => Maker::Unknown,
        ([], [one]) => Maker::Known((*one).clone()),
        ([], several) | (several, _) => Maker::Several(several.iter().map(|s| (*s).clone()).collect()),
    }
}

/// The lines of a note that do not hold under `trust` ([`check_note`]), each as a finding at its
/// line: a signature that fails, or `unsigned` where neither a signature nor a trusted summary
/// vouches for the line. Empty when every line holds: what a command that acts on a note for its
/// user (an approval, a publication) requires first.
#[must_use]
pub fn unheld(lines: &[ReadLine], trust: &Trust, at: OffsetDateTime, commit_sha256: &str) -> Vec<Finding> {
    check_note(lines, trust, at, commit_sha256)
        .into_iter()
        .zip(lines)
        .filter_map(|(verdict, line)| match verdict {
            NoteLineSignature::Trusted(_) | NoteLineSignature::Covered => None,
            NoteLineSignature::Unsigned => Some(
                Finding::new(CommitOutcome::Unsigned, "unsigned", "the line carries no signature")
                    .at_line(line.number),
            ),
            NoteLineSignature::Failed(f) => Some(f),
        })
        .collect()
}

/// Whether one of `env`'s signatures was made by the key `keyid` names (an SSH key's `SHA256:`
/// fingerprint, an OpenPGP certificate's fingerprint): for SSH, the key the signature embeds;
/// otherwise the signature's `keyid`. Nothing is verified: it tells an approver that their key
/// is on the line already, where a second signature by it would count for nothing.
#[must_use]
pub fn signed_by(env: &Envelope, keyid: &str) -> bool {
    env.signatures.iter().any(|s| {
        if sshsig::looks_armored(&s.sig) {
            sshsig::parse_armored(&s.sig)
                .is_ok_and(|parsed| ssh_verify::fingerprint(parsed.signer.signing_key()) == keyid)
        } else {
            s.keyid.eq_ignore_ascii_case(keyid)
        }
    })
}

/// For each of `env`'s signatures, in order, whether it verifies over the line with a key of
/// `trust` at `at`, each checked as [`check`] checks one. With the trust of one key
/// ([`Trust::own_key`]), it tells that key's own signatures from others' (`attest sign`).
#[must_use]
pub fn each_verifies(env: &Envelope, trust: &Trust, at: OffsetDateTime) -> Vec<bool> {
    let pae = env.pae();
    env.signatures.iter().map(|s| check_one(&s.sig, &pae, trust, at).is_ok()).collect()
}

/// The finding code of a signature by a key the trust revokes.
const REVOKED_KEY: &str = "revoked_key";

/// How the caller's trust takes a signature that another copy of a line would add to it (`attest
/// fetch`, `attest rejoin`: [`crate::model::bundle::SignatureCheck`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToJoin {
    /// It holds over `pae` as [`check`] counts a signature: it takes a line's free places first.
    Trusted,
    /// By a key the trust revokes, whether or not the trust lists it (SSH: `--revoked`, git's
    /// gpg.ssh.revocationFile, the revocation [`check`] applies; OpenPGP: a revoked certificate of
    /// the trust): never joined. Why, as the verifier says it.
    Revoked(String),
    /// Neither: the trust does not vouch for it (nor against it).
    Other,
}

/// How `trust` at `at` takes the signature `sig` over `pae` ([`ToJoin`]): judged by the one check
/// [`check`] makes of each signature, then by the SSH revocation it applies, for a key no
/// allowed-signers line lists (which that check refuses before it looks at revocations).
#[must_use]
pub fn to_join(sig: &[u8], pae: &[u8], trust: &Trust, at: OffsetDateTime) -> ToJoin {
    match check_one(sig, pae, trust, at) {
        Ok(_) => ToJoin::Trusted,
        Err(f) if f.code == REVOKED_KEY => ToJoin::Revoked(f.message),
        Err(_) => match trust.ssh.as_ref().and_then(|ssh| ssh_verify::revoked_key(sig, &ssh.revoked)) {
            Some(revoked) => ToJoin::Revoked(revoked.to_string()),
            None => ToJoin::Other,
        },
    }
}

/// Who made `sig`, one signature of `env`, as `trust` establishes it at `at`, checked as [`check`]
/// checks each ([`check_one`]: one signer, or several trusted certificates binding the OpenPGP
/// key that made it); otherwise why it does not hold (its key not accepted, or it does not
/// verify).
///
/// # Errors
/// The finding of its check.
pub fn signer_of(
    env: &Envelope,
    sig: &[u8],
    trust: &Trust,
    at: OffsetDateTime,
) -> Result<Vec<SignerInfo>, Finding> {
    check_one(sig, &env.pae(), trust, at)
}

/// Who made `sig`, checked over `pae` under `trust` at `at`: its one signer, or, for an OpenPGP
/// key several trusted certificates bind, each of them ([`openpgp_signers`]), in the order of
/// their keys; never empty.
fn check_one(sig: &[u8], pae: &[u8], trust: &Trust, at: OffsetDateTime) -> Result<Vec<SignerInfo>, Finding> {
    if sig.trim_ascii_start().starts_with(OPENPGP_ARMOR.as_bytes()) {
        return check_openpgp(sig, pae, trust, at);
    }
    if !sshsig::looks_armored(sig) {
        return Err(Finding::new(
            CommitOutcome::ToolMissing,
            "unsupported_signature_kind",
            "a signature of a kind this verifier cannot check (neither SSHSIG nor OpenPGP armor); it is not counted",
        ));
    }
    let Some(ssh) = &trust.ssh else {
        return Err(Finding::new(
            CommitOutcome::UntrustedSigner,
            NO_SSH_TRUST,
            "an SSH signature, but no allowed-signers file was given (--allowed-signers or git's gpg.ssh.allowedSignersFile)",
        ));
    };
    let result = if trust.via_tools {
        check_ssh_by_keygen(sig, pae, ssh, at)
    } else {
        ssh_verify::verify(sig, pae, NAMESPACE, &ssh.allowed, &ssh.revoked, at)
            .map_err(|e| from_ssh_error(&e))
    };
    result
        .map(|v: SshVerified| vec![SignerInfo { kind: "ssh", key: v.fingerprint, principals: v.principals }])
}

/// An SSH signature checked by `ssh-keygen` (`--via-tools`) against `ssh` at `at`, its shape
/// judged first as in-process, by the same code, so that both refuse a malformed one alike.
fn check_ssh_by_keygen(
    sig: &[u8],
    pae: &[u8],
    ssh: &SshTrust,
    at: OffsetDateTime,
) -> Result<SshVerified, Finding> {
    if let Some(e) = ssh_verify::malformed(sig) {
        return Err(from_ssh_error(&e));
    }
    let tool_trust = ToolTrust {
        allowed_signers: &ssh.allowed_path,
        parsed: &ssh.allowed,
        revoked: ssh.revoked_path.as_deref(),
    };
    SshKeygen::default().verify(sig, pae, NAMESPACE, tool_trust, at).map_err(|e| match e {
        SshToolError::Rejected(inner) => from_ssh_error(&inner),
        SshToolError::ToolMissing { .. } => {
            Finding::new(CommitOutcome::ToolMissing, "tool_missing", e.to_string())
        }
        SshToolError::Tool { .. } => Finding::new(CommitOutcome::ToolMissing, "tool_failed", e.to_string()),
        SshToolError::Disagrees { .. } => {
            Finding::new(CommitOutcome::ToolMissing, TOOL_DISAGREES, e.to_string())
        }
    })
}

fn from_ssh_error(e: &SshVerifyError) -> Finding {
    let (outcome, code) = match e {
        SshVerifyError::Malformed { .. } => (CommitOutcome::Malformed, "malformed_signature"),
        SshVerifyError::BadSignature { .. } => (CommitOutcome::BadSignature, "bad_signature"),
        SshVerifyError::UntrustedSigner { .. } => (CommitOutcome::UntrustedSigner, "untrusted_signer"),
        SshVerifyError::Revoked { .. } => (CommitOutcome::UntrustedSigner, REVOKED_KEY),
        SshVerifyError::Unsupported { .. } => (CommitOutcome::ToolMissing, "unsupported_key"),
    };
    Finding::new(outcome, code, e.to_string())
}

/// An OpenPGP signature, checked at the time of verification (as `sqv` does by default): the key
/// must have been valid when it signed, and the signature must not have expired since. With
/// [`Trust::openpgp_keys_at_check`], its keys must also be valid at `at`: of the certificates
/// binding the key, those whose keys are still valid then remain its signers.
fn check_openpgp(
    sig: &[u8],
    pae: &[u8],
    trust: &Trust,
    at: OffsetDateTime,
) -> Result<Vec<SignerInfo>, Finding> {
    let infos = check_openpgp_as_sqv(sig, pae, trust)?;
    let Some(pgp) = trust.openpgp.as_ref().filter(|_| trust.openpgp_keys_at_check) else {
        return Ok(infos);
    };
    let mut first_error = None;
    let valid: Vec<SignerInfo> = infos
        .into_iter()
        .filter(|info| match openpgp::keys_valid_at(sig, pgp, &info.key, at) {
            Ok(()) => true,
            Err(e) => {
                first_error.get_or_insert(e);
                false
            }
        })
        .collect();
    match first_error {
        Some(e) if valid.is_empty() => Err(from_openpgp_error(&e)),
        _ => Ok(valid),
    }
}

/// The signers of the OpenPGP signature `v` verified: each trusted certificate that binds the key
/// that made it ([`openpgp::OpenPgpVerified::binders`]; usually one), in the order of their
/// fingerprints, each with its own user ids and then every other's. As an SSH key listed on
/// several lines has every line's principals, a key several certificates bind may sign as any of
/// their holders: nothing signed tells which made it, so no rule picks one of them as the maker
/// ([`Maker::Several`]), and they may be one person, so none approves a tick another made
/// ([`crate::check::approvals::may_be_one`]).
fn openpgp_signers(v: &openpgp::OpenPgpVerified) -> Vec<SignerInfo> {
    let binders: Vec<(&str, &[String])> = v.binders().collect();
    let signer = |(key, own): (&str, &[String])| {
        let mut principals = own.to_vec();
        for uid in binders.iter().flat_map(|(_, uids)| uids.iter()) {
            if !principals.contains(uid) {
                principals.push(uid.clone());
            }
        }
        SignerInfo { kind: "openpgp", key: key.to_owned(), principals }
    };
    binders.iter().copied().map(signer).collect()
}

/// [`check_openpgp`] with sqv's time semantics, by `sqv` (`--via-tools`) or in-process.
fn check_openpgp_as_sqv(sig: &[u8], pae: &[u8], trust: &Trust) -> Result<Vec<SignerInfo>, Finding> {
    let Some(pgp) = &trust.openpgp else {
        return Err(Finding::new(
            CommitOutcome::UntrustedSigner,
            NO_OPENPGP_TRUST,
            "an OpenPGP signature, but no certificates were given (--openpgp-certs FILE)",
        ));
    };
    let now = OffsetDateTime::now_utc();
    if trust.via_tools {
        // Its shape judged as `verify` judges it, by the same code, before sqv runs: sqv accepts
        // some the format refuses (a text-mode signature, two in one, text after the armor).
        if let Some(e) = openpgp::refused_before_checking(sig, pgp) {
            return Err(from_openpgp_error(&e));
        }
        return check_openpgp_by_sqv(sig, pae, pgp, now);
    }
    openpgp::verify(sig, pae, pgp, now).map(|v| openpgp_signers(&v)).map_err(|e| from_openpgp_error(&e))
}

/// An OpenPGP signature of a shape both paths accept, checked by `sqv` (`--via-tools`) at `now`;
/// the signer's principals read from `pgp` as the in-process path reads them.
fn check_openpgp_by_sqv(
    sig: &[u8],
    pae: &[u8],
    pgp: &openpgp::OpenPgpCerts,
    now: OffsetDateTime,
) -> Result<Vec<SignerInfo>, Finding> {
    match Sqv::default().verify(sig, pae, pgp.path(), now) {
        Ok(fingerprint) => match openpgp::signer_of(sig, pgp, &fingerprint) {
            Some(v) => Ok(openpgp_signers(&v)),
            None => Err(Finding::new(
                CommitOutcome::ToolMissing,
                TOOL_DISAGREES,
                format!(
                    "sqv accepts the signature as made by the certificate {fingerprint}, but this verifier finds no key of it in {} that the signature names; check that the file did not change while it was read, and verify again",
                    pgp.path().display()
                ),
            )),
        },
        // sqv's "not bound" does not say why; the same reading of the certificates as in-process does.
        Err(SqvError::Rejected(
            e @ (OpenPgpVerifyError::NotYetValid { .. } | OpenPgpVerifyError::UntrustedSigner { .. }),
        )) => Err(from_openpgp_error(&openpgp::unbound_key(sig, pgp).unwrap_or(e))),
        Err(SqvError::Rejected(e)) => Err(from_openpgp_error(&openpgp::naming_signer(e, sig, pgp))),
        Err(e @ SqvError::ToolMissing { .. }) => {
            Err(Finding::new(CommitOutcome::ToolMissing, "tool_missing", e.to_string()))
        }
        Err(e) => Err(Finding::new(CommitOutcome::ToolMissing, "tool_failed", e.to_string())),
    }
}

fn from_openpgp_error(e: &OpenPgpVerifyError) -> Finding {
    let (outcome, code) = match e {
        OpenPgpVerifyError::Malformed { .. } => (CommitOutcome::Malformed, "malformed_signature"),
        OpenPgpVerifyError::BadSignature { .. } => (CommitOutcome::BadSignature, "bad_signature"),
        OpenPgpVerifyError::UntrustedSigner { .. } => (CommitOutcome::UntrustedSigner, "untrusted_signer"),
        OpenPgpVerifyError::Expired { .. } => (CommitOutcome::UntrustedSigner, "expired_key"),
        OpenPgpVerifyError::Revoked { .. } => (CommitOutcome::UntrustedSigner, REVOKED_KEY),
        OpenPgpVerifyError::NotYetValid { .. } => (CommitOutcome::UntrustedSigner, "not_yet_valid"),
        OpenPgpVerifyError::NotSigningCapable { .. } => (CommitOutcome::BadSignature, "not_signing_capable"),
        OpenPgpVerifyError::Unsupported { .. } => (CommitOutcome::ToolMissing, "unsupported_openpgp"),
        OpenPgpVerifyError::BindingRejected { .. } => (CommitOutcome::UntrustedSigner, "binding_rejected"),
    };
    Finding::new(outcome, code, e.to_string())
}

/// A keyless Sigstore line, checked offline against the caller's trusted root, identity and issuer,
/// and bound to the task commit through the statement's `sha256` subject digest.
#[cfg(feature = "sigstore")]
fn check_sigstore(
    bundle: &serde_json::Value,
    payload: &[u8],
    commit_sha256: &str,
    trust: &Trust,
) -> Result<SignerInfo, Finding> {
    use crate::sign::sigstore::{self, CertificateTime, Signed, SigstoreVerifyError as E};
    let Some(source) = &trust.sigstore else {
        return Err(Finding::new(
            CommitOutcome::UntrustedSigner,
            "no_sigstore_trust",
            "a Sigstore signature, but no identity was given (--certificate-identity and --certificate-oidc-issuer, with --sigstore-trusted-root)",
        ));
    };
    // The run fails as a whole on this (`Trust::failure`); the finding only keeps the line honest.
    let st = source
        .get()
        .map_err(|reason| Finding::new(CommitOutcome::ToolMissing, "no_sigstore_root", reason.to_string()))?;
    let signed = Signed::Statement { payload, artifact_sha256: commit_sha256 };
    sigstore::verify(bundle, signed, st, CertificateTime::Verified)
        .map(|v| SignerInfo { kind: "sigstore", key: v.issuer, principals: vec![v.identity] })
        .map_err(|e| {
            let (outcome, code) = match &e {
                E::Malformed(_) => (CommitOutcome::Malformed, "malformed_sigstore_bundle"),
                E::BadSignature(_) => (CommitOutcome::BadSignature, "bad_signature"),
                E::NotInLog(_) => (CommitOutcome::BadSignature, "not_in_log"),
                E::BadTimestamp(_) => (CommitOutcome::BadSignature, "bad_timestamp"),
                E::UntrustedSigner(_) => (CommitOutcome::UntrustedSigner, "untrusted_signer"),
                E::Expired(_) => (CommitOutcome::UntrustedSigner, "expired_certificate"),
                E::Unsupported(_) => (CommitOutcome::ToolMissing, "unsupported_sigstore_bundle"),
                E::PlainMessage(_) => {
                    return Finding::new(
                        CommitOutcome::ToolMissing,
                        "unsupported_sigstore_bundle",
                        published_keyless(&e),
                    );
                }
            };
            Finding::new(outcome, code, e.to_string())
        })
}

/// The `unsupported_sigstore_bundle` message of a keyless line whose bundle signs a plain message
/// (`e`): the published speccoder's keyless form, which signs a line's PAE with `cosign sign-blob
/// --bundle`. This verifier checks a keyless line only as a DSSE bundle bound to the task commit
/// object's sha256, so it says what can be done instead; `attest sign` would not help, since a line
/// keeps its one bundle, which stays unchecked.
#[cfg(feature = "sigstore")]
fn published_keyless(e: &crate::sign::sigstore::SigstoreVerifyError) -> String {
    format!(
        "{e}: the published speccoder's keyless form (`cosign sign-blob --bundle` over the line's PAE), which this verifier cannot check; check this evidence with the published speccoder that wrote it, or give the task evidence this verifier checks (attest it again)"
    )
}

/// Without the `sigstore` feature a keyless line cannot be checked: `tool_missing`, never a pass.
#[cfg(not(feature = "sigstore"))]
fn check_sigstore(
    _bundle: &serde_json::Value,
    _payload: &[u8],
    _commit_sha256: &str,
    _trust: &Trust,
) -> Result<SignerInfo, Finding> {
    Err(Finding::new(
        CommitOutcome::ToolMissing,
        "sigstore_not_compiled",
        crate::sign::SIGSTORE_MISSING_REASON,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sign::Signer as _;
    use crate::sign::ssh::allowed_signers::AllowedSigners;
    use crate::sign::ssh::signer::SshSigner;
    use crate::sign::ssh::test_support::{keygen, public_line};

    /// A line signed by Ada, then Bob, whose allowed-signers file ssh-keygen reads (Bob as
    /// bob@x) and this verifier reads (Bob as carol@x, as if the file changed between the two
    /// reads) differently: under `--via-tools` the line fails, though Ada's signature holds.
    #[test]
    fn a_signature_the_tool_and_this_reading_of_the_trust_disagree_on_fails_the_line_beside_a_good_one() {
        let dir = tempfile::tempdir().expect("temp dir");
        let d = dir.path();
        let (ada, bob) = (keygen(d, "ada", "ed25519"), keygen(d, "bob", "ed25519"));
        let (ada_line, bob_line) = (public_line(&ada), public_line(&bob));
        let path = d.join("allowed_signers");
        std::fs::write(&path, format!("ada@x {ada_line}\nbob@x {bob_line}\n")).expect("write");
        let read = format!("ada@x {ada_line}\ncarol@x {bob_line}\n");
        let allowed = AllowedSigners::parse(read.as_bytes(), &path).expect("parses");
        let ssh = SshTrust::read_as(allowed, path);
        let mut trust = Trust { ssh: Some(ssh), via_tools: true, ..Trust::default() };
        let mut env = Envelope::unsigned(b"{}".to_vec());
        for key in [&ada, &bob] {
            let sig = SshSigner::from_key_path(key).expect("loads").sign(&env.pae()).expect("signs");
            env.signatures.push(crate::model::dsse::Signature { keyid: String::new(), sig });
        }
        let at = OffsetDateTime::now_utc();
        match check(&env, &trust, at, "") {
            LineSignature::Failed(f) => {
                assert_eq!((f.outcome, f.code), (CommitOutcome::ToolMissing, TOOL_DISAGREES), "{f:?}");
                assert!(f.message.contains("carol@x") && f.message.contains("bob@x"), "{f:?}");
            }
            other => panic!("{other:?}"),
        }
        trust.via_tools = false;
        assert!(matches!(check(&env, &trust, at, ""), LineSignature::Trusted(_)), "in-process it holds");
        env.signatures.pop();
        trust.via_tools = true;
        assert!(matches!(check(&env, &trust, at, ""), LineSignature::Trusted(_)), "Ada's alone holds");
    }

    /// A line signed by Ada and by Bob, whose allowed-signers line no longer accepts his key
    /// (valid-before passed), or who is listed nowhere: the line holds by Ada's signature, and
    /// Bob's is kept as refused, by his key with the principal his line would give it (none when
    /// no line lists it) and the reason the check gave, in-process and `--via-tools` alike.
    #[test]
    fn a_signature_the_trust_refuses_beside_a_trusted_one_is_kept_with_its_key_principals_and_reason() {
        let dir = tempfile::tempdir().expect("temp dir");
        let d = dir.path();
        let (ada, bob) = (keygen(d, "ada", "ed25519"), keygen(d, "bob", "ed25519"));
        let mut env = Envelope::unsigned(b"{}".to_vec());
        for key in [&ada, &bob] {
            let sig = SshSigner::from_key_path(key).expect("loads").sign(&env.pae()).expect("signs");
            env.signatures.push(crate::model::dsse::Signature { keyid: String::new(), sig });
        }
        let bob_key = ssh_verify::listed_as(&env.signatures[1].sig, None, OffsetDateTime::now_utc())
            .expect("an SSH signature")
            .0;
        let path = d.join("allowed_signers");
        let expired =
            format!("bob@x namespaces=\"in-toto\",valid-before=\"20200101Z\" {}\n", public_line(&bob));
        for (bob_line, principals) in [(expired.as_str(), vec!["bob@x".to_owned()]), ("", vec![])] {
            std::fs::write(&path, format!("ada@x {}\n{bob_line}", public_line(&ada))).expect("write");
            let allowed = AllowedSigners::parse(&std::fs::read(&path).expect("read"), &path).expect("parses");
            for via_tools in [false, true] {
                let ssh = SshTrust::read_as(allowed.clone(), path.clone());
                let trust = Trust { ssh: Some(ssh), via_tools, ..Trust::default() };
                let (verdict, trusted) = check_line(&env, &trust, OffsetDateTime::now_utc(), "");
                assert!(matches!(verdict, LineSignature::Trusted(_)), "{verdict:?}");
                let [refused] = trusted.refused.as_slice() else { panic!("{:?}", trusted.refused) };
                let claimed =
                    SignerInfo { kind: "ssh", key: bob_key.clone(), principals: principals.clone() };
                assert_eq!(refused.claimed, claimed, "via tools: {via_tools}");
                assert_eq!(refused.why.code, "untrusted_signer", "{:?}", refused.why);
                let why = match (bob_line.is_empty(), via_tools) {
                    (false, _) => "valid-before",
                    (true, false) => "no line of",
                    (true, true) => "No principal matched",
                };
                assert!(refused.why.message.contains(why), "{via_tools}: {}", refused.why.message);
            }
        }
    }

    /// Copies of one line, judged as `attest rejoin` chooses among them: Ada's signature alone
    /// holds and beats the same line with one more signature of Ada's that does not verify over it
    /// (more signatures, worse), which beats nothing only as unsigned does; a second trusted key
    /// beats one.
    #[test]
    fn a_copy_is_judged_by_the_signatures_that_verify_under_the_trust_never_by_their_count() {
        let dir = tempfile::tempdir().expect("temp dir");
        let d = dir.path();
        let (ada, bob, eve) =
            (keygen(d, "ada", "ed25519"), keygen(d, "bob", "ed25519"), keygen(d, "eve", "ed25519"));
        let path = d.join("allowed_signers");
        std::fs::write(&path, format!("ada@x {}\nbob@x {}\n", public_line(&ada), public_line(&bob)))
            .expect("write");
        let allowed = AllowedSigners::parse(&std::fs::read(&path).expect("read"), &path).expect("parses");
        let trust = Trust { ssh: Some(SshTrust::read_as(allowed, path)), ..Trust::default() };
        let sign = |key: &std::path::Path, env: &Envelope| crate::model::dsse::Signature {
            keyid: String::new(),
            sig: SshSigner::from_key_path(key).expect("loads").sign(&env.pae()).expect("signs"),
        };
        let unsigned = Envelope::unsigned(b"{}".to_vec());
        let other = Envelope::unsigned(b"{\"other\":1}".to_vec());
        let mut sound = unsigned.clone();
        sound.signatures.push(sign(&ada, &unsigned));
        let mut broken = sound.clone();
        broken.signatures.push(sign(&ada, &other));
        let mut untrusted = unsigned.clone();
        untrusted.signatures.push(sign(&eve, &unsigned));
        let mut approved = sound.clone();
        approved.signatures.push(sign(&bob, &unsigned));
        let at = OffsetDateTime::now_utc();
        let judged = |env: &Envelope| standing(env, &trust, at, "");
        assert!(judged(&sound).holds() && judged(&approved).holds());
        assert!(!judged(&broken).holds() && !judged(&unsigned).holds() && !judged(&untrusted).holds());
        assert!(judged(&broken) < judged(&unsigned), "a failing trusted signature is worst");
        assert!(judged(&unsigned) < judged(&untrusted) && judged(&untrusted) < judged(&sound));
        assert!(judged(&sound) < judged(&approved), "two trusted keys beat one");
    }

    /// Ada's signature with bytes added after its SSHSIG blob: this verifier refuses it as
    /// malformed before `ssh-keygen` runs, so `--via-tools` gives the same finding, reason and all.
    #[test]
    fn an_ssh_signature_with_bytes_after_its_blob_is_malformed_alike_in_process_and_via_tools() {
        use base64::Engine as _;
        let dir = tempfile::tempdir().expect("temp dir");
        let ada = keygen(dir.path(), "ada", "ed25519");
        let path = dir.path().join("allowed_signers");
        std::fs::write(&path, format!("ada@x {}\n", public_line(&ada))).expect("write");
        let allowed = AllowedSigners::parse(&std::fs::read(&path).expect("read"), &path).expect("parses");
        let mut trust = Trust { ssh: Some(SshTrust::read_as(allowed, path)), ..Trust::default() };
        let mut env = Envelope::unsigned(b"{}".to_vec());
        let good = SshSigner::from_key_path(&ada).expect("loads").sign(&env.pae()).expect("signs");
        let text = String::from_utf8(good).expect("armor is text");
        let body: String = text.lines().filter(|l| !l.starts_with("-----")).collect();
        let b64 = base64::engine::general_purpose::STANDARD;
        let blob = [b64.decode(body).expect("base64"), b"\0\0\0\x03xyz".to_vec()].concat();
        let sig = format!("{}\n{}\n{}\n", sshsig::ARMOR_BEGIN, b64.encode(blob), sshsig::ARMOR_END);
        env.signatures.push(crate::model::dsse::Signature { keyid: String::new(), sig: sig.into_bytes() });
        let at = OffsetDateTime::now_utc();
        let in_process = check(&env, &trust, at, "");
        trust.via_tools = true;
        let LineSignature::Failed(f) = &in_process else { panic!("{in_process:?}") };
        assert_eq!((f.outcome, f.code), (CommitOutcome::Malformed, "malformed_signature"), "{f:?}");
        assert_eq!(check(&env, &trust, at, ""), in_process, "via tools");
    }

    /// An envelope carrying a Sigstore bundle, whatever the bundle holds.
    fn keyless_line() -> Envelope {
        let mut env = Envelope::unsigned(b"{}".to_vec());
        env.signatures.push(crate::model::dsse::Signature { keyid: "sigstore".into(), sig: b"x".to_vec() });
        env.sigstore = crate::model::dsse::RawJson::from_value(
            &serde_json::json!({"mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json"}),
        )
        .ok();
        env
    }

    #[cfg(not(feature = "sigstore"))]
    #[test]
    fn without_sigstore_support_a_keyless_line_is_tool_missing_never_a_pass() {
        match check(&keyless_line(), &Trust::default(), OffsetDateTime::now_utc(), "") {
            LineSignature::Failed(f) => {
                assert_eq!(f.outcome, CommitOutcome::ToolMissing);
                assert_eq!(f.code, "sigstore_not_compiled");
            }
            other => panic!("{other:?}"),
        }
    }

    #[cfg(feature = "sigstore")]
    #[test]
    fn a_keyless_line_without_a_sigstore_identity_is_untrusted() {
        match check(&keyless_line(), &Trust::default(), OffsetDateTime::now_utc(), "") {
            LineSignature::Failed(f) => assert_eq!(f.code, "no_sigstore_trust"),
            other => panic!("{other:?}"),
        }
    }

    /// The Sigstore conformance suite beside the repository.
    #[cfg(feature = "sigstore")]
    fn conformance() -> std::path::PathBuf {
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/sigstore-conformance")
    }

    /// Keyless trust in `identity` of `issuer` under the suite's production root.
    #[cfg(feature = "sigstore")]
    fn keyless_trust(identity: &str, issuer: &str) -> Trust {
        use crate::sign::sigstore::{SigstoreTrust, SigstoreTrustSource, TrustedRoot};
        let path = conformance().join("production-trusted_root.json");
        let root =
            TrustedRoot::from_file(&path).unwrap_or_else(|e| panic!("the shared production root: {e}"));
        Trust {
            sigstore: Some(SigstoreTrustSource::given(SigstoreTrust::keyless(root, identity, issuer))),
            ..Trust::default()
        }
    }

    #[cfg(feature = "sigstore")]
    #[test]
    fn a_keyless_line_the_published_speccoder_signed_as_a_plain_message_is_tool_missing_in_either_layout() {
        let identity = "https://github.com/sigstore-conformance/extremely-dangerous-public-oidc-beacon/.github/workflows/extremely-dangerous-oidc-beacon.yml@refs/heads/main";
        let trust = keyless_trust(identity, "https://token.actions.githubusercontent.com");
        let path = conformance().join("bundle-verify/happy-path-v0.3/bundle.sigstore.json");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let v03: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert!(v03.get("messageSignature").is_some(), "a valid v0.3 bundle of a message signature");
        let older = serde_json::json!({"base64Signature": "AA==", "cert": "AA==", "rekorBundle": {"SignedEntryTimestamp": "AA==", "Payload": {}}});
        for bundle in [v03, older] {
            let mut env = keyless_line();
            env.sigstore = crate::model::dsse::RawJson::from_value(&bundle).ok();
            match check(&env, &trust, OffsetDateTime::now_utc(), &"0".repeat(64)) {
                LineSignature::Failed(f) => {
                    assert_eq!(
                        (f.outcome, f.code),
                        (CommitOutcome::ToolMissing, "unsupported_sigstore_bundle"),
                        "{f:?}"
                    );
                    assert!(f.message.contains("the published speccoder's keyless form"), "{}", f.message);
                    assert!(f.message.contains("plain message"), "{}", f.message);
                }
                other => panic!("{bundle}: {other:?}"),
            }
        }
    }

    #[cfg(feature = "sigstore")]
    #[test]
    fn a_keyless_line_whose_bundle_does_not_read_is_a_malformed_sigstore_bundle() {
        let trust = keyless_trust("a@example.com", "https://i");
        match check(&keyless_line(), &trust, OffsetDateTime::now_utc(), "") {
            LineSignature::Failed(f) => {
                assert_eq!(
                    (f.outcome, f.code),
                    (CommitOutcome::Malformed, "malformed_sigstore_bundle"),
                    "{f:?}"
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_line_no_signature_verifies_says_the_judged_keys_reason_and_every_other() {
        let no_pgp = Finding::new(CommitOutcome::UntrustedSigner, NO_OPENPGP_TRUST, "no certificates given");
        let namespace =
            Finding::new(CommitOutcome::UntrustedSigner, "untrusted_signer", "not allowed for in-toto");
        let f = none_verified(vec![no_pgp.clone(), namespace, no_pgp]);
        assert_eq!((f.outcome, f.code), (CommitOutcome::UntrustedSigner, "untrusted_signer"), "{f:?}");
        assert_eq!(
            f.message,
            "not allowed for in-toto; the line's other signatures fail too: no certificates given (no_openpgp_trust)"
        );
        let bad = Finding::new(CommitOutcome::BadSignature, "bad_signature", "changed");
        assert_eq!(
            none_verified(vec![Finding::new(CommitOutcome::UntrustedSigner, "untrusted_signer", "x"), bad])
                .code,
            "bad_signature"
        );
        assert_eq!(none_verified(Vec::new()).code, "bad_signature");
    }

    /// Two SSH keys, Alice's and Bob's, each trusted for its principal, and the trust itself.
    struct Two {
        _dir: tempfile::TempDir,
        _fixture: crate::git::test_support::Fixture,
        alice: crate::sign::ssh::SshSigner,
        bob: crate::sign::ssh::SshSigner,
        trust: Trust,
    }

    impl Two {
        fn new() -> Two {
            use crate::check::trust::{AllowedSource, GivenFile, GivenPath};
            use crate::sign::Signer as _;
            let dir = tempfile::tempdir().unwrap();
            let key = |name: &str| {
                let path = dir.path().join(name);
                let out = std::process::Command::new("ssh-keygen")
                    .args(["-q", "-t", "ed25519", "-N", "", "-C", name, "-f"])
                    .arg(&path)
                    .output()
                    .expect("ssh-keygen runs (OpenSSH must be installed for these tests)");
                assert!(out.status.success(), "{out:?}");
                let public = std::fs::read_to_string(path.with_extension("pub")).unwrap();
                (crate::sign::ssh::SshSigner::from_key_path(&path).unwrap(), public)
            };
            let ((alice, alice_pub), (bob, bob_pub)) = (key("alice"), key("bob"));
            let allowed = dir.path().join("allowed_signers");
            let text = format!("alice@example.org {alice_pub}bob@example.org {bob_pub}");
            std::fs::write(&allowed, text).unwrap();
            let fixture = crate::git::test_support::Fixture::new();
            let commit = fixture.commit_file("a", "a", "a commit");
            let repo = fixture.repo();
            let tree = repo.commit_tree(commit).unwrap();
            let source = AllowedSource::File(GivenPath { path: allowed, given_by: "the test" });
            let ssh = SshTrust::load(&repo, &source, &[], tree, &|_| false, GivenFile::Trust).unwrap();
            assert!(alice.keyid() != bob.keyid());
            Two {
                _dir: dir,
                _fixture: fixture,
                alice,
                bob,
                trust: Trust { ssh: Some(ssh), ..Trust::default() },
            }
        }

        /// Line `number`: a statement of `predicate_type` with `predicate`, signed by `signers` in
        /// that order.
        fn line(
            number: usize,
            predicate_type: &str,
            predicate: serde_json::Value,
            signers: &[&crate::sign::ssh::SshSigner],
        ) -> ReadLine {
            signed_line(number, predicate_type, predicate, &ssh_signatures(signers))
        }

        /// The maker of the covering line, the last of `lines`.
        fn maker(&self, lines: &[ReadLine]) -> Maker {
            let at = OffsetDateTime::now_utc();
            check_note_every(lines, &self.trust, at, "", Some(lines.len() - 1)).1.maker
        }

        fn signer(&self, who: &crate::sign::ssh::SshSigner) -> SignerInfo {
            use crate::sign::Signer as _;
            let principal =
                if who.keyid() == self.alice.keyid() { "alice@example.org" } else { "bob@example.org" };
            SignerInfo { kind: "ssh", key: who.keyid(), principals: vec![principal.into()] }
        }
    }

    /// The signatures of a line, made over its PAE.
    type Signs<'a> = dyn Fn(&[u8]) -> Vec<crate::model::dsse::Signature> + 'a;

    /// The signatures of `signers`, in that order.
    fn ssh_signatures<'a>(signers: &'a [&'a crate::sign::ssh::SshSigner]) -> Box<Signs<'a>> {
        use crate::sign::Signer as _;
        Box::new(move |pae: &[u8]| {
            let sign = |s: &&crate::sign::ssh::SshSigner| crate::model::dsse::Signature {
                keyid: s.keyid(),
                sig: s.sign(pae).unwrap(),
            };
            signers.iter().map(sign).collect()
        })
    }

    /// Line `number`: a statement of `predicate_type` with `predicate`, signed by `sign`.
    fn signed_line(
        number: usize,
        predicate_type: &str,
        predicate: serde_json::Value,
        sign: &Signs<'_>,
    ) -> ReadLine {
        let statement = serde_json::json!({
            "_type": "https://in-toto.io/Statement/v1",
            "subject": [{"name": "001-x/T001", "digest": {"gitCommit": "ab".repeat(20)}}],
            "predicateType": predicate_type,
            "predicate": predicate,
        });
        let mut env = Envelope::unsigned(crate::model::canonical::value_to_canonical(&statement));
        env.signatures = sign(&env.pae());
        crate::check::line::read_line(number, &env.to_line()).unwrap_or_else(|f| panic!("{f:?}"))
    }

    /// A task-verification predicate; a decision's with `decider` by `by`.
    fn verification(by: Option<&str>) -> serde_json::Value {
        let mut p = serde_json::json!({
            "verdict": if by.is_some() { "attested" } else { "verified" },
            "unit": {"format": "speckit", "feature": "001-x", "dir": "specs/001-x"},
            "task": {"id": "T001", "line_hash": "ab", "title": "t"},
            "tree": "t", "policy_sha256": "ef", "time": "2026-12-01T00:00:00Z",
        });
        if let Some(by) = by {
            p["decider"] = serde_json::json!({"by": by, "reason": "looked fine"});
        }
        p
    }

    /// A tick's note: a task-verification line and a summary, each signed by `others` and the
    /// summary (the covering line) by `covering`, in those orders.
    fn tick(
        others: &[&crate::sign::ssh::SshSigner],
        covering: &[&crate::sign::ssh::SshSigner],
    ) -> Vec<ReadLine> {
        signed_tick(&ssh_signatures(others), &ssh_signatures(covering))
    }

    /// A tick's note: a task-verification line signed by `others` and a summary (the covering
    /// line) signed by `covering`.
    fn signed_tick(others: &Signs<'_>, covering: &Signs<'_>) -> Vec<ReadLine> {
        use crate::model::summary;
        let summary = serde_json::json!({
            "verifier": {"id": summary::VERIFIER_ID},
            "timeVerified": "2026-12-01T00:00:00Z",
            "resourceUri": "git:x",
            "policy": {"uri": summary::POLICY_URI, "digest": {"sha256": "ef"}},
            "inputAttestations": [],
            "verificationResult": "PASSED",
            "verifiedLevels": [summary::LEVEL_VERIFIED],
        });
        vec![
            signed_line(1, crate::model::predicate::TYPE, verification(None), others),
            signed_line(2, summary::TYPE, summary, covering),
        ]
    }

    #[test]
    fn the_maker_of_a_tick_is_who_signed_every_line_whatever_the_order_of_the_covering_signatures() {
        let two = Two::new();
        let (alice, bob) = (&two.alice, &two.bob);
        let alices = Maker::Known(two.signer(alice));
        // Alice ticks, Bob approves: either order of the summary's signatures, Alice made it.
        assert_eq!(two.maker(&tick(&[alice], &[alice, bob])), alices);
        assert_eq!(two.maker(&tick(&[alice], &[bob, alice])), alices);
        let signers = check_note_every(
            &tick(&[alice], &[bob, alice]),
            &two.trust,
            OffsetDateTime::now_utc(),
            "",
            Some(1),
        )
        .1;
        assert_eq!(
            signers.every,
            check_note_every(
                &tick(&[alice], &[alice, bob]),
                &two.trust,
                OffsetDateTime::now_utc(),
                "",
                Some(1)
            )
            .1
            .every
        );
        // Alice's signature taken off the summary: Bob signed none of the rest, so nobody made it.
        assert_eq!(two.maker(&tick(&[alice], &[bob])), Maker::Unknown);
        // Both signed every line: nothing tells which of them made it, in either order.
        let both = Maker::Several(
            check_note_every(
                &tick(&[alice, bob], &[alice, bob]),
                &two.trust,
                OffsetDateTime::now_utc(),
                "",
                Some(1),
            )
            .1
            .every,
        );
        assert!(matches!(&both, Maker::Several(s) if s.len() == 2), "{both:?}");
        assert_eq!(two.maker(&tick(&[bob, alice], &[bob, alice])), both);
        assert_eq!(two.maker(&tick(&[alice, bob], &[bob, alice])), both);
    }

    #[test]
    fn the_maker_of_a_decision_is_the_signer_its_decider_names_whatever_the_order_of_its_signatures() {
        let two = Two::new();
        let (alice, bob) = (&two.alice, &two.bob);
        let decision = |by: &str, signers: &[&crate::sign::ssh::SshSigner]| {
            vec![Two::line(1, crate::model::predicate::TYPE, verification(Some(by)), signers)]
        };
        for by in ["alice@example.org", "Alice <ALICE@example.org>"] {
            assert_eq!(two.maker(&decision(by, &[alice, bob])), Maker::Known(two.signer(alice)), "{by}");
            assert_eq!(two.maker(&decision(by, &[bob, alice])), Maker::Known(two.signer(alice)), "{by}");
        }
        // A bare name names nobody: the only signer made it; of two, nothing tells which.
        assert_eq!(two.maker(&decision("Alice", &[alice])), Maker::Known(two.signer(alice)));
        let untold = two.maker(&decision("Alice", &[alice, bob]));
        assert!(matches!(&untold, Maker::Several(s) if s.len() == 2), "{untold:?}");
        assert_eq!(two.maker(&decision("Alice", &[bob, alice])), untold);
        // An address that names none of the signers: the decider's signature is not on the line.
        assert_eq!(two.maker(&decision("alice@example.org", &[bob])), Maker::Unknown);
        assert_eq!(two.maker(&decision("carol@example.org", &[alice, bob])), Maker::Unknown);
    }

    /// Ada's signing subkey, which Mallory's certificate binds too (with the subkey's
    /// back-signature), signed every line of a tick, and Ada's primary key signed its summary too.
    /// Nothing signed tells whether Ada or Mallory made the tick: both may have, each with the
    /// other's user ids too, so no rule picks one and neither approves it (they may be one person),
    /// whatever the order of the file, in-process and `--via-tools` alike. Bound by Mallory's
    /// certificate without the back-signature, the subkey is Ada's alone, who made the tick.
    #[test]
    fn a_tick_by_a_key_two_trusted_certificates_bind_has_both_as_possible_makers_and_neither_approves() {
        use sequoia_openpgp::types::KeyFlags;

        use crate::check::approvals::counted;
        use crate::sign::openpgp::test_support::{
            GnuPg, bind_foreign_subkey, bind_shared_subkey, trust as pgp_trust,
        };

        let gpg = GnuPg::new();
        let ada = gpg.gen_key("Ada <ada@example.com>", "sign", "0", None);
        let sub = gpg.add_subkey(&ada, "sign");
        let mallory = gpg.gen_key("Mallory <mal@example.com>", "sign", "0", None);
        let (ada_cert, mallory_secret) = (gpg.export(&[&ada]), gpg.export_secret(&mallory, false));
        let shared = bind_shared_subkey(&mallory_secret, &gpg.export_secret(&ada, false), &sub);
        let foreign = bind_foreign_subkey(&mallory_secret, &ada_cert, &sub, KeyFlags::empty().set_signing());
        let (gpg_ref, keyid) = (&gpg, ada.clone());
        let by = |keys: &[&str]| {
            let keys: Vec<String> = keys.iter().map(|k| format!("{k}!")).collect();
            let keyid = keyid.clone();
            move |pae: &[u8]| -> Vec<crate::model::dsse::Signature> {
                let sign = |k: &String| crate::model::dsse::Signature {
                    keyid: keyid.clone(),
                    sig: gpg_ref.sign(k, pae, &[]),
                };
                keys.iter().map(sign).collect()
            }
        };
        let lines = signed_tick(&by(&[&sub]), &by(&[&sub, &ada]));
        let signers_under = |material: [&[u8]; 2], via_tools: bool| {
            let (_, certs) = pgp_trust(&gpg, "team.asc", &material.concat());
            let trust = Trust { openpgp: Some(certs), via_tools, ..Trust::default() };
            check_note_every(&lines, &trust, OffsetDateTime::now_utc(), "", Some(1)).1
        };

        let ada_uid = "Ada <ada@example.com>".to_owned();
        let mallory_uid = "Mallory <mal@example.com>".to_owned();
        let mut both = vec![
            SignerInfo {
                kind: "openpgp",
                key: ada.clone(),
                principals: vec![ada_uid.clone(), mallory_uid.clone()],
            },
            SignerInfo {
                kind: "openpgp",
                key: mallory.clone(),
                principals: vec![mallory_uid, ada_uid.clone()],
            },
        ];
        both.sort_by(|a, b| a.key.cmp(&b.key));
        for material in [[shared.as_slice(), &ada_cert], [ada_cert.as_slice(), &shared]] {
            for via_tools in [false, true] {
                let signers = signers_under(material, via_tools);
                assert_eq!(signers.every, both, "via tools: {via_tools}");
                assert_eq!(signers.maker, Maker::Several(both.clone()), "via tools: {via_tools}");
                assert_eq!(counted(&signers, |_| true), 0, "via tools: {via_tools}");
            }
        }

        let ada_alone = SignerInfo { kind: "openpgp", key: ada.clone(), principals: vec![ada_uid] };
        for material in [[foreign.as_slice(), &ada_cert], [ada_cert.as_slice(), &foreign]] {
            for via_tools in [false, true] {
                let signers = signers_under(material, via_tools);
                assert_eq!(signers.every, std::slice::from_ref(&ada_alone), "via tools: {via_tools}");
                assert_eq!(signers.maker, Maker::Known(ada_alone.clone()), "via tools: {via_tools}");
            }
        }
    }

    /// An expired OpenPGP signature's finding names the certificate whose key made it, with
    /// `--via-tools` (where sqv's message names no key) as in-process.
    #[test]
    fn an_expired_openpgp_signature_names_its_certificate_via_tools_as_in_process() {
        use crate::sign::openpgp::test_support::{GnuPg, trust as pgp_trust};

        let gpg = GnuPg::new();
        let stale = gpg.gen_key("Stale <stale@example.com>", "sign", "0", Some("20200101T000000"));
        let (_, certs) = pgp_trust(&gpg, "trusted.asc", &gpg.export(&[&stale]));
        let mut env = Envelope::unsigned(b"{}".to_vec());
        let expired = ["--faked-system-time", "20200101T060000", "--default-sig-expire", "1d"];
        let sig = gpg.sign(&stale, &env.pae(), &expired);
        env.signatures.push(crate::model::dsse::Signature { keyid: stale.clone(), sig });
        for via_tools in [false, true] {
            let trust = Trust { openpgp: Some(certs.clone()), via_tools, ..Trust::default() };
            let LineSignature::Failed(f) = check(&env, &trust, OffsetDateTime::now_utc(), "") else {
                panic!("an expired signature holds (via tools: {via_tools})");
            };
            assert_eq!(f.code, "expired_key", "{f:?}");
            let named = format!("expired OpenPGP signature or key of {stale}: ");
            assert!(f.message.starts_with(&named), "via tools: {via_tools}: {}", f.message);
        }
    }

    #[test]
    fn the_maker_of_a_carried_decision_is_its_carrier_whomever_its_decider_names() {
        let two = Two::new();
        let (alice, bob) = (&two.alice, &two.bob);
        // Alice decided; Bob re-issued the decision with `attest carry`, which signs it afresh.
        let carried = |signers: &[&crate::sign::ssh::SshSigner]| {
            let mut p = verification(Some("alice@example.org"));
            p["carried"] = serde_json::json!({"from": "cd".repeat(20), "patch_id": "ef".repeat(32), "time": "2026-12-01T00:00:00Z"});
            vec![Two::line(1, crate::model::predicate::TYPE, p, signers)]
        };
        assert_eq!(two.maker(&carried(&[bob])), Maker::Known(two.signer(bob)));
        assert_eq!(two.maker(&carried(&[alice])), Maker::Known(two.signer(alice)));
        // Approved: nothing signed tells the carrier from the approver, `by` least of all.
        let untold = two.maker(&carried(&[bob, alice]));
        assert!(matches!(&untold, Maker::Several(s) if s.len() == 2), "{untold:?}");
        assert_eq!(two.maker(&carried(&[alice, bob])), untold);
    }

    #[test]
    fn a_signature_of_no_known_kind_is_tool_missing() {
        let mut env = Envelope::unsigned(b"{}".to_vec());
        env.signatures.push(crate::model::dsse::Signature { keyid: "k".into(), sig: b"opaque".to_vec() });
        match check(&env, &Trust::default(), OffsetDateTime::now_utc(), "") {
            LineSignature::Failed(f) => assert_eq!(f.outcome, CommitOutcome::ToolMissing),
            other => panic!("{other:?}"),
        }
    }
}
