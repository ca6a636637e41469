//! The canonical bytes of a statement: JSON with object keys sorted (by their UTF-8 bytes) at every
//! depth, no insignificant whitespace, arrays in order, strings in UTF-8 with only the escapes JSON
//! requires. A DSSE payload is exactly these bytes, and every digest of a statement is taken over
//! them.
//!
//! We sort explicitly instead of relying on `serde_json::Map` being a `BTreeMap`: that depends on
//! the `preserve_order` feature, which any crate in the build can switch on for everyone.

use serde::Serialize;
use serde_json::Value;

/// The canonical bytes of any serialisable value.
///
/// # Errors
/// When the value cannot be represented as JSON (a map with non-string keys, a non-finite float).
pub fn to_canonical<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, serde_json::Error> {
    let value = serde_json::to_value(value)?;
    Ok(value_to_canonical(&value))
}

/// The canonical bytes of a JSON value.
#[must_use]
pub fn value_to_canonical(value: &Value) -> Vec<u8> {
    let mut out = Vec::with_capacity(256);
    write_value(value, &mut out);
    out
}

/// Whether `bytes` are already canonical: parsing them and encoding again gives the same bytes.
#[must_use]
pub fn is_canonical(bytes: &[u8]) -> bool {
    serde_json::from_slice::<Value>(bytes).is_ok_and(|v| value_to_canonical(&v) == bytes)
}

fn write_value(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            out.push(b'{');
            for (i, (key, val)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_scalar(&Value::String(key.clone()), out);
                out.push(b':');
                write_value(val, out);
            }
            out.push(b'}');
        }
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_value(item, out);
            }
            out.push(b']');
        }
        scalar => write_scalar(scalar, out),
    }
}

/// Scalars (strings, numbers, booleans, null) are written by serde_json, which emits UTF-8 as is
/// and escapes only what JSON requires.
fn write_scalar(value: &Value, out: &mut Vec<u8>) {
    // Writing a scalar Value into a Vec cannot fail.
    if serde_json::to_writer(&mut *out, value).is_err() {
        out.extend_from_slice(b"null");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_are_sorted_at_every_depth_without_whitespace() {
        let v = json!({"b": {"z": 1, "a": [ {"y": true, "x": null} ]}, "a": "s"});
        assert_eq!(value_to_canonical(&v), br#"{"a":"s","b":{"a":[{"x":null,"y":true}],"z":1}}"#);
    }

    #[test]
    fn non_ascii_text_is_kept_as_utf8_and_only_required_escapes_are_written() {
        let v = json!({"é": "naïve ✓ \u{1F600}", "q": "a\"b\\c\n\u{1}"});
        let bytes = value_to_canonical(&v);
        assert_eq!(
            String::from_utf8(bytes).unwrap(),
            "{\"q\":\"a\\\"b\\\\c\\n\\u0001\",\"é\":\"naïve ✓ \u{1F600}\"}"
        );
    }

    #[test]
    fn keys_sort_by_bytes_so_uppercase_precedes_lowercase_and_ascii_precedes_accents() {
        let v = json!({"b": 1, "B": 2, "é": 3, "z": 4});
        assert_eq!(value_to_canonical(&v), "{\"B\":2,\"b\":1,\"z\":4,\"é\":3}".as_bytes());
    }

    #[test]
    fn parse_then_encode_is_the_identity_on_canonical_output() {
        let v = json!({"n": [1, -2, 3.5, 1e-7], "s": "x", "o": {}, "a": [], "t": false});
        let once = value_to_canonical(&v);
        assert!(is_canonical(&once));
        let again = value_to_canonical(&serde_json::from_slice(&once).unwrap());
        assert_eq!(once, again);
    }

    #[test]
    fn pretty_or_unsorted_json_is_not_canonical() {
        assert!(!is_canonical(br#"{"b":1,"a":2}"#));
        assert!(!is_canonical(b"{ \"a\": 1 }"));
        assert!(!is_canonical(b"not json"));
    }

    #[test]
    fn serialisable_structs_come_out_sorted_regardless_of_field_order() {
        #[derive(Serialize)]
        struct S {
            zeta: u8,
            alpha: &'static str,
        }
        assert_eq!(to_canonical(&S { zeta: 1, alpha: "x" }).unwrap(), br#"{"alpha":"x","zeta":1}"#);
    }
}
