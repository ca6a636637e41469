//! Remotes, through the `git` program: listing, fetching and pushing references, and fetching the
//! objects a partial clone lacks from its promisor remote in one batch. gix does neither here
//! (it has no push, and it does not fetch missing objects lazily), and going through git means
//! the user's credential helpers, SSH configuration and HTTPS settings apply unchanged.

use gix::ObjectId;
use gix::bstr::{BStr, ByteSlice};

use super::config::git_key;
use super::error::GitError;
use super::ref_name::BranchName;
use super::refs::full_name;
use super::repo::Repo;
use crate::model::shown::{bytes_shown, shell_bytes_word, shell_word, shown};

/// Which way a remote is used: git chooses the remote to push to by `branch.<name>.pushRemote`
/// and `remote.pushDefault` first, and the one to fetch from by `branch.<name>.remote` alone.
pub use gix::remote::Direction;

/// What `git push` without a refspec pushes (`push.default`).
pub use gix::push::Default as PushDefault;

/// One reference as `git push --porcelain` reported it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushedRef {
    /// The local reference (empty for a deletion).
    pub src: String,
    /// The remote reference.
    pub dst: String,
    /// What happened: `new`, `updated`, `up to date`, `rejected`, ...
    pub status: PushStatus,
    /// git's summary (`abc..def`, `[new reference]`, `[rejected]`).
    pub summary: String,
    /// git's reason, when it gave one (`fetch first`, `non-fast-forward`, `atomic push failed`).
    pub reason: Option<String>,
}

/// One reference of a remote, as `git ls-remote --symref` listed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteRef {
    /// Its full name.
    pub name: String,
    /// The object it leads to.
    pub id: ObjectId,
    /// The reference it names, when it is a symbolic reference: a push to it moves that one.
    pub symbolic: Option<String>,
}

/// What happened to one reference of a push.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PushStatus {
    /// Created on the remote.
    New,
    /// Moved forward on the remote.
    Updated,
    /// The remote had it already.
    UpToDate,
    /// Refused (by git before sending, or by the remote).
    Rejected,
    /// Anything else git reported (a forced update or a deletion, which speccoder never asks for).
    Other,
}

impl PushStatus {
    /// How the status reads.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            PushStatus::New => "new",
            PushStatus::Updated => "updated",
            PushStatus::UpToDate => "up to date",
            PushStatus::Rejected => "rejected",
            PushStatus::Other => "other",
        }
    }
}

/// What one `git push --porcelain` did.
#[derive(Debug, Clone)]
pub struct PushOutput {
    /// Whether git reported success.
    pub ok: bool,
    /// Every reference it reported.
    pub refs: Vec<PushedRef>,
    /// What git printed on stderr.
    pub stderr: String,
    /// What the remote said (git's `remote:` lines, [`remote_said`]): a hook's explanation of
    /// a refusal.
    pub remote_said: Vec<String>,
}

/// How many of the remote's lines a push keeps ([`remote_said`]), and how many characters of each.
const REMOTE_SAID_LINES: usize = 20;
const REMOTE_SAID_CHARS: usize = 200;

/// The lines git printed as the remote's (`remote: …`), which the remote chose: each made inert
/// (control, line-breaking and hidden characters escaped, a bidi control among them, as
/// [`shown`] escapes them), cut at 200 characters, at most [`REMOTE_SAID_LINES`] of them, then a
/// line saying how many more there were.
#[must_use]
fn remote_said(stderr: &str) -> Vec<String> {
    let said = stderr.split(['\n', '\r']).filter_map(|line| line.strip_prefix("remote:"));
    let said: Vec<&str> = said.map(|line| line.strip_prefix(' ').unwrap_or(line).trim_end()).collect();
    let said: Vec<&str> = said.into_iter().filter(|line| !line.is_empty()).collect();
    let mut kept: Vec<String> =
        said.iter().take(REMOTE_SAID_LINES).map(|line| shown(line, REMOTE_SAID_CHARS)).collect();
    if let Some(more) = said.len().checked_sub(REMOTE_SAID_LINES).filter(|more| *more > 0) {
        kept.push(format!("… ({more} more lines)"));
    }
    kept
}

impl Repo {
    /// The names of the configured remotes, sorted. A name that is not UTF-8 is left out: it is
    /// run through git and built into reference names as text, and a text with U+FFFD in place
    /// of its bytes names another remote; such a remote is one not configured.
    pub fn remote_names(&self) -> Vec<String> {
        let names = self.inner.remote_names().into_iter();
        names.filter_map(|name| name.to_str().ok().map(str::to_owned)).collect()
    }

    /// `name` when it is a configured remote, else [`GitError::UnknownRemote`]. Only configured
    /// names are run through git, so nothing given on the command line reaches it as an option
    /// or a URL. A configured name that no reference name can hold, or that git reads as an
    /// option, is [`GitError::RemoteNameUnusable`]: the name goes into reference names
    /// (`refs/notes/remotes/<name>/...`).
    pub fn require_remote(&self, name: &str) -> Result<String, GitError> {
        if !self.remote_names().iter().any(|r| r == name) {
            return Err(GitError::UnknownRemote { name: name.to_owned() });
        }
        if name.starts_with('-') || full_name(&format!("refs/remotes/{name}/x")).is_err() {
            return Err(GitError::RemoteNameUnusable { name: name.to_owned() });
        }
        Ok(name.to_owned())
    }

    /// The remote branch `branch` (full name) merges from `remote` (`branch.<name>.merge`, when
    /// `branch.<name>.remote` is `remote`, byte for byte); `None` when its upstream is elsewhere or
    /// it has none.
    ///
    /// # Errors
    /// [`GitError::RefNameNotUtf8`] for a remote branch whose name is not UTF-8: it would be
    /// pushed to by name; [`GitError::ConfigWithoutValue`].
    pub fn upstream_on(&self, branch: &str, remote: &str) -> Result<Option<String>, GitError> {
        let Ok(full) = full_name(branch) else { return Ok(None) };
        let configured = self.config_value_at("branch", Some(full.as_ref().shorten()), "remote")?;
        if configured.as_ref().map(|name| name.as_slice()) != Some(remote.as_bytes()) {
            return Ok(None);
        }
        let merge = self.inner.branch_remote_ref_name(full.as_ref(), gix::remote::Direction::Fetch);
        merge
            .and_then(Result::ok)
            .map(|name| {
                name.as_bstr().to_str().map(str::to_owned).map_err(|_| GitError::RefNameNotUtf8 {
                    what: "HEAD's upstream branch (`branch.<name>.merge`)",
                    name: bytes_shown(name.as_bstr()),
                    remedy: "set the branch's upstream again (`git branch --set-upstream-to <remote>/<branch>`), then run the command again".to_owned(),
                })
            })
            .transpose()
    }

    /// The remote the configuration of `branch` (short name, its bytes) chooses for `direction`,
    /// as git chooses it: to push, `branch.<name>.pushRemote`, else `remote.pushDefault`, else
    /// (and to fetch) `branch.<name>.remote`; `None` when none is set. The first one set is the
    /// one: one that cannot be taken is refused, never passed over for the next.
    ///
    /// # Errors
    /// [`GitError::RemoteNameNotUtf8`] naming the key and the name; [`GitError::ConfigWithoutValue`].
    fn configured_remote(&self, branch: &BStr, direction: Direction) -> Result<Option<String>, GitError> {
        let push: &[(&str, Option<&BStr>, &str)] =
            &[("branch", Some(branch), "pushRemote"), ("remote", None, "pushDefault")];
        let fetch = ("branch", Some(branch), "remote");
        let keys = if direction == Direction::Push { push } else { &[] };
        for &(section, subsection, name) in keys.iter().chain([&fetch]) {
            let Some(value) = self.config_value_at(section, subsection, name)? else { continue };
            return match value.to_str() {
                Ok(remote) => Ok(Some(remote.to_owned())),
                Err(_) => Err(GitError::RemoteNameNotUtf8 {
                    key: git_key(section, subsection, name),
                    name: bytes_shown(&value),
                    word: shell_bytes_word(&value),
                }),
            };
        }
        Ok(None)
    }

    /// `push.default` as git reads it (unset: `simple`, git's default), parsed by gix.
    ///
    /// # Errors
    /// [`GitError::BadConfig`] for a value git does not accept.
    pub fn push_default(&self) -> Result<PushDefault, GitError> {
        use gix::config::tree::Push;
        let Some(value) = self.inner.config_snapshot().string(Push::DEFAULT) else {
            return Ok(PushDefault::default());
        };
        Push::DEFAULT.try_into_default(value.as_bstr()).map_err(|_| GitError::BadConfig {
            key: "push.default",
            value: value.to_str_lossy().into_owned(),
            expected: "nothing, current, upstream, tracking, simple or matching",
        })
    }

    /// The remote to use when none is named, as git chooses it for `direction`: to push,
    /// `branch.<name>.pushRemote`, else `remote.pushDefault`, else the branch's upstream remote;
    /// to fetch, the upstream remote (each only when it is a configured remote); else `origin`,
    /// else the only remote there is.
    /// The branch is looked up by its exact name, whatever bytes it holds.
    ///
    /// # Errors
    /// [`GitError::RemoteNameNotUtf8`] for a configured remote whose name is not UTF-8, never
    /// passed over for another; [`GitError::ConfigWithoutValue`]; [`GitError::UnknownRemote`]
    /// when none is left; [`GitError::RemoteNameUnusable`].
    pub fn default_remote(
        &self,
        branch: Option<&BranchName>,
        direction: Direction,
    ) -> Result<String, GitError> {
        let names = self.remote_names();
        let configured = match branch {
            Some(b) => self.configured_remote(b.as_ref().shorten(), direction)?,
            None => None,
        };
        if let Some(remote) = configured.filter(|remote| names.contains(remote)) {
            return self.require_remote(&remote);
        }
        match names.as_slice() {
            _ if names.iter().any(|n| n == "origin") => self.require_remote("origin"),
            [only] => self.require_remote(only),
            _ => Err(GitError::UnknownRemote { name: "origin".into() }),
        }
    }

    /// The references of `remote` whose names are `exact` or start with `prefix`, as
    /// `git ls-remote --symref` lists them, sorted by name: each with the object it leads to and,
    /// for a symbolic reference, the reference it names. git is asked in protocol version 2, the
    /// only one that says which references other than `HEAD` are symbolic (a remote that does not
    /// speak it answers in version 0, which does not say).
    pub fn ls_remote(
        &self,
        remote: &str,
        exact: &[&str],
        prefixes: &[&str],
    ) -> Result<Vec<RemoteRef>, GitError> {
        let remote = self.require_remote(remote)?;
        let action = format!("`git ls-remote {}`", shell_word(&remote));
        let args = ["-c", "protocol.version=2", "ls-remote", "--symref", "--refs", remote.as_str()];
        let out = self.run_git(&action, &args, None)?.succeeded(&action)?;
        let wanted = |name: &str| exact.contains(&name) || prefixes.iter().any(|p| name.starts_with(p));
        Ok(parse_ls_remote(&out.stdout_text(), wanted))
    }

    /// `git fetch` of `refspecs` from `remote`, without tags and without touching `FETCH_HEAD`,
    /// pruning what the refspecs' destinations hold that the remote no longer has. The refspecs
    /// go to git on its standard input, so that however many there are (a negative one,
    /// `^<name>`, for each reference of the remote held back) no command line grows past the
    /// system's limit. `complete`: fetch whole objects even from a partial clone's promisor
    /// remote (`--no-filter`), so that what is fetched can be read without going back to the
    /// remote.
    pub fn fetch_refspecs(&self, remote: &str, refspecs: &[String], complete: bool) -> Result<(), GitError> {
        let remote = self.require_remote(remote)?;
        let mut args: Vec<&str> = vec!["fetch", "--no-tags", "--no-write-fetch-head", "--prune", "--stdin"];
        if complete {
            args.push("--no-filter");
        }
        args.push(&remote);
        let stdin: String = refspecs.iter().map(|refspec| format!("{refspec}\n")).collect();
        let action = format!("`git fetch {}`", shell_word(&remote));
        self.run_git(&action, &args, Some(stdin.as_bytes()))?.succeeded(&action).map(drop)
    }

    /// One `git push --atomic --porcelain` of `refspecs` to `remote` (never forced: a refspec
    /// with a leading `+` is refused), with `--dry-run` when asked. A rejection is reported in
    /// the output, not as an error; an error is a push that could not happen at all (the remote
    /// unreachable, access denied).
    pub fn push_atomic(
        &self,
        remote: &str,
        refspecs: &[String],
        dry_run: bool,
    ) -> Result<PushOutput, GitError> {
        let remote = self.require_remote(remote)?;
        if let Some(forced) = refspecs.iter().find(|s| s.starts_with('+')) {
            return Err(GitError::InvalidRefName {
                name: forced.clone(),
                reason: "speccoder never forces a push".into(),
            });
        }
        let mut args: Vec<&str> = vec!["push", "--atomic", "--porcelain", "--no-verify"];
        if dry_run {
            args.push("--dry-run");
        }
        args.push(&remote);
        args.extend(refspecs.iter().map(String::as_str));
        let action = format!("`git push {}`", shell_word(&remote));
        let out = self.run_git(&action, &args, None)?;
        let refs = parse_porcelain(&out.stdout_text());
        if !out.status.success() && refs.is_empty() {
            return Err(GitError::GitCommand { action, status: out.status.code(), stderr: out.stderr });
        }
        let remote_said = remote_said(&out.stderr);
        Ok(PushOutput { ok: out.status.success(), refs, stderr: out.stderr, remote_said })
    }

    /// The promisor remote of a partial clone (`extensions.partialClone`, else the first remote
    /// with `remote.<name>.promisor = true`); `None` for a complete clone.
    pub fn promisor_remote(&self) -> Option<String> {
        // A name that is not UTF-8 names no remote gix lists: as one that is not configured.
        let configured = self.config_string("extensions.partialClone").ok().flatten();
        let promisor = |name: &String| self.config_bool(&format!("remote.{name}.promisor")).unwrap_or(false);
        configured
            .filter(|name| self.require_remote(name).is_ok())
            .or_else(|| self.remote_names().into_iter().find(promisor))
    }

    /// Which of `ids` the object database does not hold.
    pub fn missing_objects(&self, ids: &[ObjectId]) -> Vec<ObjectId> {
        let mut missing: Vec<ObjectId> =
            ids.iter().copied().filter(|id| !self.inner.has_object(id)).collect();
        missing.sort();
        missing.dedup();
        missing
    }

    /// Fetches the objects of `ids` that are missing, in one `git fetch` from the promisor remote
    /// (the request git itself makes when it fills in a partial clone); returns how many were
    /// missing. Nothing runs when nothing is missing or the clone is complete.
    pub fn fetch_missing_objects(&self, ids: &[ObjectId]) -> Result<usize, GitError> {
        let missing = self.missing_objects(ids);
        let Some(remote) = self.promisor_remote().filter(|_| !missing.is_empty()) else {
            return Ok(0);
        };
        let stdin: String = missing.iter().map(|id| format!("{id}\n")).collect();
        let action = format!("fetching {} missing objects from the promisor remote {remote}", missing.len());
        let args = [
            "-c",
            "fetch.negotiationAlgorithm=noop",
            "fetch",
            remote.as_str(),
            "--no-tags",
            "--no-write-fetch-head",
            "--recurse-submodules=no",
            "--filter=blob:none",
            "--stdin",
        ];
        self.run_git(&action, &args, Some(stdin.as_bytes()))?.succeeded(&action)?;
        Ok(missing.len())
    }
}

/// The references `git ls-remote --symref` printed (`<id>\t<name>`, each symbolic one after a
/// line `ref: <target>\t<name>`) whose names are `wanted`, sorted by name.
fn parse_ls_remote(text: &str, wanted: impl Fn(&str) -> bool) -> Vec<RemoteRef> {
    let mut targets = std::collections::HashMap::new();
    let mut refs = Vec::new();
    for line in text.lines() {
        let Some((first, name)) = line.split_once('\t') else { continue };
        if !wanted(name) {
            continue;
        }
        if let Some(target) = first.strip_prefix("ref: ") {
            targets.insert(name.to_owned(), target.to_owned());
        } else if let Ok(id) = ObjectId::from_hex(first.as_bytes()) {
            refs.push(RemoteRef { name: name.to_owned(), id, symbolic: targets.remove(name) });
        }
    }
    refs.sort_by(|a, b| a.name.cmp(&b.name));
    refs
}

/// The reference lines of `git push --porcelain`: `<flag>\t<src>:<dst>\t<summary> (<reason>)`.
fn parse_porcelain(text: &str) -> Vec<PushedRef> {
    text.lines()
        .filter_map(|line| {
            let mut parts = line.splitn(3, '\t');
            let flag = parts.next()?;
            let (src, dst) = parts.next()?.split_once(':')?;
            let rest = parts.next().unwrap_or("");
            let (summary, reason) = match rest.split_once(" (") {
                Some((summary, reason)) => (summary, Some(reason.trim_end_matches(')').to_owned())),
                None => (rest, None),
            };
            let status = match flag {
                "*" => PushStatus::New,
                " " => PushStatus::Updated,
                "=" => PushStatus::UpToDate,
                "!" => PushStatus::Rejected,
                _ => PushStatus::Other,
            };
            Some(PushedRef {
                src: src.to_owned(),
                dst: dst.to_owned(),
                status,
                summary: summary.to_owned(),
                reason,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_symbolic_reference_is_listed_with_the_reference_it_names_and_unwanted_names_are_left_out() {
        let (a, b) = ("a".repeat(40), "b".repeat(40));
        let text = format!(
            "{a}\trefs/heads/main\nref: refs/heads/main\trefs/notes/speccoder\n{a}\trefs/notes/speccoder\n{b}\trefs/speccoder/skipped/x\n"
        );
        let listed = parse_ls_remote(&text, |name| !name.starts_with("refs/heads/"));
        let id = |hex: &str| ObjectId::from_hex(hex.as_bytes()).unwrap();
        assert_eq!(
            listed,
            [
                RemoteRef {
                    name: "refs/notes/speccoder".into(),
                    id: id(&a),
                    symbolic: Some("refs/heads/main".into())
                },
                RemoteRef { name: "refs/speccoder/skipped/x".into(), id: id(&b), symbolic: None },
            ]
        );
    }

    #[test]
    fn porcelain_lines_are_read_with_their_reasons() {
        let text = "To /srv/remote.git\n\
                    =\trefs/heads/main:refs/heads/main\t[up to date]\n\
                    *\trefs/notes/speccoder:refs/notes/speccoder\t[new reference]\n\
                    \x20\trefs/heads/a:refs/heads/a\t9556f83..4f03b57\n\
                    !\trefs/notes/x:refs/notes/x\t[rejected] (fetch first)\n\
                    Done\n";
        let refs = parse_porcelain(text);
        let statuses: Vec<_> = refs.iter().map(|r| r.status).collect();
        assert_eq!(
            statuses,
            [PushStatus::UpToDate, PushStatus::New, PushStatus::Updated, PushStatus::Rejected]
        );
        assert_eq!(refs[3].reason.as_deref(), Some("fetch first"));
        assert_eq!(refs[3].summary, "[rejected]");
        assert_eq!(refs[2].dst, "refs/heads/a");
    }

    #[test]
    fn the_remote_s_lines_are_kept_inert_and_bounded_in_count_and_length() {
        let mut stderr = String::from("To /srv/r.git\nremote: main is protected\x1b[31m\u{202e}gnp.exe\r\n");
        stderr.push_str(&format!("remote: {}\nremote: \n", "x".repeat(300)));
        for i in 0..25 {
            stderr.push_str(&format!("remote: line {i}\n"));
        }
        stderr.push_str(
            " ! [remote rejected] main -> main (pre-receive hook declined)\nerror: failed to push\n",
        );
        let said = remote_said(&stderr);
        assert_eq!(said[0], "main is protected\\u{1b}[31m\\u{202e}gnp.exe");
        assert_eq!(said[1], format!("{}…", "x".repeat(200)));
        assert_eq!(said[2], "line 0", "an empty line is dropped");
        assert_eq!(said.len(), REMOTE_SAID_LINES + 1);
        assert_eq!(said[REMOTE_SAID_LINES], "… (7 more lines)");
    }
}
