//! `fairylab review`: a played game reviewed as lichess's computer analysis reviews it (every
//! move judged, each side's mistakes, average centipawn loss and accuracy; with chance, luck).

use anyhow::{bail, Context, Result};
use clap::Args;
use engine::review::{review, ReviewLimits};
use engine::Limits;
use rules::record::Annotation;
use serde_json::Value;
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(Debug, Args)]
pub(crate) struct ReviewArgs {
    /// The game: a PGN record (the first game of the file; `-` reads stdin).
    record: PathBuf,
    /// The variant file (TOML) of a game of a custom variant.
    #[arg(long)]
    variant_file: Option<PathBuf>,
    /// Nodes searched in each position (the default; the review is then reproducible).
    #[arg(long, default_value_t = 200_000, value_parser = clap::value_parser!(u64).range(1..=1_000_000_000))]
    nodes: u64,
    /// Milliseconds for each position instead of a node count.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=600_000), conflicts_with = "nodes")]
    movetime: Option<u64>,
    /// Searches at once (default: one a core); the review is the same for any number.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=256))]
    threads: Option<u64>,
    /// Endgame table files (`fairylab egt --out`) for exact values.
    #[arg(long, value_name = "FILE", num_args = 1..)]
    tables: Vec<PathBuf>,
    /// One JSON object instead of text (with --all, one a line, with `game` and `tags`).
    #[arg(long, conflicts_with = "pgn")]
    json: bool,
    /// Every game of the file, not the first alone (games without moves are skipped).
    #[arg(long)]
    all: bool,
    /// The record annotated as lichess annotates an analysed game: NAGs ($6 $2 $4) and comments
    /// with `[%eval ...]`, the evaluations around each error and the best move (and luck).
    #[arg(long)]
    pgn: bool,
}

pub(crate) fn run(a: &ReviewArgs, out: &mut impl Write) -> Result<()> {
    let text = crate::read_input(&a.record, "the record")?;
    let extra = match &a.variant_file {
        Some(p) => vec![rules::spec::load_variant_file(p).with_context(|| format!("reading {}", p.display()))?],
        None => Vec::new(),
    };
    // With --all, a game that does not read (or cannot be reviewed) is skipped and said, as a
    // database tool skips it; the others are reviewed. (Numbers count from 1 in the file.)
    let mut records = Vec::new();
    let mut skipped: Vec<(usize, String)> = Vec::new();
    if a.all {
        let each = rules::record::read_records_each(&text, &extra).context("reading the records")?;
        for (i, r) in each.into_iter().enumerate() {
            match r {
                Ok(rec) => records.push((i + 1, rec)),
                Err(e) => skipped.push((i + 1, e.to_string())),
            }
        }
    } else {
        records.push((1, rules::record::read_record_with(&text, &extra).context("reading the record")?));
    }
    if records.is_empty() {
        match skipped.first() {
            Some((n, e)) => bail!("no game of the file reads (game {n}: {e})"),
            None => bail!("the file holds no game"),
        }
    }
    let predictor = "Predictor chess games are not reviewed (both sides move at once)";
    if !a.all {
        let rec = &records[0].1;
        if rec.game.start().variant().simultaneous {
            bail!("{predictor}");
        }
        if rec.game.moves().is_empty() {
            bail!("the game has no moves to review");
        }
    }
    records.retain(|(n, rec)| {
        let keep = !rec.game.start().variant().simultaneous;
        if !keep {
            skipped.push((*n, predictor.to_string()));
        }
        keep
    });
    skipped.sort_by_key(|(n, _)| *n);
    for (n, e) in &skipped {
        eprintln!("game {n} skipped: {e}");
        if a.json {
            writeln!(out, "{}", serde_json::json!({ "game": n, "error": e }))?;
        }
    }
    let per_position = match a.movetime {
        Some(ms) => Limits::movetime(Duration::from_millis(ms)),
        None => Limits::nodes(a.nodes),
    };
    let tables = if a.tables.is_empty() {
        None
    } else {
        let paths: Vec<&std::path::Path> = a.tables.iter().map(|p| p.as_path()).collect();
        Some(std::sync::Arc::new(egt::tablebase::Tablebase::load(&paths)?))
    };
    let threads = a.threads.map_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()), |t| t as usize);
    let limits = ReviewLimits { per_position, threads, tables };
    let started = Instant::now();
    let mut reviewed = 0;
    let mut totals = Totals::default();
    let terminal = std::io::IsTerminal::is_terminal(&std::io::stderr());
    for (n, rec) in &records {
        let i = n - 1;
        if rec.game.moves().is_empty() {
            continue;
        }
        let r = review(&rec.game, &limits, |done, total| {
            // The counter rewrites one line of a terminal; a log gets the summary line only.
            if terminal && (done == total || done % 10 == 0) {
                eprint!(
                    "\rreviewing{}: {done}/{total} searches",
                    if a.all { format!(" game {}", i + 1) } else { String::new() }
                );
            }
        });
        reviewed += 1;
        let json = server::analysis::review_json(&r, rec.game.start());
        totals.add(&json, rec.tag("Result").or_else(|| rec.game.outcome().map(|o| o.result())));
        if a.json {
            let mut line = json;
            if a.all {
                // One object a line: the game's number and tags first.
                let tags: serde_json::Map<String, Value> =
                    rec.tags.iter().map(|(n, v)| (n.clone(), Value::String(v.clone()))).collect();
                line["game"] = Value::from(i + 1);
                line["tags"] = Value::Object(tags);
            }
            writeln!(out, "{line}")?;
        } else if a.pgn {
            // The record's own NAGs and comments (a clock, a coach's words) are kept beside the
            // review's, as lichess keeps `[%clk]` beside `[%eval]`, and so are its first comment
            // and its variations.
            let annotations = merge_annotations(&rec.annotations, server::analysis::review_annotations(&json));
            let reviewed = rules::record::Record { annotations, ..rec.clone() };
            write!(out, "{}", rules::record::write_record(&reviewed))?;
            if a.all {
                writeln!(out)?;
            }
        } else {
            if a.all {
                let tag = |n: &str| rec.tag(n).unwrap_or("?").to_string();
                writeln!(out, "Game {}: {} – {} ({})", i + 1, tag("White"), tag("Black"), tag("Result"))?;
            }
            write_text(&json, out)?;
            if a.all {
                writeln!(out)?;
            }
        }
    }
    let mut took =
        format!("{reviewed} game{} in {:.1} s", if reviewed == 1 { "" } else { "s" }, started.elapsed().as_secs_f64());
    if !skipped.is_empty() {
        took.push_str(&format!("; {} skipped (said above)", skipped.len()));
    }
    if terminal {
        eprintln!(" ({took})");
    } else {
        eprintln!("reviewed {took}");
    }
    if a.all && !a.json && !a.pgn {
        totals.write(out)?;
    }
    Ok(())
}

/// The review's annotation of each move with the record's own: the record's NAGs first (the
/// review's judgement only where the record judged the move with none of `$1` to `$6`), the
/// review's comment (`[%eval ...]` and its words) then the record's.
fn merge_annotations(own: &[Annotation], review: Vec<Annotation>) -> Vec<Annotation> {
    let n = own.len().max(review.len());
    let mut review = review.into_iter();
    (0..n)
        .map(|ply| {
            let mine = own.get(ply).cloned().unwrap_or_default();
            let theirs = review.next().unwrap_or_default();
            let judged = mine.nags.iter().any(|n| (1..=6).contains(n));
            let mut nags = mine.nags;
            if !judged {
                nags.extend(theirs.nags);
            }
            let comment = match (theirs.comment, mine.comment) {
                (Some(a), Some(b)) => Some(format!("{a} {b}")),
                (a, b) => a.or(b),
            };
            Annotation { nags, comment }
        })
        .collect()
}

/// What `--all` sums over its games, for the summary after them.
#[derive(Debug, Default)]
struct Totals {
    games: usize,
    /// Per side, summed over the games: accuracy and average centipawn loss.
    accuracy: [f64; 2],
    acpl: [f64; 2],
    /// Decided games with chance, and those won by the side with more luck.
    decided_with_luck: usize,
    luckier_won: usize,
}

impl Totals {
    fn add(&mut self, review: &Value, result: Option<&str>) {
        self.games += 1;
        for (i, side) in ["white", "black"].into_iter().enumerate() {
            self.accuracy[i] += review["sides"][side]["accuracy"].as_f64().unwrap_or(0.0);
            self.acpl[i] += review["sides"][side]["acpl"].as_f64().unwrap_or(0.0);
        }
        let luck = |side: &str| review["sides"][side]["luck"].as_f64();
        if let (Some(w), Some(b), Some(r @ ("1-0" | "0-1"))) = (luck("white"), luck("black"), result) {
            self.decided_with_luck += 1;
            if (w > b) == (r == "1-0") && w != b {
                self.luckier_won += 1;
            }
        }
    }

    fn write(&self, out: &mut impl Write) -> Result<()> {
        if self.games == 0 {
            return Ok(());
        }
        let n = self.games as f64;
        write!(
            out,
            "{} games: accuracy White {:.0} %, Black {:.0} % (means); average centipawn loss White {:.0}, Black {:.0}",
            self.games,
            self.accuracy[0] / n,
            self.accuracy[1] / n,
            self.acpl[0] / n,
            self.acpl[1] / n
        )?;
        if self.decided_with_luck > 0 {
            write!(out, "; the luckier side won {} of {} decided games", self.luckier_won, self.decided_with_luck)?;
        }
        writeln!(out)?;
        Ok(())
    }
}

/// The review (its JSON) as text: one line a move, then each side's totals.
fn write_text(v: &Value, out: &mut impl Write) -> Result<()> {
    for m in v["moves"].as_array().into_iter().flatten() {
        let number = if m["side"] == "white" { format!("{}.", m["fullmove"]) } else { format!("{}...", m["fullmove"]) };
        let moved = format!("{number} {}{}", m["san"].as_str().unwrap_or(""), m["glyph"].as_str().unwrap_or(""));
        // Dice variants' values are expected winning chances (`win_scale`): shown as White's.
        let scale = v["win_scale"].as_f64().filter(|&s| s > 0.0);
        let eval = |e: &Value| match (e["cp"].as_i64(), e["mate"].as_i64(), scale) {
            (Some(cp), _, Some(s)) => format!("{:.1}%", 50.0 + 50.0 * (cp as f64 / s).clamp(-1.0, 1.0)),
            (Some(cp), _, None) => format!("{:+.2}", cp as f64 / 100.0),
            (_, Some(mate), _) => format!("#{mate}"),
            _ => "?".into(),
        };
        let mut line = format!("{moved:<14} {:>6}", eval(&m["after"]));
        if let Some(j) = m["judgement"].as_str() {
            let why = m["mate"].as_str().map_or(String::new(), |t| format!(": {t}"));
            line.push_str(&format!("  {j}{why} ({} → {})", eval(&m["before"]), eval(&m["after"])));
            if let Some(best) = m["best"].as_str() {
                line.push_str(&format!("; best {best}"));
            }
        }
        if let Some(l) = m["luck"].as_f64().filter(|l| l.abs() >= 5.0) {
            line.push_str(&format!("  luck {:+.0}", l.round() + 0.0));
        }
        writeln!(out, "{}", line.trim_end())?;
    }
    writeln!(out)?;
    for name in ["white", "black"] {
        let s = &v["sides"][name];
        let accuracy = s["accuracy"].as_f64().map_or("-".to_string(), |a| format!("{a:.0} %"));
        let luck = s["luck"].as_f64().map_or(String::new(), |l| format!(", luck {:+.0} points", l.round() + 0.0));
        let count = |key: &str, one: &str, many: &str| {
            let n = s[key].as_u64().unwrap_or(0);
            format!("{n} {}", if n == 1 { one } else { many })
        };
        writeln!(
            out,
            "{name}: {}, {}, {}, average centipawn loss {:.0}, accuracy {accuracy}{luck}",
            count("inaccuracies", "inaccuracy", "inaccuracies"),
            count("mistakes", "mistake", "mistakes"),
            count("blunders", "blunder", "blunders"),
            s["acpl"].as_f64().unwrap_or(0.0)
        )?;
    }
    Ok(())
}
