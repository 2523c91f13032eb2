//! A generated table (one material, both sides to move) and a family of them: an ending with every
//! sub-ending its captures reach, which is what generation produces, files hold and probes read.

use std::sync::atomic::{AtomicU8, Ordering::Relaxed};
use std::sync::Arc;

use crate::board::BoardShape;
use crate::index::{Indexer, Squares};
use crate::material::Material;
use crate::moves::MoveTables;
use crate::pieces::PieceSet;
use crate::symmetry::SymmetryGroup;
use crate::value::{TableRules, DRAW};

/// The table of one material.
#[derive(Debug)]
pub struct Table {
    /// The men.
    pub material: Material,
    /// Position <-> index.
    pub indexer: Indexer,
    /// The men's moves.
    pub moves: MoveTables,
    /// Per man: the family index of the table reached by capturing it (`None` for the royals).
    pub captures: Vec<Option<usize>>,
    /// `values[side to move][index]`.
    values: [Vec<AtomicU8>; 2],
}

impl Table {
    /// An empty table (every position a draw) for `material`.
    pub fn new(material: Material, group: Arc<SymmetryGroup>, captures: Vec<Option<usize>>) -> Table {
        let indexer = Indexer::new(&material, group.clone());
        let moves = MoveTables::new(group.board(), &material);
        let size = indexer.size() as usize;
        let fresh = || {
            let mut v: Vec<AtomicU8> = Vec::with_capacity(size);
            crate::memory::advise_huge_pages(&v);
            v.extend((0..size).map(|_| AtomicU8::new(DRAW)));
            v
        };
        Table { material, indexer, moves, captures, values: [fresh(), fresh()] }
    }

    /// Number of indices per side to move.
    pub fn size(&self) -> u64 {
        self.indexer.size()
    }

    /// The stored byte for side to move `stm` at `idx`.
    #[inline]
    pub fn value(&self, stm: usize, idx: u64) -> u8 {
        self.values[stm][idx as usize].load(Relaxed)
    }

    /// Hints the cache to fetch the byte of `idx` (a later [`Table::value`] finds it closer).
    #[inline]
    pub fn prefetch(&self, stm: usize, idx: u64) {
        if let Some(v) = self.values[stm].get(idx as usize) {
            crate::memory::prefetch(v);
        }
    }

    /// The stored byte of a position given by its men's squares.
    #[inline]
    pub fn value_at(&self, stm: usize, sq: &Squares) -> u8 {
        self.value(stm, self.indexer.index(sq))
    }

    /// Stores a byte (generation and loading only).
    #[inline]
    pub(crate) fn set(&self, stm: usize, idx: u64, v: u8) {
        self.values[stm][idx as usize].store(v, Relaxed);
    }

    /// Stores `v` for an undecided position; returns whether it was undecided (generation only).
    #[inline]
    pub(crate) fn claim(&self, stm: usize, idx: u64, v: u8) -> bool {
        self.values[stm][idx as usize].compare_exchange(DRAW, v, Relaxed, Relaxed).is_ok()
    }

    /// Copies `len` stored bytes from `start` into `out`.
    pub fn copy_values(&self, stm: usize, start: u64, out: &mut [u8]) {
        for (o, v) in out.iter_mut().zip(&self.values[stm][start as usize..]) {
            *o = v.load(Relaxed);
        }
    }

    /// Bytes of position values held.
    pub fn bytes(&self) -> u64 {
        2 * self.size()
    }
}

/// An ending and all its sub-endings, generated under one set of rules.
#[derive(Debug)]
pub struct Family {
    /// The board.
    pub board: BoardShape,
    /// The rules.
    pub rules: TableRules,
    /// The pieces, as defined for the run (only those the material uses are kept in files).
    pub pieces: PieceSet,
    /// The symmetry group all tables share.
    pub group: Arc<SymmetryGroup>,
    /// The tables, sub-endings before the endings that capture into them.
    pub tables: Vec<Table>,
}

impl Family {
    /// The main table (the ending asked for: the last one generated).
    pub fn main(&self) -> &Table {
        &self.tables[self.tables.len() - 1]
    }

    /// The table of a material written as `KQ.KR` (normalised), if in the family.
    pub fn find(&self, name: &str) -> Option<&Table> {
        self.tables.iter().find(|t| t.material.to_string() == name)
    }

    /// Bytes of position values held by all tables.
    pub fn bytes(&self) -> u64 {
        self.tables.iter().map(Table::bytes).sum()
    }
}
