//! New objects written together as one pack with its version-2 index, instead of a loose file each.
//!
//! One `speccoder attest` makes about eight objects: the ticked `tasks.md`, the trees above it, the
//! task commit, and the note's blob, tree and commit. Loose, each costs a compressor set-up, a file
//! and often a new fan-out directory, most of what the command spends. As one pack they cost two
//! files and one compressor.
//!
//! Written here rather than through gix-pack: gix writes packs only as the receiving end of a
//! fetch (it reads the pack stream back, inflates every entry again to index it, on a thread
//! pool), which is more work than the pack itself for a handful of objects. The formats are git's
//! (`gitformat-pack(5)`): pack version 2 without deltas, index version 2. `git verify-pack` and
//! `git fsck --strict` check what this writes (tests/attest_e2e.rs and this module's tests).

use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use gix::ObjectId;
use gix::object::Kind;
use libdeflater::{CompressionLvl, Compressor};

/// One object to store: its id (the hash of its canonical form), kind and content.
pub(crate) type NewObject = (ObjectId, Kind, Vec<u8>);

/// The pack and index bytes for `objects`, and the pack's checksum (which names both files).
struct Built {
    pack: Vec<u8>,
    index: Vec<u8>,
    checksum: ObjectId,
}

/// Writes `objects` as `pack-<checksum>.pack` and `.idx` in `pack_dir` (normally
/// `<common dir>/objects/pack`) and returns the index's path.
///
/// Both files are written under temporary names and renamed into place, the index last: readers
/// look packs up by their index, so no reader ever sees a pack without its index complete.
///
/// # Errors
/// An I/O failure (temporary files are removed then, and nothing else has changed), or objects
/// too large for 31-bit offsets (2 GiB), which a tick never makes.
pub(crate) fn write_pack(pack_dir: &Path, objects: Vec<NewObject>) -> io::Result<PathBuf> {
    let built = build(objects)?;
    let stem = pack_dir.join(format!("pack-{}", built.checksum));
    persist(pack_dir, &built.pack, &stem.with_extension("pack"))?;
    let index_path = stem.with_extension("idx");
    persist(pack_dir, &built.index, &index_path)?;
    Ok(index_path)
}

/// Writes `bytes` to a temporary file in `dir` and renames it to `to`.
///
/// The file is read-only for everyone (less the umask), as git makes its packs, from its
/// creation: the descriptor that creates it may still write to it.
fn persist(dir: &Path, bytes: &[u8], to: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    let mut file = tempfile::Builder::new()
        .prefix("tmp_pack_")
        .permissions(std::fs::Permissions::from_mode(0o444))
        .tempfile_in(dir)?;
    file.write_all(bytes)?;
    file.persist(to).map_err(|e| e.error)?;
    Ok(())
}

/// libdeflate's fastest level that compresses (its level 0 only stores); see [`build`] why.
const LEVEL: CompressionLvl = match CompressionLvl::new(1) {
    Ok(level) => level,
    Err(_) => panic!("libdeflate has a level 1"),
};

/// The pack type code of an object kind.
fn type_code(kind: Kind) -> u8 {
    match kind {
        Kind::Commit => 1,
        Kind::Tree => 2,
        Kind::Blob => 3,
        Kind::Tag => 4,
    }
}

/// An entry's header: type and inflated size, the size in 4 bits then 7-bit groups, low first.
fn entry_header(kind: Kind, size: usize, out: &mut Vec<u8>) {
    let mut rest = size >> 4;
    let mut byte = (type_code(kind) << 4) | (size & 0x0f) as u8;
    while rest != 0 {
        out.push(byte | 0x80);
        byte = (rest & 0x7f) as u8;
        rest >>= 7;
    }
    out.push(byte);
}

/// zlib-compresses `data` onto `out` with `compressor`, which serves every object of the pack.
fn deflate(compressor: &mut Compressor, data: &[u8], out: &mut Vec<u8>) -> io::Result<()> {
    let start = out.len();
    out.resize(start + compressor.zlib_compress_bound(data.len()), 0);
    // Cannot fail: the output has room for the bound libdeflate itself gives.
    let written = compressor.zlib_compress(data, &mut out[start..]).map_err(io::Error::other)?;
    out.truncate(start + written);
    Ok(())
}

/// Writes `data` onto `out` as a zlib stream of stored (uncompressed) blocks. For trees: they are
/// mostly object ids, which do not compress (a tick's four trees take 331 bytes stored, 323
/// deflated), and storing them spares a compressor pass for each (libdeflate clears its 128 KiB
/// hash table on every call).
fn store(data: &[u8], out: &mut Vec<u8>) {
    // zlib header: deflate, no preset dictionary, "fastest" level (what zlib writes at level 0).
    out.extend_from_slice(&[0x78, 0x01]);
    let mut blocks = data.chunks(usize::from(u16::MAX)).peekable();
    if blocks.peek().is_none() {
        out.extend_from_slice(&[0x01, 0x00, 0x00, 0xff, 0xff]); // one final empty block
    }
    while let Some(block) = blocks.next() {
        // BFINAL on the last block, BTYPE 00 (stored), then LEN and its complement, little-endian.
        out.push(u8::from(blocks.peek().is_none()));
        let len = u16::try_from(block.len()).unwrap_or(u16::MAX);
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(block);
    }
    out.extend_from_slice(&adler2::adler32_slice(data).to_be_bytes());
}

fn sha1() -> gix::hash::Hasher {
    gix::hash::hasher(gix::hash::Kind::Sha1)
}

fn finish(hasher: gix::hash::Hasher) -> io::Result<ObjectId> {
    hasher.try_finalize().map_err(io::Error::other)
}

/// Builds the pack (entries in id order, no deltas) and its index.
fn build(mut objects: Vec<NewObject>) -> io::Result<Built> {
    objects.sort_by_key(|(id, _, _)| *id);
    objects.dedup_by_key(|(id, _, _)| *id);
    let too_large = || io::Error::other("the objects do not fit a pack with 32-bit offsets");
    let count = u32::try_from(objects.len()).map_err(|_| too_large())?;

    let mut pack = Vec::with_capacity(objects.iter().map(|(_, _, data)| data.len() / 2 + 32).sum());
    pack.extend_from_slice(b"PACK");
    pack.extend_from_slice(&2u32.to_be_bytes());
    pack.extend_from_slice(&count.to_be_bytes());
    // libdeflate at level 1, its fastest that compresses. A tick's objects are small (a notes
    // blob of 8.7 KiB, `tasks.md`, two commits) and compressing them was most of what building
    // the pack cost. On those objects, in a fresh process, libdeflate took 196 us for 4,550 bytes;
    // zlib-rs (flate2's backend, which gix builds anyway) took 346 us at level 2 for 4,962 bytes
    // and 248 us at level 1 for 6,372; miniz at level 1 427 us for 4,915. zlib sets up and resets
    // a streaming state per object; libdeflate compresses whole buffers. With it a tick took
    // 0-4% less wall-clock time and 2-7% less CPU time (medians of 40 interleaved runs, three
    // pairs), and its pack is 8% smaller (4,937 bytes against 5,344).
    // Stored (uncompressed) entries would skip compressing, but git repack keeps them stored
    // unless run with -F, so a tick's pack would stay twice as large (tried in 8ee33b3, reverted
    // in 39fb0db). One compressor serves every object.
    let mut compressor = Compressor::new(LEVEL);
    let mut entries = Vec::with_capacity(objects.len());
    for (id, kind, data) in &objects {
        let start = pack.len();
        entry_header(*kind, data.len(), &mut pack);
        if *kind == Kind::Tree {
            store(data, &mut pack)
        } else {
            deflate(&mut compressor, data, &mut pack)?
        }
        let offset = u32::try_from(start).ok().filter(|o| o & 0x8000_0000 == 0).ok_or_else(too_large)?;
        entries.push((*id, crc32fast::hash(&pack[start..]), offset));
    }
    let mut hasher = sha1();
    hasher.update(&pack);
    let checksum = finish(hasher)?;
    pack.extend_from_slice(checksum.as_bytes());

    // Index v2: magic, version, the fan-out table (how many ids start with a byte <= i), the ids,
    // the CRC32 of each packed entry, the 31-bit offsets, the pack's checksum, its own checksum.
    let mut index = Vec::with_capacity(8 + 256 * 4 + entries.len() * 28 + 40);
    index.extend_from_slice(b"\xfftOc");
    index.extend_from_slice(&2u32.to_be_bytes());
    let mut fanout = [0u32; 256];
    for (id, _, _) in &entries {
        fanout[usize::from(id.as_bytes()[0])] += 1;
    }
    let mut running = 0u32;
    for slot in fanout {
        running += slot;
        index.extend_from_slice(&running.to_be_bytes());
    }
    for (id, _, _) in &entries {
        index.extend_from_slice(id.as_bytes());
    }
    for (_, crc, _) in &entries {
        index.extend_from_slice(&crc.to_be_bytes());
    }
    for (_, _, offset) in &entries {
        index.extend_from_slice(&offset.to_be_bytes());
    }
    index.extend_from_slice(checksum.as_bytes());
    let mut hasher = sha1();
    hasher.update(&index);
    index.extend_from_slice(finish(hasher)?.as_bytes());
    Ok(Built { pack, index, checksum })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(kind: Kind, data: &[u8]) -> NewObject {
        let id = gix::objs::compute_hash(gix::hash::Kind::Sha1, kind, data).expect("sha1 hashes");
        (id, kind, data.to_vec())
    }

    #[test]
    fn entry_headers_carry_the_size_in_four_then_seven_bit_groups() {
        let mut out = Vec::new();
        entry_header(Kind::Blob, 15, &mut out);
        assert_eq!(out, [0x3f]);
        out.clear();
        entry_header(Kind::Commit, 16, &mut out);
        assert_eq!(out, [0x90, 0x01]);
        out.clear();
        entry_header(Kind::Tree, 100_000, &mut out);
        // 100000 = 0x186a0: the low nibble 0 beside the type, then 0x186a in 7-bit groups, low first.
        assert_eq!(out, [0xa0, 0xea, 0x30]);
    }

    #[test]
    fn every_entry_is_a_zlib_stream_that_inflates_to_its_object() {
        let objects =
            vec![object(Kind::Blob, b"one\n"), object(Kind::Blob, &[7u8; 70_000]), object(Kind::Commit, b"")];
        let built = build(objects.clone()).unwrap();
        assert_eq!(&built.pack[..12], b"PACK\0\0\0\x02\0\0\0\x03");
        for (id, kind, data) in &objects {
            let offset = entry_offset(&built, *id);
            let mut header = Vec::new();
            entry_header(*kind, data.len(), &mut header);
            let body = &built.pack[offset..];
            assert_eq!(&body[..header.len()], header.as_slice());
            // A zlib header (RFC 1950): method 8 (deflate), and the two bytes a multiple of 31.
            let zlib = &body[header.len()..];
            assert_eq!(zlib[0] & 0x0f, 8, "deflate");
            assert_eq!(u16::from_be_bytes([zlib[0], zlib[1]]) % 31, 0, "header check bits");
            let mut inflated = Vec::new();
            std::io::Read::read_to_end(
                &mut flate2::read::ZlibDecoder::new(&body[header.len()..]),
                &mut inflated,
            )
            .unwrap();
            assert_eq!(&inflated, data);
        }
        // The index carries the checksum the pack ends with.
        let n = built.index.len();
        assert_eq!(&built.pack[built.pack.len() - 20..], &built.index[n - 40..n - 20]);
    }

    /// Where the entry of `id` starts in the pack, as the index says.
    fn entry_offset(built: &Built, id: ObjectId) -> usize {
        let ids_at = 8 + 256 * 4;
        let count = (built.index.len() - ids_at - 40) / 28;
        let ids = &built.index[ids_at..ids_at + count * 20];
        let i = ids.chunks(20).position(|chunk| chunk == id.as_bytes()).unwrap();
        let at = ids_at + count * 24 + i * 4;
        u32::from_be_bytes(built.index[at..at + 4].try_into().unwrap()) as usize
    }

    /// The block type of the first deflate block of the entry for `id`: 0 stored, 1 fixed
    /// Huffman codes, 2 dynamic.
    fn first_block_type(built: &Built, id: ObjectId, kind: Kind, size: usize) -> u8 {
        let mut header = Vec::new();
        entry_header(kind, size, &mut header);
        // After the entry header and the two zlib header bytes: BFINAL, then BTYPE in bits 1-2.
        (built.pack[entry_offset(built, id) + header.len() + 2] >> 1) & 0b11
    }

    #[test]
    fn blobs_and_commits_are_compressed_and_trees_stored() {
        let text = "- [X] T001 The same line of a tasks.md, again and again\n".repeat(40);
        let blob = object(Kind::Blob, text.as_bytes());
        let commit = object(Kind::Commit, text.as_bytes());
        let tree = object(Kind::Tree, text.as_bytes());
        let built = build(vec![blob.clone(), commit.clone(), tree.clone()]).unwrap();
        for (id, kind, data) in [blob, commit] {
            assert_ne!(first_block_type(&built, id, kind, data.len()), 0, "{kind} is compressed");
        }
        assert_eq!(first_block_type(&built, tree.0, Kind::Tree, text.len()), 0, "the tree is stored");
        // Two compressed copies of a 2,280-byte text and one stored: well under three copies.
        assert!(built.pack.len() < text.len() + 600, "{} bytes", built.pack.len());
    }

    #[test]
    fn an_object_listed_twice_is_packed_once() {
        let one = object(Kind::Blob, b"same\n");
        let built = build(vec![one.clone(), one]).unwrap();
        assert_eq!(u32::from_be_bytes(built.pack[8..12].try_into().unwrap()), 1);
        assert_eq!(u32::from_be_bytes(built.index[8 + 255 * 4..8 + 256 * 4].try_into().unwrap()), 1);
    }

    /// `git verify-pack` re-reads every entry, checks each id, CRC and both checksums.
    #[test]
    fn git_verify_pack_accepts_what_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let objects = vec![
            object(Kind::Blob, b"- [X] T001 done\n"),
            object(Kind::Blob, &(0..50_000u32).flat_map(|i| i.to_le_bytes()).collect::<Vec<u8>>()),
            object(Kind::Tree, b""),
            // Stored in two blocks: one of 65,535 bytes and the rest.
            object(Kind::Tree, &(0..70_000u32).map(|i| (i % 251) as u8).collect::<Vec<u8>>()),
        ];
        let index = write_pack(dir.path(), objects.clone()).unwrap();
        let out =
            std::process::Command::new("git").arg("verify-pack").arg("-v").arg(&index).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let listing = String::from_utf8_lossy(&out.stdout);
        for (id, kind, _) in &objects {
            assert!(listing.contains(&format!("{id} {kind}")), "{id} {kind} missing from:\n{listing}");
        }
        // git's own account of the 200,000-byte blob (`<id> blob <size> <size in pack> <offset>`):
        // compressed, where stored blocks would take more than the blob itself.
        let counting = &objects[1].0;
        let line = listing.lines().find(|l| l.starts_with(&counting.to_string())).unwrap();
        let sizes: Vec<usize> = line.split_whitespace().skip(2).take(2).map(|n| n.parse().unwrap()).collect();
        assert!(sizes[1] < sizes[0], "{line}");
        // Read-only, as git keeps its packs, and nothing left behind under a temporary name.
        use std::os::unix::fs::PermissionsExt as _;
        for file in [index.clone(), index.with_extension("pack")] {
            let mode = std::fs::metadata(&file).unwrap().permissions().mode();
            assert_eq!(mode & 0o222, 0, "{} has mode {mode:o}", file.display());
            assert_ne!(mode & 0o400, 0, "{} has mode {mode:o}", file.display());
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }
}
