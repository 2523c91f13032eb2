//! Persistence: the [`Store`] trait (games and their acknowledged moves) and its SQLite and
//! PostgreSQL implementations on sqlx, with the migrations in `crates/server/migrations`.
//!
//! Both implementations run the same SQL (`$N` placeholders work in both). A move row's key is
//! (game, ply), so a ply can be stored once only: a replayed or racing move fails to insert.
//! A takeback deletes the moves from a ply on and raises the game's `takebacks` count, which a
//! process sharing the store compares with its copy's to know it must read the moves back.

use async_trait::async_trait;
use sqlx::Row;

/// What [`Store::delete_game`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deletion {
    /// The game is gone; `recount`: the explorer of its variant is counted again.
    Deleted {
        /// Whether the explorer had counted it (its variant's counts are rebuilt).
        recount: bool,
    },
    /// No such game.
    NoGame,
    /// The game is being played: nothing deleted.
    Active,
}

/// A storage failure.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The database refused or failed.
    #[error("database: {0}")]
    Database(#[from] sqlx::Error),
    /// A migration failed.
    #[error("database migration: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// The ply is already stored, the one before it is not, or another process owns the game:
    /// the write is stale (a replay, a race, moves taken back or the game taken over by
    /// another process).
    #[error("ply {ply} of game {game} is already stored")]
    Duplicate {
        /// The game.
        game: String,
        /// The ply.
        ply: i64,
    },
    /// A write about a game that another server process owns now, or that is over: the
    /// writer's copy of the game is stale.
    #[error("game {game} has changed elsewhere: another server process plays it now, or it is over")]
    Stale {
        /// The game.
        game: String,
    },
    /// A batch of writes failed as a whole.
    #[error("database: {0}")]
    Batch(String),
    /// The database could not be opened.
    #[error("cannot open the database {url}: {reason}")]
    Open {
        /// The URL, without a password.
        url: String,
        /// Why.
        reason: String,
    },
    /// The writer task is gone (the server is shutting down).
    #[error("the database writer has stopped")]
    WriterGone,
    /// The URL names no supported database.
    #[error("unsupported database URL '{0}': use sqlite://PATH or postgres://...")]
    Url(String),
    /// A SQLite URL without a file.
    #[error("the database URL '{0}' names no file: use sqlite://PATH (sqlite::memory: for a database that ends with the process)")]
    NoFile(String),
}

/// A game as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameRow {
    /// The id (URL-safe).
    pub id: String,
    /// The variant's name.
    pub variant: String,
    /// Variant options as JSON (`{"snowfall": 17}`).
    pub options: String,
    /// The start position.
    pub start_fen: String,
    /// Who plays White: `human` or `ai:<level>`.
    pub white_player: String,
    /// Who plays Black.
    pub black_player: String,
    /// SHA-256 of White's token, once someone holds it.
    pub white_token: Option<String>,
    /// SHA-256 of Black's token.
    pub black_token: Option<String>,
    /// SHA-256 of the invitation code for White's seat, until it is used.
    pub white_invite: Option<String>,
    /// SHA-256 of the invitation code for Black's seat.
    pub black_invite: Option<String>,
    /// The fairness seed (hex), secret until the game ends.
    pub seed: String,
    /// SHA-256 of the seed (hex), published.
    pub seed_hash: String,
    /// The AI's time per move.
    pub movetime_ms: i64,
    /// `active` or `finished`.
    pub status: String,
    /// The PGN result once finished.
    pub result: Option<String>,
    /// Why the game ended.
    pub reason: Option<String>,
    /// Unix milliseconds.
    pub created_at: i64,
    /// Unix milliseconds.
    pub updated_at: i64,
    /// The side whose draw offer stands (`white` or `black`).
    pub draw_offer: Option<String>,
    /// The side whose takeback proposal stands (`white` or `black`).
    pub takeback_offer: Option<String>,
    /// How many takebacks the game has had (a copy with fewer is out of date).
    pub takebacks: i64,
    /// A finished game's standing rematch offer: the side that made it (`white` or `black`).
    pub rematch_offer: Option<String>,
    /// The rematch's game id, once it was made.
    pub rematch: Option<String>,
}

/// The stored invitation of a seat open to anyone (`"open"` when creating the game): any
/// visitor may take it without a code. Other invitations are stored as a code's SHA-256 in hex,
/// which never equals it.
pub const OPEN_SEAT: &str = "open";

impl GameRow {
    /// Whether a seat still open is open to anyone (no code needed to take it).
    pub fn open_to_anyone(&self) -> bool {
        [&self.white_invite, &self.black_invite].iter().any(|i| i.as_deref() == Some(OPEN_SEAT))
    }

    /// The seats an invitation still holds open (`white`, `black`), White's first.
    pub fn open_seats(&self) -> Vec<&'static str> {
        [("white", &self.white_invite), ("black", &self.black_invite)]
            .into_iter()
            .filter_map(|(side, invite)| invite.is_some().then_some(side))
            .collect()
    }

    /// The seat to name as open, if any: the one open to anyone if there is one (the seat a
    /// join without a code takes), else the first invited one.
    pub fn open_seat(&self) -> Option<&'static str> {
        let anyone = [("white", &self.white_invite), ("black", &self.black_invite)]
            .into_iter()
            .find_map(|(side, invite)| (invite.as_deref() == Some(OPEN_SEAT)).then_some(side));
        anyone.or_else(|| self.open_seats().first().copied())
    }
}

/// An acknowledged move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveRow {
    /// 0 for the first move.
    pub ply: i64,
    /// The move in UCI.
    pub uci: String,
    /// Its chance outcome (`""` plain, `failed`, `gift W:Q B:-`).
    pub event: String,
    /// Unix milliseconds.
    pub created_at: i64,
}

/// A Predictor chess team member, a commitment or a reveal (the `kind` says which): one row of
/// the `predictor_*` tables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PredictorRow {
    /// The ply (commitments and reveals; 0 for members).
    pub ply: i64,
    /// `white` or `black`.
    pub side: String,
    /// The member's name.
    pub member: String,
    /// Members: the rank; otherwise 0.
    pub rank: i64,
    /// Members: SHA-256 of the token; commitments: the commitment; reveals: the reveal line.
    pub text: String,
    /// Unix milliseconds.
    pub created_at: i64,
}

/// A move of the opening explorer: played from a position in finished games, with how they
/// ended and the latest of them (one game's contribution, or the sums over all games).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExplorerRow {
    /// The position: its FEN without the move counters (`explorer::position_key`).
    pub position: String,
    /// Who played: `people` (a person on both sides) or `ai` (a person against the AI).
    pub players: String,
    /// The move in UCI.
    pub uci: String,
    /// Games won by White.
    pub white: i64,
    /// Games drawn.
    pub draws: i64,
    /// Games won by Black.
    pub black: i64,
    /// The game that ended last among them.
    pub last_game: String,
    /// When it ended (Unix milliseconds).
    pub last_at: i64,
}

/// A message of a game's chat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatRow {
    /// Its number in the game's chat: 1, 2, ...
    pub seq: i64,
    /// The side that wrote it: `white` or `black`.
    pub side: String,
    /// What it says.
    pub text: String,
    /// When it was written (Unix milliseconds).
    pub created_at: i64,
}

/// A standing offer a side makes and the other answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offer {
    /// A draw (`games.draw_offer`).
    Draw,
    /// A takeback (`games.takeback_offer`).
    Takeback,
}

impl Offer {
    /// The column of `games` that holds it.
    fn column(self) -> &'static str {
        match self {
            Offer::Draw => "draw_offer",
            Offer::Takeback => "takeback_offer",
        }
    }
}

/// Which `predictor_*` table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PredictorKind {
    /// `predictor_members`.
    Member,
    /// `predictor_commits`.
    Commit,
    /// `predictor_reveals`.
    Reveal,
    /// `predictor_secrets`: the server AI's reveal before the ply closes (never served).
    Secret,
}

/// Where games live.
#[async_trait]
pub trait Store: Send + Sync + 'static {
    /// Stores a new game.
    async fn create_game(&self, g: &GameRow) -> Result<(), StoreError>;
    /// A game by id.
    async fn game(&self, id: &str) -> Result<Option<GameRow>, StoreError>;
    /// A game by id with the number of its stored moves (one query: how a process sharing the
    /// store checks that its copy is current).
    async fn game_with_count(&self, id: &str) -> Result<Option<(GameRow, i64)>, StoreError>;
    /// A game's moves in order, from ply `from` on.
    async fn moves_from(&self, id: &str, from: i64) -> Result<Vec<MoveRow>, StoreError>;
    /// A game's moves in order.
    async fn moves(&self, id: &str) -> Result<Vec<MoveRow>, StoreError> {
        self.moves_from(id, 0).await
    }
    /// Stores a move; [`StoreError::Duplicate`] if its ply is already there, the ply before it
    /// is not, or another process owns the game ([`Store::claim`]).
    async fn append_move(&self, id: &str, m: &MoveRow) -> Result<(), StoreError>;
    /// Marks an unfinished game finished; [`StoreError::Stale`] if it is over already or another
    /// process owns it.
    async fn finish(&self, id: &str, result: &str, reason: &str, now: i64) -> Result<(), StoreError>;
    /// Gives a seat's token to whoever presents its invitation (hashed); false if the invitation
    /// is not (or no longer) valid, or the game is over.
    async fn join(&self, id: &str, white: bool, invite: &str, token: &str, now: i64) -> Result<bool, StoreError>;
    /// Stores a Predictor member, commitment or reveal; [`StoreError::Duplicate`] if its key is
    /// taken (a member's name, a member's commitment for the ply, a side's reveal for the ply),
    /// [`StoreError::Stale`] if another process owns the game.
    async fn add_predictor(&self, id: &str, kind: PredictorKind, row: &PredictorRow) -> Result<(), StoreError>;
    /// A game's Predictor rows of one kind, in order (members by joining, the rest by ply).
    async fn predictor_rows(&self, id: &str, kind: PredictorKind) -> Result<Vec<PredictorRow>, StoreError>;
    /// The most recent games, newest first (by creation, then id), at most `limit`: those
    /// after the game `after` (its creation time and id) in that order if given, and of one
    /// `status` if given.
    async fn recent(
        &self,
        limit: i64,
        after: Option<(i64, &str)>,
        status: Option<&str>,
    ) -> Result<Vec<GameRow>, StoreError>;
    /// The ids of unfinished games.
    async fn active(&self) -> Result<Vec<String>, StoreError>;
    /// Records an unfinished game's standing draw offer or takeback proposal (`None`: none
    /// stands); [`StoreError::Stale`] if the game is over or another process owns it.
    async fn set_offer(&self, id: &str, offer: Offer, by: Option<&str>, now: i64) -> Result<(), StoreError>;
    /// Takes back the moves of an unfinished game from ply `keep` on, counts the takeback and
    /// clears the standing offers; [`StoreError::Stale`] if the game is over or gone or another
    /// process owns it.
    async fn take_back(&self, id: &str, keep: i64, now: i64) -> Result<(), StoreError>;
    /// Records a finished game's standing rematch offer by side `by` (`None`: none stands) and
    /// the SHA-256 of the seat token its maker will hold in the rematch; false, changing
    /// nothing, if the game is not finished or its rematch was made already.
    async fn offer_rematch(&self, id: &str, by: Option<&str>, seat: Option<&str>) -> Result<bool, StoreError>;
    /// The SHA-256 of the rematch seat token of the standing offer's maker, if one was recorded
    /// (offers made before version 0.3.1 have none).
    async fn rematch_seat(&self, id: &str) -> Result<Option<String>, StoreError>;
    /// Makes a finished game's rematch: records the new game's id and clears the offer, if the
    /// offer of side `by` stands (`None`: whatever stands, for a rematch against the AI). False,
    /// changing nothing, if it does not or the rematch was made already (by this process or
    /// another): only one rematch is made.
    async fn make_rematch(&self, id: &str, by: Option<&str>, game: &str) -> Result<bool, StoreError>;
    /// A finished game's kept review (JSON), if it has one.
    async fn review(&self, id: &str) -> Result<Option<String>, StoreError>;
    /// Keeps a finished game's review, made searching `nodes` nodes a position (a review kept
    /// already stays).
    async fn save_review(&self, id: &str, nodes: i64, review: &str, now: i64) -> Result<(), StoreError>;
    /// Adds a message to a game's chat, written by `side` at `now`; returns its number (one
    /// more than the game's last), or `None`, adding nothing, if the chat holds `limit` already.
    async fn add_chat(&self, id: &str, side: &str, text: &str, now: i64, limit: i64)
        -> Result<Option<i64>, StoreError>;
    /// A game's chat messages numbered above `after`, in order.
    async fn chat(&self, id: &str, after: i64) -> Result<Vec<ChatRow>, StoreError>;
    /// Deletes a game that is not being played (finished or aborted) with all that is stored
    /// of it (moves, Predictor rows, review, chat, owner), in one transaction; a game whose
    /// rematch it was forgets the link. If the opening explorer had counted it, the explorer of
    /// its variant is emptied and that variant's games are counted again by the indexer.
    async fn delete_game(&self, id: &str) -> Result<Deletion, StoreError>;
    /// Finished games the opening explorer has not counted yet, the earliest ended first, at
    /// most `limit`.
    async fn unexplored(&self, limit: i64) -> Result<Vec<String>, StoreError>;
    /// Counts a finished game in the opening explorer of `variant`: marks it counted and adds
    /// its rows (at most one per position and move), in one transaction. False, adding nothing,
    /// if it was counted already (by this process or another) or is not finished.
    async fn explore(&self, id: &str, variant: &str, rows: &[ExplorerRow]) -> Result<bool, StoreError>;
    /// The opening explorer's moves from a position of `variant`, in no particular order.
    async fn explorer(&self, variant: &str, position: &str) -> Result<Vec<ExplorerRow>, StoreError>;
    /// Records server process `server` alive at `now` and reachable at `url`.
    async fn heartbeat(&self, server: &str, url: &str, now: i64) -> Result<(), StoreError>;
    /// Gives a game to `server` unless a process whose last heartbeat is later than
    /// `alive_after` owns it; returns the owner afterwards as (process, URL), `None` if there is
    /// no such game.
    async fn claim(
        &self,
        game: &str,
        server: &str,
        now: i64,
        alive_after: i64,
    ) -> Result<Option<(String, String)>, StoreError>;
    /// Unfinished games that no live process owns and that move without a request (an AI
    /// side, a Predictor deadline, a clock), oldest first, at most `limit`.
    async fn orphans(&self, alive_after: i64, limit: i64) -> Result<Vec<String>, StoreError>;
    /// Voids the heartbeat of `server` (its address refuses connections: it is dead), so its
    /// games can be taken at once.
    async fn expire(&self, server: &str) -> Result<(), StoreError>;
    /// Gives up every game `server` owns and its heartbeat (a clean shutdown).
    async fn release(&self, server: &str) -> Result<(), StoreError>;
    /// Records a clean stop at `at` (Unix ms), for [`Store::resume`].
    async fn record_stop(&self, at: i64) -> Result<(), StoreError>;
    /// Closes the last clean stop into a pause ending at `now`, or after a crash (no stop
    /// recorded) the time since the last heartbeat ([`Store::alive`]), and returns every pause
    /// (`[stopped, resumed)`, oldest first).
    async fn resume(&self, now: i64) -> Result<Vec<(i64, i64)>, StoreError>;
    /// Records that the single process serving the store runs at `at` (Unix ms).
    async fn alive(&self, at: i64) -> Result<(), StoreError>;
    /// Whether other server processes share this store (their moves must be read back and
    /// their events relayed).
    fn shared(&self) -> bool {
        false
    }
    /// Closes the store as the process stops: SQLite's write-ahead log is folded into the
    /// database file first, so that the file alone holds every game.
    async fn close(&self) {}
    /// Tells the other processes about an event of a game (PostgreSQL NOTIFY).
    async fn notify(&self, _game: &str, _event: &str) -> Result<(), StoreError> {
        Ok(())
    }
    /// The events other processes announce, as (game, event) (PostgreSQL LISTEN).
    async fn listen(&self) -> Result<Option<tokio::sync::mpsc::Receiver<(String, String)>>, StoreError> {
        Ok(None)
    }
}

/// The PostgreSQL channel that carries events between server processes.
pub const CHANNEL: &str = "fairylab_events";

/// This process's id in relayed events, so it skips its own.
pub fn process_tag() -> &'static str {
    static TAG: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TAG.get_or_init(|| {
        use rand::RngCore;
        let mut b = [0u8; 8];
        rand::rngs::OsRng.fill_bytes(&mut b);
        hex::encode(b)
    })
}

const GAME_COLUMNS: &str = "id, variant, options, start_fen, white_player, black_player, white_token, black_token, \
     white_invite, black_invite, seed, seed_hash, movetime_ms, status, result, reason, created_at, updated_at, draw_offer, \
     takeback_offer, takebacks, rematch_offer, rematch";

fn game_row<R: Row>(r: &R) -> Result<GameRow, sqlx::Error>
where
    for<'a> &'a str: sqlx::ColumnIndex<R>,
    for<'a> String: sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    for<'a> Option<String>: sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
    for<'a> i64: sqlx::Decode<'a, R::Database> + sqlx::Type<R::Database>,
{
    Ok(GameRow {
        id: r.try_get("id")?,
        variant: r.try_get("variant")?,
        options: r.try_get("options")?,
        start_fen: r.try_get("start_fen")?,
        white_player: r.try_get("white_player")?,
        black_player: r.try_get("black_player")?,
        white_token: r.try_get("white_token")?,
        black_token: r.try_get("black_token")?,
        white_invite: r.try_get("white_invite")?,
        black_invite: r.try_get("black_invite")?,
        seed: r.try_get("seed")?,
        seed_hash: r.try_get("seed_hash")?,
        movetime_ms: r.try_get("movetime_ms")?,
        status: r.try_get("status")?,
        result: r.try_get("result")?,
        reason: r.try_get("reason")?,
        created_at: r.try_get("created_at")?,
        updated_at: r.try_get("updated_at")?,
        draw_offer: r.try_get("draw_offer")?,
        takeback_offer: r.try_get("takeback_offer")?,
        takebacks: r.try_get("takebacks")?,
        rematch_offer: r.try_get("rematch_offer")?,
        rematch: r.try_get("rematch")?,
    })
}

/// A write waiting for the writer task.
#[derive(Debug)]
enum Write {
    Game(Box<GameRow>),
    Move {
        id: String,
        m: MoveRow,
    },
    Finish {
        id: String,
        result: String,
        reason: String,
        now: i64,
    },
    Join {
        id: String,
        white: bool,
        invite: String,
        token: String,
        now: i64,
    },
    Offer {
        id: String,
        offer: Offer,
        by: Option<String>,
        now: i64,
    },
    /// Deletes the moves from ply `keep` on and counts a takeback (the standing offers lapse).
    TakeBack {
        id: String,
        keep: i64,
        now: i64,
    },
    /// PostgreSQL: `pg_notify` in the batch's transaction (delivered at its commit).
    Notify {
        payload: String,
    },
    Predictor {
        id: String,
        kind: PredictorKind,
        row: PredictorRow,
    },
}

/// The INSERT of a Predictor row (a taken key, or a game another process owns, inserts nothing).
fn predictor_insert(kind: PredictorKind) -> String {
    let (table, columns) = match kind {
        PredictorKind::Member => ("predictor_members", "side, name, rank, token"),
        PredictorKind::Commit => ("predictor_commits", "ply, side, member, commitment"),
        PredictorKind::Reveal => ("predictor_reveals", "ply, side, member, reveal"),
        PredictorKind::Secret => ("predictor_secrets", "ply, side, member, reveal"),
    };
    format!(
        "INSERT INTO {table} (game_id, {columns}, created_at) SELECT $1, $2, $3, $4, $5, $6 WHERE {} \
         ON CONFLICT DO NOTHING",
        owned_here("$1", "$7")
    )
}

/// The SELECT of a Predictor row kind, in [`PredictorRow`]'s columns.
fn predictor_select(kind: PredictorKind) -> &'static str {
    match kind {
        PredictorKind::Member => {
            "SELECT CAST(0 AS BIGINT) AS ply, side, name AS member, rank, token AS text, created_at \
             FROM predictor_members WHERE game_id = $1 ORDER BY created_at, name"
        }
        PredictorKind::Commit => {
            "SELECT ply, side, member, CAST(0 AS BIGINT) AS rank, commitment AS text, created_at \
             FROM predictor_commits WHERE game_id = $1 ORDER BY ply, created_at, member"
        }
        PredictorKind::Reveal => {
            "SELECT ply, side, member, CAST(0 AS BIGINT) AS rank, reveal AS text, created_at \
             FROM predictor_reveals WHERE game_id = $1 ORDER BY ply, side"
        }
        PredictorKind::Secret => {
            "SELECT ply, side, member, CAST(0 AS BIGINT) AS rank, reveal AS text, created_at \
             FROM predictor_secrets WHERE game_id = $1 ORDER BY ply, side"
        }
    }
}

/// The SQL condition that the game bound at `game` (a parameter like `$4`) is owned by nobody
/// or by the process bound at `server`: a write of a process that has lost the game (it stalled
/// past its heartbeat's expiry and another process took the game over) changes nothing.
fn owned_here(game: &str, server: &str) -> String {
    format!("NOT EXISTS (SELECT 1 FROM owners WHERE owners.game_id = {game} AND owners.server_id <> {server})")
}

/// A write and where its result goes (`true`: a row changed).
type WriteJob = (Write, tokio::sync::oneshot::Sender<Result<bool, StoreError>>);

/// Moves the heartbeat (`alive`) to `$1` unless it is later already.
const ALIVE_AT_LEAST: &str = "INSERT INTO alive (id, at) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET \
     at = CASE WHEN excluded.at > alive.at THEN excluded.at ELSE alive.at END";

/// The most writes one transaction takes.
const BATCH: usize = 256;

/// Runs one write in a transaction or on a connection; `Ok(false)` when no row changed.
macro_rules! run_write {
    ($exec:expr, $w:expr) => {{
        let done = match $w {
            Write::Game(g) => {
                sqlx::query(&format!(
                    "INSERT INTO games ({GAME_COLUMNS}) VALUES \
                     ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23)"
                ))
                .bind(&g.id)
                .bind(&g.variant)
                .bind(&g.options)
                .bind(&g.start_fen)
                .bind(&g.white_player)
                .bind(&g.black_player)
                .bind(&g.white_token)
                .bind(&g.black_token)
                .bind(&g.white_invite)
                .bind(&g.black_invite)
                .bind(&g.seed)
                .bind(&g.seed_hash)
                .bind(g.movetime_ms)
                .bind(&g.status)
                .bind(&g.result)
                .bind(&g.reason)
                .bind(g.created_at)
                .bind(g.updated_at)
                .bind(&g.draw_offer)
                .bind(&g.takeback_offer)
                .bind(g.takebacks)
                .bind(&g.rematch_offer)
                .bind(&g.rematch)
                .execute($exec)
                .await
            }
            Write::Move { id, m } => {
                // Stored only after its predecessor, and only by the game's owner (see `run_batch!`).
                sqlx::query(
                    "INSERT INTO moves (game_id, ply, uci, event, created_at) SELECT $1, $2, $3, $4, $5 \
                     WHERE ($2 = 0 OR (SELECT true FROM moves WHERE game_id = $1 AND ply = $2 - 1)) \
                     AND NOT EXISTS (SELECT 1 FROM owners WHERE game_id = $1 AND server_id <> $6) \
                     ON CONFLICT (game_id, ply) DO NOTHING",
                )
                .bind(id)
                .bind(m.ply)
                .bind(&m.uci)
                .bind(&m.event)
                .bind(m.created_at)
                .bind(process_tag())
                .execute($exec)
                .await
            }
            Write::Finish { id, result, reason, now } => {
                // Only an unfinished game, and only by its owner.
                sqlx::query(&format!(
                    "UPDATE games SET status = 'finished', result = $1, reason = $2, updated_at = $3 \
                     WHERE id = $4 AND status = 'active' AND {}",
                    owned_here("$4", "$5")
                ))
                .bind(result)
                .bind(reason)
                .bind(now)
                .bind(id)
                .bind(process_tag())
                .execute($exec)
                .await
            }
            Write::Join { id, white, invite, token, now } => {
                let sql = if *white {
                    "UPDATE games SET white_token = $1, white_invite = NULL, updated_at = $2 \
                     WHERE id = $3 AND white_invite = $4 AND white_token IS NULL AND status = 'active'"
                } else {
                    "UPDATE games SET black_token = $1, black_invite = NULL, updated_at = $2 \
                     WHERE id = $3 AND black_invite = $4 AND black_token IS NULL AND status = 'active'"
                };
                sqlx::query(sql).bind(token).bind(now).bind(id).bind(invite).execute($exec).await
            }
            Write::Offer { id, offer, by, now } => {
                let sql = format!(
                    "UPDATE games SET {} = $1, updated_at = $2 WHERE id = $3 AND status = 'active' AND {}",
                    offer.column(),
                    owned_here("$3", "$4")
                );
                sqlx::query(&sql).bind(by).bind(now).bind(id).bind(process_tag()).execute($exec).await
            }
            Write::TakeBack { id, keep, now } => {
                // The count first: should the deletion fail outside a transaction, a copy is
                // read back whole and finds the moves still there.
                let counted = sqlx::query(&format!(
                    "UPDATE games SET takebacks = takebacks + 1, takeback_offer = NULL, draw_offer = NULL, \
                     updated_at = $1 WHERE id = $2 AND status = 'active' AND {}",
                    owned_here("$2", "$3")
                ))
                .bind(now)
                .bind(id)
                .bind(process_tag())
                .execute($exec)
                .await;
                match counted {
                    Ok(c) if c.rows_affected() == 1 => {
                        sqlx::query("DELETE FROM moves WHERE game_id = $1 AND ply >= $2")
                            .bind(id)
                            .bind(keep)
                            .execute($exec)
                            .await
                            .map(|_| c)
                    }
                    other => other,
                }
            }
            Write::Notify { payload } => {
                sqlx::query("SELECT pg_notify($1, $2)").bind(CHANNEL).bind(payload).execute($exec).await
            }
            Write::Predictor { id, kind: PredictorKind::Member, row } => {
                sqlx::query(&predictor_insert(PredictorKind::Member))
                    .bind(id)
                    .bind(&row.side)
                    .bind(&row.member)
                    .bind(row.rank)
                    .bind(&row.text)
                    .bind(row.created_at)
                    .bind(process_tag())
                    .execute($exec)
                    .await
            }
            Write::Predictor { id, kind, row } => {
                sqlx::query(&predictor_insert(*kind))
                    .bind(id)
                    .bind(row.ply)
                    .bind(&row.side)
                    .bind(&row.member)
                    .bind(&row.text)
                    .bind(row.created_at)
                    .bind(process_tag())
                    .execute($exec)
                    .await
            }
        };
        done.map(|d| d.rows_affected() == 1)
    }};
}

/// The batched move insert ([`run_batch!`]) in three parts: before its rows (`VALUES ...`),
/// between them and this process's tag, and after it. Its plan is tested on PostgreSQL
/// (`tests::the_batched_move_insert_probes_the_index`).
const MOVE_BATCH: [&str; 3] = [
    "WITH v (game_id, ply, uci, event, created_at) AS (",
    ") INSERT INTO moves (game_id, ply, uci, event, created_at) \
     SELECT v.game_id, v.ply, v.uci, v.event, v.created_at FROM v \
     WHERE (v.ply = 0 OR (SELECT true FROM moves p WHERE p.game_id = v.game_id AND p.ply = v.ply - 1)) \
     AND NOT EXISTS (SELECT 1 FROM owners o WHERE o.game_id = v.game_id AND o.server_id <> ",
    ") ON CONFLICT (game_id, ply) DO NOTHING RETURNING game_id, ply",
];

/// Runs a batch of writes in an open transaction: all its moves in one multi-row INSERT and all
/// its notifications in one SELECT (a round trip each, not one per write), the rest one by one.
/// The writes of a batch never depend on each other (each request waits for its own write
/// before it makes the next, and a game's requests are serialised), so they may be grouped.
/// Evaluates to whether each write changed a row.
macro_rules! run_batch {
    ($t:expr, $jobs:expr) => {{
        let jobs: &[WriteJob] = $jobs;
        let mut changed = vec![true; jobs.len()];
        let mut moves = Vec::new();
        let mut notes = Vec::new();
        for (i, (w, _)) in jobs.iter().enumerate() {
            match w {
                Write::Move { id, m } => moves.push((i, id, m)),
                Write::Notify { payload } => notes.push(payload),
                w => changed[i] = run_write!(&mut **$t, w)?,
            }
        }
        if !moves.is_empty() {
            // A move is stored only after its predecessor, and only by the process that owns the
            // game when several share the store (a game nobody owns, or a store without owners,
            // takes anyone's): a process still writing a game it has lost cannot add to it, nor
            // leave a gap where another process took moves back. The predecessor is looked up
            // by a scalar subquery, one index probe a row: PostgreSQL turns an `EXISTS` under
            // `OR` into a hashed subplan for a large batch, which reads the whole moves table
            // (p50 latency 2.5 -> 14 ms under `fairylab loadtest` on two processes).
            let mut q = sqlx::QueryBuilder::new(MOVE_BATCH[0]);
            q.push_values(&moves, |mut b, (_, id, m)| {
                b.push_bind(*id).push_bind(m.ply).push_bind(&m.uci).push_bind(&m.event).push_bind(m.created_at);
            });
            q.push(MOVE_BATCH[1]);
            q.push_bind(process_tag());
            q.push(MOVE_BATCH[2]);
            let rows = q.build().fetch_all(&mut **$t).await?;
            let mut inserted = std::collections::HashSet::with_capacity(rows.len());
            for r in &rows {
                inserted.insert((r.try_get::<String, _>("game_id")?, r.try_get::<i64, _>("ply")?));
            }
            // Two writes of one ply (a race): the first counts as stored, the other not; a
            // write whose predecessor is missing is not stored either.
            for (i, id, m) in &moves {
                changed[*i] = inserted.remove(&((*id).clone(), m.ply));
            }
            // The heartbeat is never older than a stored move: a crash's pause (`Store::resume`)
            // then starts after every move, and no move's time is given back.
            let latest = moves.iter().map(|(_, _, m)| m.created_at).max().unwrap_or_default();
            sqlx::query(ALIVE_AT_LEAST).bind(latest).execute(&mut **$t).await?;
        }
        if !notes.is_empty() {
            let mut q = sqlx::QueryBuilder::new(format!("SELECT pg_notify('{CHANNEL}', p) FROM ("));
            q.push_values(&notes, |mut b, payload| {
                b.push_bind(*payload);
            });
            q.push(") AS t (p)");
            q.build().execute(&mut **$t).await?;
        }
        changed
    }};
}

/// The result a write's caller sees.
fn write_result(w: &Write, changed: bool) -> Result<bool, StoreError> {
    match w {
        Write::Move { id, m } if !changed => Err(StoreError::Duplicate { game: id.clone(), ply: m.ply }),
        Write::Predictor { id, row, .. } if !changed => Err(StoreError::Duplicate { game: id.clone(), ply: row.ply }),
        _ => Ok(changed),
    }
}

/// The explorer rows one INSERT adds (9 parameters each).
const EXPLORER_BATCH: usize = 128;

/// How an explorer row adds to the one there: the results summed, the latest game kept.
const EXPLORER_SUM: &str = " ON CONFLICT (variant, position, players, uci) DO UPDATE SET \
     white = explorer.white + excluded.white, draws = explorer.draws + excluded.draws, \
     black = explorer.black + excluded.black, \
     last_game = CASE WHEN excluded.last_at >= explorer.last_at THEN excluded.last_game ELSE explorer.last_game END, \
     last_at = CASE WHEN excluded.last_at >= explorer.last_at THEN excluded.last_at ELSE explorer.last_at END";

/// Runs the writer task for one pool: every transaction takes all the writes waiting (group
/// commit), so a burst of moves from many games costs one disk sync, not one each, and SQLite's
/// single writer is never contended. If a batch fails, its writes are retried one by one, so
/// one bad write fails alone.
macro_rules! spawn_writer {
    ($pool:expr) => {{
        let pool = $pool.clone();
        let (tx, mut rx) = tokio::sync::mpsc::channel::<WriteJob>(4096);
        tokio::spawn(async move {
            let mut jobs: Vec<WriteJob> = Vec::with_capacity(BATCH);
            while rx.recv_many(&mut jobs, BATCH).await > 0 {
                let batch: Result<Vec<bool>, sqlx::Error> = async {
                    let mut t = pool.begin().await?;
                    let changed = run_batch!(&mut t, &jobs);
                    t.commit().await?;
                    Ok(changed)
                }
                .await;
                match batch {
                    Ok(changed) => {
                        for ((w, reply), c) in jobs.drain(..).zip(changed) {
                            let _ = reply.send(write_result(&w, c));
                        }
                    }
                    Err(_) => {
                        for (w, reply) in jobs.drain(..) {
                            let r = match run_write!(&pool, &w) {
                                Ok(c) => write_result(&w, c),
                                Err(e) => Err(StoreError::Batch(e.to_string())),
                            };
                            let _ = reply.send(r);
                        }
                    }
                }
            }
        });
        tx
    }};
}

/// Implements [`Store`] for a sqlx pool type: the same SQL for SQLite and PostgreSQL.
macro_rules! sql_store {
    ($name:ident, $pool:ty, $doc:literal) => {
        #[doc = $doc]
        #[derive(Debug, Clone)]
        pub struct $name {
            pool: $pool,
            writer: tokio::sync::mpsc::Sender<WriteJob>,
        }

        impl $name {
            /// The store on `pool`, migrated, with its move writer running (needs a Tokio runtime).
            pub async fn new(pool: $pool) -> Result<Self, StoreError> {
                sqlx::migrate!("./migrations").run(&pool).await.map_err(newer_schema)?;
                let writer = spawn_writer!(pool);
                Ok(Self { pool, writer })
            }

            /// Hands a write to the writer task and waits for its result.
            async fn write(&self, w: Write) -> Result<bool, StoreError> {
                let (tx, rx) = tokio::sync::oneshot::channel();
                self.writer.send((w, tx)).await.map_err(|_| StoreError::WriterGone)?;
                rx.await.map_err(|_| StoreError::WriterGone)?
            }

            /// Hands a write about an unfinished game to the writer; [`StoreError::Stale`] if
            /// it changed nothing (the game is over or gone, or another process owns it).
            async fn write_active(&self, id: &str, w: Write) -> Result<(), StoreError> {
                match self.write(w).await? {
                    true => Ok(()),
                    false => Err(StoreError::Stale { game: id.to_string() }),
                }
            }

            /// Whether a process other than this one owns the game.
            async fn owned_elsewhere(&self, id: &str) -> Result<bool, StoreError> {
                let row = sqlx::query("SELECT COUNT(*) AS n FROM owners WHERE game_id = $1 AND server_id <> $2")
                    .bind(id)
                    .bind(process_tag())
                    .fetch_one(&self.pool)
                    .await?;
                Ok(row.try_get::<i64, _>("n")? > 0)
            }
        }

        #[async_trait]
        impl Store for $name {
            async fn create_game(&self, g: &GameRow) -> Result<(), StoreError> {
                self.write(Write::Game(Box::new(g.clone()))).await.map(|_| ())
            }

            async fn game_with_count(&self, id: &str) -> Result<Option<(GameRow, i64)>, StoreError> {
                let row = sqlx::query(&format!(
                    "SELECT {GAME_COLUMNS}, (SELECT COUNT(*) FROM moves WHERE moves.game_id = games.id) AS n \
                     FROM games WHERE id = $1"
                ))
                .bind(id)
                .fetch_optional(&self.pool)
                .await?;
                Ok(row.map(|r| Ok::<_, sqlx::Error>((game_row(&r)?, r.try_get::<i64, _>("n")?))).transpose()?)
            }

            async fn game(&self, id: &str) -> Result<Option<GameRow>, StoreError> {
                let row = sqlx::query(&format!("SELECT {GAME_COLUMNS} FROM games WHERE id = $1"))
                    .bind(id)
                    .fetch_optional(&self.pool)
                    .await?;
                Ok(row.map(|r| game_row(&r)).transpose()?)
            }

            async fn moves_from(&self, id: &str, from: i64) -> Result<Vec<MoveRow>, StoreError> {
                let rows = sqlx::query(
                    "SELECT ply, uci, event, created_at FROM moves WHERE game_id = $1 AND ply >= $2 ORDER BY ply",
                )
                .bind(id)
                .bind(from)
                .fetch_all(&self.pool)
                .await?;
                rows.iter()
                    .map(|r| {
                        Ok(MoveRow {
                            ply: r.try_get("ply")?,
                            uci: r.try_get("uci")?,
                            event: r.try_get("event")?,
                            created_at: r.try_get("created_at")?,
                        })
                    })
                    .collect::<Result<_, sqlx::Error>>()
                    .map_err(StoreError::from)
            }

            async fn append_move(&self, id: &str, m: &MoveRow) -> Result<(), StoreError> {
                self.write(Write::Move { id: id.to_string(), m: m.clone() }).await.map(|_| ())
            }

            async fn finish(&self, id: &str, result: &str, reason: &str, now: i64) -> Result<(), StoreError> {
                let w = Write::Finish { id: id.into(), result: result.into(), reason: reason.into(), now };
                self.write_active(id, w).await
            }

            async fn join(
                &self,
                id: &str,
                white: bool,
                invite: &str,
                token: &str,
                now: i64,
            ) -> Result<bool, StoreError> {
                let w = Write::Join { id: id.into(), white, invite: invite.into(), token: token.into(), now };
                self.write(w).await
            }

            async fn add_predictor(&self, id: &str, kind: PredictorKind, row: &PredictorRow) -> Result<(), StoreError> {
                match self.write(Write::Predictor { id: id.into(), kind, row: row.clone() }).await {
                    // Nothing inserted: a taken key, or a game another process owns.
                    Err(StoreError::Duplicate { .. }) if self.owned_elsewhere(id).await? => {
                        Err(StoreError::Stale { game: id.to_string() })
                    }
                    r => r.map(|_| ()),
                }
            }

            async fn predictor_rows(&self, id: &str, kind: PredictorKind) -> Result<Vec<PredictorRow>, StoreError> {
                let rows = sqlx::query(predictor_select(kind)).bind(id).fetch_all(&self.pool).await?;
                rows.iter()
                    .map(|r| {
                        Ok(PredictorRow {
                            ply: r.try_get::<i64, _>("ply")?,
                            side: r.try_get("side")?,
                            member: r.try_get("member")?,
                            rank: r.try_get::<i64, _>("rank")?,
                            text: r.try_get("text")?,
                            created_at: r.try_get("created_at")?,
                        })
                    })
                    .collect::<Result<_, sqlx::Error>>()
                    .map_err(StoreError::from)
            }

            async fn recent(
                &self,
                limit: i64,
                after: Option<(i64, &str)>,
                status: Option<&str>,
            ) -> Result<Vec<GameRow>, StoreError> {
                // Without a cursor, one after every game (a creation time beyond any).
                let (created, id) = after.unwrap_or((i64::MAX, ""));
                let rows = sqlx::query(&format!(
                    "SELECT {GAME_COLUMNS} FROM games \
                     WHERE (created_at < $1 OR (created_at = $1 AND id > $2)) AND ($3 = '' OR status = $3) \
                     ORDER BY created_at DESC, id LIMIT $4"
                ))
                .bind(created)
                .bind(id)
                .bind(status.unwrap_or(""))
                .bind(limit)
                .fetch_all(&self.pool)
                .await?;
                rows.iter().map(|r| game_row(r)).collect::<Result<_, _>>().map_err(StoreError::from)
            }

            async fn active(&self) -> Result<Vec<String>, StoreError> {
                let rows = sqlx::query("SELECT id FROM games WHERE status = 'active' ORDER BY created_at")
                    .fetch_all(&self.pool)
                    .await?;
                rows.iter().map(|r| r.try_get("id")).collect::<Result<_, _>>().map_err(StoreError::from)
            }

            async fn set_offer(&self, id: &str, offer: Offer, by: Option<&str>, now: i64) -> Result<(), StoreError> {
                self.write_active(id, Write::Offer { id: id.into(), offer, by: by.map(str::to_string), now }).await
            }

            async fn take_back(&self, id: &str, keep: i64, now: i64) -> Result<(), StoreError> {
                self.write_active(id, Write::TakeBack { id: id.into(), keep, now }).await
            }

            async fn review(&self, id: &str) -> Result<Option<String>, StoreError> {
                let row = sqlx::query("SELECT review FROM reviews WHERE game_id = $1")
                    .bind(id)
                    .fetch_optional(&self.pool)
                    .await?;
                Ok(row.map(|r| r.try_get("review")).transpose()?)
            }

            async fn offer_rematch(&self, id: &str, by: Option<&str>, seat: Option<&str>) -> Result<bool, StoreError> {
                let done = sqlx::query(
                    "UPDATE games SET rematch_offer = $1, rematch_seat = $2 \
                     WHERE id = $3 AND status = 'finished' AND rematch IS NULL",
                )
                .bind(by)
                .bind(seat)
                .bind(id)
                .execute(&self.pool)
                .await?;
                Ok(done.rows_affected() == 1)
            }

            async fn rematch_seat(&self, id: &str) -> Result<Option<String>, StoreError> {
                let seat: Option<Option<String>> = sqlx::query_scalar("SELECT rematch_seat FROM games WHERE id = $1")
                    .bind(id)
                    .fetch_optional(&self.pool)
                    .await?;
                Ok(seat.flatten())
            }

            async fn make_rematch(&self, id: &str, by: Option<&str>, game: &str) -> Result<bool, StoreError> {
                let done = sqlx::query(
                    "UPDATE games SET rematch = $1, rematch_offer = NULL, rematch_seat = NULL \
                     WHERE id = $2 AND status = 'finished' \
                     AND rematch IS NULL AND ($3 = '' OR rematch_offer = $3)",
                )
                .bind(game)
                .bind(id)
                .bind(by.unwrap_or(""))
                .execute(&self.pool)
                .await?;
                Ok(done.rows_affected() == 1)
            }

            async fn save_review(&self, id: &str, nodes: i64, review: &str, now: i64) -> Result<(), StoreError> {
                sqlx::query(
                    "INSERT INTO reviews (game_id, nodes, review, created_at) VALUES ($1, $2, $3, $4) \
                     ON CONFLICT (game_id) DO NOTHING",
                )
                .bind(id)
                .bind(nodes)
                .bind(review)
                .bind(now)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn add_chat(&self, id: &str, side: &str, text: &str, now: i64, limit: i64) -> Result<Option<i64>, StoreError> {
                // One statement numbers the message and keeps the limit.
                let row = sqlx::query(
                    "INSERT INTO chat (game_id, seq, side, text, created_at) \
                     SELECT $1, COALESCE(MAX(seq), 0) + 1, $2, $3, $4 FROM chat WHERE game_id = $1 \
                     HAVING COALESCE(MAX(seq), 0) < $5 RETURNING seq",
                )
                .bind(id)
                .bind(side)
                .bind(text)
                .bind(now)
                .bind(limit)
                .fetch_optional(&self.pool)
                .await?;
                Ok(row.map(|r| r.try_get("seq")).transpose()?)
            }

            async fn delete_game(&self, id: &str) -> Result<Deletion, StoreError> {
                let mut t = self.pool.begin().await?;
                // The row locked first (an indexer counting the game finishes before this reads
                // whether it was counted).
                let row = sqlx::query(
                    "UPDATE games SET updated_at = updated_at WHERE id = $1 RETURNING status, explored, variant, result",
                )
                .bind(id)
                .fetch_optional(&mut *t)
                .await?;
                let Some(row) = row else { return Ok(Deletion::NoGame) };
                let (status, explored, variant): (String, i64, String) =
                    (row.try_get("status")?, row.try_get("explored")?, row.try_get("variant")?);
                let result: Option<String> = row.try_get("result")?;
                if status == "active" {
                    return Ok(Deletion::Active);
                }
                for table in [
                    "moves",
                    "predictor_members",
                    "predictor_commits",
                    "predictor_reveals",
                    "predictor_secrets",
                    "owners",
                    "reviews",
                    "chat",
                ] {
                    sqlx::query(&format!("DELETE FROM {table} WHERE game_id = $1")).bind(id).execute(&mut *t).await?;
                }
                sqlx::query("UPDATE games SET rematch = NULL WHERE rematch = $1").bind(id).execute(&mut *t).await?;
                sqlx::query("DELETE FROM games WHERE id = $1").bind(id).execute(&mut *t).await?;
                // The indexer marks an aborted game (no result) as seen, but counts nothing of it.
                let recount = explored != 0 && result.as_deref().is_some_and(|r| r != "*");
                if recount {
                    // The games marked first: a count in flight finishes before, and its rows
                    // go with the others; one that starts after adds its rows after.
                    sqlx::query("UPDATE games SET explored = 0 WHERE variant = $1 AND explored <> 0")
                        .bind(&variant)
                        .execute(&mut *t)
                        .await?;
                    sqlx::query("DELETE FROM explorer WHERE variant = $1").bind(&variant).execute(&mut *t).await?;
                }
                t.commit().await?;
                Ok(Deletion::Deleted { recount })
            }

            async fn chat(&self, id: &str, after: i64) -> Result<Vec<ChatRow>, StoreError> {
                let rows = sqlx::query(
                    "SELECT seq, side, text, created_at FROM chat WHERE game_id = $1 AND seq > $2 ORDER BY seq",
                )
                .bind(id)
                .bind(after)
                .fetch_all(&self.pool)
                .await?;
                rows.iter()
                    .map(|r| {
                        Ok(ChatRow {
                            seq: r.try_get("seq")?,
                            side: r.try_get("side")?,
                            text: r.try_get("text")?,
                            created_at: r.try_get("created_at")?,
                        })
                    })
                    .collect::<Result<_, sqlx::Error>>()
                    .map_err(StoreError::from)
            }

            async fn unexplored(&self, limit: i64) -> Result<Vec<String>, StoreError> {
                let rows = sqlx::query(
                    "SELECT id FROM games WHERE explored = 0 AND status = 'finished' ORDER BY updated_at, id LIMIT $1",
                )
                .bind(limit)
                .fetch_all(&self.pool)
                .await?;
                rows.iter().map(|r| r.try_get("id")).collect::<Result<_, _>>().map_err(StoreError::from)
            }

            async fn explore(&self, id: &str, variant: &str, rows: &[ExplorerRow]) -> Result<bool, StoreError> {
                let mut t = self.pool.begin().await?;
                // The mark first: of two processes counting the game, one marks it, and the
                // other's transaction changes nothing.
                let marked = sqlx::query("UPDATE games SET explored = 1 WHERE id = $1 AND explored = 0 AND status = 'finished'")
                    .bind(id)
                    .execute(&mut *t)
                    .await?;
                if marked.rows_affected() != 1 {
                    return Ok(false);
                }
                for chunk in rows.chunks(EXPLORER_BATCH) {
                    let mut q = sqlx::QueryBuilder::new(
                        "INSERT INTO explorer (variant, position, players, uci, white, draws, black, last_game, last_at) ",
                    );
                    q.push_values(chunk, |mut b, r| {
                        b.push_bind(variant)
                            .push_bind(&r.position)
                            .push_bind(&r.players)
                            .push_bind(&r.uci)
                            .push_bind(r.white)
                            .push_bind(r.draws)
                            .push_bind(r.black)
                            .push_bind(&r.last_game)
                            .push_bind(r.last_at);
                    });
                    q.push(EXPLORER_SUM);
                    q.build().execute(&mut *t).await?;
                }
                t.commit().await?;
                Ok(true)
            }

            async fn explorer(&self, variant: &str, position: &str) -> Result<Vec<ExplorerRow>, StoreError> {
                let rows = sqlx::query(
                    "SELECT position, players, uci, white, draws, black, last_game, last_at FROM explorer \
                     WHERE variant = $1 AND position = $2",
                )
                .bind(variant)
                .bind(position)
                .fetch_all(&self.pool)
                .await?;
                rows.iter()
                    .map(|r| {
                        Ok(ExplorerRow {
                            position: r.try_get("position")?,
                            players: r.try_get("players")?,
                            uci: r.try_get("uci")?,
                            white: r.try_get("white")?,
                            draws: r.try_get("draws")?,
                            black: r.try_get("black")?,
                            last_game: r.try_get("last_game")?,
                            last_at: r.try_get("last_at")?,
                        })
                    })
                    .collect::<Result<_, sqlx::Error>>()
                    .map_err(StoreError::from)
            }

            async fn heartbeat(&self, server: &str, url: &str, now: i64) -> Result<(), StoreError> {
                sqlx::query(
                    "INSERT INTO servers (id, url, heartbeat_at) VALUES ($1, $2, $3) \
                     ON CONFLICT (id) DO UPDATE SET url = excluded.url, heartbeat_at = excluded.heartbeat_at",
                )
                .bind(server)
                .bind(url)
                .bind(now)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn claim(
                &self,
                game: &str,
                server: &str,
                now: i64,
                alive_after: i64,
            ) -> Result<Option<(String, String)>, StoreError> {
                // One statement, so two processes claiming at once cannot both win.
                sqlx::query(
                    "INSERT INTO owners (game_id, server_id, since) \
                     SELECT id, $2, $3 FROM games WHERE id = $1 \
                     ON CONFLICT (game_id) DO UPDATE SET server_id = excluded.server_id, since = excluded.since \
                     WHERE owners.server_id <> excluded.server_id AND NOT EXISTS \
                     (SELECT 1 FROM servers WHERE servers.id = owners.server_id AND servers.heartbeat_at > $4)",
                )
                .bind(game)
                .bind(server)
                .bind(now)
                .bind(alive_after)
                .execute(&self.pool)
                .await?;
                let row = sqlx::query(
                    "SELECT owners.server_id, servers.url FROM owners \
                     LEFT JOIN servers ON servers.id = owners.server_id WHERE owners.game_id = $1",
                )
                .bind(game)
                .fetch_optional(&self.pool)
                .await?;
                Ok(row
                    .map(|r| {
                        Ok::<_, sqlx::Error>((
                            r.try_get("server_id")?,
                            r.try_get::<Option<String>, _>("url")?.unwrap_or_default(),
                        ))
                    })
                    .transpose()?)
            }

            async fn orphans(&self, alive_after: i64, limit: i64) -> Result<Vec<String>, StoreError> {
                let rows = sqlx::query(
                    "SELECT games.id FROM games LEFT JOIN owners ON owners.game_id = games.id \
                     LEFT JOIN servers ON servers.id = owners.server_id AND servers.heartbeat_at > $1 \
                     WHERE games.status = 'active' AND servers.id IS NULL \
                     AND (games.white_player <> 'human' OR games.black_player <> 'human' \
                          OR games.variant = 'predictor' OR games.options LIKE '%\"clock\"%') \
                     ORDER BY games.created_at LIMIT $2",
                )
                .bind(alive_after)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?;
                rows.iter().map(|r| r.try_get("id")).collect::<Result<_, _>>().map_err(StoreError::from)
            }

            async fn expire(&self, server: &str) -> Result<(), StoreError> {
                sqlx::query("UPDATE servers SET heartbeat_at = 0 WHERE id = $1").bind(server).execute(&self.pool).await?;
                Ok(())
            }

            async fn record_stop(&self, at: i64) -> Result<(), StoreError> {
                sqlx::query("INSERT INTO pauses (stopped_at, resumed_at) VALUES ($1, NULL)").bind(at).execute(&self.pool).await?;
                Ok(())
            }

            async fn resume(&self, now: i64) -> Result<Vec<(i64, i64)>, StoreError> {
                let closed = sqlx::query("UPDATE pauses SET resumed_at = $1 WHERE resumed_at IS NULL AND stopped_at <= $1")
                    .bind(now)
                    .execute(&self.pool)
                    .await?
                    .rows_affected();
                if closed == 0 {
                    // No clean stop: a crash (or a first start). Its downtime, from the last
                    // heartbeat on, is a pause too.
                    let last = sqlx::query("SELECT at FROM alive WHERE id = 1").fetch_optional(&self.pool).await?;
                    if let Some(at) = last.map(|r| r.try_get::<i64, _>("at")).transpose()?.filter(|&at| at < now) {
                        sqlx::query("INSERT INTO pauses (stopped_at, resumed_at) VALUES ($1, $2)")
                            .bind(at)
                            .bind(now)
                            .execute(&self.pool)
                            .await?;
                    }
                }
                self.alive(now).await?;
                let rows = sqlx::query("SELECT stopped_at, resumed_at FROM pauses WHERE resumed_at IS NOT NULL ORDER BY stopped_at")
                    .fetch_all(&self.pool)
                    .await?;
                rows.iter().map(|r| Ok((r.try_get::<i64, _>("stopped_at")?, r.try_get::<i64, _>("resumed_at")?))).collect()
            }

            async fn alive(&self, at: i64) -> Result<(), StoreError> {
                sqlx::query(ALIVE_AT_LEAST).bind(at).execute(&self.pool).await?;
                Ok(())
            }

            async fn release(&self, server: &str) -> Result<(), StoreError> {
                sqlx::query("DELETE FROM owners WHERE server_id = $1").bind(server).execute(&self.pool).await?;
                sqlx::query("DELETE FROM servers WHERE id = $1").bind(server).execute(&self.pool).await?;
                Ok(())
            }

            fn shared(&self) -> bool {
                self.is_shared()
            }

            async fn close(&self) {
                self.checkpoint().await;
                self.pool.close().await;
            }

            async fn notify(&self, game: &str, event: &str) -> Result<(), StoreError> {
                self.notify_others(game, event).await
            }

            async fn listen(&self) -> Result<Option<tokio::sync::mpsc::Receiver<(String, String)>>, StoreError> {
                self.listen_others().await
            }
        }
    };
}

sql_store!(SqliteStore, sqlx::SqlitePool, "Games in a SQLite file (the embedded default).");
sql_store!(PgStore, sqlx::PgPool, "Games in PostgreSQL (shared by several server processes).");

/// What only one of the two databases does: SQLite serves one process, so nothing is relayed.
impl SqliteStore {
    fn is_shared(&self) -> bool {
        false
    }

    /// Folds the write-ahead log into the database file and empties it.
    async fn checkpoint(&self) {
        if let Err(e) = sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)").execute(&self.pool).await {
            tracing::warn!("the write-ahead log was not folded into the database file: {e}");
        }
    }

    /// Checks, before the server opens, that the file is sound (`PRAGMA quick_check`) and
    /// writable, rather than failing the first request that writes.
    async fn check(pool: &sqlx::SqlitePool) -> Result<(), String> {
        let rows: Vec<(String,)> =
            sqlx::query_as("PRAGMA quick_check").fetch_all(pool).await.map_err(|e| e.to_string())?;
        if rows.len() != 1 || rows[0].0 != "ok" {
            let found: Vec<&str> = rows.iter().take(3).map(|r| r.0.as_str()).collect();
            return Err(format!("the database file is damaged ({}): restore it from a backup", found.join("; ")));
        }
        let mut tx = pool.begin().await.map_err(|e| e.to_string())?;
        sqlx::query("CREATE TABLE fairylab_write_check (x INTEGER)")
            .execute(&mut *tx)
            .await
            .map_err(|e| format!("the database cannot be written: {e}"))?;
        tx.rollback().await.map_err(|e| e.to_string())
    }

    async fn notify_others(&self, _game: &str, _event: &str) -> Result<(), StoreError> {
        Ok(())
    }

    async fn listen_others(&self) -> Result<Option<tokio::sync::mpsc::Receiver<(String, String)>>, StoreError> {
        Ok(None)
    }
}

/// PostgreSQL relays events between processes with NOTIFY and LISTEN on [`CHANNEL`].
impl PgStore {
    fn is_shared(&self) -> bool {
        true
    }

    /// PostgreSQL keeps its own log.
    async fn checkpoint(&self) {}

    async fn notify_others(&self, game: &str, event: &str) -> Result<(), StoreError> {
        let payload = serde_json::json!({ "from": process_tag(), "game": game, "event": event }).to_string();
        self.write(Write::Notify { payload }).await.map(|_| ())
    }

    async fn listen_others(&self) -> Result<Option<tokio::sync::mpsc::Receiver<(String, String)>>, StoreError> {
        let mut listener = sqlx::postgres::PgListener::connect_with(&self.pool).await?;
        listener.listen(CHANNEL).await?;
        let (tx, rx) = tokio::sync::mpsc::channel(1024);
        tokio::spawn(async move {
            loop {
                match listener.recv().await {
                    Ok(n) => {
                        let Ok(v) = serde_json::from_str::<serde_json::Value>(n.payload()) else { continue };
                        if v["from"] == process_tag() {
                            continue;
                        }
                        let (Some(game), Some(event)) = (v["game"].as_str(), v["event"].as_str()) else { continue };
                        if tx.send((game.to_string(), event.to_string())).await.is_err() {
                            return;
                        }
                    }
                    // The store was closed (the process stops): nothing to relay any more.
                    Err(sqlx::Error::PoolClosed) => return,
                    // PgListener reconnects by itself; a failure is logged and retried.
                    Err(e) => {
                        tracing::warn!("LISTEN {CHANNEL}: {e}");
                        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
                    }
                }
            }
        });
        Ok(Some(rx))
    }
}

/// A migration error, said plainly where the database was written by a newer fairylab (it
/// holds a migration this binary does not know).
fn newer_schema(e: sqlx::migrate::MigrateError) -> StoreError {
    match e {
        sqlx::migrate::MigrateError::VersionMissing(v) => {
            let known = sqlx::migrate!("./migrations").iter().map(|m| m.version).max().unwrap_or(0);
            StoreError::Open {
                url: "(the database)".into(),
                reason: format!(
                    "it was written by a newer fairylab (schema {v}; this one knows up to {known}): run that version, \
                     or restore a backup made for this one"
                ),
            }
        }
        e => StoreError::Migrate(e),
    }
}

/// A database URL as it may be shown (logs, messages): without its password.
pub fn shown_url(url: &str) -> String {
    match url.split_once("://").and_then(|(scheme, rest)| Some((scheme, rest.rsplit_once('@')?))) {
        Some((scheme, (user, host))) => {
            format!("{scheme}://{}@{host}", user.split_once(':').map_or(user, |(name, _)| name))
        }
        None => url.to_string(),
    }
}

/// An error opening the store at `url`, naming the database by it (without its password).
fn named(url: &str) -> impl FnOnce(StoreError) -> StoreError + '_ {
    move |e| match e {
        StoreError::Open { reason, .. } => StoreError::Open { url: shown_url(url), reason },
        e => e,
    }
}

/// The error of a database `url` that does not open, naming it without its password.
fn open_error(url: &str) -> impl FnOnce(sqlx::Error) -> StoreError + '_ {
    move |e| StoreError::Open { url: shown_url(url), reason: e.to_string() }
}

/// Opens the store a URL names: `sqlite://PATH` (the file is created when missing) or
/// `postgres://...`; migrations run on open.
pub async fn open(url: &str) -> Result<std::sync::Arc<dyn Store>, StoreError> {
    if url.starts_with("sqlite:") {
        // No file: each pooled connection would have a database of its own.
        if url.trim_start_matches("sqlite:").trim_start_matches("//").split('?').next().is_some_and(str::is_empty) {
            return Err(StoreError::NoFile(url.to_string()));
        }
        use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
        use std::str::FromStr;
        let options = SqliteConnectOptions::from_str(url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .busy_timeout(std::time::Duration::from_secs(5))
            .foreign_keys(true);
        let pool = SqlitePoolOptions::new().max_connections(4).connect_with(options).await.map_err(open_error(url))?;
        SqliteStore::check(&pool).await.map_err(|reason| StoreError::Open { url: shown_url(url), reason })?;
        Ok(std::sync::Arc::new(SqliteStore::new(pool).await.map_err(named(url))?))
    } else if url.starts_with("postgres:") || url.starts_with("postgresql:") {
        let pool = sqlx::postgres::PgPoolOptions::new()
            .max_connections(8)
            .acquire_timeout(std::time::Duration::from_secs(5))
            .connect(url)
            .await
            .map_err(open_error(url))?;
        Ok(std::sync::Arc::new(PgStore::new(pool).await.map_err(named(url))?))
    } else {
        Err(StoreError::Url(url.to_string()))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn game(id: &str) -> GameRow {
        GameRow {
            id: id.to_string(),
            variant: "chess".to_string(),
            options: "{}".to_string(),
            start_fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".to_string(),
            white_player: "human".to_string(),
            black_player: "human".to_string(),
            white_token: None,
            black_token: None,
            white_invite: None,
            black_invite: None,
            seed: "00".to_string(),
            seed_hash: "00".to_string(),
            movetime_ms: 100,
            status: "active".to_string(),
            result: None,
            reason: None,
            created_at: 0,
            updated_at: 0,
            draw_offer: None,
            takeback_offer: None,
            takebacks: 0,
            rematch_offer: None,
            rematch: None,
        }
    }

    fn mv(ply: i64, uci: &str) -> MoveRow {
        MoveRow { ply, uci: uci.to_string(), event: String::new(), created_at: ply }
    }

    /// The stores to test: a fresh SQLite file, and a fresh PostgreSQL database when
    /// `FAIRYLAB_TEST_POSTGRES_URL` names a server whose user may create databases.
    async fn stores(tag: &str) -> Vec<std::sync::Arc<dyn Store>> {
        use sqlx::Connection;
        let file = std::env::temp_dir().join(format!("fairylab-store-{tag}-{}.sqlite3", std::process::id()));
        let _ = std::fs::remove_file(&file);
        let mut urls = vec![format!("sqlite://{}", file.display())];
        if let Some(base) = std::env::var("FAIRYLAB_TEST_POSTGRES_URL").ok().filter(|u| !u.is_empty()) {
            let name = format!("fairylab_store_{tag}_{}", std::process::id());
            let mut c = sqlx::PgConnection::connect(&base).await.expect("PostgreSQL answers");
            for sql in [format!("DROP DATABASE IF EXISTS {name}"), format!("CREATE DATABASE {name}")] {
                sqlx::query(&sql).execute(&mut c).await.expect("a fresh database");
            }
            let (server, _) = base.rsplit_once('/').expect("a URL with a database name");
            urls.push(format!("{server}/{name}"));
        }
        let mut stores = Vec::new();
        for url in urls {
            stores.push(open(&url).await.expect("the store opens"));
        }
        stores
    }

    /// A password never shows (logs, the startup line, errors).
    #[test]
    fn urls_are_shown_without_their_password() {
        assert_eq!(shown_url("postgres://club:s3cr@t@db.example/games"), "postgres://club@db.example/games");
        assert_eq!(shown_url("postgres://club@db.example/games"), "postgres://club@db.example/games");
        assert_eq!(shown_url("sqlite://fairylab.sqlite3"), "sqlite://fairylab.sqlite3");
    }

    /// A database written by a newer fairylab (a migration this one does not know) is refused
    /// in words; closing a SQLite store folds its write-ahead log into the file.
    #[tokio::test]
    async fn a_newer_schema_is_named_and_a_closed_store_leaves_no_log() {
        let dir = std::env::temp_dir().join(format!("fairylab-store-newer-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let file = dir.join("games.sqlite3");
        let _ = std::fs::remove_file(&file);
        let url = format!("sqlite://{}", file.display());
        let store = open(&url).await.expect("a new store");
        store.create_game(&game("g1")).await.expect("stored");
        store.close().await;
        let wal = dir.join("games.sqlite3-wal");
        assert!(std::fs::metadata(&wal).map_or(true, |m| m.len() == 0), "the log is folded in");
        let pool = sqlx::SqlitePool::connect(&url).await.expect("the file");
        sqlx::query(
            "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) \
             VALUES (999, 'future', TRUE, x'00', 0)",
        )
        .execute(&pool)
        .await
        .expect("a future migration");
        pool.close().await;
        let e = open(&url).await.err().expect("refused").to_string();
        assert!(e.contains("written by a newer fairylab (schema 999"), "{e}");
        assert!(e.starts_with(&format!("cannot open the database {url}: it was written")), "{e}");
    }

    /// After a takeback, a move written from a copy that still has the moves taken back (a
    /// process that lost the game and has not noticed) is refused, not stored past a gap.
    #[tokio::test]
    async fn a_move_is_stored_only_after_its_predecessor() {
        for store in stores("gap").await {
            store.create_game(&game("g1")).await.expect("the game is stored");
            for (ply, uci) in [(0, "e2e4"), (1, "e7e5"), (2, "g1f3")] {
                store.append_move("g1", &mv(ply, uci)).await.expect("the next ply is stored");
            }
            assert!(matches!(store.append_move("g1", &mv(2, "d2d4")).await, Err(StoreError::Duplicate { ply: 2, .. })));
            store.take_back("g1", 1, 10).await.expect("the takeback is stored");
            // The stale process's next move (ply 3) would leave ply 1 and 2 missing.
            assert!(matches!(store.append_move("g1", &mv(3, "b8c6")).await, Err(StoreError::Duplicate { ply: 3, .. })));
            assert!(matches!(store.append_move("g1", &mv(2, "b1c3")).await, Err(StoreError::Duplicate { ply: 2, .. })));
            store.append_move("g1", &mv(1, "c7c5")).await.expect("the ply after the kept moves is stored");
            let plies: Vec<(i64, String)> =
                store.moves("g1").await.expect("the moves read").into_iter().map(|m| (m.ply, m.uci)).collect();
            assert_eq!(plies, vec![(0, "e2e4".to_string()), (1, "c7c5".to_string())]);
            // Ply 0 of a game with no moves needs no predecessor; ply 1 does.
            store.create_game(&game("g2")).await.expect("the game is stored");
            assert!(matches!(store.append_move("g2", &mv(1, "e7e5")).await, Err(StoreError::Duplicate { ply: 1, .. })));
            store.append_move("g2", &mv(0, "d2d4")).await.expect("the first ply is stored");
            // A game another process owns takes no move from this one, until this one owns it.
            store.create_game(&game("g3")).await.expect("the game is stored");
            let owner = store.claim("g3", "another-process", 1, 0).await.expect("claimed");
            assert_eq!(owner.map(|o| o.0).as_deref(), Some("another-process"));
            assert!(matches!(store.append_move("g3", &mv(0, "e2e4")).await, Err(StoreError::Duplicate { ply: 0, .. })));
            // The other process has no heartbeat: this one takes the game over.
            let owner = store.claim("g3", process_tag(), 2, 1).await.expect("claimed");
            assert_eq!(owner.map(|o| o.0).as_deref(), Some(process_tag()));
            store.append_move("g3", &mv(0, "e2e4")).await.expect("the owner's move is stored");
        }
    }

    /// A process that has lost a game (another process owns it now) cannot end it, make or
    /// clear offers, take moves back or add Predictor rows; nor can anyone end a game twice.
    #[tokio::test]
    async fn a_game_changes_only_by_its_owner_and_only_while_it_is_on() {
        for store in stores("fence").await {
            let stale = |r: Result<(), StoreError>| matches!(r, Err(StoreError::Stale { .. }));
            store.create_game(&game("g1")).await.expect("the game is stored");
            store.append_move("g1", &mv(0, "e2e4")).await.expect("stored");
            // Unowned (a store nobody shares): anyone's writes count.
            store.set_offer("g1", Offer::Draw, Some("white"), 1).await.expect("the offer is stored");
            assert_eq!(store.game("g1").await.expect("read").expect("there").draw_offer.as_deref(), Some("white"));
            // Another process owns the game: none of this process's writes lands.
            store.claim("g1", "another-process", 2, 0).await.expect("claimed");
            assert!(stale(store.set_offer("g1", Offer::Draw, None, 3).await));
            assert!(stale(store.set_offer("g1", Offer::Takeback, Some("black"), 3).await));
            assert!(stale(store.take_back("g1", 0, 3).await));
            assert!(stale(store.finish("g1", "0-1", "resignation", 3).await));
            let row = PredictorRow {
                ply: 0,
                side: "white".into(),
                member: "bo".into(),
                rank: 2,
                text: "x".into(),
                created_at: 3,
            };
            for kind in [PredictorKind::Member, PredictorKind::Commit, PredictorKind::Reveal, PredictorKind::Secret] {
                assert!(stale(store.add_predictor("g1", kind, &row).await), "{kind:?}");
                assert!(store.predictor_rows("g1", kind).await.expect("read").is_empty(), "{kind:?}");
            }
            let g = store.game("g1").await.expect("read").expect("there");
            assert_eq!(
                (g.status.as_str(), g.draw_offer.as_deref(), g.takeback_offer, g.takebacks),
                ("active", Some("white"), None, 0)
            );
            assert_eq!(store.moves("g1").await.expect("read").len(), 1, "no move was taken back");
            // The other process has gone quiet: this one takes the game over and may write.
            store.claim("g1", process_tag(), 4, 3).await.expect("claimed");
            for kind in [PredictorKind::Member, PredictorKind::Commit, PredictorKind::Reveal, PredictorKind::Secret] {
                store.add_predictor("g1", kind, &row).await.expect("the owner's row is stored");
                // The same key again is a duplicate, not a stale write.
                let again = store.add_predictor("g1", kind, &row).await;
                assert!(matches!(again, Err(StoreError::Duplicate { .. })), "{kind:?}: {again:?}");
            }
            store.set_offer("g1", Offer::Takeback, Some("white"), 5).await.expect("the owner's offer is stored");
            store.take_back("g1", 0, 6).await.expect("the owner's takeback is stored");
            assert!(store.moves("g1").await.expect("read").is_empty());
            store.finish("g1", "1-0", "resignation", 7).await.expect("the owner ends the game");
            // A game over stays as it ended, and its open seat can no longer be taken.
            assert!(stale(store.finish("g1", "0-1", "time", 8).await));
            let mut open = game("g2");
            open.black_invite = Some(OPEN_SEAT.to_string());
            store.create_game(&open).await.expect("the game is stored");
            store.finish("g2", "*", "aborted", 8).await.expect("the game ends");
            assert!(!store.join("g2", false, OPEN_SEAT, "t", 9).await.expect("the join runs"));
            assert_eq!(store.game("g2").await.expect("read").expect("there").black_token, None);
            assert!(stale(store.set_offer("g1", Offer::Draw, Some("black"), 8).await));
            assert!(stale(store.take_back("g1", 0, 8).await));
            let g = store.game("g1").await.expect("read").expect("there");
            assert_eq!(
                (g.result.as_deref(), g.reason.as_deref(), g.draw_offer),
                (Some("1-0"), Some("resignation"), None)
            );
        }
    }

    /// On PostgreSQL the batched insert's predecessor check probes the primary key once a row,
    /// whatever the table's statistics say. The `EXISTS` under `OR` of an earlier version was
    /// planned as a hashed subplan reading the whole moves table when the statistics were those
    /// of a young, small table, a plan that stayed while the table grew (p50 latency 2.5 -> 14
    /// ms under `fairylab loadtest`); a young table of 2,000 moves shows that plan. Skipped
    /// without `FAIRYLAB_TEST_POSTGRES_URL`.
    #[tokio::test]
    async fn the_batched_move_insert_probes_the_index() {
        use sqlx::Connection;
        let Some(base) = std::env::var("FAIRYLAB_TEST_POSTGRES_URL").ok().filter(|u| !u.is_empty()) else {
            eprintln!("FAIRYLAB_TEST_POSTGRES_URL is not set: the plan test needs PostgreSQL");
            return;
        };
        let name = format!("fairylab_store_plan_{}", std::process::id());
        let mut c = sqlx::PgConnection::connect(&base).await.expect("PostgreSQL answers");
        for sql in [format!("DROP DATABASE IF EXISTS {name}"), format!("CREATE DATABASE {name}")] {
            sqlx::query(&sql).execute(&mut c).await.expect("a fresh database");
        }
        let (server, _) = base.rsplit_once('/').expect("a URL with a database name");
        let url = format!("{server}/{name}");
        drop(open(&url).await.expect("the store opens and migrates"));
        let pool = sqlx::PgPool::connect(&url).await.expect("connected");
        // 50 games of 40 plies each, not analysed: a young deployment's table.
        sqlx::query(
            "INSERT INTO games (id, variant, options, start_fen, white_player, black_player, seed, seed_hash, \
             movetime_ms, status, created_at, updated_at, takebacks) \
             SELECT 'g' || i, 'chess', '{}', 'fen', 'human', 'human', '00', '00', 100, 'active', 0, 0, 0 \
             FROM generate_series(1, 256) i",
        )
        .execute(&pool)
        .await
        .expect("games");
        sqlx::query(
            "INSERT INTO moves (game_id, ply, uci, event, created_at) \
             SELECT 'g' || i, p, 'e2e4', '', 0 FROM generate_series(1, 50) i, generate_series(0, 39) p",
        )
        .execute(&pool)
        .await
        .expect("moves");
        // A batch as large as the writer takes: the next ply of 256 games.
        let rows: Vec<(String, i64)> = (1..=BATCH as i64).map(|i| (format!("g{i}"), 40)).collect();
        let mut q = sqlx::QueryBuilder::new(format!("EXPLAIN {}", MOVE_BATCH[0]));
        q.push_values(&rows, |mut b, (id, ply)| {
            b.push_bind(id).push_bind(*ply).push_bind("e7e5").push_bind("").push_bind(0i64);
        });
        q.push(MOVE_BATCH[1]);
        q.push_bind(process_tag());
        q.push(MOVE_BATCH[2]);
        let plan: Vec<String> = q
            .build()
            .fetch_all(&pool)
            .await
            .expect("explained")
            .iter()
            .map(|r| r.try_get::<String, _>(0).expect("a plan line"))
            .collect();
        let text = plan.join("\n");
        assert!(
            !text.contains("Seq Scan on moves") && !text.contains("hashed SubPlan"),
            "the batch reads the whole moves table:\n{text}"
        );
        assert!(text.contains("Index") && text.contains("moves_pkey"), "no probe of the moves index:\n{text}");
        pool.close().await;
        drop(c);
    }

    /// The write made one by one, when a batch fails, keeps the same rule.
    #[tokio::test]
    async fn a_move_written_alone_is_stored_only_after_its_predecessor() {
        let file = std::env::temp_dir().join(format!("fairylab-store-alone-{}.sqlite3", std::process::id()));
        let _ = std::fs::remove_file(&file);
        let store = open(&format!("sqlite://{}", file.display())).await.expect("the store opens");
        store.create_game(&game("g1")).await.expect("the game is stored");
        let pool = sqlx::SqlitePool::connect(&format!("sqlite://{}", file.display())).await.expect("the file opens");
        let stored = |ply, uci| {
            let (pool, w) = (pool.clone(), Write::Move { id: "g1".to_string(), m: mv(ply, uci) });
            async move { run_write!(&pool, &w).expect("the write runs") }
        };
        assert!(!stored(1, "e7e5").await, "ply 1 without ply 0");
        assert!(stored(0, "e2e4").await);
        assert!(!stored(0, "d2d4").await, "ply 0 twice");
        assert!(!stored(2, "g1f3").await, "ply 2 without ply 1");
        assert!(stored(1, "e7e5").await);
        store.claim("g1", "another-process", 1, 0).await.expect("claimed");
        assert!(!stored(2, "g1f3").await, "a game another process owns");
        store.claim("g1", process_tag(), 2, 1).await.expect("claimed");
        assert!(stored(2, "g1f3").await);
    }

    fn explorer_row(position: &str, uci: &str, result: (i64, i64, i64), game: &str, at: i64) -> ExplorerRow {
        let (white, draws, black) = result;
        ExplorerRow {
            position: position.into(),
            players: "people".into(),
            uci: uci.into(),
            white,
            draws,
            black,
            last_game: game.into(),
            last_at: at,
        }
    }

    /// A game not being played is deleted whole: its moves, review and chat go, the game whose
    /// rematch it was forgets the link, a counted game's variant is counted again (other
    /// variants' counts stay); a game being played, or none, is not deleted.
    #[tokio::test]
    async fn a_game_is_deleted_whole_and_its_variant_counted_again() {
        for store in stores("delete").await {
            for id in ["a", "b", "p"] {
                store.create_game(&game(id)).await.expect("the game is stored");
            }
            store.create_game(&GameRow { variant: "chess960".into(), ..game("c") }).await.expect("stored");
            store.append_move("a", &mv(0, "e2e4")).await.expect("a move");
            for id in ["a", "b", "c"] {
                store.finish(id, "1-0", "resignation", 10).await.expect("finished");
            }
            assert!(store.make_rematch("a", None, "b").await.expect("the rematch link"));
            store.save_review("b", 100, "{}", 11).await.expect("a review");
            store.add_chat("b", "white", "gg", 12, 10).await.expect("chat");
            let start = "startpos";
            assert!(store.explore("b", "chess", &[explorer_row(start, "e2e4", (1, 0, 0), "b", 10)]).await.expect("b"));
            assert!(store
                .explore("c", "chess960", &[explorer_row(start, "d2d4", (1, 0, 0), "c", 10)])
                .await
                .expect("c"));
            assert_eq!(store.delete_game("p").await.expect("refused"), Deletion::Active);
            assert_eq!(store.delete_game("zz").await.expect("none"), Deletion::NoGame);
            assert_eq!(store.delete_game("b").await.expect("deleted"), Deletion::Deleted { recount: true });
            assert!(store.game("b").await.expect("read").is_none());
            assert!(
                store.review("b").await.expect("read").is_none() && store.chat("b", 0).await.expect("read").is_empty()
            );
            assert_eq!(store.game("a").await.expect("read").expect("a").rematch, None, "the link to a deleted game");
            assert!(store.explorer("chess", start).await.expect("read").is_empty(), "chess is counted again");
            assert_eq!(store.explorer("chess960", start).await.expect("read").len(), 1, "chess960's counts stay");
            assert_eq!(store.unexplored(10).await.expect("read"), vec!["a".to_string()], "a is counted again");
            assert_eq!(store.delete_game("a").await.expect("deleted"), Deletion::Deleted { recount: false });
            assert!(store.moves("a").await.expect("read").is_empty());
            // An aborted game seen by the indexer counted nothing: nothing to count again.
            store.create_game(&game("x")).await.expect("stored");
            store.finish("x", "*", "aborted", 13).await.expect("aborted");
            assert!(store.explore("x", "chess", &[]).await.expect("seen"));
            assert_eq!(store.delete_game("x").await.expect("deleted"), Deletion::Deleted { recount: false });
        }
    }

    /// A finished game is counted in the explorer once, whoever asks twice; an unfinished one
    /// not at all; counts add up and the latest game is kept. A review is kept once; chat
    /// messages are numbered per game.
    #[tokio::test]
    async fn the_explorer_counts_each_finished_game_once_and_a_review_and_the_chat_are_kept() {
        for store in stores("explorer").await {
            for id in ["g1", "g2", "g3"] {
                store.create_game(&game(id)).await.expect("the game is stored");
            }
            store.finish("g2", "1-0", "resignation", 10).await.expect("finished");
            store.finish("g1", "0-1", "resignation", 20).await.expect("finished");
            assert_eq!(store.unexplored(10).await.expect("read"), vec!["g2".to_string(), "g1".to_string()]);
            assert_eq!(store.unexplored(1).await.expect("read"), vec!["g2".to_string()]);
            let start = "startpos";
            let g2 = [
                explorer_row(start, "e2e4", (1, 0, 0), "g2", 10),
                explorer_row("after e4", "e7e5", (1, 0, 0), "g2", 10),
            ];
            assert!(store.explore("g2", "chess", &g2).await.expect("counted"));
            assert!(!store.explore("g2", "chess", &g2).await.expect("not again"), "counted twice");
            assert!(!store.explore("g3", "chess", &g2).await.expect("not counted"), "an unfinished game");
            let g1 =
                [explorer_row(start, "e2e4", (0, 0, 1), "g1", 20), explorer_row(start, "d2d4", (0, 0, 1), "g1", 20)];
            assert!(store.explore("g1", "chess", &g1).await.expect("counted"));
            assert!(store.unexplored(10).await.expect("read").is_empty());
            let mut rows = store.explorer("chess", start).await.expect("read");
            rows.sort_by(|a, b| a.uci.cmp(&b.uci));
            assert_eq!(rows, vec![g1[1].clone(), explorer_row(start, "e2e4", (1, 0, 1), "g1", 20)]);
            assert!(store.explorer("chess960", start).await.expect("read").is_empty(), "another variant's");
            // The latest game stays the latest when an earlier one is counted after it.
            store.create_game(&game("g4")).await.expect("the game is stored");
            store.finish("g4", "1/2-1/2", "agreement", 30).await.expect("finished");
            assert!(store
                .explore("g4", "chess", &[explorer_row(start, "e2e4", (0, 1, 0), "g4", 5)])
                .await
                .expect("counted"));
            let e4 = store.explorer("chess", start).await.expect("read").into_iter().find(|r| r.uci == "e2e4");
            assert_eq!(e4, Some(explorer_row(start, "e2e4", (1, 1, 1), "g1", 20)));
            // A game against the AI adds to rows of its own.
            store.create_game(&game("g5")).await.expect("the game is stored");
            store.finish("g5", "1-0", "checkmate", 50).await.expect("finished");
            let ai = ExplorerRow { players: "ai".into(), ..explorer_row(start, "e2e4", (1, 0, 0), "g5", 50) };
            assert!(store.explore("g5", "chess", std::slice::from_ref(&ai)).await.expect("counted"));
            let mut e4: Vec<ExplorerRow> =
                store.explorer("chess", start).await.expect("read").into_iter().filter(|r| r.uci == "e2e4").collect();
            e4.sort_by(|a, b| a.players.cmp(&b.players));
            assert_eq!(e4, vec![ai, explorer_row(start, "e2e4", (1, 1, 1), "g1", 20)]);
            // Chat: numbered per game, read after a number.
            assert_eq!(store.add_chat("g1", "white", "good luck", 60, 2).await.expect("kept"), Some(1));
            assert_eq!(store.add_chat("g2", "black", "hello", 61, 2).await.expect("kept"), Some(1));
            assert_eq!(store.add_chat("g1", "black", "you too", 62, 2).await.expect("kept"), Some(2));
            assert_eq!(store.add_chat("g1", "black", "one too many", 63, 2).await.expect("refused"), None);
            let said: Vec<(i64, String, String)> =
                store.chat("g1", 0).await.expect("read").into_iter().map(|m| (m.seq, m.side, m.text)).collect();
            assert_eq!(said, [(1, "white".into(), "good luck".into()), (2, "black".into(), "you too".into())]);
            let after = store.chat("g1", 1).await.expect("read");
            assert_eq!((after.len(), after[0].created_at), (1, 62));
            assert!(store.chat("g3", 0).await.expect("read").is_empty());
            // Reviews.
            assert_eq!(store.review("g1").await.expect("read"), None);
            store.save_review("g1", 50_000, "{\"a\":1}", 40).await.expect("kept");
            store.save_review("g1", 50_000, "{\"a\":2}", 41).await.expect("a second is ignored");
            assert_eq!(store.review("g1").await.expect("read").as_deref(), Some("{\"a\":1}"));
        }
    }
}
