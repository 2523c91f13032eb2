//! The transposition table: two-entry buckets of packed atomics, replace by depth and age.
//! Entries store the best move's raw code, a bounded value, the depth and the bound kind.

use crate::score::Value;
use std::sync::atomic::{AtomicU64, Ordering};

/// What a stored value means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// The true value is at most this.
    Upper = 1,
    /// The true value is at least this.
    Lower = 2,
    /// The true value.
    Exact = 3,
}

/// One probe result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// The best (or refuting) move's raw code, 0 if none.
    pub mv: u32,
    /// The stored value (mate distances from this node).
    pub value: Value,
    /// The static evaluation.
    pub eval: Value,
    /// Remaining depth of the search that stored it.
    pub depth: i32,
    /// The bound kind.
    pub bound: Bound,
}

impl Entry {
    /// The stored value `ply` plies below the root, if its bound settles the window
    /// `(alpha, beta)` (the caller checks that the entry is deep enough).
    #[inline]
    pub fn cutoff(&self, ply: usize, alpha: Value, beta: Value) -> Option<Value> {
        let v = crate::score::from_tt(self.value, ply);
        let cut = match self.bound {
            Bound::Exact => true,
            Bound::Lower => v >= beta,
            Bound::Upper => v <= alpha,
        };
        cut.then_some(v)
    }
}

#[derive(Default)]
struct Slot {
    key: AtomicU64,
    data: AtomicU64,
}

/// A shared hash table of search results.
pub struct Tt {
    slots: Vec<Slot>,
    buckets: usize,
    age: u8,
}

/// Default size in MiB.
pub const DEFAULT_MB: usize = 16;

impl Tt {
    /// A table of about `mb` MiB (at least one bucket).
    ///
    /// # Panics
    ///
    /// If the memory cannot be had (see [`Tt::try_new`]).
    pub fn new(mb: usize) -> Tt {
        Tt::try_new(mb).unwrap_or_else(|e| panic!("a hash table of {mb} MiB: {e}"))
    }

    /// A table of about `mb` MiB (at least one bucket), or the allocator's refusal.
    ///
    /// # Errors
    ///
    /// The memory cannot be had (more than the machine has, or than its overcommit allows).
    pub fn try_new(mb: usize) -> Result<Tt, std::collections::TryReserveError> {
        let buckets = (mb.max(1).saturating_mul(1024 * 1024) / 32).max(1);
        let mut slots = Vec::new();
        slots.try_reserve_exact(buckets.saturating_mul(2))?;
        advise_huge_pages(&slots);
        // Written by every core: touching the pages is most of a large table's cost (Stockfish
        // clears its table on all threads likewise).
        (0..buckets * 2).into_par_iter().map(|_| Slot::default()).collect_into_vec(&mut slots);
        Ok(Tt { slots, buckets, age: 0 })
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.slots.par_iter().for_each(|s| {
            s.key.store(0, Ordering::Relaxed);
            s.data.store(0, Ordering::Relaxed);
        });
        self.age = 0;
    }

    /// Starts a new search (older entries become preferred victims).
    pub fn new_search(&mut self) {
        self.age ^= 1;
    }

    #[inline]
    fn bucket(&self, key: u64) -> usize {
        ((key as u128 * self.buckets as u128) >> 64) as usize * 2
    }

    /// Hints the processor to load the bucket of `key` into cache: called right after a
    /// move is made, so the child's probe does not wait for memory (as Stockfish does).
    #[inline]
    pub fn prefetch(&self, key: u64) {
        prefetch(&self.slots[self.bucket(key)]);
    }

    /// Looks `key` up.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let b = self.bucket(key);
        for s in &self.slots[b..b + 2] {
            let data = s.data.load(Ordering::Relaxed);
            if data != 0 && s.key.load(Ordering::Relaxed) ^ data == key {
                return Some(unpack(data));
            }
        }
        None
    }

    /// Stores a result, keeping the move of an older entry for the same position if none is given.
    #[inline]
    pub fn store(&self, key: u64, mv: u32, value: Value, eval: Value, depth: i32, bound: Bound) {
        let b = self.bucket(key);
        let mut victim = b;
        let mut victim_score = i32::MAX;
        for i in b..b + 2 {
            let s = &self.slots[i];
            let data = s.data.load(Ordering::Relaxed);
            if data == 0 || s.key.load(Ordering::Relaxed) ^ data == key {
                victim = i;
                break;
            }
            let e = unpack(data);
            let age = data_age(data);
            let stale = if age == self.age { 0 } else { 8 };
            let score = e.depth - stale;
            if score < victim_score {
                victim_score = score;
                victim = i;
            }
        }
        let s = &self.slots[victim];
        let old = s.data.load(Ordering::Relaxed);
        let same = old != 0 && s.key.load(Ordering::Relaxed) ^ old == key;
        // A much shallower bound (e.g. from quiescence) does not replace a deep result.
        if same && bound != Bound::Exact && unpack(old).depth > depth + 3 && data_age(old) == self.age {
            return;
        }
        let mv = if mv == 0 && same { unpack(old).mv } else { mv };
        let data = encode(mv, value, eval, depth, bound, self.age);
        s.key.store(key ^ data, Ordering::Relaxed);
        s.data.store(data, Ordering::Relaxed);
    }

    /// Permille of the first thousand slots used by the current search.
    pub fn hashfull(&self) -> u32 {
        let n = self.slots.len().min(1000);
        let used = self.slots[..n]
            .iter()
            .filter(|s| {
                let d = s.data.load(Ordering::Relaxed);
                d != 0 && data_age(d) == self.age
            })
            .count();
        (used * 1000 / n.max(1)) as u32
    }
}

// Layout of the 64 data bits: move code 22 | bound 2 | value 16 | eval 16 | depth + 1 7 |
// age 1. One age bit is enough: it only says whether the current search wrote the entry.
#[inline]
fn encode(mv: u32, value: Value, eval: Value, depth: i32, bound: Bound, age: u8) -> u64 {
    (mv as u64 & 0x3f_ffff)
        | ((bound as u64) << 22)
        | ((value as i16 as u16 as u64) << 24)
        | ((eval as i16 as u16 as u64) << 40)
        | (((depth.clamp(-1, 126) + 1) as u64) << 56)
        | (((age & 1) as u64) << 63)
}

#[inline]
fn data_age(data: u64) -> u8 {
    (data >> 63) as u8
}

#[inline]
fn unpack(data: u64) -> Entry {
    let bound = match (data >> 22) & 3 {
        1 => Bound::Upper,
        2 => Bound::Lower,
        _ => Bound::Exact,
    };
    Entry {
        mv: (data & 0x3f_ffff) as u32,
        value: (data >> 24) as u16 as i16 as Value,
        eval: (data >> 40) as u16 as i16 as Value,
        depth: ((data >> 56) & 0x7f) as i32 - 1,
        bound,
    }
}

use egt::memory::advise_huge_pages;
pub(crate) use egt::memory::prefetch;
use rayon::prelude::*;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_and_probe_round_trip() {
        let tt = Tt::new(1);
        tt.store(0xdead_beef_1234_5678, 0x12345, -31_990, 47, 9, Bound::Lower);
        let e = tt.probe(0xdead_beef_1234_5678).unwrap();
        assert_eq!(e, Entry { mv: 0x12345, value: -31_990, eval: 47, depth: 9, bound: Bound::Lower });
        assert!(tt.probe(0x1111).is_none());
    }
}
