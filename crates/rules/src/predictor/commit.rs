//! Predictor chess's commit–reveal (RULINGS § Predictor chess 7): a SHA-256 commitment to one
//! side's orders for one ply of one game, the nonce that hides them, and the reveal that opens it.
//!
//! The commitment is SHA-256 over, in this order: the domain tag `fairylab/predictor/commit/v1`
//! and a zero byte; the game id's length (u32, big-endian) and its bytes; the ply (u32,
//! big-endian); the side (`w` or `b`); the orders' length (u32, big-endian) and their canonical
//! text ([`canonical_orders`]); the 32-byte nonce. Lengths make the fields unambiguous, the tag
//! keeps the hash from meaning anything elsewhere, and the nonce keeps a short orders text from
//! being found by trying every move. A reveal is one line anyone can publish and check:
//!
//! ```text
//! predictor-reveal v1 game=G ply=N side=white nonce=<64 hex digits> orders=e2e4 if e7e5 then d2d3
//! ```
//!
//! Verification hashes the revealed bytes exactly: any changed byte of the game, ply, side,
//! orders or nonce fails.

use crate::color::Color;
use rand::RngCore;
use sha2::{Digest, Sha256};
use std::fmt;
use std::str::FromStr;

/// The domain tag that starts every commitment's hashed bytes.
pub const DOMAIN: &str = "fairylab/predictor/commit/v1";

/// The first word of a reveal line.
const REVEAL_TAG: &str = "predictor-reveal";

/// The reveal format's version word.
const REVEAL_VERSION: &str = "v1";

/// The longest game id (letters, digits, `.`, `_` and `-`).
pub const MAX_GAME_ID: usize = 64;

/// Why a commitment, nonce or reveal was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CommitError {
    /// A hash or nonce is not 64 hexadecimal digits.
    #[error("{what} '{text}' is not 64 hexadecimal digits (32 bytes)")]
    BadHex {
        /// `commitment` or `nonce`.
        what: &'static str,
        /// The text.
        text: String,
    },
    /// A game id that is empty, too long, or has characters other than letters, digits, `.`, `_`, `-`.
    #[error("game id '{0}' must be 1 to 64 letters, digits, '.', '_' or '-'")]
    BadGameId(String),
    /// A side other than white/black (w/b).
    #[error("side '{0}' is not white or black")]
    BadSide(String),
    /// Orders that are not in canonical form (lower case, single spaces) in a reveal.
    #[error("the revealed orders '{0}' are not canonical (lower case, words separated by one space)")]
    NotCanonical(String),
    /// A reveal line that does not follow the format.
    #[error("invalid reveal '{text}': {reason}")]
    BadReveal {
        /// The line.
        text: String,
        /// What is wrong.
        reason: String,
    },
    /// The reveal does not open the commitment.
    #[error("the reveal does not match the commitment {commitment}: the orders, nonce, game, ply or side differ from what was committed")]
    Mismatch {
        /// The commitment that was checked.
        commitment: Commitment,
    },
}

/// Parses 32 bytes from 64 hexadecimal digits.
fn bytes32(what: &'static str, text: &str) -> Result<[u8; 32], CommitError> {
    let mut out = [0u8; 32];
    hex::decode_to_slice(text.trim(), &mut out).map_err(|_| CommitError::BadHex { what, text: text.to_string() })?;
    Ok(out)
}

/// A commitment: the SHA-256 of the committed bytes.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Commitment(pub [u8; 32]);

impl fmt::Display for Commitment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&hex::encode(self.0))
    }
}

impl fmt::Debug for Commitment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Commitment({self})")
    }
}

impl FromStr for Commitment {
    type Err = CommitError;
    fn from_str(s: &str) -> Result<Commitment, CommitError> {
        bytes32("commitment", s).map(Commitment)
    }
}

/// The 32 secret random bytes a side keeps until it reveals.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Nonce(pub [u8; 32]);

impl Nonce {
    /// A fresh nonce from the operating system's random source.
    pub fn random() -> Nonce {
        let mut bytes = [0u8; 32];
        rand::rngs::OsRng.fill_bytes(&mut bytes);
        Nonce(bytes)
    }
}

impl fmt::Display for Nonce {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&hex::encode(self.0))
    }
}

impl fmt::Debug for Nonce {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Nonce({self})")
    }
}

impl FromStr for Nonce {
    type Err = CommitError;
    fn from_str(s: &str) -> Result<Nonce, CommitError> {
        bytes32("nonce", s).map(Nonce)
    }
}

/// Checks a game id: 1 to 64 ASCII letters, digits, `.`, `_` or `-`.
pub fn check_game_id(game: &str) -> Result<(), CommitError> {
    let ok = !game.is_empty()
        && game.len() <= MAX_GAME_ID
        && game.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if ok {
        Ok(())
    } else {
        Err(CommitError::BadGameId(game.to_string()))
    }
}

/// Reads a side: `white`/`w` or `black`/`b`, any case.
pub fn parse_side(text: &str) -> Result<Color, CommitError> {
    match text.to_ascii_lowercase().as_str() {
        "white" | "w" => Ok(Color::White),
        "black" | "b" => Ok(Color::Black),
        _ => Err(CommitError::BadSide(text.to_string())),
    }
}

/// The canonical text of an orders text: lower case, words separated by one space. (Given the
/// position, [`super::Orders::to_text`] also normalises the moves themselves.)
pub fn canonical_orders(text: &str) -> String {
    text.split_whitespace().map(str::to_ascii_lowercase).collect::<Vec<_>>().join(" ")
}

/// The commitment to `orders` (their exact bytes) of `side` for `ply` of `game` under `nonce`.
pub fn commitment(game: &str, ply: u32, side: Color, orders: &str, nonce: &Nonce) -> Commitment {
    let mut h = Sha256::new();
    h.update(DOMAIN.as_bytes());
    h.update([0u8]);
    h.update((game.len() as u32).to_be_bytes());
    h.update(game.as_bytes());
    h.update(ply.to_be_bytes());
    h.update([side.char() as u8]);
    h.update((orders.len() as u32).to_be_bytes());
    h.update(orders.as_bytes());
    h.update(nonce.0);
    Commitment(h.finalize().into())
}

/// A side's revealed orders for a ply, with everything needed to check its commitment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reveal {
    /// The game id.
    pub game: String,
    /// The ply (1 for the first).
    pub ply: u32,
    /// The side.
    pub side: Color,
    /// The orders' canonical text.
    pub orders: String,
    /// The nonce.
    pub nonce: Nonce,
}

impl Reveal {
    /// A reveal of `orders` (made canonical) with a fresh nonce, and its commitment.
    pub fn seal(game: &str, ply: u32, side: Color, orders: &str) -> Result<(Reveal, Commitment), CommitError> {
        check_game_id(game)?;
        let reveal =
            Reveal { game: game.to_string(), ply, side, orders: canonical_orders(orders), nonce: Nonce::random() };
        let c = reveal.commitment();
        Ok((reveal, c))
    }

    /// The commitment this reveal opens.
    pub fn commitment(&self) -> Commitment {
        commitment(&self.game, self.ply, self.side, &self.orders, &self.nonce)
    }

    /// Checks that this reveal opens `commitment`.
    pub fn verify(&self, commitment: &Commitment) -> Result<(), CommitError> {
        if self.commitment() == *commitment {
            Ok(())
        } else {
            Err(CommitError::Mismatch { commitment: *commitment })
        }
    }

    /// The reveal line (see the module doc).
    pub fn to_line(&self) -> String {
        format!(
            "{REVEAL_TAG} {REVEAL_VERSION} game={} ply={} side={} nonce={} orders={}",
            self.game, self.ply, self.side, self.nonce, self.orders
        )
    }

    /// Reads a reveal line. The orders must be canonical: verification is over exact bytes.
    pub fn parse(line: &str) -> Result<Reveal, CommitError> {
        let bad = |reason: &str| CommitError::BadReveal { text: line.to_string(), reason: reason.to_string() };
        let line_t = line.trim();
        let rest = line_t
            .strip_prefix(REVEAL_TAG)
            .and_then(|r| r.strip_prefix(' '))
            .ok_or_else(|| bad("it does not start with 'predictor-reveal'"))?;
        let rest = rest
            .strip_prefix(REVEAL_VERSION)
            .and_then(|r| r.strip_prefix(' '))
            .ok_or_else(|| bad("only version v1 is known"))?;
        let (head, orders) = rest.split_once("orders=").ok_or_else(|| bad("no orders= field (it comes last)"))?;
        let fields: Vec<&str> = head.split(' ').filter(|w| !w.is_empty()).collect();
        let [game, ply, side, nonce] = fields.as_slice() else {
            return Err(bad("expected game=G ply=N side=S nonce=HEX before orders="));
        };
        let field = |word: &str, name: &str| -> Result<String, CommitError> {
            word.strip_prefix(name)
                .and_then(|w| w.strip_prefix('='))
                .map(str::to_string)
                .ok_or_else(|| bad(&format!("expected {name}=... in the fields game, ply, side, nonce, orders")))
        };
        let game = field(game, "game")?;
        check_game_id(&game)?;
        let ply_text = field(ply, "ply")?;
        let ply = match ply_text.parse::<u32>() {
            Ok(n) if n >= 1 && ply_text.bytes().all(|b| b.is_ascii_digit()) => n,
            _ => return Err(bad(&format!("ply '{ply_text}' is not a whole number from 1"))),
        };
        let side = parse_side(&field(side, "side")?)?;
        let nonce = field(nonce, "nonce")?.parse()?;
        if orders.is_empty() || canonical_orders(orders) != orders {
            return Err(CommitError::NotCanonical(orders.to_string()));
        }
        Ok(Reveal { game, ply, side, orders: orders.to_string(), nonce })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Reveal {
        Reveal {
            game: "g-1".into(),
            ply: 7,
            side: Color::White,
            orders: "e2e4 if e7e5 then d2d3".into(),
            nonce: Nonce([0x5a; 32]),
        }
    }

    #[test]
    fn a_reveal_opens_its_commitment_and_reads_back() {
        let r = sample();
        let c = r.commitment();
        assert_eq!(r.verify(&c), Ok(()));
        let line = r.to_line();
        assert_eq!(Reveal::parse(&line), Ok(r.clone()));
        assert_eq!(c.to_string().parse::<Commitment>(), Ok(c));
        assert_eq!(r.nonce.to_string().len(), 64);
    }

    #[test]
    fn any_changed_byte_fails() {
        let r = sample();
        let c = r.commitment();
        // Every byte of the orders, each bit of the nonce's bytes, the ply, the side, the game.
        for i in 0..r.orders.len() {
            let mut bytes = r.orders.clone().into_bytes();
            bytes[i] ^= 0x01;
            let changed = Reveal { orders: String::from_utf8(bytes).expect("ascii"), ..r.clone() };
            assert!(changed.verify(&c).is_err(), "orders byte {i}");
        }
        for i in 0..32 {
            let mut nonce = r.nonce;
            nonce.0[i] ^= 0x80;
            assert!(Reveal { nonce, ..r.clone() }.verify(&c).is_err(), "nonce byte {i}");
        }
        assert!(Reveal { ply: 8, ..r.clone() }.verify(&c).is_err());
        assert!(Reveal { side: Color::Black, ..r.clone() }.verify(&c).is_err());
        assert!(Reveal { game: "g-2".into(), ..r.clone() }.verify(&c).is_err());
        // Field boundaries are fixed by lengths: moving a character between the game id and
        // the orders changes the hash.
        let shifted = Reveal { game: "g-1e".into(), orders: "2e4 if e7e5 then d2d3".into(), ..r.clone() };
        assert!(shifted.verify(&c).is_err());
    }

    #[test]
    fn fresh_nonces_hide_equal_orders() {
        let (a, ca) = Reveal::seal("g", 1, Color::Black, "E7E5").expect("sealed");
        let (b, cb) = Reveal::seal("g", 1, Color::Black, "e7e5").expect("sealed");
        assert_eq!(a.orders, "e7e5");
        assert_eq!(a.orders, b.orders);
        assert_ne!(a.nonce, b.nonce);
        assert_ne!(ca, cb);
    }

    #[test]
    fn bad_reveals_are_refused_with_a_reason() {
        let line = sample().to_line();
        let err = |l: &str| Reveal::parse(l).expect_err(l);
        assert!(matches!(err(""), CommitError::BadReveal { .. }));
        assert!(matches!(err(&line.replace("v1", "v2")), CommitError::BadReveal { .. }));
        assert!(matches!(err(&line.replace("ply=7", "ply=0")), CommitError::BadReveal { .. }));
        assert!(matches!(err(&line.replace("ply=7", "ply=+7")), CommitError::BadReveal { .. }));
        assert!(matches!(err(&line.replace("side=white", "side=red")), CommitError::BadSide(_)));
        assert!(matches!(err(&line.replace("game=g-1", "game=g/1")), CommitError::BadGameId(_)));
        assert!(matches!(err(&line.replace("5a5a", "zz")), CommitError::BadHex { .. }));
        assert!(matches!(err(&line.replace("e2e4", "E2E4")), CommitError::NotCanonical(_)));
        assert!(matches!(err(&line.replace("then d2d3", "then  d2d3")), CommitError::NotCanonical(_)));
        assert!(matches!(err(line.split(" orders=").next().expect("head")), CommitError::BadReveal { .. }));
        assert!(matches!("abc".parse::<Commitment>(), Err(CommitError::BadHex { .. })));
        assert!(Reveal::seal(&"x".repeat(65), 1, Color::White, "e2e4").is_err());
    }
}
