//! A bit per table position, shared by the generator's threads (atomic words, relaxed order): the
//! won sets, the frontier of the last distance level and the loss candidates.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

/// Words per parallel work item when walking set bits.
const WORDS_PER_TASK: usize = 512;

/// A fixed-size set of positions.
#[derive(Debug)]
pub struct Bitmap {
    words: Vec<AtomicU64>,
}

impl Bitmap {
    /// An empty set for `bits` positions.
    pub fn new(bits: u64) -> Bitmap {
        Bitmap { words: (0..bits.div_ceil(64)).map(|_| AtomicU64::new(0)).collect() }
    }

    /// Adds `i`; returns whether it was absent.
    #[inline]
    pub fn insert(&self, i: u64) -> bool {
        let bit = 1u64 << (i & 63);
        let w = &self.words[(i >> 6) as usize];
        if w.load(Relaxed) & bit != 0 {
            return false;
        }
        w.fetch_or(bit, Relaxed) & bit == 0
    }

    /// Hints the cache to fetch the word of `i`.
    #[inline]
    pub fn prefetch(&self, i: u64) {
        if let Some(w) = self.words.get((i >> 6) as usize) {
            crate::memory::prefetch(w);
        }
    }

    /// Whether `i` is in the set.
    #[inline]
    pub fn contains(&self, i: u64) -> bool {
        self.words[(i >> 6) as usize].load(Relaxed) & (1u64 << (i & 63)) != 0
    }

    /// The word holding bits `64 * w .. 64 * w + 64`.
    #[inline]
    pub fn word(&self, w: usize) -> u64 {
        self.words[w].load(Relaxed)
    }

    /// Overwrites word `w` (see [`Bitmap::word`]).
    #[inline]
    pub fn set_word(&self, w: usize, bits: u64) {
        self.words[w].store(bits, Relaxed);
    }

    /// Removes everything.
    pub fn clear(&self) {
        self.words.par_iter().for_each(|w| w.store(0, Relaxed));
    }

    /// Number of positions in the set.
    pub fn count(&self) -> u64 {
        self.words.par_iter().map(|w| u64::from(w.load(Relaxed).count_ones())).sum()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.words.par_iter().all(|w| w.load(Relaxed) == 0)
    }

    /// Calls `f(i)` for every member, in parallel.
    pub fn par_for_each(&self, f: impl Fn(u64) + Sync + Send) {
        self.words.par_chunks(WORDS_PER_TASK).enumerate().for_each(|(c, chunk)| {
            for (k, w) in chunk.iter().enumerate() {
                let mut bits = w.load(Relaxed);
                let base = ((c * WORDS_PER_TASK + k) as u64) << 6;
                while bits != 0 {
                    f(base + u64::from(bits.trailing_zeros()));
                    bits &= bits - 1;
                }
            }
        });
    }

    /// Swaps the contents of two sets of the same size.
    pub fn swap(&mut self, other: &mut Bitmap) {
        std::mem::swap(&mut self.words, &mut other.words);
    }

    /// Bytes used.
    pub fn bytes(&self) -> u64 {
        self.words.len() as u64 * 8
    }
}
