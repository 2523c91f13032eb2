//! `fairylab predictor`: resolve a Predictor chess ply, commit to orders, reveal and verify them,
//! and referee a ply from two verified reveals (docs/FORMATS.md § Predictor chess).

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, Subcommand};
use rules::predictor::commit::{self, Commitment, Nonce, Reveal};
use rules::predictor::game::{PredictorGame, Seal};
use rules::predictor::{self as pred, record, Orders, PieceAt, PlyReport};
use rules::uci::to_uci;
use rules::{variants, Color, Position};
use serde_json::{json, Value};
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
pub(crate) struct PredictorArgs {
    #[command(subcommand)]
    command: PredictorCommand,
}

#[derive(Debug, Subcommand)]
enum PredictorCommand {
    /// Resolve one ply from both sides' orders: the board after it and the ply report (with
    /// --json, refused orders are printed as `valid: false` and exit with status 1).
    Resolve(ResolveArgs),
    /// Commit to orders: prints the commitment to publish and the nonce to keep secret.
    Commit(CommitArgs),
    /// Make the reveal line for committed orders (checked against the commitment when given).
    Reveal(RevealArgs),
    /// Check that a reveal line opens a commitment.
    Verify(VerifyArgs),
    /// Resolve a ply from both sides' commitments and reveals, optionally appending it to a
    /// game record file.
    Referee(RefereeArgs),
}

#[derive(Debug, Args)]
struct ResolveArgs {
    /// The position before the ply (default: the start position).
    #[arg(long)]
    fen: Option<String>,
    /// White's orders: `e2e4` or `e2e4 if e7e5 then d2d3`.
    #[arg(long, allow_hyphen_values = true)]
    white: String,
    /// Black's orders.
    #[arg(long, allow_hyphen_values = true)]
    black: String,
    /// Print JSON (docs/FORMATS.md) instead of text.
    #[arg(long)]
    json: bool,
}

/// Whose orders, for which ply of which game: what a commitment binds.
#[derive(Debug, Args)]
struct SealedArgs {
    /// The game id (1 to 64 letters, digits, '.', '_', '-').
    #[arg(long)]
    game: String,
    /// The ply (1 for the first).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    ply: u32,
    /// The side: white or black.
    #[arg(long)]
    side: String,
    /// The orders (as committed, for a reveal).
    #[arg(long, allow_hyphen_values = true)]
    orders: String,
}

#[derive(Debug, Args)]
struct CommitArgs {
    #[command(flatten)]
    sealed: SealedArgs,
    /// The position before the ply: the orders are checked in it first.
    #[arg(long)]
    fen: Option<String>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
struct RevealArgs {
    #[command(flatten)]
    sealed: SealedArgs,
    /// The nonce printed by `commit` (64 hex digits).
    #[arg(long)]
    nonce: String,
    /// The commitment published: the reveal is checked against it before it is printed.
    #[arg(long)]
    commitment: Option<String>,
}

#[derive(Debug, Args)]
struct VerifyArgs {
    /// The published commitment (64 hex digits).
    #[arg(long)]
    commitment: String,
    /// The reveal line (`predictor-reveal v1 game=... orders=...`).
    #[arg(long, allow_hyphen_values = true)]
    reveal: String,
}

#[derive(Debug, Args)]
struct RefereeArgs {
    /// A game record file: the ply is played from its current position and appended (the file is
    /// created, with `--game` as its GameId and `--fen` as its start, when it does not exist).
    #[arg(long)]
    record: Option<PathBuf>,
    /// The position before the ply (default: the start position); with `--record`, the start of
    /// a new record only.
    #[arg(long)]
    fen: Option<String>,
    /// The game id (with `--record`: must equal the record's GameId).
    #[arg(long)]
    game: Option<String>,
    /// The ply (default: the record's next ply, or 1).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    ply: Option<u32>,
    /// White's commitment.
    #[arg(long)]
    white_commitment: String,
    /// White's reveal line.
    #[arg(long, allow_hyphen_values = true)]
    white_reveal: String,
    /// Black's commitment.
    #[arg(long)]
    black_commitment: String,
    /// Black's reveal line.
    #[arg(long, allow_hyphen_values = true)]
    black_reveal: String,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// Runs a `predictor` command; `Ok(false)` when `resolve --json` printed refused orders (exit
/// status 1, as a check that found something false; errors exit with 2).
pub(crate) fn run(a: &PredictorArgs, out: &mut impl Write) -> Result<bool> {
    match &a.command {
        PredictorCommand::Resolve(r) => return resolve_command(r, out),
        PredictorCommand::Commit(c) => commit_command(c, out),
        PredictorCommand::Reveal(r) => reveal_command(r, out),
        PredictorCommand::Verify(v) => verify_command(v, out),
        PredictorCommand::Referee(r) => referee_command(r, out),
    }?;
    Ok(true)
}

fn position(fen: Option<&str>) -> Result<Position> {
    let v = variants::predictor::variant();
    match fen {
        Some(f) => Position::from_fen(v, f).map_err(|e| anyhow!("invalid FEN '{f}': {e}")),
        None => Ok(Position::start(v)),
    }
}

fn names(v: &[PieceAt]) -> Vec<String> {
    v.iter().map(|p| format!("{}{}", p.letter, p.square)).collect()
}

fn side_json(before: &Position, side: Color, orders: &Orders, fired: bool) -> Value {
    let view = pred::side_view(before, side);
    let enemy = pred::side_view(before, !side);
    let c = orders.conditional;
    json!({
        "orders": orders.to_text(before, side),
        "primary": to_uci(&view, orders.primary),
        "prediction": c.map(|c| to_uci(&enemy, c.prediction)),
        "response": c.map(|c| to_uci(&view, c.response)),
        "fired": fired,
    })
}

fn outcome_json(o: Option<rules::outcome::Outcome>) -> Value {
    use rules::outcome::Outcome;
    match o {
        None => Value::Null,
        Some(o) => {
            let (winner, reason) = match o {
                Outcome::Decisive { winner, reason } => (Some(winner.to_string()), reason),
                Outcome::Draw { reason } => (None, reason),
            };
            json!({ "result": o.result(), "winner": winner, "reason": reason.name() })
        }
    }
}

fn report_json(before: &Position, after: &Position, r: &PlyReport, number: u32) -> Value {
    let ply = rules::predictor::game::Ply { report: r.clone(), seals: None };
    json!({
        "valid": true,
        "fen_before": before.fen(),
        "board_after": after.board_fen(),
        "fen_after": after.fen(),
        "white": side_json(before, Color::White, &r.orders[0], r.fired[0]),
        "black": side_json(before, Color::Black, &r.orders[1], r.fired[1]),
        "annihilated": names(&r.annihilated),
        "captured": names(&r.captured),
        "ply_line": record::ply_line(before, number, &ply),
        "outcome": outcome_json(pred::outcome(after)),
    })
}

fn write_report(out: &mut impl Write, before: &Position, after: &Position, r: &PlyReport, line: &str) -> Result<()> {
    writeln!(out, "{line}")?;
    for (side, i) in [(Color::White, 0), (Color::Black, 1)] {
        let fired = match (r.orders[i].conditional, r.fired[i]) {
            (None, _) => "no conditional",
            (Some(_), true) => "conditional fired",
            (Some(_), false) => "conditional did not fire",
        };
        writeln!(out, "{side:<6} {} ({fired})", r.orders[i].to_text(before, side))?;
    }
    let list = |v: &[PieceAt]| if v.is_empty() { "-".to_string() } else { names(v).join(" ") };
    writeln!(out, "annihilated {}", list(&r.annihilated))?;
    writeln!(out, "captured    {}", list(&r.captured))?;
    writeln!(out, "after       {}", after.fen())?;
    if let Some(o) = pred::outcome(after) {
        writeln!(out, "game over   {o}")?;
    }
    Ok(())
}

/// Resolves one ply; `Ok(false)` when the orders were refused and said so in JSON.
fn resolve_command(a: &ResolveArgs, out: &mut impl Write) -> Result<bool> {
    let before = position(a.fen.as_deref())?;
    // A game over at the start of the ply (mate, stalemate) has no ply to resolve.
    if let Some(o) = rules::predictor::outcome(&before) {
        bail!("the game is over in this position, {o}: there is no ply to resolve");
    }
    let parsed = Orders::parse(&before, Color::White, &a.white)
        .map_err(|e| (Color::White, e))
        .and_then(|w| Orders::parse(&before, Color::Black, &a.black).map(|b| (w, b)).map_err(|e| (Color::Black, e)));
    let (white, black) = match parsed {
        Ok(o) => o,
        Err((side, e)) if a.json => {
            let v = json!({ "valid": false, "side": side.to_string(), "error": e.kind(), "reason": e.to_string() });
            writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
            return Ok(false);
        }
        Err((side, e)) => bail!("{side}'s orders are rejected: {e}"),
    };
    let (after, report) = pred::resolve(&before, &white, &black)?;
    let number = before.fullmoves();
    if a.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report_json(&before, &after, &report, number))?)?;
    } else {
        let ply = rules::predictor::game::Ply { report: report.clone(), seals: None };
        write_report(out, &before, &after, &report, &record::ply_line(&before, number, &ply))?;
    }
    Ok(true)
}

fn commit_command(a: &CommitArgs, out: &mut impl Write) -> Result<()> {
    let SealedArgs { game, ply, side, orders: text } = &a.sealed;
    let side = commit::parse_side(side)?;
    let orders = match &a.fen {
        Some(f) => {
            let pos = position(Some(f))?;
            let o = Orders::parse(&pos, side, text).map_err(|e| anyhow!("{side}'s orders are rejected: {e}"))?;
            o.to_text(&pos, side)
        }
        None => {
            // Without a position only the syntax can be checked.
            let canonical = commit::canonical_orders(text);
            pred::order_words(&canonical)?;
            canonical
        }
    };
    let (reveal, c) = Reveal::seal(game, *ply, side, &orders)?;
    if a.fen.is_none() {
        eprintln!(
            "warning: without --fen only the orders' syntax is checked; orders illegal in the position \
             forfeit the game when revealed (give --fen with the position before the ply to check them)"
        );
    }
    if a.json {
        let v = json!({ "commitment": c.to_string(), "nonce": reveal.nonce.to_string(), "orders": reveal.orders, "reveal": reveal.to_line() });
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
    } else {
        writeln!(out, "commitment {c}")?;
        writeln!(out, "nonce      {}", reveal.nonce)?;
        writeln!(out, "Publish the commitment now. Keep the nonce secret; after the deadline publish the reveal:")?;
        writeln!(out, "{}", reveal.to_line())?;
    }
    Ok(())
}

fn reveal_command(a: &RevealArgs, out: &mut impl Write) -> Result<()> {
    let SealedArgs { game, ply, side, orders } = &a.sealed;
    commit::check_game_id(game)?;
    let reveal = Reveal {
        game: game.clone(),
        ply: *ply,
        side: commit::parse_side(side)?,
        orders: commit::canonical_orders(orders),
        nonce: a.nonce.parse::<Nonce>()?,
    };
    if let Some(c) = &a.commitment {
        reveal.verify(&c.parse::<Commitment>()?)?;
    }
    writeln!(out, "{}", reveal.to_line())?;
    Ok(())
}

fn verify_command(a: &VerifyArgs, out: &mut impl Write) -> Result<()> {
    let c: Commitment = a.commitment.parse()?;
    let reveal = Reveal::parse(&a.reveal)?;
    reveal.verify(&c)?;
    writeln!(
        out,
        "ok: the reveal opens {c} (game {}, ply {}, {}: {})",
        reveal.game, reveal.ply, reveal.side, reveal.orders
    )?;
    Ok(())
}

/// Reads the record at `path`, or a new game from `fen` (default: the start) when it does not
/// exist; `fen` is refused for a record that exists, which has its own position.
fn load_record(path: &Path, game: Option<&str>, fen: Option<&str>) -> Result<(PredictorGame, Vec<(String, String)>)> {
    if !path.exists() {
        let id = game.ok_or_else(|| anyhow!("{} does not exist: give --game to start a new record", path.display()))?;
        commit::check_game_id(id)?;
        let tags = vec![("GameId".to_string(), id.to_string())];
        return Ok((PredictorGame::new(position(fen)?), tags));
    }
    if fen.is_some() {
        bail!("{} exists: its plies give the position, so --fen only starts a new record", path.display());
    }
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let rec = record::read(&text).with_context(|| format!("reading the record {}", path.display()))?;
    let id = rec.tag("GameId").ok_or_else(|| anyhow!("{} has no GameId tag", path.display()))?;
    if let Some(g) = game {
        if g != id {
            bail!("--game {g} differs from the record's GameId {id}");
        }
    }
    Ok((rec.game, rec.tags))
}

/// Writes `text` to `path` through a temporary file and a rename, so a failure never leaves a
/// half-written record.
fn write_atomically(path: &Path, text: &str) -> Result<()> {
    let tmp = path.with_extension("tmp-fairylab");
    std::fs::write(&tmp, text).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("replacing {}", path.display()))?;
    Ok(())
}

fn referee_command(a: &RefereeArgs, out: &mut impl Write) -> Result<()> {
    let (mut game, tags, game_id) = match &a.record {
        Some(path) => {
            let (g, tags) = load_record(path, a.game.as_deref(), a.fen.as_deref())?;
            let id = tags.iter().find(|(n, _)| n == "GameId").map(|(_, v)| v.clone()).unwrap_or_default();
            (g, tags, id)
        }
        None => {
            let id = a.game.clone().ok_or_else(|| anyhow!("give --game (or --record)"))?;
            commit::check_game_id(&id)?;
            let start = position(a.fen.as_deref())?;
            (PredictorGame::new(start), vec![("GameId".to_string(), id.clone())], id)
        }
    };
    if let Some(o) = game.outcome() {
        bail!("the game is over: {o}");
    }
    let ply = match (a.record.is_some(), a.ply) {
        (true, Some(p)) if p != game.next_ply() => bail!("--ply {p}: the record's next ply is {}", game.next_ply()),
        (true, _) => game.next_ply(),
        (false, p) => p.unwrap_or(1),
    };
    let before = game.position().clone();
    let mut orders = Vec::new();
    let mut seals = Vec::new();
    // A reveal that does not open its commitment, or opens orders illegal here, forfeits the
    // game for its side (RULINGS § Predictor 7; both: a draw). Text that is not a commitment or
    // a reveal of this ply is the operator's mistake: refused, nothing ruled.
    let mut faults: [Option<String>; 2] = [None, None];
    for (side, c, r) in
        [(Color::White, &a.white_commitment, &a.white_reveal), (Color::Black, &a.black_commitment, &a.black_reveal)]
    {
        let c: Commitment = c.parse().with_context(|| format!("{side}'s commitment"))?;
        let reveal = Reveal::parse(r).with_context(|| format!("{side}'s reveal"))?;
        if reveal.game != game_id || reveal.ply != ply || reveal.side != side {
            bail!(
                "{side}'s reveal is for game {} ply {} ({}), but this is game {game_id} ply {ply} ({side})",
                reveal.game,
                reveal.ply,
                reveal.side
            );
        }
        if let Err(e) = reveal.verify(&c) {
            faults[side.index()] = Some(format!("the reveal does not open the commitment: {e}"));
            continue;
        }
        match Orders::parse(&before, side, &reveal.orders) {
            Ok(o) => {
                orders.push(o);
                seals.push(Seal { commitment: c, nonce: reveal.nonce });
            }
            Err(e) => faults[side.index()] = Some(format!("the revealed orders are illegal: {e}")),
        }
    }
    if faults.iter().any(Option::is_some) {
        return forfeit(a, &mut game, &tags, ply, faults, out);
    }
    let number = ply;
    let played = game.play(&orders[0], &orders[1], Some([seals[0], seals[1]]))?.clone();
    let after = game.position().clone();
    if let Some(path) = &a.record {
        write_atomically(path, &record::write(&game, &tags))?;
    }
    if a.json {
        let mut v = report_json(&before, &after, &played.report, number);
        v["ply_line"] = json!(record::ply_line(&before, number, &played));
        v["outcome"] = outcome_json(game.outcome());
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
    } else {
        write_report(out, &before, &after, &played.report, &record::ply_line(&before, number, &played))?;
    }
    Ok(())
}

/// The referee's ruling on a ply whose reveals forfeit: the game ends (for the other side, or
/// drawn if both forfeit), written to the record when one is kept.
fn forfeit(
    a: &RefereeArgs,
    game: &mut PredictorGame,
    tags: &[(String, String)],
    ply: u32,
    faults: [Option<String>; 2],
    out: &mut impl Write,
) -> Result<()> {
    use rules::outcome::{EndReason, Outcome};
    let outcome = match &faults {
        [Some(_), Some(_)] => Outcome::Draw { reason: EndReason::Forfeit },
        [Some(_), None] => Outcome::Decisive { winner: Color::Black, reason: EndReason::Forfeit },
        _ => Outcome::Decisive { winner: Color::White, reason: EndReason::Forfeit },
    };
    game.end(outcome);
    if let Some(path) = &a.record {
        write_atomically(path, &record::write(game, tags))?;
    }
    if a.json {
        let v = json!({
            "ply": ply,
            "forfeit": { "white": faults[0], "black": faults[1] },
            "outcome": outcome_json(Some(outcome)),
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
    } else {
        for (side, fault) in [Color::White, Color::Black].into_iter().zip(&faults) {
            if let Some(f) = fault {
                writeln!(out, "{side} forfeits at ply {ply}: {f}")?;
            }
        }
        writeln!(out, "game over: {outcome}")?;
    }
    Ok(())
}
