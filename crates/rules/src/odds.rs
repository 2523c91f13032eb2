//! The SnowFall odds explainer: exact per-kind and joint gift probabilities for a position, and
//! the probabilities that a gift lets the side to move mate at once or lets the opponent mate it.
//!
//! The position is the one just reached: the side not to move has just moved, so the gift event
//! of that move is still pending (its mover is the side not to move). Everything is exact.

use crate::chance::{Event, Probability};
use crate::gift::{self, Gifts, Kind};
use crate::moves::Move;
use crate::piece::Role;
use crate::position::Position;
use crate::variants::snowfall;

/// The pending gift event of a SnowFall position.
#[derive(Debug, Clone)]
pub struct GiftOdds {
    /// The SnowFall percentage.
    pub percent: u8,
    /// The probability that the event happens.
    pub event: Probability,
    /// The joint outcomes given that it happens, most likely first.
    pub joint: Vec<(Gifts, Probability)>,
    /// Per colour (`[white, black]`) and kind (Q R B N P): the probability, given the event,
    /// that the player's gift holds at least one piece of that kind (caps applied).
    pub kinds: [[Probability; 5]; 2],
}

/// The gift odds of `pos` (`None` outside SnowFall).
pub fn gift_odds(pos: &Position) -> Option<GiftOdds> {
    let percent = snowfall::percent(pos.variant())?;
    let joint = gift::event_outcomes(!pos.turn(), &gift::counts(pos));
    let zero = Probability::from_integer(0);
    let mut kinds = [[zero; 5]; 2];
    for (g, p) in &joint {
        for (c, part) in [g.white, g.black].into_iter().enumerate() {
            for k in Kind::ALL {
                if part.has(k) {
                    kinds[c][k as usize] += p;
                }
            }
        }
    }
    Some(GiftOdds { percent, event: gift::event_probability(percent), joint, kinds })
}

/// The odds of the gift event after the next move of the side to move, in a game in play
/// (where the event of the move that led to `pos` is already drawn): its mover is the side to
/// move, and caps are counted on the board as it stands (a capture by that move can change one).
/// `None` outside SnowFall.
pub fn next_gift_odds(pos: &Position) -> Option<GiftOdds> {
    let mut before = pos.clone();
    before.pass_turn();
    gift_odds(&before)
}

/// The mating move of the side to move whose mate is likeliest to stand, and that likelihood.
/// A move's result is judged after its own gift event, which may give the mated side a piece to
/// drop between its king and a distant checker ([`ending`]: the mate stands with probability
/// `stays`); a contact check or a double check stands whatever the gift. `None` without a mate
/// in one; outside SnowFall every mate stands.
pub fn surest_mate(pos: &Position) -> Option<(Move, Probability)> {
    let one = Probability::from_integer(1);
    let mut best: Option<(Move, Probability)> = None;
    for m in pos.legal_moves() {
        let mut c = pos.clone();
        c.play_unchecked(m);
        if !c.is_check() || c.has_legal_move() {
            continue;
        }
        let stands = ending(&c).map_or(one, |e| e.stays);
        if best.is_none_or(|(_, s)| stands > s) {
            best = Some((m, stands));
            if stands == one {
                break;
            }
        }
    }
    best
}

/// A drop of `role` by the side to move that mates at once, if there is one: only the empty
/// squares from which that piece would check are tried (cheap enough for a search to ask).
pub fn drop_mate(pos: &Position, role: Role) -> Option<Move> {
    if pos.hand(pos.turn()).count(role) == 0 {
        return None;
    }
    let them = !pos.turn();
    let king = pos.king_square(them)?;
    let occ = pos.board().occupied();
    // Where our piece would attack the king: its attacks from the king's square, moving as theirs.
    let squares = pos.attacks(king, them, role, occ) - occ;
    squares.into_iter().map(|sq| Move::drop(role, sq)).find(|&m| {
        if !pos.is_legal(m) {
            return false;
        }
        let mut c = pos.clone();
        c.play_unchecked(m);
        c.is_check() && !c.has_legal_move()
    })
}

/// One outcome of the pending gift event and what it lets the side to move do.
#[derive(Debug, Clone)]
pub struct MateOutcome {
    /// What each player receives ([`Gifts::NONE`]: no event, or nothing granted).
    pub gifts: Gifts,
    /// Its probability (the event's probability included).
    pub probability: Probability,
    /// The surest mate in one the side to move then has ([`surest_mate`]).
    pub mate: Option<Move>,
    /// The probability that this mate stands after its own gift event (0 without a mate).
    pub stands: Probability,
}

/// Whether the side to move can mate at once, over the outcomes of the pending gift event.
#[derive(Debug, Clone)]
pub struct MateOdds {
    /// The surest mate in one without any gift.
    pub without_gift: Option<Move>,
    /// The probability that the mate without a gift stands after its own gift event (0
    /// without one; below 1 where the opponent's gift may let it block a distant check).
    pub without_gift_stands: Probability,
    /// The probability that the side to move mates next move: over the outcomes of the pending
    /// gift event, its surest mate in one, standing after that mate's own gift event.
    pub can_mate: Probability,
    /// What the gifts add to it: over the outcomes, how much surer the surest mate is than the
    /// one without a gift (where there is none, the whole of `can_mate`).
    pub thanks_to_gift: Probability,
    /// Every outcome, most likely first.
    pub outcomes: Vec<MateOutcome>,
}

/// The mate-in-one odds of the side to move in `pos`, over its pending gift event; each mate
/// counted with the probability that it stands after its own gift event ([`surest_mate`]).
pub fn mate_odds(pos: &Position) -> Option<MateOdds> {
    let percent = snowfall::percent(pos.variant())?;
    let without = surest_mate(pos);
    let zero = Probability::from_integer(0);
    let s0 = without.map_or(zero, |(_, s)| s);
    let (mut can_mate, mut thanks_to_gift) = (zero, zero);
    let mut outcomes = Vec::new();
    for &(event, p) in gift::distribution(pos, percent).outcomes() {
        let gifts = match event {
            Event::Gift(g) => g,
            _ => Gifts::NONE,
        };
        let mate = if gifts.is_empty() {
            without
        } else {
            let mut c = pos.clone();
            c.receive_gifts(gifts);
            surest_mate(&c)
        };
        let stands = mate.map_or(zero, |(_, s)| s);
        can_mate += p * stands;
        if stands > s0 {
            thanks_to_gift += p * (stands - s0);
        }
        outcomes.push(MateOutcome { gifts, probability: p, mate: mate.map(|(m, _)| m), stands });
    }
    Some(MateOdds {
        without_gift: without.map(|(m, _)| m),
        without_gift_stands: s0,
        can_mate,
        thanks_to_gift,
        outcomes,
    })
}

/// A position whose side to move has no legal move before its pending gift event: checkmated
/// or stalemated, unless the gift gives it a piece to drop (a block, or any drop when
/// stalemated), as the game judges a move's result after its gift.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ending {
    /// In check (checkmate) or not (stalemate).
    pub checkmate: bool,
    /// The probability that the gift event leaves it without a legal move: the game ends.
    pub stays: Probability,
}

/// The [`Ending`] of `pos` if its side to move has no legal move without a gift (`None`
/// otherwise, and outside SnowFall).
pub fn ending(pos: &Position) -> Option<Ending> {
    let percent = snowfall::percent(pos.variant())?;
    if pos.has_legal_move() {
        return None;
    }
    let mut stays = Probability::from_integer(0);
    for &(event, p) in gift::distribution(pos, percent).outcomes() {
        let rescued = match event {
            Event::Gift(g) => {
                let mut c = pos.clone();
                c.receive_gifts(g);
                c.has_legal_move()
            }
            _ => false,
        };
        if !rescued {
            stays += p;
        }
    }
    Some(Ending { checkmate: pos.is_check(), stays })
}

/// For every legal move of the side to move: the probability that, after it and its gift
/// event, the opponent has a mate in one. Safest first (ties in generation order).
pub fn mated_odds(pos: &Position) -> Option<Vec<(Move, Probability)>> {
    snowfall::percent(pos.variant())?;
    let mut out: Vec<(Move, Probability)> = pos
        .legal_moves()
        .into_iter()
        .map(|m| {
            let mut after = pos.clone();
            after.play_unchecked(m);
            // Even a move that leaves the opponent without a move counts: the opponent's gift
            // may give it a drop, and then perhaps a mate.
            (m, mate_odds(&after).map_or(Probability::from_integer(0), |o| o.can_mate))
        })
        .collect();
    out.sort_by_key(|a| a.1);
    Some(out)
}
