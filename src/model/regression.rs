//! Why a tick is `regression_only` (task-verification revision 3).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::dialect::Dialect;

/// The recorded reason a task was closed on regression evidence alone: no red run proved it.
///
/// `code` is open-ended so that a newer runner's codes still read; the codes speccoder writes are
/// `already_passing` (the acceptance tests passed before the change), `no_behaviour` (a refactor,
/// documentation or build task with nothing observable to test) and `untestable` (the behaviour
/// cannot be exercised by the project's test harness).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RegressionReason {
    /// A short reason code, e.g. `already_passing`.
    pub code: String,
    /// The runner's explanation, one line of prose.
    pub detail: String,
}

/// Why a tick is regression-only, as the evidence file records it (no red run proved the task;
/// the codes are open-ended, as in the statement): these members and no other. (A signed
/// statement's `regression` is read tolerantly, as a newer producer may add members.)
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordedRegression {
    /// A short reason code, e.g. `already_passing`.
    pub code: String,
    /// The runner's explanation, one line of prose.
    pub detail: String,
}

impl From<RecordedRegression> for RegressionReason {
    fn from(r: RecordedRegression) -> Self {
        RegressionReason { code: r.code, detail: r.detail }
    }
}

impl From<RecordedRegression> for SignedRegression {
    fn from(r: RecordedRegression) -> Self {
        SignedRegression::Ours(r.into())
    }
}

/// Why a tick is regression-only, as a signed statement records it: in the shape this crate
/// writes (`{code, detail}`), or in the published speccoder's (`{reason, ...}`), which a verifier
/// accepts only in a note under its published recipe ([`super::dialect`]). Each is read with the
/// members it knows and tolerates others, and serialized in its own shape.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum SignedRegression {
    /// This crate's `{code, detail}`.
    Ours(RegressionReason),
    /// The published speccoder's `{reason, ...}`.
    Published(PublishedRegression),
}

/// The published speccoder's reason for a regression-only tick: its name in `reason`
/// (`already_passing`, `no_scenarios`, `planning_work`, ...), with the members some reasons carry
/// (`story`, `detail`, `red_class`) kept as recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PublishedRegression {
    /// The reason's name, as recorded.
    pub reason: String,
    /// The reason's other members, as recorded.
    #[serde(flatten)]
    pub members: BTreeMap<String, Value>,
}

impl SignedRegression {
    /// The value of the `Regression-Only:` trailer that says this reason, before a message
    /// sanitizes it as every trailer value: this crate's `<code>: <detail>` (what `attest`
    /// writes), or the published speccoder's words for its reason ([`PublishedRegression::trailer_value`]).
    #[must_use]
    pub fn trailer_value(&self) -> String {
        match self {
            SignedRegression::Ours(r) => format!("{}: {}", r.code, r.detail),
            SignedRegression::Published(r) => r.trailer_value(),
        }
    }

    /// Whose shape the statement records the reason in.
    #[must_use]
    pub fn dialect(&self) -> Dialect {
        match self {
            SignedRegression::Ours(_) => Dialect::Ours,
            SignedRegression::Published(_) => Dialect::Published,
        }
    }

    /// The reason as recorded: this crate's `code`, or the published speccoder's `reason`.
    #[must_use]
    pub fn code(&self) -> &str {
        match self {
            SignedRegression::Ours(r) => &r.code,
            SignedRegression::Published(r) => &r.reason,
        }
    }
}

impl PublishedRegression {
    /// The reason in the published speccoder's trailer words: its name, then each other member
    /// in the order of their names as ` <member>=<value>` (a string as it is, any other value as
    /// its JSON text), every byte of the value but an ASCII letter, a digit, `-`, `_`, `.` and `~`
    /// written as `%` and two upper-case hex digits. A reason of no member is its name alone.
    #[must_use]
    pub fn trailer_value(&self) -> String {
        let mut out = self.reason.clone();
        for (name, value) in &self.members {
            let text = match value {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            out.push_str(&format!(" {name}="));
            for b in text.bytes() {
                if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
                    out.push(char::from(b));
                } else {
                    out.push_str(&format!("%{b:02X}"));
                }
            }
        }
        out
    }
}

/// The members of a signed `regression` that decide its shape, each kept apart from the others
/// (a member given twice is refused, as a derived reader refuses it); `null` kept apart from
/// absent.
#[derive(Deserialize)]
struct Members {
    #[serde(default, deserialize_with = "present")]
    code: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    detail: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    reason: Option<Value>,
    #[serde(flatten)]
    rest: BTreeMap<String, Value>,
}

/// A member that is present, `null` included.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// `value` as a string member `name`, or the error a derived reader gives.
fn string<E: serde::de::Error>(name: &str, value: Option<Value>) -> Result<String, E> {
    match value {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(E::custom(format!("invalid type for `{name}`: {other}, expected a string"))),
        None => Err(E::custom(format!("missing field `{name}`"))),
    }
}

/// This crate's shape when `code` is there (or neither `code` nor `reason` is: the error then
/// names `code`); the published speccoder's when `reason` is and `code` is not.
impl<'de> Deserialize<'de> for SignedRegression {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let Members { code, detail, reason, mut rest } = Members::deserialize(d)?;
        if code.is_none()
            && let Some(reason) = reason
        {
            if let Some(detail) = detail {
                rest.insert("detail".to_owned(), detail);
            }
            let reason = string::<D::Error>("reason", Some(reason))?;
            return Ok(SignedRegression::Published(PublishedRegression { reason, members: rest }));
        }
        Ok(SignedRegression::Ours(RegressionReason {
            code: string::<D::Error>("code", code)?,
            detail: string::<D::Error>("detail", detail)?,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(v: Value) -> Result<SignedRegression, String> {
        serde_json::from_str(&v.to_string()).map_err(|e| e.to_string())
    }

    #[test]
    fn our_reason_reads_as_ours_with_its_code_and_detail() {
        let r = read(json!({"code": "already_passing", "detail": "d", "only_on": "linux"})).unwrap();
        assert_eq!(
            r,
            SignedRegression::Ours(RegressionReason { code: "already_passing".into(), detail: "d".into() })
        );
        assert_eq!((r.dialect(), r.code()), (Dialect::Ours, "already_passing"));
    }

    #[test]
    fn the_published_speccoders_reason_reads_as_recorded_with_its_members() {
        let r = read(json!({"reason": "no_scenarios", "story": "US1"})).unwrap();
        assert_eq!((r.dialect(), r.code()), (Dialect::Published, "no_scenarios"));
        assert_eq!(serde_json::to_value(&r).unwrap(), json!({"reason": "no_scenarios", "story": "US1"}));
        let r = read(json!({"reason": "author_failed", "detail": "no file"})).unwrap();
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({"reason": "author_failed", "detail": "no file"})
        );
        assert_eq!(read(json!({"reason": "already_passing"})).unwrap().code(), "already_passing");
    }

    #[test]
    fn a_reason_is_said_in_its_writer_s_trailer_words() {
        let said = |v: Value| read(v).unwrap().trailer_value();
        assert_eq!(
            said(json!({"code": "already_passing", "detail": "passed before"})),
            "already_passing: passed before"
        );
        assert_eq!(said(json!({"reason": "already_passing"})), "already_passing");
        assert_eq!(said(json!({"reason": "no_scenarios", "story": "US1"})), "no_scenarios story=US1");
        assert_eq!(
            said(json!({"reason": "not_red", "red_class": "build_error"})),
            "not_red red_class=build_error"
        );
        assert_eq!(
            said(json!({"reason": "author_failed", "detail": "no file: a/b ü"})),
            "author_failed detail=no%20file%3A%20a%2Fb%20%C3%BC"
        );
        assert_eq!(said(json!({"reason": "x", "n": 3, "a": "~y"})), "x a=~y n=3", "members by name");
    }

    #[test]
    fn a_reason_of_neither_shape_or_with_a_member_twice_does_not_read() {
        for (bad, says) in [
            (json!({}).to_string(), "missing field `code`"),
            (json!({"code": "x"}).to_string(), "missing field `detail`"),
            (json!({"code": null, "detail": "d"}).to_string(), "invalid type for `code`"),
            (json!({"reason": 3}).to_string(), "invalid type for `reason`"),
            (r#"{"code":"a","code":"b","detail":"d"}"#.to_owned(), "duplicate field `code`"),
            (r#"{"reason":"a","reason":"b"}"#.to_owned(), "duplicate field `reason`"),
        ] {
            let err = serde_json::from_str::<SignedRegression>(&bad).expect_err(&bad).to_string();
            assert!(err.contains(says), "{bad}: {err}");
        }
    }
}
