//! fairylab's play server: games of every variant (Predictor chess's secret orders included)
//! over HTTP and WebSocket streams, stored in SQLite (the default) or PostgreSQL; `fairylab serve`.
//!
//! `store` owns persistence, `live` the games in play, `api` the endpoints, `ai` the engine's
//! moves off the request path, `analysis` analyses and reviews on workers of their own, `line`
//! the analysis board's positions, `explorer` the opening explorer, `odds` SnowFall's gift odds,
//! `clock` the chess clocks, `pause` the server's own downtime, which they do not count, `predictor` Predictor chess's plies, `chat` the games' chat, `seed`
//! the fairness seed behind every die and gift, `owner` which process plays each game when
//! several share one PostgreSQL, `web` the page; this file the connections and the lifecycle.

#![deny(missing_docs)]

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
pub mod pause;
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
    /// Connections open at once (beyond it new ones wait in the listen queue).
    pub max_connections: usize,
    /// Connections open at once from one client address (0: no limit; behind a reverse proxy
    /// every connection comes from the proxy's address).
    pub max_connections_per_ip: usize,
    /// How long a client has to send a request's headers, and how long an idle keep-alive
    /// connection stays open.
    pub header_timeout: std::time::Duration,
    /// What one client may ask of the server.
    pub limits: api::Limits,
    /// The operator's token for `/api/admin/...` (none: those requests are refused).
    pub admin_token: Option<String>,
    /// The path the site is served under (`/chess`; empty: the root of its host), from
    /// [`base_path`]. Every page, asset and endpoint lives below it.
    pub base_path: String,
}

/// A `--base-path` as the server uses it: `/chess` from `/chess`, `chess/` or `/chess/`; empty
/// for `/` or nothing. Segments of letters, digits and `-._~` only (no `..`, no `//`), so the
/// path needs no escaping in a page or a URL.
pub fn base_path(text: &str) -> Result<String, String> {
    let trimmed = text.trim().trim_matches('/');
    if trimmed.is_empty() {
        return Ok(String::new());
    }
    for seg in trimmed.split('/') {
        if seg.is_empty() || seg == "." || seg == ".." {
            return Err(format!("base path '{text}': empty, '.' or '..' segment"));
        }
        if let Some(c) = seg.chars().find(|c| !(c.is_ascii_alphanumeric() || "-._~".contains(*c))) {
            return Err(format!("base path '{text}': '{c}' is not allowed (letters, digits and -._~ between slashes)"));
        }
    }
    if trimmed.len() > 100 {
        return Err(format!("base path '{text}': longer than 100 characters"));
    }
    Ok(format!("/{trimmed}"))
}

impl Config {
    /// The defaults of everything but where to listen and the database.
    pub fn new(listen: SocketAddr, database_url: &str) -> Config {
        Config {
            listen,
            database_url: database_url.to_string(),
            ai_workers: 2,
            analysis_workers: 1,
            advertise: None,
            tables: Vec::new(),
            first_move_ms: FIRST_MOVE_MS,
            max_connections: 4096,
            max_connections_per_ip: 256,
            header_timeout: std::time::Duration::from_secs(10),
            limits: api::Limits::default(),
            admin_token: None,
            base_path: String::new(),
        }
    }
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
pub async fn app(config: &Config, url: &str) -> Result<(axum::Router, api::AppState), ServerError> {
    let (database_url, ai_workers) = (config.database_url.as_str(), config.ai_workers);
    let store = store::open(database_url).await?;
    let (nudge, nudged) = tokio::sync::mpsc::unbounded_channel();
    let owners = store.shared().then(|| Arc::new(owner::Owners::new(url.to_string())));
    let state = api::AppState {
        games: Arc::new(live::Games::new(store.clone())),
        ai_slots: Arc::new(tokio::sync::Semaphore::new(ai_workers.max(1))),
        ai_only_slots: Arc::new(tokio::sync::Semaphore::new(ai_workers.saturating_sub(1).max(1))),
        analysis: Arc::new(analysis::Workers::new(config.analysis_workers)),
        nudge,
        owners: owners.clone(),
        first_move_ms: config.first_move_ms,
        limits: config.limits,
        admin: config.admin_token.as_deref().map(api::sha256_hex),
        base: config.base_path.clone().into(),
        new_games: Arc::default(),
        closing: tokio::sync::watch::channel(false).0,
    };
    tokio::spawn(api::nudge_loop(state.clone(), nudged));
    // Finished games read once (a review, a record) do not stay in memory for ever.
    let games = state.games.clone();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(std::time::Duration::from_secs(60));
        loop {
            every.tick().await;
            let gone = games.evict_idle();
            if gone > 0 {
                tracing::debug!("{gone} finished games let go from memory");
            }
        }
    });
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
    // A process alone on its database: the time since its clean stop (or since its last
    // heartbeat before a crash) counts on no clock.
    crate::pause::set(store.resume(live::now_ms()).await?);
    tokio::spawn(alive_loop(store.clone()));
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

/// How often a process alone on its store records that it runs ([`store::Store::alive`]): at
/// most this much of a crash's downtime is not given back.
const ALIVE_MS: u64 = 1000;

/// Records the process's heartbeat every [`ALIVE_MS`] for its life.
async fn alive_loop(store: std::sync::Arc<dyn store::Store>) {
    let mut tick = tokio::time::interval(std::time::Duration::from_millis(ALIVE_MS));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        if let Err(e) = store.alive(live::now_ms()).await {
            tracing::warn!("heartbeat: {e}");
        }
    }
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
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .map_err(|e| std::io::Error::new(e.kind(), format!("cannot listen on {}: {e}", config.listen)))?;
    let addr = listener.local_addr()?;
    let url = config.advertise.clone().unwrap_or_else(|| {
        let ip = if addr.ip().is_unspecified() { std::net::Ipv4Addr::LOCALHOST.into() } else { addr.ip() };
        format!("http://{}{}", SocketAddr::new(ip, addr.port()), config.base_path)
    });
    let (router, state) = app(&config, &url).await?;
    let shown = store::shown_url(&config.database_url);
    println!("fairylab serving on http://{addr}{}/ (database {shown})", config.base_path);
    tracing::info!(version = env!("CARGO_PKG_VERSION"), %addr, database = %shown, "serving");
    let closing = state.closing.clone();
    let stop = async move {
        stop_signal().await;
        tracing::info!("stopping: closing the connections");
        closing.send_replace(true);
    };
    serve_connections(listener, router, &config, stop).await;
    // The live streams are upgraded connections, which the graceful shutdown does not wait for:
    // give them a moment to send their close frames (each holds a receiver until it ends).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    while state.closing.receiver_count() > 0 && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    if let Some(owners) = &state.owners {
        state.games.store().release(&owners.id).await?;
    } else {
        // Alone on the database: the downtime until the next start will count on no clock.
        state.games.store().record_stop(live::now_ms()).await?;
    }
    state.games.store().close().await;
    tracing::info!("stopped");
    Ok(())
}

/// The key a client's limits are counted under: its address, or for IPv6 its /64 network
/// (one household's or one server's share, which it can fill with addresses at will).
pub fn client_key(ip: std::net::IpAddr) -> std::net::IpAddr {
    match ip {
        std::net::IpAddr::V6(v6) if v6.to_ipv4_mapped().is_none() => {
            let mut octets = v6.octets();
            octets[8..].fill(0);
            std::net::IpAddr::V6(std::net::Ipv6Addr::from(octets))
        }
        std::net::IpAddr::V6(v6) => {
            std::net::IpAddr::V4(v6.to_ipv4_mapped().unwrap_or(std::net::Ipv4Addr::UNSPECIFIED))
        }
        v4 => v4,
    }
}

/// A connection's place in the connection caps (overall and for its address), given back when
/// dropped: by the connection's task when it ends, or by a WebSocket stream that took it over.
#[derive(Debug)]
pub struct ConnectionSlot {
    _permit: tokio::sync::OwnedSemaphorePermit,
    per_ip: Arc<std::sync::Mutex<std::collections::HashMap<std::net::IpAddr, usize>>>,
    ip: std::net::IpAddr,
}

impl Drop for ConnectionSlot {
    fn drop(&mut self) {
        let mut map = self.per_ip.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(n) = map.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                map.remove(&self.ip);
            }
        }
    }
}

/// The [`ConnectionSlot`] of the connection a request came on, in the request's extensions: a
/// WebSocket handler takes it into its stream, so an upgraded connection still counts.
#[derive(Debug, Clone)]
pub struct HeldConnection(Arc<std::sync::Mutex<Option<ConnectionSlot>>>);

impl HeldConnection {
    /// Takes the slot over (once; `None` after).
    pub fn take(&self) -> Option<ConnectionSlot> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take()
    }
}

/// How long a write may stall (a client that does not read its replies or its stream) before
/// the connection is dropped.
const WRITE_STALL: std::time::Duration = std::time::Duration::from_secs(30);

/// A socket whose writes fail once they have waited [`WRITE_STALL`] for the client to read.
struct StallGuard {
    io: tokio::net::TcpStream,
    stalled: Option<std::pin::Pin<Box<tokio::time::Sleep>>>,
}

impl StallGuard {
    /// A write's outcome, watched: a `Pending` that has lasted [`WRITE_STALL`] becomes an error;
    /// anything else ends the stall.
    fn watch<T>(
        &mut self,
        cx: &mut std::task::Context<'_>,
        polled: std::task::Poll<std::io::Result<T>>,
    ) -> std::task::Poll<std::io::Result<T>> {
        if polled.is_ready() {
            self.stalled = None;
            return polled;
        }
        let timer = self.stalled.get_or_insert_with(|| Box::pin(tokio::time::sleep(WRITE_STALL)));
        match std::future::Future::poll(timer.as_mut(), cx) {
            std::task::Poll::Ready(()) => std::task::Poll::Ready(Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the client has not read for 30 s",
            ))),
            std::task::Poll::Pending => std::task::Poll::Pending,
        }
    }
}

impl tokio::io::AsyncRead for StallGuard {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl tokio::io::AsyncWrite for StallGuard {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        let polled = std::pin::Pin::new(&mut self.io).poll_write(cx, buf);
        self.watch(cx, polled)
    }

    fn poll_write_vectored(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> std::task::Poll<std::io::Result<usize>> {
        let polled = std::pin::Pin::new(&mut self.io).poll_write_vectored(cx, bufs);
        self.watch(cx, polled)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let polled = std::pin::Pin::new(&mut self.io).poll_flush(cx);
        self.watch(cx, polled)
    }

    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

/// Accepts connections until `stop` resolves, then lets the requests in flight finish (for at
/// most 10 s). A client has `header_timeout` to send each request's headers (an idle keep-alive
/// connection is closed after it too), at most `max_connections` are open at once (further ones
/// wait in the listen queue), and at most `max_connections_per_ip` from one address (further
/// ones get a 503 and are closed, [`refuse_crowded`]): a crowd of slow or idle sockets cannot
/// take the server down.
async fn serve_connections(
    listener: tokio::net::TcpListener,
    router: axum::Router,
    config: &Config,
    stop: impl std::future::Future<Output = ()>,
) {
    use hyper_util::rt::{TokioIo, TokioTimer};
    use std::collections::HashMap;
    use std::net::IpAddr;
    use std::sync::Mutex;
    let slots = Arc::new(tokio::sync::Semaphore::new(config.max_connections.max(1)));
    let per_ip: Arc<Mutex<HashMap<IpAddr, usize>>> = Arc::default();
    // Each connection finishes its request in flight and closes once this turns true.
    let (stopping, stop_rx) = tokio::sync::watch::channel(false);
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(config.header_timeout).keep_alive(true);
    tokio::pin!(stop);
    let mut last_warned = None;
    loop {
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => slot,
            () = &mut stop => break,
        };
        let Ok(slot) = slot else { break };
        let (tcp, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                // Out of file descriptors or the like: wait a moment instead of spinning.
                Err(e) => {
                    if last_warned.is_none_or(|t: std::time::Instant| t.elapsed().as_secs() >= 5) {
                        tracing::warn!("accept: {e}");
                        last_warned = Some(std::time::Instant::now());
                    }
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        let ip = client_key(peer.ip());
        let from_ip = {
            let mut map = per_ip.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let n = map.entry(ip).or_insert(0);
            *n += 1;
            *n
        };
        // Counted from here; given back when the connection, or a stream it became, ends.
        let held = HeldConnection(Arc::new(std::sync::Mutex::new(Some(ConnectionSlot {
            _permit: slot,
            per_ip: per_ip.clone(),
            ip,
        }))));
        if config.max_connections_per_ip > 0 && from_ip > config.max_connections_per_ip {
            tracing::debug!(%ip, "refused a connection: {from_ip} open from this address");
            drop(held);
            tokio::spawn(refuse_crowded(tcp));
            continue;
        }
        // Replies go out at once (no Nagle delay against the client's delayed acknowledgement).
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::warn!("TCP_NODELAY: {e}");
        }
        let router = router.clone();
        let in_requests = held.clone();
        let service = hyper::service::service_fn(move |mut req: hyper::Request<hyper::body::Incoming>| {
            req.extensions_mut().insert(axum::extract::ConnectInfo(peer));
            req.extensions_mut().insert(in_requests.clone());
            tower::ServiceExt::oneshot(router.clone(), req)
        });
        let io = StallGuard { io: tcp, stalled: None };
        let conn = builder.serve_connection(TokioIo::new(io), service).with_upgrades();
        let mut stop_rx = stop_rx.clone();
        tokio::spawn(async move {
            let mut conn = std::pin::pin!(conn);
            let result = tokio::select! {
                r = conn.as_mut() => r,
                () = async { let _ = stop_rx.wait_for(|s| *s).await; } => {
                    conn.as_mut().graceful_shutdown();
                    conn.await
                }
            };
            if let Err(e) = result {
                tracing::debug!(%peer, "connection: {e}");
            }
            drop(held);
        });
    }
    drop(listener);
    stopping.send_replace(true);
    let all = u32::try_from(config.max_connections.max(1)).unwrap_or(u32::MAX);
    tokio::select! {
        _ = slots.acquire_many(all) => {}
        () = tokio::time::sleep(std::time::Duration::from_secs(10)) => {
            tracing::warn!("requests still running after 10 s were cut off");
        }
    }
}

/// How long a connection refused for its address's count is held to deliver the refusal.
const REFUSAL_GRACE: std::time::Duration = std::time::Duration::from_millis(500);

/// Answers a connection over its address's limit with `503 Service Unavailable` (`Retry-After:
/// 5`) and closes it. What the client sent meanwhile (up to 8 KiB, for at most
/// [`REFUSAL_GRACE`]) is read and dropped: closing with it unread would reset the connection,
/// and the reset could overtake the answer (a browser would show a network error).
async fn refuse_crowded(mut tcp: tokio::net::TcpStream) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    const BODY: &str = "too many connections from your address: close some and try again\n";
    let answer = format!(
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nRetry-After: 5\r\n\
         Connection: close\r\nContent-Length: {}\r\n\r\n{BODY}",
        BODY.len()
    );
    let _ = tokio::time::timeout(REFUSAL_GRACE, async {
        if tcp.write_all(answer.as_bytes()).await.is_err() || tcp.shutdown().await.is_err() {
            return;
        }
        let mut buf = [0u8; 1024];
        let mut read = 0;
        while read < 8192 {
            match tcp.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => read += n,
            }
        }
    })
    .await;
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
    // The file itself, whatever link or relative path names it: one lock per file.
    let named = options.get_filename().to_path_buf();
    let database = std::fs::canonicalize(&named).unwrap_or(named);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Limits count an IPv6 client by its /64, an IPv4 one (mapped or not) by its address.
    #[test]
    fn clients_are_counted_by_address_or_ipv6_network() {
        let key = |s: &str| client_key(s.parse().expect("an address")).to_string();
        assert_eq!(key("2001:db8:1:2:aaaa:bbbb:cccc:dddd"), "2001:db8:1:2::");
        assert_eq!(key("2001:db8:1:2::1"), key("2001:db8:1:2:ffff::9"));
        assert_ne!(key("2001:db8:1:2::1"), key("2001:db8:1:3::1"));
        assert_eq!(key("::ffff:198.51.100.7"), "198.51.100.7");
        assert_eq!(key("198.51.100.7"), "198.51.100.7");
    }
}
