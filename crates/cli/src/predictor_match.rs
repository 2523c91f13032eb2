//! `fairylab match --variant predictor --white mixed --black baseline`: the Predictor chess
//! players of `engine::predictor` against each other, colours alternating in pairs of games.

use anyhow::{anyhow, bail, Result};
use engine::predictor::{PredictorPlayer, Style};
use engine::tournament::score_stats;
use rules::outcome::Outcome;
use rules::predictor::game::PredictorGame;
use rules::{Color, Position, Variant};
use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// Reads a Predictor player level: `mixed` (also `engine`) or `baseline` (also `blind`).
pub(crate) fn parse_style(s: &str) -> Result<Style> {
    match s.to_ascii_lowercase().as_str() {
        "mixed" | "engine" => Ok(Style::Mixed),
        "baseline" | "blind" => Ok(Style::Baseline),
        _ => bail!("unknown Predictor player '{s}' (use mixed, also called engine; or baseline, also called blind)"),
    }
}

fn name(s: Style) -> &'static str {
    match s {
        Style::Mixed => "mixed",
        Style::Baseline => "baseline",
    }
}

/// The match.
pub(crate) struct PredictorMatch {
    pub variant: &'static Variant,
    pub styles: [Style; 2],
    pub games: u32,
    pub movetime: Duration,
    pub seed: u64,
    pub max_plies: u32,
    pub concurrency: usize,
}

struct Played {
    number: u32,
    a_white: bool,
    winner: Option<Color>,
    reason: String,
    plies: usize,
    final_fen: String,
}

/// Plays game `number`: player A has White in even games.
fn play(m: &PredictorMatch, number: u32) -> Result<Played> {
    let a_white = number % 2 == 0;
    let by_color = if a_white { m.styles } else { [m.styles[1], m.styles[0]] };
    let pair_seed = m.seed.wrapping_add(u64::from(number / 2));
    let mut players = [0u64, 1].map(|c| {
        PredictorPlayer::new(
            by_color[c as usize],
            pair_seed.wrapping_mul(0x9E37_79B9).wrapping_add(c + u64::from(number)),
        )
    });
    let mut game = PredictorGame::new(Position::start(m.variant));
    let cap = if m.max_plies > 0 { m.max_plies as usize } else { 200 };
    let (winner, reason) = loop {
        if let Some(o) = game.outcome() {
            break match o {
                Outcome::Decisive { winner, reason } => (Some(winner), format!("{reason:?}").to_lowercase()),
                Outcome::Draw { reason } => (None, format!("{reason:?}").to_lowercase()),
            };
        }
        if game.plies().len() >= cap {
            break (None, format!("adjudicated a draw after {cap} plies"));
        }
        let pos = game.position().clone();
        let orders = [Color::White, Color::Black].map(|c| players[c.index()].choose(&pos, c, m.movetime));
        let [Some(w), Some(b)] = orders else {
            bail!("game {}: a player found no orders in {}", number + 1, pos.fen())
        };
        game.play(&w, &b, None).map_err(|e| anyhow!("game {}: {e}", number + 1))?;
    };
    Ok(Played { number, a_white, winner, reason, plies: game.plies().len(), final_fen: game.position().fen() })
}

/// Plays the match: a line per game on stderr, the summary on stdout.
pub(crate) fn run(m: &PredictorMatch) -> Result<ExitCode> {
    let [a, b] = m.styles.map(name);
    eprintln!(
        "match: {a} vs {b}, {}, {} games, {} ms per ply, seed {}, {} at a time",
        m.variant.name,
        m.games,
        m.movetime.as_millis(),
        m.seed,
        m.concurrency
    );
    let next = AtomicU32::new(0);
    let (tx, rx) = mpsc::channel::<Result<Played>>();
    let (mut wins, mut draws, mut losses, mut plies) = (0u32, 0u32, 0u32, 0usize);
    std::thread::scope(|s| -> Result<()> {
        for _ in 0..m.concurrency.max(1) {
            let tx = tx.clone();
            let next = &next;
            s.spawn(move || loop {
                let n = next.fetch_add(1, Ordering::Relaxed);
                if n >= m.games {
                    return;
                }
                let r = play(m, n);
                let failed = r.is_err();
                let _ = tx.send(r);
                if failed {
                    next.store(m.games, Ordering::Relaxed);
                }
            });
        }
        drop(tx);
        for r in rx {
            let g = r?;
            let a_color = if g.a_white { Color::White } else { Color::Black };
            match g.winner {
                Some(w) if w == a_color => wins += 1,
                Some(_) => losses += 1,
                None => draws += 1,
            }
            plies += g.plies;
            let result = match g.winner {
                Some(Color::White) => "1-0",
                Some(Color::Black) => "0-1",
                None => "1/2-1/2",
            };
            let (white, black) = if g.a_white { (a, b) } else { (b, a) };
            eprintln!(
                "game {:>3}: {white} - {black} {result} ({}, {} plies)  {a}: +{wins} ={draws} -{losses}  final {}",
                g.number + 1,
                g.reason,
                g.plies,
                g.final_fen
            );
        }
        Ok(())
    })?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let games = wins + draws + losses;
    writeln!(out, "{a} vs {b} ({}, {} ms per ply): {games} games", m.variant.name, m.movetime.as_millis())?;
    writeln!(out, "{a}: +{wins} ={draws} -{losses}")?;
    if let Some(st) = score_stats(wins, draws, losses) {
        writeln!(
            out,
            "score {:.1} % [{:.1} %, {:.1} %] (95 %), Elo {:+.0} [{:+.0}, {:+.0}]",
            100.0 * st.score,
            100.0 * st.score_low,
            100.0 * st.score_high,
            st.elo,
            st.elo_low,
            st.elo_high
        )?;
    }
    if games > 0 {
        writeln!(out, "average length {:.1} plies", plies as f64 / f64::from(games))?;
    }
    Ok(ExitCode::SUCCESS)
}
