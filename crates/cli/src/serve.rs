//! `fairylab serve`: the play server on SQLite or PostgreSQL, its settings from flags or the
//! environment, and its logging.

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use std::net::SocketAddr;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// The address to listen on (`HOST:PORT`; a host name is looked up, its first address taken).
    #[arg(long, env = "FAIRYLAB_LISTEN", default_value = "127.0.0.1:8080", value_parser = listen_address)]
    listen: SocketAddr,
    /// `sqlite://PATH` (created and migrated on first start) or `postgres://USER@HOST/DB`
    /// (give a password through the environment variable, which `ps` does not show).
    #[arg(long, env = "FAIRYLAB_DATABASE_URL", default_value = "sqlite://fairylab.sqlite3", hide_env_values = true)]
    database_url: String,
    /// AI searches running at once (the games' moves).
    #[arg(long, env = "FAIRYLAB_AI_WORKERS", default_value_t = 2, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=256))]
    ai_workers: usize,
    /// Analyses and game reviews running at once, apart from the AI's searches, so that they
    /// never delay an AI's move (a request waits for a free one).
    #[arg(long, env = "FAIRYLAB_ANALYSIS_WORKERS", default_value_t = 1, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=256))]
    analysis_workers: usize,
    /// The URL the other server processes on the same PostgreSQL reach this one at (default:
    /// http:// and the listening address).
    #[arg(long, env = "FAIRYLAB_ADVERTISE", value_parser = advertised_url)]
    advertise: Option<String>,
    /// Endgame table files (`fairylab egt --out`): their verdicts on the game page and in
    /// analyses, and exact knowledge for the AI.
    #[arg(long, value_name = "FILE", num_args = 1..)]
    tables: Vec<std::path::PathBuf>,
    /// Seconds a person has for their first move in a game with clocks (counted from the
    /// previous move, or from when both seats were taken) before the game is aborted.
    #[arg(long, env = "FAIRYLAB_FIRST_MOVE_SECONDS", default_value_t = server::FIRST_MOVE_MS / 1000, value_parser = clap::value_parser!(i64).range(1..=86_400))]
    first_move_seconds: i64,
    /// Connections open at once; further ones wait in the listen queue.
    #[arg(long, env = "FAIRYLAB_MAX_CONNECTIONS", default_value_t = 4096, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1_000_000))]
    max_connections: usize,
    /// Connections open at once from one client address (0: no limit, e.g. behind a reverse
    /// proxy, from whose address every connection comes).
    #[arg(long, env = "FAIRYLAB_MAX_CONNECTIONS_PER_IP", default_value_t = 256)]
    max_connections_per_ip: usize,
    /// Seconds a client has to send a request's headers; an idle keep-alive connection is
    /// closed after as long.
    #[arg(long, env = "FAIRYLAB_HEADER_TIMEOUT_SECONDS", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=3600))]
    header_timeout_seconds: u64,
    /// The longest time per move a game may give the AI (milliseconds, at least 10).
    #[arg(long, env = "FAIRYLAB_MAX_MOVETIME_MS", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(10..=600_000))]
    max_movetime_ms: u64,
    /// Games one client address may create in an hour (0: no limit).
    #[arg(long, env = "FAIRYLAB_MAX_NEW_GAMES_PER_HOUR", default_value_t = 600)]
    max_new_games_per_hour: usize,
    /// Take each client's address from the last X-Forwarded-For entry (behind a reverse proxy
    /// that sets it; never when clients reach the server directly, since they can write it).
    #[arg(long, env = "FAIRYLAB_TRUST_FORWARDED_FOR")]
    trust_forwarded_for: bool,
    /// Seconds between the pings a live stream (WebSocket) sends its client; a client that
    /// answers none of two is dropped. Keep it under a reverse proxy's read timeout.
    #[arg(long, env = "FAIRYLAB_PING_SECONDS", default_value_t = 25, value_parser = clap::value_parser!(u64).range(1..=3600))]
    ping_seconds: u64,
    /// A file holding the operator's token (at least 16 characters) for `/api/admin/...`:
    /// ending an abandoned game (docs/OPERATIONS.md). Without it those requests are refused.
    #[arg(long, env = "FAIRYLAB_ADMIN_TOKEN_FILE", value_name = "FILE")]
    admin_token_file: Option<std::path::PathBuf>,
    /// The path the site is served under, behind a reverse proxy that passes it on unchanged
    /// (`/chess`: the lobby at `/chess/`, the API at `/chess/api`); default the host's root.
    /// `--advertise` must then end with it too.
    #[arg(long, env = "FAIRYLAB_BASE_PATH", value_name = "PATH", default_value = "", value_parser = server::base_path)]
    base_path: String,
}

/// `--listen`: an address, or a host name and port (`localhost:8080`).
fn listen_address(text: &str) -> Result<SocketAddr, String> {
    if let Ok(a) = text.parse() {
        return Ok(a);
    }
    match std::net::ToSocketAddrs::to_socket_addrs(text) {
        Ok(mut addrs) => addrs.next().ok_or_else(|| format!("'{text}' names no address")),
        Err(e) => Err(format!("'{text}' is not HOST:PORT ({e})")),
    }
}

/// `--advertise`: an http:// or https:// URL.
fn advertised_url(text: &str) -> Result<String, String> {
    let rest = text.strip_prefix("http://").or_else(|| text.strip_prefix("https://"));
    match rest {
        Some(host) if !host.is_empty() && !host.contains(char::is_whitespace) => {
            Ok(text.trim_end_matches('/').to_string())
        }
        _ => Err(format!("'{text}' is not an http:// or https:// URL")),
    }
}

pub(crate) fn serve(a: &ServeArgs) -> Result<ExitCode> {
    init_logging();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting the runtime")?;
    let admin_token = match &a.admin_token_file {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading the operator's token from {}", path.display()))?;
            let token = text.trim().to_string();
            // As a request's Authorization header carries it: printable ASCII, at most 128.
            if !(16..=128).contains(&token.len()) || !token.bytes().all(|b| b.is_ascii_graphic()) {
                bail!(
                    "the operator's token in {} must be one word of 16 to 128 printable ASCII characters \
                     (e.g. openssl rand -hex 16)",
                    path.display()
                );
            }
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                if std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o077 != 0) {
                    eprintln!(
                        "warning: the operator's token file {} can be read by other users (chmod 600 it)",
                        path.display()
                    );
                }
            }
            Some(token)
        }
        None => None,
    };
    let config = server::Config {
        ai_workers: a.ai_workers,
        analysis_workers: a.analysis_workers,
        advertise: a.advertise.clone(),
        tables: a.tables.clone(),
        first_move_ms: a.first_move_seconds * 1000,
        max_connections: a.max_connections,
        max_connections_per_ip: a.max_connections_per_ip,
        header_timeout: std::time::Duration::from_secs(a.header_timeout_seconds),
        limits: server::api::Limits {
            max_movetime_ms: a.max_movetime_ms,
            new_games_per_hour: a.max_new_games_per_hour,
            trust_forwarded_for: a.trust_forwarded_for,
            ping_every: std::time::Duration::from_secs(a.ping_seconds),
        },
        admin_token,
        base_path: a.base_path.clone(),
        ..server::Config::new(a.listen, &a.database_url)
    };
    let ran = runtime.block_on(server::run(config));
    // An analysis still searching on a blocking thread does not hold the exit up.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    ran.map_err(|e| anyhow!("{e}"))?;
    Ok(ExitCode::SUCCESS)
}

/// The server's log on stderr: `RUST_LOG` chooses what (default: warnings and errors of every
/// part, the server's start and stop; `RUST_LOG=info,tower_http=debug` adds a line per
/// request; docs/OPERATIONS.md).
fn init_logging() {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("warn,server=info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
}
