//! The shapes the open specification gives a tick's audits, as the published JSON Schemas say
//! them: `trace` an array of rows, `integrity` `{findings: [...]}`, `monitor` `{state, findings}`
//! with a state the specification names, each `null` only outside a tick. The fields stay opaque
//! values in the Rust types (carried as signed); these describe what `check::values` accepts,
//! and its tests hold the two to one list of cases.

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;

/// The gaming monitor's states (`monitor.state`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MonitorState {
    /// Nothing suspicious.
    Clean,
    /// Something looked like gaming the tests.
    Suspected,
    /// Not reviewed.
    Unreviewed,
    /// The monitor did not run.
    Off,
}

impl MonitorState {
    /// Every state, in the specification's order.
    pub const ALL: [MonitorState; 4] =
        [MonitorState::Clean, MonitorState::Suspected, MonitorState::Unreviewed, MonitorState::Off];

    /// The wire spelling.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            MonitorState::Clean => "clean",
            MonitorState::Suspected => "suspected",
            MonitorState::Unreviewed => "unreviewed",
            MonitorState::Off => "off",
        }
    }

    /// Reads the wire spelling.
    #[must_use]
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.as_str() == s)
    }
}

/// `trace`: an array of rows (each any value), or `null`.
#[must_use]
pub fn trace_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": ["array", "null"] })
}

/// `integrity`: an object whose `findings` is an array (each finding any value; other members
/// kept), or `null`.
#[must_use]
pub fn integrity_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": ["object", "null"],
        "required": ["findings"],
        "properties": { "findings": { "type": "array" } }
    })
}

/// `monitor`: an object with a `state` the specification names and, where present, a `findings`
/// array (other members kept), or `null`.
#[must_use]
pub fn monitor_schema(generator: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": ["object", "null"],
        "required": ["state"],
        "properties": {
            "state": generator.subschema_for::<MonitorState>(),
            "findings": { "type": "array" }
        }
    })
}
