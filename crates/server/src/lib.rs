//! fairylab's play server: games of every sequential variant over HTTP and a WebSocket stream,
//! stored in SQLite (the embedded default) or PostgreSQL; started by `fairylab serve`.
//!
//! `store` owns persistence, `live` the games in play, `api` the endpoints, `ai` the engine's
//! moves off the request path, `seed` the fairness seed behind every die and gift.

pub mod ai;
pub mod api;
pub mod live;
pub mod predictor;
pub mod seed;
pub mod store;

use std::net::SocketAddr;
use std::sync::Arc;

/// How to run the server.
#[derive(Debug, Clone)]
pub struct Config {
    /// Where to listen.
    pub listen: SocketAddr,
    /// `sqlite://PATH` or `postgres://...`.
    pub database_url: String,
    /// AI searches at once.
    pub ai_workers: usize,
}

/// A server failure.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServerError {
    /// The store could not be opened.
    #[error(transparent)]
    Store(#[from] store::StoreError),
    /// Listening or serving failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// The application on an opened store: the router and its state. Unfinished games whose AI is
/// to move start thinking again.
pub async fn app(database_url: &str, ai_workers: usize) -> Result<(axum::Router, api::AppState), ServerError> {
    let store = store::open(database_url).await?;
    let (nudge, nudged) = tokio::sync::mpsc::unbounded_channel();
    let state = api::AppState {
        games: Arc::new(live::Games::new(store.clone())),
        ai_slots: Arc::new(tokio::sync::Semaphore::new(ai_workers.max(1))),
        nudge,
    };
    tokio::spawn(api::nudge_loop(state.clone(), nudged));
    if let Some(rx) = store.listen().await? {
        state.games.relay(rx);
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

/// Runs the server until Ctrl-C, printing the address it listens on.
pub async fn run(config: Config) -> Result<(), ServerError> {
    let (router, _) = app(&config.database_url, config.ai_workers).await?;
    let listener = tokio::net::TcpListener::bind(config.listen).await?;
    let addr = listener.local_addr()?;
    println!("fairylab serving on http://{addr}/ (database {})", config.database_url);
    axum::serve(listener, router)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    Ok(())
}
