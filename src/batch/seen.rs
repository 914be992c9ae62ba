//! The references a batch has already seen, at about 14 bytes each however long they are.
//!
//! Each reference is kept as 96 bits of a SipHash-1-3 under a key drawn at random per run,
//! not as its text. Two distinct references share a key with probability 2⁻⁹⁶; among
//! 10 million references the chance of any such pair is about n²/2⁹⁷ ≈ 10⁻¹⁵, far below
//! the rate of undetected memory errors, and with a secret key no input file can be built
//! to collide on purpose. A collision would report a new reference as a duplicate (it
//! would not be verified, and the warning says so), never pass an unverified one. (96
//! bits, not 128: at 1,000,000 references the four bytes more a key were 4 MB of a run's
//! peak memory, issue 40's bar being 40 MB, for odds already beyond any that matter.)
//!
//! Layout: a sorted run of keys (12 bytes a key, no per-entry overhead) in fixed 48 KiB
//! chunks, so growing it never copies it (a `Vec`'s reallocation briefly holds the old and
//! the new buffer), plus a small hash set of recent keys, merged into the run once it is
//! full and holds at least a thirty-second of the run: merged when full, the set's table
//! is never more than half empty (a hash set alone would cost 32 to 64 bytes a key after
//! its power-of-two growth).

use std::collections::HashMap;
use std::hash::{BuildHasher, BuildHasherDefault, Hasher, RandomState};

use siphasher::sip128::SipHasher13;

/// Recent keys merged into the sorted run once there are at least this many, or a
/// thirty-second of it, and their table is full.
const FIRST_MERGE: usize = 4096;
/// Keys per chunk of the sorted run: 48 KiB.
const CHUNK: usize = 4096;

/// A line number as a [`Seen`] keeps it beside a key: four bytes, not eight. Inputs are
/// read up to 1 GiB, so their line numbers fit; a larger one would be kept as `u32::MAX`,
/// a line no input reaches.
pub(crate) fn kept_line(line: u64) -> u32 {
    u32::try_from(line).unwrap_or(u32::MAX)
}

/// A key as the sorted run stores it: 96 bits, most significant first, so the arrays
/// order as the numbers do.
type Stored = [u32; 3];

/// A set of strings held as 96-bit keyed hashes, each with a small value kept beside its
/// key (reconcile keeps the line a reference was first on; `()` costs nothing).
pub(crate) struct Seen<V: Copy + Default = ()> {
    hasher: SipHasher13,
    sorted: Sorted<V>,
    recent: HashMap<u128, V, BuildHasherDefault<KeyBits>>,
    first_merge: usize,
}

impl<V: Copy + Default> Default for Seen<V> {
    fn default() -> Self {
        Seen::with_first_merge(FIRST_MERGE)
    }
}

impl Seen {
    /// Adds `text`; true when it was not in the set.
    pub(crate) fn insert(&mut self, text: &str) -> bool {
        self.first(text, ()).is_none()
    }
}

impl<V: Copy + Default> Seen<V> {
    fn with_first_merge(first_merge: usize) -> Self {
        // RandomState is seeded from the OS's randomness once per process; hashing two
        // constants with it yields a fresh 128-bit key without another dependency.
        let random = RandomState::new();
        Seen {
            hasher: SipHasher13::new_with_keys(random.hash_one(0u8), random.hash_one(1u8)),
            sorted: Sorted::default(),
            recent: HashMap::default(),
            first_merge,
        }
    }

    /// `text`'s key: the top 96 bits of its keyed hash.
    fn key(&self, text: &str) -> u128 {
        self.hasher.hash(text.as_bytes()).as_u128() >> 32
    }

    /// The value `text` was first added with, if it was.
    pub(crate) fn find(&self, text: &str) -> Option<V> {
        let key = self.key(text);
        self.sorted
            .find(key)
            .or_else(|| self.recent.get(&key).copied())
    }

    /// Adds `text` with `value`: `None` when it was new, else the value it was first
    /// added with (kept; `value` is dropped).
    pub(crate) fn first(&mut self, text: &str, value: V) -> Option<V> {
        let key = self.key(text);
        if let Some(earlier) = self.sorted.find(key) {
            return Some(earlier);
        }
        if let Some(earlier) = self.recent.get(&key) {
            return Some(*earlier);
        }
        // Merged when one more key would grow the table: a table grown only while it holds
        // less than a thirty-second of the run is never more than twice that, and full.
        let full = self.recent.len() == self.recent.capacity();
        if full && self.recent.len() >= self.first_merge.max(self.sorted.len / 32) {
            self.merge();
        }
        self.recent.insert(key, value);
        None
    }

    /// Merges the recent keys into the sorted run in place, from the back, so the only
    /// extra memory is the recent keys' own sorted copy.
    fn merge(&mut self) {
        let mut batch: Vec<(u128, V)> = self.recent.drain().collect();
        batch.sort_unstable_by_key(|(key, _)| *key);
        let sorted = &mut self.sorted;
        let mut old = sorted.len;
        sorted.grow(batch.len());
        let mut next = sorted.len;
        while let Some(&(key, value)) = batch.last() {
            next -= 1;
            if old > 0 && sorted.get(old - 1) > key {
                let moved = sorted.get(old - 1);
                let moved_value = sorted.value(old - 1);
                sorted.set(next, moved, moved_value);
                old -= 1;
            } else {
                sorted.set(next, key, value);
                batch.pop();
            }
        }
    }
}

/// Keys in ascending order, in chunks of [`CHUNK`], and their values in chunks beside them
/// (separate, so no value pads a key).
struct Sorted<V> {
    chunks: Vec<Box<[Stored]>>,
    values: Vec<Box<[V]>>,
    len: usize,
}

impl<V> Default for Sorted<V> {
    fn default() -> Self {
        Sorted {
            chunks: Vec::new(),
            values: Vec::new(),
            len: 0,
        }
    }
}

impl<V: Copy + Default> Sorted<V> {
    fn get(&self, i: usize) -> u128 {
        let [high, middle, low] = self.chunks[i / CHUNK][i % CHUNK];
        (u128::from(high) << 64) | (u128::from(middle) << 32) | u128::from(low)
    }

    fn value(&self, i: usize) -> V {
        self.values[i / CHUNK][i % CHUNK]
    }

    /// Stores `key`, a 96-bit key (its top 32 bits zero), at `i`.
    fn set(&mut self, i: usize, key: u128, value: V) {
        // Each `as` takes its 32 bits of the key, by design.
        let stored = [(key >> 64) as u32, (key >> 32) as u32, key as u32];
        self.chunks[i / CHUNK][i % CHUNK] = stored;
        self.values[i / CHUNK][i % CHUNK] = value;
    }

    /// Makes room for `more` keys at the end (zeroes until set).
    fn grow(&mut self, more: usize) {
        self.len += more;
        while self.chunks.len() * CHUNK < self.len {
            self.chunks.push(vec![[0; 3]; CHUNK].into_boxed_slice());
            self.values
                .push(vec![V::default(); CHUNK].into_boxed_slice());
        }
    }

    /// The value of `key`, if it is in the run.
    fn find(&self, key: u128) -> Option<V> {
        let (mut low, mut high) = (0, self.len);
        while low < high {
            let mid = low + (high - low) / 2;
            match self.get(mid).cmp(&key) {
                std::cmp::Ordering::Less => low = mid + 1,
                std::cmp::Ordering::Greater => high = mid,
                std::cmp::Ordering::Equal => return Some(self.value(mid)),
            }
        }
        None
    }
}

/// The recent set's hasher: keys are already uniform SipHash output, so their low 64 bits
/// are a hash as good as any, at no cost.
#[derive(Default)]
struct KeyBits(u64);

impl Hasher for KeyBits {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only u128 keys are hashed; this path exists for completeness.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u128(&mut self, key: u128) {
        self.0 = key as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn every_repeat_is_found_across_many_merges() {
        let mut seen = Seen::with_first_merge(16);
        for i in 0..20_000 {
            assert!(seen.insert(&format!("REF-{i}")), "{i} is new");
        }
        let run: Vec<u128> = (0..seen.sorted.len).map(|i| seen.sorted.get(i)).collect();
        assert!(run.len() > 2 * CHUNK, "the run spans several chunks");
        assert!(run.windows(2).all(|w| w[0] < w[1]));
        for i in (0..20_000).rev() {
            assert!(!seen.insert(&format!("REF-{i}")), "{i} was seen");
        }
        // Near misses of a seen reference are distinct references.
        for near in ["REF-1 ", "ref-1", "REF-01", "REF-1\u{0}", "REF-19999x"] {
            assert!(seen.insert(near), "{near:?}");
        }
    }

    #[test]
    fn the_first_value_is_kept_across_merges() {
        let mut seen: Seen<u64> = Seen::with_first_merge(16);
        for i in 0..10_000u64 {
            assert_eq!(seen.first(&format!("REF-{i}"), i + 2), None);
        }
        for i in (0..10_000u64).rev() {
            assert_eq!(seen.first(&format!("REF-{i}"), 0), Some(i + 2), "{i}");
        }
    }

    /// The recent table is merged, not grown, once it holds a thirty-second of the run: it
    /// never costs more than twice that, however many references come.
    #[test]
    fn the_recent_table_stays_a_small_share_of_the_run() {
        let mut seen = Seen::default();
        let mut merges = 0;
        for i in 0..300_000 {
            let before = seen.sorted.len;
            assert!(seen.insert(&format!("SANDBOX-OK-{i}")));
            merges += usize::from(seen.sorted.len != before);
            let share = FIRST_MERGE.max(seen.sorted.len / 32);
            assert!(
                seen.recent.capacity() <= 2 * share + 8,
                "{i}: {}",
                seen.recent.capacity()
            );
        }
        assert!(merges > 10, "{merges} merges");
        assert_eq!(seen.sorted.len + seen.recent.len(), 300_000);
    }

    #[test]
    fn a_line_is_kept_as_written_and_one_past_four_billion_as_the_last() {
        assert_eq!(kept_line(1_073_741_825), 1_073_741_825);
        assert_eq!(kept_line(u64::from(u32::MAX)), u32::MAX);
        assert_eq!(kept_line(u64::from(u32::MAX) + 1), u32::MAX);
    }

    #[test]
    fn keys_differ_between_runs() {
        let (a, b): (Seen, Seen) = (Seen::default(), Seen::default());
        assert_ne!(a.hasher.hash(b"R").as_u128(), b.hasher.hash(b"R").as_u128());
    }

    proptest! {
        /// Whatever the order and repetition, the set answers as a set of strings would.
        #[test]
        fn agrees_with_a_set_of_strings(
            refs in proptest::collection::vec("[A-C]{0,3}", 0..400),
            first_merge in 1usize..40,
        ) {
            let mut seen = Seen::with_first_merge(first_merge);
            let mut model = std::collections::HashSet::new();
            for r in &refs {
                prop_assert_eq!(seen.insert(r), model.insert(r.clone()), "{:?}", r);
            }
        }
    }
}
