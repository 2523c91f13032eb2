//! The HTTP and WebSocket API (docs/API.md): creating, joining and listing games, moves,
//! resignation, records, and the live stream. Every request is checked here and every move by
//! the rules core; errors are JSON `{"error": "..."}` with a fitting status.

use crate::live::{event_text, now_ms, outcome_text, variant_of, Games, LiveGame, Player};
use crate::seed::GameSeed;
use crate::store::{GameRow, MoveRow, Offer, PredictorKind, PredictorRow, StoreError, OPEN_SEAT};
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use rand::RngCore;
use rules::predictor::commit::{Commitment, Reveal};
use rules::predictor::referee::RefereeError;
use rules::{Color, Position};
use serde::Deserialize;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{Mutex, Semaphore};

/// The largest request body accepted.
pub const MAX_BODY: usize = 16 * 1024;

/// The longest text field accepted (FENs, moves, names).
const MAX_FIELD: usize = 512;

/// The server's shared state.
#[derive(Clone)]
pub struct AppState {
    /// The games.
    pub games: Arc<Games>,
    /// Free AI worker slots (the games' AI moves).
    pub ai_slots: Arc<Semaphore>,
    /// The slots games of the AI against itself may hold (one fewer than the workers, at least
    /// one): a game with a person waiting never queues behind more than one of them.
    pub ai_only_slots: Arc<Semaphore>,
    /// The analysis workers (analyses and reviews, kept apart so that they never delay an AI's
    /// move), with their bounded queue.
    pub analysis: Arc<crate::analysis::Workers>,
    /// Games whose AI should look again (after a deadline closed a ply); see [`nudge_loop`].
    pub nudge: tokio::sync::mpsc::UnboundedSender<String>,
    /// This process's part in sharing games with other processes (PostgreSQL only).
    pub owners: Option<Arc<crate::owner::Owners>>,
    /// How long a person has for a first move in a game with clocks ([`LiveGame::abort_at`]).
    pub first_move_ms: i64,
    /// Set when the process stops: every live stream then sends its close frame ("going away").
    pub closing: tokio::sync::watch::Sender<bool>,
    /// What one client may ask of the server.
    pub limits: Limits,
    /// The SHA-256 of the operator's token (`serve --admin-token-file`), for `/api/admin/...`.
    pub admin: Option<String>,
    /// The games each client address created lately (for [`Limits::new_games_per_hour`]).
    pub new_games: Arc<std::sync::Mutex<HashMap<std::net::IpAddr, crate::live::LastHour>>>,
    /// The path the site is served under (`serve --base-path`; empty at the host's root): the
    /// addresses the server writes (pages, links, `next`) begin with it.
    pub base: Arc<str>,
}

/// What one client may ask of the server (`fairylab serve` flags; docs/OPERATIONS.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The longest time per move a game may give the AI, in milliseconds.
    pub max_movetime_ms: u64,
    /// Games one client address may create in an hour (0: no limit).
    pub new_games_per_hour: usize,
    /// Take the client's address from the last `X-Forwarded-For` entry (behind a reverse proxy
    /// that sets it) rather than from the connection.
    pub trust_forwarded_for: bool,
    /// How often a live stream pings its client; a client that answers nothing (no pong, no
    /// message) through two pings is gone, and its stream is closed.
    pub ping_every: std::time::Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_movetime_ms: 10_000,
            new_games_per_hour: 600,
            trust_forwarded_for: false,
            ping_every: std::time::Duration::from_secs(25),
        }
    }
}

/// The address a request comes from: the connection's, or behind a trusted proxy the last
/// `X-Forwarded-For` entry; `None` where neither is known (a router driven without a socket).
/// An IPv6 address is taken as its /64 network, which one client holds whole.
fn client_address(
    app: &AppState,
    headers: &axum::http::HeaderMap,
    peer: Option<SocketAddr>,
) -> Option<std::net::IpAddr> {
    if app.limits.trust_forwarded_for {
        let forwarded = headers.get_all("x-forwarded-for").iter().filter_map(|v| v.to_str().ok()).next_back();
        if let Some(ip) = forwarded.and_then(|v| v.rsplit(',').next()).and_then(|ip| ip.trim().parse().ok()) {
            return Some(crate::client_key(ip));
        }
    }
    peer.map(|p| crate::client_key(p.ip()))
}

/// Counts a new game against its client's hourly allowance; 429 when it is spent.
fn count_new_game(app: &AppState, ip: Option<std::net::IpAddr>) -> Result<(), ApiError> {
    let (Some(ip), n) = (ip, app.limits.new_games_per_hour) else { return Ok(()) };
    if n == 0 {
        return Ok(());
    }
    let mut all = app.new_games.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    // Now and then the addresses with nothing left in the hour go.
    if all.len() > 10_000 {
        all.retain(|_, times| times.count() > 0);
    }
    let times = all.entry(ip).or_default();
    if times.count() >= n {
        let mut e = ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            format!("this address has created {n} games in the last hour, the most this server allows"),
        );
        e.retry_after = Some(times.seconds_to_room());
        return Err(e);
    }
    times.record();
    Ok(())
}

/// Starts the AI of each game sent on the nudge channel (a timer cannot call [`schedule_ai`]
/// itself without making the tasks' types depend on each other).
pub async fn nudge_loop(state: AppState, mut rx: tokio::sync::mpsc::UnboundedReceiver<String>) {
    while let Some(id) = rx.recv().await {
        if let Ok(Some(g)) = state.games.get(&id).await {
            schedule_ai(&state, &g).await;
        }
    }
}

/// A refused request.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    message: String,
    /// Seconds to wait before trying again (`Retry-After`), for a refusal that passes.
    retry_after: Option<u64>,
}

impl ApiError {
    fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError { status, message: message.into(), retry_after: None }
    }
    fn bad(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }
    fn conflict(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::CONFLICT, message)
    }
    fn forbidden(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, message)
    }
    fn not_found(id: &str) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, format!("no game '{}'", clip(id)))
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if self.status == StatusCode::INTERNAL_SERVER_ERROR {
            tracing::error!("{}", self.message);
        }
        let mut r = (self.status, Json(json!({ "error": shortened(&self.message) }))).into_response();
        if let Some(secs) = self.retry_after {
            r.headers_mut().insert(header::RETRY_AFTER, secs.into());
        }
        r
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        match e {
            StoreError::Duplicate { ply, .. } => ApiError::conflict(format!(
                "ply {ply} is not the game's next ply here: it was played, moves were taken back, or another server process has taken the game over"
            )),
            StoreError::Stale { .. } => ApiError::conflict(
                "the game has changed elsewhere (another server process plays it now, or it is over): read it again",
            ),
            e => ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
        }
    }
}

impl From<crate::live::LoadError> for ApiError {
    fn from(e: crate::live::LoadError) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string())
    }
}

impl From<QueryRejection> for ApiError {
    fn from(e: QueryRejection) -> ApiError {
        let text = e.body_text();
        let text = text.strip_prefix("Failed to deserialize query string: ").unwrap_or(&text);
        ApiError::bad(format!("invalid query: {}", plain_types(text)))
    }
}

/// A deserializer's message in the API's words: `expected u64` is a whole number from 0 up.
fn plain_types(message: &str) -> String {
    const TYPES: [(&str, &str); 9] = [
        ("expected u8", "expected a whole number from 0 to 255"),
        ("expected u16", "expected a whole number from 0 to 65535"),
        ("expected u32", "expected a whole number from 0 to 4294967295"),
        ("expected u64", "expected a whole number from 0 up"),
        ("expected usize", "expected a whole number from 0 up"),
        ("expected i32", "expected a whole number"),
        ("expected i64", "expected a whole number"),
        ("expected f64", "expected a number"),
        ("number too large to fit in target type", "the number is too large"),
    ];
    TYPES.iter().fold(message.to_string(), |m, (rust, said)| m.replace(rust, said))
}

/// Numbers written with a fraction of zero (`500.0`, as Python writes a float) are the whole
/// numbers they equal, as JSON Schema's `integer` reads them.
fn whole_numbers(v: &mut Value) {
    match v {
        Value::Number(n) => {
            // Exact below 2^53; larger ones stay as written (and are refused as too large).
            if let Some(f) = n.as_f64().filter(|f| n.is_f64() && f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0)
            {
                *v = json!(f as i64);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(whole_numbers),
        Value::Object(fields) => fields.values_mut().for_each(whole_numbers),
        _ => {}
    }
}

/// A request to a live stream that is not a WebSocket handshake: refused as JSON, as every
/// refusal is.
impl From<WebSocketUpgradeRejection> for ApiError {
    fn from(e: WebSocketUpgradeRejection) -> ApiError {
        ApiError::new(e.status(), format!("this is a WebSocket stream: {}", e.body_text()))
    }
}

impl From<JsonRejection> for ApiError {
    fn from(e: JsonRejection) -> ApiError {
        ApiError::new(e.status(), format!("invalid JSON body: {}", e.body_text()))
    }
}

/// A JSON request body that must be an object (serde alone would also read a struct from an
/// array, by position): 415 for a body not sent as JSON, 400 for one that does not parse, 422
/// for one of the wrong shape, each with the reason.
struct JsonBody<T>(T);

impl<T: serde::de::DeserializeOwned, S: Send + Sync> axum::extract::FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: axum::extract::Request, state: &S) -> Result<Self, Self::Rejection> {
        let Json(mut v) = Json::<Value>::from_request(req, state).await?;
        if !v.is_object() {
            return Err(ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid JSON body: it must be a JSON object"));
        }
        whole_numbers(&mut v);
        serde_json::from_value(v).map(JsonBody).map_err(|e| {
            ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                format!("invalid JSON body: {}", plain_types(&e.to_string())),
            )
        })
    }
}

/// The error of a write about a game that the store refused as stale (see
/// [`StoreError::Stale`]): this process's copy of the game is not current, so it stops acting
/// as the game's owner. The next request finds the owner again (this process, after reading
/// the game back, or another that it forwards to); its AI and timers stand down meanwhile.
fn refused(app: &AppState, id: &str) -> impl FnOnce(StoreError) -> ApiError {
    let (games, id) = (app.games.clone(), id.to_string());
    move |e| {
        if matches!(e, StoreError::Stale { .. } | StoreError::Duplicate { .. }) {
            games.disown(&id);
        }
        e.into()
    }
}

/// Runs `work` (a search, a replay) on Tokio's blocking threads, off the request workers; a
/// panic in it answers 500 naming `what`.
async fn blocking<T: Send + 'static>(what: &str, work: impl FnOnce() -> T + Send + 'static) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("{what} failed: {e}")))
}

/// The most characters of a request's text an error message quotes.
const QUOTED_CHARS: usize = 80;

/// A text cut for quoting in an error message: its first [`QUOTED_CHARS`] characters, and `…`
/// where it goes on.
pub(crate) fn clip(s: &str) -> String {
    // Control and bidirectional-formatting characters are shown escaped: quoted back into a
    // message or a log line they could garble a terminal or reorder the text around them.
    let shown = |s: &str| -> String {
        s.chars()
            .map(|c| {
                let bidi = matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
                if c.is_control() || bidi {
                    c.escape_unicode().to_string()
                } else {
                    c.to_string()
                }
            })
            .collect()
    };
    match s.char_indices().nth(QUOTED_CHARS) {
        Some((at, _)) => format!("{}…", shown(&s[..at])),
        None => shown(s),
    }
}

/// The longest error message sent, in characters.
const MAX_MESSAGE_CHARS: usize = 1000;

/// An error message as sent: each run of more than [`QUOTED_CHARS`] characters without a space
/// cut to that and `…`, and the whole to [`MAX_MESSAGE_CHARS`]. The rules core quotes what it
/// could not read (a record's move, a FEN field) whole, and a request's text may be 16 KiB.
fn shortened(message: &str) -> String {
    let mut out = String::with_capacity(message.len().min(4 * MAX_MESSAGE_CHARS));
    let (mut sent, mut run) = (0, 0);
    for c in message.chars() {
        run = if c.is_whitespace() { 0 } else { run + 1 };
        if run > QUOTED_CHARS + 1 {
            continue;
        }
        if sent == MAX_MESSAGE_CHARS {
            out.push('…');
            break;
        }
        out.push(if run == QUOTED_CHARS + 1 { '…' } else { c });
        sent += 1;
    }
    out
}

fn random_hex(bytes: usize) -> String {
    let mut b = vec![0u8; bytes];
    rand::rngs::OsRng.fill_bytes(&mut b);
    hex::encode(b)
}

/// The SHA-256 of `text` in hex: how tokens and codes are stored.
pub fn sha256_hex(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// How long a request's body may take to arrive: a client that sends its headers and then
/// trickles (or stops) is refused after this, so it cannot hold a connection and a handler.
const BODY_TIMEOUT: Duration = Duration::from_secs(10);

/// The router of the whole API, under the state's base path when it has one.
pub fn router(state: AppState) -> Router {
    let base = state.base.clone();
    let site = site(state);
    if base.is_empty() {
        return site;
    }
    // Routing happens on the path with the base taken off: a layer of an outer router without
    // routes runs before the site's own routing.
    Router::new()
        .fallback_service(site)
        .layer(axum::middleware::from_fn(move |req, next| under_base(base.clone(), req, next)))
}

/// Serves a request under the base path with the base taken off its path (`/chess` and
/// `/chess/` are the lobby); any other path is refused with a word on where the site is.
async fn under_base(base: Arc<str>, mut req: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let uri = req.uri();
    let path = uri.path();
    let rest = match path.strip_prefix(&*base) {
        Some("") => "/",
        Some(rest) if rest.starts_with('/') => rest,
        _ => {
            return ApiError::new(
                StatusCode::NOT_FOUND,
                format!("no such endpoint: this server is served under {base}/"),
            )
            .into_response()
        }
    };
    let rewritten = match uri.query() {
        Some(q) => format!("{rest}?{q}"),
        None => rest.to_string(),
    };
    match rewritten.parse::<axum::http::Uri>() {
        Ok(u) => {
            *req.uri_mut() = u;
            next.run(req).await
        }
        Err(_) => ApiError::bad("the request's path cannot be read").into_response(),
    }
}

/// Every page and endpoint, at the root.
fn site(state: AppState) -> Router {
    Router::new()
        .route("/", get(crate::web::page))
        .route("/game/{id}", get(crate::web::page))
        .route("/static/{*path}", get(crate::web::asset))
        .route("/lobby", get(lobby))
        .route("/api", get(api_doc))
        .route("/api/openapi.json", get(openapi))
        .route("/api/variants", get(list_variants))
        .route("/api/health", get(health))
        .route("/api/games", get(list_games).post(create_game))
        .route("/api/games/{id}", get(game_state))
        .route("/api/games/{id}/join", post(join_game))
        .route("/api/games/{id}/moves", post(make_move))
        .route("/api/games/{id}/resign", post(resign))
        .route("/api/games/{id}/abort", post(abort))
        .route("/api/games/{id}/draw", post(draw))
        .route("/api/games/{id}/takeback", post(takeback))
        .route("/api/games/{id}/rematch", post(rematch))
        .route("/api/games/{id}/members", post(add_member))
        .route("/api/games/{id}/commit", post(commit_orders))
        .route("/api/games/{id}/orders/check", post(check_orders))
        .route("/api/games/{id}/reveal", post(reveal_orders))
        .route("/api/games/{id}/record", get(record))
        .route("/api/games/{id}/odds", get(odds))
        .route("/api/games/{id}/analyse", post(analyse))
        .route("/api/games/{id}/review", get(review))
        .route("/api/games/{id}/chat", get(read_chat).post(write_chat))
        .route("/api/games/{id}/ws", get(stream))
        .route("/api/admin/games/{id}/end", post(admin_end))
        .route("/api/admin/games/{id}", axum::routing::delete(admin_delete))
        .route("/api/lobby/ws", get(lobby_stream))
        .route("/api/explorer", get(explorer))
        .route("/api/position", get(position).post(position_of_record))
        .route("/api/position/pgn", post(position_pgn))
        .route("/api/analyse", post(analyse_line))
        .route("/api/odds", get(odds_of_position))
        .route("/analysis", get(crate::web::page))
        .fallback(|| async { ApiError::new(StatusCode::NOT_FOUND, "no such endpoint (see /api)") })
        .method_not_allowed_fallback(|method: axum::http::Method| async move {
            ApiError::new(StatusCode::METHOD_NOT_ALLOWED, format!("{method} is not served here (see /api)"))
        })
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .layer(axum::middleware::from_fn(whole_body))
        .layer(axum::middleware::map_response(json_refusals))
        .layer(axum::middleware::map_response(security_headers))
        .layer(axum::middleware::from_fn_with_state(state.clone(), crate::owner::route))
        // A line per request and its response at the debug level (`RUST_LOG=tower_http=debug`):
        // the method and the path only, since headers carry seat tokens and an invitation link's
        // query its code.
        .layer(
            tower_http::trace::TraceLayer::new_for_http()
                .make_span_with(|req: &axum::extract::Request| {
                    let client = req
                        .extensions()
                        .get::<axum::extract::ConnectInfo<SocketAddr>>()
                        .map_or(String::new(), |c| c.0.ip().to_string());
                    tracing::span!(
                        target: "tower_http::trace",
                        tracing::Level::DEBUG,
                        "request",
                        method = %req.method(),
                        path = %req.uri().path(),
                        client = %client,
                    )
                })
                // Refusals are the clients' business (a busy analysis queue is not logged a line
                // each); the server's own failures (500) are logged as errors where they arise.
                .on_failure(tower_http::trace::DefaultOnFailure::new().level(tracing::Level::DEBUG)),
        )
        .with_state(state)
}

/// Reads a request's whole body before its handler runs: a `Content-Length` over the limit is
/// refused at once (413), and a body that has not arrived [`BODY_TIMEOUT`] after the headers
/// is refused (400) however slowly it trickles, so a client cannot hold a handler.
async fn whole_body(req: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let declared = req.headers().get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    // Far over the limit: not waited for (a body a little over is read up to the limit, so a
    // client that writes it whole before reading gets its answer).
    if declared.is_some_and(|n| n > 64 * MAX_BODY as u64) {
        return ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, format!("the body is over {MAX_BODY} bytes"))
            .into_response();
    }
    let chunked = req.headers().contains_key(header::TRANSFER_ENCODING);
    if declared.unwrap_or(0) == 0 && !chunked {
        return next.run(req).await;
    }
    let (parts, body) = req.into_parts();
    let bytes = match tokio::time::timeout(BODY_TIMEOUT, axum::body::to_bytes(body, MAX_BODY)).await {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(_)) => {
            return ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("the body is over {MAX_BODY} bytes, or broke off"),
            )
            .into_response()
        }
        Err(_) => {
            return ApiError::bad(format!("the request body did not arrive within {} s", BODY_TIMEOUT.as_secs()))
                .into_response()
        }
    };
    next.run(axum::extract::Request::from_parts(parts, axum::body::Body::from(bytes))).await
}

/// Headers every response carries: no content sniffing, no framing by other sites (the page's
/// buttons cannot be clicked through a frame), no referrer sent elsewhere, and for pages a
/// content security policy that runs only the server's own scripts.
async fn security_headers(mut res: Response) -> Response {
    use header::HeaderValue;
    let h = res.headers_mut();
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("same-origin"));
    let html = h.get(header::CONTENT_TYPE).is_some_and(|v| v.as_bytes().starts_with(b"text/html"));
    if html {
        h.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(
                "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; \
                 connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'; form-action 'self'",
            ),
        );
    }
    res
}

/// Every refusal is a JSON object (API.md): one an extractor wrote as plain text (a path
/// segment that is not UTF-8, a raw body over the limit) becomes `{"error": text}`.
async fn json_refusals(res: Response) -> Response {
    let plain = res.headers().get(header::CONTENT_TYPE).is_some_and(|v| v.as_bytes().starts_with(b"text/plain"));
    if !plain || !(res.status().is_client_error() || res.status().is_server_error()) {
        return res;
    }
    let (mut parts, body) = res.into_parts();
    let text = axum::body::to_bytes(body, MAX_BODY).await.unwrap_or_default();
    let text = String::from_utf8_lossy(&text);
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.insert(header::CONTENT_TYPE, header::HeaderValue::from_static("application/json"));
    let body = json!({ "error": shortened(text.trim()) }).to_string();
    Response::from_parts(parts, axum::body::Body::from(body))
}

/// An endpoint that takes no query: a query there is refused (as unknown parameters are where
/// an endpoint takes some), not ignored, since a caller who sends `?ply=5` expects an answer it
/// changes.
struct NoQuery;

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for NoQuery {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut axum::http::request::Parts, _: &S) -> Result<NoQuery, ApiError> {
        match parts.uri.query().filter(|q| !q.is_empty()) {
            Some(q) => Err(ApiError::bad(format!("invalid query '{}': this endpoint takes no parameters", clip(q)))),
            None => Ok(NoQuery),
        }
    }
}

/// `GET /api/health`: 200 while the database answers a read, 503 when it does not.
async fn health(State(app): State<AppState>, _: NoQuery) -> Result<Json<Value>, ApiError> {
    let store = app.games.store();
    store.game("0000000000000000").await.map_err(|e| {
        tracing::error!("health: the database does not answer: {e}");
        ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "the database does not answer")
    })?;
    Ok(Json(json!({
        "status": "ok",
        "version": env!("CARGO_PKG_VERSION"),
        "database": if store.shared() { "postgres" } else { "sqlite" },
        "games_in_memory": app.games.len(),
    })))
}

async fn api_doc() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/markdown; charset=utf-8")], include_str!("../../../docs/API.md"))
}

/// `GET /api/openapi.json`: [`OPENAPI`]; under a base path (`serve --base-path /chess`) with
/// `servers: [{"url": "/chess"}]`, so that a client generated from it calls `/chess/api/...`.
async fn openapi(State(app): State<AppState>) -> Response {
    if app.base.is_empty() {
        return ([(header::CONTENT_TYPE, "application/json")], OPENAPI).into_response();
    }
    let mut spec: Value = serde_json::from_str(OPENAPI).unwrap_or_default();
    spec["servers"] = json!([{ "url": &*app.base, "description": "this server's base path" }]);
    ([(header::CONTENT_TYPE, "application/json")], spec.to_string()).into_response()
}

/// The OpenAPI description of the HTTP endpoints (`docs/openapi.json`).
pub const OPENAPI: &str = include_str!("../../../docs/openapi.json");

/// Every HTTP endpoint of [`router`] under `/api/games`, `/api/variants`, `/api/explorer`,
/// `/api/position`, `/api/analyse`, `/api/odds` and `/api/admin` as (method, path):
/// the OpenAPI file must describe exactly these (tested).
pub const ENDPOINTS: &[(&str, &str)] = &[
    ("get", "/api"),
    ("get", "/api/openapi.json"),
    ("get", "/api/variants"),
    ("get", "/api/health"),
    ("get", "/api/games"),
    ("post", "/api/games"),
    ("get", "/api/games/{id}"),
    ("post", "/api/games/{id}/join"),
    ("post", "/api/games/{id}/moves"),
    ("post", "/api/games/{id}/resign"),
    ("post", "/api/games/{id}/abort"),
    ("post", "/api/games/{id}/draw"),
    ("post", "/api/games/{id}/takeback"),
    ("post", "/api/games/{id}/rematch"),
    ("post", "/api/games/{id}/members"),
    ("post", "/api/games/{id}/commit"),
    ("post", "/api/games/{id}/orders/check"),
    ("post", "/api/games/{id}/reveal"),
    ("get", "/api/games/{id}/record"),
    ("get", "/api/games/{id}/odds"),
    ("post", "/api/games/{id}/analyse"),
    ("get", "/api/games/{id}/review"),
    ("get", "/api/games/{id}/chat"),
    ("post", "/api/games/{id}/chat"),
    ("get", "/api/explorer"),
    ("get", "/api/position"),
    ("post", "/api/position"),
    ("post", "/api/position/pgn"),
    ("post", "/api/analyse"),
    ("get", "/api/odds"),
    ("post", "/api/admin/games/{id}/end"),
    ("delete", "/api/admin/games/{id}"),
];

/// A line of the analysis board, as `GET /api/explorer` and `GET /api/position` take it
/// (`crate::line::line_of`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LineQuery {
    /// A built-in variant's name.
    variant: String,
    /// The position (default: the variant's start).
    fen: Option<String>,
    /// UCI moves played from it first, comma-separated.
    play: Option<String>,
}

/// `GET /api/explorer`'s query: a line as in [`LineQuery`] and whose games to count.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExplorerQuery {
    /// As in [`LineQuery`].
    variant: String,
    /// As in [`LineQuery`].
    fen: Option<String>,
    /// As in [`LineQuery`].
    play: Option<String>,
    /// `all` (default), `people` or `ai` (`crate::explorer::Players`).
    players: Option<String>,
}

/// `GET /api/explorer`: the moves finished games played from a position and how they ended
/// (`crate::explorer`).
async fn explorer(
    State(app): State<AppState>,
    query: Result<Query<ExplorerQuery>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let Query(q) = query?;
    let players =
        crate::explorer::Players::parse_filter(q.players.as_deref().unwrap_or("all")).map_err(ApiError::bad)?;
    let line = LineQuery { variant: q.variant, fen: q.fen, play: q.play }.line()?;
    Ok(Json(crate::explorer::report(app.games.store().as_ref(), line.position(), players).await?))
}

impl LineQuery {
    /// The line it names.
    fn line(&self) -> Result<rules::game::Game, ApiError> {
        crate::line::line_of(&self.variant, self.fen.as_deref(), self.play.as_deref())
            .map_err(|e| ApiError::bad(e.to_string()))
    }
}

/// `GET /api/position`: a line of the analysis board (`crate::line::line_json`).
async fn position(query: Result<Query<LineQuery>, QueryRejection>) -> Result<Json<Value>, ApiError> {
    let Query(q) = query?;
    let line = q.line()?;
    Ok(Json(blocking("the position", move || crate::line::line_json(&line)).await?))
}

/// The body of `POST /api/position`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RecordLine {
    /// A PGN record of a built-in variant (the first game of the text).
    pgn: String,
}

/// `POST /api/position`: the line of a PGN record (`crate::line::lines_of_pgn`), as `GET`
/// answers for a line, with the record's variations.
async fn position_of_record(body: Result<JsonBody<RecordLine>, ApiError>) -> Result<Json<Value>, ApiError> {
    let JsonBody(req) = body?;
    let line = blocking("the record", move || crate::line::lines_of_pgn(&req.pgn).map(|l| l.to_json()))
        .await?
        .map_err(|e| ApiError::bad(e.to_string()))?;
    Ok(Json(line))
}

/// The body of `POST /api/position/pgn`: a line and its variations.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LinesRequest {
    /// As in [`LineQuery`].
    variant: String,
    /// As in [`LineQuery`].
    fen: Option<String>,
    /// As in [`LineQuery`].
    play: Option<String>,
    /// The variations, each leaving the line after its first `parts` moves.
    variations: Option<Vec<SideLine>>,
    /// The record's tags as `[name, value]` pairs (absent: an `Event` naming the board).
    tags: Option<Vec<(String, String)>>,
    /// The comment before the first move.
    comment: Option<String>,
    /// What the record says of moves of the line or of its variations.
    notes: Option<Vec<NoteBody>>,
}

/// A note of `POST /api/position/pgn` (`crate::line::Note`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NoteBody {
    /// The line that plays the move: absent or null the main line, else a variation's index.
    line: Option<usize>,
    /// The move's index in that line (0: its first move).
    ply: usize,
    /// Its NAGs.
    nags: Option<Vec<u8>>,
    /// The comment after it.
    comment: Option<String>,
    /// The comment before it (a variation's first move).
    before: Option<String>,
}

/// A variation of `POST /api/position/pgn` (`crate::line::SideLine`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SideLine {
    /// The earlier variation it leaves (absent or null: the main line).
    of: Option<usize>,
    /// How many of that line's moves it keeps.
    parts: usize,
    /// Its own UCI moves after them, comma-separated.
    play: String,
}

/// `POST /api/position/pgn`: a line with its variations as a PGN record
/// (`crate::line::pgn_of_lines`), for the analysis board's "PGN of the line".
async fn position_pgn(body: Result<JsonBody<LinesRequest>, ApiError>) -> Result<Json<Value>, ApiError> {
    let JsonBody(req) = body?;
    let v = crate::line::variant_of(&req.variant).map_err(|e| ApiError::bad(e.to_string()))?;
    let side: Vec<crate::line::SideLine> = req
        .variations
        .unwrap_or_default()
        .into_iter()
        .map(|s| crate::line::SideLine { of: s.of, parts: s.parts, play: s.play })
        .collect();
    let notes = crate::line::RecordNotes {
        tags: req.tags,
        comment: req.comment,
        notes: req
            .notes
            .unwrap_or_default()
            .into_iter()
            .map(|n| crate::line::Note {
                line: n.line,
                ply: n.ply,
                after: rules::record::Annotation { nags: n.nags.unwrap_or_default(), comment: n.comment },
                before: n.before,
            })
            .collect(),
    };
    let (fen, play) = (req.fen, req.play);
    let pgn =
        blocking("the record", move || crate::line::pgn_of_lines(v, fen.as_deref(), play.as_deref(), &side, &notes))
            .await?
            .map_err(|e| ApiError::bad(e.to_string()))?;
    Ok(Json(json!({ "pgn": pgn })))
}

/// The body of `POST /api/analyse`: a line and the search wanted.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AnalyseLine {
    /// As in [`LineQuery`].
    variant: String,
    /// As in [`LineQuery`].
    fen: Option<String>,
    /// As in [`LineQuery`].
    play: Option<String>,
    /// As in [`AnalyseRequest`].
    movetime_ms: Option<u64>,
    /// As in [`AnalyseRequest`].
    lines: Option<usize>,
}

/// `POST /api/analyse`: the engine on the last position of a line of the analysis board.
async fn analyse_line(
    State(app): State<AppState>,
    body: Result<JsonBody<AnalyseLine>, ApiError>,
) -> Result<Json<Value>, ApiError> {
    let JsonBody(req) = body?;
    let (movetime, lines) = search_limits(req.movetime_ms, req.lines)?;
    let game = LineQuery { variant: req.variant, fen: req.fen, play: req.play }.line()?;
    let pos = game.position().clone();
    let mut report = search(&app, pos, game.history().to_vec(), movetime, lines).await?;
    report["fen"] = json!(game.position().fen());
    report["ply"] = json!(game.moves().len());
    Ok(Json(report))
}

async fn list_variants(_: NoQuery) -> Json<Value> {
    let list: Vec<Value> = rules::variants::all()
        .iter()
        .map(|v| json!({ "name": v.name, "summary": v.summary, "served": true }))
        .collect();
    Json(json!({ "variants": list }))
}

fn summary(g: &GameRow) -> Value {
    json!({
        "id": g.id, "variant": g.variant, "white": g.white_player, "black": g.black_player,
        "status": g.status, "result": g.result, "created_at": g.created_at,
        "open_seat": (g.status == "active").then(|| g.open_seat()).flatten(),
        "open_seats": if g.status == "active" { g.open_seats() } else { Vec::new() },
        "open_to_anyone": g.status == "active" && g.open_to_anyone(),
    })
}

/// The query of `GET /api/games`: a page of the games, newest first.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GamesQuery {
    /// Games on the page, 1 to 100 (default 100).
    limit: Option<i64>,
    /// The page after this game (the last of the page before: its `next`).
    after: Option<String>,
    /// Only `active` or only `finished` games.
    status: Option<String>,
}

async fn list_games(
    State(app): State<AppState>,
    query: Result<Query<GamesQuery>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let Query(q) = query?;
    let limit = q.limit.unwrap_or(100);
    if !(1..=100).contains(&limit) {
        return Err(ApiError::bad(format!("limit {limit}: a page holds 1 to 100 games")));
    }
    let status = q.status.as_deref();
    if status.is_some_and(|s| s != "active" && s != "finished") {
        return Err(ApiError::bad(format!("status '{}': active or finished", clip(status.unwrap_or_default()))));
    }
    let store = app.games.store();
    let after = match &q.after {
        Some(id) => match store.game(id).await? {
            Some(g) => Some((g.created_at, g.id)),
            None => return Err(ApiError::bad(format!("after: no game '{}' to page from", clip(id)))),
        },
        None => None,
    };
    let rows = store.recent(limit, after.as_ref().map(|(t, id)| (*t, id.as_str())), status).await?;
    // The next page's address, while this one is full.
    let next = (rows.len() as i64 == limit).then(|| rows.last()).flatten().map(|last| {
        let status = status.map_or(String::new(), |s| format!("&status={s}"));
        format!("{}/api/games?after={}&limit={limit}{status}", app.base, last.id)
    });
    Ok(Json(json!({ "games": rows.iter().map(summary).collect::<Vec<_>>(), "next": next })))
}

async fn lobby(State(app): State<AppState>) -> Result<Html<String>, ApiError> {
    let rows = app.games.store().recent(100, None, None).await?;
    let esc = |s: &str| s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;");
    let mut items = String::new();
    for g in &rows {
        items.push_str(&format!(
            "<tr><td><a href=\"{base}/api/games/{id}\">{id}</a></td><td>{}</td><td>{} – {}</td><td>{}</td><td><a href=\"{base}/api/games/{id}/record\">record</a></td></tr>\n",
            esc(&g.variant),
            esc(&g.white_player),
            esc(&g.black_player),
            esc(g.result.as_deref().unwrap_or(&g.status)),
            id = esc(&g.id),
            base = app.base,
        ));
    }
    Ok(Html(format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>fairylab</title></head><body>\
         <h1>fairylab</h1><p>Chess variants over HTTP and WebSocket: see the <a href=\"{base}/api\">API documentation</a> \
         and the <a href=\"{base}/api/variants\">variants</a>.</p><h2>Games</h2>\
         <table><thead><tr><th>game</th><th>variant</th><th>players</th><th>state</th><th></th></tr></thead>\
         <tbody>\n{items}</tbody></table></body></html>",
        base = app.base
    )))
}

/// `POST /api/games`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateGame {
    variant: String,
    /// `me`, `invite`, `ai`, `ai:engine`, `ai:blind`, `ai:level1` to `ai:level8`.
    white: String,
    black: String,
    fen: Option<String>,
    snowfall: Option<u8>,
    movetime_ms: Option<u64>,
    /// Predictor chess: the commitment deadline of each ply, in seconds.
    ply_seconds: Option<u64>,
    /// Clocks: each side's time, in seconds (none: no clocks).
    clock_seconds: Option<u64>,
    /// Clocks: the increment per move, in seconds.
    increment_seconds: Option<u64>,
    /// A custom variant's definition (TOML, docs/FORMATS.md § Variant files); `variant` must be
    /// its name.
    variant_toml: Option<String>,
    /// The game's first moves, imported: PGN movetext (SAN or UCI, numbers and comments
    /// allowed) from `fen` or the variant's start, or a whole PGN record of the variant.
    pgn: Option<String>,
    /// A rematch's game id and the SHA-256 of its seats' tokens, set by the server (`rematch`),
    /// never by a request.
    #[serde(skip)]
    preset: Option<(String, [Option<String>; 2])>,
    /// A rematch between two people, set by the server: both seats are `me` (their holders'
    /// tokens preset) but the board is not one person's.
    #[serde(skip)]
    two_people: bool,
    /// The client's address, set by the server (for the custom variants' allowance).
    #[serde(skip)]
    client: Option<std::net::IpAddr>,
}

/// `message` with each `line N` counted `by` lines fewer (lines added before the sender's text).
fn shift_lines(message: &str, by: usize) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find("line ") {
        let (before, after) = rest.split_at(at + 5);
        out.push_str(before);
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        match after[..digits].parse::<usize>() {
            Ok(n) if n > by => out.push_str(&(n - by).to_string()),
            _ => out.push_str(&after[..digits]),
        }
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

/// The refusal of a Chess960 record without its start position: the reader would start it from
/// the standard one.
fn no_chess960_start(v: &rules::Variant) -> ApiError {
    ApiError::bad(format!(
        "a Chess960 record needs its FEN tag (or the game's fen): a {} game does not start from the standard position",
        v.name
    ))
}

/// Reads the moves a new game imports (`pgn`): the record's start position and moves. Its
/// variant must be the game's (movetext alone is read as the game's variant from `fen`).
/// Whether a client's text is longer than `max` characters (Unicode scalar values, as JSON
/// Schema's `maxLength` counts them), blanks at its ends included.
fn too_long(text: &str, max: usize) -> bool {
    text.len() > max && text.chars().nth(max).is_some()
}

/// A start position a client sent: at most [`MAX_FIELD`] characters, a FEN of `v`.
fn client_fen(v: &'static rules::Variant, f: &str) -> Result<Position, ApiError> {
    if too_long(f, MAX_FIELD) {
        return Err(ApiError::bad("the FEN is too long"));
    }
    Position::from_fen(v, f).map_err(|e| ApiError::bad(format!("invalid FEN: {e}")))
}

/// The tags a game's record takes from the server and the game, never from an imported record.
fn server_tag(name: &str) -> bool {
    const SERVER: [&str; 13] = [
        "Result",
        "Termination",
        "GameId",
        "SeedHash",
        "Seed",
        "VariantSha256",
        crate::seed::SETUP_TAG,
        "Variant",
        "SetUp",
        "FEN",
        "SnowFall",
        "ProbabilisticOptions",
        "Probabilities",
    ];
    SERVER.iter().any(|t| t.eq_ignore_ascii_case(name))
}

fn import_record(text: &str, v: &'static rules::Variant, fen: Option<&str>) -> Result<rules::record::Record, ApiError> {
    if v.simultaneous {
        return Err(ApiError::bad("Predictor chess games cannot import moves: each ply is ordered in secret"));
    }
    if v.chance != rules::chance::ChanceRule::None {
        return Err(ApiError::bad(format!(
            "{} games cannot import moves: every outcome of a game comes from its own seed",
            v.name
        )));
    }
    // Movetext alone gets the variant's tags, lines the sender did not write: errors count
    // the sender's lines.
    let (text, added) = if text.trim_start().starts_with('[') {
        if fen.is_some() {
            return Err(ApiError::bad("give the start position in the record's FEN tag or in fen, not both"));
        }
        (text.to_string(), 0)
    } else {
        if fen.is_none() && rules::variants::chess960::is_chess960(v) {
            return Err(no_chess960_start(v));
        }
        let mut tags = format!("[Variant \"{}\"]\n", v.name);
        if let Some(f) = fen {
            // Checked before it becomes a tag: text that is not a FEN (a quote, a line break)
            // must not be read as more of the record.
            client_fen(v, f)?;
            tags.push_str(&format!("[SetUp \"1\"]\n[FEN \"{f}\"]\n"));
        }
        let added = tags.lines().count() + 1;
        (format!("{tags}\n{text}"), added)
    };
    let rec = rules::record::read_record_with(&text, &[v]).map_err(|e| {
        ApiError::bad(format!("the moves to import do not read: {}", shift_lines(&e.to_string(), added)))
    })?;
    // Without a FEN the reader starts from the standard position, which is not a Chess960
    // game's (its start was drawn).
    if rules::variants::chess960::is_chess960(v) && rec.tag("FEN").is_none() {
        return Err(no_chess960_start(v));
    }
    let got = &rec.game.start().variant().name;
    if got != &v.name {
        return Err(ApiError::bad(format!("the record is a game of {got}, not {}", v.name)));
    }
    if let Some(e) = crate::line::move_after_end(&rec.game) {
        return Err(ApiError::bad(format!("the moves to import do not read: {e}")));
    }
    // A result the moves contradict is refused: the reader refuses one a mate or a stalemate
    // contradicts; a repetition or fifty moves, which a record may play on, end a game here
    // with its last move, so a result they contradict is refused too.
    let said = rec.tag("Result").filter(|r| ["1-0", "0-1", "1/2-1/2"].contains(r));
    if let (Some(said), Some(o)) = (said, rec.game.outcome()) {
        if said != o.result() {
            let (result, reason) = outcome_text(o);
            return Err(ApiError::bad(format!(
                "the record says {said}, but its moves end the game {result} ({reason})"
            )));
        }
    }
    Ok(rec)
}

async fn create_game(
    State(app): State<AppState>,
    peer: Option<axum::Extension<axum::extract::ConnectInfo<SocketAddr>>>,
    headers: axum::http::HeaderMap,
    body: Result<JsonBody<CreateGame>, ApiError>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let JsonBody(mut c) = body?;
    c.client = client_address(&app, &headers, peer.map(|p| p.0 .0));
    count_new_game(&app, c.client)?;
    Ok((StatusCode::CREATED, Json(new_game(&app, c).await?)))
}

/// Creates a game (`POST /api/games`, or a rematch with its preset id and tokens) and answers
/// its id, seats and state.
async fn new_game(app: &AppState, c: CreateGame) -> Result<Value, ApiError> {
    for (name, text) in [("variant", &c.variant), ("white", &c.white), ("black", &c.black)] {
        if too_long(text, MAX_FIELD) {
            return Err(ApiError::bad(format!("{name} is longer than {MAX_FIELD} characters")));
        }
    }
    if c.fen.as_deref().is_some_and(|f| too_long(f, MAX_FIELD)) {
        return Err(ApiError::bad("the FEN is too long"));
    }
    let custom = match &c.variant_toml {
        Some(text) => {
            let v = crate::live::new_custom_variant(text, c.client).map_err(|(busy, e)| match busy {
                true => ApiError::new(StatusCode::TOO_MANY_REQUESTS, e),
                false => ApiError::bad(format!("variant_toml: {e}")),
            })?;
            if rules::variants::by_name(&v.name).is_some() {
                return Err(ApiError::bad(format!("a custom variant may not take the built-in name '{}'", v.name)));
            }
            if v.name != c.variant {
                return Err(ApiError::bad(format!(
                    "variant '{}' differs from the name '{}' in variant_toml",
                    clip(&c.variant),
                    v.name
                )));
            }
            Some(v)
        }
        None => None,
    };
    let base = custom.or_else(|| rules::variants::by_name(&c.variant)).ok_or_else(|| {
        let known: Vec<&str> =
            rules::variants::all().iter().filter(|v| !v.simultaneous).map(|v| v.name.as_str()).collect();
        ApiError::bad(format!("unknown variant '{}' (known: {})", clip(&c.variant), known.join(", ")))
    })?;
    if c.ply_seconds.is_some() && !base.simultaneous {
        return Err(ApiError::bad(format!("{} has no ply_seconds option (Predictor chess only)", base.name)));
    }
    let seed = GameSeed::random();
    let mut setup = seed.setup_rng();
    let mut options = json!({});
    // What the seed draws for the setup, in the order drawn (`verify-game` replays them).
    let mut drawn: Vec<&str> = Vec::new();
    if let Some(text) = &c.variant_toml {
        options["toml"] = json!(text);
    }
    let v = match rules::variants::snowfall::percent(base) {
        Some(_) => {
            let n = match c.snowfall {
                Some(n) if n <= 100 => n,
                Some(n) => return Err(ApiError::bad(format!("snowfall {n} is not a percentage (0 to 100)"))),
                None => {
                    drawn.push("snowfall");
                    rules::variants::snowfall::draw_percent(&mut setup)
                }
            };
            options["snowfall"] = json!(n);
            if custom.is_some() {
                options["custom_percent"] = json!(true);
            }
            variant_of(&base.name, &options).ok_or_else(|| ApiError::bad("snowfall percentage"))?
        }
        None if c.snowfall.is_some() => return Err(ApiError::bad(format!("{} has no snowfall option", base.name))),
        None => base,
    };
    // A blank FEN is none (the variant's start, or one drawn from the seed), as a line's is.
    let fen = c.fen.as_deref().map(str::trim).filter(|f| !f.is_empty());
    let imported = match &c.pgn {
        Some(text) => Some(import_record(text, v, fen)?),
        None => None,
    };
    let start = match (&imported, fen, rules::variants::probabilistic::options(v)) {
        (Some(r), _, _) => r.game.start().clone(),
        // A Probabilistic position without its map (six fields) gets one drawn from the seed,
        // for where its kings stand.
        (None, Some(f), Some(_)) if f.split_whitespace().count() == 6 => {
            let placeholder = rules::square_map::SquareMap::uniform(100).write(rules::Bitboard::EMPTY, v.geometry);
            let pos = Position::from_fen(v, &format!("{f} {placeholder}"))
                .map_err(|e| ApiError::bad(format!("invalid FEN: {e}")))?;
            drawn.push("map");
            rules::variants::probabilistic::draw_map(&pos, &mut setup)
        }
        (None, Some(f), _) => client_fen(v, f)?,
        (None, None, Some(_)) => {
            drawn.push("map");
            rules::variants::probabilistic::draw_map(&Position::start(v), &mut setup)
        }
        // A Chess960 game draws its start position from the seed.
        (None, None, None) if rules::variants::chess960::is_chess960(v) => {
            drawn.push("start");
            let (n, fen) = rules::variants::chess960::random_start(v, &mut setup);
            options["chess960"] = json!(n);
            Position::from_fen(v, &fen).map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?
        }
        (None, None, None) => Position::start(v),
    };
    if let Some(o) = start.outcome() {
        return Err(ApiError::bad(format!("the start position is already decided: {o}")));
    }
    if !drawn.is_empty() {
        options["drawn"] = json!(drawn);
    }
    // How many of the first moves were imported (the game may be aborted until both sides have
    // moved after them).
    if let Some(n) = imported.as_ref().map(|r| r.game.moves().len()).filter(|&n| n > 0) {
        options["imported"] = json!(n);
    }
    // A record the import finishes is an archived game: its own tags (players, event, date,
    // ratings, opening) are its record's, the server's own excepted.
    if let Some(r) = imported.as_ref().filter(|r| {
        r.game.outcome().is_some() || r.tag("Result").is_some_and(|t| ["1-0", "0-1", "1/2-1/2"].contains(&t))
    }) {
        let kept: Vec<Value> =
            r.tags.iter().filter(|(n, _)| !server_tag(n)).map(|(n, value)| json!([n, value])).collect();
        if !kept.is_empty() {
            options["import_tags"] = json!(kept);
        }
    }
    let movetime = c.movetime_ms.unwrap_or(500);
    let most = app.limits.max_movetime_ms;
    if !(10..=most).contains(&movetime) {
        return Err(ApiError::bad(format!("movetime_ms {movetime} is outside 10 to {most}")));
    }
    let mut seats = Vec::new();
    let mut reply = json!({});
    if let Some(n) = c.ply_seconds {
        if !(1..=86_400).contains(&n) {
            return Err(ApiError::bad(format!("ply_seconds {n} is outside 1 to 86400")));
        }
        options["ply_seconds"] = json!(n);
    }
    match (c.clock_seconds, c.increment_seconds) {
        (None, Some(_)) => return Err(ApiError::bad("increment_seconds needs clock_seconds")),
        (Some(_), _) if v.simultaneous => {
            return Err(ApiError::bad("Predictor chess is timed by ply_seconds, not clock_seconds"))
        }
        (Some(t), _) if !(1..=86_400).contains(&t) => {
            return Err(ApiError::bad(format!("clock_seconds {t} is outside 1 to 86400")))
        }
        (Some(_), Some(i)) if i > 3600 => {
            return Err(ApiError::bad(format!("increment_seconds {i} is outside 0 to 3600")))
        }
        (Some(t), i) => {
            let clock = crate::clock::Clock { initial_ms: t as i64 * 1000, increment_ms: i.unwrap_or(0) as i64 * 1000 };
            options["clock"] = clock.to_json();
        }
        (None, None) => {}
    }
    if c.white == "me" && c.black == "me" && !c.two_people {
        options["one_person"] = json!(true);
    }
    for (color, who) in [(Color::White, &c.white), (Color::Black, &c.black)] {
        // The seat's holder: a token for the creator, an invitation code for a friend, the
        // open-seat mark for anyone, or nothing for the AI; what is stored is the token's and
        // the code's SHA-256.
        let preset = c.preset.as_ref().and_then(|(_, hashes)| hashes[color.index()].clone());
        let (player, token, invite, stored_invite) = match who.as_str() {
            // A rematch's seat: its holder derives the token (`rematch_token`).
            "me" if preset.is_some() => (Player::Human, None, None, None),
            "me" => (Player::Human, Some(random_hex(32)), None, None),
            "invite" => {
                let code = random_hex(16);
                let hash = sha256_hex(&code);
                (Player::Human, None, Some(code), Some(hash))
            }
            "open" => (Player::Human, None, None, Some(OPEN_SEAT.to_string())),
            other => match Player::parse(other) {
                Some(p @ Player::Ai(_)) => (p, None, None, None),
                _ => {
                    return Err(ApiError::bad(format!(
                        "{color} is '{}': use me, invite, open, ai, ai:engine, ai:blind or ai:level1 to ai:level8",
                        clip(other)
                    )))
                }
            },
        };
        reply[color.to_string()] = json!({
            "player": player.name(), "token": token, "invite": invite, "open": who.as_str() == "open",
        });
        let hash = preset.or_else(|| token.as_deref().map(sha256_hex));
        seats.push((player, hash, stored_invite));
    }
    let id = c.preset.as_ref().map_or_else(|| random_hex(8), |(id, _)| id.clone());
    let now = now_ms();
    let row = GameRow {
        id: id.clone(),
        variant: v.name.clone(),
        options: options.to_string(),
        start_fen: start.fen(),
        white_player: seats[0].0.name().into(),
        black_player: seats[1].0.name().into(),
        white_token: seats[0].1.clone(),
        black_token: seats[1].1.clone(),
        white_invite: seats[0].2.clone(),
        black_invite: seats[1].2.clone(),
        seed: seed.to_hex(),
        seed_hash: seed.commitment(),
        movetime_ms: movetime as i64,
        status: "active".into(),
        result: None,
        reason: None,
        created_at: now,
        updated_at: now,
        draw_offer: None,
        takeback_offer: None,
        takebacks: 0,
        rematch_offer: None,
        rematch: None,
    };
    app.games.store().create_game(&row).await?;
    if let Some(owners) = &app.owners {
        // The creator owns the game (nobody else knows it yet).
        app.games.store().claim(&row.id, &owners.id, now, now).await?;
        app.games.own(&row.id);
    }
    let mut live = if v.simultaneous {
        // The seated creators are their sides' captains, rank 1; an AI side is a team of one
        // whose token nobody holds.
        for (color, (player, hash, _)) in Color::ALL.into_iter().zip(&seats) {
            match (player, hash) {
                (_, Some(h)) => add_captain(app, &row.id, color, h, now).await?,
                (Player::Ai(_), None) => add_captain(app, &row.id, color, &sha256_hex(&random_hex(32)), now).await?,
                _ => {}
            }
        }
        LiveGame::replay_predictor(row, app.games.store().as_ref()).await?
    } else {
        LiveGame::replay(row, &[])?
    };
    // Imported moves are played as moves are (stored, then the game ends if they end it); a
    // record with a result ends with it (lichess's imported games are finished games).
    let moves = imported.as_ref().map_or(&[][..], |r| r.game.moves());
    for (i, &m) in moves.iter().enumerate() {
        if live.row.status != "active" {
            break;
        }
        // An unclaimed repetition or fifty moves before the last imported move ends nothing.
        commit_move_as(app, &mut live, m, i + 1 == moves.len()).await?;
    }
    let result = imported.as_ref().and_then(|r| r.tag("Result")).filter(|r| ["1-0", "0-1", "1/2-1/2"].contains(r));
    if let Some(result) = result.filter(|_| live.row.status == "active") {
        finish(app, &mut live, result, "imported").await?;
    }
    reply["id"] = json!(id);
    reply["seed_hash"] = json!(live.row.seed_hash);
    reply["state"] = public_state(app, &live);
    // The lobby hears of it (here and, relayed, in the other processes).
    announce(app, &live, "created", summary(&live.row)).await;
    let g = app.games.insert(live);
    schedule_ai(app, &g).await;
    schedule_deadline(app, &g).await;
    Ok(reply)
}

async fn game(app: &AppState, id: &str) -> Result<Arc<Mutex<LiveGame>>, ApiError> {
    if id.len() > 64 {
        return Err(ApiError::not_found(id));
    }
    app.games.get(id).await?.ok_or_else(|| ApiError::not_found(id))
}

async fn game_state(State(app): State<AppState>, Path(id): Path<String>, _: NoQuery) -> Result<Json<Value>, ApiError> {
    let g = game(&app, &id).await?;
    let g = g.lock().await;
    Ok(Json(public_state(&app, &g)))
}

/// A game's public state ([`LiveGame::state`]) with this server's first-move deadline:
/// `first_move` is `{side, ms_left}` while a person must make their first move before the game
/// is aborted ([`LiveGame::abort_at`]), else null.
fn public_state(app: &AppState, live: &LiveGame) -> Value {
    let mut v = live.state();
    let first = live.abort_at(app.first_move_ms).zip(live.to_move());
    v["first_move"] =
        first.map_or(Value::Null, |(at, side)| json!({ "side": side.to_string(), "ms_left": (at - now_ms()).max(0) }));
    v
}

/// The query of `GET .../record`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RecordQuery {
    /// With the game's review as annotations (a finished game; reviewed first if need be).
    #[serde(default)]
    annotated: bool,
}

async fn record(
    State(app): State<AppState>,
    Path(id): Path<String>,
    query: Result<Query<RecordQuery>, QueryRejection>,
) -> Result<impl IntoResponse, ApiError> {
    let Query(q) = query?;
    let g = game(&app, &id).await?;
    let annotations =
        if q.annotated { crate::analysis::review_annotations(&review_of(&app, &g).await?) } else { Vec::new() };
    let text = g.lock().await.record_annotated(&annotations);
    Ok(([(header::CONTENT_TYPE, "application/x-chess-pgn; charset=utf-8")], text))
}

/// `GET /api/games/{id}/odds`: a SnowFall game's live odds (crate::odds), computed off the
/// async workers once a ply (kept with the game for whoever asks next).
async fn odds(State(app): State<AppState>, Path(id): Path<String>) -> Result<Json<Value>, ApiError> {
    let g = game(&app, &id).await?;
    let (pos, active, at, kept) = {
        let g = g.lock().await;
        let at = (g.game.moves().len(), g.row.takebacks);
        let kept = g.odds.as_ref().filter(|(for_at, _)| *for_at == at).map(|(_, r)| r.clone());
        (g.game.position().clone(), g.row.status == "active", at, kept)
    };
    if rules::variants::snowfall::percent(pos.variant()).is_none() {
        return Err(ApiError::bad("odds are for SnowFall games"));
    }
    if !active {
        return Err(ApiError::conflict("the game is over"));
    }
    let report = match kept {
        Some(r) => r,
        None => {
            let r = blocking("the odds", move || crate::odds::report(&pos))
                .await?
                .ok_or_else(|| ApiError::conflict("the side to move has no move"))?;
            let r = Arc::new(r);
            // Kept for the position it is for, if the game is still there.
            let mut g = g.lock().await;
            if (g.game.moves().len(), g.row.takebacks) == at {
                g.odds = Some((at, r.clone()));
            }
            r
        }
    };
    let mut report = (*report).clone();
    report["ply"] = json!(at.0);
    Ok(Json(report))
}

/// The query of `GET /api/odds`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct OddsQuery {
    /// A SnowFall position (hands in brackets).
    fen: String,
    /// The gift percentage (default the variant's 17).
    snowfall: Option<u8>,
}

/// `GET /api/odds`: the SnowFall odds of any position (as `fairylab snowfall odds --fen`), on
/// an analysis worker: the analysis board's explainer.
async fn odds_of_position(
    State(app): State<AppState>,
    query: Result<Query<OddsQuery>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let Query(q) = query?;
    let percent = q.snowfall.unwrap_or(rules::variants::snowfall::DEFAULT_PERCENT);
    if percent > 100 {
        return Err(ApiError::bad(format!("snowfall {percent} is not a percentage (0 to 100)")));
    }
    let v = rules::variants::snowfall::variant(percent);
    let pos = Position::from_fen(v, q.fen.trim()).map_err(|e| ApiError::bad(format!("invalid FEN: {e}")))?;
    let permit = analysis_worker(&app).await?;
    let report = blocking("the odds", move || crate::odds::report(&pos)).await?;
    drop(permit);
    Ok(Json(report.ok_or_else(|| ApiError::conflict("the side to move has no move"))?))
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct AnalyseRequest {
    /// The position after this many plies (default: the current one).
    ply: Option<usize>,
    /// The search time, 10 to 5000 ms (default 1000).
    movetime_ms: Option<u64>,
    /// The best lines wanted, 1 to 5 (default 1).
    lines: Option<usize>,
}

/// Nodes a game review searches in each position: about 20 ms each on one core, so a game of
/// 80 plies is reviewed in about 2 s (twice that with chance, where each move is searched
/// again for its expected value); a node count makes the review the same every time.
pub const REVIEW_NODES: u64 = 50_000;

/// `GET /api/games/{id}/review`: a finished game reviewed as lichess's computer analysis
/// reviews it (`engine::review`, JSON as `analysis::review_json`); computed once, on a free AI
/// worker, then kept with the game.
async fn review(State(app): State<AppState>, Path(id): Path<String>, _: NoQuery) -> Result<Json<Value>, ApiError> {
    let g = game(&app, &id).await?;
    Ok(Json(review_of(&app, &g).await?))
}

/// A finished game's review: kept with the game (in memory and in the store), or computed on
/// a free analysis worker and kept.
async fn review_of(app: &AppState, g: &Arc<Mutex<LiveGame>>) -> Result<Value, ApiError> {
    let (id, game) = {
        let live = g.lock().await;
        if live.predictor.is_some() {
            return Err(ApiError::bad("Predictor chess games are not reviewed (both sides move at once)"));
        }
        if live.row.status == "active" {
            return Err(ApiError::conflict("the game is still on: it is reviewed once it is over"));
        }
        if let Some(r) = &live.review {
            return Ok((**r).clone());
        }
        if live.game.moves().is_empty() {
            return Err(ApiError::conflict("the game has no moves to review"));
        }
        (live.row.id.clone(), live.game.clone())
    };
    let kept = app.games.store().review(&id).await?.and_then(|text| serde_json::from_str::<Value>(&text).ok());
    if let Some(report) = kept {
        g.lock().await.review = Some(Arc::new(report.clone()));
        return Ok(report);
    }
    let permit = analysis_worker(app).await?;
    let limits = engine::review::ReviewLimits {
        per_position: engine::Limits::nodes(REVIEW_NODES),
        // One analysis worker's share of the machine.
        threads: 1,
        tables: crate::analysis::tables().cloned(),
    };
    let report = blocking("the review", move || {
        let r = engine::review::review(&game, &limits, |_, _| {});
        crate::analysis::review_json(&r, game.start())
    })
    .await?;
    drop(permit);
    let now = now_ms();
    let mut report = report;
    report["reviewed_at"] = json!(now);
    app.games.store().save_review(&id, REVIEW_NODES as i64, &report.to_string(), now).await?;
    g.lock().await.review = Some(Arc::new(report.clone()));
    Ok(report)
}

/// `POST /api/games/{id}/analyse`: the engine's evaluation and best line for a position of the
/// game, and the endgame tables' verdict; the search waits for a free AI worker.
async fn analyse(
    State(app): State<AppState>,
    Path(id): Path<String>,
    body: Result<JsonBody<AnalyseRequest>, ApiError>,
) -> Result<Json<Value>, ApiError> {
    let JsonBody(req) = body?;
    let (movetime, lines) = search_limits(req.movetime_ms, req.lines)?;
    let g = game(&app, &id).await?;
    let (pos, hashes, ply) = {
        let live = g.lock().await;
        if live.predictor.is_some() {
            return Err(ApiError::bad("Predictor chess has no sequential position to analyse"));
        }
        if !live.engine_help() {
            return Err(ApiError::conflict(
                "no engine during a game between two people: the game is analysed once it is over",
            ));
        }
        let played = live.game.moves().len();
        let ply = req.ply.unwrap_or(played);
        if ply > played {
            return Err(ApiError::bad(format!("ply {ply} is past the game's {played} plies")));
        }
        let mut pos = live.game.start().clone();
        for (m, e) in live.game.moves().iter().zip(live.game.events()).take(ply) {
            pos.play_event(*m, *e);
        }
        // The positions before the one analysed (the engine adds the root itself).
        (pos, live.game.hashes()[..ply].to_vec(), ply)
    };
    let fen = pos.fen();
    let mut report = search(&app, pos, hashes, movetime, lines).await?;
    report["ply"] = json!(ply);
    report["fen"] = json!(fen);
    Ok(Json(report))
}

/// The search time (ms, 10 to 5000, default 1000) and lines (1 to 5, default 1) an analysis
/// asks for.
fn search_limits(movetime_ms: Option<u64>, lines: Option<usize>) -> Result<(u64, usize), ApiError> {
    let movetime = movetime_ms.unwrap_or(1000);
    if !(10..=5000).contains(&movetime) {
        return Err(ApiError::bad("movetime_ms must be from 10 to 5000"));
    }
    let lines = lines.unwrap_or(1);
    if !(1..=5).contains(&lines) {
        return Err(ApiError::bad("lines must be from 1 to 5"));
    }
    Ok((movetime, lines))
}

/// The engine on `pos` (`hashes`: the positions before it), on a free analysis worker
/// (`crate::analysis::analyse`); 409 for a position where the game is over.
async fn search(
    app: &AppState,
    pos: Position,
    hashes: Vec<u64>,
    movetime: u64,
    lines: usize,
) -> Result<Value, ApiError> {
    if pos.outcome().is_some() || !pos.has_legal_move() {
        return Err(ApiError::conflict("the game is over in this position: nothing to analyse"));
    }
    let permit = analysis_worker(app).await?;
    let report = blocking("the analysis", move || {
        crate::analysis::analyse(&pos, &hashes, Duration::from_millis(movetime), lines)
    })
    .await?;
    drop(permit);
    Ok(report)
}

/// A free analysis worker (waited for), or 503 with `Retry-After` when
/// [`crate::analysis::WAITING_PER_WORKER`] requests a worker wait already.
async fn analysis_worker(app: &AppState) -> Result<tokio::sync::OwnedSemaphorePermit, ApiError> {
    app.analysis.acquire().await.ok_or_else(|| ApiError {
        retry_after: Some(ANALYSIS_RETRY_SECONDS),
        ..ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "the analysis workers are busy; try again in a few seconds")
    })
}

/// The wait a refusal for busy analysis workers asks for (`Retry-After`, seconds).
const ANALYSIS_RETRY_SECONDS: u64 = 5;

/// The bearer token of a request.
fn bearer(headers: &HeaderMap) -> Result<String, ApiError> {
    let value = headers.get(header::AUTHORIZATION).ok_or_else(|| {
        ApiError::new(StatusCode::UNAUTHORIZED, "this needs your game token: Authorization: Bearer <token>")
    })?;
    let text =
        value.to_str().map_err(|_| ApiError::new(StatusCode::UNAUTHORIZED, "the Authorization header is not text"))?;
    // The scheme is case-insensitive (RFC 7235).
    let token = text
        .get(..7)
        .filter(|scheme| scheme.eq_ignore_ascii_case("bearer "))
        .map(|_| &text[7..])
        .ok_or_else(|| ApiError::new(StatusCode::UNAUTHORIZED, "use Authorization: Bearer <token>"))?;
    if token.len() > 128 {
        return Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "the token is longer than any token (at most 128 characters)",
        ));
    }
    Ok(token.trim().to_string())
}

/// The side whose token this is.
fn side_of(g: &LiveGame, token: &str) -> Result<Color, ApiError> {
    let h = sha256_hex(token);
    if g.row.white_token.as_deref() == Some(&h) {
        Ok(Color::White)
    } else if g.row.black_token.as_deref() == Some(&h) {
        Ok(Color::Black)
    } else {
        Err(ApiError::forbidden("the token is not valid for this game"))
    }
}

/// The side whose seat token this is, for what only a seat's holder may do (`what`: `resign`,
/// `abort the game`, ...). In Predictor chess the seat's token is the side's captain's; a team
/// member's token is refused as such (403), not as a stranger's.
fn seat_of(live: &LiveGame, token: &str, what: &str) -> Result<Color, ApiError> {
    side_of(live, token).map_err(|e| match member_of(live, token) {
        Ok((side, name)) => ApiError::forbidden(format!(
            "a team member's token ({name}, {side}): only the captain (the seat's token) may {what}"
        )),
        Err(_) => e,
    })
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Join {
    /// The invitation code; none to take a seat open to anyone.
    code: Option<String>,
}

async fn join_game(
    State(app): State<AppState>,
    Path(id): Path<String>,
    body: Result<JsonBody<Join>, ApiError>,
) -> Result<Json<Value>, ApiError> {
    let JsonBody(j) = body?;
    let shared = game(&app, &id).await?;
    let mut g = shared.lock().await;
    if g.row.status != "active" {
        return Err(ApiError::conflict("the game is over: its seats can no longer be taken"));
    }
    // With a code, the seat it opens; without, the first seat open to anyone.
    let h = j.code.as_deref().map_or_else(|| OPEN_SEAT.to_string(), sha256_hex);
    let color = if g.row.white_invite.as_deref() == Some(&h) {
        Color::White
    } else if g.row.black_invite.as_deref() == Some(&h) {
        Color::Black
    } else if j.code.is_none() {
        return Err(ApiError::forbidden("no seat of this game is open to anyone: joining needs the invitation code"));
    } else {
        return Err(ApiError::forbidden("the invitation is not valid for this game (or was already used)"));
    };
    let token = random_hex(32);
    let token_hash = sha256_hex(&token);
    let now = now_ms();
    if !app.games.store().join(&id, color == Color::White, &h, &token_hash, now).await? {
        return Err(ApiError::forbidden("the invitation was already used (or the game is over)"));
    }
    g.row.updated_at = now;
    if let Some(t) = g.predictor.as_mut() {
        add_captain(&app, &id, color, &token_hash, now).await?;
        let captain = crate::predictor::Member { name: color.to_string(), rank: 1, token: token_hash.clone() };
        t.add_member(color, captain).map_err(|e| ApiError::conflict(e.to_string()))?;
    }
    match color {
        Color::White => (g.row.white_invite, g.row.white_token) = (None, Some(token_hash)),
        Color::Black => (g.row.black_invite, g.row.black_token) = (None, Some(token_hash)),
    }
    if g.row.open_seat().is_none() {
        if let Some(t) = g.predictor.as_mut() {
            t.seated(now);
        }
    }
    announce(&app, &g, "joined", json!({ "color": color.to_string() })).await;
    drop(g);
    // Both seats may be held now: the first move's deadline starts, or a Predictor ply's.
    schedule_deadline(&app, &shared).await;
    Ok(Json(json!({ "token": token, "color": color.to_string() })))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveRequest {
    /// The move in UCI (`e2e4`, `Q@f7`) or SAN.
    #[serde(rename = "move")]
    mv: String,
    /// The ply the client means to play (0 for the first move): a stale or replayed move is refused.
    ply: Option<u64>,
}

async fn make_move(
    State(app): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Result<JsonBody<MoveRequest>, ApiError>,
) -> Result<Json<Value>, ApiError> {
    let token = bearer(&headers)?;
    let JsonBody(req) = body?;
    let g = game(&app, &id).await?;
    let reply = {
        let mut live = g.lock().await;
        if live.predictor.is_some() {
            return Err(ApiError::bad(
                "Predictor chess is played by commitments and reveals (POST .../commit, .../reveal)",
            ));
        }
        let color = seat_of(&live, &token, "move")?;
        // A retry of a move that was stored (its reply lost): answered as the move was.
        if let Some(p) = req.ply.filter(|&p| p < live.game.moves().len() as u64) {
            if let Some(reply) = repeated_move(&live, p as usize, color, &req.mv) {
                return Ok(Json(reply));
            }
        }
        let Some(turn) = live.to_move() else {
            return Err(ApiError::conflict(format!(
                "the game is over ({})",
                live.row.result.as_deref().unwrap_or("?")
            )));
        };
        let ply = live.game.moves().len() as u64;
        if let Some(p) = req.ply {
            if p != ply {
                return Err(ApiError::conflict(format!(
                    "ply {p} is not the current ply {ply} (a stale or replayed move)"
                )));
            }
        }
        if turn != color {
            return Err(ApiError::conflict(format!("it is {turn}'s turn, not {color}'s")));
        }
        if live.flag_at().is_some_and(|t| t <= now_ms()) {
            flag(&app, &mut live).await?;
            return Err(ApiError::conflict(format!("{color} has run out of time")));
        }
        if live.abort_at(app.first_move_ms).is_some_and(|t| t <= now_ms()) {
            let ended = if live.abortable() { "the game is aborted" } else { "the game ends on time" };
            no_first_move(&app, &mut live).await?;
            return Err(ApiError::conflict(format!(
                "{color} did not make a first move within {} s: {ended}",
                app.first_move_ms / 1000
            )));
        }
        if too_long(&req.mv, 32) {
            return Err(ApiError::bad("the move text is too long"));
        }
        let pos = live.game.position();
        // UCI first; text that is UCI but illegal is said as such, other text is read as SAN.
        let text = req.mv.trim();
        let mv = match rules::uci::parse_uci(pos, text) {
            Ok(m) => Ok(m),
            // Well-formed UCI that is not legal: why, in words ("e8 is not empty").
            Err(rules::uci::UciError::Illegal { .. }) => match crate::line::promotion_of(pos, &req.mv) {
                Some(full) => Err(format!("illegal move '{}': a promotion needs its piece, e.g. {full}", clip(text))),
                None => Err(format!("illegal move '{}': {}", clip(text), rules::explain::why_not(pos, text))),
            },
            // SAN; refused with its reason in words ("no white pawn can move to e5").
            Err(_) => rules::san::parse_san(pos, text)
                .map_err(|_| format!("illegal move '{}': {}", clip(text), rules::explain::why_not(pos, text))),
        }
        .map_err(ApiError::bad)?;
        commit_move(&app, &mut live, mv).await?
    };
    schedule_ai(&app, &g).await;
    schedule_deadline(&app, &g).await;
    Ok(Json(reply))
}

/// The reply to a move sent again for a ply it was already played at, by the same side (a
/// retry whose first reply was lost), with `"repeated": true`; `None` if the ply holds another
/// move or another side's, which is then refused as a stale move.
fn repeated_move(live: &LiveGame, ply: usize, color: Color, text: &str) -> Option<Value> {
    let game = &live.game;
    let mut before = game.start().clone();
    for (&m, &e) in game.moves().iter().zip(game.events()).take(ply) {
        before.play_event(m, e);
    }
    let (m, e) = (*game.moves().get(ply)?, *game.events().get(ply)?);
    if before.turn() != color || too_long(text, 32) {
        return None;
    }
    let text = text.trim();
    let sent =
        rules::uci::parse_uci(&before, text).or_else(|_| rules::san::parse_san(&before, text).map_err(|_| ())).ok()?;
    if sent != m {
        return None;
    }
    let mut after = before.clone();
    after.play_event(m, e);
    let mut reply = json!({
        "ply": ply, "uci": rules::uci::to_uci(&before, m), "san": rules::san::to_san_event(&before, m, e),
        "event": event_text(e), "percent": crate::live::roll_percent(&before, m), "fen": after.fen(),
        "at": live.times.get(ply).copied().unwrap_or_default(), "status": live.row.status, "repeated": true,
    });
    if ply + 1 == game.moves().len() && game.outcome().is_some() {
        if let Some(r) = &live.row.result {
            reply["result"] = json!(r);
        }
    }
    Some(reply)
}

/// Stores a legal move with its chance outcome (drawn from the game's seed), then applies it,
/// publishes it, and finishes the game if it ended. The reply is the move's public record.
async fn commit_move(app: &AppState, live: &mut LiveGame, mv: rules::Move) -> Result<Value, ApiError> {
    commit_move_as(app, live, mv, true).await
}

/// [`commit_move`]; with `claimed` false a draw a player must claim (threefold repetition,
/// fifty moves) does not end the game: an imported game played elsewhere may have gone on.
async fn commit_move_as(
    app: &AppState,
    live: &mut LiveGame,
    mv: rules::Move,
    claimed: bool,
) -> Result<Value, ApiError> {
    let pos = live.game.position().clone();
    if !pos.is_legal(mv) {
        return Err(ApiError::bad("illegal move"));
    }
    let k = live.game.moves().len();
    let event = *pos.chance(mv).sample(&mut live.seed.ply_rng(k as u32));
    let now = now_ms();
    let row = MoveRow { ply: k as i64, uci: rules::uci::to_uci(&pos, mv), event: event_text(event), created_at: now };
    app.games.store().append_move(&live.row.id, &row).await.map_err(refused(app, &live.row.id))?;
    live.game.play_event(mv, event).map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    live.times.push(now);
    // A draw offer lapses when the side it was made to moves.
    if live.draw_offer.is_some_and(|c| c != pos.turn()) {
        set_offer(app, live, Offer::Draw, None).await?;
    }
    // A takeback proposal lapses when anyone moves.
    if live.takeback_offer.is_some() {
        set_offer(app, live, Offer::Takeback, None).await?;
    }
    let mut reply = json!({
        "ply": k, "uci": row.uci, "san": rules::san::to_san_event(&pos, mv, event), "event": row.event,
        "percent": crate::live::roll_percent(&pos, mv), "fen": live.game.position().fen(), "at": now,
    });
    if live.clock.is_some() {
        reply["clock"] = live.clock_state(now);
    }
    // The event is the reply: `status` says whether the move ended the game.
    let outcome = if claimed { live.game.outcome() } else { crate::line::final_outcome(&live.game) };
    reply["status"] = json!(if outcome.is_some() { "finished" } else { "active" });
    announce(app, live, "move", reply.clone()).await;
    if let Some(o) = outcome {
        let (result, reason) = outcome_text(o);
        finish(app, live, &result, &reason).await?;
        reply["result"] = json!(result);
    }
    reply["status"] = json!(live.row.status);
    Ok(reply)
}

/// Publishes an event to this process's streams and to the other processes sharing the store.
async fn announce(app: &AppState, live: &LiveGame, kind: &str, data: Value) {
    let text = live.publish(kind, data);
    if crate::live::LOBBY_EVENTS.contains(&kind) {
        app.games.lobby_changed(&live.row.id, kind);
    }
    if let Err(e) = app.games.store().notify(&live.row.id, &text).await {
        tracing::warn!("game {}: the event was not relayed: {e}", live.row.id);
    }
}

async fn finish(app: &AppState, live: &mut LiveGame, result: &str, reason: &str) -> Result<(), ApiError> {
    let now = now_ms();
    app.games.store().finish(&live.row.id, result, reason, now).await.map_err(refused(app, &live.row.id))?;
    live.row.updated_at = now;
    live.row.status = "finished".into();
    live.row.result = Some(result.into());
    live.row.reason = Some(reason.into());
    let end = json!({ "result": result, "reason": reason, "seed": live.row.seed });
    announce(app, live, "end", end).await;
    Ok(())
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AdminEnd {
    /// `1-0`, `0-1` or `1/2-1/2` (adjudicated), or `*` (aborted).
    result: String,
}

/// `POST /api/admin/games/{id}/end` `{"result"}` with the operator's token: the operator ends an
/// unfinished game, a result adjudicated (reason `adjudication`) or none (`*`, reason `aborted`),
/// as a club's arbiter does with an abandoned game. Refused (403) without the token or on a server
/// that has none; 409 once the game is over.
async fn admin_end(
    State(app): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Result<JsonBody<AdminEnd>, ApiError>,
) -> Result<Json<Value>, ApiError> {
    operator(&app, &headers, &id, "end")?;
    let JsonBody(req) = body?;
    let reason = match req.result.as_str() {
        "1-0" | "0-1" | "1/2-1/2" => "adjudication",
        "*" => "aborted",
        other => return Err(ApiError::bad(format!("result '{}': use 1-0, 0-1, 1/2-1/2 or *", clip(other)))),
    };
    let g = game(&app, &id).await?;
    let mut live = g.lock().await;
    if live.row.status != "active" {
        return Err(ApiError::conflict("the game is over"));
    }
    finish(&app, &mut live, &req.result, reason).await?;
    // The AI's search, if one runs, stops (its move is dropped), freeing its worker.
    live.ai_cancel.store(true, std::sync::atomic::Ordering::Relaxed);
    tracing::info!(game = %id, result = %req.result, "ended by the operator");
    Ok(Json(public_state(&app, &live)))
}

/// Refused (403) unless the request carries the operator's token (`serve --admin-token-file`).
fn operator(app: &AppState, headers: &HeaderMap, id: &str, what: &str) -> Result<(), ApiError> {
    let Some(admin) = &app.admin else {
        return Err(ApiError::forbidden("this server has no operator token (serve --admin-token-file)"));
    };
    let token = bearer(headers)?;
    if sha256_hex(&token) != *admin {
        tracing::warn!(game = %clip(id), "a request to {what} a game with a token not the operator's");
        return Err(ApiError::forbidden("not the operator's token"));
    }
    Ok(())
}

/// `DELETE /api/admin/games/{id}` with the operator's token: a game that is not being played is
/// deleted with all that is stored of it (`Store::delete_game`; the explorer of its variant is
/// rebuilt if it had counted it). Its watchers get a `deleted` event, other processes drop it
/// from memory. 409 while the game is played (end it first), 404 for no such game.
async fn admin_delete(
    State(app): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Result<Json<Value>, ApiError> {
    operator(&app, &headers, &id, "delete")?;
    no_body(&body)?;
    if id.len() > 64 {
        return Err(ApiError::not_found(&id));
    }
    let playing = || ApiError::conflict("the game is being played: end it first (POST /api/admin/games/{id}/end)");
    // A game in memory is held meanwhile: nothing is written to it while it goes.
    let cached = app.games.cached(&id);
    let live = match &cached {
        Some(g) => Some(g.lock().await),
        None => None,
    };
    if live.as_ref().is_some_and(|l| l.row.status == "active") {
        return Err(playing());
    }
    match app.games.store().delete_game(&id).await? {
        crate::store::Deletion::NoGame => Err(ApiError::not_found(&id)),
        crate::store::Deletion::Active => Err(playing()),
        crate::store::Deletion::Deleted { recount } => {
            let text = json!({ "type": "deleted", "game": id, "data": {} }).to_string();
            if let Some(l) = &live {
                let _ = l.events.send(text.clone());
            }
            drop(live);
            app.games.forget(&id).await;
            app.games.lobby_changed(&id, "deleted");
            if let Err(e) = app.games.store().notify(&id, &text).await {
                tracing::warn!("game {id}: the deletion was not relayed: {e}");
            }
            tracing::info!(game = %id, explorer_recounted = recount, "deleted by the operator");
            Ok(Json(json!({ "deleted": id, "explorer_recounted": recount })))
        }
    }
}

async fn resign(
    State(app): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Result<Json<Value>, ApiError> {
    let token = bearer(&headers)?;
    no_body(&body)?;
    let g = game(&app, &id).await?;
    let mut live = g.lock().await;
    // Only the captain resigns for a Predictor side, not any member of the team.
    let color = seat_of(&live, &token, "resign")?;
    if live.row.status != "active" {
        return Err(ApiError::conflict("the game is over"));
    }
    // As on lichess: until both sides have moved there is nothing to resign, only to abort.
    if live.abortable() {
        return Err(ApiError::bad(
            "not both sides have moved yet, so the game cannot be resigned: abort instead (POST .../abort)",
        ));
    }
    let result = if color == Color::White { "0-1" } else { "1-0" };
    finish(&app, &mut live, result, "resignation").await?;
    Ok(Json(json!({ "result": result, "reason": "resignation" })))
}

/// The body of a request that takes none (`.../resign`, `.../abort`): nothing, or `{}`. A
/// body that says something else is refused, so a garbled request ends no game.
fn no_body(body: &[u8]) -> Result<(), ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(());
    }
    match serde_json::from_slice::<serde_json::Map<String, Value>>(body) {
        Ok(m) if m.is_empty() => Ok(()),
        Ok(m) => Err(ApiError::bad(format!(
            "this request takes no body (or {{}}), not the fields {}",
            m.keys().map(|k| clip(k)).collect::<Vec<_>>().join(", ")
        ))),
        Err(e) => Err(ApiError::bad(format!("invalid JSON body: {e} (this request takes no body, or {{}})"))),
    }
}

/// `POST /api/games/{id}/abort`: ends a game without a result (`*`, reason `aborted`) before
/// both sides have moved, as lichess does: a seat's holder may withdraw a game nobody has
/// joined, or leave one whose opponent has not moved.
async fn abort(
    State(app): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Result<Json<Value>, ApiError> {
    let token = bearer(&headers)?;
    no_body(&body)?;
    let g = game(&app, &id).await?;
    let mut live = g.lock().await;
    seat_of(&live, &token, "abort the game")?;
    if live.row.status != "active" {
        return Err(ApiError::conflict("the game is over"));
    }
    if !live.abortable() {
        return Err(ApiError::conflict(if live.first_moves_pending() {
            "a move has met chance (its roll or gift is drawn): the game can no longer be aborted (resign instead)"
        } else {
            "both sides have moved: the game can no longer be aborted (resign instead)"
        }));
    }
    finish(&app, &mut live, "*", "aborted").await?;
    // The AI's search, if one runs, stops (its move is dropped).
    live.ai_cancel.store(true, std::sync::atomic::Ordering::Relaxed);
    Ok(Json(json!({ "result": "*", "reason": "aborted" })))
}

/// The body of `.../draw` (`offer`, `accept` or `decline`) and `.../takeback` (`propose`,
/// `accept` or `decline`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct OfferRequest {
    action: String,
}

/// `POST /api/games/{id}/draw`: offer a draw, or accept or decline the opponent's offer.
async fn draw(
    State(app): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Result<JsonBody<OfferRequest>, ApiError>,
) -> Result<Json<Value>, ApiError> {
    let token = bearer(&headers)?;
    let JsonBody(req) = body?;
    let g = game(&app, &id).await?;
    let mut live = g.lock().await;
    // A Predictor side's captain offers and answers, not a team member (as it resigns).
    let color = seat_of(&live, &token, "offer or answer a draw")?;
    if live.row.status != "active" {
        return Err(ApiError::conflict("the game is over"));
    }
    let v = live.game.start().variant();
    if !crate::live::agreed_draws(v) {
        let only = match v.ply_limit {
            Some(n) => format!("its only draw is equal material at its limit of {n} plies"),
            None if v.stuck_passes => "it has no draws".to_string(),
            None => "its only draw is stalemate".to_string(),
        };
        return Err(ApiError::bad(format!("{} has no draws by agreement ({only})", live.row.variant)));
    }
    match (req.action.as_str(), live.draw_offer) {
        ("offer", Some(c)) if c == color => Err(ApiError::conflict("your draw offer stands already")),
        ("accept" | "decline", Some(c)) if c == color => Err(ApiError::conflict("you cannot answer your own offer")),
        ("accept" | "decline", None) => Err(ApiError::conflict("there is no draw offer to answer")),
        // The opponent's offer stands: accepting it, or offering back, agrees the draw.
        ("offer" | "accept", Some(_)) => {
            set_offer(&app, &mut live, Offer::Draw, None).await?;
            finish(&app, &mut live, "1/2-1/2", "agreement").await?;
            Ok(Json(json!({ "result": "1/2-1/2", "reason": "agreement" })))
        }
        ("decline", Some(_)) => {
            set_offer(&app, &mut live, Offer::Draw, None).await?;
            announce(&app, &live, "draw_declined", json!({ "by": color.to_string() })).await;
            Ok(Json(json!({ "draw_offer": null })))
        }
        ("offer", None) => {
            if live.players[(!color).index()] != Player::Human {
                return Err(ApiError::bad("the AI does not take draw offers"));
            }
            // As on lichess: before both sides have moved a game is aborted, not drawn.
            if live.abortable() {
                return Err(ApiError::bad(
                    "not both sides have moved yet, so no draw can be offered: abort instead (POST .../abort)",
                ));
            }
            set_offer(&app, &mut live, Offer::Draw, Some(color)).await?;
            announce(&app, &live, "draw_offer", json!({ "by": color.to_string() })).await;
            Ok(Json(json!({ "draw_offer": color.to_string() })))
        }
        _ => Err(ApiError::bad(format!("unknown action '{}' (offer, accept or decline)", clip(&req.action)))),
    }
}

/// A player's seat token in the rematch of game `game`, derived from their own token there:
/// the server can hand it to them again whenever they ask with that token (the one who offered
/// gets theirs after the other accepted) without keeping it, and the database, which holds only
/// tokens' hashes, is no help in computing it. When a player offers, the hash of their rematch
/// token is kept beside the offer (`Store::rematch_seat`) for the game the acceptance makes.
fn rematch_token(token: &str, game: &str) -> String {
    sha256_hex(&format!("fairylab rematch seat {game} {token}"))
}

/// How fairylab 0.3.0 derived a rematch's seat token: from the stored hash of the player's token
/// and the rematch's id, so that anyone with a copy of the database could compute it. Used only
/// for rematches offered or made before 0.3.1 (an offer without its `rematch_seat`).
fn legacy_rematch_token(token_hash: &str, rematch: &str) -> String {
    sha256_hex(&format!("fairylab rematch {token_hash} {rematch}"))
}

/// What the player holding `token` in game `game` gets of its rematch `made`, where they play
/// `color`: `{game, color, token}`. The token is [`rematch_token`]'s unless the seat was made
/// before 0.3.1 with the legacy one.
async fn rematch_seat(app: &AppState, game: &str, made: &str, color: Color, token: &str) -> Result<Value, ApiError> {
    let mut seat = rematch_token(token, game);
    if let Some(row) = app.games.store().game(made).await? {
        let stored = match color {
            Color::White => row.white_token,
            Color::Black => row.black_token,
        };
        let legacy = legacy_rematch_token(&sha256_hex(token), made);
        if stored.as_deref() != Some(sha256_hex(&seat).as_str())
            && stored.as_deref() == Some(sha256_hex(&legacy).as_str())
        {
            seat = legacy;
        }
    }
    Ok(json!({ "game": made, "color": color.to_string(), "token": seat }))
}

/// The new game a rematch of `live` creates, as `POST /api/games` would: the colours swapped,
/// the same variant, options, AI, clocks and times, and the same start position unless the seed
/// drew it (a seed-drawn start or SnowFall percentage is drawn anew); each person's seat taken
/// by the token whose SHA-256 `hashes` holds at the colour they played ([`rematch_token`]).
fn rematch_settings(live: &LiveGame, id: &str, hashes: [Option<String>; 2]) -> Result<CreateGame, ApiError> {
    let row = &live.row;
    let options: Value = serde_json::from_str(&row.options).unwrap_or(Value::Null);
    let drawn = |what: &str| options["drawn"].as_array().is_some_and(|d| d.iter().any(|x| x == what));
    let simultaneous = live.predictor.is_some();
    let mut seats = [String::new(), String::new()];
    let mut tokens = [None, None];
    for color in Color::ALL {
        // Who played the other colour plays this one.
        let (player, hash) = match !color {
            Color::White => (&row.white_player, &row.white_token),
            Color::Black => (&row.black_player, &row.black_token),
        };
        seats[color.index()] = match (Player::parse(player), hash) {
            (Some(Player::Human), Some(_)) => {
                tokens[color.index()] = Some(hashes[(!color).index()].clone().ok_or_else(|| {
                    ApiError::new(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        format!("the rematch seat of {} in game {} is unknown", !color, live.row.id),
                    )
                })?);
                "me".to_string()
            }
            (Some(Player::Human), None) => {
                return Err(ApiError::conflict(format!(
                    "nobody took {}'s seat in this game: create a new game instead",
                    !color
                )))
            }
            _ => player.clone(),
        };
    }
    let clock = (!options["clock"].is_null()).then(|| {
        let ms = |k: &str| options["clock"][k].as_u64().unwrap_or(0);
        (ms("initial_ms") / 1000, ms("increment_ms") / 1000)
    });
    let two_people = !live.one_person && seats.iter().all(|s| s == "me");
    let [white, black] = seats;
    Ok(CreateGame {
        variant: row.variant.clone(),
        white,
        black,
        // A drawn map is drawn anew for the same placement (the FEN without its map field).
        fen: (!simultaneous && !drawn("start")).then(|| match drawn("map") {
            true => row.start_fen.split_whitespace().take(6).collect::<Vec<_>>().join(" "),
            false => row.start_fen.clone(),
        }),
        snowfall: options["snowfall"].as_u64().filter(|_| !drawn("snowfall")).map(|n| n as u8),
        movetime_ms: Some(row.movetime_ms as u64),
        ply_seconds: options["ply_seconds"].as_u64(),
        clock_seconds: clock.map(|c| c.0),
        increment_seconds: clock.map(|c| c.1),
        variant_toml: options["toml"].as_str().map(str::to_string),
        pgn: None,
        preset: Some((id.to_string(), tokens)),
        two_people,
        client: None,
    })
}

/// `POST /api/games/{id}/rematch` (`offer`, `accept` or `decline`): once the game is over, a
/// player offers the opponent the same game again with the colours swapped, or answers the
/// opponent's offer; against the AI the rematch is made at once. Making it answers the caller's
/// seat in the new game, `{game, color, token}`, and announces `rematch` `{game}`; `offer` or
/// `accept` afterwards answers the caller's seat again (how the player who offered gets theirs).
async fn rematch(
    State(app): State<AppState>,
    Path(id): Path<String>,
    peer: Option<axum::Extension<axum::extract::ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    body: Result<JsonBody<OfferRequest>, ApiError>,
) -> Result<Json<Value>, ApiError> {
    let token = bearer(&headers)?;
    let JsonBody(req) = body?;
    let g = game(&app, &id).await?;
    let mut live = g.lock().await;
    let color = seat_of(&live, &token, "offer or answer a rematch")?;
    let action = req.action.as_str();
    if !["offer", "accept", "decline"].contains(&action) {
        return Err(ApiError::bad(format!("unknown action '{}' (offer, accept or decline)", clip(action))));
    }
    if live.row.status == "active" {
        return Err(ApiError::conflict("the game is not over: a rematch is offered once it is"));
    }
    // The stored row decides: another server process may have taken an offer or made the rematch.
    let row = app.games.store().game(&id).await?.ok_or_else(|| ApiError::not_found(&id))?;
    (live.row.rematch_offer, live.row.rematch) = (row.rematch_offer, row.rematch);
    if let Some(made) = &live.row.rematch {
        if action == "decline" {
            return Err(ApiError::conflict(format!("the rematch was made already: game {made}")));
        }
        return Ok(Json(rematch_seat(&app, &id, made, !color, &token).await?));
    }
    let mine = sha256_hex(&rematch_token(&token, &id));
    let ai = live.players[(!color).index()] != Player::Human;
    let standing = crate::live::offer_of(live.row.rematch_offer.as_deref());
    match (action, standing) {
        ("offer", Some(c)) if c == color => return Err(ApiError::conflict("your rematch offer stands already")),
        ("accept" | "decline", Some(c)) if c == color => {
            return Err(ApiError::conflict("you cannot answer your own offer"))
        }
        ("decline", None) => return Err(ApiError::conflict("there is no rematch offer to answer")),
        ("accept", None) if !ai => return Err(ApiError::conflict("there is no rematch offer to answer")),
        ("decline", Some(_)) => {
            app.games.store().offer_rematch(&id, None, None).await?;
            live.row.rematch_offer = None;
            announce(&app, &live, "rematch_declined", json!({ "by": color.to_string() })).await;
            return Ok(Json(json!({ "rematch_offer": null })));
        }
        ("offer", None) if !ai => {
            // Checked now, not when the opponent accepts: a seat nobody took has no one to ask.
            rematch_settings(&live, "", [Some(String::new()), Some(String::new())])?;
            if !app.games.store().offer_rematch(&id, Some(&color.to_string()), Some(&mine)).await? {
                return Err(ApiError::conflict("the rematch was made already"));
            }
            live.row.rematch_offer = Some(color.to_string());
            announce(&app, &live, "rematch_offer", json!({ "by": color.to_string() })).await;
            return Ok(Json(json!({ "rematch_offer": color.to_string() })));
        }
        // The opponent's offer accepted (or matched by one), or the AI's rematch.
        _ => {}
    }
    let made = random_hex(8);
    let mut hashes = [None, None];
    hashes[color.index()] = Some(mine);
    if !ai {
        // The offer's maker: the seat recorded with the offer, or for an offer made before
        // 0.3.1 the legacy token of the rematch made now.
        let theirs = match app.games.store().rematch_seat(&id).await? {
            Some(seat) => seat,
            None => {
                let stored = match !color {
                    Color::White => live.row.white_token.as_deref(),
                    Color::Black => live.row.black_token.as_deref(),
                };
                sha256_hex(&legacy_rematch_token(stored.unwrap_or_default(), &made))
            }
        };
        hashes[(!color).index()] = Some(theirs);
    }
    let settings = rematch_settings(&live, &made, hashes)?;
    // A rematch is a new game: it counts against its client's hourly allowance.
    count_new_game(&app, client_address(&app, &headers, peer.map(|p| p.0 .0)))?;
    let created = new_game(&app, settings).await?;
    let by = standing.filter(|_| !ai).map(|c| c.to_string());
    if !app.games.store().make_rematch(&id, by.as_deref(), &made).await? {
        // Another process made the rematch (or the offer was withdrawn) meanwhile: the game
        // made here is aborted before anyone knows of it.
        if let Some(g) = app.games.get(&made).await? {
            let mut orphan = g.lock().await;
            finish(&app, &mut orphan, "*", "aborted").await?;
        }
        let row = app.games.store().game(&id).await?.ok_or_else(|| ApiError::not_found(&id))?;
        return match row.rematch {
            Some(other) => Ok(Json(rematch_seat(&app, &id, &other, !color, &token).await?)),
            None => Err(ApiError::conflict("the rematch offer was withdrawn")),
        };
    }
    (live.row.rematch_offer, live.row.rematch) = (None, Some(made.clone()));
    announce(&app, &live, "rematch", json!({ "game": made })).await;
    let mut seat = rematch_seat(&app, &id, &made, !color, &token).await?;
    seat["state"] = created["state"].clone();
    Ok(Json(seat))
}

/// `POST /api/games/{id}/chat`'s body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ChatMessage {
    /// What the message says (`crate::chat::clean`).
    text: String,
}

/// `POST /api/games/{id}/chat`: a player writes to the other (`crate::chat`); the live stream
/// announces the message's number and side. Answers `{seq, by, text, at}`.
async fn write_chat(
    State(app): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Result<JsonBody<ChatMessage>, ApiError>,
) -> Result<Json<Value>, ApiError> {
    let token = bearer(&headers)?;
    let JsonBody(req) = body?;
    let g = game(&app, &id).await?;
    let mut live = g.lock().await;
    let color = chat_side(&live, &token)?;
    if live.players[(!color).index()] != Player::Human {
        return Err(ApiError::bad("the AI does not chat: the chat is between two people"));
    }
    let text = crate::chat::clean(&req.text).map_err(ApiError::bad)?;
    let now = now_ms();
    let last = live.chat_at[color.index()];
    if now - last < crate::chat::MIN_INTERVAL_MS {
        let wait = ApiError::new(StatusCode::TOO_MANY_REQUESTS, "one message a second: wait a moment");
        return Err(ApiError { retry_after: Some(1), ..wait });
    }
    let side = color.to_string();
    let seq = app
        .games
        .store()
        .add_chat(&id, &side, &text, now, crate::chat::MAX_MESSAGES)
        .await?
        .ok_or_else(|| ApiError::conflict(format!("the chat is full ({} messages)", crate::chat::MAX_MESSAGES)))?;
    live.chat_at[color.index()] = now;
    announce(&app, &live, "chat", json!({ "seq": seq, "by": side })).await;
    Ok(Json(json!({ "seq": seq, "by": side, "text": text, "at": now })))
}

/// The side whose seat token this is, for the chat; a Predictor team member's token is refused
/// as such (the captain's, the seat's, opens the chat).
fn chat_side(live: &LiveGame, token: &str) -> Result<Color, ApiError> {
    seat_of(live, token, "open the chat")
}

/// The query of `GET .../chat`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ChatQuery {
    /// Only the messages numbered above this (default 0: all).
    #[serde(default)]
    after: i64,
}

/// `GET /api/games/{id}/chat[?after=N]`: the chat's messages `{seq, by, text, at}` numbered
/// above `N`, in order, for a player of the game (`{messages}`).
async fn read_chat(
    State(app): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    query: Result<Query<ChatQuery>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let token = bearer(&headers)?;
    let Query(q) = query?;
    let g = game(&app, &id).await?;
    chat_side(&*g.lock().await, &token)?;
    let messages: Vec<Value> = app
        .games
        .store()
        .chat(&id, q.after)
        .await?
        .into_iter()
        .map(|m| json!({ "seq": m.seq, "by": m.side, "text": m.text, "at": m.created_at }))
        .collect();
    Ok(Json(json!({ "messages": messages })))
}

/// `POST /api/games/{id}/takeback`: take back one's last move. Against the AI it happens at
/// once (with the AI's reply, if it has replied); between people it is proposed, then accepted
/// or declined by the opponent. Games with chance, clocks or simultaneous orders have none.
async fn takeback(
    State(app): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Result<JsonBody<OfferRequest>, ApiError>,
) -> Result<Json<Value>, ApiError> {
    let token = bearer(&headers)?;
    let JsonBody(req) = body?;
    let g = game(&app, &id).await?;
    let reply = {
        let mut live = g.lock().await;
        if let Some(why) = live.takeback_refusal() {
            return Err(ApiError::bad(why));
        }
        let color = seat_of(&live, &token, "take moves back")?;
        if live.to_move().is_none() {
            return Err(ApiError::conflict("the game is over"));
        }
        let against_ai = live.players[(!color).index()] != Player::Human;
        match (req.action.as_str(), live.takeback_offer) {
            ("propose", Some(c)) if c == color => Err(ApiError::conflict("your takeback proposal stands already")),
            ("propose", Some(_)) => {
                Err(ApiError::conflict("your opponent's takeback proposal stands: accept or decline it first"))
            }
            ("accept" | "decline", Some(c)) if c == color => {
                Err(ApiError::conflict("you cannot answer your own proposal"))
            }
            ("accept" | "decline", None) => Err(ApiError::conflict("there is no takeback proposal to answer")),
            ("accept", Some(by)) => take_back(&app, &mut live, by).await,
            ("decline", Some(_)) => {
                set_offer(&app, &mut live, Offer::Takeback, None).await?;
                announce(&app, &live, "takeback_declined", json!({ "by": color.to_string() })).await;
                Ok(json!({ "takeback_offer": null }))
            }
            // Imported moves (the record a game was created from) are not the players'.
            ("propose", None) if live.game.last_move_by(color).is_none_or(|ply| ply < live.imported) => {
                Err(ApiError::conflict("you have no move to take back (imported moves stay)"))
            }
            ("propose", None) if against_ai => take_back(&app, &mut live, color).await,
            ("propose", None) => {
                set_offer(&app, &mut live, Offer::Takeback, Some(color)).await?;
                announce(&app, &live, "takeback_offer", json!({ "by": color.to_string() })).await;
                Ok(json!({ "takeback_offer": color.to_string() }))
            }
            _ => Err(ApiError::bad(format!("unknown action '{}' (propose, accept or decline)", clip(&req.action)))),
        }?
    };
    schedule_ai(&app, &g).await;
    Ok(Json(reply))
}

/// Takes back `side`'s last move and every move after it (stored first, then applied and
/// announced); an AI search of the old position is then stale and its move is dropped.
async fn take_back(app: &AppState, live: &mut LiveGame, side: Color) -> Result<Value, ApiError> {
    let keep = live
        .game
        .last_move_by(side)
        .filter(|&ply| ply >= live.imported)
        .ok_or_else(|| ApiError::conflict(format!("{side} has no move to take back (imported moves stay)")))?;
    let taken = live.game.moves().len() - keep;
    app.games.store().take_back(&live.row.id, keep as i64, now_ms()).await.map_err(refused(app, &live.row.id))?;
    let count = live.row.takebacks + 1;
    live.truncate(keep, count);
    // The AI's search of the old position, if one runs, stops (its move is dropped).
    live.ai_cancel.store(true, std::sync::atomic::Ordering::Relaxed);
    let reply = json!({ "ply": keep, "taken_back": taken, "takebacks": count, "fen": live.game.position().fen() });
    announce(app, live, "takeback", reply.clone()).await;
    Ok(reply)
}

/// Ends the game on time: the side to move has run out (a draw if the other side has only its
/// king left).
async fn flag(app: &AppState, live: &mut LiveGame) -> Result<(), ApiError> {
    let Some(side) = live.to_move() else { return Ok(()) };
    let result = crate::clock::flag_result(live.game.position(), side);
    finish(app, live, result, "time").await
}

/// Stores and applies a standing draw offer or takeback proposal (`None`: none stands).
async fn set_offer(app: &AppState, live: &mut LiveGame, offer: Offer, by: Option<Color>) -> Result<(), ApiError> {
    let text = by.map(|c| c.to_string());
    let now = now_ms();
    app.games.store().set_offer(&live.row.id, offer, text.as_deref(), now).await.map_err(refused(app, &live.row.id))?;
    live.row.updated_at = now;
    let (standing, stored) = match offer {
        Offer::Draw => (&mut live.draw_offer, &mut live.row.draw_offer),
        Offer::Takeback => (&mut live.takeback_offer, &mut live.row.takeback_offer),
    };
    *standing = by;
    *stored = text;
    Ok(())
}

/// Starts the AI's searches for a game if the AI is to move and not already thinking: a task
/// plays the AI's moves until a person is to move or the game ends.
pub async fn schedule_ai(app: &AppState, g: &Arc<Mutex<LiveGame>>) {
    {
        let mut live = g.lock().await;
        if live.predictor.is_some() {
            let ai = live.players.iter().any(|p| matches!(p, Player::Ai(_)));
            if ai && live.row.status == "active" && !live.thinking {
                live.thinking = true;
                tokio::spawn(predictor_ai_loop(app.clone(), g.clone()));
            }
            return;
        }
    }
    if let Some(job) = ai_job(g, app.limits.max_movetime_ms).await {
        tokio::spawn(ai_loop(app.clone(), g.clone(), job));
    }
}

/// What the AI needs to search: level, position, position hashes, time, the game's ply and
/// takeback count when it started (a move for another position is not played), and the flag
/// that cancels it.
type AiJob = (crate::live::AiLevel, Position, Vec<u64>, Duration, (usize, i64), crate::ai::Cancel);

/// Claims the game's AI turn, if it has one.
async fn ai_job(g: &Arc<Mutex<LiveGame>>, most_ms: u64) -> Option<AiJob> {
    let mut live = g.lock().await;
    match live.ai_to_move() {
        Some(level) if !live.thinking => {
            live.thinking = true;
            live.ai_cancel = Default::default();
            Some((
                level,
                live.game.position().clone(),
                live.game.history().to_vec(),
                ai_movetime(&live, most_ms),
                (live.game.moves().len(), live.row.takebacks),
                live.ai_cancel.clone(),
            ))
        }
        _ => None,
    }
}

/// The AI's time for its move: the game's time per move, and with clocks no more than a
/// twentieth of the time left plus half the increment.
fn ai_movetime(live: &LiveGame, most_ms: u64) -> Duration {
    // A game stored before the operator lowered the ceiling gets the ceiling.
    let mut ms = live.row.movetime_ms.min(i64::try_from(most_ms).unwrap_or(i64::MAX));
    if let (Some(c), Some(side)) = (live.clock, live.to_move()) {
        let left = c.left(live.game.start().turn(), &live.times, Some(now_ms()))[side.index()];
        ms = ms.min(left / 20 + c.increment_ms / 2).max(10);
    }
    Duration::from_millis(ms as u64)
}

async fn ai_loop(app: AppState, g: Arc<Mutex<LiveGame>>, first: AiJob) {
    let mut job = Some(first);
    let ai_only = g.lock().await.players.iter().all(|p| matches!(p, Player::Ai(_)));
    while let Some((level, pos, hashes, movetime, at, cancel)) = job.take() {
        // The AI against itself waits for its own slot first, so that games with a person
        // waiting are never queued behind more than one of its searches.
        let gate = match ai_only {
            true => Some(app.ai_only_slots.clone().acquire_owned().await),
            false => None,
        };
        let permit = app.ai_slots.clone().acquire_owned().await;
        // A weaker level's choices: fresh for every move, so no two games repeat each other.
        let seed = rand::rngs::OsRng.next_u64();
        let stop = cancel.clone();
        let think = move || crate::ai::think(level, pos, hashes, movetime, seed, &cancel);
        let mut closing = app.closing.subscribe();
        let mut search = tokio::task::spawn_blocking(think);
        // A stopping server cuts the search short and stores nothing: the game's AI searches
        // again when the server is back.
        let best = tokio::select! {
            best = &mut search => best,
            () = async { let _ = closing.wait_for(|c| *c).await; } => {
                stop.store(true, std::sync::atomic::Ordering::Relaxed);
                let _ = search.await;
                return;
            }
        };
        drop(closing);
        drop((permit, gate));
        let played = {
            let mut live = g.lock().await;
            live.thinking = false;
            let current = (live.game.moves().len(), live.row.takebacks) == at;
            match best {
                // Moves were taken back meanwhile: the AI searches again if it is to move.
                _ if !current => true,
                Ok(Some(mv)) if live.ai_to_move().is_some() => match commit_move(&app, &mut live, mv).await {
                    Ok(_) => true,
                    Err(e) => {
                        tracing::error!("game {}: the AI's move was not stored: {}", live.row.id, e.message);
                        false
                    }
                },
                _ => false,
            }
        };
        if played {
            schedule_deadline(&app, &g).await;
            // AI against AI: the next move is the other AI's.
            job = ai_job(&g, app.limits.max_movetime_ms).await;
        }
    }
}

async fn stream(
    State(app): State<AppState>,
    Path(id): Path<String>,
    held: Option<axum::Extension<crate::HeldConnection>>,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    let g = game(&app, &id).await?;
    let ws = ws?;
    let (state, rx) = {
        let live = g.lock().await;
        (public_state(&app, &live), live.events.subscribe())
    };
    let closing = app.closing.subscribe();
    // The stream keeps its connection's place in the connection caps while it lasts.
    let slot = held.and_then(|h| h.0.take());
    Ok(ws.max_message_size(MAX_BODY).on_upgrade(move |socket| async move {
        forward_as(socket, "state", state, rx, closing, app.limits.ping_every).await;
        drop(slot);
    }))
}

/// `GET /api/lobby/ws`: the lobby's live stream. A `hello` first, then `{"type": "lobby",
/// "data": {"game", "change"}}` whenever a game is created, a seat taken or a game over, in any
/// process sharing the store; the page then reads the games list again.
async fn lobby_stream(
    State(app): State<AppState>,
    held: Option<axum::Extension<crate::HeldConnection>>,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    let ws = ws?;
    let rx = app.games.watch_lobby();
    let hello = json!({ "games": "/api/games" });
    let closing = app.closing.subscribe();
    let slot = held.and_then(|h| h.0.take());
    let ping_every = app.limits.ping_every;
    Ok(ws.max_message_size(MAX_BODY).on_upgrade(move |socket| async move {
        forward_as(socket, "hello", hello, rx, closing, ping_every).await;
        drop(slot);
    }))
}

/// How many messages a client may write to a read-only stream (each answered with an error
/// note) before the stream is closed.
const READ_ONLY_NOTES: usize = 20;

/// Sends `{"type": kind, "data": first}`, then every event of `rx`, until the client leaves or
/// the server stops (then with a close frame, 1001 "going away", so clients reconnect). The
/// client is pinged every `ping_every` (which also keeps proxies from closing a quiet stream);
/// one that answers nothing to two pings (a phone that lost its network leaves no close
/// behind) is dropped, freeing its connection's place.
async fn forward_as(
    mut socket: WebSocket,
    kind: &str,
    first: Value,
    mut rx: tokio::sync::broadcast::Receiver<String>,
    mut closing: tokio::sync::watch::Receiver<bool>,
    ping_every: std::time::Duration,
) {
    let first = json!({ "type": kind, "data": first }).to_string();
    if socket.send(Message::Text(first.into())).await.is_err() {
        return;
    }
    let mut written = 0;
    let mut pings = tokio::time::interval_at(tokio::time::Instant::now() + ping_every, ping_every);
    pings.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // Pings sent since the client was last heard from.
    let mut unanswered = 0;
    loop {
        tokio::select! {
            _ = pings.tick() => {
                if unanswered >= 2 {
                    tracing::debug!("a live stream's client answered no ping: closed");
                    return;
                }
                if socket.send(Message::Ping(Default::default())).await.is_err() {
                    return;
                }
                unanswered += 1;
            }
            // (The guard `wait_for` returns is dropped inside, so the future stays `Send`.)
            _ = async { closing.wait_for(|stopping| *stopping).await.is_ok() } => {
                let bye = axum::extract::ws::CloseFrame { code: 1001, reason: "the server is stopping".into() };
                let _ = socket.send(Message::Close(Some(bye))).await;
                return;
            }
            event = rx.recv() => match event {
                Ok(text) => {
                    if socket.send(Message::Text(text.into())).await.is_err() {
                        return;
                    }
                }
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                    let note = json!({ "type": "lagged", "data": "events were dropped: fetch the state again" });
                    if socket.send(Message::Text(note.to_string().into())).await.is_err() {
                        return;
                    }
                }
                Err(_) => return,
            },
            incoming = socket.recv() => { unanswered = 0; match incoming {
                // The client's close is answered with ours (the closing handshake), then the end.
                Some(Ok(Message::Close(_))) => {
                    let _ = futures_util::SinkExt::close(&mut socket).await;
                    return;
                }
                None => return,
                // A frame the protocol refuses: the close says why, as RFC 6455 § 7.4.1 numbers
                // it (1009 a message over the limit, 1007 text that is not UTF-8, 1002 any other
                // violation: a control frame over 125 bytes, an unmasked frame, reserved bits or
                // opcodes, a continuation without a start).
                Some(Err(e)) => {
                    let text = e.to_string();
                    let (code, reason) = if text.contains("Control frame") {
                        (1002, "a control frame over 125 bytes")
                    } else if text.contains("too long") || text.contains("Space limit") || text.contains("too big") {
                        (1009, "a message over 16 KiB")
                    } else if text.contains("UTF-8") || text.contains("utf-8") || text.contains("Utf8") {
                        (1007, "a text message that is not UTF-8")
                    } else {
                        (1002, "a frame the WebSocket protocol does not allow")
                    };
                    close_with(socket, code, reason).await;
                    return;
                }
                // Pings are answered by the socket itself; pongs need nothing.
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
                // A page's own ping (a browser cannot see the protocol's): a stream that stops
                // answering it has died unseen, and the page opens a new one.
                Some(Ok(Message::Text(t))) if t.trim() == "ping" => {
                    if socket.send(Message::Text(json!({ "type": "pong" }).to_string().into())).await.is_err() {
                        return;
                    }
                }
                Some(Ok(_)) => {
                    // Told once a message or so; a client that goes on sending is closed (1008).
                    written += 1;
                    if written > READ_ONLY_NOTES {
                        close_with(socket, 1008, "the stream is read-only").await;
                        return;
                    }
                    let note = json!({ "type": "error", "data": "the stream is read-only (moves go by POST /api/games/{id}/moves)" });
                    if socket.send(Message::Text(note.to_string().into())).await.is_err() {
                        return;
                    }
                }
            }},
        }
    }
}

/// How long a stream the server closes waits for the client's answering close.
const CLOSE_GRACE: Duration = Duration::from_secs(2);

/// Closes a live stream the server ends (`code`, `reason`) as the closing handshake asks: the
/// close frame, then the client's messages read and dropped until its own close, its end, or
/// [`CLOSE_GRACE`]. Dropping the socket at once, with the client's messages still unread, makes
/// the kernel reset the connection, and the reset can overtake the close frame: the client then
/// sees "connection reset" instead of the code. After a message over the limit the rest of it
/// cannot be read; the socket is then only held for the grace, long enough for the frame to land.
async fn close_with(mut socket: WebSocket, code: u16, reason: &'static str) {
    let bye = axum::extract::ws::CloseFrame { code, reason: reason.into() };
    if socket.send(Message::Close(Some(bye))).await.is_err() {
        return;
    }
    let deadline = tokio::time::Instant::now() + CLOSE_GRACE;
    loop {
        match tokio::time::timeout_at(deadline, socket.recv()).await {
            Ok(Some(Ok(Message::Close(_)))) | Ok(None) | Err(_) => return,
            Ok(Some(Ok(_))) => {}
            Ok(Some(Err(_))) => {
                tokio::time::sleep_until(deadline).await;
                return;
            }
        }
    }
}

/// Stores a side's captain (the seat's holder: named after the side, rank 1).
async fn add_captain(app: &AppState, id: &str, color: Color, token_hash: &str, now: i64) -> Result<(), ApiError> {
    let row = PredictorRow {
        ply: 0,
        side: color.to_string(),
        member: color.to_string(),
        rank: 1,
        text: token_hash.to_string(),
        created_at: now,
    };
    app.games.store().add_predictor(id, PredictorKind::Member, &row).await.map_err(refused(app, id))?;
    Ok(())
}

/// The Predictor table of a game, or a refusal for other variants.
fn table(live: &mut LiveGame) -> Result<&mut crate::predictor::Table, ApiError> {
    live.predictor.as_deref_mut().ok_or_else(|| ApiError::bad("this is not a Predictor chess game"))
}

/// The member holding a token.
fn member_of(live: &LiveGame, token: &str) -> Result<(Color, String), ApiError> {
    let h = sha256_hex(token);
    let Some(table) = live.predictor.as_ref() else {
        return Err(ApiError::bad(format!(
            "game {} is {}, not Predictor chess: members, commitments and reveals are Predictor chess's",
            live.row.id, live.row.variant
        )));
    };
    table.member_of(&h).ok_or_else(|| ApiError::forbidden("the token is not valid for this game"))
}

fn referee_error(e: RefereeError) -> ApiError {
    match e {
        RefereeError::UnknownMember { .. } | RefereeError::NotChosen { .. } => ApiError::forbidden(e.to_string()),
        RefereeError::WrongReveal { .. } | RefereeError::Commit(_) | RefereeError::Orders(_) => {
            ApiError::bad(e.to_string())
        }
        _ => ApiError::conflict(e.to_string()),
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NewMember {
    name: String,
    rank: i64,
}

/// `POST /api/games/{id}/members`: a captain adds a ranked member to the side.
async fn add_member(
    State(app): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Result<JsonBody<NewMember>, ApiError>,
) -> Result<Json<Value>, ApiError> {
    let token = bearer(&headers)?;
    let JsonBody(m) = body?;
    let g = game(&app, &id).await?;
    let mut live = g.lock().await;
    let (side, who) = member_of(&live, &token)?;
    if who != side.to_string() {
        return Err(ApiError::forbidden("only the side's captain adds members"));
    }
    let name_ok = (1..=32).contains(&m.name.len())
        && m.name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    if !name_ok {
        return Err(ApiError::bad("a member's name is 1 to 32 letters, digits, '_', '-' or '.'"));
    }
    // `white` and `black` name the captains (the seats' holders), on either team.
    if Color::ALL.iter().any(|c| m.name.eq_ignore_ascii_case(&c.to_string())) {
        return Err(ApiError::bad(format!("'{}' is a captain's name: a member needs another", m.name)));
    }
    if !(1..=1_000_000).contains(&m.rank) {
        return Err(ApiError::bad("a rank is a whole number from 1 (the highest) to 1000000"));
    }
    if live.row.status != "active" {
        return Err(ApiError::conflict("the game is over"));
    }
    let t = table(&mut live)?;
    if t.members[side.index()].iter().any(|x| x.name == m.name) {
        return Err(ApiError::conflict(format!("{side} already has a member named {}", m.name)));
    }
    let member_token = random_hex(32);
    let row = PredictorRow {
        ply: 0,
        side: side.to_string(),
        member: m.name.clone(),
        rank: m.rank,
        text: sha256_hex(&member_token),
        created_at: now_ms(),
    };
    let mut next = t.clone();
    next.add_member(side, crate::predictor::Member { name: m.name.clone(), rank: m.rank, token: row.text.clone() })
        .map_err(referee_error)?;
    app.games.store().add_predictor(&id, PredictorKind::Member, &row).await.map_err(refused(&app, &id))?;
    *t = next;
    announce(&app, &live, "member", json!({ "side": side.to_string(), "name": m.name, "rank": m.rank })).await;
    Ok(Json(json!({ "token": member_token, "side": side.to_string(), "name": m.name, "rank": m.rank })))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CommitRequest {
    ply: u32,
    commitment: String,
}

/// `POST /api/games/{id}/commit`: a member's commitment for the current ply.
async fn commit_orders(
    State(app): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Result<JsonBody<CommitRequest>, ApiError>,
) -> Result<Json<Value>, ApiError> {
    let token = bearer(&headers)?;
    let JsonBody(req) = body?;
    let g = game(&app, &id).await?;
    let mut live = g.lock().await;
    let (side, member) = member_of(&live, &token)?;
    if live.row.status != "active" {
        return Err(ApiError::conflict("the game is over"));
    }
    let commitment: Commitment =
        req.commitment.parse().map_err(|e: rules::predictor::commit::CommitError| ApiError::bad(e.to_string()))?;
    let t = table(&mut live)?;
    let ply = t.game.next_ply();
    if req.ply != ply {
        return Err(ApiError::conflict(format!("ply {} is not the current ply {ply}", req.ply)));
    }
    // The same commitment again (a retry whose first reply was lost): it stands, answered as
    // the first time. Another one is refused below: a commitment cannot be replaced.
    if t.desk.commitments(side).any(|(m, c)| m == member && c == commitment) {
        let closed = t.chosen.is_some();
        return Ok(Json(
            json!({ "ply": ply, "side": side.to_string(), "member": member, "closed": closed, "repeated": true }),
        ));
    }
    let closed = take_commitment(&app, &mut live, side, &member, commitment).await?;
    drop(live);
    schedule_ai(&app, &g).await;
    Ok(Json(json!({ "ply": ply, "side": side.to_string(), "member": member, "closed": closed.is_some() })))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckRequest {
    orders: String,
}

/// `POST /api/games/{id}/orders/check`: whether a member's orders are valid for the current ply,
/// and their canonical text (the bytes to commit to). Nothing is stored or published: the page
/// checks orders before it seals them, so that a typing slip does not forfeit the game.
async fn check_orders(
    State(app): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Result<JsonBody<CheckRequest>, ApiError>,
) -> Result<Json<Value>, ApiError> {
    let token = bearer(&headers)?;
    let JsonBody(req) = body?;
    if too_long(&req.orders, 256) {
        return Err(ApiError::bad("the orders are too long"));
    }
    let g = game(&app, &id).await?;
    let mut live = g.lock().await;
    let (side, _) = member_of(&live, &token)?;
    let t = table(&mut live)?;
    let pos = t.game.position();
    let text = rules::predictor::commit::canonical_orders(&req.orders);
    Ok(Json(match rules::predictor::Orders::parse(pos, side, &text) {
        Ok(o) => {
            json!({ "valid": true, "side": side.to_string(), "ply": t.game.next_ply(), "orders": o.to_text(pos, side) })
        }
        Err(e) => {
            json!({ "valid": false, "side": side.to_string(), "ply": t.game.next_ply(), "error": e.kind(), "reason": e.to_string() })
        }
    }))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RevealRequest {
    reveal: String,
}

/// `POST /api/games/{id}/reveal`: the chosen member's reveal; the ply resolves once both are in.
async fn reveal_orders(
    State(app): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Result<JsonBody<RevealRequest>, ApiError>,
) -> Result<Json<Value>, ApiError> {
    let token = bearer(&headers)?;
    let JsonBody(req) = body?;
    if too_long(&req.reveal, 1024) {
        return Err(ApiError::bad("the reveal is too long"));
    }
    let g = game(&app, &id).await?;
    let mut live = g.lock().await;
    let (side, member) = member_of(&live, &token)?;
    if live.row.status != "active" {
        return Err(ApiError::conflict("the game is over"));
    }
    let reveal = Reveal::parse(&req.reveal).map_err(|e| ApiError::bad(e.to_string()))?;
    let ply = table(&mut live)?.game.next_ply();
    let resolved = take_reveal(&app, &mut live, side, &member, &reveal).await?;
    if let Some(Resolved { result: Some(result), forfeit: Some(why), .. }) = &resolved {
        // The reveal ended the game: answered as done (200), with the result and why.
        return Ok(Json(json!({
            "ply": ply, "side": side.to_string(), "accepted": false, "resolved": false,
            "result": result, "reason": "forfeit", "forfeit": why,
        })));
    }
    let mut reply = json!({ "ply": ply, "side": side.to_string(), "accepted": true, "resolved": resolved.is_some() });
    drop(live);
    if let Some(r) = resolved {
        reply["ply_line"] = json!(r.line);
        reply["fen"] = json!(r.fen);
        if let Some(result) = r.result {
            reply["result"] = json!(result);
        }
        schedule_deadline(&app, &g).await;
    }
    schedule_ai(&app, &g).await;
    Ok(Json(reply))
}

/// Stores a member's commitment for the current ply and applies it, closing the ply when both
/// sides are ready (then the chosen members); the stream hears of both.
async fn take_commitment(
    app: &AppState,
    live: &mut LiveGame,
    side: Color,
    member: &str,
    commitment: Commitment,
) -> Result<Option<[String; 2]>, ApiError> {
    let id = live.row.id.clone();
    let mut next = table(live)?.clone();
    let ply = next.game.next_ply();
    next.desk.commit(side, member, commitment).map_err(referee_error)?;
    let row = PredictorRow {
        ply: i64::from(ply),
        side: side.to_string(),
        member: member.to_string(),
        rank: 0,
        text: commitment.to_string(),
        created_at: now_ms(),
    };
    app.games.store().add_predictor(&id, PredictorKind::Commit, &row).await.map_err(|e| match e {
        StoreError::Duplicate { .. } => {
            ApiError::conflict(format!("{member} ({side}) already committed for ply {ply}"))
        }
        e => refused(app, &id)(e),
    })?;
    let closed = if next.both_ready() { next.close().ok() } else { None };
    *table(live)? = next;
    let data = json!({ "ply": ply, "side": side.to_string(), "member": member, "commitment": commitment.to_string() });
    announce(app, live, "committed", data).await;
    if let Some(chosen) = &closed {
        announce(app, live, "closed", json!({ "ply": ply, "white": chosen[0], "black": chosen[1] })).await;
    }
    Ok(closed)
}

/// A ply resolved by the reveal that completed it.
struct Resolved {
    line: String,
    fen: String,
    /// The result, when the ply ended the game.
    result: Option<String>,
    /// Why the revealing side forfeited the game (its committed orders were illegal): the ply
    /// is not played.
    forfeit: Option<String>,
}

/// Stores a chosen member's reveal and applies it; once both sides revealed, resolves the ply
/// (and ends the game if it is over). Committed orders that are illegal forfeit the game.
async fn take_reveal(
    app: &AppState,
    live: &mut LiveGame,
    side: Color,
    member: &str,
    reveal: &Reveal,
) -> Result<Option<Resolved>, ApiError> {
    let id = live.row.id.clone();
    let now = now_ms();
    let mut next = table(live)?.clone();
    let ply = next.game.next_ply();
    let row = PredictorRow {
        ply: i64::from(ply),
        side: side.to_string(),
        member: member.to_string(),
        rank: 0,
        text: reveal.to_line(),
        created_at: now,
    };
    match next.desk.reveal(side, member, reveal) {
        Ok(_) => {}
        Err(RefereeError::Orders(e)) => {
            // The committed orders are illegal: they can never be revealed validly. The reveal
            // is kept, so the record publishes the orders and a restart knows the forfeit.
            app.games.store().add_predictor(&id, PredictorKind::Reveal, &row).await.map_err(refused(app, &id))?;
            table(live)?.note_forfeit(side, member, reveal, e.to_string());
            let result = if side == Color::White { "0-1" } else { "1-0" };
            finish(app, live, result, "forfeit").await?;
            return Ok(Some(Resolved {
                line: String::new(),
                fen: table(live)?.game.position().fen(),
                result: Some(result.to_string()),
                forfeit: Some(format!("{side}'s committed orders are invalid ({e}): {side} forfeits the game")),
            }));
        }
        Err(e) => return Err(referee_error(e)),
    }
    app.games.store().add_predictor(&id, PredictorKind::Reveal, &row).await.map_err(refused(app, &id))?;
    if !Color::ALL.into_iter().all(|c| next.desk.revealed(c).is_some()) {
        *table(live)? = next;
        return Ok(None);
    }
    let line = next.resolve(now).map_err(referee_error)?;
    let fen = next.game.position().fen();
    let outcome = next.game.outcome();
    *table(live)? = next;
    // A draw offer lapses when a ply resolves without its answer (both sides have moved on).
    if live.draw_offer.is_some() {
        set_offer(app, live, Offer::Draw, None).await?;
    }
    announce(app, live, "ply", json!({ "ply": ply, "line": line, "fen": fen })).await;
    let result = match outcome {
        Some(o) => {
            let (result, reason) = outcome_text(o);
            finish(app, live, &result, &reason).await?;
            Some(result)
        }
        None => None,
    };
    Ok(Some(Resolved { line, fen, result, forfeit: None }))
}

/// A Predictor ply's deadlines: at the commitment deadline the ply closes (a side without any
/// commitment loses on time); at the reveal deadline, as long again after it, a chosen member
/// who has not revealed forfeits the game for the side (both: a draw).
///
/// With clocks, the game is lost on time when the side to move's clock runs out before it
/// moves, and aborted when a person does not make their first move in time
/// ([`LiveGame::abort_at`]).
pub async fn schedule_deadline(app: &AppState, g: &Arc<Mutex<LiveGame>>) {
    let (deadlines, ply) = {
        let live = g.lock().await;
        match live.predictor.as_ref() {
            Some(t) if live.row.status == "active" => match (t.deadline(), t.reveal_deadline()) {
                (Some(d), Some(r)) => ((d, r), t.game.next_ply()),
                _ => return,
            },
            Some(_) => return,
            None => {
                if let Some(at) = live.flag_at() {
                    tokio::spawn(flag_timer(app.clone(), g.clone(), at, live.game.moves().len()));
                }
                if let Some(at) = live.abort_at(app.first_move_ms) {
                    tokio::spawn(abort_timer(app.clone(), g.clone(), at, live.game.moves().len()));
                }
                return;
            }
        }
    };
    let (app, g) = (app.clone(), g.clone());
    tokio::spawn(async move {
        let (commit_by, reveal_by) = deadlines;
        tokio::time::sleep(Duration::from_millis((commit_by - now_ms()).max(0) as u64)).await;
        {
            let mut live = g.lock().await;
            let active = live.row.status == "active" && app.games.owns(&live.row.id);
            let Some(t) = live.predictor.as_deref_mut() else { return };
            if t.game.next_ply() != ply || !active {
                return;
            }
            if t.chosen.is_none() {
                match t.close() {
                    Ok(chosen) => {
                        announce(&app, &live, "closed", json!({ "ply": ply, "white": chosen[0], "black": chosen[1] }))
                            .await;
                        let _ = app.nudge.send(live.row.id.clone());
                    }
                    Err(o) => {
                        let (result, _) = outcome_text(o);
                        if let Err(e) = finish(&app, &mut live, &result, "time").await {
                            tracing::error!("game {}: the time loss was not stored: {}", live.row.id, e.message);
                        }
                        return;
                    }
                }
            }
        }
        tokio::time::sleep(Duration::from_millis((reveal_by - now_ms()).max(0) as u64)).await;
        let mut live = g.lock().await;
        let active = live.row.status == "active" && app.games.owns(&live.row.id);
        let Some(t) = live.predictor.as_deref() else { return };
        if t.game.next_ply() != ply || !active {
            return;
        }
        if let Some(o) = t.desk.forfeit() {
            let (result, _) = outcome_text(o);
            if let Err(e) = finish(&app, &mut live, &result, "forfeit").await {
                tracing::error!("game {}: the forfeit was not stored: {}", live.row.id, e.message);
            }
        }
    });
}

/// Ends a game on time at `at` if it is still at ply `ply` then.
async fn flag_timer(app: AppState, g: Arc<Mutex<LiveGame>>, at: i64, ply: usize) {
    tokio::time::sleep(Duration::from_millis((at - now_ms()).max(0) as u64)).await;
    let mut live = g.lock().await;
    // Only the game's owner ends it (another process may have taken it over meanwhile).
    let owner = app.games.owns(&live.row.id);
    if owner && live.game.moves().len() == ply && live.flag_at().is_some_and(|t| t <= now_ms()) {
        if let Err(e) = flag(&app, &mut live).await {
            tracing::error!("game {}: the loss on time was not stored: {}", live.row.id, e.message);
        }
    }
}

/// Aborts a game at `at` if a person still has not made their first move by then (the game is
/// still at ply `ply` and its deadline has not moved, e.g. by a seat taken since).
async fn abort_timer(app: AppState, g: Arc<Mutex<LiveGame>>, at: i64, ply: usize) {
    tokio::time::sleep(Duration::from_millis((at - now_ms()).max(0) as u64)).await;
    let mut live = g.lock().await;
    let owner = app.games.owns(&live.row.id);
    if owner && live.game.moves().len() == ply && live.abort_at(app.first_move_ms).is_some_and(|t| t <= now_ms()) {
        if let Err(e) = no_first_move(&app, &mut live).await {
            tracing::error!("game {}: the abort was not stored: {}", live.row.id, e.message);
        }
    }
}

/// Ends a game whose side to move did not make its first move in time: aborted, or once a
/// move has met chance, lost on time (an abort would void the draw).
async fn no_first_move(app: &AppState, live: &mut LiveGame) -> Result<(), ApiError> {
    if live.abortable() {
        finish(app, live, "*", "aborted").await
    } else {
        flag(app, live).await
    }
}

/// What the Predictor AI does next in a game.
enum PredictorAiStep {
    /// Think for `side` at `ply` from `pos`.
    Think { side: Color, ply: u32, pos: Box<Position>, movetime: Duration, seed: u64 },
    /// Nothing now (a person's commitment or reveal comes first, or the game is over).
    Wait,
}

/// Plays the server AI's sides of a Predictor game: commits as soon as a ply opens (its orders
/// chosen from the position alone), and reveals once the ply closes; stops when a person is
/// awaited. Runs while `thinking` is set, so one loop per game.
async fn predictor_ai_loop(app: AppState, g: Arc<Mutex<LiveGame>>) {
    loop {
        let mut resolved = false;
        let step = {
            let mut live = g.lock().await;
            match predictor_ai_reveal(&app, &mut live).await {
                Ok(r) => resolved = r,
                Err(e) => tracing::error!("game {}: the AI's reveal failed: {}", live.row.id, e.message),
            }
            let step = match live.predictor.as_ref() {
                Some(t) if live.row.status == "active" && t.chosen.is_none() => Color::ALL
                    .into_iter()
                    .find(|&c| matches!(live.players[c.index()], Player::Ai(_)) && !t.desk.has_committed(c))
                    .map_or(PredictorAiStep::Wait, |side| PredictorAiStep::Think {
                        side,
                        ply: t.game.next_ply(),
                        pos: Box::new(t.game.position().clone()),
                        movetime: Duration::from_millis(live.row.movetime_ms as u64),
                        seed: u64::from_le_bytes(live.seed.0[..8].try_into().unwrap_or([0; 8]))
                            ^ (u64::from(t.game.next_ply()) << 1)
                            ^ side.index() as u64,
                    }),
                _ => PredictorAiStep::Wait,
            };
            if matches!(step, PredictorAiStep::Wait) {
                live.thinking = false;
            }
            step
        };
        if resolved {
            schedule_deadline(&app, &g).await;
        }
        let PredictorAiStep::Think { side, ply, pos, movetime, seed } = step else { return };
        let permit = app.ai_slots.clone().acquire_owned().await;
        let orders = tokio::task::spawn_blocking(move || {
            let mut player = engine::predictor::PredictorPlayer::new(engine::predictor::Style::Mixed, seed);
            player.choose(&pos, side, movetime).map(|o| o.to_text(&pos, side))
        })
        .await;
        drop(permit);
        let mut live = g.lock().await;
        if let Err(e) = predictor_ai_commit(&app, &mut live, side, ply, orders.ok().flatten()).await {
            tracing::error!("game {}: the AI's commitment failed: {}", live.row.id, e.message);
            live.thinking = false;
            return;
        }
    }
}

/// Seals and commits the AI's orders for `side` at `ply` (its reveal kept as a secret).
async fn predictor_ai_commit(
    app: &AppState,
    live: &mut LiveGame,
    side: Color,
    ply: u32,
    orders: Option<String>,
) -> Result<(), ApiError> {
    let id = live.row.id.clone();
    let Some(t) = live.predictor.as_deref() else { return Ok(()) };
    if t.game.next_ply() != ply || t.chosen.is_some() || live.row.status != "active" {
        return Ok(());
    }
    let Some(orders) = orders else {
        return Err(ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "the AI found no orders"));
    };
    let member = side.to_string();
    let (reveal, commitment) = Reveal::seal(&id, ply, side, &orders)
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    let row = PredictorRow {
        ply: i64::from(ply),
        side: member.clone(),
        member: member.clone(),
        rank: 0,
        text: reveal.to_line(),
        created_at: now_ms(),
    };
    app.games.store().add_predictor(&id, PredictorKind::Secret, &row).await.map_err(refused(app, &id))?;
    take_commitment(app, live, side, &member, commitment).await?;
    table(live)?.ai_secrets[side.index()] = Some(reveal);
    Ok(())
}

/// Once the ply has closed, reveals the AI's kept orders, and resolves the ply if both are in
/// (then `true`).
async fn predictor_ai_reveal(app: &AppState, live: &mut LiveGame) -> Result<bool, ApiError> {
    for side in Color::ALL {
        let Some(t) = live.predictor.as_deref() else { return Ok(false) };
        if live.row.status != "active" || t.chosen.is_none() || t.desk.revealed(side).is_some() {
            continue;
        }
        let Some(reveal) = t.ai_secrets[side.index()].clone() else { continue };
        if take_reveal(app, live, side, &side.to_string(), &reveal).await?.is_some() {
            return Ok(true);
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_messages_quote_a_little_of_long_input() {
        let word = "x".repeat(QUOTED_CHARS);
        assert_eq!(shortened(&format!("move '{word}' is bad")), format!("move '{}… is bad", &word[1..]));
        assert_eq!(shortened(&format!("a {word} b")), format!("a {word} b"));
        let long = "ab ".repeat(2000);
        let cut = shortened(&long);
        assert_eq!(cut.chars().count(), MAX_MESSAGE_CHARS + 1);
        assert!(cut.ends_with('…'));
        assert_eq!(clip(&"é".repeat(100)), format!("{}…", "é".repeat(QUOTED_CHARS)));
        assert_eq!(clip("short"), "short");
        // Control and bidirectional-formatting characters come back escaped.
        assert_eq!(clip("a\u{202e}b\nc"), "a\\u{202e}b\\u{a}c");
    }

    #[test]
    fn the_openapi_file_describes_every_endpoint() {
        let spec: Value = serde_json::from_str(OPENAPI).expect("docs/openapi.json is JSON");
        assert_eq!(spec["openapi"], "3.1.0");
        let (mut described, mut ids) = (Vec::new(), Vec::new());
        for (path, ops) in spec["paths"].as_object().expect("paths") {
            for (method, op) in ops.as_object().expect("operations") {
                described.push((method.clone(), path.clone()));
                // Client generators name their methods by it.
                let id = op["operationId"].as_str().unwrap_or_else(|| panic!("{method} {path}: no operationId"));
                ids.push(id.to_string());
            }
        }
        let unique: std::collections::HashSet<&String> = ids.iter().collect();
        assert_eq!(unique.len(), ids.len(), "operationIds are unique: {ids:?}");
        described.sort();
        let mut served: Vec<(String, String)> = ENDPOINTS.iter().map(|(m, p)| (m.to_string(), p.to_string())).collect();
        served.sort();
        assert_eq!(described, served);
    }
}
