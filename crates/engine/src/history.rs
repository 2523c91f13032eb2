//! Move-ordering memory of a search: killer moves per ply and a butterfly-style history
//! indexed by colour, moving role and destination (so drops share it with board moves).

use rules::{Color, Move, Position};

/// Deepest ply the search tracks.
pub const MAX_PLY: usize = 128;
const HISTORY_MAX: i32 = 16_384;

/// Killers and history for one search thread.
pub struct History {
    killers: [[Option<Move>; 2]; MAX_PLY + 2],
    table: Box<[[[i32; 64]; 16]; 2]>,
}

impl Default for History {
    fn default() -> History {
        History { killers: [[None; 2]; MAX_PLY + 2], table: Box::new([[[0; 64]; 16]; 2]) }
    }
}

impl History {
    /// Forgets the killers and ages the history between searches.
    pub fn new_search(&mut self) {
        self.killers = [[None; 2]; MAX_PLY + 2];
        for c in self.table.iter_mut() {
            for r in c.iter_mut() {
                for v in r.iter_mut() {
                    *v /= 4;
                }
            }
        }
    }

    /// The killers of a ply.
    #[inline]
    pub fn killers(&self, ply: usize) -> [Option<Move>; 2] {
        self.killers[ply.min(MAX_PLY)]
    }

    /// The history score of a quiet move.
    #[inline]
    pub fn score(&self, pos: &Position, m: Move) -> i32 {
        let role = pos.moving_role(m).map_or(0, |r| r.index() & 15);
        self.table[pos.turn().index()][role][m.to().index()]
    }

    /// A quiet move caused a cut-off at `depth`; `tried` are the quiet moves searched before it.
    pub fn reward(&mut self, pos: &Position, ply: usize, m: Move, depth: i32, tried: &[Move]) {
        let ply = ply.min(MAX_PLY);
        if self.killers[ply][0] != Some(m) {
            self.killers[ply][1] = self.killers[ply][0];
            self.killers[ply][0] = Some(m);
        }
        let bonus = (depth * depth).min(400) * 4;
        let c = pos.turn();
        self.update(pos, c, m, bonus);
        for &q in tried {
            if q != m {
                self.update(pos, c, q, -bonus);
            }
        }
    }

    #[inline]
    fn update(&mut self, pos: &Position, c: Color, m: Move, bonus: i32) {
        let role = pos.moving_role(m).map_or(0, |r| r.index() & 15);
        let e = &mut self.table[c.index()][role][m.to().index()];
        // Gravity: entries saturate smoothly at ±HISTORY_MAX.
        *e += bonus - *e * bonus.abs() / HISTORY_MAX;
    }
}
