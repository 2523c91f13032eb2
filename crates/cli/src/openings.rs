//! `fairylab openings`: the opening tree of a PGN collection, as lichess's explorer shows a
//! database: for a position, every move its games played there, with their count and score.
//!
//! A move's score is for the side that played it, draws half a point, with its 95 % Wilson
//! interval; the play server's explorer counts positions the same way
//! (`server::explorer::game_moves`).

use anyhow::{bail, Context, Result};
use clap::Args;
use rules::Color;
use serde_json::{json, Value};
use sim::stats::{wilson_interval, Z95};
use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub(crate) struct OpeningsArgs {
    /// The games: a PGN file of one or more records (`-` reads stdin).
    records: PathBuf,
    /// The variant of the games counted (default: the first game's); games of others are skipped.
    #[arg(long, conflicts_with = "variant_file")]
    variant: Option<String>,
    /// A custom variant file (TOML, docs/FORMATS.md) whose games are counted.
    #[arg(long)]
    variant_file: Option<PathBuf>,
    /// The position (default: the start most of the counted variant's games begin from, which
    /// for Chess960 and Probabilistic chess, whose games each draw a start, is not the variant's
    /// own).
    #[arg(long)]
    fen: Option<String>,
    /// UCI moves played from it first, comma-separated (`e2e4,c7c5`).
    #[arg(long)]
    play: Option<String>,
    /// Plies of each game counted.
    #[arg(long, default_value_t = server::explorer::MAX_PLIES, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=10_000))]
    plies: usize,
    /// One JSON object instead of the table.
    #[arg(long)]
    json: bool,
}

/// Games won by White, drawn and won by Black.
type Results = [u32; 3];

/// The FEN of the start most of `starts` share (the first of equals), if any.
fn common_start<'a>(starts: impl Iterator<Item = &'a rules::Position>) -> Option<String> {
    // (FEN, games) in order of first appearance, and each key's index there.
    let mut seen: Vec<(String, u32)> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for s in starts {
        let i = *index.entry(server::explorer::position_key(s)).or_insert_with(|| {
            seen.push((s.fen(), 0));
            seen.len() - 1
        });
        seen[i].1 += 1;
    }
    let most = seen.iter().map(|e| e.1).max()?;
    seen.into_iter().find(|e| e.1 == most).map(|e| e.0)
}

pub(crate) fn run(a: &OpeningsArgs, out: &mut impl Write) -> Result<()> {
    let text = crate::read_input(&a.records, "the records")?;
    let custom = match &a.variant_file {
        Some(p) => Some(rules::spec::load_variant_file(p).with_context(|| format!("reading {}", p.display()))?),
        None => None,
    };
    // A game that does not read is skipped and counted (its number and reason told), as a
    // database tool skips it; a file that does not split into games is refused.
    let each = rules::record::read_records_each(&text, custom.as_slice()).context("reading the records")?;
    let mut unreadable: Vec<String> = Vec::new();
    let mut records = Vec::new();
    for (i, r) in each.into_iter().enumerate() {
        match r {
            Ok(r) => records.push(r),
            Err(e) => unreadable.push(format!("game {}: {e}", i + 1)),
        }
    }
    let Some(first) = records.first() else {
        match unreadable.first() {
            Some(e) => bail!("no game of the file reads ({e})"),
            None => bail!("the file holds no game"),
        }
    };
    let line_at = |fen: Option<&str>| match (custom, &a.variant) {
        (Some(v), _) => server::line::line_in(v, fen, a.play.as_deref()),
        (None, Some(name)) => server::line::line_of(name, fen, a.play.as_deref()),
        (None, None) => server::line::line_in(first.game.start().variant(), fen, a.play.as_deref()),
    };
    let mut line = line_at(a.fen.as_deref())?;
    if a.fen.is_none() {
        let name = &line.position().variant().name;
        if let Some(start) = common_start(records.iter().map(|r| r.game.start()).filter(|s| &s.variant().name == name))
        {
            line = line_at(Some(&start))?;
        }
    }
    let pos = line.position();
    let key = server::explorer::position_key(pos);
    // Step 1. Every counted game's moves from the position, with its result.
    let (mut counted, mut no_result, mut other_variant) = (0u32, 0u32, 0u32);
    let mut tree: HashMap<String, Results> = HashMap::new();
    for r in &records {
        if r.game.start().variant().name != pos.variant().name {
            other_variant += 1;
            continue;
        }
        let column = match r.tag("Result") {
            Some("1-0") => 0,
            Some("1/2-1/2") => 1,
            Some("0-1") => 2,
            _ => {
                no_result += 1;
                continue;
            }
        };
        counted += 1;
        for (p, uci) in server::explorer::game_moves(&r.game, a.plies) {
            if p == key {
                tree.entry(uci).or_default()[column] += 1;
            }
        }
    }
    // Step 2. The moves, the most played first, scored for the side that plays them.
    let mut moves: Vec<(String, Results)> = tree.into_iter().collect();
    moves.sort_by(|x, y| y.1.iter().sum::<u32>().cmp(&x.1.iter().sum()).then(x.0.cmp(&y.0)));
    let mover = pos.turn();
    let rows: Vec<Value> = moves
        .iter()
        .map(|(uci, [w, d, b])| {
            let san =
                rules::uci::parse_uci(pos, uci).map(|m| rules::san::to_san(pos, m)).unwrap_or_else(|_| uci.clone());
            let wins = if mover == Color::White { *w } else { *b };
            let games = w + d + b;
            let score = (f64::from(wins) + f64::from(*d) / 2.0) / f64::from(games);
            let i = wilson_interval(score, f64::from(games), Z95);
            json!({
                "uci": uci, "san": san, "games": games, "white": w, "draws": d, "black": b,
                "score": score, "score_low": i.lo, "score_high": i.hi,
            })
        })
        .collect();
    let report = json!({
        "variant": pos.variant().name, "fen": pos.fen(), "games": counted, "no_result": no_result,
        "other_variant": other_variant, "unreadable": unreadable, "plies": a.plies, "moves": rows,
    });
    if a.json {
        writeln!(out, "{report}")?;
        return Ok(());
    }
    writeln!(
        out,
        "openings: {counted} game{} of {} ({no_result} without a result and {other_variant} of another variant skipped), their first {} plies",
        if counted == 1 { "" } else { "s" }, pos.variant().name, a.plies
    )?;
    if let Some(e) = unreadable.first() {
        let more = if unreadable.len() > 1 { format!(" (and {} more)", unreadable.len() - 1) } else { String::new() };
        let what = if unreadable.len() == 1 { "game that does" } else { "games that do" };
        writeln!(out, "skipped {} {what} not read: {e}{more}", unreadable.len())?;
    }
    writeln!(out, "position: {}", pos.fen())?;
    if rows.is_empty() {
        writeln!(out, "no counted game played on from this position")?;
        return Ok(());
    }
    writeln!(
        out,
        "{:<8} {:>6} {:>6} {:>6} {:>6}  score for {mover} [95 % interval]",
        "move", "games", "white", "draws", "black"
    )?;
    let pc = |v: &Value| v.as_f64().map_or("-".to_string(), |x| format!("{:.1}", 100.0 * x));
    let n = |v: &Value| v.as_u64().unwrap_or(0);
    for r in &rows {
        writeln!(
            out,
            "{:<8} {:>6} {:>6} {:>6} {:>6}  {} % [{}, {}]",
            r["san"].as_str().unwrap_or(""),
            n(&r["games"]),
            n(&r["white"]),
            n(&r["draws"]),
            n(&r["black"]),
            pc(&r["score"]),
            pc(&r["score_low"]),
            pc(&r["score_high"])
        )?;
    }
    Ok(())
}
