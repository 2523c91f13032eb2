//! Which process plays each game when several `fairylab serve` processes share one PostgreSQL:
//! heartbeats, claims, the sweep that adopts orphaned games, and forwarding to the owner.
//!
//! Each process writes a heartbeat row every [`HEARTBEAT_MS`]. A game is owned by one process
//! (a row of `owners`); only the owner plays its moves, runs its AI and its timers, so its copy
//! in memory is always current. Another process forwards the game's requests to the owner's URL
//! (live streams excepted: every process serves them, fed by LISTEN/NOTIFY). A game whose owner
//! has missed heartbeats for [`EXPIRY_MS`], or whose owner's address refuses connections, is
//! taken by the next process that needs it; the claim is one SQL statement, so two processes
//! cannot both win, and the store refuses every write of a process that is not the game's owner
//! (`store::owned_here`): a stale owner's write fails, and it stops acting as the owner.

use crate::api::{schedule_ai, schedule_deadline, AppState};
use crate::live::now_ms;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use serde_json::json;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// How often a process writes its heartbeat.
pub const HEARTBEAT_MS: i64 = 1000;

/// How long after its last heartbeat a process's games may be taken.
pub const EXPIRY_MS: i64 = 5000;

/// The header a forwarded request carries (with the forwarding process's id); such a request
/// is never forwarded again.
pub const FORWARDED: &str = "x-fairylab-forwarded";

/// The header of a reply that says which process played the request.
pub const SERVED_BY: &str = "x-fairylab-server";

/// The most owner addresses remembered (the map is emptied when it grows past this).
const KNOWN_MAX: usize = 100_000;

/// This process's part in sharing games with the others.
pub struct Owners {
    /// This process's id (also the tag of its NOTIFY events).
    pub id: String,
    /// The URL the other processes reach this one at.
    pub url: String,
    /// The owners of other games as last learned: game -> (process, URL). An owner stays the
    /// owner while it lives, so an entry is dropped only when forwarding to it fails.
    known: std::sync::Mutex<HashMap<String, (String, String)>>,
    client: Client<HttpConnector, Body>,
}

/// Where a game's request is played.
enum Place {
    /// In this process.
    Here,
    /// In the process `id` at `url`.
    There { id: String, url: String },
}

impl Owners {
    /// This process's ownership, reachable at `url`.
    pub fn new(url: String) -> Owners {
        let mut connector = HttpConnector::new();
        connector.set_connect_timeout(Some(Duration::from_secs(2)));
        connector.set_nodelay(true);
        let client = Client::builder(hyper_util::rt::TokioExecutor::new())
            .pool_idle_timeout(Duration::from_secs(30))
            .build(connector);
        Owners { id: crate::store::process_tag().to_string(), url, known: Default::default(), client }
    }

    fn known(&self) -> std::sync::MutexGuard<'_, HashMap<String, (String, String)>> {
        self.known.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Finds (or takes) the owner of a game: this process if the game is unowned, its owner is
    /// dead, or there is no such game (the handler then says so).
    async fn locate(&self, app: &AppState, game: &str) -> Result<Place, crate::store::StoreError> {
        if let Some((id, url)) = self.known().get(game) {
            return Ok(Place::There { id: id.clone(), url: url.clone() });
        }
        let now = now_ms();
        match app.games.store().claim(game, &self.id, now, now - EXPIRY_MS).await? {
            None => Ok(Place::Here),
            Some((owner, _)) if owner == self.id => {
                adopt(app, game).await;
                Ok(Place::Here)
            }
            Some((id, url)) => {
                let mut known = self.known();
                if known.len() >= KNOWN_MAX {
                    known.clear();
                }
                known.insert(game.to_string(), (id.clone(), url.clone()));
                Ok(Place::There { id, url })
            }
        }
    }

    /// Sends a request on to the game's owner and its reply back. If the owner's address
    /// refuses the connection the owner is dead: its heartbeat is voided so the game can be
    /// taken at once, and the client is asked to retry.
    async fn forward(&self, app: &AppState, game: &str, owner: &str, url: &str, req: Request) -> Response {
        let (mut parts, body) = req.into_parts();
        let target = format!("{url}{}", parts.uri.path_and_query().map_or("/", |p| p.as_str()));
        let Ok(uri) = target.parse::<Uri>() else {
            return unavailable(format!("the game's server has an unusable address '{url}'"));
        };
        parts.uri = uri;
        parts.version = axum::http::Version::HTTP_11;
        parts.headers.remove(header::HOST);
        if let Ok(v) = HeaderValue::from_str(&self.id) {
            parts.headers.insert(FORWARDED, v);
        }
        match self.client.request(Request::from_parts(parts, body)).await {
            Ok(reply) => {
                if reply.status() == StatusCode::SERVICE_UNAVAILABLE {
                    // The process no longer owns the game: look again next time.
                    self.known().remove(game);
                }
                reply.map(Body::new)
            }
            Err(e) => {
                self.known().remove(game);
                if e.is_connect() {
                    if let Err(e) = app.games.store().expire(owner).await {
                        tracing::warn!("could not mark server {owner} dead: {e}");
                    }
                }
                unavailable(format!("the game's server at {url} did not answer ({e}); retry"))
            }
        }
    }
}

/// A 503 reply with a short Retry-After.
fn unavailable(message: String) -> Response {
    let mut r = (StatusCode::SERVICE_UNAVAILABLE, axum::Json(json!({ "error": message }))).into_response();
    r.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    r
}

/// The game a request path is about, if it should be played by the game's owner: every
/// `/api/games/{id}` endpoint but the live stream, and the operator's `/api/admin/games/{id}`
/// (only the owner's copy of a game is current: another process's says nothing of its end).
fn game_of(path: &str) -> Option<&str> {
    let rest = path.strip_prefix("/api/games/").or_else(|| path.strip_prefix("/api/admin/games/"))?;
    let (id, tail) = rest.split_once('/').unwrap_or((rest, ""));
    (!id.is_empty() && id.len() <= 64 && tail != "ws").then_some(id)
}

/// Middleware: plays a game's request here if this process owns the game (or takes it), and
/// forwards it to the owner otherwise. Without a shared store every request is played here.
pub async fn route(State(app): State<AppState>, req: Request, next: Next) -> Response {
    let Some(owners) = app.owners.clone() else { return next.run(req).await };
    let Some(game) = game_of(req.uri().path()).map(str::to_string) else { return next.run(req).await };
    if app.games.owns(&game) {
        return served_here(&owners, next.run(req).await);
    }
    match owners.locate(&app, &game).await {
        Ok(Place::Here) => served_here(&owners, next.run(req).await),
        Ok(Place::There { .. }) if req.headers().contains_key(FORWARDED) => {
            unavailable("the game is changing servers; retry".into())
        }
        Ok(Place::There { id, url }) => owners.forward(&app, &game, &id, &url, req).await,
        Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, axum::Json(json!({ "error": e.to_string() }))).into_response(),
    }
}

fn served_here(owners: &Owners, mut reply: Response) -> Response {
    if let Ok(v) = HeaderValue::from_str(&owners.id) {
        reply.headers_mut().insert(SERVED_BY, v);
    }
    reply
}

/// Makes a game this process's own: its copy read back from the store, its AI and timers
/// started.
async fn adopt(app: &AppState, game: &str) {
    match app.games.adopt(game).await {
        Ok(Some(g)) => {
            schedule_ai(app, &g).await;
            schedule_deadline(app, &g).await;
        }
        Ok(None) => {}
        Err(e) => tracing::error!("game {game} could not be taken over: {e}"),
    }
}

/// Writes this process's heartbeat every [`HEARTBEAT_MS`] and adopts the orphaned games that
/// move without a request (an AI, a deadline, a clock), until the process ends.
pub async fn heartbeat_loop(app: AppState) {
    let Some(owners) = app.owners.clone() else { return };
    let store = app.games.store().clone();
    let period = Duration::from_millis(HEARTBEAT_MS as u64);
    loop {
        let now = now_ms();
        match tokio::time::timeout(period, store.heartbeat(&owners.id, &owners.url, now)).await {
            Ok(Ok(())) => app.games.beat(Instant::now()),
            Ok(Err(e)) => tracing::warn!("heartbeat: {e}"),
            Err(_) => tracing::warn!("heartbeat: the database did not answer in time"),
        }
        if app.games.alive() {
            match store.orphans(now - EXPIRY_MS, 64).await {
                Ok(games) => {
                    for game in games {
                        match store.claim(&game, &owners.id, now_ms(), now_ms() - EXPIRY_MS).await {
                            Ok(Some((owner, _))) if owner == owners.id => adopt(&app, &game).await,
                            Ok(_) => {}
                            Err(e) => tracing::warn!("claiming game {game}: {e}"),
                        }
                    }
                }
                Err(e) => tracing::warn!("looking for orphaned games: {e}"),
            }
        }
        tokio::time::sleep(period).await;
    }
}

#[cfg(test)]
mod tests {
    use super::game_of;

    #[test]
    fn game_paths_are_recognised() {
        assert_eq!(game_of("/api/games/abc"), Some("abc"));
        assert_eq!(game_of("/api/games/abc/moves"), Some("abc"));
        assert_eq!(game_of("/api/games/abc/ws"), None);
        assert_eq!(game_of("/api/admin/games/abc"), Some("abc"));
        assert_eq!(game_of("/api/admin/games/abc/end"), Some("abc"));
        assert_eq!(game_of("/api/admin/games/"), None);
        assert_eq!(game_of("/api/games"), None);
        assert_eq!(game_of("/api/games/"), None);
        assert_eq!(game_of("/api/variants"), None);
        assert_eq!(game_of(&format!("/api/games/{}", "x".repeat(65))), None);
    }
}
