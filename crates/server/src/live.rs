//! A game in play: the stored row, the rules core's game replayed from the stored moves (every
//! chance draw re-derived from the seed and checked), who plays each side, and the live stream.
//!
//! One [`LiveGame`] per game is kept behind a mutex in [`Games`]: requests for a game are
//! serialised on it, the move is stored before it is applied and acknowledged.

use crate::seed::GameSeed;
use crate::store::{GameRow, MoveRow, Store, StoreError};
use rules::chance::Event;
use rules::game::Game;
use rules::outcome::Outcome;
use rules::uci::to_uci;
use rules::{Color, Position, Variant};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Arc;
use tokio::sync::{broadcast, Mutex};

/// Who plays a side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Player {
    /// A person holding the side's token.
    Human,
    /// fairylab's engine at a level.
    Ai(AiLevel),
}

/// An AI level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AiLevel {
    /// The engine as it plays the variant (chance as chance nodes).
    Engine,
    /// The engine blind to chance.
    Blind,
    /// A weaker engine for people (levels 1 to 7, as lichess numbers its AI; 8 is `Engine`):
    /// the engine with the handicap [`AiLevel::handicap`].
    Level(u8),
}

/// The stored names of the levels 1 to 7.
const LEVEL_NAMES: [&str; 7] =
    ["ai:level1", "ai:level2", "ai:level3", "ai:level4", "ai:level5", "ai:level6", "ai:level7"];

impl AiLevel {
    /// The engine's handicap at a level ([`engine::Handicap::level`]); `None` at full
    /// strength.
    pub fn handicap(self) -> Option<engine::Handicap> {
        match self {
            AiLevel::Level(n) => engine::Handicap::level(n),
            AiLevel::Engine | AiLevel::Blind => None,
        }
    }
}

impl Player {
    /// Reads `human`, `ai`, `ai:engine`, `ai:expectimax`, `ai:blind`, `ai:level1` to
    /// `ai:level8` (`ai:level8` is `ai:engine`).
    pub fn parse(text: &str) -> Option<Player> {
        match text {
            "human" => Some(Player::Human),
            "ai" | "ai:engine" | "ai:expectimax" | "ai:level8" => Some(Player::Ai(AiLevel::Engine)),
            "ai:blind" => Some(Player::Ai(AiLevel::Blind)),
            _ => {
                let n = LEVEL_NAMES.iter().position(|&l| l == text)?;
                Some(Player::Ai(AiLevel::Level(n as u8 + 1)))
            }
        }
    }

    /// The stored name.
    pub fn name(self) -> &'static str {
        match self {
            Player::Human => "human",
            Player::Ai(AiLevel::Engine) => "ai:engine",
            Player::Ai(AiLevel::Blind) => "ai:blind",
            Player::Ai(AiLevel::Level(n)) => LEVEL_NAMES[usize::from(n.clamp(1, 7)) - 1],
        }
    }
}

/// Why a stored game could not be brought back.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The stored game does not replay (its variant, start, a move or a chance draw).
    #[error("game {id} is corrupt: {reason}")]
    Corrupt {
        /// The game.
        id: String,
        /// What does not replay.
        reason: String,
    },
}

/// The most custom variants new games may bring in an hour, from all clients and from one
/// address (each distinct text is built once and kept for the process's life; a text already
/// built is never refused, nor is a stored game's variant, however many there are).
pub const MAX_NEW_CUSTOM_VARIANTS_PER_HOUR: usize = 256;
/// [`MAX_NEW_CUSTOM_VARIANTS_PER_HOUR`] for one client address.
pub const MAX_NEW_CUSTOM_VARIANTS_PER_HOUR_PER_CLIENT: usize = 16;

/// Events of the last hour, for an allowance counted over a sliding hour (games per address,
/// new custom variants).
#[derive(Debug, Default)]
pub struct LastHour(Vec<std::time::Instant>);

impl LastHour {
    /// How many events the last hour holds (older ones are forgotten).
    pub fn count(&mut self) -> usize {
        self.0.retain(|t| t.elapsed() < std::time::Duration::from_secs(3600));
        self.0.len()
    }

    /// Records one, now.
    pub fn record(&mut self) {
        self.0.push(std::time::Instant::now());
    }

    /// Seconds until the oldest event of the last hour leaves it (at least 1).
    pub fn seconds_to_room(&mut self) -> u64 {
        let hour = std::time::Duration::from_secs(3600);
        self.0.iter().map(|t| hour.saturating_sub(t.elapsed()).as_secs() + 1).min().unwrap_or(1)
    }
}

/// The custom variants built, by the SHA-256 of their text.
fn built_variants() -> std::sync::MutexGuard<'static, HashMap<[u8; 32], &'static Variant>> {
    static BUILT: std::sync::OnceLock<std::sync::Mutex<HashMap<[u8; 32], &'static Variant>>> =
        std::sync::OnceLock::new();
    BUILT.get_or_init(Default::default).lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A stored game's variant, defined by TOML text (docs/FORMATS.md § Variant files), built once
/// per distinct text and kept; the error says what is wrong with the text.
pub fn custom_variant(text: &str) -> Result<&'static Variant, String> {
    use sha2::{Digest, Sha256};
    let key: [u8; 32] = Sha256::digest(text.as_bytes()).into();
    let mut built = built_variants();
    if let Some(v) = built.get(&key) {
        return Ok(v);
    }
    let v = rules::spec::load_variant_str(text).map_err(|e| e.to_string())?;
    built.insert(key, v);
    Ok(v)
}

/// [`custom_variant`] for a new game from `client`: a text not built yet counts against
/// [`MAX_NEW_CUSTOM_VARIANTS_PER_HOUR_PER_CLIENT`] and [`MAX_NEW_CUSTOM_VARIANTS_PER_HOUR`], so
/// that requests cannot make the process build variants without end, nor one client spend
/// everyone's allowance. The error is `(true, why)` when an allowance is spent, `(false, what is
/// wrong)` for a bad text.
pub fn new_custom_variant(text: &str, client: Option<std::net::IpAddr>) -> Result<&'static Variant, (bool, String)> {
    use sha2::{Digest, Sha256};
    type Recent = (LastHour, HashMap<std::net::IpAddr, LastHour>);
    static RECENT: std::sync::OnceLock<std::sync::Mutex<Recent>> = std::sync::OnceLock::new();
    let key: [u8; 32] = Sha256::digest(text.as_bytes()).into();
    if let Some(v) = built_variants().get(&key) {
        return Ok(v);
    }
    let mut recent = RECENT.get_or_init(Default::default).lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let (all, by_client) = &mut *recent;
    by_client.retain(|_, times| times.count() > 0);
    let mine = client.map_or(0, |ip| by_client.get_mut(&ip).map_or(0, LastHour::count));
    if mine >= MAX_NEW_CUSTOM_VARIANTS_PER_HOUR_PER_CLIENT || all.count() >= MAX_NEW_CUSTOM_VARIANTS_PER_HOUR {
        let (n, whose) = match mine >= MAX_NEW_CUSTOM_VARIANTS_PER_HOUR_PER_CLIENT {
            true => (MAX_NEW_CUSTOM_VARIANTS_PER_HOUR_PER_CLIENT, "from this address"),
            false => (MAX_NEW_CUSTOM_VARIANTS_PER_HOUR, "from all clients"),
        };
        return Err((
            true,
            format!(
                "this server has taken {n} new custom variants {whose} in the last hour: try again later, \
                 or use one already played here"
            ),
        ));
    }
    let v = custom_variant(text).map_err(|e| (false, e))?;
    all.record();
    if let Some(ip) = client {
        by_client.entry(ip).or_default().record();
    }
    Ok(v)
}

/// The variant a stored game names, with its options applied (a custom variant's TOML text
/// is in its options, `{"toml": "..."}`).
///
/// A game's SnowFall percentage (`options.snowfall`) applies to SnowFall and to a custom variant
/// built on it; for the latter only with `options.custom_percent` (games created before the
/// server applied it were played at the variant file's own percentage, and replay as played).
pub fn variant_of(name: &str, options: &Value) -> Option<&'static Variant> {
    let (v, applies) = match options.get("toml").and_then(Value::as_str) {
        Some(text) => (
            custom_variant(text).ok().filter(|v| v.name == name)?,
            options.get("custom_percent").and_then(Value::as_bool).unwrap_or(false),
        ),
        None => (rules::variants::by_name(name)?, true),
    };
    match (rules::variants::snowfall::percent(v), options.get("snowfall").and_then(Value::as_u64)) {
        (Some(_), Some(n)) if n <= 100 && applies => rules::variants::snowfall::with_percent(v, n as u8).ok(),
        (Some(_), Some(n)) if n > 100 => None,
        _ => Some(v),
    }
}

/// The text of a chance outcome as stored and streamed.
pub fn event_text(e: Event) -> String {
    match e {
        Event::Success => String::new(),
        Event::Failure => "failed".into(),
        Event::Gift(g) => format!("gift {g}"),
        _ => format!("{e:?}"),
    }
}

/// A game in play.
#[derive(Debug)]
pub struct LiveGame {
    /// The stored row (kept in step with the database).
    pub row: GameRow,
    /// The game.
    pub game: Game,
    /// The players.
    pub players: [Player; 2],
    /// The fairness seed.
    pub seed: GameSeed,
    /// The live stream: one JSON text per event.
    pub events: broadcast::Sender<String>,
    /// An AI search is running for this game.
    pub thinking: bool,
    /// Stops the running AI search (set by a takeback).
    pub ai_cancel: crate::ai::Cancel,
    /// Predictor chess: the table (the sequential `game` then stays at its start).
    pub predictor: Option<Box<crate::predictor::Table>>,
    /// A standing draw offer: who made it (it lapses when the other side moves).
    pub draw_offer: Option<Color>,
    /// A standing takeback proposal: who made it (it lapses when anyone moves).
    pub takeback_offer: Option<Color>,
    /// The time control, if the game has clocks.
    pub clock: Option<crate::clock::Clock>,
    /// When each stored move was made (Unix ms), for the clocks.
    pub times: Vec<i64>,
    /// How many of the first moves were imported at creation (`options.imported`).
    pub imported: usize,
    /// The game's review once asked for (it is over, so it stays valid).
    pub review: Option<Arc<Value>>,
    /// One person holds both seats (`options.one_person`: both created as `me`).
    pub one_person: bool,
    /// SnowFall: the odds of the current position once asked for (`GET .../odds`), with the
    /// (ply, takebacks) of the position they are for: computed once a ply, whoever asks.
    pub odds: Option<((usize, i64), Arc<Value>)>,
    /// When each side last wrote in the chat (Unix ms; 0: not since the game was loaded here).
    pub chat_at: [i64; 2],
}

impl LiveGame {
    /// Rebuilds a game from its row and moves, re-deriving and checking every chance draw.
    pub fn replay(row: GameRow, moves: &[MoveRow]) -> Result<LiveGame, LoadError> {
        let corrupt = |reason: String| LoadError::Corrupt { id: row.id.clone(), reason };
        let options: Value = serde_json::from_str(&row.options).map_err(|e| corrupt(format!("options: {e}")))?;
        let v = variant_of(&row.variant, &options).ok_or_else(|| corrupt(format!("variant {}", row.variant)))?;
        let start = Position::from_fen(v, &row.start_fen).map_err(|e| corrupt(format!("start FEN: {e}")))?;
        let player = |p: &str| Player::parse(p).ok_or_else(|| corrupt(format!("player '{p}'")));
        let players = [player(&row.white_player)?, player(&row.black_player)?];
        let seed = GameSeed::from_hex(&row.seed).ok_or_else(|| corrupt("seed".into()))?;
        let (events, _) = broadcast::channel(256);
        let mut live = LiveGame {
            row: row.clone(),
            game: Game::new(start),
            players,
            seed,
            events,
            thinking: false,
            ai_cancel: Default::default(),
            predictor: None,
            draw_offer: offer_of(row.draw_offer.as_deref()),
            takeback_offer: offer_of(row.takeback_offer.as_deref()),
            clock: crate::clock::Clock::of(&options),
            times: Vec::new(),
            imported: options.get("imported").and_then(Value::as_u64).unwrap_or(0) as usize,
            one_person: options.get("one_person").and_then(Value::as_bool).unwrap_or(false),
            odds: None,
            review: None,
            chat_at: [0; 2],
        };
        live.catch_up(row, moves)?;
        Ok(live)
    }

    /// Rebuilds a Predictor chess game from its row and its members, commitments and reveals.
    pub async fn replay_predictor(row: GameRow, store: &dyn Store) -> Result<LiveGame, LoadError> {
        use crate::store::PredictorKind;
        let id = row.id.clone();
        let members = store.predictor_rows(&id, PredictorKind::Member).await?;
        let commits = store.predictor_rows(&id, PredictorKind::Commit).await?;
        let reveals = store.predictor_rows(&id, PredictorKind::Reveal).await?;
        let secrets = store.predictor_rows(&id, PredictorKind::Secret).await?;
        let mut live = LiveGame::replay(row, &[])?;
        let options: Value = serde_json::from_str(&live.row.options).unwrap_or(Value::Null);
        let table = crate::predictor::Table::load(
            &id,
            live.game.start().clone(),
            options["ply_seconds"].as_i64(),
            live.row.open_seat().is_some(),
            live.row.created_at,
            now_ms(),
            &members,
            &commits,
            &reveals,
            &secrets,
        )
        .map_err(|reason| LoadError::Corrupt { id: id.clone(), reason })?;
        live.predictor = Some(Box::new(table));
        Ok(live)
    }

    /// The side to move, if the game goes on (never in Predictor chess, where both order).
    pub fn to_move(&self) -> Option<Color> {
        (self.row.status == "active" && self.predictor.is_none()).then(|| self.game.position().turn())
    }

    /// Whether the game may still be aborted (ended without a result, as on lichess): it is on,
    /// and not both sides have moved yet — fewer than two moves after the imported ones, or no
    /// Predictor ply resolved — and no move has met chance yet ([`Self::chance_drawn`]).
    pub fn abortable(&self) -> bool {
        self.first_moves_pending() && !self.chance_drawn()
    }

    /// Whether the game is on and not both sides have moved yet (after the imported moves; in
    /// Predictor chess, no ply resolved).
    pub fn first_moves_pending(&self) -> bool {
        if self.row.status != "active" {
            return false;
        }
        match &self.predictor {
            Some(t) => t.game.plies().is_empty(),
            None => self.game.moves().len() < self.imported + 2,
        }
    }

    /// Whether a move of this game (after the imported ones) has met chance: a roll or a gift
    /// event was drawn. From then on the game is not aborted (that would void the draw and let
    /// its loser play the game again, as a takeback would): it is resigned, drawn or lost on
    /// time like any other.
    pub fn chance_drawn(&self) -> bool {
        self.predictor.is_none()
            && !matches!(self.game.position().variant().chance, rules::chance::ChanceRule::None)
            && self.game.moves().len() > self.imported
    }

    /// When a game with clocks ends because a person has not made their first move (as on
    /// lichess, whose clocks also start only with each side's second move): `limit` ms after
    /// the previous move, the game's creation, or the last change to its seats, whichever is
    /// latest. Only while not both sides have moved, both seats are held, and a person is to
    /// move. The game is aborted then, or lost on time once chance has spoken
    /// ([`Self::chance_drawn`]).
    pub fn abort_at(&self, limit: i64) -> Option<i64> {
        self.clock?;
        let side = self.to_move()?;
        if !self.first_moves_pending() || self.row.open_seat().is_some() || self.players[side.index()] != Player::Human
        {
            return None;
        }
        let since = self.times.last().copied().unwrap_or(self.row.created_at).max(self.row.updated_at);
        Some(since + limit + crate::pause::after(since))
    }

    /// Whether the side to move is played by the AI.
    pub fn ai_to_move(&self) -> Option<AiLevel> {
        match self.to_move().map(|c| self.players[c.index()]) {
            Some(Player::Ai(level)) => Some(level),
            _ => None,
        }
    }

    /// Whether the engine and the endgame tables may help with the game now: not while two
    /// people play each other (as lichess keeps computer analysis out of games in play); always
    /// against the AI, on a board where one person moves both sides, and once the game is over.
    pub fn engine_help(&self) -> bool {
        self.row.status != "active" || self.one_person || self.players.iter().any(|p| *p != Player::Human)
    }

    /// The state fields every game has (the seed only once the game is over).
    fn common_state(&self, fen: String) -> Value {
        json!({
            "id": self.row.id,
            "variant": self.row.variant,
            "options": serde_json::from_str::<Value>(&self.row.options).unwrap_or(Value::Null),
            "start_fen": self.row.start_fen,
            "fen": fen,
            "white": self.row.white_player,
            "black": self.row.black_player,
            "status": self.row.status,
            "result": self.row.result,
            "reason": self.row.reason,
            "seed_hash": self.row.seed_hash,
            "seed": (self.row.status == "finished").then(|| self.row.seed.clone()),
            "open_seat": (self.row.status == "active").then(|| self.row.open_seat()).flatten(),
            "open_seats": if self.row.status == "active" { self.row.open_seats() } else { Vec::new() },
            "open_to_anyone": self.row.status == "active" && self.row.open_to_anyone(),
            "abortable": self.abortable(),
            // A draw offer stands only while the game goes on (one made before a mate lapses).
            "draw_offer": self.draw_offer.filter(|_| self.row.status == "active").map(|c| c.to_string()),
            "movetime_ms": self.row.movetime_ms,
            // Once the game is over: the side whose rematch offer stands, and the rematch made.
            "rematch_offer": self.row.rematch_offer.as_deref().filter(|_| self.row.status == "finished"),
            "rematch": self.row.rematch,
        })
    }

    /// The game's public state (docs/API.md): the common fields, then the sequential game's
    /// moves, or the Predictor table.
    pub fn state(&self) -> Value {
        let (fen, more) = match &self.predictor {
            Some(t) => {
                let mut more = t.state();
                // How a forfeit came about, for the page's end message.
                more["forfeit"] =
                    json!(if self.row.reason.as_deref() == Some("forfeit") { t.forfeit_text() } else { None });
                (t.game.position().fen(), more)
            }
            None => {
                let pos = self.game.position();
                let moves = moves_json(&self.game);
                let legal: Vec<String> = if self.row.status == "active" {
                    pos.legal_moves().iter().map(|m| to_uci(pos, *m)).collect()
                } else {
                    Vec::new()
                };
                let more = json!({
                    "turn": pos.turn().to_string(),
                    "ply": self.game.moves().len(),
                    "moves": moves,
                    "legal_moves": legal,
                    "thinking": self.thinking,
                    // Offers stand only while the game goes on (one made before a mate lapses).
                    "takeback_offer": self.takeback_offer.filter(|_| self.row.status == "active").map(|c| c.to_string()),
                    "takebacks": self.takeback_refusal().is_none(),
                    "draws": agreed_draws(self.game.start().variant()),
                    "clock": self.clock_state(now_ms()),
                    "engine_help": self.engine_help(),
                    "tablebase": self.engine_help().then(|| crate::analysis::verdict(pos)).flatten(),
                });
                (pos.fen(), more)
            }
        };
        let mut v = self.common_state(fen);
        if let (Value::Object(a), Value::Object(b)) = (&mut v, more) {
            a.extend(b);
        }
        v
    }

    /// The clocks at `now` (null without a time control).
    pub fn clock_state(&self, now: i64) -> Value {
        let first = self.game.start().turn();
        let active = self.row.status == "active";
        let at = if active { now } else { self.row.updated_at };
        self.clock.map_or(Value::Null, |c| c.state(first, &self.times, at, active))
    }

    /// When the side to move runs out of time (Unix ms), if a clock runs.
    pub fn flag_at(&self) -> Option<i64> {
        let c = self.clock.filter(|_| self.to_move().is_some())?;
        c.flag_at(self.game.start().turn(), &self.times)
    }

    /// Sends an event to this process's live stream (nobody listening is fine) and returns its
    /// text, for the other processes.
    pub fn publish(&self, kind: &str, data: Value) -> String {
        let text = json!({ "type": kind, "game": self.row.id, "data": data }).to_string();
        let _ = self.events.send(text.clone());
        text
    }

    /// Brings the game up to date with its stored row and the moves stored after the ones it
    /// has (played by another server process), re-deriving and checking their chance draws.
    pub fn catch_up(&mut self, row: GameRow, moves: &[MoveRow]) -> Result<(), LoadError> {
        let corrupt = |reason: String| LoadError::Corrupt { id: row.id.clone(), reason };
        for m in moves {
            let k = self.game.moves().len();
            if m.ply != k as i64 {
                return Err(corrupt(format!("ply {} where {k} was expected", m.ply)));
            }
            let mv =
                rules::uci::parse_uci(self.game.position(), &m.uci).map_err(|e| corrupt(format!("ply {k}: {e}")))?;
            let event = self
                .game
                .play_sampled(mv, &mut self.seed.ply_rng(k as u32))
                .map_err(|e| corrupt(format!("ply {k}: {e}")))?;
            self.times.push(m.created_at);
            if event_text(event) != m.event {
                return Err(corrupt(format!(
                    "ply {k}: stored outcome '{}' but the seed gives '{}'",
                    m.event,
                    event_text(event)
                )));
            }
        }
        self.draw_offer = offer_of(row.draw_offer.as_deref());
        self.takeback_offer = offer_of(row.takeback_offer.as_deref());
        self.row = row;
        Ok(())
    }

    /// Reads the game back whole from its stored row and moves (after a takeback made by
    /// another process), keeping its live stream.
    pub fn reload(&mut self, row: GameRow, moves: &[MoveRow]) -> Result<(), LoadError> {
        self.game = Game::new(self.game.start().clone());
        self.times.clear();
        self.catch_up(row, moves)
    }

    /// Why this game offers no takebacks, if it offers none: chance (the outcome of every ply
    /// is drawn from the seed, so a move taken back would be played again knowing its roll),
    /// simultaneous orders, or clocks.
    pub fn takeback_refusal(&self) -> Option<String> {
        let v = self.game.start().variant();
        if self.predictor.is_some() {
            Some("Predictor chess has no takebacks (its orders are sealed and revealed ply by ply)".into())
        } else if !matches!(v.chance, rules::chance::ChanceRule::None) {
            Some(format!(
                "{} has no takebacks: each ply's chance outcome comes from the game's seed, so a move \
                 taken back would be played again knowing its roll",
                self.row.variant
            ))
        } else if self.clock.is_some() {
            Some("games with clocks have no takebacks".into())
        } else {
            None
        }
    }

    /// Keeps the first `keep` moves of the game and drops the rest, with the standing offers
    /// (a takeback, already stored).
    pub fn truncate(&mut self, keep: usize, takebacks: i64) {
        self.game.truncate(keep);
        self.times.truncate(keep);
        self.draw_offer = None;
        self.takeback_offer = None;
        self.row.draw_offer = None;
        self.row.takeback_offer = None;
        self.row.takebacks = takebacks;
    }

    /// The record in PGN with the seed commitment (and the seed once the game is over).
    pub fn record(&self) -> String {
        self.record_annotated(&[])
    }

    /// [`LiveGame::record`] with a review's annotations on its moves (a Predictor record has none).
    pub fn record_annotated(&self, annotations: &[rules::record::Annotation]) -> String {
        let mut tags = vec![
            ("Event".to_string(), "fairylab game".to_string()),
            ("Site".to_string(), "fairylab".to_string()),
            ("Date".to_string(), creation_date(self.row.created_at)),
            ("White".to_string(), self.row.white_player.clone()),
            ("Black".to_string(), self.row.black_player.clone()),
            ("GameId".to_string(), self.row.id.clone()),
            ("SeedHash".to_string(), self.row.seed_hash.clone()),
        ];
        if let Some(r) = &self.row.result {
            tags.push(("Result".to_string(), r.clone()));
        }
        let options: Value = serde_json::from_str(&self.row.options).unwrap_or(Value::Null);
        // A game finished by its import keeps the imported record's tags (`Event`, `White`, ...).
        for pair in options.get("import_tags").and_then(Value::as_array).into_iter().flatten() {
            let Some([name, value]) = pair.as_array().map(Vec::as_slice) else { continue };
            let (Some(name), Some(value)) = (name.as_str(), value.as_str()) else { continue };
            match tags.iter_mut().find(|(n, _)| n == name) {
                Some(tag) => tag.1 = value.to_string(),
                None => tags.push((name.to_string(), value.to_string())),
            }
        }
        // A custom variant: the fingerprint of its definition, which `verify-game` needs.
        if let Some(text) = options.get("toml").and_then(Value::as_str) {
            use sha2::{Digest, Sha256};
            tags.push(("VariantSha256".to_string(), hex::encode(Sha256::digest(text.as_bytes()))));
        }
        // What the seed drew at the start, in the order drawn (`verify-game` replays it).
        if let Some(drawn) = options.get("drawn").and_then(Value::as_array) {
            let parts: Vec<&str> = drawn.iter().filter_map(Value::as_str).collect();
            tags.push((crate::seed::SETUP_TAG.to_string(), parts.join(" ")));
        }
        if self.row.status == "finished" {
            tags.push(("Seed".to_string(), self.row.seed.clone()));
            if let Some(reason) = &self.row.reason {
                tags.push(("Termination".to_string(), reason.clone()));
            }
        }
        if let Some(t) = &self.predictor {
            return t
                .record(&tags, self.row.result.as_deref().and_then(|r| outcome_of(r, self.row.reason.as_deref()?)));
        }
        rules::record::write_pgn_annotated(&self.game, &tags, annotations)
    }
}

/// The PGN `Date` (UTC) of a game created at `unix_ms`.
fn creation_date(unix_ms: i64) -> String {
    let at = std::time::UNIX_EPOCH + std::time::Duration::from_millis(unix_ms.max(0) as u64);
    engine::tournament::pgn_date(at)
}

/// A game's moves as the state and the analysis board list them: `{uci, san, event, fen}`
/// each, `fen` the position after it.
pub fn moves_json(game: &Game) -> Vec<Value> {
    let mut p = game.start().clone();
    let mut moves = Vec::with_capacity(game.moves().len());
    for (&m, &e) in game.moves().iter().zip(game.events()) {
        let (uci, san, percent) = (to_uci(&p, m), rules::san::to_san_event(&p, m, e), roll_percent(&p, m));
        p.play_event(m, e);
        moves.push(json!({ "uci": uci, "san": san, "event": event_text(e), "percent": percent, "fen": p.fen() }));
    }
    moves
}

/// The chance a move's roll had to succeed, in percent (Probabilistic chess, the destination
/// square's with the king options applied); `None` where moves are not rolled.
pub fn roll_percent(pos: &Position, m: rules::Move) -> Option<u8> {
    matches!(pos.variant().chance, rules::chance::ChanceRule::SquareMap { .. }).then(|| pos.success_percent(m))
}

/// The side whose stored offer (a draw or a takeback) stands.
pub fn offer_of(by: Option<&str>) -> Option<Color> {
    by.and_then(|s| rules::predictor::commit::parse_side(s).ok())
}

/// Whether the players of a variant may agree a draw: only where its rules draw some other way
/// than by stalemate (not in Baby Chess, nor in Probabilistic chess, whose only draw is equal
/// material at its ply limit).
pub fn agreed_draws(v: &rules::Variant) -> bool {
    let d = &v.draws;
    d.fifty_move || d.repetition || d.insufficient != rules::variant::InsufficientMaterial::Never
}

/// Unix milliseconds now.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// The outcome of a game a person or the referee ended off the board, from its stored result
/// and reason (`None` for an aborted game or a reason the board gives).
pub fn outcome_of(result: &str, reason: &str) -> Option<Outcome> {
    use rules::outcome::EndReason;
    let reason = match reason {
        "resignation" => EndReason::Resignation,
        "agreement" => EndReason::Agreement,
        "time forfeit" | "time" => EndReason::Time,
        "forfeit" => EndReason::Forfeit,
        "adjudication" => EndReason::Adjudication,
        _ => return None,
    };
    match result {
        "1-0" => Some(Outcome::Decisive { winner: Color::White, reason }),
        "0-1" => Some(Outcome::Decisive { winner: Color::Black, reason }),
        "1/2-1/2" => Some(Outcome::Draw { reason }),
        _ => None,
    }
}

/// The result text and reason of an outcome.
pub fn outcome_text(o: Outcome) -> (String, String) {
    let reason = match o {
        Outcome::Decisive { reason, .. } | Outcome::Draw { reason } => reason,
    };
    (o.result().to_string(), reason.name().to_string())
}

/// The games in play, loaded from the store on first use, and which of them this process owns
/// when other processes share the store (`crate::owner`).
pub struct Games {
    store: Arc<dyn Store>,
    live: std::sync::Mutex<HashMap<String, Arc<Mutex<LiveGame>>>>,
    /// The games this process owns (meaningful while its heartbeat is fresh).
    owned: std::sync::Mutex<std::collections::HashSet<String>>,
    /// When this process's last heartbeat was stored.
    last_beat: std::sync::Mutex<Option<std::time::Instant>>,
    /// The lobby's stream: a game created, a seat taken, a game over (here or, relayed, in
    /// another process).
    lobby: broadcast::Sender<String>,
}

/// The game events that change the lobby's list.
pub const LOBBY_EVENTS: [&str; 4] = ["created", "joined", "end", "deleted"];

/// How long after its last stored heartbeat a process still acts as the owner of its games: a
/// heartbeat period short of the expiry after which others may take them.
const OWNER_GRACE_MS: i64 = crate::owner::EXPIRY_MS - crate::owner::HEARTBEAT_MS;

impl Games {
    /// The games of `store`.
    pub fn new(store: Arc<dyn Store>) -> Games {
        Games {
            store,
            live: std::sync::Mutex::new(HashMap::new()),
            owned: Default::default(),
            last_beat: std::sync::Mutex::new(None),
            lobby: broadcast::channel(256).0,
        }
    }

    /// Tells the lobby's watchers that a game changed (`change`: one of [`LOBBY_EVENTS`]).
    pub fn lobby_changed(&self, game: &str, change: &str) {
        let text = json!({ "type": "lobby", "data": { "game": game, "change": change } }).to_string();
        let _ = self.lobby.send(text);
    }

    /// The lobby's stream.
    pub fn watch_lobby(&self) -> broadcast::Receiver<String> {
        self.lobby.subscribe()
    }

    fn owned_set(&self) -> std::sync::MutexGuard<'_, std::collections::HashSet<String>> {
        self.owned.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Records a stored heartbeat. After a gap long enough for others to have taken this
    /// process's games, it owns none until it claims them again.
    pub fn beat(&self, at: std::time::Instant) {
        let mut last = self.last_beat.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if last.is_some_and(|t| at.duration_since(t).as_millis() as i64 >= OWNER_GRACE_MS) {
            self.owned_set().clear();
        }
        *last = Some(at);
    }

    /// Whether this process's heartbeat is fresh enough for it to act as an owner.
    pub fn alive(&self) -> bool {
        let last = self.last_beat.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        last.is_some_and(|t| (t.elapsed().as_millis() as i64) < OWNER_GRACE_MS)
    }

    /// Whether this process plays the game itself (always, when it shares the store with nobody).
    pub fn owns(&self, id: &str) -> bool {
        !self.store.shared() || (self.alive() && self.owned_set().contains(id))
    }

    /// Records that this process owns a game (it claimed it in the store).
    pub fn own(&self, id: &str) {
        self.owned_set().insert(id.to_string());
    }

    /// Forgets owning a game (another process took it): its copy is read back before use.
    pub fn disown(&self, id: &str) {
        self.owned_set().remove(id);
    }

    /// Takes a game this process has just claimed: its copy, if it had one, is read back from
    /// the store first, since the previous owner may have moved meanwhile.
    pub async fn adopt(&self, id: &str) -> Result<Option<Arc<Mutex<LiveGame>>>, LoadError> {
        if let Some(g) = self.cached(id) {
            self.refresh(&g).await?;
            self.own(id);
            self.settle(&mut *g.lock().await).await;
            return Ok(Some(g));
        }
        self.own(id);
        self.get(id).await
    }

    /// The store.
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// How many games are in memory.
    pub fn len(&self) -> usize {
        self.live.lock().unwrap_or_else(std::sync::PoisonError::into_inner).len()
    }

    /// Whether no game is in memory.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Lets go of the finished games nobody holds or watches (no request, stream, timer or AI
    /// has them): a later request reads them back from the store. Active games stay, since
    /// their streams and timers hang on the copy in memory. Returns how many went.
    pub fn evict_idle(&self) -> usize {
        let mut live = self.live.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let before = live.len();
        live.retain(|_, g| {
            if Arc::strong_count(g) > 1 {
                return true;
            }
            match g.try_lock() {
                Ok(game) => game.row.status == "active" || game.events.receiver_count() > 0,
                Err(_) => true,
            }
        });
        before - live.len()
    }

    pub(crate) fn cached(&self, id: &str) -> Option<Arc<Mutex<LiveGame>>> {
        self.live.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get(id).cloned()
    }

    /// Drops a deleted game from memory (its watchers have been told), and the link to it
    /// from the game whose rematch it was (the store cleared that with the deletion): that
    /// game's watchers hear `rematch_deleted` `{game}`.
    pub async fn forget(&self, id: &str) {
        self.live.lock().unwrap_or_else(std::sync::PoisonError::into_inner).remove(id);
        self.disown(id);
        let games: Vec<_> =
            self.live.lock().unwrap_or_else(std::sync::PoisonError::into_inner).values().cloned().collect();
        for g in games {
            let mut live = g.lock().await;
            if live.row.rematch.as_deref() == Some(id) {
                live.row.rematch = None;
                live.publish("rematch_deleted", json!({ "game": id }));
            }
        }
    }

    /// Puts a new game in play.
    pub fn insert(&self, g: LiveGame) -> Arc<Mutex<LiveGame>> {
        let id = g.row.id.clone();
        let g = Arc::new(Mutex::new(g));
        self.live.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(id, g.clone());
        g
    }

    /// Reads back what other processes stored for a cached game: one query when nothing changed.
    async fn refresh(&self, g: &Arc<Mutex<LiveGame>>) -> Result<(), LoadError> {
        let mut live = g.lock().await;
        if live.predictor.is_some() {
            // A Predictor game is read back whole (its plies are few and slow).
            let Some(row) = self.store.game(&live.row.id).await? else { return Ok(()) };
            let fresh = LiveGame::replay_predictor(row, self.store.as_ref()).await?;
            live.row = fresh.row;
            live.predictor = fresh.predictor;
            return Ok(());
        }
        let id = live.row.id.clone();
        let Some((row, n)) = self.store.game_with_count(&id).await? else { return Ok(()) };
        if row.takebacks != live.row.takebacks {
            // Moves were taken back (and others may have been played since): read it all back.
            let moves = self.store.moves(&id).await?;
            return live.reload(row, &moves);
        }
        let have = live.game.moves().len() as i64;
        let moves = if n > have { self.store.moves_from(&id, have).await? } else { Vec::new() };
        live.catch_up(row, &moves)
    }

    /// Ends a game whose stored moves have ended it though its row still says active: the
    /// process that played the last move stopped (a crash) between storing the move and storing
    /// the end. The end is the one that move made (checkmate, stalemate, ...), at that move's
    /// time, as `api::commit_move` would have stored it; a clock must not run on for the side
    /// that was mated. Only the game's owner can store it (another process's attempt changes
    /// nothing and is left to the owner).
    pub async fn settle(&self, live: &mut LiveGame) {
        if live.row.status != "active" || live.predictor.is_some() {
            return;
        }
        let Some(o) = live.game.outcome() else { return };
        let (result, reason) = outcome_text(o);
        let at = live.times.last().copied().unwrap_or_else(now_ms);
        match self.store.finish(&live.row.id, &result, &reason, at).await {
            Ok(()) => {
                tracing::warn!(
                    "game {}: its last move had ended it ({result}, {reason}) but the end was not stored \
                     (the server stopped in between); stored now",
                    live.row.id
                );
                live.row.status = "finished".into();
                live.row.result = Some(result.clone());
                live.row.reason = Some(reason.clone());
                live.row.updated_at = at;
                live.publish("end", json!({ "result": result, "reason": reason, "seed": live.row.seed }));
            }
            Err(e) => tracing::warn!("game {}: its end could not be stored: {e}", live.row.id),
        }
    }

    /// Relays the events other processes announce to this process's streams.
    pub fn relay(self: &Arc<Self>, mut rx: tokio::sync::mpsc::Receiver<(String, String)>) {
        let games = self.clone();
        tokio::spawn(async move {
            // The event goes to this process's watchers at once; the game itself is read back
            // when a request needs it.
            while let Some((id, event)) = rx.recv().await {
                let v: Value = serde_json::from_str(&event).unwrap_or(Value::Null);
                if let Some(kind) = v["type"].as_str().filter(|k| LOBBY_EVENTS.contains(k)) {
                    games.lobby_changed(&id, kind);
                }
                if let Some(g) = games.cached(&id) {
                    let mut live = g.lock().await;
                    // A move announced by another process is applied to this copy at once (its
                    // chance draw checked against the seed), sparing the next request a read.
                    if v["type"] == "move" && v["data"]["ply"].as_u64() == Some(live.game.moves().len() as u64) {
                        let m = MoveRow {
                            ply: v["data"]["ply"].as_i64().unwrap_or(-1),
                            uci: v["data"]["uci"].as_str().unwrap_or_default().to_string(),
                            event: v["data"]["event"].as_str().unwrap_or_default().to_string(),
                            created_at: v["data"]["at"].as_i64().unwrap_or_default(),
                        };
                        let row = live.row.clone();
                        if let Err(e) = live.catch_up(row, &[m]) {
                            tracing::warn!("game {id}: a relayed move did not apply ({e}); it is read back later");
                        }
                    }
                    // A takeback is not applied here: the copy's takeback count then differs
                    // from the store's, and the next request reads the game back whole.
                    let _ = live.events.send(event);
                }
                // A game another process deleted leaves this one's memory too, and so does the
                // link to it from a game held here whose rematch it was.
                if v["type"] == "deleted" {
                    games.forget(&id).await;
                }
            }
        });
    }

    /// A game by id, replayed from the store if it is not in memory yet (and, when the store is
    /// shared with other processes, brought up to date with it).
    pub async fn get(&self, id: &str) -> Result<Option<Arc<Mutex<LiveGame>>>, LoadError> {
        if let Some(g) = self.cached(id) {
            if !self.owns(id) {
                self.refresh(&g).await?;
            }
            return Ok(Some(g));
        }
        let Some(row) = self.store.game(id).await? else { return Ok(None) };
        let g = if rules::variants::by_name(&row.variant).is_some_and(|v| v.simultaneous) {
            LiveGame::replay_predictor(row, self.store.as_ref()).await?
        } else {
            let moves = self.store.moves(id).await?;
            let mut g = LiveGame::replay(row, &moves)?;
            self.settle(&mut g).await;
            g
        };
        // Another request may have loaded it meanwhile: keep the first.
        let mut live = self.live.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        Ok(Some(live.entry(id.to_string()).or_insert_with(|| Arc::new(Mutex::new(g))).clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The move list marks check after the move's chance outcome, as the record does: a gift
    /// that lets the checked side block makes Ra8 check, not mate; a failed move marks nothing.
    #[test]
    fn the_move_list_marks_check_after_the_chance_outcome() {
        let pgn = include_str!("../../../tests/data/records/check-after-gift.pgn");
        let game = rules::record::read_pgn(pgn).expect("a record");
        let sans: Vec<Value> = moves_json(&game).into_iter().map(|m| m["san"].clone()).collect();
        assert_eq!(sans, [json!("Ra8+"), json!("N@b8")]);
        let v = rules::variants::by_name("coinflip").expect("coinflip");
        let start = Position::from_fen(v, "7k/6pp/8/8/8/8/8/R5K1 w - - 0 1").expect("fen");
        let mut failed = Game::new(start);
        let m = rules::san::parse_san(failed.position(), "Ra8").expect("legal");
        failed.play_event(m, Event::Failure).expect("a failed move");
        assert_eq!(moves_json(&failed)[0]["san"], "Ra8");
    }

    /// Finished games nobody holds leave memory and come back from the store when asked for;
    /// active ones and those someone holds stay.
    #[tokio::test]
    async fn idle_finished_games_leave_memory() {
        let store = crate::store::open("sqlite::memory:").await.expect("a store");
        let mut done = crate::store::tests::game("done");
        done.status = "finished".into();
        done.result = Some("1-0".into());
        done.reason = Some("resignation".into());
        for mut row in [done, crate::store::tests::game("on"), crate::store::tests::game("held")] {
            row.seed = "ab".repeat(32);
            store.create_game(&row).await.expect("stored");
        }
        let games = Games::new(store);
        let mut held = None;
        for id in ["done", "on", "held"] {
            let g = games.get(id).await.expect("loads").expect("exists");
            if id == "held" {
                g.lock().await.row.status = "finished".into();
                held = Some(g);
            }
        }
        assert_eq!(games.len(), 3);
        assert_eq!(games.evict_idle(), 1);
        assert_eq!(games.len(), 2);
        let back = games.get("done").await.expect("loads").expect("exists");
        assert_eq!(back.lock().await.row.result.as_deref(), Some("1-0"));
        drop(held);
    }

    /// A crash between storing a game's last move and storing its end: the game is loaded
    /// finished with the end that move made, at its time (mate and stalemate), and a game the
    /// moves did not end stays active.
    #[tokio::test]
    async fn a_game_whose_last_move_ended_it_is_finished_when_loaded() {
        let store = crate::store::open("sqlite::memory:").await.expect("a store");
        let lines: [(&str, &str, &[&str]); 3] = [
            ("mate", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", &["f2f3", "e7e5", "g2g4", "d8h4"]),
            ("on", "7k/5Q2/6K1/8/8/8/8/8 w - - 0 1", &["f7e7", "h8g8"]),
            ("stalemate", "7k/8/8/8/8/8/5Q2/6K1 w - - 0 1", &["f2f7"]),
        ];
        for (id, fen, moves) in &lines {
            let mut row = crate::store::tests::game(id);
            row.seed = "ab".repeat(32);
            row.start_fen = fen.to_string();
            store.create_game(&row).await.expect("stored");
            for (ply, uci) in moves.iter().enumerate() {
                let m = MoveRow {
                    ply: ply as i64,
                    uci: uci.to_string(),
                    event: String::new(),
                    created_at: 1000 + ply as i64,
                };
                store.append_move(id, &m).await.expect("a move stored");
            }
        }
        let games = Games::new(store.clone());
        let ended = |id: &str| {
            let store = store.clone();
            let id = id.to_string();
            async move {
                let r = store.game(&id).await.expect("read").expect("exists");
                (r.status, r.result, r.reason, r.updated_at)
            }
        };
        let g = games.get("mate").await.expect("loads").expect("exists");
        assert_eq!(g.lock().await.row.result.as_deref(), Some("0-1"));
        assert_eq!(ended("mate").await, ("finished".into(), Some("0-1".into()), Some("checkmate".into()), 1003));
        games.get("on").await.expect("loads").expect("exists");
        assert_eq!(ended("on").await.0, "active");
        games.get("stalemate").await.expect("loads").expect("exists");
        assert_eq!(
            ended("stalemate").await,
            ("finished".into(), Some("1/2-1/2".into()), Some("stalemate".into()), 1000)
        );
    }
}
