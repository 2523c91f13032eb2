//! The referee of one Predictor chess ply (RULINGS § Predictor chess 7): teams with ranked
//! members, commitments until the deadline, the member whose orders count, and checked reveals.
//!
//! A side is a team of members ranked best first (the seed's shareholders; a lone player is a
//! team of one). Each member may commit once per ply. At the deadline ([`PlyDesk::close`]) the
//! orders that count are those of the highest-ranked member who committed; a side where nobody
//! committed loses on time. Only that member's reveal is accepted afterwards: falling back to a
//! lower-ranked member after the enemy has revealed would let a team commit several orders and
//! pick one knowing the enemy's, so a chosen member who never reveals, or reveals orders that
//! are illegal, loses the game for the side ([`PlyDesk::forfeit`]).

use super::commit::{Commitment, Reveal};
use super::{resolve, OrderError, Orders, PlyReport};
use crate::color::Color;
use crate::outcome::Outcome;
use crate::position::Position;

/// Why the referee refused a request. Nothing is changed by a refused request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RefereeError {
    /// The member is not on the side's team.
    #[error("{member} is not a member of {side}'s team")]
    UnknownMember {
        /// The side.
        side: Color,
        /// The name given.
        member: String,
    },
    /// The member already committed for this ply.
    #[error("{member} ({side}) already committed for ply {ply}; a commitment cannot be replaced")]
    AlreadyCommitted {
        /// The side.
        side: Color,
        /// The member.
        member: String,
        /// The ply.
        ply: u32,
    },
    /// A commitment once the ply has closed: at its deadline, or when the orders to be played
    /// were fixed (both captains committed, so no member's commitment could replace theirs).
    #[error("ply {ply} is closed (its deadline passed, or both sides' orders are fixed): no more commitments")]
    DeadlinePassed {
        /// The ply.
        ply: u32,
    },
    /// A reveal for a ply resolved already.
    #[error("ply {ply} is resolved already (ply {open} is being played): its reveal is not needed again")]
    Resolved {
        /// The reveal's ply.
        ply: u32,
        /// The ply being played.
        open: u32,
    },
    /// A reveal before the deadline (reveals open only once both sides' orders are fixed).
    #[error("ply {ply} is still open for commitments: reveal after the deadline")]
    NotClosed {
        /// The ply.
        ply: u32,
    },
    /// A reveal by a member who did not commit.
    #[error("{member} ({side}) made no commitment for ply {ply}, so there is nothing to reveal")]
    NoCommitment {
        /// The side.
        side: Color,
        /// The member.
        member: String,
        /// The ply.
        ply: u32,
    },
    /// A reveal by a member whose orders do not count.
    #[error("{member} ({side}) did commit, but {chosen} outranks them: only {chosen}'s orders count this ply")]
    NotChosen {
        /// The side.
        side: Color,
        /// The member.
        member: String,
        /// The member whose orders count.
        chosen: String,
    },
    /// A reveal for another game, ply or side than the desk's.
    #[error("the reveal is for game {game} ply {ply} ({side}), not for game {want_game} ply {want_ply} ({want_side}), where it was sent")]
    WrongReveal {
        /// The reveal's game.
        game: String,
        /// The reveal's ply.
        ply: u32,
        /// The reveal's side.
        side: Color,
        /// The desk's game.
        want_game: String,
        /// The desk's ply.
        want_ply: u32,
        /// The side revealing.
        want_side: Color,
    },
    /// A second reveal for a side.
    #[error("{side} has already revealed for ply {ply}")]
    AlreadyRevealed {
        /// The side.
        side: Color,
        /// The ply.
        ply: u32,
    },
    /// The reveal does not open the member's commitment.
    #[error(transparent)]
    Commit(#[from] super::commit::CommitError),
    /// The revealed orders are not valid in the position (the side forfeits, see [`PlyDesk::forfeit`]).
    #[error("the revealed orders are invalid: {0}")]
    Orders(#[from] OrderError),
    /// Resolution was asked for before both sides revealed.
    #[error("{side} has not revealed yet")]
    NotRevealed {
        /// The side.
        side: Color,
    },
}

/// The member whose orders count: the highest-ranked of `ranked` (best first) who is in
/// `committed`; `None` when nobody committed (the side loses on time).
///
/// ```
/// use rules::predictor::referee::chosen_member;
/// let team = ["ana", "bo", "cy"].map(String::from);
/// assert_eq!(chosen_member(&team, &["cy", "bo"]), Some(1));
/// assert_eq!(chosen_member::<&str>(&team, &[]), None);
/// ```
pub fn chosen_member<S: AsRef<str>>(ranked: &[String], committed: &[S]) -> Option<usize> {
    ranked.iter().position(|m| committed.iter().any(|c| c.as_ref() == m))
}

/// One ply's commitments and reveals for both sides.
#[derive(Debug, Clone)]
pub struct PlyDesk {
    game: String,
    ply: u32,
    position: Position,
    teams: [Vec<String>; 2],
    commitments: [Vec<(usize, Commitment)>; 2],
    chosen: Option<[Option<usize>; 2]>,
    reveals: [Option<(Reveal, Orders)>; 2],
}

impl PlyDesk {
    /// A desk for `ply` of `game` from `position`, with each side's team ranked best first.
    pub fn new(game: &str, ply: u32, position: Position, white: Vec<String>, black: Vec<String>) -> PlyDesk {
        PlyDesk {
            game: game.to_string(),
            ply,
            position,
            teams: [white, black],
            commitments: [Vec::new(), Vec::new()],
            chosen: None,
            reveals: [None, None],
        }
    }

    /// The ply.
    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// The position before the ply.
    pub fn position(&self) -> &Position {
        &self.position
    }

    fn member_index(&self, side: Color, member: &str) -> Result<usize, RefereeError> {
        self.teams[side.index()]
            .iter()
            .position(|m| m == member)
            .ok_or_else(|| RefereeError::UnknownMember { side, member: member.to_string() })
    }

    /// Records `member`'s commitment for `side`; once per member, before the deadline.
    pub fn commit(&mut self, side: Color, member: &str, commitment: Commitment) -> Result<(), RefereeError> {
        if self.chosen.is_some() {
            return Err(RefereeError::DeadlinePassed { ply: self.ply });
        }
        let i = self.member_index(side, member)?;
        if self.commitments[side.index()].iter().any(|&(m, _)| m == i) {
            return Err(RefereeError::AlreadyCommitted { side, member: member.to_string(), ply: self.ply });
        }
        self.commitments[side.index()].push((i, commitment));
        Ok(())
    }

    /// Whether `side` has a commitment (any member).
    pub fn has_committed(&self, side: Color) -> bool {
        !self.commitments[side.index()].is_empty()
    }

    /// The commitments so far (public: publishing them is the point), by side.
    pub fn commitments(&self, side: Color) -> impl Iterator<Item = (&str, Commitment)> + '_ {
        self.commitments[side.index()].iter().map(move |&(i, c)| (self.teams[side.index()][i].as_str(), c))
    }

    /// The deadline: fixes, for each side, the highest-ranked member who committed. A side
    /// where nobody committed loses on time; both: a draw. `Ok` holds the chosen members' names.
    pub fn close(&mut self) -> Result<[String; 2], Outcome> {
        let pick = |side: Color| {
            let committed: Vec<&str> =
                self.commitments[side.index()].iter().map(|&(i, _)| self.teams[side.index()][i].as_str()).collect();
            chosen_member(&self.teams[side.index()], &committed)
        };
        let chosen = [pick(Color::White), pick(Color::Black)];
        self.chosen = Some(chosen);
        use crate::outcome::EndReason;
        match chosen {
            [Some(w), Some(b)] => Ok([self.teams[0][w].clone(), self.teams[1][b].clone()]),
            [None, Some(_)] => Err(Outcome::Decisive { winner: Color::Black, reason: EndReason::Time }),
            [Some(_), None] => Err(Outcome::Decisive { winner: Color::White, reason: EndReason::Time }),
            [None, None] => Err(Outcome::Draw { reason: EndReason::Time }),
        }
    }

    /// Checks `member`'s reveal for `side`: after the deadline, from the chosen member, opening
    /// their commitment, with orders valid in the position. Returns the orders.
    pub fn reveal(&mut self, side: Color, member: &str, reveal: &Reveal) -> Result<Orders, RefereeError> {
        // A reveal for an earlier ply (resolved already) is said as such, not as this ply's.
        if reveal.ply < self.ply {
            return Err(RefereeError::Resolved { ply: reveal.ply, open: self.ply });
        }
        let Some(chosen) = self.chosen else { return Err(RefereeError::NotClosed { ply: self.ply }) };
        let i = self.member_index(side, member)?;
        let Some(&(_, commitment)) = self.commitments[side.index()].iter().find(|&&(m, _)| m == i) else {
            return Err(RefereeError::NoCommitment { side, member: member.to_string(), ply: self.ply });
        };
        if chosen[side.index()] != Some(i) {
            let best = chosen[side.index()].map_or_else(String::new, |c| self.teams[side.index()][c].clone());
            return Err(RefereeError::NotChosen { side, member: member.to_string(), chosen: best });
        }
        if self.reveals[side.index()].is_some() {
            return Err(RefereeError::AlreadyRevealed { side, ply: self.ply });
        }
        if reveal.game != self.game || reveal.ply != self.ply || reveal.side != side {
            return Err(RefereeError::WrongReveal {
                game: reveal.game.clone(),
                ply: reveal.ply,
                side: reveal.side,
                want_game: self.game.clone(),
                want_ply: self.ply,
                want_side: side,
            });
        }
        reveal.verify(&commitment)?;
        let orders = Orders::parse(&self.position, side, &reveal.orders)?;
        self.reveals[side.index()] = Some((reveal.clone(), orders));
        Ok(orders)
    }

    /// The revealed orders of `side`, if any.
    pub fn revealed(&self, side: Color) -> Option<&Reveal> {
        self.reveals[side.index()].as_ref().map(|(r, _)| r)
    }

    /// The result when the chosen member of `side` did not reveal valid orders in time: that
    /// side loses (both: a draw).
    pub fn forfeit(&self) -> Option<Outcome> {
        use crate::outcome::EndReason;
        match (self.reveals[0].is_some(), self.reveals[1].is_some()) {
            (true, true) => None,
            (false, true) => Some(Outcome::Decisive { winner: Color::Black, reason: EndReason::Forfeit }),
            (true, false) => Some(Outcome::Decisive { winner: Color::White, reason: EndReason::Forfeit }),
            (false, false) => Some(Outcome::Draw { reason: EndReason::Forfeit }),
        }
    }

    /// Resolves the ply from both verified reveals.
    pub fn resolve(&self) -> Result<(Position, PlyReport), RefereeError> {
        let orders = |side: Color| {
            self.reveals[side.index()].as_ref().map(|(_, o)| *o).ok_or(RefereeError::NotRevealed { side })
        };
        Ok(resolve(&self.position, &orders(Color::White)?, &orders(Color::Black)?)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::EndReason;

    fn desk(white: &[&str], black: &[&str]) -> PlyDesk {
        let v = crate::variants::predictor::variant();
        PlyDesk::new(
            "market-1",
            1,
            Position::start(v),
            white.iter().map(|s| s.to_string()).collect(),
            black.iter().map(|s| s.to_string()).collect(),
        )
    }

    fn seal(side: Color, orders: &str) -> (Reveal, Commitment) {
        Reveal::seal("market-1", 1, side, orders).expect("sealed")
    }

    #[test]
    fn the_highest_ranked_member_who_committed_plays() {
        let mut d = desk(&["ana", "bo", "cy"], &["kongo"]);
        let (rb, cb) = seal(Color::White, "d2d4");
        let (rc, cc) = seal(Color::White, "e2e4");
        let (rk, ck) = seal(Color::Black, "e7e5");
        d.commit(Color::White, "cy", cc).expect("cy commits");
        d.commit(Color::White, "bo", cb).expect("bo commits");
        d.commit(Color::Black, "kongo", ck).expect("kongo commits");
        assert_eq!(d.close(), Ok(["bo".to_string(), "kongo".to_string()]));
        assert!(matches!(d.reveal(Color::White, "cy", &rc), Err(RefereeError::NotChosen { .. })));
        assert!(matches!(d.reveal(Color::White, "ana", &rb), Err(RefereeError::NoCommitment { .. })));
        d.reveal(Color::White, "bo", &rb).expect("bo's reveal");
        assert_eq!(d.forfeit(), Some(Outcome::Decisive { winner: Color::White, reason: EndReason::Forfeit }));
        d.reveal(Color::Black, "kongo", &rk).expect("kongo's reveal");
        assert_eq!(d.forfeit(), None);
        let (after, _) = d.resolve().expect("resolved");
        assert_eq!(after.board_fen(), "rnbqkbnr/pppp1ppp/8/4p3/3P4/8/PPP1PPPP/RNBQKBNR");
    }

    #[test]
    fn nobody_committed_loses_on_time() {
        let mut d = desk(&["ana"], &["kongo"]);
        let (_, ck) = seal(Color::Black, "e7e5");
        d.commit(Color::Black, "kongo", ck).expect("commit");
        assert_eq!(d.close(), Err(Outcome::Decisive { winner: Color::Black, reason: EndReason::Time }));
        assert_eq!(desk(&["a"], &["b"]).close(), Err(Outcome::Draw { reason: EndReason::Time }));
    }

    #[test]
    fn bad_requests_are_refused_and_change_nothing() {
        let mut d = desk(&["ana"], &["kongo"]);
        let (ra, ca) = seal(Color::White, "e2e4");
        let (rk, ck) = seal(Color::Black, "e7e5");
        assert!(matches!(d.commit(Color::White, "kongo", ca), Err(RefereeError::UnknownMember { .. })));
        d.commit(Color::White, "ana", ca).expect("commit");
        assert!(matches!(d.commit(Color::White, "ana", ck), Err(RefereeError::AlreadyCommitted { .. })));
        assert!(matches!(d.reveal(Color::White, "ana", &ra), Err(RefereeError::NotClosed { .. })));
        assert!(matches!(d.reveal(Color::Black, "kongo", &rk), Err(RefereeError::NotClosed { .. })));
        d.commit(Color::Black, "kongo", ck).expect("commit");
        d.close().expect("both committed");
        assert!(matches!(d.commit(Color::Black, "kongo", ck), Err(RefereeError::DeadlinePassed { .. })));
        // A reveal that opens the other side's commitment, or with a changed nonce, fails.
        assert!(matches!(d.reveal(Color::White, "ana", &rk), Err(RefereeError::WrongReveal { .. })));
        let mut tampered = ra.clone();
        tampered.nonce.0[0] ^= 1;
        assert!(matches!(d.reveal(Color::White, "ana", &tampered), Err(RefereeError::Commit(_))));
        assert!(matches!(d.resolve(), Err(RefereeError::NotRevealed { side: Color::White })));
        d.reveal(Color::White, "ana", &ra).expect("the true reveal still counts");
        assert!(matches!(d.reveal(Color::White, "ana", &ra), Err(RefereeError::AlreadyRevealed { .. })));
    }

    #[test]
    fn illegal_revealed_orders_are_refused() {
        let mut d = desk(&["ana"], &["kongo"]);
        let (ra, ca) = seal(Color::White, "e2e5");
        let (_, ck) = seal(Color::Black, "e7e5");
        d.commit(Color::White, "ana", ca).expect("commit");
        d.commit(Color::Black, "kongo", ck).expect("commit");
        d.close().expect("closed");
        assert!(matches!(
            d.reveal(Color::White, "ana", &ra),
            Err(RefereeError::Orders(OrderError::IllegalPrimary { .. }))
        ));
        assert_eq!(d.forfeit(), Some(Outcome::Draw { reason: EndReason::Forfeit }));
    }
}
