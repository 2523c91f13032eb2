//! Piece values and piece-square tables derived from each piece's movement, so that a
//! variant from a TOML file plays sensibly without tuning.
//!
//! A piece's worth follows its mobility on a board with random blockers (30 % of the
//! squares, which discounts a rider's k-th step by 0.7^(k-1)); the orthodox pieces keep
//! their classical values and calibrate the scale.

use rand::Rng;
use rules::bitboard::Bitboard;
use rules::movement::Movement;
use rules::{Color, Position, Role, Square, Variant, MAX_ROLES};

/// Centipawn value of a pawn (the unit).
pub const PAWN: i32 = 100;
/// Samples of random blockers per square when measuring mobility.
const SAMPLES: usize = 48;
/// Density of the random blockers, in percent.
const BLOCKER_PERCENT: u32 = 30;

/// What the evaluation knows about one role of a variant.
#[derive(Debug, Clone)]
pub struct RoleInfo {
    /// Middle-game value.
    pub mg: i32,
    /// End-game value.
    pub eg: i32,
    /// Mean mobility over the board (random blockers).
    pub mobility: f64,
    /// Mobility from each square (random blockers), indexed by square.
    pub mobility_at: [f64; 64],
    /// Whether this role is the royal piece.
    pub royal: bool,
    /// Whether this role is the pawn.
    pub pawn: bool,
    /// An unlimited orthogonal rider (rook-like: open files matter).
    pub orth_rider: bool,
    /// Exactly a bishop (the bishop pair).
    pub bishop: bool,
    /// Weight in king-attack units.
    pub attack_weight: i32,
}

/// Derives [`RoleInfo`] for every role of a variant.
pub fn derive(v: &'static Variant) -> Vec<RoleInfo> {
    let pos = Position::start(v);
    let mask = v.geometry.mask();
    let squares: Vec<Square> = mask.into_iter().collect();
    let mut rng = rules::chance::seeded_rng(0x5EED_F00D);
    // The same blocker sets for every role, so values compare fairly.
    let blockers: Vec<Bitboard> = (0..SAMPLES)
        .map(|_| {
            let mut b = Bitboard::EMPTY;
            for &sq in &squares {
                if rng.gen_range(0..100) < BLOCKER_PERCENT {
                    b.set(sq);
                }
            }
            b
        })
        .collect();
    let measure = |role: Role| -> ([f64; 64], f64) {
        let mut at = [0.0; 64];
        let mut total = 0.0;
        for &sq in &squares {
            let mut n = 0u32;
            for &b in &blockers {
                let occ = (b - Bitboard::from_square(sq)) & mask;
                n += pos.attacks(sq, Color::White, role, occ).count();
            }
            at[sq.index()] = n as f64 / SAMPLES as f64;
            total += at[sq.index()];
        }
        (at, total / squares.len() as f64)
    };
    let knight_mobility = {
        // The knight calibrates the scale on this board.
        let mut n = 0.0;
        for &sq in &squares {
            for (dx, dy) in rules::movement::eight_fold(1, 2) {
                if v.geometry.square(sq.file() as i32 + dx as i32, sq.rank() as i32 + dy as i32).is_some() {
                    n += 1.0;
                }
            }
        }
        n / squares.len() as f64
    };
    let classic = |m: &Movement| -> Option<(i32, i32)> {
        let same = |o: Movement| m.atoms().len() == o.atoms().len() && o.atoms().iter().all(|a| m.atoms().contains(a));
        if same(Movement::knight()) {
            Some((320, 300))
        } else if same(Movement::bishop()) {
            Some((330, 320))
        } else if same(Movement::rook()) {
            Some((480, 540))
        } else if same(Movement::queen()) {
            Some((950, 1000))
        } else {
            None
        }
    };
    let mut out = Vec::with_capacity(MAX_ROLES);
    for role in v.roles() {
        let pt = v.piece(role);
        let (mobility_at, mobility) = measure(role);
        let (mg, eg) = if pt.royal {
            (0, 0)
        } else if pt.pawn {
            (PAWN, 120)
        } else if let Some(c) = classic(&pt.movement) {
            c
        } else {
            // 320 centipawns per knight's worth of mobility; compounds of riders and leapers
            // are worth a little more than their parts' mobility (they reach both colours
            // and fork more).
            let base = 320.0 * mobility / knight_mobility.max(1.0);
            let v = base.round() as i32;
            (v.max(50), (v as f64 * 1.05).round() as i32)
        };
        let bishop = classic(&pt.movement) == Some((330, 320));
        let orth_rider = pt.movement.atoms().iter().any(|a| a.is_orthogonal() && a.range == 0 && !a.is_leaper());
        out.push(RoleInfo {
            mg,
            eg,
            mobility,
            mobility_at,
            royal: pt.royal,
            pawn: pt.pawn,
            orth_rider,
            bishop,
            attack_weight: if pt.royal || pt.pawn { 0 } else { (mg / 160).clamp(1, 8) },
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orthodox_values_and_derived_fairy_values() {
        let chess = rules::variants::by_name("chess").unwrap();
        let info = derive(chess);
        let n = chess.role_by_letter('n').unwrap();
        let r = chess.role_by_letter('r').unwrap();
        assert_eq!(info[n.index()].mg, 320);
        assert!(info[r.index()].mobility > info[n.index()].mobility);
        // A knight's corner is worse than its centre.
        let a1 = Square::new(0, 0).unwrap();
        let d4 = Square::new(3, 3).unwrap();
        assert!(info[n.index()].mobility_at[a1.index()] < info[n.index()].mobility_at[d4.index()]);
    }
}
