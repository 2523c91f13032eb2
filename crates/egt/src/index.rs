//! Table indexing: a position's men squares to one number and back, the white royal on a fundamental
//! square, identical men as one unordered group, and FairyGen's tie-break on symmetry lines.
//!
//! The index is mixed-radix over slots, most significant first: the white royal (one of the group's
//! fundamental squares), then each further man, a run of identical men taking one slot of
//! `C(squares, k)` combinations (colex order). When several transforms bring the white royal to its
//! fundamental square (on 8x8: the royal on the a1-d4 diagonal), the second man breaks the tie: its
//! image must be the smallest square (on 8x8: in the a1-h1-h8 triangle), as FairyGen does. When the
//! second man ties too, every tied image is stored (FairyGen's "both diagonally mirrored positions";
//! they hold equal values). So the canonical transform depends on the first two men only, and a move
//! of any other man changes one slot. Indices of other images, and of placements with two men on one
//! square, are holes marked invalid in the table.

use std::sync::Arc;

use crate::material::{Material, MAX_MEN};
use crate::symmetry::SymmetryGroup;

/// Men squares of a position, in the material's man order (unused entries are 0).
pub type Squares = [u8; MAX_MEN];

/// The colex rank of two distinct squares (`C(lo, 1) + C(hi, 2)`).
#[inline]
fn rank2(a: u8, b: u8) -> u64 {
    let (lo, hi) = if a < b { (u64::from(a), u64::from(b)) } else { (u64::from(b), u64::from(a)) };
    lo + hi * hi.saturating_sub(1) / 2
}

/// `C(n, k)` for `n <= 64`, `k <= MAX_MEN`.
fn binomials() -> [[u64; MAX_MEN + 1]; 65] {
    let mut b = [[0u64; MAX_MEN + 1]; 65];
    for n in 0..=64 {
        b[n][0] = 1;
        for k in 1..=MAX_MEN.min(n) {
            b[n][k] = b[n - 1][k - 1] + if k < n { b[n - 1][k] } else { 0 };
        }
    }
    b
}

#[derive(Debug, Clone)]
struct Slot {
    /// First man of the slot.
    first: usize,
    /// Men in the slot (identical men share one).
    k: usize,
    stride: u64,
    size: u64,
    /// For `k >= 2`: the squares of each combination rank, `k` bytes per rank.
    unrank: Vec<u8>,
}

/// Maps positions of one material to table indices and back.
#[derive(Debug, Clone)]
pub struct Indexer {
    group: Arc<SymmetryGroup>,
    men: usize,
    slots: Vec<Slot>,
    size: u64,
    binom: [[u64; MAX_MEN + 1]; 65],
    /// Per man: its slot.
    slot_of: [usize; MAX_MEN],
    /// Per man alone in a slot after the first: the slot's stride (0 for the others).
    single_stride: [u64; MAX_MEN],
    /// Whether every slot after the first holds a single man (no identical men): indices are then
    /// a plain sum over the men.
    all_single: bool,
    /// Per man: its slot's stride.
    man_stride: [u64; MAX_MEN],
    /// The white royal's squares that only the identity keeps fundamental (off every symmetry line):
    /// there a move of the second man keeps the storing transform too.
    off_lines: u64,
}

impl Indexer {
    /// The number of indices `material` needs under `group`, without building anything
    /// (saturating: a material too large for memory gives a huge number, never a panic).
    pub fn size_of(material: &Material, group: &SymmetryGroup) -> u64 {
        let squares = group.board().squares();
        let binom = binomials();
        let n = material.men().len();
        let mut size = group.domain().len() as u64;
        let mut i = 1;
        while i < n {
            let mut k = 1;
            while i + k < n && material.identical(i, i + k) {
                k += 1;
            }
            size = size.saturating_mul(binom[squares][k]);
            i += k;
        }
        size
    }

    /// The indexer of `material` under `group` (whose board it uses).
    pub fn new(material: &Material, group: Arc<SymmetryGroup>) -> Indexer {
        let squares = group.board().squares();
        let binom = binomials();
        let n = material.men().len();
        let mut slots = Vec::new();
        let mut i = 0;
        while i < n {
            let mut k = 1;
            if i > 0 {
                while i + k < n && material.identical(i, i + k) {
                    k += 1;
                }
            }
            let size = if i == 0 { group.domain().len() as u64 } else { binom[squares][k] };
            let mut unrank = Vec::new();
            if k >= 2 {
                unrank = vec![0u8; size as usize * k];
                let mut combo: Vec<u8> = (0..k as u8).collect();
                loop {
                    let rank: u64 = combo.iter().enumerate().map(|(j, &s)| binom[usize::from(s)][j + 1]).sum();
                    unrank[rank as usize * k..rank as usize * k + k].copy_from_slice(&combo);
                    // Next combination in lexicographic order.
                    let mut j = k;
                    loop {
                        if j == 0 {
                            break;
                        }
                        j -= 1;
                        if usize::from(combo[j]) < squares - (k - j) {
                            combo[j] += 1;
                            for l in j + 1..k {
                                combo[l] = combo[l - 1] + 1;
                            }
                            j = usize::MAX;
                            break;
                        }
                    }
                    if j != usize::MAX {
                        break;
                    }
                }
            }
            slots.push(Slot { first: i, k, stride: 0, size, unrank });
            i += k;
        }
        let mut stride = 1u64;
        for slot in slots.iter_mut().rev() {
            slot.stride = stride;
            stride = stride.saturating_mul(slot.size);
        }
        let mut slot_of = [0usize; MAX_MEN];
        for (i, slot) in slots.iter().enumerate() {
            for m in slot.first..slot.first + slot.k {
                slot_of[m] = i;
            }
        }
        let mut single_stride = [0u64; MAX_MEN];
        for slot in slots.iter().skip(1).filter(|s| s.k == 1) {
            single_stride[slot.first] = slot.stride;
        }
        let off_lines = (0..squares as u8).filter(|&s| group.to_domain(s).len() == 1).fold(0, |a, s| a | 1u64 << s);
        let all_single = slots.iter().all(|s| s.k == 1);
        let mut man_stride = [0u64; MAX_MEN];
        for slot in &slots {
            man_stride[slot.first] = slot.stride;
        }
        Indexer { group, men: n, slots, size: stride, binom, slot_of, single_stride, all_single, man_stride, off_lines }
    }

    /// Number of indices (holes included).
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Number of men.
    pub fn men(&self) -> usize {
        self.men
    }

    /// The symmetry group.
    pub fn group(&self) -> &SymmetryGroup {
        &self.group
    }

    /// The value of slot `i` for the image of `sq` under transform `t`.
    #[inline]
    fn slot_value(&self, i: usize, t: u8, sq: &Squares) -> u64 {
        self.slot_value_in(i, self.group.map_of(t), sq)
    }

    /// The value of the second slot (the tie-break) for the image of `sq` under transform `t`.
    #[inline]
    fn second_value(&self, t: u8, sq: &Squares) -> u64 {
        let slot = &self.slots[1];
        if slot.k == 1 {
            u64::from(self.group.map_of(t)[usize::from(sq[slot.first])])
        } else {
            self.slot_value(1, t, sq)
        }
    }

    /// The value of slot `i` for the image of `sq` under the square map `mp`.
    #[inline]
    fn slot_value_in(&self, i: usize, mp: &[u8; 64], sq: &Squares) -> u64 {
        let map = |s: u8| mp[usize::from(s)];
        let slot = &self.slots[i];
        if slot.first == 0 {
            self.group.domain_index(map(sq[0])) as u64
        } else if slot.k == 1 {
            u64::from(map(sq[slot.first]))
        } else if slot.k == 2 {
            rank2(map(sq[slot.first]), map(sq[slot.first + 1]))
        } else {
            let mut s = [0u8; MAX_MEN];
            for j in 0..slot.k {
                s[j] = map(sq[slot.first + j]);
            }
            self.rank(&mut s[..slot.k])
        }
    }

    /// The index of the image of `sq` under transform `t` (which must take the white royal to a
    /// fundamental square).
    #[inline]
    fn raw_index(&self, t: u8, sq: &Squares) -> u64 {
        let mp = self.group.map_of(t);
        if self.all_single {
            let royal = self.group.domain_index(mp[usize::from(sq[0])]) as u64 * self.man_stride[0];
            return (1..self.men).fold(royal, |a, m| a + u64::from(mp[usize::from(sq[m])]) * self.man_stride[m]);
        }
        (0..self.slots.len()).map(|i| self.slot_value_in(i, mp, sq) * self.slots[i].stride).sum()
    }

    /// The transform that stores a position: the first (the identity when it qualifies) of those that
    /// take the white royal to its fundamental square and give the second slot its smallest value.
    #[inline]
    fn transform(&self, sq: &Squares) -> u8 {
        let ts = self.group.to_domain(sq[0]);
        if ts.len() == 1 || self.slots.len() < 2 {
            return ts[0];
        }
        let mut best = ts[0];
        let mut low = self.second_value(best, sq);
        for &t in &ts[1..] {
            let v = self.second_value(t, sq);
            if v < low {
                low = v;
                best = t;
            }
        }
        best
    }

    /// The index of a position (men on distinct squares).
    #[inline]
    pub fn index(&self, sq: &Squares) -> u64 {
        self.raw_index(self.transform(sq), sq)
    }

    /// Whether a move of man `m` keeps the storing transform (the identity), so that only his slot
    /// changes: a man outside the first two slots, or the second with the royal off the symmetry lines.
    #[inline(always)]
    fn keeps_transform(&self, sq: &Squares, m: usize) -> bool {
        let si = self.slot_of[m];
        si >= 2 || (si == 1 && self.off_lines >> sq[0] & 1 != 0)
    }

    /// The canonical index of `sq` with man `m` moved to `to`, given `idx`, the index of `sq`.
    #[inline(always)]
    pub fn index_after_move(&self, idx: u64, sq: &Squares, m: usize, to: u8) -> u64 {
        let stride = self.single_stride[m];
        if stride != 0 && self.keeps_transform(sq, m) {
            // A single man's slot: the index changes by the stride times the squares moved.
            (idx + u64::from(to) * stride) - u64::from(sq[m]) * stride
        } else {
            self.index_after_move_slow(idx, sq, m, to)
        }
    }

    /// [`Indexer::index_after_move`] for the moves that change more than a single man's slot.
    #[inline(never)]
    fn index_after_move_slow(&self, idx: u64, sq: &Squares, m: usize, to: u8) -> u64 {
        if self.keeps_transform(sq, m) {
            let slot = &self.slots[self.slot_of[m]];
            if slot.k == 2 {
                let other = sq[2 * slot.first + 1 - m];
                return idx + rank2(to, other) * slot.stride - rank2(sq[m], other) * slot.stride;
            }
            let mut s = [0u8; MAX_MEN];
            s[..slot.k].copy_from_slice(&sq[slot.first..slot.first + slot.k]);
            let old: u64 = self.rank(&mut s[..slot.k]);
            s[..slot.k].copy_from_slice(&sq[slot.first..slot.first + slot.k]);
            s[m - slot.first] = to;
            let new: u64 = self.rank(&mut s[..slot.k]);
            return idx + new * slot.stride - old * slot.stride;
        }
        let mut c = *sq;
        c[m] = to;
        self.index(&c)
    }

    /// Calls `f` with every stored index of the position after man `m` moves to `to` (several when
    /// the result lies on a symmetry line with its second man tied: FairyGen keeps all such images).
    #[inline(always)]
    pub fn for_each_index_after_move(&self, idx: u64, sq: &Squares, m: usize, to: u8, mut f: impl FnMut(u64)) {
        if self.keeps_transform(sq, m) {
            f(self.index_after_move(idx, sq, m, to));
        } else {
            let mut c = *sq;
            c[m] = to;
            self.for_each_stored(&c, f);
        }
    }

    /// Calls `f` with every stored index of a position (men on distinct squares).
    #[inline]
    pub fn for_each_stored(&self, sq: &Squares, mut f: impl FnMut(u64)) {
        let ts = self.group.to_domain(sq[0]);
        if ts.len() == 1 || self.slots.len() < 2 {
            f(self.raw_index(ts[0], sq));
            return;
        }
        // The tie-break values, once each (the group has at most 8 transforms).
        let mut second = [0u64; 8];
        let mut low = u64::MAX;
        for (v, &t) in second.iter_mut().zip(ts) {
            *v = self.second_value(t, sq);
            low = low.min(*v);
        }
        for (&v, &t) in second.iter().zip(ts) {
            if v == low {
                f(self.raw_index(t, sq));
            }
        }
    }

    /// The colex rank of a set of squares (sorted in place).
    #[inline]
    fn rank(&self, s: &mut [u8]) -> u64 {
        s.sort_unstable();
        s.iter().enumerate().map(|(j, &x)| self.binom[usize::from(x)][j + 1]).sum()
    }

    /// How many placements each stored index stands for: the group's order over the number of
    /// stored images of the position (`sq` must be stored: its own index).
    pub fn weight(&self, sq: &Squares) -> u64 {
        let ts = self.group.to_domain(sq[0]);
        let stored = if self.slots.len() < 2 {
            ts.len()
        } else {
            let low = ts.iter().map(|&t| self.second_value(t, sq)).min().unwrap_or(0);
            ts.iter().filter(|&&t| self.second_value(t, sq) == low).count()
        };
        self.group.order() as u64 / stored as u64
    }

    /// The men squares of an index (identical men ascending).
    #[inline]
    pub fn decode(&self, idx: u64) -> Squares {
        let mut sq = [0u8; MAX_MEN];
        let mut x = idx;
        for (i, slot) in self.slots.iter().enumerate().rev() {
            let v = if i == 0 {
                x
            } else if slot.size.is_power_of_two() {
                let v = x & (slot.size - 1);
                x >>= slot.size.trailing_zeros();
                v
            } else {
                let q = x / slot.size;
                let v = x - q * slot.size;
                x = q;
                v
            };
            if slot.first == 0 {
                sq[0] = self.group.domain()[v as usize];
            } else if slot.k == 1 {
                sq[slot.first] = v as u8;
            } else {
                let at = v as usize * slot.k;
                sq[slot.first..slot.first + slot.k].copy_from_slice(&slot.unrank[at..at + slot.k]);
            }
        }
        sq
    }

    /// The man of the last slot when it is a single man (stride 1), with the number of squares:
    /// consecutive indices then move that man one square on.
    pub fn last_single(&self) -> Option<(usize, u64)> {
        let slot = self.slots.last()?;
        (self.slots.len() >= 2 && slot.k == 1).then_some((slot.first, slot.size))
    }

    /// Whether an index is a real, canonical position: men on distinct squares, and the index its
    /// own canonical one. Returns the squares when it is.
    pub fn valid(&self, idx: u64) -> Option<Squares> {
        let sq = self.decode(idx);
        self.is_valid(&sq).then_some(sq)
    }

    /// Whether a transform other than the identity maps the position onto itself (each man onto an
    /// identical man's square).
    pub fn is_symmetric(&self, sq: &Squares) -> bool {
        // Such a transform fixes the white royal's (fundamental) square: none but the identity does
        // when only one transform takes that square to the domain.
        if self.group.to_domain(sq[0]).len() == 1 {
            return false;
        }
        let g = &*self.group;
        (0..g.order() as u8).filter(|&t| !g.is_identity(t)).any(|t| {
            let mp = g.map_of(t);
            self.slots.iter().all(|slot| {
                let men = &sq[slot.first..slot.first + slot.k];
                men.iter().fold(0u64, |a, &s| a | 1 << mp[usize::from(s)]) == men.iter().fold(0u64, |a, &s| a | 1 << s)
            })
        })
    }

    /// Whether decoded squares are a real, canonical position (see [`Indexer::valid`]).
    #[inline]
    pub fn is_valid(&self, sq: &Squares) -> bool {
        let mut seen = 0u64;
        for &s in &sq[..self.men] {
            if seen & (1 << s) != 0 {
                return false;
            }
            seen |= 1 << s;
        }
        // Stored: the second man's square is its smallest image under the royal's transforms.
        let ts = self.group.to_domain(sq[0]);
        let stored = ts.len() == 1 || self.slots.len() < 2 || {
            let own = self.second_value(0, sq);
            ts.iter().all(|&t| self.second_value(t, sq) >= own)
        };
        stored
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::BoardShape;
    use crate::pieces::PieceSet;

    /// Every stored index decodes to a position that indexes back to it, and the incremental
    /// index after a move equals the full one.
    #[test]
    fn indices_round_trip_and_moves_agree() {
        let pieces = PieceSet::orthodox();
        for (name, board) in [
            ("K.KR", BoardShape::default()),
            ("KBB.KN", BoardShape::new(5, 5).expect("5x5")),
            ("KN.K", BoardShape::default()),
        ] {
            let m = Material::parse(name, &pieces).expect("material");
            let group = Arc::new(SymmetryGroup::for_material(board, &m));
            let ix = Indexer::new(&m, group.clone());
            assert_eq!(Indexer::size_of(&m, &group), ix.size(), "{name}");
            let n = board.squares() as u8;
            for idx in 0..ix.size() {
                let Some(sq) = ix.valid(idx) else { continue };
                assert_eq!(ix.index(&sq), idx, "{name} {sq:?}");
                for man in 0..ix.men() {
                    for to in 0..n {
                        if sq[..ix.men()].contains(&to) {
                            continue;
                        }
                        let mut c = sq;
                        c[man] = to;
                        assert_eq!(
                            ix.index_after_move(idx, &sq, man, to),
                            ix.index(&c),
                            "{name} {sq:?} man {man} to {to}"
                        );
                    }
                }
            }
        }
    }
}
