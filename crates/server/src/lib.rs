//! fairylab's play server: games of every sequential variant over HTTP and a WebSocket stream,
//! stored in SQLite (the embedded default) or PostgreSQL; started by `fairylab serve`.
//!
//! `store` owns persistence, `live` the games in play, `api` the endpoints, `ai` the engine's
//! moves off the request path, `seed` the fairness seed behind every die and gift, `owner`
//! which process plays each game when several share one PostgreSQL, `web` the page.

pub mod ai;
pub mod analysis;
pub mod api;
pub mod chat;
pub mod clock;
pub mod explorer;
pub mod line;
pub mod live;
pub mod odds;
pub mod owner;
pub mod predictor;
pub mod seed;
pub mod store;
pub mod web;

use std::net::SocketAddr;
use std::sync::Arc;

/// How to run the server.
#[derive(Debug, Clone)]
pub struct Config {
    /// Where to listen.
    pub listen: SocketAddr,
    /// `sqlite://PATH` or `postgres://...`.
    pub database_url: String,
    /// AI searches at once (the games' moves).
    pub ai_workers: usize,
    /// Analyses and reviews at once (apart from the AI's, so they never delay a move).
    pub analysis_workers: usize,
    /// The URL other server processes reach this one at (default: `http://` and the address
    /// listened on, with 127.0.0.1 for an unspecified address).
    pub advertise: Option<String>,
    /// Endgame table files: their verdicts in game states and analyses, and exact knowledge
    /// for the AI's and the analysis's searches.
    pub tables: Vec<std::path::PathBuf>,
    /// How long a person has for their first move in a game with clocks before the game is
    /// aborted (milliseconds; lichess's rule, see [`live::LiveGame::abort_at`]).
    pub first_move_ms: i64,
}

/// The default of [`Config::first_move_ms`]: 30 seconds.
pub const FIRST_MOVE_MS: i64 = 30_000;

/// A server failure.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServerError {
    /// The store could not be opened.
    #[error(transparent)]
    Store(#[from] store::StoreError),
    /// The endgame tables could not be loaded.
    #[error("the endgame tables: {0}")]
    Tables(#[from] egt::EgtError),
    /// Another server process uses the SQLite file (it holds the lock file next to it).
    #[error(
        "the database {database} is in use by another fairylab server (it holds the lock {lock}): \
         stop that one first; processes share a PostgreSQL database (--database-url postgres://...), not a SQLite file"
    )]
    InUse {
        /// The SQLite file.
        database: String,
        /// Its lock file.
        lock: String,
    },
    /// Listening or serving failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// The application on an opened store: the router and its state. On a store of its own the
/// process resumes every unfinished game whose AI is to move; on a shared store it joins the
/// other processes (a heartbeat, and the games no live process owns).
pub async fn app(
    database_url: &str,
    ai_workers: usize,
    analysis_workers: usize,
    url: &str,
    first_move_ms: i64,
) -> Result<(axum::Router, api::AppState), ServerError> {
    let store = store::open(database_url).await?;
    let (nudge, nudged) = tokio::sync::mpsc::unbounded_channel();
    let owners = store.shared().then(|| Arc::new(owner::Owners::new(url.to_string())));
    let state = api::AppState {
        games: Arc::new(live::Games::new(store.clone())),
        ai_slots: Arc::new(tokio::sync::Semaphore::new(ai_workers.max(1))),
        analysis: Arc::new(analysis::Workers::new(analysis_workers)),
        nudge,
        owners: owners.clone(),
        first_move_ms,
        closing: tokio::sync::watch::channel(false).0,
    };
    tokio::spawn(api::nudge_loop(state.clone(), nudged));
    explorer::spawn_indexer(state.games.clone());
    if let Some(rx) = store.listen().await? {
        state.games.relay(rx);
    }
    if let Some(owners) = owners {
        store.heartbeat(&owners.id, &owners.url, live::now_ms()).await?;
        state.games.beat(std::time::Instant::now());
        tokio::spawn(owner::heartbeat_loop(state.clone()));
        return Ok((api::router(state.clone()), state));
    }
    for id in store.active().await? {
        match state.games.get(&id).await {
            Ok(Some(g)) => {
                api::schedule_ai(&state, &g).await;
                api::schedule_deadline(&state, &g).await;
            }
            Ok(None) => {}
            Err(e) => tracing::error!("game {id} was not resumed: {e}"),
        }
    }
    Ok((api::router(state.clone()), state))
}

/// Runs the server until Ctrl-C, printing the address it listens on. On a shared store the
/// process gives its games up as it stops, so the others take them at once.
pub async fn run(config: Config) -> Result<(), ServerError> {
    // Held until the process ends (the operating system releases it even on a crash).
    let _lock = lock_sqlite(&config.database_url)?;
    if !config.tables.is_empty() {
        let paths: Vec<&std::path::Path> = config.tables.iter().map(|p| p.as_path()).collect();
        let tables = egt::tablebase::Tablebase::load(&paths)?;
        eprintln!("endgame tables: {} families, up to {} men", tables.families().len(), tables.max_men());
        analysis::install_tables(tables);
    }
    let listener = tokio::net::TcpListener::bind(config.listen).await?;
    let addr = listener.local_addr()?;
    let url = config.advertise.clone().unwrap_or_else(|| {
        let ip = if addr.ip().is_unspecified() { std::net::Ipv4Addr::LOCALHOST.into() } else { addr.ip() };
        format!("http://{}", SocketAddr::new(ip, addr.port()))
    });
    let (router, state) =
        app(&config.database_url, config.ai_workers, config.analysis_workers, &url, config.first_move_ms).await?;
    println!("fairylab serving on http://{addr}/ (database {})", config.database_url);
    // Replies go out at once (no Nagle delay against the client's delayed acknowledgement).
    let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::warn!("TCP_NODELAY: {e}");
        }
    });
    let closing = state.closing.clone();
    axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            stop_signal().await;
            closing.send_replace(true);
        })
        .await?;
    // The live streams are upgraded connections, which the graceful shutdown does not wait for:
    // give them a moment to send their close frames (each holds a receiver until it ends).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    while state.closing.receiver_count() > 0 && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    if let Some(owners) = &state.owners {
        state.games.store().release(&owners.id).await?;
    }
    Ok(())
}

/// Ctrl-C, or SIGTERM (how service managers stop a process) on Unix.
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(e) => {
                tracing::warn!("SIGTERM not handled: {e}");
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    let _ = tokio::signal::ctrl_c().await;
}

/// Takes the exclusive lock of a SQLite file's server, `<file>.lock` next to it, so that a second
/// process on the same file is refused: it would serve from its own copies of the games while the
/// first went on serving from stale ones (only PostgreSQL relays one process's writes to the
/// others). `None` for an in-memory database, PostgreSQL, or a file system without locks (then
/// a warning). The lock lasts as long as the file handle.
pub fn lock_sqlite(database_url: &str) -> Result<Option<std::fs::File>, ServerError> {
    let Some(rest) = database_url.strip_prefix("sqlite:") else { return Ok(None) };
    let rest = rest.trim_start_matches("//");
    let (name, params) = rest.split_once('?').unwrap_or((rest, ""));
    if name.is_empty() || name == ":memory:" || params.split('&').any(|p| p == "mode=memory") {
        return Ok(None);
    }
    let options = <sqlx::sqlite::SqliteConnectOptions as std::str::FromStr>::from_str(database_url)
        .map_err(store::StoreError::from)?;
    let database = options.get_filename().to_path_buf();
    let mut lock = database.clone().into_os_string();
    lock.push(".lock");
    let lock = std::path::PathBuf::from(lock);
    let file = match std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&lock) {
        Ok(file) => file,
        // No such directory: opening the database fails too, and says so.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            let why = format!("cannot open the lock file {}: {e}", lock.display());
            return Err(std::io::Error::new(e.kind(), why).into());
        }
    };
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(std::fs::TryLockError::WouldBlock) => {
            Err(ServerError::InUse { database: database.display().to_string(), lock: lock.display().to_string() })
        }
        Err(std::fs::TryLockError::Error(e)) if e.kind() == std::io::ErrorKind::Unsupported => {
            tracing::warn!(
                "{}: the file system has no locks; make sure no other server uses this database",
                lock.display()
            );
            Ok(None)
        }
        Err(std::fs::TryLockError::Error(e)) => {
            Err(std::io::Error::new(e.kind(), format!("cannot lock {}: {e}", lock.display())).into())
        }
    }
}
