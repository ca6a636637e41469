//! Reading a small loose object straight from its file.
//!
//! gix reads a loose object by mapping its file and setting up a fresh inflate state for it. A
//! command reads a handful of small objects (HEAD's commit, the trees down to `tasks.md`, the
//! policy file), and for those the mapping, the unmapping and the inflate set-up cost more than
//! the reading: about 40 us an object, a sixth of what `speccoder attest` spent on objects. Here a
//! file is read with one `read` and inflated with one state kept for the command. Whatever is not
//! a small loose file (packed objects, alternates, large files) is left to gix, which maps it.
//!
//! The file is hostile like all repository content: the header must be `<kind> <size>\0`, the
//! stream must hold exactly `size` bytes after it and end where the file ends, and nothing is
//! allocated beyond what the stream really inflates to.

use std::cell::RefCell;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use flate2::{Decompress, FlushDecompress, Status};
use gix::ObjectId;
use gix::object::Kind;

use super::error::GitError;

/// Loose files larger than this are left to gix: reading them whole would cost memory for no
/// gain, where gix maps them.
const MAX_FILE: u64 = 64 * 1024;

/// The longest header accepted: `commit` or `tree`, a space, 20 digits (`u64::MAX`) and the NUL.
const MAX_HEADER: usize = 6 + 1 + 20 + 1;

/// How many objects [`LooseObjects`] keeps after reading them (those of at most [`MAX_FILE`] bytes):
/// a command reads some twice (HEAD's commit, `tasks.md`), and a tick reads only a handful.
const RECENT: usize = 16;

/// The loose objects of one object directory, with the inflate state their reads share.
pub(crate) struct LooseObjects {
    /// The object directory (`.git/objects`, or the common one of a linked work tree).
    dir: PathBuf,
    /// Reset before each object.
    inflate: RefCell<Decompress>,
    /// The last objects read (at most [`RECENT`], oldest first). An object never changes, so a
    /// copy is as good as reading it again.
    recent: RefCell<Vec<(ObjectId, Kind, Vec<u8>)>>,
}

impl LooseObjects {
    pub(crate) fn new(dir: &Path) -> LooseObjects {
        LooseObjects {
            dir: dir.to_owned(),
            inflate: RefCell::new(Decompress::new(true)),
            recent: RefCell::new(Vec::with_capacity(RECENT)),
        }
    }

    /// Like [`LooseObjects::read_file`], remembering the last few objects read.
    ///
    /// # Errors
    /// As [`LooseObjects::read_file`].
    pub(crate) fn read(&self, id: ObjectId) -> Result<Option<(Kind, Vec<u8>)>, GitError> {
        if let Some((_, kind, data)) = self.recent.borrow().iter().find(|(seen, _, _)| *seen == id) {
            return Ok(Some((*kind, data.clone())));
        }
        let found = self.read_file(id)?;
        if let Some((kind, data)) = found.as_ref().filter(|(_, data)| data.len() <= MAX_FILE as usize) {
            let mut recent = self.recent.borrow_mut();
            if recent.len() == RECENT {
                recent.remove(0);
            }
            recent.push((id, *kind, data.clone()));
        }
        Ok(found)
    }

    /// The kind and bytes of `id` when it is stored as a small loose file; `Ok(None)` when it is
    /// not (no such file, or a large one): the caller then asks gix.
    ///
    /// # Errors
    /// The file cannot be read, or does not hold a valid object.
    fn read_file(&self, id: ObjectId) -> Result<Option<(Kind, Vec<u8>)>, GitError> {
        // Big enough for a SHA-256 id in hex.
        let mut hex = [0u8; 64];
        let hex = id.hex_to_buf(&mut hex);
        let path = self.dir.join(&hex[..2]).join(&hex[2..]);
        let io =
            |source: io::Error| GitError::Io { action: "read the loose object", path: path.clone(), source };
        let mut file = match std::fs::File::open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io(e)),
        };
        // A loose file is written once and never changed, so its size now is its size: one
        // `read` of exactly that many bytes (`read_to_end` would probe before and after).
        let len = file.metadata().map_err(io)?.len();
        if len > MAX_FILE {
            return Ok(None);
        }
        let mut compressed = vec![0; usize::try_from(len).unwrap_or(0)];
        file.read_exact(&mut compressed).map_err(io)?;
        let mut inflate = self.inflate.borrow_mut();
        inflate.reset(true);
        let corrupt = |reason: String| GitError::CorruptObject { id, kind: "loose object", reason };
        inflate_object(&mut inflate, &compressed).map(Some).map_err(corrupt)
    }
}

/// Inflates a loose object's file: its kind and its bytes after the header.
fn inflate_object(inflate: &mut Decompress, compressed: &[u8]) -> Result<(Kind, Vec<u8>), String> {
    let mut out = Vec::with_capacity(MAX_HEADER);
    let mut status = step(inflate, compressed, &mut out)?;
    let nul = out.iter().position(|&b| b == 0).ok_or("its header does not end within 28 bytes")?;
    let (kind, size) = parse_header(&out[..nul])?;
    let mut data = out.split_off(nul + 1);
    if data.len() > size {
        return Err(format!("it holds more than the {size} bytes its header declares"));
    }
    // Capacity only ever grows towards the declared size (one byte beyond it lets the stream
    // show that it ends there, or that it holds more), and only as the stream yields bytes.
    while status != Status::StreamEnd {
        data.reserve((size - data.len()).saturating_add(1).min(64 * 1024));
        let before = (inflate.total_in(), data.len());
        status = step(inflate, compressed, &mut data)?;
        if data.len() > size {
            return Err(format!("it holds more than the {size} bytes its header declares"));
        }
        if status != Status::StreamEnd && (inflate.total_in(), data.len()) == before {
            return Err("its zlib stream is truncated".into());
        }
    }
    if data.len() != size {
        return Err(format!("it holds {} bytes where its header declares {size}", data.len()));
    }
    if usize::try_from(inflate.total_in()).ok() != Some(compressed.len()) {
        return Err("bytes follow the end of its zlib stream".into());
    }
    Ok((kind, data))
}

/// One inflate call from where the stream stands, into `out`'s spare capacity.
fn step(inflate: &mut Decompress, compressed: &[u8], out: &mut Vec<u8>) -> Result<Status, String> {
    let consumed = usize::try_from(inflate.total_in()).unwrap_or(usize::MAX);
    let input = compressed.get(consumed..).unwrap_or_default();
    inflate
        .decompress_vec(input, out, FlushDecompress::Finish)
        .map_err(|e| format!("its zlib stream is damaged ({e})"))
}

/// `<kind> <size>` as git writes it: a kind name, one space, decimal digits.
fn parse_header(header: &[u8]) -> Result<(Kind, usize), String> {
    let bad = || format!("its header {:?} is not `<kind> <size>`", String::from_utf8_lossy(header));
    let space = header.iter().position(|&b| b == b' ').ok_or_else(bad)?;
    let kind = Kind::from_bytes(&header[..space]).map_err(|_| bad())?;
    let digits = &header[space + 1..];
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return Err(bad());
    }
    let size = std::str::from_utf8(digits).ok().and_then(|d| d.parse::<usize>().ok()).ok_or_else(bad)?;
    Ok((kind, size))
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::Compression;
    use flate2::write::ZlibEncoder;
    use std::io::Write;

    fn zlib(bytes: &[u8]) -> Vec<u8> {
        let mut encoder = ZlibEncoder::new(Vec::new(), Compression::default());
        encoder.write_all(bytes).unwrap();
        encoder.finish().unwrap()
    }

    fn inflate(file: &[u8]) -> Result<(Kind, Vec<u8>), String> {
        inflate_object(&mut Decompress::new(true), file)
    }

    #[test]
    fn a_well_formed_object_reads_as_its_kind_and_body() {
        assert_eq!(inflate(&zlib(b"blob 5\0hello")), Ok((Kind::Blob, b"hello".to_vec())));
        assert_eq!(inflate(&zlib(b"tree 0\0")), Ok((Kind::Tree, Vec::new())));
        // Header and body fill the first read exactly.
        assert_eq!(inflate(&zlib(b"blob 20\0abcdefghijklmnopqrst")).map(|(_, d)| d.len()), Ok(20));
        let big = vec![b'x'; 200_000];
        let mut file = b"blob 200000\0".to_vec();
        file.extend_from_slice(&big);
        assert_eq!(inflate(&zlib(&file)).map(|(_, data)| data.len()), Ok(200_000));
    }

    #[test]
    fn a_body_longer_or_shorter_than_its_header_says_is_refused() {
        assert!(inflate(&zlib(b"blob 4\0hello")).unwrap_err().contains("more than the 4 bytes"));
        assert!(inflate(&zlib(b"blob 6\0hello")).unwrap_err().contains("holds 5 bytes"));
        let mut long = b"blob 10\0".to_vec();
        long.extend_from_slice(&[b'y'; 100_000]);
        assert!(inflate(&zlib(&long)).unwrap_err().contains("more than the 10 bytes"));
    }

    #[test]
    fn a_header_that_is_not_kind_space_digits_is_refused() {
        for header in [
            &b"blob\0x"[..],
            b"blub 1\0x",
            b"blob +1\0x",
            b"blob 1 \0x",
            b"blob \0",
            b"blob 99999999999999999999999\0",
        ] {
            assert!(inflate(&zlib(header)).is_err(), "{:?}", String::from_utf8_lossy(header));
        }
        assert!(inflate(&zlib(&[b'a'; 100])).unwrap_err().contains("does not end within"));
        // The largest size there is, with a body that outlasts the first read: refused, without
        // the size overflowing on the way.
        let mut huge = format!("blob {}\0", usize::MAX).into_bytes();
        huge.extend_from_slice(&[b'x'; 100]);
        assert!(inflate(&zlib(&huge)).unwrap_err().contains("holds 100 bytes"));
    }

    #[test]
    fn a_damaged_truncated_or_trailed_stream_is_refused() {
        let good = zlib(b"blob 5\0hello");
        assert!(inflate(&good[..good.len() - 3]).is_err());
        assert!(inflate(b"not zlib at all").unwrap_err().contains("damaged"));
        let mut trailed = good.clone();
        trailed.extend_from_slice(b"extra");
        assert!(inflate(&trailed).unwrap_err().contains("follow the end"));
    }
}
