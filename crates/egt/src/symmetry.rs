//! The board symmetries a table may use: those of the eight (four on an oblong board) that map every
//! piece's moves, for both colours, onto themselves; and the white royal's fundamental squares.
//!
//! With orthodox or FairyGen `*` pieces on a square board the group has eight elements and the white
//! royal keeps to the a1-d1-d4 triangle; a `+` piece keeps the four mirrorings; a piece that is not
//! left-right symmetric leaves only the identity. Black's steps mirror `dy`, so a piece that moves
//! differently forward and backward loses the rank mirroring but keeps the file mirroring.

use std::collections::BTreeSet;

use crate::board::BoardShape;
use crate::material::Material;

/// One board symmetry: optionally swap file and rank, then mirror files and/or ranks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transform {
    /// Swap file and rank first (square boards only).
    pub swap: bool,
    /// Mirror the files (a <-> h).
    pub flip_files: bool,
    /// Mirror the ranks (1 <-> 8).
    pub flip_ranks: bool,
}

impl Transform {
    /// The image of a step.
    pub fn step(self, dx: i32, dy: i32) -> (i32, i32) {
        let (a, b) = if self.swap { (dy, dx) } else { (dx, dy) };
        (if self.flip_files { -a } else { a }, if self.flip_ranks { -b } else { b })
    }

    /// The image of a square.
    pub fn square(self, board: BoardShape, sq: u8) -> u8 {
        let (f, r) = (i32::from(board.file(sq)), i32::from(board.rank(sq)));
        let (a, b) = if self.swap { (r, f) } else { (f, r) };
        let a = if self.flip_files { i32::from(board.files) - 1 - a } else { a };
        let b = if self.flip_ranks { i32::from(board.ranks) - 1 - b } else { b };
        board.square(a, b).unwrap_or(sq)
    }
}

/// The symmetry group of a family of tables and the white royal's fundamental squares.
#[derive(Debug, Clone)]
pub struct SymmetryGroup {
    board: BoardShape,
    transforms: Vec<Transform>,
    /// `maps[t][sq]`: the image of `sq` under transform `t`.
    maps: Vec<[u8; 64]>,
    /// Per square: the transforms taking it to its fundamental representative.
    to_domain: Vec<Vec<u8>>,
    /// The fundamental squares, ascending.
    domain: Vec<u8>,
    /// Per square: its position in `domain` (only meaningful for fundamental squares).
    domain_index: [u8; 64],
}

type AtomKey = (i32, i32, u8, u8);

fn atom_set(material: &Material, kind: usize, side: usize) -> BTreeSet<AtomKey> {
    let sign = if side == 0 { 1 } else { -1 };
    material.kinds()[kind]
        .movement
        .atoms()
        .iter()
        .map(|a| (i32::from(a.dx), sign * i32::from(a.dy), a.range, a.mode as u8))
        .collect()
}

impl SymmetryGroup {
    /// The group of transforms under which every piece of `material` moves alike, for both colours.
    pub fn for_material(board: BoardShape, material: &Material) -> SymmetryGroup {
        let mut transforms = Vec::new();
        for swap in [false, true] {
            if swap && !board.is_square() {
                continue;
            }
            for flip_ranks in [false, true] {
                for flip_files in [false, true] {
                    let t = Transform { swap, flip_files, flip_ranks };
                    let keeps = (0..material.kinds().len()).all(|k| {
                        (0..2).all(|side| {
                            let set = atom_set(material, k, side);
                            let image: BTreeSet<AtomKey> = set
                                .iter()
                                .map(|&(dx, dy, range, mode)| {
                                    let (x, y) = t.step(dx, dy);
                                    (x, y, range, mode)
                                })
                                .collect();
                            image == set
                        })
                    });
                    if keeps {
                        transforms.push(t);
                    }
                }
            }
        }
        SymmetryGroup::from_transforms(board, transforms)
    }

    /// The trivial group (no reduction).
    pub fn identity(board: BoardShape) -> SymmetryGroup {
        SymmetryGroup::from_transforms(board, vec![Transform { swap: false, flip_files: false, flip_ranks: false }])
    }

    fn from_transforms(board: BoardShape, transforms: Vec<Transform>) -> SymmetryGroup {
        let n = board.squares();
        let maps: Vec<[u8; 64]> = transforms
            .iter()
            .map(|t| {
                let mut m = [0u8; 64];
                for sq in 0..n as u8 {
                    m[usize::from(sq)] = t.square(board, sq);
                }
                m
            })
            .collect();
        let mut to_domain = vec![Vec::new(); 64];
        let mut domain = Vec::new();
        for sq in 0..n as u8 {
            let rep = maps.iter().map(|m| m[usize::from(sq)]).min().unwrap_or(sq);
            if rep == sq {
                domain.push(sq);
            }
            to_domain[usize::from(sq)] =
                (0..maps.len() as u8).filter(|&t| maps[usize::from(t)][usize::from(sq)] == rep).collect();
        }
        let mut domain_index = [0u8; 64];
        for (i, &sq) in domain.iter().enumerate() {
            domain_index[usize::from(sq)] = i as u8;
        }
        SymmetryGroup { board, transforms, maps, to_domain, domain, domain_index }
    }

    /// The board.
    pub fn board(&self) -> BoardShape {
        self.board
    }

    /// The group's elements.
    pub fn transforms(&self) -> &[Transform] {
        &self.transforms
    }

    /// Number of elements (1, 2, 4 or 8).
    pub fn order(&self) -> usize {
        self.transforms.len()
    }

    /// Whether transform `t` is the identity.
    #[inline]
    pub fn is_identity(&self, t: u8) -> bool {
        let tr = self.transforms[usize::from(t)];
        !tr.swap && !tr.flip_files && !tr.flip_ranks
    }

    /// The image of `sq` under transform `t`.
    #[inline]
    pub fn map(&self, t: u8, sq: u8) -> u8 {
        self.maps[usize::from(t)][usize::from(sq)]
    }

    /// The square map of transform `t` (`map_of(t)[sq] == map(t, sq)`).
    #[inline]
    pub fn map_of(&self, t: u8) -> &[u8; 64] {
        &self.maps[usize::from(t)]
    }

    /// The transforms that take `sq` to its fundamental square.
    #[inline]
    pub fn to_domain(&self, sq: u8) -> &[u8] {
        &self.to_domain[usize::from(sq)]
    }

    /// The fundamental squares of the white royal, ascending.
    pub fn domain(&self) -> &[u8] {
        &self.domain
    }

    /// A fundamental square's position in [`SymmetryGroup::domain`].
    #[inline]
    pub fn domain_index(&self, sq: u8) -> usize {
        usize::from(self.domain_index[usize::from(sq)])
    }

    /// A name for the group: `8-fold`, `4-fold`, `2-fold` or `none`.
    pub fn name(&self) -> String {
        match self.order() {
            1 => "none".to_string(),
            n => format!("{n}-fold"),
        }
    }
}
