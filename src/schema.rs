//! The JSON Schemas generated from our wire types: the open specification's predicate, the
//! evidence file, the held-out manifest, the three statement shapes a bundle holds, and the
//! verifier policy (a TOML file, described as the JSON it reads as).
//! `speccoder schema` writes them to `schema/`; `speccoder schema --check` fails when a committed
//! file differs from what the types generate, so the published schemas can never drift from the
//! code.

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::Value;

use crate::model::evidence::Evidence;
use crate::model::held_out::HeldOutManifest;
use crate::model::predicate::{self, TaskVerificationV0};
use crate::model::statement::{STATEMENT_TYPE, Statement};
use crate::model::summary::{self, VerificationSummary};
use crate::model::test_result::{self, TestResult};
use crate::model::verifier_policy::VerifierPolicy;

/// Where the published schemas say they live.
pub const ID_BASE: &str = "https://speccoder.dev/schema/";

/// One generated schema: its file name and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaFile {
    /// The file name under `schema/`.
    pub name: &'static str,
    /// Pretty JSON with a final newline.
    pub text: String,
}

/// Every schema we publish, in a stable order.
#[must_use]
pub fn all() -> Vec<SchemaFile> {
    vec![
        file("task-verification-v0.schema.json", plain::<TaskVerificationV0>()),
        file("evidence.schema.json", plain::<Evidence>()),
        file("held-out-manifest.schema.json", plain::<HeldOutManifest>()),
        file("statement-task-verification.schema.json", statement::<TaskVerificationV0>(predicate::TYPE)),
        file("statement-test-result.schema.json", statement::<TestResult>(test_result::TYPE)),
        file("statement-verification-summary.schema.json", statement::<VerificationSummary>(summary::TYPE)),
        file("verifier-policy.schema.json", plain::<VerifierPolicy>()),
    ]
}

/// The schema of the statement kind with predicate type `predicate_type`, as a JSON value (for
/// validating what we write).
#[must_use]
pub fn statement_schema_for(predicate_type: &str) -> Option<Value> {
    let name = match predicate_type {
        predicate::TYPE => "statement-task-verification.schema.json",
        test_result::TYPE => "statement-test-result.schema.json",
        summary::TYPE => "statement-verification-summary.schema.json",
        _ => return None,
    };
    all().into_iter().find(|f| f.name == name).and_then(|f| serde_json::from_str(&f.text).ok())
}

fn generator() -> SchemaGenerator {
    schemars::generate::SchemaSettings::draft2020_12().into_generator()
}

fn plain<T: JsonSchema>() -> Schema {
    generator().into_root_schema_for::<T>()
}

/// A statement schema with `_type` and `predicateType` pinned to their constants.
fn statement<P: JsonSchema>(predicate_type: &str) -> Schema {
    let mut schema = generator().into_root_schema_for::<Statement<P>>();
    if let Some(props) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        props.insert("_type".into(), serde_json::json!({ "const": STATEMENT_TYPE }));
        props.insert("predicateType".into(), serde_json::json!({ "const": predicate_type }));
    }
    let short = predicate_type.rsplit('/').nth(1).unwrap_or("statement");
    schema.insert("title".into(), Value::String(format!("in-toto Statement v1 with a {short} predicate")));
    schema
}

fn file(name: &'static str, mut schema: Schema) -> SchemaFile {
    schema.insert("$id".into(), Value::String(format!("{ID_BASE}{name}")));
    let mut text = serde_json::to_string_pretty(schema.as_value()).unwrap_or_default();
    text.push('\n');
    SchemaFile { name, text }
}

/// The validator of the generated schema `name` (`evidence.schema.json`), for the tests that hold
/// a schema and the rules it states to one list of cases.
#[cfg(test)]
pub(crate) fn validator(name: &str) -> jsonschema::Validator {
    let file = all().into_iter().find(|f| f.name == name).unwrap();
    jsonschema::validator_for(&serde_json::from_str(&file.text).unwrap()).unwrap()
}
