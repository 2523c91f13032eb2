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
        analysis_slots: Arc::new(tokio::sync::Semaphore::new(analysis_workers.max(1))),
        nudge,
        owners: owners.clone(),
        first_move_ms,
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
    axum::serve(listener, router)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    if let Some(owners) = &state.owners {
        state.games.store().release(&owners.id).await?;
    }
    Ok(())
}
