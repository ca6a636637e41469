//! The task-verification predicate, `https://speccoder.dev/task-verification/v0`, revision 3: what
//! speccoder signs about one ticked (or decided) task. The open specification is
//! `docs/task-verification-v0.md`; its JSON Schema is generated from [`TaskVerificationV0`].
//!
//! Within v0 the predicate only grows, and a reader keeps what it does not know:
//! [`TaskVerificationV0::extra`] holds unknown fields so the signed bytes survive a round trip, and
//! the verifier names them without letting them decide.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::audit_shapes::{integrity_schema, monitor_schema, trace_schema};
use super::clean::shown_if_clean;
use super::collection::Collection;
use super::dialect::Dialect;
use super::regression::{RegressionReason, SignedRegression};
use super::shown::{InLine, OneLine};

/// The predicate type URI of major version 0.
pub const TYPE: &str = "https://speccoder.dev/task-verification/v0";

/// The prefix shared by every major version; a statement with this prefix and another version is
/// "not supported by this verifier".
pub const TYPE_FAMILY: &str = "https://speccoder.dev/task-verification/";

/// The revision this build writes. 1: no `revision` field; 2: `revision`, `red` and the reserved
/// fields; 3: `regression` and `collection`; 4: `carried`.
pub const REVISION: u32 = 4;

/// The verdicts a task-verification statement can carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The task's red, green (and held-out) runs proved it.
    Verified,
    /// Only regression evidence: no red run proved the task.
    RegressionOnly,
    /// A person accepted the task without test evidence.
    Attested,
    /// A person skipped the task; it stays unticked.
    Skipped,
}

impl Verdict {
    /// The wire spelling, as in the `Verdict:` trailer.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Verified => "verified",
            Verdict::RegressionOnly => "regression_only",
            Verdict::Attested => "attested",
            Verdict::Skipped => "skipped",
        }
    }

    /// Reads the wire spelling.
    #[must_use]
    pub fn parse(s: &str) -> Option<Self> {
        [Verdict::Verified, Verdict::RegressionOnly, Verdict::Attested, Verdict::Skipped]
            .into_iter()
            .find(|v| v.as_str() == s)
    }

    /// Whether a person decided it (`attested`, `skipped`): one task-verification line, no tests.
    #[must_use]
    pub fn is_decision(self) -> bool {
        matches!(self, Verdict::Attested | Verdict::Skipped)
    }
}

/// Keeps a field that is present with `null` apart from an absent one: `Some(Value::Null)` versus
/// `None`, so that both shapes round-trip unchanged.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// The spec unit (Spec Kit feature, OpenSpec change) the task belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Unit {
    /// The spec format: `speckit` or `openspec`.
    pub format: String,
    /// The unit's name, e.g. `001-bookmark-tags` or `add-tag-filter`.
    pub feature: String,
    /// The unit's directory, relative to the project root.
    pub dir: String,
}

/// The task, as its line read before the tick.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TaskRef {
    /// The task id, e.g. `T005` or `1.2`.
    pub id: String,
    /// sha256 of the task line with its box read as open (`[ ]`).
    pub line_hash: String,
    /// The task's title.
    pub title: String,
}

/// The story or requirement the task belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SpecRef {
    /// The story, e.g. `US1`; `null` when the task names none.
    pub section: Option<String>,
    /// sha256 of that story's text as the attempt was given it.
    pub section_hash: String,
}

/// Who made a decision (`attested`, `skipped`) and why. The name is asserted, not proven.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Decider {
    /// The person, as they named themselves.
    pub by: String,
    /// Their reason.
    pub reason: String,
}

/// How the acceptance tests failed in the red run (revision 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RedKind {
    /// An assertion failed.
    Assertion,
    /// What the task introduces did not exist yet.
    MissingSymbol,
}

/// The red run's output, bounded and checked clean (revision 2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Red {
    /// How the tests failed.
    pub kind: RedKind,
    /// The output's last bytes (at most 2048, on a character boundary); `null` when withheld.
    pub excerpt: Option<String>,
    /// sha256 of `excerpt`; `null` when withheld.
    pub excerpt_sha256: Option<String>,
    /// sha256 of the whole captured output.
    pub output_sha256: String,
    /// The excerpt was not clean (a local path, a credential) and was left out.
    pub withheld: bool,
}

/// Where re-issued evidence came from (revision 4): `speccoder attest carry` moved it from the task
/// commit `from` to this one after a rebase, amend or cherry-pick left the same change on a new
/// commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Carried {
    /// The task commit the evidence was on before (the one it was attested on, or carried to last).
    pub from: String,
    /// The identity of the change: sha256 of its patch with three lines of context, equal for
    /// `from` and this commit, each against its parent (empty when the change is empty, as a bug
    /// task's closing commit with nothing staged can be).
    pub patch_id: String,
    /// The `time` of the statement it was re-issued from.
    pub time: String,
}

/// A report's `carried {from, patch_id, time}`: the signed values, each kept on its line as
/// [`OneLine`] quotes repository text (nothing checks their form).
impl InLine for Carried {
    fn serialize_in_line<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct as _;
        let mut out = serializer.serialize_struct("Carried", 3)?;
        out.serialize_field("from", &OneLine(&self.from))?;
        out.serialize_field("patch_id", &OneLine(&self.patch_id))?;
        out.serialize_field("time", &OneLine(&self.time))?;
        out.end()
    }
}

/// What judged the attempt besides its tests: the requirement trace, the diff audit, the gaming
/// monitor and mutation testing. Opaque values here, like [`Setting`] and [`Guidance`]: carried as
/// signed, each field keeping `null` apart from absent. The shapes of `trace`, `integrity` and
/// `monitor` are checked by `check::values` and described to the schemas by
/// [`super::audit_shapes`]. The three are written flat into [`TaskVerificationV0`], in this order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Audits {
    /// An array of rows tying cited requirements and acceptance scenarios to a test, phase and result.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "trace_schema")]
    pub trace: Option<Value>,
    /// The diff audit: `{findings: [...]}`.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "integrity_schema")]
    pub integrity: Option<Value>,
    /// The gaming monitor: `{state: clean|suspected|unreviewed|off, findings: [...]}`, findings optional.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "monitor_schema")]
    pub monitor: Option<Value>,
    /// Mutation testing, `{caught, missed, ...}`, or `null`.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub mutation: Option<Value>,
}

/// Where, by whom and in which run the attempt was made. Opaque (see [`Audits`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Setting {
    /// Where the attempt ran: `{mode, backend, network}`.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<Value>,
    /// Who implemented the task: `{kind, agent?}`.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub executor: Option<Value>,
    /// The judging model, `{provider, model}`, or `null`.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub model: Option<Value>,
    /// The run that produced the evidence, `{id}`, or `null`.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub run: Option<Value>,
}

/// What the attempt was held to: people's decisions, the acceptance set's strength and the
/// repository's instruction files. Opaque (see [`Audits`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Guidance {
    /// People's decisions on the attempt's calls.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub decisions: Option<Value>,
    /// The acceptance set's strength (shares, near misses, permitted alternatives), or `null`.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub strength: Option<Value>,
    /// The repository instruction files given to the attempt.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub instructions: Option<Value>,
}

/// The task-verification predicate, v0.
///
/// A tick (`verified`, `regression_only`) carries the test evidence; a decision (`attested`,
/// `skipped`) carries `decider` instead, and may leave the evidence fields out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(transform = tick_carries_its_audits)]
pub struct TaskVerificationV0 {
    /// The revision within v0, 1 or more; absent means 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub revision: Option<u32>,
    /// `verified`, `regression_only`, `attested` or `skipped`.
    pub verdict: String,
    /// The unit.
    pub unit: Unit,
    /// The task.
    pub task: TaskRef,
    /// The task commit's tree id.
    pub tree: String,
    /// The story and the hash of its text (ticks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<SpecRef>,
    /// What judged the attempt besides its tests (ticks).
    #[serde(flatten)]
    pub audits: Audits,
    /// Where, by whom and in which run the attempt was made (ticks).
    #[serde(flatten)]
    pub setting: Setting,
    /// What the attempt was held to (ticks).
    #[serde(flatten)]
    pub guidance: Guidance,
    /// Who decided an `attested` or `skipped` task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decider: Option<Decider>,
    /// sha256 of the judge configuration in `speccoder.toml` at the task commit's parent.
    pub policy_sha256: String,
    /// When the statement was made (RFC 3339, UTC).
    pub time: String,
    /// The red run's bounded, clean excerpt (revision 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub red: Option<Red>,
    /// A bug task's evidence; for a trailer-only task `triad_sha256` is the anchor. Opaque.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bug: Option<Value>,
    /// Where the acceptance tests came from: `{source, pre_frozen}`. Opaque.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acceptance: Option<Value>,
    /// Why a `regression_only` tick is one (revision 3).
    // A signed statement's reason is read in either shape ([`SignedRegression`]); the schema says
    // the one this crate writes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<RegressionReason>")]
    pub regression: Option<SignedRegression>,
    /// The changed test files and whether the run collected each (revision 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collection: Option<Collection>,
    /// Where this evidence was re-issued from, when `speccoder attest carry` moved it (revision 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carried: Option<Carried>,
    /// Reserved: what reached the model, by digest. Opaque.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<Value>,
    /// Reserved: dependencies the change added, with registry checksums. Opaque.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dependencies: Option<Value>,
    /// Fields this build does not know: kept so the signed bytes round-trip, never evaluated.
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

impl TaskVerificationV0 {
    /// The revision claimed (absent: 1).
    #[must_use]
    pub fn revision(&self) -> u32 {
        self.revision.unwrap_or(1)
    }

    /// How many characters of an unknown field's name [`Self::newer_fields`] gives.
    const FIELD_NAME_SHOWN: usize = 64;

    /// What this build did not evaluate: the unknown fields by name, then `revision N` when the
    /// statement is newer than [`REVISION`]. A name is the note's to write, so it is given as a
    /// message quotes it ([`shown_if_clean`]): escaped, cut, and only when it passes the clean
    /// check.
    #[must_use]
    pub fn newer_fields(&self) -> Vec<String> {
        let mut names: Vec<String> =
            self.extra.keys().map(|k| shown_if_clean(k, Self::FIELD_NAME_SHOWN)).collect();
        if self.revision() > REVISION {
            names.push(format!("revision {}", self.revision()));
        }
        names
    }

    /// The opaque reserved fields that are present, by name.
    #[must_use]
    pub fn reserved_present(&self) -> Vec<&'static str> {
        let fields = [
            ("bug", self.bug.is_some()),
            ("acceptance", self.acceptance.is_some()),
            ("context", self.context.is_some()),
            ("dependencies", self.dependencies.is_some()),
        ];
        fields.into_iter().filter(|(_, present)| *present).map(|(name, _)| name).collect()
    }

    /// The fields only a tick carries that claim something, by name: present with a value other
    /// than `null` (the story, the attempt's audits, setting and guidance, the red excerpt, the
    /// regression reason and the collection). A decision (`attested`, `skipped`) claims none of
    /// them: it records a person's word, not test evidence. A field that is `null` claims nothing,
    /// so a decision may carry it as the specification's "fields `null` in a tick may be absent in
    /// a decision" allows.
    #[must_use]
    pub fn tick_fields_claimed(&self) -> Vec<&'static str> {
        let (a, s, g) = (&self.audits, &self.setting, &self.guidance);
        let claims = |field: &Option<Value>| field.as_ref().is_some_and(|v| !v.is_null());
        let fields = [
            ("spec", self.spec.is_some()),
            ("trace", claims(&a.trace)),
            ("integrity", claims(&a.integrity)),
            ("monitor", claims(&a.monitor)),
            ("mutation", claims(&a.mutation)),
            ("sandbox", claims(&s.sandbox)),
            ("executor", claims(&s.executor)),
            ("model", claims(&s.model)),
            ("run", claims(&s.run)),
            ("decisions", claims(&g.decisions)),
            ("strength", claims(&g.strength)),
            ("instructions", claims(&g.instructions)),
            ("red", self.red.is_some()),
            ("regression", self.regression.is_some()),
            ("collection", self.collection.is_some()),
        ];
        fields.into_iter().filter(|(_, present)| *present).map(|(name, _)| name).collect()
    }

    /// The members recorded in the published speccoder's shapes ([`super::dialect`]), by name:
    /// `regression`, and `collection.files[i]` for each such row.
    #[must_use]
    pub fn published_shapes(&self) -> Vec<String> {
        let regression = self.regression.iter().filter(|r| r.dialect() == Dialect::Published);
        let mut names: Vec<String> = regression.map(|_| "regression".to_owned()).collect();
        let files = self.collection.iter().flat_map(|c| c.files.iter().enumerate());
        names.extend(
            files
                .filter(|(_, f)| f.dialect() == Dialect::Published)
                .map(|(i, _)| format!("collection.files[{i}]")),
        );
        names
    }
}

/// A tick (`verified`, `regression_only`) carries `trace`, `integrity` and `monitor`, none of
/// them `null`: added to the predicate's schema as `if`/`then`.
fn tick_carries_its_audits(schema: &mut schemars::Schema) {
    let ticks = [Verdict::Verified.as_str(), Verdict::RegressionOnly.as_str()];
    schema.insert(
        "if".into(),
        serde_json::json!({ "properties": { "verdict": { "enum": ticks } }, "required": ["verdict"] }),
    );
    schema.insert(
        "then".into(),
        serde_json::json!({
            "required": ["trace", "integrity", "monitor"],
            "properties": {
                "trace": { "type": "array" },
                "integrity": { "type": "object" },
                "monitor": { "type": "object" }
            }
        }),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tick() -> Value {
        json!({
            "revision": 3,
            "verdict": "regression_only",
            "unit": { "format": "speckit", "feature": "001-x", "dir": "specs/001-x" },
            "task": { "id": "T001", "line_hash": "ab", "title": "Do it (FR-001)" },
            "tree": "t",
            "spec": { "section": null, "section_hash": "cd" },
            "trace": [],
            "integrity": { "findings": [] },
            "monitor": { "state": "off", "findings": [] },
            "mutation": null,
            "sandbox": { "mode": "off" },
            "executor": { "kind": "agent" },
            "model": null,
            "run": null,
            "decisions": [],
            "strength": null,
            "instructions": [],
            "policy_sha256": "ef",
            "time": "2026-10-26T00:00:00Z",
            "regression": { "code": "already_passing", "detail": "tests passed before" },
            "collection": { "files": [ { "path": "tests/a.rs", "collected": true } ] }
        })
    }

    fn typed(v: &Value) -> TaskVerificationV0 {
        serde_json::from_value(v.clone()).unwrap()
    }

    #[test]
    fn a_revision_three_tick_round_trips_with_regression_and_collection() {
        let t = typed(&tick());
        assert_eq!(t.regression.as_ref().unwrap().code(), "already_passing");
        assert_eq!(t.collection.as_ref().unwrap().files[0].collected(), Some(true));
        assert_eq!(serde_json::to_value(&t).unwrap(), tick());
    }

    #[test]
    fn a_signed_regression_or_collection_with_members_a_newer_producer_added_still_reads() {
        let mut v = tick();
        v["regression"]["only_on"] = json!("linux");
        v["collection"]["files"][0]["tests_skipped"] = json!(2);
        let t = typed(&v);
        assert_eq!(t.regression.unwrap().code(), "already_passing");
        assert_eq!(t.collection.unwrap().files[0].path(), "tests/a.rs");
    }

    #[test]
    fn the_published_speccoders_regression_and_collection_rows_read_and_are_named_as_its_shapes() {
        let mut v = tick();
        assert!(typed(&v).published_shapes().is_empty());
        v["regression"] = json!({ "reason": "no_scenarios", "story": "US1" });
        v["collection"]["files"].as_array_mut().unwrap().push(
            json!({ "path": "tests/b.rs", "state": "collected", "decided_by": "junit", "tests": 1, "test_ids": ["b::t"] }),
        );
        let t = typed(&v);
        assert_eq!(t.regression.as_ref().unwrap().code(), "no_scenarios");
        assert_eq!(t.published_shapes(), ["regression", "collection.files[1]"]);
        assert_eq!(serde_json::to_value(&t).unwrap(), v, "each member serialized in its own shape");
    }

    #[test]
    fn a_null_field_and_an_absent_field_stay_apart() {
        let mut v = tick();
        v.as_object_mut().unwrap().remove("mutation");
        let t = typed(&v);
        assert_eq!(t.audits.mutation, None);
        assert_eq!(typed(&tick()).audits.mutation, Some(Value::Null));
        assert_eq!(serde_json::to_value(&t).unwrap(), v);
    }

    #[test]
    fn a_field_given_twice_is_refused_whether_typed_or_opaque() {
        for field in ["verdict", "tree", "trace", "mutation", "run", "instructions"] {
            let mut text = serde_json::to_string(&tick()).unwrap();
            text.insert_str(1, &format!("\"{field}\":{},", tick()[field]));
            let err = serde_json::from_str::<TaskVerificationV0>(&text).expect_err(field).to_string();
            assert!(err.contains(&format!("duplicate field `{field}`")), "{field}: {err}");
        }
    }

    #[test]
    fn unknown_fields_and_a_newer_revision_are_kept_and_named() {
        let mut v = tick();
        v["revision"] = json!(7);
        v["provenance"] = json!({ "x": 1 });
        v["context"] = json!({ "sha256": "aa" });
        let t = typed(&v);
        assert_eq!(t.newer_fields(), ["provenance", "revision 7"]);
        assert_eq!(t.reserved_present(), ["context"]);
        assert_eq!(serde_json::to_value(&t).unwrap(), v);
    }

    #[test]
    fn an_unknown_field_s_name_is_named_only_when_clean_and_escaped() {
        let mut v = tick();
        v["ghp_R8x2Kq9LmZ4vT7nB3cW6yH1jP0sD5fG9hJ2k"] = json!(1);
        v["x\u{1b}]0;PWNED\u{7}"] = json!(1);
        v["provenance"] = json!(1);
        let named = typed(&v).newer_fields();
        assert_eq!(
            named,
            ["(a value not shown, as it holds a GitHub token)", "provenance", "x\\u{1b}]0;PWNED\\u{7}"]
        );
    }

    #[test]
    fn a_decision_names_no_tick_field_and_a_tick_names_each_it_carries() {
        let decision: Value =
            serde_json::from_str(include_str!("../../fixtures/seed/decision.json")).unwrap();
        assert!(typed(&decision).tick_fields_claimed().is_empty());
        let mut filled = decision.clone();
        filled["mutation"] = json!({ "caught": 1, "missed": 0 });
        filled["strength"] = json!({ "combined": { "share": 1 } });
        assert_eq!(typed(&filled).tick_fields_claimed(), ["mutation", "strength"]);
        let all =
            "spec trace integrity monitor sandbox executor decisions instructions regression collection";
        assert_eq!(typed(&tick()).tick_fields_claimed(), all.split_whitespace().collect::<Vec<_>>());
    }

    #[test]
    fn a_tick_field_that_is_null_in_a_decision_claims_nothing() {
        let mut decision: Value =
            serde_json::from_str(include_str!("../../fixtures/seed/decision.json")).unwrap();
        for field in ["mutation", "model", "run", "strength", "sandbox", "trace", "monitor", "spec", "red"] {
            decision[field] = Value::Null;
        }
        assert!(typed(&decision).tick_fields_claimed().is_empty());
    }

    #[test]
    fn a_missing_required_field_does_not_parse() {
        for field in ["tree", "verdict", "unit", "task", "policy_sha256", "time"] {
            let mut v = tick();
            v.as_object_mut().unwrap().remove(field);
            assert!(serde_json::from_value::<TaskVerificationV0>(v).is_err(), "{field}");
        }
    }

    #[test]
    fn verdicts_read_back_their_wire_spelling() {
        for v in [Verdict::Verified, Verdict::RegressionOnly, Verdict::Attested, Verdict::Skipped] {
            assert_eq!(Verdict::parse(v.as_str()), Some(v));
            assert_eq!(serde_json::to_value(v).unwrap(), json!(v.as_str()));
        }
        assert_eq!(Verdict::parse("Verified"), None);
    }
}
