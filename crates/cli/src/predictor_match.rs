//! `fairylab match --variant predictor --white mixed --black baseline`: the Predictor chess
//! players of `engine::predictor` against each other, colours alternating in pairs of games.

use crate::duel::Played;
use anyhow::{anyhow, bail, Result};
use engine::predictor::{PredictorPlayer, Style};
use rules::outcome::Outcome;
use rules::predictor::game::PredictorGame;
use rules::{Color, Position, Variant};
use std::process::ExitCode;
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
    /// Keep the games' records (`--pgn`).
    pub pgn: Option<std::path::PathBuf>,
}

/// Plays game `number`: player A has White in even games.
fn play(m: &PredictorMatch, number: u32) -> Result<Played> {
    let a_white = number.is_multiple_of(2);
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
                Outcome::Decisive { winner, reason } => (Some(winner), reason.name().to_string()),
                Outcome::Draw { reason } => (None, reason.name().to_string()),
            };
        }
        if game.plies().len() >= cap {
            game.end(Outcome::Draw { reason: rules::outcome::EndReason::PlyLimit });
            break (None, format!("adjudicated a draw after {cap} plies"));
        }
        let pos = game.position().clone();
        let orders = [Color::White, Color::Black].map(|c| players[c.index()].choose(&pos, c, m.movetime));
        let [Some(w), Some(b)] = orders else {
            bail!("game {}: a player found no orders in {}", number + 1, pos.fen())
        };
        game.play(&w, &b, None).map_err(|e| anyhow!("game {}: {e}", number + 1))?;
    };
    let record = m.pgn.as_ref().map(|_| {
        let names = m.styles.map(name);
        let (white, black) = if a_white { (names[0], names[1]) } else { (names[1], names[0]) };
        let tags = [
            ("Event", format!("fairylab match: {} vs {}", names[0], names[1])),
            ("Date", engine::tournament::pgn_date(std::time::SystemTime::now())),
            ("Round", (number + 1).to_string()),
            ("White", white.to_string()),
            ("Black", black.to_string()),
        ];
        rules::predictor::record::write(&game, &tags.map(|(n, v)| (n.to_string(), v)))
    });
    Ok(Played { number, a_white, winner, reason, plies: game.plies().len(), final_fen: game.position().fen(), record })
}

/// Plays the match: a line per game on stderr, the summary on stdout.
pub(crate) fn run(m: &PredictorMatch) -> Result<ExitCode> {
    let names = m.styles.map(name);
    let budget = format!("{} ms per ply", m.movetime.as_millis());
    eprintln!(
        "match: {} vs {}, {}, {} games, {budget}, seed {}, {} at a time",
        names[0], names[1], m.variant.name, m.games, m.seed, m.concurrency
    );
    crate::duel::run_games(names, &m.variant.name, &budget, m.games, m.concurrency, m.pgn.as_deref(), |n| play(m, n))
}
