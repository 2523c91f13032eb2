//! Move-ordering memory of a search: killer moves per ply, a butterfly-style history
//! indexed by colour, moving role and destination (so drops share it with board moves),
//! and continuation histories keyed by the previous moves' piece and destination.

use rules::{Color, Move, Position};

/// Deepest ply the search tracks.
pub const MAX_PLY: usize = 128;
const HISTORY_MAX: i32 = 16_384;

/// A move as the continuation history sees it: moving role slot and destination.
/// [`PieceTo::NONE`] stands for a null move or the root's missing predecessor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PieceTo(u16);

impl PieceTo {
    /// No move: the continuation slot that nothing shares with a real move.
    pub const NONE: PieceTo = PieceTo(0);

    /// The piece-to key of `m` in `pos` (before it is played).
    #[inline]
    pub fn of(pos: &Position, m: Move) -> PieceTo {
        let role = pos.moving_role(m).map_or(0, |r| r.index() & 15);
        PieceTo(1 + ((role as u16) << 6 | m.to().index() as u16))
    }

    #[inline]
    fn index(self) -> usize {
        self.0 as usize
    }
}

/// Slots of a continuation table: every piece-to plus [`PieceTo::NONE`].
const PIECE_TO: usize = 16 * 64 + 1;

/// Killers and histories for one search thread.
pub struct History {
    killers: [[Option<Move>; 2]; MAX_PLY + 2],
    table: Box<[[[i32; 64]; 16]; 2]>,
    /// `continuation[previous][current]`: how well `current` answered `previous`
    /// (used for the moves one and two plies back).
    continuation: Vec<[i16; PIECE_TO]>,
}

impl Default for History {
    fn default() -> History {
        History {
            killers: [[None; 2]; MAX_PLY + 2],
            table: Box::new([[[0; 64]; 16]; 2]),
            continuation: vec![[0; PIECE_TO]; PIECE_TO],
        }
    }
}

impl History {
    /// Forgets the killers and ages the histories between searches.
    pub fn new_search(&mut self) {
        self.killers = [[None; 2]; MAX_PLY + 2];
        for c in self.table.iter_mut() {
            for r in c.iter_mut() {
                for v in r.iter_mut() {
                    *v /= 4;
                }
            }
        }
        for row in self.continuation.iter_mut() {
            for v in row.iter_mut() {
                *v /= 2;
            }
        }
    }

    /// The killers of a ply.
    #[inline]
    pub fn killers(&self, ply: usize) -> [Option<Move>; 2] {
        self.killers[ply.min(MAX_PLY)]
    }

    /// The history score of a quiet move `m` (keyed `pt`), after the moves `prev`
    /// (one and two plies back).
    #[inline]
    pub fn score(&self, pos: &Position, m: Move, pt: PieceTo, prev: [PieceTo; 2]) -> i32 {
        let role = pos.moving_role(m).map_or(0, |r| r.index() & 15);
        self.table[pos.turn().index()][role][m.to().index()]
            + i32::from(self.continuation[prev[0].index()][pt.index()])
            + i32::from(self.continuation[prev[1].index()][pt.index()])
    }

    /// A quiet move caused a cut-off at `depth`; `tried` are the quiet moves searched
    /// before it; `prev` the moves one and two plies back.
    pub fn reward(&mut self, pos: &Position, ply: usize, m: Move, depth: i32, tried: &[Move], prev: [PieceTo; 2]) {
        let ply = ply.min(MAX_PLY);
        if self.killers[ply][0] != Some(m) {
            self.killers[ply][1] = self.killers[ply][0];
            self.killers[ply][0] = Some(m);
        }
        let bonus = (depth * depth).min(400) * 4;
        let c = pos.turn();
        self.update(pos, c, m, bonus, prev);
        for &q in tried {
            if q != m {
                self.update(pos, c, q, -bonus, prev);
            }
        }
    }

    #[inline]
    fn update(&mut self, pos: &Position, c: Color, m: Move, bonus: i32, prev: [PieceTo; 2]) {
        let role = pos.moving_role(m).map_or(0, |r| r.index() & 15);
        let e = &mut self.table[c.index()][role][m.to().index()];
        // Gravity: entries saturate smoothly at ±HISTORY_MAX.
        *e += bonus - *e * bonus.abs() / HISTORY_MAX;
        let pt = PieceTo::of(pos, m);
        for p in prev {
            if p != PieceTo::NONE {
                let e = &mut self.continuation[p.index()][pt.index()];
                let v = i32::from(*e);
                *e = (v + bonus - v * bonus.abs() / HISTORY_MAX) as i16;
            }
        }
    }
}
