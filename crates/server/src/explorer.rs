//! The opening explorer: which moves finished games played from a position and how those games
//! ended, as lichess's explorer of its own games (`GET /api/explorer`), and the indexer that
//! counts every finished game once, in the background, on any number of processes.
//!
//! A game is counted when it ends with a result (not aborted), in a built-in sequential variant,
//! with no imported moves, a person played at least one side and every person's seat was taken; its first [`MAX_PLIES`] plies
//! are counted, each (position, move) once a game, under who played it ([`Players`]: two people,
//! or a person against the AI), which the explorer can filter by. Positions are keyed by their FEN without the move counters ([`position_key`]), so
//! transpositions meet and a SnowFall position's hands count.

use crate::live::{Games, LiveGame, LoadError, Player};
use crate::store::{ExplorerRow, GameRow, MoveRow, Store};
use rules::game::Game;
use rules::Position;
use serde_json::{json, Value};
use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

/// Plies of a game the explorer counts (lichess's explorer counts the opening, up to ply 50).
pub const MAX_PLIES: usize = 50;

/// Games the indexer reads from the store at a time.
const BATCH: i64 = 64;

/// How often the indexer looks for uncounted games without being told of a game's end (a
/// missed message, or a game ended by a process that died before it could say so).
const RESCAN: Duration = Duration::from_secs(300);

/// The explorer's key of a position: its FEN without the halfmove and fullmove counters.
pub fn position_key(pos: &Position) -> String {
    let fen = pos.fen();
    let fields: Vec<&str> = fen.split(' ').enumerate().filter(|&(i, _)| i != 4 && i != 5).map(|(_, f)| f).collect();
    fields.join(" ")
}

/// Who played the games the explorer counts: its filter (`GET /api/explorer?players=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Players {
    /// A person on both sides (or one person holding both seats).
    People,
    /// A person against the AI.
    Ai,
}

impl Players {
    /// The name the store and the API use: `people` or `ai`.
    pub fn name(self) -> &'static str {
        match self {
            Players::People => "people",
            Players::Ai => "ai",
        }
    }

    /// Reads a filter: `people`, `ai`, or `all` (`None`: every counted game).
    pub fn parse_filter(text: &str) -> Result<Option<Players>, String> {
        match text {
            "all" => Ok(None),
            "people" => Ok(Some(Players::People)),
            "ai" => Ok(Some(Players::Ai)),
            _ => Err(format!("players must be all, people or ai, not {text:?}")),
        }
    }
}

/// How a finished game counts: who played it and its result as (White wins, draws, Black
/// wins), or `None` if it is not counted (Predictor chess, a custom variant, imported moves, the
/// AI against itself, no result).
fn counted_result(row: &GameRow) -> Option<(Players, (i64, i64, i64))> {
    let options: Value = serde_json::from_str(&row.options).unwrap_or(Value::Null);
    let imported = options.get("imported").and_then(Value::as_u64).unwrap_or(0) > 0;
    let seats = [(&row.white_player, &row.white_token), (&row.black_player, &row.black_token)];
    let human = |p: &String| p.as_str() == Player::Human.name();
    let people = seats.iter().filter(|(p, _)| human(p)).count();
    // A person's seat nobody took (an invitation or open seat never joined): one person played.
    let empty_seat = seats.iter().any(|(p, token)| human(p) && token.is_none());
    if row.variant == "predictor" || options.get("toml").is_some() || imported || people == 0 || empty_seat {
        return None;
    }
    let players = if people == 2 { Players::People } else { Players::Ai };
    Some((players, score(row.result.as_deref())?))
}

/// A result as (White wins, draws, Black wins).
fn score(result: Option<&str>) -> Option<(i64, i64, i64)> {
    match result? {
        "1-0" => Some((1, 0, 0)),
        "1/2-1/2" => Some((0, 1, 0)),
        "0-1" => Some((0, 0, 1)),
        _ => None,
    }
}

/// What a finished game adds to the explorer: its variant's name and one row per (position,
/// move) of its first [`MAX_PLIES`] plies, no rows when the game is not counted.
pub fn rows_of(row: GameRow, moves: &[MoveRow]) -> Result<(String, Vec<ExplorerRow>), LoadError> {
    let Some((players, (white, draws, black))) = counted_result(&row) else {
        return Ok((row.variant, Vec::new()));
    };
    let (id, at) = (row.id.clone(), row.updated_at);
    let live = LiveGame::replay(row, &moves[..moves.len().min(MAX_PLIES)])?;
    let rows = game_moves(&live.game, MAX_PLIES)
        .into_iter()
        .map(|(position, uci)| ExplorerRow {
            position,
            players: players.name().into(),
            uci,
            white,
            draws,
            black,
            last_game: id.clone(),
            last_at: at,
        })
        .collect();
    Ok((live.game.start().variant().name.clone(), rows))
}

/// The (position key, UCI move) pairs of a game's first `plies` plies, each once, in order: what
/// one game adds to an opening tree.
pub fn game_moves(game: &Game, plies: usize) -> Vec<(String, String)> {
    let mut pos = game.start().clone();
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (&m, &e) in game.moves().iter().zip(game.events()).take(plies) {
        let pair = (position_key(&pos), rules::uci::to_uci(&pos, m));
        if seen.insert(pair.clone()) {
            out.push(pair);
        }
        pos.play_event(m, e);
    }
    out
}

/// Counts every finished game not counted yet; returns how many this call counted. A game
/// that does not replay is marked counted with nothing (and logged), so it is not read again.
pub async fn index_pending(store: &Arc<dyn Store>) -> Result<usize, LoadError> {
    let mut counted = 0;
    // A game is read once a call, even should it stay uncounted (gone from the store meanwhile).
    let mut read = HashSet::new();
    loop {
        let ids: Vec<String> =
            store.unexplored(BATCH).await?.into_iter().filter(|id| read.insert(id.clone())).collect();
        if ids.is_empty() {
            return Ok(counted);
        }
        for id in ids {
            let Some(row) = store.game(&id).await? else { continue };
            let moves = store.moves(&id).await?;
            let stored = row.variant.clone();
            let (variant, rows) = tokio::task::spawn_blocking(move || rows_of(row, &moves))
                .await
                .map_err(|e| LoadError::Corrupt { id: id.clone(), reason: e.to_string() })?
                .unwrap_or_else(|e| {
                    tracing::error!("the explorer skips game {id}: {e}");
                    (stored, Vec::new())
                });
            if store.explore(&id, &variant, &rows).await? {
                counted += 1;
            }
        }
    }
}

/// Runs the indexer: a pass at once (the games that ended before), then one after every game's
/// end the lobby's stream tells of (here or in another process), and every [`RESCAN`].
pub fn spawn_indexer(games: Arc<Games>) {
    let mut lobby = games.watch_lobby();
    tokio::spawn(async move {
        loop {
            if let Err(e) = index_pending(games.store()).await {
                tracing::warn!("the explorer's indexer: {e}");
            }
            let ended = async {
                loop {
                    match lobby.recv().await {
                        // A game over, or one deleted (its variant's counts are rebuilt).
                        Ok(text) if text.contains(r#""change":"end""#) || text.contains(r#""change":"deleted""#) => {
                            return
                        }
                        Ok(_) => {}
                        Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => return,
                        Err(tokio::sync::broadcast::error::RecvError::Closed) => std::future::pending().await,
                    }
                }
            };
            let _ = tokio::time::timeout(RESCAN, ended).await;
        }
    });
}

/// The explorer's answer for a position: `{variant, fen, players, white, draws, black, moves}`,
/// over the games `players` played (all counted games if `None`): the totals over its moves and
/// each move `{uci, san, white, draws, black, games, last_game}`, the most played first.
pub async fn report(
    store: &dyn Store,
    pos: &Position,
    players: Option<Players>,
) -> Result<Value, crate::store::StoreError> {
    let v = pos.variant();
    let rows = store.explorer(&v.name, &position_key(pos)).await?;
    let rows = merged(rows.into_iter().filter(|r| players.is_none_or(|p| r.players == p.name())));
    let (mut white, mut draws, mut black) = (0, 0, 0);
    let mut moves = Vec::new();
    for r in &rows {
        // A move the rules no longer allow there is left out.
        let Ok(m) = rules::uci::parse_uci(pos, &r.uci) else { continue };
        white += r.white;
        draws += r.draws;
        black += r.black;
        moves.push(json!({
            "uci": r.uci, "san": rules::san::to_san(pos, m), "white": r.white, "draws": r.draws,
            "black": r.black, "games": r.white + r.draws + r.black, "last_game": r.last_game,
        }));
    }
    Ok(json!({
        "variant": v.name, "fen": pos.fen(), "players": players.map_or("all", Players::name),
        "white": white, "draws": draws, "black": black, "moves": moves,
    }))
}

/// One row per move: the counts of its rows summed, the latest game kept; the most played
/// first (then by UCI).
fn merged(rows: impl Iterator<Item = ExplorerRow>) -> Vec<ExplorerRow> {
    let mut by_move: Vec<ExplorerRow> = Vec::new();
    for r in rows {
        match by_move.iter_mut().find(|m| m.uci == r.uci) {
            Some(m) => {
                m.white += r.white;
                m.draws += r.draws;
                m.black += r.black;
                if (r.last_at, &r.last_game) > (m.last_at, &m.last_game) {
                    m.last_at = r.last_at;
                    m.last_game = r.last_game;
                }
            }
            None => by_move.push(r),
        }
    }
    by_move.sort_by(|a, b| (b.white + b.draws + b.black).cmp(&(a.white + a.draws + a.black)).then(a.uci.cmp(&b.uci)));
    by_move
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finished(result: &str, options: &str, moves: &[&str]) -> (GameRow, Vec<MoveRow>) {
        let row = GameRow {
            id: "g".into(),
            variant: "chess".into(),
            options: options.into(),
            start_fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
            white_player: "human".into(),
            black_player: "human".into(),
            white_token: Some("w".into()),
            black_token: Some("b".into()),
            white_invite: None,
            black_invite: None,
            seed: "00".repeat(32),
            seed_hash: "00".into(),
            movetime_ms: 100,
            status: "finished".into(),
            result: Some(result.into()),
            reason: Some("resignation".into()),
            created_at: 0,
            updated_at: 7,
            draw_offer: None,
            takeback_offer: None,
            takebacks: 0,
            rematch_offer: None,
            rematch: None,
        };
        let moves = moves
            .iter()
            .enumerate()
            .map(|(i, m)| MoveRow { ply: i as i64, uci: m.to_string(), event: String::new(), created_at: 0 })
            .collect();
        (row, moves)
    }

    /// A repeated position and move counts once a game; plies past [`MAX_PLIES`] do not count;
    /// games without a result, with imported moves, of a custom variant or of the AI against
    /// itself add nothing.
    #[test]
    fn a_game_adds_each_position_and_move_once_up_to_the_ply_limit() {
        let shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"];
        let moves: Vec<&str> = shuffle.iter().cycle().take(MAX_PLIES + 8).copied().collect();
        let (row, stored) = finished("0-1", "{}", &moves);
        let (variant, rows) = rows_of(row, &stored).expect("replays");
        assert_eq!(variant, "chess");
        assert_eq!(rows.len(), 4, "{rows:?}");
        assert_eq!(rows[0].position, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -");
        assert_eq!((rows[0].uci.as_str(), rows[0].white, rows[0].draws, rows[0].black), ("g1f3", 0, 0, 1));
        assert_eq!((rows[0].last_game.as_str(), rows[0].last_at), ("g", 7));
        // The first MAX_PLIES plies only: a new move after them is not counted.
        let mut moves: Vec<&str> = shuffle.iter().cycle().take(MAX_PLIES).copied().collect();
        moves.push("e2e4");
        let (row, stored) = finished("1/2-1/2", "{}", &moves);
        assert!(rows_of(row, &stored).expect("replays").1.iter().all(|r| r.uci != "e2e4"));
        let (row, stored) = finished("1/2-1/2", "{}", &["e2e4"]);
        assert_eq!(rows_of(row, &stored).expect("replays").1.len(), 1);
        for (result, options) in [("*", "{}"), ("1-0", r#"{"imported": 2}"#), ("1-0", r#"{"toml": "x"}"#)] {
            let (row, stored) = finished(result, options, &["e2e4", "e7e5"]);
            assert!(rows_of(row, &stored).expect("not replayed").1.is_empty(), "{result} {options}");
        }
        // Two people's game counts as theirs; the AI against a person counts as `ai`; the AI
        // against itself is not counted.
        let (mut row, stored) = finished("1-0", "{}", &["e2e4", "e7e5"]);
        assert!(rows_of(row.clone(), &stored).expect("replays").1.iter().all(|r| r.players == "people"));
        row.white_player = "ai:engine".into();
        let rows = rows_of(row.clone(), &stored).expect("replays").1;
        assert_eq!(rows.iter().map(|r| r.players.as_str()).collect::<Vec<_>>(), ["ai", "ai"]);
        row.black_player = "ai:level3".into();
        assert!(rows_of(row, &stored).expect("not replayed").1.is_empty());
        // A seat for a person that nobody took: one person played, and the game is not counted.
        let (mut row, stored) = finished("1-0", "{}", &["e2e4", "e7e5"]);
        row.black_token = None;
        assert!(rows_of(row, &stored).expect("not replayed").1.is_empty());
    }

    fn row(players: &str, uci: &str, white: i64, game: &str, at: i64) -> ExplorerRow {
        ExplorerRow {
            position: "p".into(),
            players: players.into(),
            uci: uci.into(),
            white,
            draws: 1,
            black: 0,
            last_game: game.into(),
            last_at: at,
        }
    }

    /// The rows of one move by different players add up, the latest game kept; the most
    /// played move comes first.
    #[test]
    fn a_moves_rows_by_different_players_are_merged() {
        let rows = [
            row("people", "d2d4", 1, "a", 10),
            row("people", "e2e4", 0, "b", 30),
            row("ai", "e2e4", 2, "c", 20),
            row("ai", "c2c4", 0, "d", 40),
        ];
        let merged = merged(rows.into_iter());
        let summary: Vec<(&str, i64, i64, &str)> =
            merged.iter().map(|r| (r.uci.as_str(), r.white, r.draws, r.last_game.as_str())).collect();
        assert_eq!(summary, [("e2e4", 2, 2, "b"), ("d2d4", 1, 1, "a"), ("c2c4", 0, 1, "d")]);
        assert_eq!(Players::parse_filter("all"), Ok(None));
        assert_eq!(Players::parse_filter("ai"), Ok(Some(Players::Ai)));
        assert!(Players::parse_filter("humans").is_err_and(|e| e.contains("people")));
    }
}
