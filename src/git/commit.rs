//! Reading commits: a decoded commit with its message kept as raw bytes and as text.

use gix::ObjectId;
use gix::bstr::ByteSlice;

use super::error::GitError;
use super::repo::Repo;

/// A person and the moment they acted, as recorded in a commit header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    /// The name (lossily decoded).
    pub name: String,
    /// The email without angle brackets (lossily decoded).
    pub email: String,
    /// Seconds since the Unix epoch.
    pub seconds: i64,
    /// The recorded time-zone offset from UTC, in seconds.
    pub offset: i32,
}

/// A decoded commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Commit {
    /// The commit's id.
    pub id: ObjectId,
    /// The root tree.
    pub tree: ObjectId,
    /// The parents in recorded order (first parent first).
    pub parents: Vec<ObjectId>,
    /// The message as text (invalid UTF-8 replaced by U+FFFD).
    pub message: String,
    /// The message exactly as stored.
    pub message_bytes: Vec<u8>,
    /// Who wrote the change, and when.
    pub author: Signature,
    /// Who committed it, and when.
    pub committer: Signature,
}

impl Commit {
    /// The first line of the message.
    pub fn subject(&self) -> &str {
        self.message.lines().next().unwrap_or("")
    }
}

impl Repo {
    /// Read and decode the commit `id`.
    pub fn commit(&self, id: ObjectId) -> Result<Commit, GitError> {
        let data = self.read_kind(id, gix::object::Kind::Commit)?;
        decode(id, &data, self.object_hash())
    }

    /// The tree of commit `id`.
    pub fn commit_tree(&self, id: ObjectId) -> Result<ObjectId, GitError> {
        Ok(self.commit(id)?.tree)
    }
}

fn corrupt(id: ObjectId, reason: impl Into<String>) -> GitError {
    GitError::CorruptObject { id, kind: "commit", reason: reason.into() }
}

fn decode(id: ObjectId, data: &[u8], hash: gix::hash::Kind) -> Result<Commit, GitError> {
    let raw = gix::objs::CommitRef::from_bytes(data, hash).map_err(|e| corrupt(id, e.to_string()))?;
    let tree = ObjectId::from_hex(raw.tree).map_err(|_| corrupt(id, "the tree id is not hex"))?;
    let parents = raw
        .parents
        .iter()
        .map(|p| ObjectId::from_hex(p).map_err(|_| corrupt(id, "a parent id is not hex")))
        .collect::<Result<Vec<_>, _>>()?;
    let author = signature(id, raw.author, "author")?;
    let committer = signature(id, raw.committer, "committer")?;
    Ok(Commit {
        id,
        tree,
        parents,
        message: raw.message.to_str_lossy().into_owned(),
        message_bytes: raw.message.to_vec(),
        author,
        committer,
    })
}

fn signature(id: ObjectId, raw: &gix::bstr::BStr, role: &str) -> Result<Signature, GitError> {
    let parsed = gix::actor::SignatureRef::from_bytes(raw)
        .map_err(|_| corrupt(id, format!("the {role} line is malformed")))?
        .trim();
    let time = parsed.time().map_err(|_| corrupt(id, format!("the {role} date is malformed")))?;
    Ok(Signature {
        name: parsed.name.to_str_lossy().into_owned(),
        email: parsed.email.to_str_lossy().into_owned(),
        seconds: time.seconds,
        offset: time.offset,
    })
}
