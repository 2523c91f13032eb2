//! Probabilistic chess (`seeds/probabilistic-chess.txt`, RULINGS § Probabilistic chess): every
//! move succeeds only with its destination square's percentage; capture the king to win.
//!
//! The map lives in each position (`square_map.rs`, the FEN's seventh field); the king
//! options, the shrinking board and the ply limit make separate variants ([`variant`]).

use crate::bitboard::Bitboard;
use crate::chance::{ChanceRule, KingMoves};
use crate::position::Position;
use crate::square_map::SquareMap;
use crate::variant::{DrawRules, InsufficientMaterial, Rules, Variant, WinCondition};
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// The ply limit of the listed variants (RULINGS § Probabilistic chess, 5).
pub const DEFAULT_PLY_LIMIT: u32 = 1000;
/// Plies without a capture after which the shrinking board closes a ring.
pub const SHRINK_AFTER: u32 = 40;
/// The seed of the map in the listed variants' start position; games draw their own.
pub const START_MAP_SEED: u64 = 0;

/// The options of Probabilistic chess.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ProbOptions {
    /// How king moves succeed.
    pub king: KingMoves,
    /// The shrinking board.
    pub shrinking: bool,
    /// The ply limit (0: none).
    pub ply_limit: u32,
}

impl Default for ProbOptions {
    fn default() -> ProbOptions {
        ProbOptions { king: KingMoves::Normal, shrinking: false, ply_limit: DEFAULT_PLY_LIMIT }
    }
}

impl ProbOptions {
    /// The listed combinations (default ply limit).
    pub fn listed() -> Vec<ProbOptions> {
        let mut all = Vec::new();
        for shrinking in [false, true] {
            for king in [KingMoves::Normal, KingMoves::Always, KingMoves::Double] {
                all.push(ProbOptions { king, shrinking, ply_limit: DEFAULT_PLY_LIMIT });
            }
        }
        all
    }

    /// The variant name: `probabilistic`, then `-king-always` or `-king-double`, then
    /// `-shrinking`, then `-plies-N` for a ply limit other than 1000 (`-plies-0`: none).
    pub fn name(self) -> String {
        let mut s = String::from("probabilistic");
        match self.king {
            KingMoves::Normal => {}
            KingMoves::Always => s.push_str("-king-always"),
            KingMoves::Double => s.push_str("-king-double"),
        }
        if self.shrinking {
            s.push_str("-shrinking");
        }
        if self.ply_limit != DEFAULT_PLY_LIMIT {
            s.push_str(&format!("-plies-{}", self.ply_limit));
        }
        s
    }

    /// The options a variant name gives (the inverse of [`ProbOptions::name`], case-insensitive;
    /// `-plies-1000` is accepted for the default). `None` for any other name.
    ///
    /// ```
    /// use rules::variants::probabilistic::ProbOptions;
    /// let o = ProbOptions::parse("Probabilistic-king-double-plies-200").unwrap();
    /// assert_eq!(o.name(), "probabilistic-king-double-plies-200");
    /// assert!(ProbOptions::parse("probabilistic-plies-").is_none());
    /// ```
    pub fn parse(name: &str) -> Option<ProbOptions> {
        let name = name.to_ascii_lowercase();
        let mut rest = name.strip_prefix("probabilistic")?;
        let mut options = ProbOptions::default();
        for (suffix, king) in [("-king-always", KingMoves::Always), ("-king-double", KingMoves::Double)] {
            if let Some(r) = rest.strip_prefix(suffix) {
                options.king = king;
                rest = r;
            }
        }
        if let Some(r) = rest.strip_prefix("-shrinking") {
            options.shrinking = true;
            rest = r;
        }
        if let Some(n) = rest.strip_prefix("-plies-") {
            if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) || (n.len() > 1 && n.starts_with('0')) {
                return None;
            }
            options.ply_limit = n.parse().ok().filter(|&n| n <= MAX_PLY_LIMIT)?;
            rest = "";
        }
        rest.is_empty().then_some(options)
    }
}

/// The longest ply limit a variant name may ask for.
pub const MAX_PLY_LIMIT: u32 = 100_000;

/// The map of the listed variants' start position: the random map drawn from
/// [`START_MAP_SEED`].
pub fn start_map() -> SquareMap {
    let kings =
        Bitboard::from_square(crate::Square::from_index(4)) | Bitboard::from_square(crate::Square::from_index(60));
    SquareMap::random(&mut crate::chance::seeded_rng(START_MAP_SEED), crate::Geometry::CHESS, kings)
}

/// The rules of Probabilistic chess with `options`.
pub fn rules(options: ProbOptions) -> Rules {
    let mut r = super::chess::rules();
    r.name = options.name();
    let mut summary = String::from(
        "chess where a move succeeds only with its destination square's probability; capture the king to win",
    );
    match options.king {
        KingMoves::Normal => {}
        KingMoves::Always => summary.push_str("; king moves always succeed"),
        KingMoves::Double => summary.push_str("; king moves at double rate"),
    }
    if options.shrinking {
        summary.push_str(&format!("; the board shrinks after {SHRINK_AFTER} plies without a capture"));
    }
    r.summary = summary;
    r.start_fen = format!("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 {}", start_map());
    r.win = WinCondition::KingCapture;
    r.self_check = true;
    r.draws = DrawRules { fifty_move: false, repetition: false, insufficient: InsufficientMaterial::Never };
    r.chance = ChanceRule::SquareMap { king: options.king };
    r.ply_limit = (options.ply_limit > 0).then_some(options.ply_limit);
    r.shrink_after = options.shrinking.then_some(SHRINK_AFTER);
    r.stuck_passes = true;
    r
}

/// Probabilistic chess with `options`, built once per combination.
pub fn variant(options: ProbOptions) -> &'static Variant {
    let name = options.name();
    if let Some(&v) = super::all().iter().find(|v| v.name == name) {
        return v;
    }
    static BUILT: OnceLock<Mutex<HashMap<ProbOptions, &'static Variant>>> = OnceLock::new();
    let built = BUILT.get_or_init(|| Mutex::new(HashMap::new()));
    let mut built = built.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    built.entry(options).or_insert_with(|| match crate::variant::load(rules(options)) {
        Ok(v) => v,
        Err(e) => unreachable!("Probabilistic chess rules are valid: {e}"),
    })
}

/// The options of a Probabilistic chess variant (`None` for any other variant).
pub fn options(v: &Variant) -> Option<ProbOptions> {
    let ChanceRule::SquareMap { king } = v.chance else { return None };
    Some(ProbOptions { king, shrinking: v.shrink_after.is_some(), ply_limit: v.ply_limit.unwrap_or(0) })
}

/// The start position of `v` with `map`.
pub fn start(v: &'static Variant, map: &SquareMap) -> Position {
    let mut pos = Position::start(v);
    pos.set_square_map(map);
    pos
}

/// `pos` (a position of a Probabilistic variant) on the rulings' random map, drawn as
/// [`random_map`] draws it but with the squares the kings stand on in `pos` in 20..=99: a set-up
/// position's map, drawn for it. From the start position it is [`start`] on [`random_map`].
pub fn draw_map<R: rand::RngCore + ?Sized>(pos: &Position, rng: &mut R) -> Position {
    let v = pos.variant();
    let kings = v.king().map_or(Bitboard::EMPTY, |k| pos.board().by_role(k));
    let mut drawn = pos.clone();
    drawn.set_square_map(&SquareMap::random(rng, v.geometry, kings));
    drawn
}

/// The random map of the rulings for a game of `v`, with the squares the kings start on
/// in 20..=99.
pub fn random_map<R: rand::RngCore + ?Sized>(v: &'static Variant, rng: &mut R) -> SquareMap {
    let start = Position::start(v);
    let kings = v.king().map_or(Bitboard::EMPTY, |k| start.board().by_role(k));
    SquareMap::random(rng, v.geometry, kings)
}
