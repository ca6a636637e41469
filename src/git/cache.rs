//! The caches that every [`Repo`](super::Repo) opened from one handle shares: objects made from
//! pack deltas, whole objects, and object sizes. gix gives each handle caches of its own and has
//! no shared one, while a verifier's threads take commits in turns: what one thread reads, the
//! commit another walked, the tree it diffed, the `tasks.md` it parsed, another reads next. In a
//! history of loose objects each such read costs an open, a map and an unmap of the file.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use gix::ObjectId;
use gix::odb::pack::cache::lru::MemoryCappedHashmap as DeltaCache;
use gix::odb::pack::cache::object::MemoryCappedHashmap as ObjectCache;

/// The size of the cache of objects made from pack deltas ([`SharedPackCache`]). In a packed
/// history a note, or a `tasks.md`, is most often a delta of one read shortly before: with the
/// cache, resolving it stops there instead of inflating the whole chain from its base again.
pub(super) const PACK_CACHE_BYTES: usize = 4 << 20;

/// The size of the cache of whole objects ([`SharedObjects`]): commits, trees and small blobs
/// read again and again; a larger blob is read past it ([`Repo::blob`](super::Repo::blob)).
pub(super) const OBJECT_CACHE_BYTES: usize = 6 << 20;

/// How many object sizes are kept (about 40 bytes each); all are forgotten at once when one more
/// comes ([`SharedSizes`]).
pub(super) const SIZES_KEPT: usize = 4 * 1024;

/// The caches of one repository, for all the threads that read it.
#[derive(Clone)]
pub(super) struct SharedCaches {
    /// Objects made from pack deltas.
    pub(super) pack: SharedPackCache,
    /// Whole objects, by id.
    pub(super) objects: SharedObjects,
    /// The sizes of objects whose header was read.
    pub(super) sizes: SharedSizes,
}

impl SharedCaches {
    /// Empty caches of the sizes above.
    pub(super) fn new() -> Self {
        SharedCaches {
            pack: SharedPackCache(Arc::new(Mutex::new(DeltaCache::new(PACK_CACHE_BYTES)))),
            objects: SharedObjects(Arc::new(Mutex::new(ObjectCache::new(OBJECT_CACHE_BYTES)))),
            sizes: SharedSizes(Arc::default()),
        }
    }

    /// Has `objects` read through these caches.
    pub(super) fn install(&self, objects: &mut gix::OdbHandle) {
        let pack = self.pack.clone();
        objects.set_pack_cache(move || Box::new(pack.clone()));
        let whole = self.objects.clone();
        objects.set_object_cache(move || Box::new(whole.clone()));
    }
}

/// The lock of a cache. A thread that panicked while holding it left a cache that is still whole:
/// gix's caches hold no invariant across a panic that a reader relies on, and a missing entry is
/// only read again.
fn lock<T>(cache: &Mutex<T>) -> MutexGuard<'_, T> {
    cache.lock().unwrap_or_else(PoisonError::into_inner)
}

/// gix's memory-capped cache of objects made from pack deltas, behind a lock.
#[derive(Clone)]
pub(super) struct SharedPackCache(pub(super) Arc<Mutex<DeltaCache>>);

impl gix::odb::pack::cache::DecodeEntry for SharedPackCache {
    fn put(
        &mut self,
        pack_id: u32,
        offset: u64,
        data: &[u8],
        kind: gix::object::Kind,
        compressed_size: usize,
    ) {
        lock(&self.0).put(pack_id, offset, data, kind, compressed_size);
    }

    fn get(&mut self, pack_id: u32, offset: u64, out: &mut Vec<u8>) -> Option<(gix::object::Kind, usize)> {
        lock(&self.0).get(pack_id, offset, out)
    }
}

/// gix's memory-capped cache of whole objects, behind a lock.
#[derive(Clone)]
pub(super) struct SharedObjects(pub(super) Arc<Mutex<ObjectCache>>);

impl gix::odb::pack::cache::Object for SharedObjects {
    fn put(&mut self, id: ObjectId, kind: gix::object::Kind, data: &[u8]) {
        lock(&self.0).put(id, kind, data);
    }

    fn get(&mut self, id: &ObjectId, out: &mut Vec<u8>) -> Option<gix::object::Kind> {
        lock(&self.0).get(id, out)
    }
}

/// The sizes of the objects whose header was read lately, at most [`SIZES_KEPT`]: reading a loose
/// object's header costs as much as reading the object, and a verifier asks for the size of its
/// unit's `spec.md` at every tick, and of each note and `tasks.md` before it reads it.
#[derive(Clone, Default)]
pub(super) struct SharedSizes(pub(super) Arc<Mutex<HashMap<ObjectId, u64>>>);

impl SharedSizes {
    /// The size of `id`, if its header was read lately.
    pub(super) fn get(&self, id: ObjectId) -> Option<u64> {
        lock(&self.0).get(&id).copied()
    }

    /// Keeps the size of `id`.
    pub(super) fn put(&self, id: ObjectId, size: u64) {
        let mut sizes = lock(&self.0);
        if sizes.len() >= SIZES_KEPT {
            sizes.clear();
        }
        sizes.insert(id, size);
    }

    /// How many sizes are kept.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        lock(&self.0).len()
    }
}
