//! The canonical bytes of a statement: JSON with object keys sorted (by their UTF-8 bytes) at every
//! depth, no insignificant whitespace, arrays in order, strings in UTF-8 with only the escapes JSON
//! requires. A DSSE payload is exactly these bytes, and every digest of a statement is taken over
//! them.
//!
//! We sort explicitly instead of relying on `serde_json::Map` being a `BTreeMap`: that depends on
//! the `preserve_order` feature, which any crate in the build can switch on for everyone.

use std::convert::Infallible;

use serde::Serialize;
use serde_json::{Map, Value};

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
    let Ok(()) = write_value::<Infallible>(value, &mut out);
    out
}

/// Whether `bytes` are already canonical: parsing them and encoding again gives the same bytes.
#[must_use]
pub fn is_canonical(bytes: &[u8]) -> bool {
    serde_json::from_slice::<Value>(bytes).is_ok_and(|v| value_to_canonical(&v) == bytes)
}

/// Where [`with_items`] was asked to fill an array the value does not hold empty.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the value holds no empty array at /{path} to write the items into")]
pub struct NoEmptyArray {
    /// The keys from the top, joined by `/`.
    pub path: String,
}

/// The canonical bytes of `value` with `items` in the array it holds empty at `path` (object keys
/// from the top). Each item is encoded as it comes and dropped, so a long array (a summary of every
/// note line of a history) is never held whole as a [`Value`]; the bytes are those
/// [`value_to_canonical`] writes for the value with the items in place.
///
/// # Errors
/// The first error of `items`, or [`NoEmptyArray`] when `value` holds no empty array at `path`.
pub fn with_items<E: From<NoEmptyArray>>(
    value: &Value,
    path: &[&str],
    mut items: impl Iterator<Item = Result<Value, E>>,
) -> Result<Vec<u8>, E> {
    let target = path.iter().try_fold(value, |v, key| v.get(key));
    if !target.and_then(Value::as_array).is_some_and(Vec::is_empty) {
        return Err(NoEmptyArray { path: path.join("/") }.into());
    }
    let mut out = Vec::with_capacity(256);
    write_filled(value, path, &mut items, &mut out)?;
    Ok(out)
}

/// [`write_value`], with the items in the array at the end of `path`.
fn write_filled<E>(
    value: &Value,
    path: &[&str],
    items: &mut dyn Iterator<Item = Result<Value, E>>,
    out: &mut Vec<u8>,
) -> Result<(), E> {
    match (path.split_first(), value) {
        (Some((key, rest)), Value::Object(map)) => write_object(map, out, |name, member, out| {
            if name == *key { write_filled(member, rest, items, out) } else { write_value(member, out) }
        }),
        (None, _) => write_array(items, out),
        // with_items checked the path: nothing else is reached.
        (Some(_), _) => write_value(value, out),
    }
}

fn write_value<E>(value: &Value, out: &mut Vec<u8>) -> Result<(), E> {
    match value {
        Value::Object(map) => write_object(map, out, |_, member, out| write_value(member, out)),
        Value::Array(items) => write_array(items.iter().map(Ok), out),
        scalar => {
            write_scalar(scalar, out);
            Ok(())
        }
    }
}

/// An object, its members in the order of their keys' bytes, each written by `member`.
fn write_object<E>(
    map: &Map<String, Value>,
    out: &mut Vec<u8>,
    mut member: impl FnMut(&str, &Value, &mut Vec<u8>) -> Result<(), E>,
) -> Result<(), E> {
    let mut entries: Vec<(&String, &Value)> = map.iter().collect();
    entries.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    out.push(b'{');
    for (i, (key, val)) in entries.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_scalar(key.as_str(), out);
        out.push(b':');
        member(key, val, out)?;
    }
    out.push(b'}');
    Ok(())
}

/// An array of the items in order.
fn write_array<V: std::borrow::Borrow<Value>, E>(
    items: impl Iterator<Item = Result<V, E>>,
    out: &mut Vec<u8>,
) -> Result<(), E> {
    out.push(b'[');
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_value(item?.borrow(), out)?;
    }
    out.push(b']');
    Ok(())
}

/// Scalars (strings, numbers, booleans, null) are written by serde_json, which emits UTF-8 as is
/// and escapes only what JSON requires.
fn write_scalar<S: Serialize + ?Sized>(value: &S, out: &mut Vec<u8>) {
    // Writing a string or a scalar Value into a Vec cannot fail.
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

    #[test]
    fn items_written_into_an_empty_array_give_the_bytes_of_the_whole_value() {
        let items = || (0..3).map(|i| json!({"name": format!("n{i}"), "digest": {"sha256": "ab"}}));
        let whole = json!({"z": 1, "p": {"list": items().collect::<Vec<_>>(), "b": [], "a": "é"}});
        let empty = json!({"z": 1, "p": {"list": [], "b": [], "a": "é"}});
        let filled = with_items::<NoEmptyArray>(&empty, &["p", "list"], items().map(Ok)).unwrap();
        assert_eq!(filled, value_to_canonical(&whole));
        let none = with_items::<NoEmptyArray>(&empty, &["p", "list"], std::iter::empty()).unwrap();
        assert_eq!(none, value_to_canonical(&empty));
    }

    #[test]
    fn items_are_refused_where_the_value_holds_no_empty_array_and_an_item_s_error_ends_the_encoding() {
        let v = json!({"p": {"list": [1], "s": "x"}});
        for path in [&["p", "list"][..], &["p", "s"], &["p", "missing"], &["p", "s", "deeper"]] {
            let err = with_items::<NoEmptyArray>(&v, path, std::iter::empty()).unwrap_err();
            assert_eq!(err.path, path.join("/"));
        }
        #[derive(Debug, PartialEq)]
        enum E {
            Item,
            Layout,
        }
        impl From<NoEmptyArray> for E {
            fn from(_: NoEmptyArray) -> Self {
                E::Layout
            }
        }
        let empty = json!({"list": []});
        let items = [Ok(json!(1)), Err(E::Item), Ok(json!(3))].into_iter();
        assert_eq!(with_items(&empty, &["list"], items).unwrap_err(), E::Item);
    }
}
