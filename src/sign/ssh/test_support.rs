//! Test helpers around the real OpenSSH tools: keys made by `ssh-keygen` in temporary
//! directories, signatures and verdicts from `ssh-keygen -Y`, and a private `ssh-agent`.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs `ssh-keygen` with `args`, stdin from `stdin` (or empty).
pub fn ssh_keygen(args: &[&str], stdin: Option<&Path>) -> Output {
    let input = match stdin {
        Some(p) => Stdio::from(std::fs::File::open(p).expect("stdin file opens")),
        None => Stdio::null(),
    };
    Command::new("ssh-keygen")
        .args(args)
        .stdin(input)
        .env_remove("SSH_AUTH_SOCK")
        .output()
        .expect("ssh-keygen runs (OpenSSH must be installed for these tests)")
}

/// Generates `dir/name` (+ `.pub`) of `kind` (`ed25519`, `ecdsa`, `rsa`) with `passphrase`.
pub fn keygen_with(dir: &Path, name: &str, kind: &str, passphrase: &str) -> PathBuf {
    let path = dir.join(name);
    let mut args = vec!["-q", "-t", kind, "-N", passphrase, "-C", name, "-f"];
    let p = path.to_str().expect("utf-8 temp path");
    args.push(p);
    if kind == "ecdsa" {
        args.extend(["-b", "256"]);
    }
    if kind == "rsa" {
        args.extend(["-b", "2048"]);
    }
    let out = ssh_keygen(&args, None);
    assert!(out.status.success(), "ssh-keygen -t {kind}: {}", String::from_utf8_lossy(&out.stderr));
    path
}

/// Generates an unencrypted key `dir/name` of `kind`.
pub fn keygen(dir: &Path, name: &str, kind: &str) -> PathBuf {
    keygen_with(dir, name, kind, "")
}

/// The `.pub` line of a key made by [`keygen`].
pub fn public_line(key: &Path) -> String {
    let mut p = key.as_os_str().to_owned();
    p.push(".pub");
    std::fs::read_to_string(PathBuf::from(p)).expect("public key file").trim().to_owned()
}

/// Signs `data` with `ssh-keygen -Y sign -n namespace -f key` and returns the armored signature.
pub fn tool_sign(dir: &Path, key: &Path, namespace: &str, data: &[u8]) -> Vec<u8> {
    let file = tempfile::NamedTempFile::new_in(dir).expect("temp file");
    std::fs::write(file.path(), data).expect("write data");
    let out = ssh_keygen(
        &[
            "-Y",
            "sign",
            "-n",
            namespace,
            "-f",
            key.to_str().expect("utf-8"),
            file.path().to_str().expect("utf-8"),
        ],
        None,
    );
    assert!(out.status.success(), "ssh-keygen -Y sign: {}", String::from_utf8_lossy(&out.stderr));
    let mut sig = file.path().as_os_str().to_owned();
    sig.push(".sig");
    let bytes = std::fs::read(&sig).expect("signature file");
    std::fs::remove_file(&sig).expect("remove signature file");
    bytes
}

/// `ssh-keygen -s ca -I id -n principals [extra] key.pub`; returns the certificate's path.
pub fn certify(ca: &Path, key: &Path, id: &str, principals: &str, extra: &[&str]) -> PathBuf {
    let s = |p: &Path| p.to_str().expect("utf-8 temp path").to_owned();
    let (ca, public) = (s(ca), format!("{}.pub", s(key)));
    let mut args = vec!["-q", "-s", &ca, "-I", id, "-n", principals];
    args.extend(extra);
    args.push(&public);
    let out = ssh_keygen(&args, None);
    assert!(out.status.success(), "ssh-keygen -s: {}", String::from_utf8_lossy(&out.stderr));
    PathBuf::from(format!("{}-cert.pub", s(key)))
}

/// Whether `ssh-keygen -Y verify` accepts `sig` over `data` for `principal` in `namespace`.
pub fn tool_verifies(
    dir: &Path,
    allowed_signers: &str,
    principal: &str,
    namespace: &str,
    sig: &[u8],
    data: &[u8],
) -> bool {
    let allowed = dir.join("tool-allowed-signers");
    let sig_file = dir.join("tool-signature");
    let data_file = dir.join("tool-data");
    std::fs::write(&allowed, allowed_signers).expect("write allowed signers");
    std::fs::write(&sig_file, sig).expect("write signature");
    std::fs::write(&data_file, data).expect("write data");
    let path = |p: &Path| p.to_str().expect("utf-8").to_owned();
    let out = ssh_keygen(
        &["-Y", "verify", "-f", &path(&allowed), "-I", principal, "-n", namespace, "-s", &path(&sig_file)],
        Some(&data_file),
    );
    out.status.success()
}

/// A private `ssh-agent` listening in a temporary directory; killed when dropped.
pub struct Agent {
    child: Child,
    /// The agent's socket, for `SSH_AUTH_SOCK`.
    pub socket: PathBuf,
}

impl Agent {
    /// Starts `ssh-agent -D -a <dir>/agent.sock` and waits until its socket accepts a
    /// connection (the file appears when the agent binds it, a moment before it listens).
    pub fn start(dir: &Path) -> Self {
        let socket = dir.join("agent.sock");
        let child = Command::new("ssh-agent")
            .arg("-D")
            .arg("-a")
            .arg(&socket)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("ssh-agent starts (OpenSSH must be installed for these tests)");
        let agent = Self { child, socket };
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::os::unix::net::UnixStream::connect(&agent.socket).is_err() {
            assert!(Instant::now() < deadline, "ssh-agent did not listen on its socket");
            std::thread::sleep(Duration::from_millis(20));
        }
        agent
    }

    /// `ssh-add key` into this agent.
    pub fn add(&self, key: &Path) {
        let out = Command::new("ssh-add")
            .arg(key)
            .env("SSH_AUTH_SOCK", &self.socket)
            .stdin(Stdio::null())
            .output()
            .expect("ssh-add runs");
        assert!(out.status.success(), "ssh-add: {}", String::from_utf8_lossy(&out.stderr));
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        // Only the agent this test started, by its own handle.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
