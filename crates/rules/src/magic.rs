//! Sliding attacks of orthogonal and diagonal riders on the 8x8 frame by magic bitboards.
//! Smaller boards reuse the tables by treating off-board squares as blockers.

use crate::bitboard::Bitboard;
use crate::square::Square;
use std::sync::LazyLock;

#[rustfmt::skip]
mod magic_numbers;
use magic_numbers::{BISHOP_MAGICS, ROOK_MAGICS};

const ROOK_DIRS: [(i8, i8); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const BISHOP_DIRS: [(i8, i8); 4] = [(1, 1), (-1, 1), (1, -1), (-1, -1)];

#[derive(Clone, Copy, Default)]
struct Entry {
    mask: u64,
    magic: u64,
    shift: u32,
    offset: u32,
}

/// Slider attack tables for rooks and bishops plus the line and between tables.
pub struct Sliders {
    rook: [Entry; 64],
    bishop: [Entry; 64],
    table: Vec<u64>,
    between: Vec<u64>,
    line: Vec<u64>,
}

fn slide(sq: Square, occ: u64, dirs: &[(i8, i8)]) -> u64 {
    let mut out = 0u64;
    for &(dx, dy) in dirs {
        let mut cur = sq;
        while let Some(next) = cur.offset(dx, dy) {
            out |= 1 << next.index();
            if occ & (1 << next.index()) != 0 {
                break;
            }
            cur = next;
        }
    }
    out
}

fn relevant_mask(sq: Square, dirs: &[(i8, i8)]) -> u64 {
    let mut out = 0u64;
    for &(dx, dy) in dirs {
        let mut cur = sq;
        while let Some(next) = cur.offset(dx, dy) {
            // The last square of a ray never blocks anything beyond it.
            if next.offset(dx, dy).is_none() {
                break;
            }
            out |= 1 << next.index();
            cur = next;
        }
    }
    out
}

/// A small deterministic generator for the magic search (xorshift64*).
struct Xorshift(u64);

impl Xorshift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn sparse(&mut self) -> u64 {
        self.next() & self.next() & self.next()
    }
}

/// Fills the table for every square, using `known` magics where given (verified), searching otherwise.
fn find_magics(dirs: &[(i8, i8)], known: Option<&[u64; 64]>, table: &mut Vec<u64>, rng: &mut Xorshift) -> [Entry; 64] {
    let mut entries = [Entry::default(); 64];
    let mut occs = Vec::with_capacity(4096);
    let mut atts = Vec::with_capacity(4096);
    let mut used = vec![0u32; 4096];
    let mut epoch = 0u32;
    for (i, entry) in entries.iter_mut().enumerate() {
        let sq = Square::from_index(i as u8);
        let mask = relevant_mask(sq, dirs);
        let bits = mask.count_ones();
        let shift = 64 - bits;
        occs.clear();
        atts.clear();
        // Carry-Rippler enumeration of all subsets of the mask.
        let mut sub = 0u64;
        loop {
            occs.push(sub);
            atts.push(slide(sq, sub, dirs));
            sub = sub.wrapping_sub(mask) & mask;
            if sub == 0 {
                break;
            }
        }
        let size = 1usize << bits;
        let offset = table.len();
        table.resize(offset + size, 0);
        let mut candidate = known.map(|k| k[i]);
        loop {
            let magic = match candidate.take() {
                Some(m) => m,
                None => {
                    let m = rng.sparse();
                    if (mask.wrapping_mul(m) >> 56).count_ones() < 6 {
                        continue;
                    }
                    m
                }
            };
            epoch += 1;
            let mut ok = true;
            for (&o, &a) in occs.iter().zip(atts.iter()) {
                let idx = (o.wrapping_mul(magic) >> shift) as usize;
                if used[idx] != epoch {
                    used[idx] = epoch;
                    table[offset + idx] = a;
                } else if table[offset + idx] != a {
                    ok = false;
                    break;
                }
            }
            if ok {
                *entry = Entry { mask, magic, shift, offset: offset as u32 };
                break;
            }
        }
    }
    entries
}

/// Searches magics from scratch (how the built-in rook and bishop magics were found).
pub fn search_magics() -> ([u64; 64], [u64; 64]) {
    let mut table = Vec::new();
    let mut rng = Xorshift(0x9E37_79B9_7F4A_7C15);
    let r = find_magics(&ROOK_DIRS, None, &mut table, &mut rng);
    let b = find_magics(&BISHOP_DIRS, None, &mut table, &mut rng);
    (r.map(|e| e.magic), b.map(|e| e.magic))
}

impl Sliders {
    fn build() -> Sliders {
        let mut table = Vec::with_capacity(102_400 + 5_248);
        let mut rng = Xorshift(0x9E37_79B9_7F4A_7C15);
        let rook = find_magics(&ROOK_DIRS, Some(&ROOK_MAGICS), &mut table, &mut rng);
        let bishop = find_magics(&BISHOP_DIRS, Some(&BISHOP_MAGICS), &mut table, &mut rng);
        let mut between = vec![0u64; 64 * 64];
        let mut line = vec![0u64; 64 * 64];
        for a in 0..64u8 {
            let sa = Square::from_index(a);
            for &(dx, dy) in ROOK_DIRS.iter().chain(BISHOP_DIRS.iter()) {
                let mut cur = sa;
                let mut path = 0u64;
                while let Some(next) = cur.offset(dx, dy) {
                    between[a as usize * 64 + next.index()] = path;
                    let full = slide(sa, 0, &[(dx, dy), (-dx, -dy)]) | (1 << a);
                    line[a as usize * 64 + next.index()] = full;
                    path |= 1 << next.index();
                    cur = next;
                }
            }
        }
        Sliders { rook, bishop, table, between, line }
    }

    /// Rook attacks from `sq` given the blockers `occ` (8x8 frame).
    #[inline]
    pub fn rook(&self, sq: Square, occ: Bitboard) -> Bitboard {
        let e = &self.rook[sq.index()];
        let idx = ((occ.0 & e.mask).wrapping_mul(e.magic) >> e.shift) as usize;
        Bitboard(self.table[e.offset as usize + idx])
    }

    /// Bishop attacks from `sq` given the blockers `occ` (8x8 frame).
    #[inline]
    pub fn bishop(&self, sq: Square, occ: Bitboard) -> Bitboard {
        let e = &self.bishop[sq.index()];
        let idx = ((occ.0 & e.mask).wrapping_mul(e.magic) >> e.shift) as usize;
        Bitboard(self.table[e.offset as usize + idx])
    }

    /// The squares strictly between `a` and `b` if they share a rank, file or diagonal.
    #[inline]
    pub fn between(&self, a: Square, b: Square) -> Bitboard {
        Bitboard(self.between[a.index() * 64 + b.index()])
    }

    /// The whole line (8x8 frame) through `a` and `b`, or empty if they are not aligned.
    #[inline]
    pub fn line(&self, a: Square, b: Square) -> Bitboard {
        Bitboard(self.line[a.index() * 64 + b.index()])
    }
}

static SLIDERS: LazyLock<Sliders> = LazyLock::new(Sliders::build);

/// The process-wide slider tables (built on first use, a few milliseconds).
pub fn sliders() -> &'static Sliders {
    &SLIDERS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_lookup_matches_ray_walk() {
        let s = sliders();
        let mut rng = Xorshift(12345);
        for _ in 0..20_000 {
            let occ = rng.next() & rng.next();
            let sq = Square::from_index((rng.next() % 64) as u8);
            assert_eq!(s.rook(sq, Bitboard(occ)).0, slide(sq, occ, &ROOK_DIRS));
            assert_eq!(s.bishop(sq, Bitboard(occ)).0, slide(sq, occ, &BISHOP_DIRS));
        }
    }

    #[test]
    #[ignore = "prints freshly searched magics for magic_numbers.rs"]
    fn print_magics() {
        let (r, b) = search_magics();
        println!("pub const ROOK_MAGICS: [u64; 64] = {r:#x?};");
        println!("pub const BISHOP_MAGICS: [u64; 64] = {b:#x?};");
    }

    #[test]
    fn stored_magics_are_collision_free() {
        // find_magics keeps a stored magic only if it indexes without destructive collisions.
        let s = sliders();
        for i in 0..64 {
            assert_eq!(s.rook[i].magic, ROOK_MAGICS[i]);
            assert_eq!(s.bishop[i].magic, BISHOP_MAGICS[i]);
        }
    }

    #[test]
    fn between_and_line() {
        let s = sliders();
        let a1 = Square::A1;
        let h8 = Square::new(7, 7).unwrap();
        let d4 = Square::new(3, 3).unwrap();
        assert_eq!(s.between(a1, h8).count(), 6);
        assert!(s.line(a1, d4).contains(h8));
        assert!(s.between(a1, Square::new(1, 2).unwrap()).is_empty());
    }
}
