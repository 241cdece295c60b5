//! Hash maps keyed by ids: FxHash (rustc-hash), seeded per process.
//!
//! FxHash is several times faster than std's SipHash on short byte strings; the seed
//! (drawn from std's random hasher state once per process) keeps a file from being
//! crafted against a fixed hash function.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash};
use std::sync::OnceLock;

use rustc_hash::FxSeededState;

/// A hash map with the process's seeded FxHash.
pub type Map<K, V> = HashMap<K, V, FxSeededState>;

fn seed() -> usize {
    static SEED: OnceLock<usize> = OnceLock::new();
    *SEED.get_or_init(|| {
        std::collections::hash_map::RandomState::new().hash_one(0x5eed_u64) as usize
    })
}

/// An empty map with room for `capacity` entries.
pub fn map<K, V>(capacity: usize) -> Map<K, V> {
    HashMap::with_capacity_and_hasher(capacity, FxSeededState::with_seed(seed()))
}

/// `map` emptied for about `expected` entries: cleared, or made anew when it is much
/// larger than that (clearing costs its capacity, so a map grown by one big topic
/// must not be cleared for each of many small ones).
pub fn reset<K: Eq + Hash, V>(map: &mut Map<K, V>, expected: usize) {
    if map.capacity() > 4 * expected + 256 {
        *map = self::map(expected);
    } else {
        map.clear();
        map.reserve(expected);
    }
}
