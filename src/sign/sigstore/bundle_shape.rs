//! What the Sigstore bundle format forbids, refused before the bundle is parsed: the rules of
//! protobuf-specs' `bundle.proto` that a lenient JSON reader lets through, as sigstore-python (the
//! pinned peer) applies them. A known media type; the verification material its version allows
//! (v0.3: `certificate` or `publicKey`; v0.1 and v0.2: a non-empty `x509CertificateChain` or
//! `publicKey`), exactly one of them; exactly one of `messageSignature` and `dsseEnvelope` (a
//! protobuf `oneof`); exactly one transparency log entry, carrying an inclusion proof with its
//! checkpoint whatever the version (sigstore-python's own rule for every log entry: a v0.1 entry's
//! inclusion promise alone is the log's word that it will include the entry, not a proof that it did).

use serde_json::Value;

/// The media types of the bundle versions, as `bundle.proto` names them.
const V01: &str = "application/vnd.dev.sigstore.bundle+json;version=0.1";
const V02: &str = "application/vnd.dev.sigstore.bundle+json;version=0.2";
const V03: [&str; 2] =
    ["application/vnd.dev.sigstore.bundle.v0.3+json", "application/vnd.dev.sigstore.bundle+json;version=0.3"];

/// Why the bundle's shape is one the format forbids, or `Ok`.
///
/// # Errors
/// The first rule broken, in words.
pub(crate) fn check(bundle: &Value) -> Result<(), String> {
    let media = bundle.get("mediaType").and_then(Value::as_str).unwrap_or("");
    let v03 = V03.contains(&media);
    if !v03 && media != V01 && media != V02 {
        return Err(format!(
            "`mediaType` {:?} is not a Sigstore bundle version (v0.1 to v0.3)",
            shown(media)
        ));
    }
    let material = bundle.get("verificationMaterial").unwrap_or(&Value::Null);
    let allowed: [&str; 2] =
        if v03 { ["certificate", "publicKey"] } else { ["x509CertificateChain", "publicKey"] };
    let present: Vec<&str> = ["certificate", "x509CertificateChain", "publicKey"]
        .into_iter()
        .filter(|k| material.get(k).is_some_and(|v| !v.is_null()))
        .collect();
    match present.as_slice() {
        [one] if allowed.contains(one) => {}
        [one] => {
            return Err(format!(
                "a {} bundle carries `{one}`; its version allows {}",
                version(v03, media),
                allowed.join(" or ")
            ));
        }
        [] => return Err(format!("`verificationMaterial` holds none of {}", allowed.join(" or "))),
        many => {
            return Err(format!(
                "`verificationMaterial` holds {}; the format allows exactly one",
                many.join(" and ")
            ));
        }
    }
    let chain = material.pointer("/x509CertificateChain/certificates").and_then(Value::as_array);
    if present == ["x509CertificateChain"] && chain.is_none_or(Vec::is_empty) {
        return Err("`x509CertificateChain` holds no certificate".into());
    }
    let content: Vec<&str> = ["messageSignature", "dsseEnvelope"]
        .into_iter()
        .filter(|k| bundle.get(k).is_some_and(|v| !v.is_null()))
        .collect();
    if content.len() != 1 {
        return Err(format!(
            "a bundle holds exactly one of `messageSignature` and `dsseEnvelope`, this one {}",
            if content.is_empty() { "neither".to_owned() } else { "both".to_owned() }
        ));
    }
    let entries = material.get("tlogEntries").and_then(Value::as_array).map_or(0, Vec::len);
    if entries != 1 {
        return Err(format!("`tlogEntries` holds {entries} entries; a bundle holds exactly one"));
    }
    inclusion_proven(material.pointer("/tlogEntries/0").unwrap_or(&Value::Null))
}

/// What a bundle that signs a plain message, not a DSSE envelope, holds: the format's
/// `messageSignature` (without a `dsseEnvelope`), or cosign's older layout (`base64Signature`
/// beside `cert` or `rekorBundle`, no `mediaType`), which `cosign sign-blob --bundle` writes over a
/// blob. `None` for any other bundle, whose shape [`check`] judges.
pub(crate) fn plain_message(bundle: &Value) -> Option<&'static str> {
    let has = |key: &str| bundle.get(key).is_some_and(|v| !v.is_null());
    if has("dsseEnvelope") {
        return None;
    }
    if has("messageSignature") {
        return Some("the bundle format's `messageSignature`");
    }
    let older = !has("mediaType") && has("base64Signature") && (has("cert") || has("rekorBundle"));
    older.then_some("cosign's older bundle layout: `base64Signature`, `cert`, `rekorBundle`")
}

/// Whether the log entry carries an inclusion proof with its checkpoint, or which is missing.
fn inclusion_proven(entry: &Value) -> Result<(), String> {
    fn present(v: Option<&Value>) -> Option<&Value> {
        v.filter(|v| !v.is_null() && v.as_str() != Some(""))
    }
    let Some(proof) = present(entry.get("inclusionProof")) else {
        return Err("the transparency log entry has no `inclusionProof` (an inclusion promise alone does not prove the log included it); a bundle of any version carries the inclusion proof with its checkpoint".into());
    };
    if present(proof.pointer("/checkpoint/envelope")).is_none() {
        return Err("the transparency log entry's `inclusionProof` has no `checkpoint`; a bundle of any version carries the inclusion proof with its checkpoint".into());
    }
    Ok(())
}

/// The version a media type names, for messages.
fn version(v03: bool, media: &str) -> &'static str {
    if v03 {
        "v0.3"
    } else if media == V01 {
        "v0.1"
    } else {
        "v0.2"
    }
}

/// A media type from the bundle, made safe to show and short.
fn shown(text: &str) -> String {
    crate::model::shown::shown(text, 100)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn bundle(media: &str, material: Value) -> Value {
        json!({"mediaType": media, "verificationMaterial": material, "dsseEnvelope": {}})
    }

    /// A log entry as the format requires it (its values are not checked here).
    fn entry() -> Value {
        json!({"inclusionPromise": {}, "inclusionProof": {"checkpoint": {"envelope": "rekor.test\n"}}})
    }

    fn one_entry(mut material: Value) -> Value {
        material["tlogEntries"] = json!([entry()]);
        material
    }

    #[test]
    fn each_version_takes_the_material_it_allows_and_refuses_the_others() {
        let cert = one_entry(json!({"certificate": {"rawBytes": "AA=="}}));
        let chain = one_entry(json!({"x509CertificateChain": {"certificates": [{"rawBytes": "AA=="}]}}));
        assert_eq!(check(&bundle(V03[0], cert.clone())), Ok(()));
        assert_eq!(check(&bundle(V03[1], cert.clone())), Ok(()));
        assert_eq!(check(&bundle(V02, chain.clone())), Ok(()));
        assert_eq!(check(&bundle(V01, chain.clone())), Ok(()));
        for media in [V01, V02] {
            let e = check(&bundle(media, cert.clone())).unwrap_err();
            assert!(e.contains("carries `certificate`"), "{e}");
        }
        assert!(check(&bundle(V03[0], chain)).unwrap_err().contains("x509CertificateChain"));
        let empty = one_entry(json!({"x509CertificateChain": {"certificates": []}}));
        assert!(check(&bundle(V02, empty)).unwrap_err().contains("holds no certificate"));
    }

    #[test]
    fn an_unknown_media_type_both_contents_or_other_than_one_log_entry_is_refused() {
        let cert = one_entry(json!({"certificate": {"rawBytes": "AA=="}}));
        assert!(check(&bundle("application/json", cert.clone())).unwrap_err().contains("mediaType"));
        let mut both = bundle(V03[0], cert.clone());
        both["messageSignature"] = json!({});
        assert!(check(&both).unwrap_err().contains("both"), "{both}");
        let mut two = cert.clone();
        two["tlogEntries"] = json!([entry(), entry()]);
        assert!(check(&bundle(V03[0], two)).unwrap_err().contains("2 entries"));
        let none = json!({"certificate": {"rawBytes": "AA=="}});
        assert!(check(&bundle(V03[0], none)).unwrap_err().contains("0 entries"));
    }

    #[test]
    fn a_plain_message_signature_is_told_in_either_layout_and_a_dsse_bundle_is_not() {
        let cert = one_entry(json!({"certificate": {"rawBytes": "AA=="}}));
        let mut message = json!({"mediaType": V03[0], "verificationMaterial": cert, "messageSignature": {}});
        assert_eq!(plain_message(&message), Some("the bundle format's `messageSignature`"));
        let older = json!({"base64Signature": "AA==", "cert": "AA==", "rekorBundle": {}});
        assert!(plain_message(&older).is_some_and(|said| said.contains("older")), "{older}");
        message["dsseEnvelope"] = json!({});
        assert_eq!(plain_message(&message), None, "both contents: malformed, as `check` says");
        assert_eq!(plain_message(&bundle(V03[0], json!({}))), None);
        assert_eq!(
            plain_message(&json!({"mediaType": "x", "base64Signature": "AA==", "cert": "AA=="})),
            None
        );
    }

    #[test]
    fn a_log_entry_without_an_inclusion_proof_and_its_checkpoint_is_refused_in_every_version() {
        let chain = json!({"x509CertificateChain": {"certificates": [{"rawBytes": "AA=="}]}});
        let cert = json!({"certificate": {"rawBytes": "AA=="}});
        for (media, material) in [(V01, &chain), (V02, &chain), (V03[0], &cert)] {
            let with = |entry: Value| {
                let mut m = material.clone();
                m["tlogEntries"] = json!([entry]);
                check(&bundle(media, m))
            };
            assert_eq!(with(entry()), Ok(()), "{media}");
            let promise_only = with(json!({"inclusionPromise": {"signedEntryTimestamp": "AA=="}}));
            assert!(
                promise_only.as_ref().unwrap_err().contains("no `inclusionProof`"),
                "{media}: {promise_only:?}"
            );
            for proof in
                [json!({"logIndex": "0"}), json!({"checkpoint": {}}), json!({"checkpoint": {"envelope": ""}})]
            {
                let e = with(json!({"inclusionPromise": {}, "inclusionProof": proof})).unwrap_err();
                assert!(e.contains("has no `checkpoint`"), "{media} {proof}: {e}");
            }
        }
    }
}
