//! The real fetch of the public-good trusted root through Sigstore's TUF repository. Runs where
//! tuf-repo-cdn.sigstore.dev is reachable; otherwise it prints why it is skipped and passes without
//! claiming a fetch.
#![cfg(feature = "sigstore")]

use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use serde_json::Value;
use speccoder_attest::model::digest::sha256_hex;
use speccoder_attest::sign::sigstore::{PUBLIC_TUF_URL, TrustedRoot, fetch_public_good, refresh};

/// Says why the test is skipped, on the real stderr so that it shows without `--nocapture`
/// (libtest captures only the print macros).
fn skipped(reason: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "SKIPPED: {reason}");
}

/// Whether the TUF repository's host takes a TCP connection; why not, when it does not.
fn reachable() -> Result<(), String> {
    let host = "tuf-repo-cdn.sigstore.dev";
    let addrs = (host, 443).to_socket_addrs().map_err(|e| format!("cannot resolve {host}: {e}"))?;
    let mut last = format!("{host} has no address");
    for addr in addrs {
        match TcpStream::connect_timeout(&addr, Duration::from_secs(10)) {
            Ok(_) => return Ok(()),
            Err(e) => last = format!("cannot connect to {addr}: {e}"),
        }
    }
    Err(last)
}

/// The `field` strings of the objects in the list `list` of `root`.
fn strings<'a>(root: &'a Value, list: &str, field: &str) -> Vec<&'a str> {
    root[list].as_array().map_or_else(Vec::new, |a| a.iter().filter_map(|v| v[field].as_str()).collect())
}

#[test]
fn the_public_good_root_is_fetched_through_tuf_parses_and_is_cached() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("speccoder/sigstore/trusted_root.json");
    let refreshed = match refresh(&cache, &fetch_public_good) {
        Ok(r) => r,
        Err(failure) => {
            let reason = failure;
            if let Err(why) = reachable() {
                skipped(&format!(
                    "{PUBLIC_TUF_URL} cannot be reached from here ({why}); the fetch said: {reason}"
                ));
                return;
            }
            panic!("the TUF fetch failed although {PUBLIC_TUF_URL} is reachable: {reason}");
        }
    };
    assert_eq!(refreshed.path, cache);
    let bytes = std::fs::read(&cache).expect("the fetched root is cached");
    assert_eq!(refreshed.sha256, sha256_hex(&bytes));
    TrustedRoot::from_file(&cache).unwrap_or_else(|e| panic!("the fetched root parses: {e}"));
    let json: Value = serde_json::from_slice(&bytes).unwrap();
    let cas = strings(&json, "certificateAuthorities", "uri");
    assert!(cas.iter().any(|u| u.contains("fulcio")), "a Fulcio CA: {cas:?}");
    let logs = strings(&json, "tlogs", "baseUrl");
    assert!(logs.iter().any(|u| u.contains("rekor")), "a Rekor log: {logs:?}");
    let left: Vec<_> =
        std::fs::read_dir(cache.parent().unwrap()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left, ["trusted_root.json"], "nothing but the cache is left in its directory");
}
