//! `speccoder attest approve`, `attest policy init` and `attest policy check`: the commands
//! around the verifier policy.

use speccoder_attest::attest::approve::{ApproveError, ApproveReport, ApproveRequest, approve};
use speccoder_attest::attest::signing::SignerError;
use speccoder_attest::check::trust::{SignatureTrust, TrustFiles};
use speccoder_attest::check::verifier_policy::read_file;
use speccoder_attest::exit::{self, Class, ExitClass};
use speccoder_attest::git::{GitError, Repo};
use speccoder_attest::model::verifier_policy::LoadedPolicy;
use speccoder_attest::verify::VerifyError;
use speccoder_attest::verify::policy::{init, lint};

use crate::cli::{ApproveArgs, PolicyCheckArgs, PolicySub};

pub fn approve_run(args: &ApproveArgs) -> u8 {
    let result = (|| -> Result<ApproveReport, ApproveError> {
        let repo = Repo::discover(".")?;
        let request = ApproveRequest {
            rev: args.rev.clone(),
            trust: super::trust::trust_files(&args.trust),
            signature_time: super::trust::signature_time(&args.trust),
            signing: super::signing::signer_request(&args.run.signing).map_err(SignerError::from)?,
        };
        approve(&repo, &request)
    })();
    super::output::finish("attest approve", args.run.json, result, |_| exit::OK)
}

pub fn run(sub: &PolicySub) -> u8 {
    match sub {
        PolicySub::Init(args) => {
            let result = (|| -> Result<_, Failure> {
                let repo = Repo::discover_to_read(".").map_err(Failure::from)?;
                let files = super::trust::principal_files(&args.trust);
                let trust = load_trust(&repo, &files)?;
                let principals = (!trust.is_empty()).then(|| trust.principals(&files));
                let report = init::init(&repo, args.baseline.as_deref(), principals.as_deref())?;
                for why in &report.left_out {
                    super::output::to_stderr(format_args!("speccoder attest policy init: warning: {why}"));
                }
                Ok(report)
            })();
            super::output::finish("attest policy init", args.json, result, |_| exit::OK)
        }
        PolicySub::Check(args) => check(args),
    }
}

fn check(args: &PolicyCheckArgs) -> u8 {
    let result = (|| -> Result<_, Failure> {
        let repo = Repo::discover_to_read(".").map_err(Failure::from)?;
        let files = super::trust::principal_files(&args.trust);
        let trust = load_trust(&repo, &files)?;
        let name = args.file.display().to_string();
        let bytes = read_file(&args.file).map_err(|e| Failure(Class::Config, e.to_string()))?;
        let policy = LoadedPolicy::read_file(&bytes, &name).map_err(|e| {
            Failure(Class::Config, format!("the verifier policy {e}; see docs/policy.md for the format"))
        })?;
        let known = lint::known_signers(&trust, &files);
        Ok(lint::check(&repo, &policy, &known, trust.openpgp.as_ref(), !trust.is_empty())?)
    })();
    super::output::finish("attest policy check", args.json, result, |_| exit::OK)
}

/// The trust the principals are read from: files from outside HEAD's tree, as every command
/// takes them (no history is checked, so a trust revision is anything that resolves).
fn load_trust(repo: &Repo, files: &TrustFiles) -> Result<SignatureTrust, Failure> {
    SignatureTrust::load_outside_head(repo, files).map_err(|e| Failure(e.class(), e.to_string()))
}

/// A failure of `attest policy`, with its class: the verifier's errors are classed here until
/// they are classed beside their type.
struct Failure(Class, String);

impl ExitClass for Failure {
    fn class(&self) -> Class {
        self.0
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.1)
    }
}

impl From<GitError> for Failure {
    fn from(e: GitError) -> Self {
        Failure(e.class(), e.to_string())
    }
}

impl From<VerifyError> for Failure {
    fn from(e: VerifyError) -> Self {
        Failure(e.class(), e.to_string())
    }
}
