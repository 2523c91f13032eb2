//! `fairylab export`: a running play server's games as one PGN file, for a club's archive,
//! paged through `GET /api/games` and fetched record by record over HTTP.
//!
//! The file is written whole or not at all (a temporary file renamed at the end), newest game
//! first, each record exactly as `GET /api/games/{id}/record` gives it, so `fairylab
//! verify-game` checks any of them against its revealed seed.

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use serde_json::Value;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, Args)]
pub(crate) struct ExportArgs {
    /// The server's address (`http://HOST:PORT`).
    #[arg(long)]
    server: String,
    /// Which games: finished (the default), active, or all.
    #[arg(long, default_value = "finished", value_parser = ["finished", "active", "all"])]
    status: String,
    /// The PGN file to write (`-`: standard output).
    #[arg(long)]
    out: PathBuf,
}

/// The most games one export takes (a safety cap against a server that pages without end).
const MAX_GAMES: usize = 1_000_000;

/// The path part of a server URL (`/club/chess` in `http://host:8080/club/chess`; empty at
/// the root).
fn base_path(url: &str) -> &str {
    let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    after_scheme.find('/').map_or("", |i| &after_scheme[i..])
}

pub(crate) fn export(a: &ExportArgs, out: &mut impl Write) -> Result<()> {
    let base = a.server.trim_end_matches('/');
    if !(base.starts_with("http://") || base.starts_with("https://")) {
        bail!("--server '{}' is not an http:// or https:// URL", a.server);
    }
    let agent = ureq::AgentBuilder::new().timeout(Duration::from_secs(30)).build();
    let get = |path: &str| {
        agent.get(&format!("{base}{path}")).call().map_err(|e| match e {
            ureq::Error::Status(code, r) => {
                anyhow!("{base}{path}: {code} {}", r.into_string().unwrap_or_default().trim())
            }
            e => anyhow!("the server at {base} does not answer: {e}"),
        })
    };
    let mut page = match a.status.as_str() {
        "all" => "/api/games?limit=100".to_string(),
        s => format!("/api/games?limit=100&status={s}"),
    };
    let mut ids = Vec::new();
    loop {
        let v: Value = get(&page)?.into_json().context("the games list is not JSON")?;
        let games = v["games"].as_array().ok_or_else(|| anyhow!("the games list has no games"))?;
        ids.extend(games.iter().filter_map(|g| g["id"].as_str().map(str::to_string)));
        if ids.len() > MAX_GAMES {
            bail!("the server lists more than {MAX_GAMES} games");
        }
        // `next` is an absolute path, the server's base path (`serve --base-path`) included.
        match v["next"].as_str() {
            Some(next) => page = next.strip_prefix(base_path(base)).unwrap_or(next).to_string(),
            None => break,
        }
    }
    let mut text = String::new();
    for id in &ids {
        let record = get(&format!("/api/games/{id}/record"))?.into_string().context("a record")?;
        text.push_str(record.trim_end());
        text.push_str("\n\n");
    }
    if a.out.as_os_str() == "-" {
        out.write_all(text.as_bytes())?;
    } else {
        let tmp = a.out.with_extension("tmp-fairylab");
        std::fs::write(&tmp, &text).with_context(|| format!("writing {}", tmp.display()))?;
        std::fs::rename(&tmp, &a.out).with_context(|| format!("replacing {}", a.out.display()))?;
        eprintln!("exported {} game{} to {}", ids.len(), if ids.len() == 1 { "" } else { "s" }, a.out.display());
    }
    Ok(())
}
