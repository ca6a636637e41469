//! The policy hash: sha256 of the canonical JSON of the judge sections of `speccoder.toml`.
//!
//! The sections are `checks`, `acceptance`, `tests`, `mutation`, `monitor`, `sandbox`, `executor`,
//! `model.provider`, `model.model` and `attest.signer`, each an entry of one flat object keyed by
//! those names (absent: `null`). Comments, formatting, key order and unrelated keys do not change
//! it. The tool's own version is deliberately not part of it, so an upgrade never invalidates old
//! ticks; the version goes into the summary's `verifier.version`.

use serde_json::{Map, Number, Value};

use super::canonical::value_to_canonical;
use super::digest::sha256_hex;

/// The project configuration file, read at the task commit's parent.
pub const CONFIG_FILE: &str = "speccoder.toml";

/// The judge sections, as dotted paths into the TOML document.
pub const JUDGE_SECTIONS: [&str; 10] = [
    "checks",
    "acceptance",
    "tests",
    "mutation",
    "monitor",
    "sandbox",
    "executor",
    "model.provider",
    "model.model",
    "attest.signer",
];

/// `speccoder.toml` could not be read as TOML.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("speccoder.toml is not valid TOML: {0}")]
pub struct PolicyError(pub String);

/// The judge configuration as one JSON object (the thing that is hashed).
///
/// # Errors
/// When the text is not TOML.
pub fn judge_config(toml_text: Option<&str>) -> Result<Value, PolicyError> {
    let doc: toml::Table = match toml_text {
        Some(text) => text.parse().map_err(|e: toml::de::Error| PolicyError(e.to_string()))?,
        None => toml::Table::new(),
    };
    let mut out = Map::new();
    for path in JUDGE_SECTIONS {
        let mut node: Option<&toml::Value> = None;
        for (i, part) in path.split('.').enumerate() {
            node = if i == 0 { doc.get(part) } else { node.and_then(|n| n.get(part)) };
        }
        out.insert(path.to_owned(), node.map_or(Value::Null, toml_to_json));
    }
    Ok(Value::Object(out))
}

/// sha256 of the canonical judge configuration; `None` text means the file is absent.
///
/// # Errors
/// When the text is not TOML.
pub fn policy_sha256(toml_text: Option<&str>) -> Result<String, PolicyError> {
    Ok(sha256_hex(value_to_canonical(&judge_config(toml_text)?)))
}

/// TOML to JSON. Dates and times become their RFC 3339 text; a float that JSON cannot hold
/// (NaN, infinity) becomes its TOML spelling as a string.
fn toml_to_json(v: &toml::Value) -> Value {
    match v {
        toml::Value::String(s) => Value::String(s.clone()),
        toml::Value::Integer(i) => Value::Number((*i).into()),
        toml::Value::Float(f) => {
            Number::from_f64(*f).map_or_else(|| Value::String(f.to_string()), Value::Number)
        }
        toml::Value::Boolean(b) => Value::Bool(*b),
        toml::Value::Datetime(d) => Value::String(d.to_string()),
        toml::Value::Array(items) => Value::Array(items.iter().map(toml_to_json).collect()),
        toml::Value::Table(t) => Value::Object(t.iter().map(|(k, v)| (k.clone(), toml_to_json(v))).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_formatting_order_and_unrelated_keys_do_not_change_the_hash() {
        let a = "[tests]\ncommand = \"cargo test\"\ntimeout = 60\n[model]\nprovider = \"x\"\n";
        let b = "# judge\n[model]\nprovider='x'\nname_unrelated = 1\n\n[tests]\ntimeout=60\ncommand =   \"cargo test\" # c\n[ui]\ncolor = true\n";
        assert_eq!(policy_sha256(Some(a)).unwrap(), policy_sha256(Some(b)).unwrap());
    }

    #[test]
    fn a_judge_value_changes_the_hash() {
        let a = policy_sha256(Some("[tests]\ntimeout = 60\n")).unwrap();
        let b = policy_sha256(Some("[tests]\ntimeout = 61\n")).unwrap();
        let c = policy_sha256(Some("[attest]\nsigner = \"ssh\"\n")).unwrap();
        assert_ne!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn an_absent_file_hashes_every_section_as_null() {
        let expected = "{\"acceptance\":null,\"attest.signer\":null,\"checks\":null,\"executor\":null,\"model.model\":null,\"model.provider\":null,\"monitor\":null,\"mutation\":null,\"sandbox\":null,\"tests\":null}";
        assert_eq!(policy_sha256(None).unwrap(), sha256_hex(expected));
        assert_eq!(policy_sha256(Some("")).unwrap(), sha256_hex(expected));
    }

    #[test]
    fn dates_and_odd_floats_hash_without_error() {
        assert!(policy_sha256(Some("[checks]\nsince = 1979-05-27T07:32:00Z\nx = nan\n")).is_ok());
    }

    #[test]
    fn invalid_toml_is_an_error() {
        assert!(policy_sha256(Some("[tests\n")).is_err());
    }
}
