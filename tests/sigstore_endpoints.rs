//! Where keyless signing sends the identity token: never where the checked-in `speccoder.toml`
//! says, only where the person signing says (flag, environment, git config), and only over
//! https, or plain http to loopback with an explicit flag.
#![cfg(feature = "sigstore")]

mod common;

use std::io::{Read as _, Write as _};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{Evidence, Project, SPECKIT_UNIT};

/// A JWT-shaped identity token (header, claims, signature), as CI would put in the environment.
const TOKEN: &str = "eyJhbGciOiJub25lIn0.eyJpc3MiOiJodHRwczovL2lzc3Vlci50ZXN0Iiwic3ViIjoiYWRhIiwiZW1haWwiOiJhZGFAZXhhbXBsZS5jb20iLCJleHAiOjQxMDI0NDQ4MDB9.c2lnbmF0dXJl";

/// A listener on 127.0.0.1 that records what each connection sends and answers 500, for at most
/// `for_at_most`.
struct Listener {
    url: String,
    received: Arc<Mutex<Vec<String>>>,
}

impl Listener {
    fn start(for_at_most: Duration) -> Listener {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let received = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&received);
        std::thread::spawn(move || {
            let end = Instant::now() + for_at_most;
            while Instant::now() < end {
                match listener.accept() {
                    Ok((mut conn, _)) => {
                        conn.set_nonblocking(false).unwrap();
                        conn.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
                        let request = read_request(&mut conn);
                        log.lock().unwrap().push(String::from_utf8_lossy(&request).into_owned());
                        let _ = conn.write_all(b"HTTP/1.1 500 Internal Server Error\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(20)),
                }
            }
        });
        Listener { url, received }
    }

    fn received(&self) -> Vec<String> {
        self.received.lock().unwrap().clone()
    }
}

/// One HTTP request: its head, and as much body as its content-length says (at most 1 MiB).
fn read_request(conn: &mut std::net::TcpStream) -> Vec<u8> {
    let mut data = Vec::new();
    let mut buf = [0u8; 16 * 1024];
    while data.len() < 1 << 20 {
        let Ok(n) = conn.read(&mut buf) else { break };
        if n == 0 {
            break;
        }
        data.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&data).to_ascii_lowercase();
        if let Some(end) = text.find("\r\n\r\n") {
            let len = text[..end]
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse::<usize>().ok())
                .unwrap_or(0);
            if data.len() >= end + 4 + len {
                break;
            }
        }
    }
    data
}

fn attest(p: &Project, evidence: &std::path::Path, extra: &[&str]) -> common::Run {
    let task = format!("{SPECKIT_UNIT}/T005");
    let mut args =
        vec!["attest", task.as_str(), "--evidence", evidence.to_str().unwrap(), "--signer", "sigstore"];
    args.extend(extra);
    let mut cmd = common::speccoder_command(&p.root, &p.home, &args);
    cmd.env("SIGSTORE_ID_TOKEN", TOKEN);
    common::run(cmd)
}

fn commit_config(p: &Project, toml: &str) {
    p.write("speccoder.toml", toml);
    p.git(&["add", "speccoder.toml"]);
    p.git(&["commit", "-q", "-m", "speccoder.toml"]);
}

#[test]
fn a_checked_in_speccoder_toml_never_chooses_where_the_token_goes() {
    let attacker = Listener::start(Duration::from_secs(60));
    let p = Project::speckit();
    let evidence = common::write_evidence(
        &p.scratch_dir("evidence"),
        &format!("{SPECKIT_UNIT}/T005"),
        Evidence::Verified,
    );
    let url = &attacker.url;
    commit_config(
        &p,
        &format!(
            "[attest]\nsigner = \"sigstore\"\n\n[attest.sigstore]\nidentity = \"ada@example.com\"\nissuer = \"https://issuer.test\"\nfulcio_url = \"{url}\"\nrekor_url = \"{url}\"\noidc_issuer = \"{url}\"\n"
        ),
    );
    let before = p.rev("HEAD");
    let refused = attest(&p, &evidence, &["--sigstore-allow-http-loopback"]).failure(13);
    assert!(refused.stderr.contains("git config --global speccoder.sigstore.fulcioUrl"), "{refused}");
    assert_eq!(p.rev("HEAD"), before, "nothing is committed when refused");

    // Without the old keys, and with the user's git config naming a second listener: the token
    // goes there, and still never to the file's.
    let chosen = Listener::start(Duration::from_secs(60));
    commit_config(
        &p,
        "[attest]\nsigner = \"sigstore\"\n\n[attest.sigstore]\nidentity = \"ada@example.com\"\nissuer = \"https://issuer.test\"\n",
    );
    p.git(&["config", "speccoder.sigstore.fulcioUrl", &chosen.url]);
    p.git(&["config", "speccoder.sigstore.rekorUrl", &chosen.url]);
    let plain = attest(&p, &evidence, &[]).failure(13);
    assert!(plain.stderr.contains("plain http"), "http needs the loopback flag: {plain}");
    let out = attest(&p, &evidence, &["--sigstore-allow-http-loopback", "--json"]).success();
    assert!(out.stdout.contains("signing failed"), "the 500 leaves the lines unsigned: {out}");
    let got = chosen.received();
    assert!(
        got.iter().any(|r| r.starts_with("POST /api/v2/signingCert") && r.contains(TOKEN)),
        "the user's Fulcio received the token: {got:?}"
    );
    assert!(attacker.received().is_empty(), "the file's listener received: {:?}", attacker.received());
}
