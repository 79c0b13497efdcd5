//! Live-object registries: the addresses a library handed to C, and what it keeps for each.
//!
//! C passes objects back as raw pointers; before the library dereferences one it asks its registry whether that
//! address is one it handed out and still owns, so that NULL, a freed or a foreign pointer is an error instead of a
//! crash. The maps here serve librdmacm: its ids, channels, events and memberships (`state`), its
//! `rdma_getaddrinfo` results and `rdma_get_devices` lists. libibverbs keeps its own registry (`object::registry`:
//! one tagged 8-byte key per object, with its type and a destroy-in-progress bit, in a hash set) and takes only
//! [`AddrHasher`] from here, so both libraries hash addresses the same way.
//!
//! [`AddrMap`] is the map (keyed by address, typed pointers in, nothing dereferenced); [`Registry`] is an
//! `AddrMap` behind a lock, usable as a `static`. A registry cannot see a freed address reused by a new object of
//! the same kind (that object is then the one named), nor make a check atomic with another thread's destroy of the
//! same object (the C APIs forbid that too).

use once_cell::sync::Lazy;
use parking_lot::{Mutex, MutexGuard};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// The hash of the registries' keys: addresses of our own allocations and kernel handles, which nobody chooses to
/// collide, so a multiplicative (Fibonacci) hash is enough; it costs a few instructions where std's SipHash costs
/// ~100 on every checked call.
#[derive(Clone, Copy, Debug, Default)]
pub struct AddrHasher(u64);

impl Hasher for AddrHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(self.0 ^ u64::from(*b));
        }
    }

    fn write_u64(&mut self, v: u64) {
        // The multiply spreads the (aligned) low address bits into the high bits; the rotate brings the best mixed
        // ones down to where hashbrown takes the bucket index, and leaves well mixed ones on top for its tags.
        self.0 = v.wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(26);
    }

    fn write_u32(&mut self, v: u32) {
        self.write_u64(u64::from(v));
    }

    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }
}

/// A `HashMap` hashed with [`AddrHasher`].
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<AddrHasher>>;

/// Room a registry's map starts with: a process with a few dozen objects never pays a rehash.
const INITIAL_CAPACITY: usize = 16;

/// Values kept per address. Keys are pointers of any type, compared by address only.
#[derive(Debug)]
pub struct AddrMap<V> {
    map: FastMap<usize, V>,
}

impl<V> Default for AddrMap<V> {
    fn default() -> Self {
        AddrMap { map: FastMap::with_capacity_and_hasher(INITIAL_CAPACITY, Default::default()) }
    }
}

impl<V> AddrMap<V> {
    /// Lists `p` with `v`; returns the value it replaces, if `p` was listed.
    pub fn insert<T>(&mut self, p: *const T, v: V) -> Option<V> {
        self.map.insert(p as usize, v)
    }

    /// Unlists `p`; its value, if it was listed.
    pub fn remove<T>(&mut self, p: *const T) -> Option<V> {
        self.map.remove(&(p as usize))
    }

    /// The value listed for `p`.
    pub fn get<T>(&self, p: *const T) -> Option<&V> {
        self.map.get(&(p as usize))
    }

    /// The value listed for `p`, to change it in place.
    pub fn get_mut<T>(&mut self, p: *const T) -> Option<&mut V> {
        self.map.get_mut(&(p as usize))
    }

    /// Whether `p` is listed.
    pub fn contains<T>(&self, p: *const T) -> bool {
        self.map.contains_key(&(p as usize))
    }

    /// Every listed value.
    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.map.values()
    }

    /// How many addresses are listed.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether nothing is listed.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

/// An [`AddrMap`] behind a lock, created on first use: `static LIVE: Registry<Entry> = Registry::new();`.
pub struct Registry<V: Send + 'static> {
    inner: Lazy<Mutex<AddrMap<V>>>,
}

impl<V: Send + 'static> Registry<V> {
    /// An empty registry (usable in a `static`).
    pub const fn new() -> Self {
        Registry { inner: Lazy::new(|| Mutex::new(AddrMap::default())) }
    }

    /// The map, locked, for a look-up and change that must not be interleaved with another thread's.
    pub fn lock(&self) -> MutexGuard<'_, AddrMap<V>> {
        self.inner.lock()
    }

    /// Lists `p` with `v` (replacing what was listed).
    pub fn insert<T>(&self, p: *const T, v: V) {
        self.lock().insert(p, v);
    }

    /// Unlists `p`; whether it was listed.
    pub fn remove<T>(&self, p: *const T) -> bool {
        self.lock().remove(p).is_some()
    }

    /// Whether `p` is listed.
    pub fn contains<T>(&self, p: *const T) -> bool {
        self.lock().contains(p)
    }
}

impl<V: Send + 'static> Default for Registry<V> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static R: Registry<u32> = Registry::new();

    #[test]
    fn by_address_only() {
        let a = [0u64; 2];
        let p = &a[0] as *const u64;
        let q = &a[1] as *const u64;
        R.insert(p, 7);
        assert!(R.contains(p) && !R.contains(q));
        // The same address through another pointer type is the same entry.
        assert!(R.contains(p.cast::<u8>()));
        assert_eq!(R.lock().get(p), Some(&7));
        *R.lock().get_mut(p).unwrap() = 8;
        assert_eq!(R.lock().values().copied().collect::<Vec<_>>(), vec![8]);
        assert!(R.remove(p));
        assert!(!R.remove(p), "a second removal finds nothing");
        assert!(R.lock().is_empty());
    }
}
