//! A game's fairness seed: 32 random bytes whose SHA-256 is published when the game starts and
//! which is revealed when it ends; every chance draw of the game is derived from it.
//!
//! The draw for ply `k` (0 for the first move) uses a ChaCha8 generator seeded with
//! SHA-256(`fairylab/game/ply/v1` ‖ 0 ‖ seed ‖ k as u32 big-endian); the game's setup (a
//! Probabilistic map, a SnowFall percentage, a Chess960 start) uses SHA-256(`fairylab/game/setup/v1`
//! ‖ 0 ‖ seed), drawing the parts the player left open in the order the record's
//! [`SETUP_TAG`] lists them. Anyone holding the revealed seed can replay the setup and every roll
//! and gift (`fairylab verify-game`).

use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sha2::{Digest, Sha256};

/// The record tag naming what the seed drew at the start, in the order drawn: `snowfall` (the
/// SnowFall percentage), `map` (the Probabilistic map) and `start` (the Chess960 start position).
pub const SETUP_TAG: &str = "SetupFromSeed";

/// One part of a game's setup, as its seed draws it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetupDraw {
    /// The SnowFall percentage.
    SnowFall(u8),
    /// The start position, with its Probabilistic map (FEN).
    Map(String),
    /// The Chess960 start: its number and FEN.
    Start(u16, String),
}

/// A game's seed.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct GameSeed(pub [u8; 32]);

impl std::fmt::Debug for GameSeed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("GameSeed(<secret>)")
    }
}

impl GameSeed {
    /// A fresh seed from the operating system's random source.
    pub fn random() -> GameSeed {
        let mut b = [0u8; 32];
        rand::rngs::OsRng.fill_bytes(&mut b);
        GameSeed(b)
    }

    /// Reads 64 hexadecimal digits.
    pub fn from_hex(text: &str) -> Option<GameSeed> {
        let mut b = [0u8; 32];
        hex::decode_to_slice(text.trim(), &mut b).ok()?;
        Some(GameSeed(b))
    }

    /// The seed as 64 hexadecimal digits (secret until the game ends).
    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }

    /// The published commitment: SHA-256 of the seed's 32 bytes, in hex.
    pub fn commitment(&self) -> String {
        hex::encode(Sha256::digest(self.0))
    }

    fn derive(&self, tag: &str, extra: &[u8]) -> ChaCha8Rng {
        let mut h = Sha256::new();
        h.update(tag.as_bytes());
        h.update([0u8]);
        h.update(self.0);
        h.update(extra);
        ChaCha8Rng::from_seed(h.finalize().into())
    }

    /// The generator for the chance draw of ply `k` (0-based).
    pub fn ply_rng(&self, k: u32) -> ChaCha8Rng {
        self.derive("fairylab/game/ply/v1", &k.to_be_bytes())
    }

    /// The generator for the game's setup.
    pub fn setup_rng(&self) -> ChaCha8Rng {
        self.derive("fairylab/game/setup/v1", &[])
    }

    /// Replays the setup draws `parts` ([`SETUP_TAG`]'s words, in order) of a game starting from
    /// `start` (its placement: a map is drawn for where its kings stand), as the server made
    /// them when the game was created.
    pub fn replay_setup(&self, parts: &str, start: &rules::Position) -> Result<Vec<SetupDraw>, String> {
        let v = start.variant();
        let mut setup = self.setup_rng();
        parts
            .split_whitespace()
            .map(|part| match part {
                "snowfall" => Ok(SetupDraw::SnowFall(rules::variants::snowfall::draw_percent(&mut setup))),
                "map" if rules::variants::probabilistic::options(v).is_some() => {
                    Ok(SetupDraw::Map(rules::variants::probabilistic::draw_map(start, &mut setup).fen()))
                }
                "start" if rules::variants::chess960::is_chess960(v) => {
                    let (n, fen) = rules::variants::chess960::random_start(v, &mut setup);
                    Ok(SetupDraw::Start(n, fen))
                }
                "map" | "start" => Err(format!("a {} game has no drawn {part}", v.name)),
                other => Err(format!("unknown setup draw '{other}' (known: snowfall, map, start)")),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_depend_on_the_seed_and_the_ply_only() {
        let s = GameSeed([7; 32]);
        assert_eq!(s.ply_rng(3).next_u64(), GameSeed([7; 32]).ply_rng(3).next_u64());
        assert_ne!(s.ply_rng(3).next_u64(), s.ply_rng(4).next_u64());
        assert_ne!(s.ply_rng(0).next_u64(), s.setup_rng().next_u64());
        assert_eq!(GameSeed::from_hex(&s.to_hex()), Some(s));
        assert_eq!(s.commitment().len(), 64);
        assert_ne!(s.commitment(), GameSeed([8; 32]).commitment());
    }

    /// The setup draws come from one generator in the tag's order, and a draw the variant does
    /// not have is refused.
    #[test]
    fn the_setup_replays_in_the_tags_order() {
        let s = GameSeed([9; 32]);
        let c960 = rules::variants::by_name("chess960").expect("chess960");
        let mut rng = s.setup_rng();
        let n = rules::variants::snowfall::draw_percent(&mut rng);
        let (k, fen) = rules::variants::chess960::random_start(c960, &mut rng);
        let at = |v| rules::Position::start(v);
        assert_eq!(
            s.replay_setup("snowfall start", &at(c960)),
            Ok(vec![SetupDraw::SnowFall(n), SetupDraw::Start(k, fen)])
        );
        assert_eq!(s.replay_setup("", &at(c960)), Ok(Vec::new()));
        let chess = rules::variants::by_name("chess").expect("chess");
        assert_eq!(s.replay_setup("map", &at(chess)), Err("a chess game has no drawn map".to_string()));
        assert_eq!(s.replay_setup("start", &at(chess)), Err("a chess game has no drawn start".to_string()));
        let prob = rules::variants::by_name("probabilistic").expect("probabilistic");
        assert!(matches!(s.replay_setup("map", &at(prob)).as_deref(), Ok([SetupDraw::Map(_)])));
    }
}
