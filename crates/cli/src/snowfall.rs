//! `fairylab snowfall odds`: the exact gift odds of a SnowFall position, printed for people or as
//! JSON (docs/FORMATS.md, "SnowFall odds"); the computation lives in `rules::odds`.

use anyhow::{bail, Result};
use clap::{Args, Subcommand};
use rules::chance::{fraction_text, to_f64, Probability};
use rules::gift::Kind;
use rules::odds::{self, GiftOdds, MateOdds};
use rules::san::to_san;
use rules::uci::to_uci;
use rules::{variants, Color, Move, Position};
use serde_json::{json, Map, Value};
use std::io::Write;

#[derive(Debug, Args)]
pub(crate) struct SnowfallArgs {
    #[command(subcommand)]
    command: SnowfallCommand,
}

#[derive(Debug, Subcommand)]
enum SnowfallCommand {
    /// The pending gift event of a position (the side not to move has just moved): each player's
    /// chance of each piece, the joint outcome table, and the chances that the side to move mates
    /// next move thanks to a gift or is mated after its move and the gift that follows it.
    Odds(OddsArgs),
}

#[derive(Debug, Args)]
struct OddsArgs {
    /// The position, hands in brackets (`...RNBR[Qp] b ...`).
    #[arg(long)]
    fen: String,
    /// The game's SnowFall percentage (gift-event probability).
    #[arg(long, value_name = "N", default_value_t = variants::snowfall::DEFAULT_PERCENT,
          value_parser = clap::value_parser!(u8).range(0..=100))]
    snowfall: u8,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Moves listed in the text's "mated next move" table (all of them in JSON).
    #[arg(long, default_value_t = 5)]
    top: usize,
}

pub(crate) fn run(a: &SnowfallArgs, out: &mut impl Write) -> Result<()> {
    match &a.command {
        SnowfallCommand::Odds(o) => odds_command(o, out),
    }
}

fn percent(p: Probability) -> String {
    format!("{:.2} %", 100.0 * to_f64(p))
}

fn side(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

fn odds_command(a: &OddsArgs, out: &mut impl Write) -> Result<()> {
    let v = variants::snowfall::variant(a.snowfall);
    let pos = crate::position(v, Some(&a.fen))?;
    // A side without a move may still be given one by the pending gift (the game judges a
    // move's result after its gift); any other end stands whatever the gift.
    let ending = odds::ending(&pos);
    if pos.outcome().is_some() && ending.is_none_or(|e| e.stays == Probability::from_integer(1)) {
        bail!("the game is over in this position, whatever the gift: there is no next move to give odds for");
    }
    let (Some(gifts), Some(mate), Some(mated)) = (odds::gift_odds(&pos), odds::mate_odds(&pos), odds::mated_odds(&pos))
    else {
        unreachable!("a SnowFall variant")
    };
    // Move 1 with White to move is a game's start in a real game (nothing moved, no gift
    // pending); a FEN written with "0 1" for a later position reads so too. Said, not guessed.
    let start_note = (pos.fullmoves() == 1 && pos.turn() == rules::Color::White).then_some(
        "move 1 with White to move: no move has been made in a game from this position, so no gift is pending; \
         these odds read the FEN as if Black had just moved (give the real move number for a later position)",
    );
    if let Some(note) = start_note.filter(|_| !a.json) {
        writeln!(out, "Note: {note}.\n")?;
    }
    if a.json {
        let mut report = json_report(&pos, a.snowfall, &gifts, &mate, &mated);
        report["note"] = start_note.map_or(Value::Null, Value::from);
        report["ending"] = ending.map_or(Value::Null, |e| {
            json!({
                "side": side(pos.turn()),
                "without_gift": if e.checkmate { "checkmate" } else { "stalemate" },
                "probability": fraction_text(e.stays),
                "decimal": to_f64(e.stays),
            })
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        text_report(out, &pos, a.snowfall, &gifts, &mate, &mated, a.top)?;
        if let Some(e) = ending {
            let what = if e.checkmate { "checkmated" } else { "stalemated" };
            writeln!(
                out,
                "\n{} has no move without a gift: it is {what}, and the game ends, with probability {} ({}); \
                 otherwise its gift gives it a piece to drop.",
                side(pos.turn()),
                fraction_text(e.stays),
                percent(e.stays)
            )?;
        }
    }
    Ok(())
}

/// The odds of a game in play, for `fairylab play`'s `odds` (as the play server's live odds
/// give them): the gift event after the next move (its mover is the side to move; the gift of
/// the last move is already drawn) and, for each move, the chance that the opponent then mates
/// thanks to a gift. `false` outside SnowFall (nothing written).
pub(crate) fn live_odds(out: &mut impl Write, pos: &Position) -> Result<bool> {
    let Some(n) = variants::snowfall::percent(pos.variant()) else { return Ok(false) };
    let (Some(g), Some(mated)) = (odds::next_gift_odds(pos), odds::mated_odds(pos)) else { return Ok(false) };
    let me = pos.turn();
    writeln!(
        out,
        "SnowFall {n} %: after your move a gift event comes with probability {}; if it comes:",
        percent(g.event)
    )?;
    for c in [me, !me] {
        let who = if c == me { "you receive" } else { "your opponent receives" };
        let kinds: Vec<String> =
            Kind::ALL.iter().map(|&k| format!("{} {}", k.letter(), percent(g.kinds[c.index()][k as usize]))).collect();
        writeln!(out, "  {who}: {}", kinds.join(", "))?;
    }
    let risky: Vec<String> = mated
        .iter()
        .rev()
        .filter(|(_, p)| *p > Probability::from_integer(0))
        .take(5)
        .map(|&(m, p)| format!("{} {}", to_san(pos, m), percent(p)))
        .collect();
    match (mated.first(), risky.is_empty()) {
        (_, true) => writeln!(out, "No move of yours lets the opponent mate next move, gift or not.")?,
        (Some(&(m, p)), false) => {
            writeln!(
                out,
                "Mated next move (after your move and its gift event), riskiest first: {}",
                risky.join(", ")
            )?;
            writeln!(out, "  safest: {} {}", to_san(pos, m), percent(p))?;
        }
        (None, false) => {}
    }
    Ok(true)
}

fn json_report(pos: &Position, n: u8, g: &GiftOdds, m: &MateOdds, mated: &[(Move, Probability)]) -> Value {
    let kinds = |c: Color| {
        let mut o = Map::new();
        for k in Kind::ALL {
            o.insert(k.letter().to_string(), json!(fraction_text(g.kinds[c.index()][k as usize])));
        }
        Value::Object(o)
    };
    let mut joint = Map::new();
    for (x, p) in &g.joint {
        joint.insert(x.key(), json!(fraction_text(*p)));
    }
    let mv = |m: Move| json!({"uci": to_uci(pos, m), "san": to_san(pos, m)});
    let after_gift = |gifts: rules::gift::Gifts, m: Move| {
        let mut c = pos.clone();
        c.receive_gifts(gifts);
        json!({"uci": to_uci(&c, m), "san": to_san(&c, m)})
    };
    let outcomes: Vec<Value> = m
        .outcomes
        .iter()
        .map(|o| {
            json!({
                "gifts": o.gifts.key(),
                "probability": fraction_text(o.probability),
                "mate": o.mate.map(|x| after_gift(o.gifts, x)),
                "stands": o.mate.map(|_| fraction_text(o.stands)),
            })
        })
        .collect();
    let moves: Vec<Value> = mated
        .iter()
        .map(|&(x, p)| json!({"move": mv(x), "probability": fraction_text(p), "decimal": to_f64(p)}))
        .collect();
    json!({
        "fen": pos.fen(),
        "snowfall": n,
        "mover": side(!pos.turn()),
        "to_move": side(pos.turn()),
        "event_probability": fraction_text(g.event),
        "kinds": {"white": kinds(Color::White), "black": kinds(Color::Black)},
        "joint": joint,
        "mate_next": {
            "side": side(pos.turn()),
            "without_gift": m.without_gift.map(mv),
            "without_gift_stands": fraction_text(m.without_gift_stands),
            "probability": fraction_text(m.can_mate),
            "decimal": to_f64(m.can_mate),
            "thanks_to_gift": fraction_text(m.thanks_to_gift),
            "thanks_to_gift_decimal": to_f64(m.thanks_to_gift),
            "outcomes": outcomes,
        },
        "mated_next": {
            "side": side(pos.turn()),
            "best_defence": moves.first().cloned(),
            "moves": moves,
        },
    })
}

fn text_report(
    out: &mut impl Write,
    pos: &Position,
    n: u8,
    g: &GiftOdds,
    m: &MateOdds,
    mated: &[(Move, Probability)],
    top: usize,
) -> Result<()> {
    let (mover, to_move) = (!pos.turn(), pos.turn());
    writeln!(
        out,
        "SnowFall {n} %: a gift event follows {}'s last move with probability {} ({}).",
        side(mover),
        fraction_text(g.event),
        percent(g.event)
    )?;
    writeln!(out, "\nGiven an event, the chance that a player's gift holds each piece (caps applied):")?;
    write!(out, "{:8}", "")?;
    for k in Kind::ALL {
        write!(out, "{:>10}", k.letter())?;
    }
    writeln!(out)?;
    for c in [mover, to_move] {
        let role = if c == mover { "mover" } else { "to move" };
        write!(out, "{:8}", format!("{} ", side(c)))?;
        for k in Kind::ALL {
            write!(out, "{:>10}", percent(g.kinds[c.index()][k as usize]))?;
        }
        writeln!(out, "   ({role})")?;
    }
    writeln!(out, "\nJoint outcomes given an event ({}):", g.joint.len())?;
    for (x, p) in &g.joint {
        writeln!(out, "  {:<16} {:>9} {:>9}", x.key(), fraction_text(*p), percent(*p))?;
    }
    writeln!(out, "\nMate in one for {} (to move):", side(to_move))?;
    match m.without_gift {
        Some(x) if m.without_gift_stands < Probability::from_integer(1) => writeln!(
            out,
            "  without a gift: {}, which stands after its own gift event with {} ({}): the opponent's gift may block it",
            to_san(pos, x),
            fraction_text(m.without_gift_stands),
            percent(m.without_gift_stands)
        )?,
        Some(x) => writeln!(out, "  without a gift: {}", to_san(pos, x))?,
        None => writeln!(out, "  without a gift: none")?,
    }
    writeln!(out, "  mates next move: {} ({})", fraction_text(m.can_mate), percent(m.can_mate))?;
    writeln!(out, "  thanks to a gift: {} ({})", fraction_text(m.thanks_to_gift), percent(m.thanks_to_gift))?;
    for o in m.outcomes.iter().filter(|o| o.mate.is_some() && !o.gifts.is_empty()) {
        let mut c = pos.clone();
        c.receive_gifts(o.gifts);
        let x = o.mate.map(|x| to_san(&c, x)).unwrap_or_default();
        let stands = if o.stands < Probability::from_integer(1) {
            format!(" (stands with {})", fraction_text(o.stands))
        } else {
            String::new()
        };
        writeln!(out, "    {:<16} {:>11}  {x}{stands}", o.gifts.key(), fraction_text(o.probability))?;
    }
    writeln!(
        out,
        "\nMated next move: the chance that {} mates {} after each move of {} and its gift event:",
        side(mover),
        side(to_move),
        side(to_move)
    )?;
    for &(x, p) in mated.iter().take(top) {
        writeln!(out, "  {:<8} {:>11} {:>9}", to_san(pos, x), fraction_text(p), percent(p))?;
    }
    // The moves are sorted safest first: the rest are either all at the same chance, or the
    // most dangerous ones are worth showing too.
    if mated.len() > top {
        if mated[0].1 == mated[mated.len() - 1].1 {
            writeln!(out, "  ... and {} more moves, each at the same chance", mated.len() - top)?;
        } else {
            writeln!(out, "  ... ({} moves; the most dangerous:)", mated.len())?;
            for &(x, p) in &mated[mated.len() - top.min(mated.len() - top)..] {
                writeln!(out, "  {:<8} {:>11} {:>9}", to_san(pos, x), fraction_text(p), percent(p))?;
            }
        }
    }
    Ok(())
}
