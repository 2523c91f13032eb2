//! Probabilistic chess's square map: the success percentage of every square, kept in each
//! position's square bytes with the shrinking board's blocked flag, its FEN field, and the rulings' random map.
//!
//! A square's byte holds its percentage (0..=100) in the low seven bits and [`BLOCKED`] on
//! top. The FEN field lists the squares rank by rank from the top, files left to right, like
//! the placement: `/` between ranks, `,` between squares, and an `x` after a blocked square's
//! percentage (`20,35x,...`).

use crate::bitboard::Bitboard;
use crate::chance::{uniform_below, ChanceRule, KingMoves};
use crate::geometry::Geometry;
use crate::moves::Move;
use crate::position::Position;
use crate::square::Square;
use rand::RngCore;
use std::fmt::Write;

/// The flag of a blocked square (shrinking board) in a square byte.
pub const BLOCKED: u8 = 0x80;
/// The percentage bits of a square byte.
pub const PERCENT: u8 = 0x7f;
/// The random map's range for every square (RULINGS § Probabilistic chess, 1).
pub const RANDOM_RANGE: std::ops::RangeInclusive<u8> = 5..=99;
/// The random map's range for the squares the kings start on.
pub const KING_RANGE: std::ops::RangeInclusive<u8> = 20..=99;

/// A success percentage per square, indexed by square.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SquareMap {
    percent: [u8; 64],
}

/// A map that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid square map: {0}")]
pub struct MapError(pub String);

impl SquareMap {
    /// Every square at `percent` (at most 100).
    pub fn uniform(percent: u8) -> SquareMap {
        SquareMap { percent: [percent.min(100); 64] }
    }

    /// The rulings' random map: every square uniform in 5..=99, the squares in `kings` (where
    /// the kings start) uniform in 20..=99. Squares are drawn in index order (a1, b1, ...), one
    /// [`uniform_below`] each, so a seed gives the same map everywhere.
    pub fn random<R: RngCore + ?Sized>(rng: &mut R, geometry: Geometry, kings: Bitboard) -> SquareMap {
        let mut percent = [0u8; 64];
        for sq in geometry.mask() {
            let range = if kings.contains(sq) { KING_RANGE } else { RANDOM_RANGE };
            let n = u128::from(range.end() - range.start() + 1);
            percent[sq.index()] = range.start() + uniform_below(rng, n) as u8;
        }
        SquareMap { percent }
    }

    /// The percentage of a square.
    #[inline]
    pub fn percent(&self, sq: Square) -> u8 {
        self.percent[sq.index()]
    }

    /// Sets the percentage of a square (at most 100).
    pub fn set(&mut self, sq: Square, percent: u8) {
        self.percent[sq.index()] = percent.min(100);
    }

    /// Reads the FEN field (see the module documentation): the map and the blocked squares.
    pub fn parse(text: &str, geometry: Geometry) -> Result<(SquareMap, Bitboard), MapError> {
        let ranks: Vec<&str> = text.split('/').collect();
        if ranks.len() != usize::from(geometry.ranks()) {
            return Err(MapError(format!(
                "'{text}' has {} ranks, the board {} (ranks are separated by '/')",
                ranks.len(),
                geometry.ranks()
            )));
        }
        let mut map = SquareMap { percent: [0; 64] };
        let mut blocked = Bitboard::EMPTY;
        for (i, rank_text) in ranks.iter().enumerate() {
            let rank = geometry.ranks() - 1 - i as u8;
            let squares: Vec<&str> = rank_text.split(',').collect();
            if squares.len() != usize::from(geometry.files()) {
                return Err(MapError(format!(
                    "rank {} has {} squares, not {} (squares are separated by ',')",
                    rank + 1,
                    squares.len(),
                    geometry.files()
                )));
            }
            for (file, item) in squares.iter().enumerate() {
                let Some(sq) = Square::new(file as u8, rank) else {
                    return Err(MapError(format!("no square at file {file}, rank {}", rank + 1)));
                };
                let (digits, is_blocked) = match item.strip_suffix('x') {
                    Some(d) => (d, true),
                    None => (*item, false),
                };
                let p = match digits.parse::<u8>() {
                    Ok(p) if p <= 100 && !digits.starts_with('+') => p,
                    _ => return Err(MapError(format!("'{item}' at {sq} is not a percentage 0..=100"))),
                };
                map.percent[sq.index()] = p;
                if is_blocked {
                    blocked.set(sq);
                }
            }
        }
        Ok((map, blocked))
    }

    /// Writes the FEN field, blocked squares marked.
    pub fn write(&self, blocked: Bitboard, geometry: Geometry) -> String {
        let mut s = String::with_capacity(200);
        for rank in (0..geometry.ranks()).rev() {
            for file in 0..geometry.files() {
                let Some(sq) = Square::new(file, rank) else { continue };
                let _ = write!(s, "{}", self.percent(sq));
                if blocked.contains(sq) {
                    s.push('x');
                }
                if file + 1 < geometry.files() {
                    s.push(',');
                }
            }
            if rank > 0 {
                s.push('/');
            }
        }
        s
    }
}

impl std::fmt::Display for SquareMap {
    /// The FEN field of an 8x8 map with no blocked square.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.write(Bitboard::EMPTY, Geometry::CHESS))
    }
}

/// The squares of ring `k` of a board (0 the outermost).
pub fn ring(geometry: Geometry, k: u8) -> Bitboard {
    let (w, h) = (geometry.files(), geometry.ranks());
    let mut b = Bitboard::EMPTY;
    for sq in geometry.mask() {
        let (f, r) = (sq.file(), sq.rank());
        let d = f.min(w - 1 - f).min(r).min(h - 1 - r);
        if d == k {
            b.set(sq);
        }
    }
    b
}

/// The number of rings of a board (4 on 8x8); the innermost is never blocked.
pub fn rings(geometry: Geometry) -> u8 {
    geometry.files().min(geometry.ranks()).div_ceil(2)
}

impl Position {
    /// The square map of a Probabilistic chess position (zeros elsewhere).
    pub fn square_map(&self) -> SquareMap {
        let mut percent = [0u8; 64];
        for (p, s) in percent.iter_mut().zip(self.square_state.iter()) {
            *p = s & PERCENT;
        }
        SquareMap { percent }
    }

    /// Replaces the square map (blocked squares stay blocked).
    pub fn set_square_map(&mut self, map: &SquareMap) {
        for sq in self.variant.geometry.mask() {
            let state = self.square_state(sq);
            self.set_square_state(sq, (state & BLOCKED) | map.percent(sq));
        }
    }

    /// Squares no piece may move onto (the shrinking board's closed rings).
    pub fn blocked(&self) -> Bitboard {
        if self.variant.shrink_after.is_none() {
            return Bitboard::EMPTY;
        }
        let mut b = Bitboard::EMPTY;
        for sq in self.variant.geometry.mask() {
            if self.square_state[sq.index()] & BLOCKED != 0 {
                b.set(sq);
            }
        }
        b
    }

    /// The percentage with which `m` succeeds: its destination's (castling: the king's), with
    /// the variant's king option; 100 outside Probabilistic chess and for a pass.
    pub fn success_percent(&self, m: Move) -> u8 {
        let ChanceRule::SquareMap { king } = self.variant.chance else { return 100 };
        if m.is_pass() {
            return 100;
        }
        let p = self.square_state[m.to().index()] & PERCENT;
        let king_move = m.from_square().is_some_and(|from| self.board.role_at(from) == self.variant.king());
        match (king_move, king) {
            (true, KingMoves::Always) => 100,
            (true, KingMoves::Double) => (2 * p).min(100),
            _ => p,
        }
    }

    /// After a ply on a shrinking board: once the halfmove clock (plies since the last capture
    /// or closed ring) reaches the variant's count, the outermost ring still open closes and the
    /// clock restarts. The innermost ring never closes.
    pub(crate) fn shrink_if_due(&mut self) {
        let Some(after) = self.variant.shrink_after else { return };
        if self.halfmoves < after {
            return;
        }
        let g = self.variant.geometry;
        let is_closed = |k: u8| ring(g, k).first().is_some_and(|sq| self.square_state(sq) & BLOCKED != 0);
        let closed = (0..rings(g)).take_while(|&k| is_closed(k)).count() as u8;
        if closed + 1 < rings(g) {
            for sq in ring(g, closed) {
                let s = self.square_state(sq);
                self.set_square_state(sq, s | BLOCKED);
            }
        }
        self.halfmoves = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chance::seeded_rng;

    #[test]
    fn the_field_round_trips() {
        let mut rng = seeded_rng(3);
        let sq = |name: &str| Square::parse(name).expect("a square");
        let kings = Bitboard::from_square(sq("e1")) | Bitboard::from_square(sq("e8"));
        let map = SquareMap::random(&mut rng, Geometry::CHESS, kings);
        let blocked = ring(Geometry::CHESS, 0);
        let text = map.write(blocked, Geometry::CHESS);
        assert_eq!(SquareMap::parse(&text, Geometry::CHESS), Ok((map, blocked)));
        assert_eq!(text.matches('x').count(), 28);
    }

    #[test]
    fn bad_fields_are_refused() {
        let good = SquareMap::uniform(50).to_string();
        assert!(SquareMap::parse(&good, Geometry::CHESS).is_ok());
        for bad in [
            "",
            &good.replacen("50", "101", 1),
            &good.replacen("50", "-1", 1),
            &good.replacen("50", "5x0", 1),
            &good.replacen("50,", "", 1),
            &good.replacen('/', ",", 1),
            &format!("{good}/50"),
        ] {
            assert!(SquareMap::parse(bad, Geometry::CHESS).is_err(), "{bad}");
        }
    }

    #[test]
    fn rings_of_a_chessboard() {
        assert_eq!(rings(Geometry::CHESS), 4);
        assert_eq!(ring(Geometry::CHESS, 0).count(), 28);
        assert_eq!(ring(Geometry::CHESS, 1).count(), 20);
        assert_eq!(ring(Geometry::CHESS, 3).count(), 4);
        assert!(ring(Geometry::CHESS, 3).contains(Square::parse("d4").expect("a square")));
    }
}
