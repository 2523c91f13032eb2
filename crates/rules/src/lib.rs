//! fairylab's rules core: generic bitboard boards up to 8x8, fairy pieces from Betza or
//! FairyGen definitions, positions with hands and chance, move generation and notation.
//!
//! ```
//! use rules::{variants, Position, perft};
//! let chess = variants::by_name("chess").unwrap();
//! let start = Position::start(chess);
//! assert_eq!(perft(&start, 3), 8902);
//! ```
//!
//! # Where things are
//!
//! | Task | Items |
//! |------|-------|
//! | A built-in variant ("chess", "chess960", "crazyhouse", "snowfall", "probabilistic", "baby", ...) | [`variants::by_name`], [`variants::all`] |
//! | A custom variant: a TOML file with pieces in Betza or FairyGen notation | [`spec::load_variant_str`], [`spec::load_variant_file`], [`betza`], [`piecedef`] |
//! | A position from FEN (hands as `[QNp]`) and back | [`Position::from_fen`], [`Position::fen`] |
//! | Legal moves; perft | [`Position::legal_moves`], [`Position::is_legal`], [`perft()`] |
//! | Moves in SAN and UCI | [`san::parse_san`], [`san::to_san`], [`uci::parse_uci`], [`uci::to_uci`] |
//! | Playing moves | [`Position::play`] (checked), [`Game`] (a position with its history) |
//! | The end of a game (checkmate, stalemate, draws, king capture) | [`Position::outcome`], [`Position::is_checkmate`], [`Position::is_stalemate`], [`Game::outcome`] (repetitions too), [`Outcome`], [`EndReason`] |
//! | PGN in and out (variants, hands, chance events) | [`record::read_pgn`], [`record::read_records`], [`record::write_pgn`] |
//! | Chance: each move's outcomes, seeded sampling | [`Position::chance`], [`Game::play_sampled`], [`chance::seeded_rng`] |
//! | SnowFall's gift odds | [`odds::gift_odds`], [`odds::mate_odds`], [`gift`] |
//! | Predictor chess orders | [`orders`], [`predictor`] |
//! | Why a move is not legal, in words | [`explain::why_not`] |
//!
//! Errors are typed per parser (`ParseFenError`, `SanError`, `UciError`, `RecordError`,
//! `SpecError`, ...), implement [`std::error::Error`] and say what is wrong and where. The random
//! streams are [`rand`] 0.8's, re-exported with [`rand_chacha`] and [`num_rational`] (exact
//! probabilities) so that a user's versions match.
//!
//! # Examples
//!
//! A game from SAN to its end:
//!
//! ```
//! use rules::san::{parse_san, to_san};
//! use rules::{variants, EndReason, Game, Outcome, Position, Color};
//!
//! let chess = variants::by_name("chess").unwrap();
//! let mut game = Game::new(Position::start(chess));
//! for san in ["f3", "e5", "g4", "Qh4#"] {
//!     let m = parse_san(game.position(), san)?;
//!     game.play(m)?;
//! }
//! let mate = Outcome::Decisive { winner: Color::Black, reason: EndReason::Checkmate };
//! assert_eq!(game.outcome(), Some(mate));
//! let pos = Position::from_fen(chess, "7k/5Q2/6K1/8/8/8/8/8 w - - 0 1")?;
//! let m = pos.legal_moves().into_iter().find(|&m| to_san(&pos, m) == "Qg7#").unwrap();
//! assert_eq!(rules::uci::to_uci(&pos, m), "f7g7");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A fairy piece in a custom variant, and drops:
//!
//! ```
//! use rules::{spec, uci, Position};
//!
//! // Chess with an archbishop (bishop + knight) on a, dropped from the hand.
//! let v = spec::load_variant_str(
//!     "name = \"archdrops\"\nparent = \"crazyhouse\"\n[[piece]]\nletter = \"a\"\nbetza = \"BN\"\n",
//! )?;
//! let pos = Position::from_fen(v, "4k3/8/8/8/8/8/8/4K3[A] w - - 0 1")?;
//! let drop = uci::parse_uci(&pos, "A@e4")?;
//! let mut after = pos.clone();
//! after.play(drop)?;
//! assert_eq!(after.fen(), "4k3/8/8/8/4A3/8/8/4K3[] b - - 1 1");
//! assert_eq!(rules::explain::why_not(&pos, "Q@e4"), "white holds no queen");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Chance: the exact outcomes of a SnowFall move, and a seeded draw from them:
//!
//! ```
//! use rules::chance::{seeded_rng, Event};
//! use rules::{variants, Game, Position};
//!
//! let snowfall = variants::by_name("snowfall").unwrap(); // the percentage 17 %
//! let start = Position::start(snowfall);
//! let e4 = rules::uci::parse_uci(&start, "e2e4")?;
//! let outcomes = start.chance(e4);
//! let quiet = outcomes.outcomes().iter().find(|(e, _)| *e == Event::Success).map(|(_, p)| *p);
//! assert_eq!(quiet, Some(rules::num_rational::Ratio::new(83, 100)));
//! let mut game = Game::new(start);
//! let event = game.play_sampled(e4, &mut seeded_rng(7))?; // the same event for the same seed
//! assert!(outcomes.outcomes().iter().any(|(e, _)| *e == event));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

pub mod betza;
pub mod bitboard;
pub mod board;
pub mod chance;
pub mod check;
pub mod color;
pub mod explain;
pub mod fen;
pub mod game;
pub mod geometry;
pub mod gift;
pub mod hand;
pub mod magic;
pub mod movegen;
pub mod movement;
pub mod moves;
pub mod odds;
pub mod orders;
pub mod outcome;
pub mod path;
pub mod perft;
pub mod piece;
pub mod piecedef;
pub mod position;
pub mod predictor;
pub mod record;
pub mod san;
pub mod setup;
pub mod spec;
pub mod square;
pub mod square_map;
pub mod switches;
pub mod uci;
pub mod variant;
pub mod variants;
pub mod zobrist;

pub use bitboard::Bitboard;
pub use color::Color;
pub use geometry::Geometry;
pub use moves::{Move, MoveKind, MoveList};
pub use perft::perft;
pub use piece::{Piece, Role, MAX_ROLES};
pub use position::Position;
pub use square::Square;
pub use variant::{Rules, Variant};

pub use game::Game;
pub use hand::Hand;
pub use outcome::{EndReason, Outcome};
pub use position::{IllegalMove, PositionError};
// The dependencies whose types are in this API (seeded streams, exact probabilities).
pub use num_rational;
pub use rand;
pub use rand_chacha;
