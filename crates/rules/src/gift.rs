//! SnowFall's gifts: the seed's generator (20 tokens, the L split, ten combos with the 1/3
//! switch, per-player caps) as an exact distribution and, independently, as the seed's procedure.
//!
//! A gift event draws one token from `PPPPPPPPLLLLLLLLRRQC`. P, R and Q give both players that
//! piece; L gives one of four (mover, opponent) pairs of minor pieces; C gives one of ten combos,
//! whose two parts are switched between the players with probability 1/3. Each player's part is
//! then corrected on its own: pieces are granted one at a time while the player's board-plus-hand
//! count of that kind stays within [`Kind::cap`], the rest is dropped (`docs/RULES.md`, SnowFall).

use crate::chance::{uniform_below, Distribution, Event, Probability};
use crate::color::Color;
use crate::piece::Role;
use crate::position::Position;
use rand::RngCore;
use std::fmt;
use std::str::FromStr;

/// A kind of piece a gift can hold, in the order keys and notation use: Q R B N P.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// A queen.
    Queen,
    /// A rook.
    Rook,
    /// A bishop.
    Bishop,
    /// A knight.
    Knight,
    /// A pawn.
    Pawn,
}

impl Kind {
    /// Every kind, in the order Q R B N P.
    pub const ALL: [Kind; 5] = [Kind::Queen, Kind::Rook, Kind::Bishop, Kind::Knight, Kind::Pawn];

    /// The upper-case letter.
    pub const fn letter(self) -> char {
        match self {
            Kind::Queen => 'Q',
            Kind::Rook => 'R',
            Kind::Bishop => 'B',
            Kind::Knight => 'N',
            Kind::Pawn => 'P',
        }
    }

    /// The most a player may have of this kind, board and hand together: two full sets.
    pub const fn cap(self) -> u8 {
        match self {
            Kind::Queen => 2,
            Kind::Rook | Kind::Bishop | Kind::Knight => 4,
            Kind::Pawn => 16,
        }
    }

    /// The kind of a letter (either case).
    pub fn from_letter(c: char) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.letter() == c.to_ascii_uppercase())
    }

    /// The role of this kind in `pos`'s variant (the orthodox letters).
    fn role(self, pos: &Position) -> Option<Role> {
        pos.variant().role_by_letter(self.letter())
    }
}

/// What one player receives: a count per kind (at most a few pieces).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Gift([u8; 5]);

impl Gift {
    /// Nothing.
    pub const NONE: Gift = Gift([0; 5]);

    /// How many pieces of `kind` it holds.
    pub fn count(self, kind: Kind) -> u8 {
        self.0[kind as usize]
    }

    /// Whether it holds nothing.
    pub fn is_empty(self) -> bool {
        self == Gift::NONE
    }

    /// The pieces, one per entry, in the order Q R B N P.
    pub fn pieces(self) -> impl Iterator<Item = Kind> {
        Kind::ALL.into_iter().flat_map(move |k| std::iter::repeat_n(k, usize::from(self.count(k))))
    }

    /// Whether it holds a piece of `kind`.
    pub fn has(self, kind: Kind) -> bool {
        self.count(kind) > 0
    }

    /// The part of this gift a player holding `have` (per kind, board and hand) may receive.
    pub fn capped(self, have: &Counts) -> Gift {
        let mut g = Gift::NONE;
        for k in Kind::ALL {
            let room = k.cap().saturating_sub(have[k as usize]);
            g.0[k as usize] = self.count(k).min(room);
        }
        g
    }

    /// This gift with one more piece of `kind` (saturating).
    pub fn with(mut self, kind: Kind) -> Gift {
        self.0[kind as usize] = self.0[kind as usize].saturating_add(1);
        self
    }

    const fn of(q: u8, r: u8, b: u8, n: u8, p: u8) -> Gift {
        Gift([q, r, b, n, p])
    }
}

/// Letters in the order Q R B N P (`RP`), `-` for nothing.
impl fmt::Display for Gift {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("-");
        }
        self.pieces().try_for_each(|k| write!(f, "{}", k.letter()))
    }
}

/// A gift is malformed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid gift '{0}': expected letters from Q R B N P (at most 16 of a kind) or '-'")]
pub struct ParseGiftError(pub String);

/// Parses letters of Q R B N P in any order and case, or `-` for nothing.
impl FromStr for Gift {
    type Err = ParseGiftError;
    fn from_str(s: &str) -> Result<Gift, ParseGiftError> {
        let mut g = Gift::NONE;
        if s == "-" {
            return Ok(g);
        }
        if s.is_empty() {
            return Err(ParseGiftError(s.into()));
        }
        for c in s.chars() {
            let k = Kind::from_letter(c).ok_or_else(|| ParseGiftError(s.into()))?;
            let n = &mut g.0[k as usize];
            if *n >= 16 {
                return Err(ParseGiftError(s.into()));
            }
            *n += 1;
        }
        Ok(g)
    }
}

/// What a gift event gives both players.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Gifts {
    /// White's part.
    pub white: Gift,
    /// Black's part.
    pub black: Gift,
}

impl Gifts {
    /// Nothing for either player.
    pub const NONE: Gifts = Gifts { white: Gift::NONE, black: Gift::NONE };

    /// A colour's part.
    pub fn of(self, c: Color) -> Gift {
        match c {
            Color::White => self.white,
            Color::Black => self.black,
        }
    }

    /// Whether neither player receives anything.
    pub fn is_empty(self) -> bool {
        self.white.is_empty() && self.black.is_empty()
    }

    /// The parts given to the mover and the opponent, as colours.
    pub fn from_parts(mover: Color, mine: Gift, theirs: Gift) -> Gifts {
        match mover {
            Color::White => Gifts { white: mine, black: theirs },
            Color::Black => Gifts { white: theirs, black: mine },
        }
    }

    /// The key of the odds explainer's joint table: `W:<white gift>|B:<black gift>`.
    pub fn key(self) -> String {
        format!("W:{}|B:{}", self.white, self.black)
    }
}

/// `W:Q B:RP` (the form game records use).
impl fmt::Display for Gifts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "W:{} B:{}", self.white, self.black)
    }
}

/// One player's board-plus-hand count per kind, in the order Q R B N P.
pub type Counts = [u8; 5];

/// Per colour (`[white, black]`), the board-plus-hand count of each kind in `pos`.
pub fn counts(pos: &Position) -> [Counts; 2] {
    let mut out = [[0u8; 5]; 2];
    for c in Color::ALL {
        for k in Kind::ALL {
            if let Some(role) = k.role(pos) {
                let on_board = (pos.board().by_role(role) & pos.board().by_color(c)).count();
                let n = on_board + u32::from(pos.hand(c).count(role));
                out[c.index()][k as usize] = n.min(255) as u8;
            }
        }
    }
    out
}

/// The ten combos as (mover's part, opponent's part), in the seed's order.
pub const COMBOS: [(Gift, Gift); 10] = [
    (Gift::of(0, 0, 1, 0, 0), Gift::of(0, 0, 0, 0, 2)),
    (Gift::of(0, 0, 0, 1, 0), Gift::of(0, 0, 0, 0, 2)),
    (Gift::of(0, 1, 0, 0, 1), Gift::of(0, 0, 1, 1, 0)),
    (Gift::of(1, 0, 0, 0, 0), Gift::of(0, 1, 0, 0, 1)),
    (Gift::of(1, 0, 0, 0, 0), Gift::of(0, 0, 1, 1, 0)),
    (Gift::of(1, 0, 0, 0, 0), Gift::of(0, 0, 2, 0, 0)),
    (Gift::of(1, 0, 0, 0, 0), Gift::of(0, 0, 0, 2, 0)),
    (Gift::of(1, 0, 0, 0, 0), Gift::of(0, 0, 0, 1, 1)),
    (Gift::of(1, 0, 0, 0, 0), Gift::of(0, 0, 1, 0, 1)),
    (Gift::of(0, 0, 2, 0, 0), Gift::of(0, 0, 0, 2, 0)),
];

/// The L token's four equally likely (mover, opponent) pairs.
pub const LIGHT_PAIRS: [(Gift, Gift); 4] = [
    (Gift::of(0, 0, 0, 1, 0), Gift::of(0, 0, 0, 1, 0)),
    (Gift::of(0, 0, 1, 0, 0), Gift::of(0, 0, 1, 0, 0)),
    (Gift::of(0, 0, 0, 1, 0), Gift::of(0, 0, 1, 0, 0)),
    (Gift::of(0, 0, 1, 0, 0), Gift::of(0, 0, 0, 1, 0)),
];

/// The seed's token set: 8 P, 8 L, 2 R, 1 Q, 1 C.
pub const TOKENS: &str = "PPPPPPPPLLLLLLLLRRQC";

/// Every way a gift event can go before the caps, as (mover's part, opponent's part,
/// probability given that the event happens): 27 lines summing to 1, in the seed's order.
pub fn raw_outcomes() -> Vec<(Gift, Gift, Probability)> {
    let p = |n, d| Probability::new(n, d);
    let both = |g: Gift| (g, g);
    let mut out = Vec::with_capacity(27);
    let (mine, theirs) = both(Gift::of(0, 0, 0, 0, 1));
    out.push((mine, theirs, p(8, 20)));
    for (mine, theirs) in LIGHT_PAIRS {
        out.push((mine, theirs, p(8, 20) * p(1, 4)));
    }
    let (mine, theirs) = both(Gift::of(0, 1, 0, 0, 0));
    out.push((mine, theirs, p(2, 20)));
    let (mine, theirs) = both(Gift::of(1, 0, 0, 0, 0));
    out.push((mine, theirs, p(1, 20)));
    for (mine, theirs) in COMBOS {
        out.push((mine, theirs, p(1, 20) * p(1, 10) * p(2, 3)));
    }
    for (mine, theirs) in COMBOS {
        out.push((theirs, mine, p(1, 20) * p(1, 10) * p(1, 3)));
    }
    out
}

/// The exact outcomes of a gift event after `mover` moved, the players holding `have`
/// (`[white, black]`), given that the event happens: distinct capped outcomes with their
/// probabilities (summing to 1), most likely first, ties in key order.
pub fn event_outcomes(mover: Color, have: &[Counts; 2]) -> Vec<(Gifts, Probability)> {
    let (me, them) = (mover.index(), (!mover).index());
    let mut out: Vec<(Gifts, Probability)> = Vec::with_capacity(27);
    for (mine, theirs, p) in raw_outcomes() {
        let g = Gifts::from_parts(mover, mine.capped(&have[me]), theirs.capped(&have[them]));
        match out.iter_mut().find(|(x, _)| *x == g) {
            Some((_, q)) => *q += p,
            None => out.push((g, p)),
        }
    }
    out.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    out
}

/// The gift-event probability of a SnowFall percentage.
pub fn event_probability(percent: u8) -> Probability {
    Probability::new(u64::from(percent.min(100)), 100)
}

/// The full chance distribution after a move, `after` being the position it reached (the
/// mover is the side not to move there): no event, or an event that grants nothing, is
/// [`Event::Success`]; otherwise [`Event::Gift`]. Outcomes with equal gifts are merged.
pub fn distribution(after: &Position, percent: u8) -> Distribution<Event> {
    let p = event_probability(percent);
    let mover = !after.turn();
    let mut nothing = Probability::from_integer(1) - p;
    let mut outcomes = Vec::with_capacity(28);
    if *p.numer() != 0 {
        for (g, q) in event_outcomes(mover, &counts(after)) {
            if g.is_empty() {
                nothing += p * q;
            } else {
                outcomes.push((Event::Gift(g), p * q));
            }
        }
    }
    if *nothing.numer() != 0 {
        outcomes.insert(0, (Event::Success, nothing));
    }
    // The parts sum to one by construction.
    Distribution::new(outcomes).unwrap_or_else(|_| Distribution::certain(Event::Success))
}

/// The seed's procedure, step by step on `rng`: the event with `percent` %, a token from
/// [`TOKENS`], the L pair or the combo and its 1/3 switch, then the caps. `None`: no event.
/// (Games sample the exact [`distribution`]; this independent rendering of the seed is what
/// the tests hold that distribution against.)
pub fn draw<R: RngCore + ?Sized>(rng: &mut R, percent: u8, mover: Color, have: &[Counts; 2]) -> Option<Gifts> {
    if uniform_below(rng, 100) >= u128::from(percent) {
        return None;
    }
    let token = TOKENS.as_bytes()[uniform_below(rng, 20) as usize];
    let (mine, theirs) = match token {
        b'P' => (Gift::of(0, 0, 0, 0, 1), Gift::of(0, 0, 0, 0, 1)),
        b'R' => (Gift::of(0, 1, 0, 0, 0), Gift::of(0, 1, 0, 0, 0)),
        b'Q' => (Gift::of(1, 0, 0, 0, 0), Gift::of(1, 0, 0, 0, 0)),
        b'L' => LIGHT_PAIRS[uniform_below(rng, 4) as usize],
        _ => {
            let (a, b) = COMBOS[uniform_below(rng, 10) as usize];
            if uniform_below(rng, 3) == 0 {
                (b, a)
            } else {
                (a, b)
            }
        }
    };
    let (me, them) = (mover.index(), (!mover).index());
    Some(Gifts::from_parts(mover, mine.capped(&have[me]), theirs.capped(&have[them])))
}

impl Position {
    /// Puts a gift event's pieces into the hands (kinds the variant lacks are skipped).
    pub fn receive_gifts(&mut self, gifts: Gifts) {
        for c in Color::ALL {
            for k in gifts.of(c).pieces() {
                if let Some(role) = k.role(self) {
                    self.add_to_hand(c, role);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_raw_outcomes_sum_to_one() {
        let sum = raw_outcomes().iter().fold(Probability::from_integer(0), |a, x| a + x.2);
        assert_eq!(sum, Probability::from_integer(1));
        assert_eq!(raw_outcomes().len(), 27);
    }

    #[test]
    fn gifts_print_and_parse() {
        let g: Gift = "pr".parse().expect("valid");
        assert_eq!(g.to_string(), "RP");
        assert_eq!("-".parse::<Gift>(), Ok(Gift::NONE));
        assert!("".parse::<Gift>().is_err());
        assert!("RK".parse::<Gift>().is_err());
        let both = Gifts { white: Gift::of(1, 0, 0, 0, 0), black: Gift::NONE };
        assert_eq!(both.key(), "W:Q|B:-");
    }

    #[test]
    fn caps_grant_pieces_one_at_a_time_while_they_fit() {
        let two_pawns = Gift::of(0, 0, 0, 0, 2);
        assert_eq!(two_pawns.capped(&[0, 0, 0, 0, 15]), Gift::of(0, 0, 0, 0, 1));
        assert_eq!(two_pawns.capped(&[0, 0, 0, 0, 16]), Gift::NONE);
        assert_eq!(Gift::of(1, 0, 0, 0, 0).capped(&[2, 0, 0, 0, 0]), Gift::NONE);
    }
}
