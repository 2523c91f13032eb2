//! `fairylab loadtest`: many concurrent games against a running play server for a fixed time,
//! two people per game moving at random (the AI off); prints moves/s and move latency quantiles.
//!
//! Each game is a client thread that keeps its own copy of the position (from the server's
//! replies, so chance outcomes are the server's) and posts one legal move after another. With
//! `--rate R` the games together aim at R moves per second, each game's moves on a fixed
//! schedule, and a move's latency counts from its scheduled time to the reply (so a slow server
//! is not hidden by clients that wait for it, "coordinated omission"); `--rate 0` posts as fast
//! as replies come and measures request to reply.

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use rules::chance::seeded_rng;
use rules::Position;
use serde_json::{json, Value};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

#[derive(Debug, Args)]
pub(crate) struct LoadtestArgs {
    /// The server's base URL (`fairylab serve` prints it); several, comma separated, spread
    /// each game's two players over them (one PostgreSQL, several processes).
    #[arg(long, default_value = "http://127.0.0.1:8080")]
    url: String,
    /// Concurrent games.
    #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u32).range(1..=5000))]
    games: u32,
    /// How long to measure, in seconds (after the warm-up).
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=3600))]
    seconds: u64,
    /// Seconds played before measuring starts: the games are created and their first moves
    /// scheduled then (500 games created in the same instant is a burst, not the steady load).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(0..=600))]
    warmup: u64,
    /// The variants, used in turn.
    #[arg(long, default_value = "chess,crazyhouse,gardner,baby,snowfall,probabilistic")]
    variants: String,
    /// Seed of the clients' random moves.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Target moves per second over all games (0: as fast as the server answers).
    #[arg(long, default_value_t = 2000)]
    rate: u32,
    /// Also print, for each second of the run, the moves made and their p99 and worst latency
    /// (to see whether slow moves come in bursts).
    #[arg(long)]
    timeline: bool,
}

struct Client {
    agent: ureq::Agent,
}

impl Client {
    fn post(&self, url: &str, token: Option<&str>, body: Value) -> Result<Value> {
        let mut req = self.agent.post(url);
        if let Some(t) = token {
            req = req.set("Authorization", &format!("Bearer {t}"));
        }
        match req.send_json(body) {
            Ok(r) => r.into_json().context("reading the reply"),
            Err(ureq::Error::Status(code, r)) => {
                bail!("{url}: {code} {}", r.into_string().unwrap_or_default())
            }
            Err(e) => Err(anyhow!("{url}: {e}")),
        }
    }
}

/// One game's client: creates the game, then moves until time is up (a new game after an end).
fn play(
    bases: &[String],
    variant: &'static rules::Variant,
    seed: u64,
    interval: Option<Duration>,
    stop: &AtomicBool,
    started: Instant,
    latencies: &Mutex<Vec<(u32, u32)>>,
) -> Result<(u64, u64)> {
    // Spread the games' schedules over one interval.
    let mut next = Instant::now() + interval.map_or(Duration::ZERO, |i| i.mul_f64((seed % 997) as f64 / 997.0));
    let client = Client { agent: ureq::AgentBuilder::new().timeout(Duration::from_secs(30)).build() };
    let mut rng = seeded_rng(seed);
    let mut local = Vec::with_capacity(4096);
    let (mut moves, mut games) = (0u64, 0u64);
    while !stop.load(Ordering::Relaxed) {
        let created = client.post(
            &format!("{}/api/games", bases[0]),
            None,
            json!({ "variant": variant.name, "white": "me", "black": "me" }),
        )?;
        games += 1;
        let id = created["id"].as_str().ok_or_else(|| anyhow!("no id"))?.to_string();
        let tokens = [created["white"]["token"].as_str(), created["black"]["token"].as_str()]
            .map(|t| t.map(str::to_string).unwrap_or_default());
        let fen = created["state"]["fen"].as_str().ok_or_else(|| anyhow!("no fen"))?;
        let v = rules::variants::snowfall::percent(variant)
            .and_then(|_| created["state"]["options"]["snowfall"].as_u64())
            .map_or(variant, |n| rules::variants::snowfall::variant(n as u8));
        let mut pos = Position::from_fen(v, fen).map_err(|e| anyhow!("{e}"))?;
        let mut ply = 0u64;
        while !stop.load(Ordering::Relaxed) && pos.outcome().is_none() && ply < 400 {
            let legal = pos.legal_moves();
            let m = legal[rules::chance::uniform_below(&mut rng, legal.len() as u128) as usize];
            let side = pos.turn().index();
            let base = &bases[side % bases.len()];
            let t0 = match interval {
                Some(i) => {
                    let now = Instant::now();
                    if next > now {
                        std::thread::sleep(next - now);
                    }
                    let scheduled = next;
                    next += i;
                    scheduled
                }
                None => Instant::now(),
            };
            let reply = client.post(
                &format!("{base}/api/games/{id}/moves"),
                Some(&tokens[side]),
                json!({ "move": rules::uci::to_uci(&pos, m), "ply": ply }),
            )?;
            let at_ms = t0.saturating_duration_since(started).as_millis().min(u128::from(u32::MAX)) as u32;
            local.push((at_ms, t0.elapsed().as_micros().min(u128::from(u32::MAX)) as u32));
            moves += 1;
            ply += 1;
            let fen = reply["fen"].as_str().ok_or_else(|| anyhow!("no fen in {reply}"))?;
            pos = Position::from_fen(v, fen).map_err(|e| anyhow!("{e}"))?;
            if reply["status"] != "active" {
                break;
            }
        }
    }
    latencies.lock().unwrap_or_else(std::sync::PoisonError::into_inner).extend(local);
    Ok((moves, games))
}

pub(crate) fn loadtest(a: &LoadtestArgs, out: &mut impl Write) -> Result<()> {
    let bases: Vec<String> = a.url.split(',').map(|u| u.trim().trim_end_matches('/').to_string()).collect();
    // Each server answers before the games start (a wrong URL is said at once, not after the run).
    let probe = ureq::AgentBuilder::new().timeout(Duration::from_secs(5)).build();
    for base in &bases {
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            bail!("--url '{base}' is not an http:// or https:// URL");
        }
        probe
            .get(&format!("{base}/api/variants"))
            .call()
            .map_err(|e| anyhow!("the server at {base} does not answer: {e}"))?;
    }
    let variants: Vec<&'static rules::Variant> = a
        .variants
        .split(',')
        .map(|n| rules::variants::by_name(n.trim()).ok_or_else(|| anyhow!("unknown variant '{n}'")))
        .collect::<Result<_>>()?;
    let interval = (a.rate > 0).then(|| Duration::from_secs_f64(f64::from(a.games) / f64::from(a.rate)));
    let stop = AtomicBool::new(false);
    let latencies = Mutex::new(Vec::new());
    let errors = Mutex::new(Vec::new());
    let (mut moves, mut games) = (0u64, 0u64);
    let started = Instant::now();
    let started_ref = &started;
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..a.games)
            .map(|i| {
                let (bases, stop, latencies, errors) = (&bases, &stop, &latencies, &errors);
                let started = *started_ref;
                let v = variants[i as usize % variants.len()];
                std::thread::Builder::new()
                    .stack_size(256 * 1024)
                    .spawn_scoped(s, move || {
                        let seed = a.seed.wrapping_add(u64::from(i));
                        play(bases, v, seed, interval, stop, started, latencies).map_err(|e| {
                            errors.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(e.to_string());
                        })
                    })
                    .map_err(|e| anyhow!("thread: {e}"))
            })
            .collect();
        std::thread::sleep(Duration::from_secs(a.warmup + a.seconds));
        stop.store(true, Ordering::Relaxed);
        for h in handles.into_iter().flatten() {
            if let Ok(Ok((m, g))) = h.join() {
                moves += m;
                games += g;
            }
        }
    });
    let elapsed = started.elapsed().as_secs_f64();
    // The moves scheduled inside the measured window.
    let timed = latencies.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
    let window = (a.warmup * 1000) as u32..((a.warmup + a.seconds) * 1000) as u32;
    let timed: Vec<(u32, u32)> = timed.into_iter().filter(|(at, _)| window.contains(at)).collect();
    let measured = timed.len() as u64;
    let mut lat: Vec<u32> = timed.iter().map(|&(_, us)| us).collect();
    lat.sort_unstable();
    let q = |p: f64| lat.get(((lat.len() as f64 - 1.0) * p).round() as usize).map_or(0.0, |&us| f64::from(us) / 1000.0);
    let errors = errors.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
    let rate = if a.rate > 0 { format!("target {} moves/s", a.rate) } else { "as fast as answered".into() };
    writeln!(
        out,
        "loadtest: {} concurrent games, {} server{}, {rate}, {:.1} s ({} s warm-up, {} s measured)",
        a.games,
        bases.len(),
        if bases.len() == 1 { "" } else { "s" },
        elapsed,
        a.warmup,
        a.seconds
    )?;
    writeln!(out, "moves {moves} ({measured} measured), games started {games}, client errors {}", errors.len())?;
    writeln!(out, "moves/s {:.0}", measured as f64 / a.seconds as f64)?;
    writeln!(out, "move latency ms: p50 {:.2}  p90 {:.2}  p99 {:.2}  max {:.2}", q(0.5), q(0.9), q(0.99), q(1.0))?;
    writeln!(out, "target: p99 < 50 ms at >= 2000 moves/s")?;
    if a.timeline {
        writeln!(out, "second  moves  p99 ms  max ms")?;
        let mut by_second: std::collections::BTreeMap<u32, Vec<u32>> = Default::default();
        for &(at_ms, us) in &timed {
            by_second.entry(at_ms / 1000).or_default().push(us);
        }
        for (sec, mut v) in by_second {
            v.sort_unstable();
            let p99 = v[((v.len() - 1) as f64 * 0.99).round() as usize];
            let max = v[v.len() - 1];
            writeln!(
                out,
                "{sec:>6}  {:>5}  {:>6.1}  {:>6.1}",
                v.len(),
                f64::from(p99) / 1000.0,
                f64::from(max) / 1000.0
            )?;
        }
    }
    if let Some(e) = errors.first() {
        writeln!(out, "first error: {e}")?;
    }
    if games == 0 {
        bail!("no game could be played, so nothing was measured");
    }
    Ok(())
}
