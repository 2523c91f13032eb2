//! Analysis on the server: the engine's evaluation and best line for any position of a game
//! (`POST /api/games/{id}/analyse`), and the verdict of the endgame tables `serve --tables` loads.
//!
//! The tables are installed once per process; a position they cover gets its exact verdict
//! (win, loss or draw for the side to move, and the distance in the table's metric) in the
//! game's state and in every analysis, and the engine searches with them as exact knowledge.

use egt::tablebase::Tablebase;
use egt::value::{Metric, Value as TbValue};
use engine::params::SearchParams;
use engine::{Engine, Limits, Score};
use rules::uci::to_uci;
use rules::{Move, Position};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

static TABLES: OnceLock<Arc<Tablebase>> = OnceLock::new();

/// Analyses (and reviews, and SnowFall odds of a position) that may wait for each analysis
/// worker: a request beyond them is refused (503) rather than queued without end behind one
/// client's long searches.
pub const WAITING_PER_WORKER: usize = 4;

/// The analysis workers, apart from the AI's: a search takes a free one, or waits in a queue of
/// at most [`WAITING_PER_WORKER`] requests a worker.
pub struct Workers {
    slots: Arc<tokio::sync::Semaphore>,
    waiting: Arc<AtomicUsize>,
    max_waiting: usize,
}

/// A place in the queue of [`Workers`], given up when the request gets its worker or goes away.
struct Waiting(Arc<AtomicUsize>);

impl Drop for Waiting {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Workers {
    /// `workers` analysis workers (at least one).
    pub fn new(workers: usize) -> Workers {
        let workers = workers.max(1);
        Workers {
            slots: Arc::new(tokio::sync::Semaphore::new(workers)),
            waiting: Arc::new(AtomicUsize::new(0)),
            max_waiting: workers * WAITING_PER_WORKER,
        }
    }

    /// A free worker, waited for; `None` at once when the queue is full. The worker is the
    /// request's until the permit drops.
    pub async fn acquire(&self) -> Option<tokio::sync::OwnedSemaphorePermit> {
        if let Ok(permit) = self.slots.clone().try_acquire_owned() {
            return Some(permit);
        }
        self.waiting
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| (n < self.max_waiting).then_some(n + 1))
            .ok()?;
        let _place = Waiting(self.waiting.clone());
        self.slots.clone().acquire_owned().await.ok()
    }
}

/// Installs the process's endgame tables (the first call wins).
pub fn install_tables(tables: Tablebase) {
    let _ = TABLES.set(Arc::new(tables));
}

/// The process's endgame tables, if any were loaded.
pub fn tables() -> Option<&'static Arc<Tablebase>> {
    TABLES.get()
}

/// Plies of the optimal line a verdict shows at most.
const TABLE_LINE_PLIES: usize = 60;

/// The tables' verdict on `pos`, if they cover it: `{result, side, moves, metric, text, by_move,
/// line, fullmove}` with `result` `win`, `loss` or `draw` for the side to move; `fullmove` the
/// position's move number; `by_move` every legal move
/// with the verdict it leads to for the mover (`{uci, san, result, moves, text}`, best first, as
/// lichess's tablebase explorer lists them), and `line` an optimal line (`{uci, san}`, the first
/// best move each ply, until the game ends, the position is drawn, leaves the tables, or after
/// 60 plies).
pub fn verdict(pos: &Position) -> Option<Value> {
    let bound = tables()?.bind(pos.variant())?;
    let (v, metric) = bound.probe(pos)?;
    let side = pos.turn();
    let metric = match metric {
        Metric::Dtc => "DTC",
        Metric::Dtm => "DTM",
    };
    let (result, moves) = outcome(v)?;
    let fifty = fifty_move(pos, v, metric);
    let mut text = match (result, moves) {
        ("win", Some(n)) => format!("{side} to move wins in {n} move{} ({metric})", if n == 1 { "" } else { "s" }),
        ("loss", Some(n)) => format!("{side} to move loses in {n} move{} ({metric})", if n == 1 { "" } else { "s" }),
        _ => "a draw with best play".to_string(),
    };
    match fifty {
        Some("draws") if result == "win" => text.push_str(", but the fifty-move rule draws first (a cursed win)"),
        Some("draws") => text.push_str(", but the fifty-move rule draws first (a blessed loss)"),
        Some(_) => text.push_str(", unless a capture or pawn move on the way resets the fifty-move count, too late"),
        None => {}
    }
    let root = table_moves(&bound, pos);
    let by_move: Vec<Value> = root
        .iter()
        .filter_map(|&(m, v)| {
            let (result, moves) = outcome(v)?;
            Some(json!({
                "uci": to_uci(pos, m), "san": rules::san::to_san(pos, m),
                "result": result, "moves": moves, "text": egt::probe::describe(v),
            }))
        })
        .collect();
    // The first best move each ply, the root's from the list above.
    let mut line = Vec::new();
    let mut p = pos.clone();
    let mut best = root.first().copied();
    while line.len() < TABLE_LINE_PLIES && p.outcome().is_none() {
        let Some((m, TbValue::Win(_) | TbValue::Loss(_))) = best else { break };
        line.push(json!({ "uci": to_uci(&p, m), "san": rules::san::to_san(&p, m) }));
        p.play_unchecked(m);
        best = table_moves(&bound, &p).first().copied();
    }
    Some(json!({
        "result": result, "side": side.to_string(), "moves": moves, "metric": metric, "text": text,
        "by_move": by_move, "line": line, "fullmove": pos.fullmoves(), "fifty_move": fifty,
    }))
}

/// Whether the fifty-move rule, which the tables ignore, spoils a table win or loss from
/// `pos`'s clock: `draws` if the conversion (DTC) comes after the hundredth half-move, or the
/// mate (DTM) does and nothing can reset the count ([`Position::nothing_resets_the_count`]),
/// `may_draw` if the mate does otherwise (a capture or pawn move on the way would reset the
/// count, and the table does not say), else `None`.
fn fifty_move(pos: &Position, v: TbValue, metric: &str) -> Option<&'static str> {
    if !pos.variant().draws.fifty_move {
        return None;
    }
    let left = 100u32.saturating_sub(pos.halfmoves());
    let (needed, winner) = match v {
        TbValue::Win(n) if n > 0 => (2 * n - 1, pos.turn()),
        TbValue::Loss(n) if n > 0 => (2 * n, !pos.turn()),
        _ => return None,
    };
    let certain = metric == "DTC" || pos.nothing_resets_the_count(winner);
    (needed > left).then_some(if certain { "draws" } else { "may_draw" })
}

/// A table value as the verdict names it: `win`, `loss` or `draw`, with the distance for the
/// first two (`None` for an invalid position).
fn outcome(v: TbValue) -> Option<(&'static str, Option<u32>)> {
    match v {
        TbValue::Win(n) => Some(("win", Some(n))),
        TbValue::Loss(n) => Some(("loss", Some(n))),
        TbValue::Draw => Some(("draw", None)),
        TbValue::Invalid => None,
    }
}

/// The legal moves of `pos` with the tables' value for the mover, best first (none if `pos` is
/// not covered).
fn table_moves(bound: &egt::tablebase::Bound<'_>, pos: &Position) -> Vec<(Move, TbValue)> {
    let Some(valued) = bound.moves(pos) else { return Vec::new() };
    valued.into_iter().filter_map(|(uci, v)| Some((rules::uci::parse_uci(pos, &uci).ok()?, v))).collect()
}

/// Searches `pos` (with the hashes of the game's positions before it, for repetition) for
/// `movetime`, for its best `lines` lines: `{depth, nodes, time_ms, score, bestmove, pv, lines,
/// tablebase}`; `score` is `{cp}` or `{mate}` from the side to move's point of view, and also
/// `{white_cp}`/`{white_mate}` from White's, with `table`/`white_table` (`win` or `loss`) when
/// the value is a table's win without a distance; `lines` is `[{score, pv}]`, best first (the
/// first is `score` and `pv`).
pub fn analyse(pos: &Position, hashes: &[u64], movetime: Duration, lines: usize) -> Value {
    let mut e = Engine::with_hash(16);
    e.set_params(Some(SearchParams::for_variant(pos.variant())));
    e.set_tablebase(tables().cloned());
    e.set_multipv(lines);
    let r = e.search(pos.clone(), hashes, Limits::movetime(movetime), |_| {});
    let all: Vec<Value> =
        r.lines.iter().map(|l| json!({ "score": score(pos, l.value), "pv": line(pos, &l.pv) })).collect();
    json!({
        "depth": r.depth,
        "nodes": r.nodes,
        "time_ms": r.time.as_millis() as u64,
        "score": score(pos, r.value),
        "bestmove": r.best.filter(|m| pos.is_legal(*m)).map(|m| to_uci(pos, m)),
        "pv": line(pos, &r.pv),
        "lines": all,
        "tablebase": verdict(pos),
    })
}

/// A search value of `pos` as the analysis reports it (see [`analyse`]).
fn score(pos: &Position, value: engine::Value) -> Value {
    let sign = if pos.turn() == rules::Color::White { 1 } else { -1 };
    let mut score = match Score::from_value(value) {
        Score::Cp(cp) => json!({ "cp": cp, "white_cp": sign * cp }),
        Score::Mate(m) => json!({ "mate": m, "white_mate": sign * m }),
    };
    // A win the tables prove without a mate distance (DTC) is scored near TB_WIN, not in pawns.
    if value.abs() >= engine::score::TB_WIN - 1000 && value.abs() < engine::score::MATE_BOUND {
        let won = if value > 0 { "win" } else { "loss" };
        let white = if (value > 0) == (sign > 0) { "win" } else { "loss" };
        score["table"] = json!(won);
        score["white_table"] = json!(white);
    }
    score
}

/// A line of moves as `{uci, san}`, cut where a move is not legal (a chance variant's line
/// assumes each move succeeds).
fn line(pos: &Position, moves: &[Move]) -> Vec<Value> {
    let mut p = pos.clone();
    let mut out = Vec::new();
    for &m in moves {
        if !p.is_legal(m) {
            break;
        }
        out.push(json!({ "uci": to_uci(&p, m), "san": rules::san::to_san(&p, m) }));
        p.play_unchecked(m);
    }
    out
}

/// A game review ([`engine::review`]) as JSON: `moves` (each with its evaluations in `{cp}` or
/// `{mate}` from White's point of view, its judgement, glyph, centipawn loss, accuracy and, with
/// chance, luck), `win_percent` (White's, every position, the start first), `win_scale` (0, or
/// in dice variants the scale `s` of the values: `cp` is then `s (2 W - 1)` for White's expected
/// winning chance `W`), `sides` (`white`, `black`: the totals) and `nodes`. The play server and `fairylab review --json` write it.
pub fn review_json(r: &engine::review::Review, start: &Position) -> Value {
    let eval = |e: engine::review::Eval| match e {
        engine::review::Eval::Cp(cp) => json!({ "cp": cp }),
        engine::review::Eval::Mate(m) => json!({ "mate": m }),
    };
    let first = start.fullmoves();
    let moves: Vec<Value> = r
        .moves
        .iter()
        .map(|m| {
            json!({
                "ply": m.ply,
                "fullmove": first + (m.ply as u32 + u32::from(start.turn() == rules::Color::Black)) / 2,
                "side": m.mover.to_string(),
                "san": m.san,
                "uci": m.uci,
                "before": eval(m.before),
                "after": eval(m.after),
                "outcome": eval(m.outcome),
                "best": m.best,
                "judgement": m.judgement.map(|j| j.name()),
                "glyph": m.judgement.map(|j| j.glyph()),
                "nag": m.judgement.map(|j| j.nag()),
                "mate": m.mate.map(|s| s.text()),
                "cp_loss": m.cp_loss,
                "accuracy": (m.accuracy * 10.0).round() / 10.0,
                "luck": m.luck.map(|l| (l * 10.0).round() / 10.0),
                "ended": m.ended,
            })
        })
        .collect();
    let side = |s: &engine::review::SideReview| {
        json!({
            "moves": s.moves, "inaccuracies": s.inaccuracies, "mistakes": s.mistakes, "blunders": s.blunders,
            "acpl": s.acpl.round(), "accuracy": s.accuracy.map(|a| (a * 10.0).round() / 10.0),
            "luck": s.luck.map(|l| (l * 10.0).round() / 10.0),
        })
    };
    json!({
        "moves": moves,
        "win_percent": r.evals.iter().map(|e| (e.win_percent_at(r.win_scale) * 10.0).round() / 10.0).collect::<Vec<_>>(),
        "win_scale": r.win_scale,
        "sides": { "white": side(&r.sides[0]), "black": side(&r.sides[1]) },
        "nodes": r.nodes,
    })
}

/// A review's annotations for a record, as lichess annotates a game it analysed: each move's
/// NAG (`$6` `$2` `$4`) and a comment with the evaluation after it (`[%eval 0.25]`, `[%eval #3]`),
/// for a judged move the evaluations before and after and lichess's words (`(0.22 → 0.95)
/// Inaccuracy. exd4 was best.`), and with chance the move's luck.
pub fn review_annotations(review: &Value) -> Vec<rules::record::Annotation> {
    let eval = |e: &Value| match (e["cp"].as_i64(), e["mate"].as_i64()) {
        (Some(cp), _) => format!("{:.2}", cp as f64 / 100.0),
        (_, Some(m)) => format!("#{m}"),
        _ => "?".into(),
    };
    let words = |e: &Value| match e["mate"].as_i64() {
        Some(m) => format!("Mate in {}", m.abs()),
        None => eval(e),
    };
    review["moves"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| {
            // No evaluation after the move that ended the game (lichess writes none there).
            let mut comment =
                if m["ended"] == true { String::new() } else { format!("[%eval {}]", eval(&m["outcome"])) };
            if let Some(j) = m["judgement"].as_str() {
                let what = match m["mate"].as_str() {
                    Some(sequence) => sequence.to_string(),
                    None => {
                        let mut name = j.to_string();
                        name[..1].make_ascii_uppercase();
                        name
                    }
                };
                comment.push_str(&format!(" ({} → {}) {what}.", words(&m["before"]), words(&m["after"])));
                if let Some(best) = m["best"].as_str() {
                    comment.push_str(&format!(" {best} was best."));
                }
            }
            if let Some(luck) = m["luck"].as_f64() {
                // Rounded first, and -0 made 0: a luck of -0.4 is "+0", not "-0".
                comment.push_str(&format!(" Luck {:+.0}.", luck.round() + 0.0));
            }
            let nag = m["nag"].as_u64().and_then(|n| u8::try_from(n).ok());
            let comment = comment.trim().to_string();
            rules::record::Annotation {
                nags: nag.into_iter().collect(),
                comment: (!comment.is_empty()).then_some(comment),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mate_beyond_the_clock_draws_where_nothing_resets_the_count() {
        let v = rules::variants::by_name("chess").expect("chess");
        let at = |fen: &str| Position::from_fen(v, fen).expect("fen");
        // KBNK's 33-move mate from a clock of 36: nothing can hasten it, so a draw.
        assert_eq!(fifty_move(&at("8/8/8/8/8/8/2k5/KNB5 w - - 36 1"), TbValue::Win(33), "DTM"), Some("draws"));
        assert_eq!(fifty_move(&at("8/8/8/8/8/8/2k5/KNB5 w - - 30 1"), TbValue::Win(33), "DTM"), None);
        // The bare king's side to move, losing in 31 (62 half-moves) with 60 left.
        assert_eq!(fifty_move(&at("8/8/8/8/8/8/2K5/knb5 w - - 40 1"), TbValue::Loss(31), "DTM"), Some("draws"));
        assert_eq!(fifty_move(&at("8/8/8/8/8/8/2K5/knb5 w - - 38 1"), TbValue::Loss(31), "DTM"), None);
        // KQKR: a capture of the rook on the way would reset the count.
        assert_eq!(fifty_move(&at("8/8/2k5/r7/8/8/8/K2Q4 w - - 40 1"), TbValue::Win(35), "DTM"), Some("may_draw"));
        assert_eq!(fifty_move(&at("8/8/2k5/r7/8/8/8/K2Q4 w - - 40 1"), TbValue::Win(35), "DTC"), Some("draws"));
    }

    #[test]
    fn luck_is_written_in_whole_points_with_its_sign() {
        let review = json!({ "moves": [
            { "outcome": { "cp": 10 }, "luck": -0.4 },
            { "outcome": { "cp": 10 }, "luck": 12.5 },
            { "outcome": { "cp": 10 }, "luck": -3.6 },
        ] });
        let said: Vec<String> = review_annotations(&review).into_iter().filter_map(|a| a.comment).collect();
        assert_eq!(
            said.iter().map(|c| c.split("] ").nth(1).unwrap_or("")).collect::<Vec<_>>(),
            ["Luck +0.", "Luck +13.", "Luck -4."]
        );
    }

    #[test]
    fn the_analysis_finds_a_mate_in_one_with_its_line() {
        let v = rules::variants::by_name("chess").expect("chess");
        let pos = Position::from_fen(v, "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1").expect("fen");
        let r = analyse(&pos, &[], Duration::from_millis(200), 1);
        assert_eq!(r["bestmove"], "a1a8");
        assert_eq!(r["score"]["mate"], 1);
        assert_eq!(r["pv"][0]["san"], "Ra8#");
        // Black to move in the mirrored position: mated from White's point of view is negative.
        let pos = Position::from_fen(v, "r5k1/8/8/8/8/8/5PPP/6K1 b - - 0 1").expect("fen");
        let r = analyse(&pos, &[], Duration::from_millis(200), 1);
        assert_eq!((r["score"]["mate"].clone(), r["score"]["white_mate"].clone()), (json!(1), json!(-1)));
    }

    #[test]
    fn the_analysis_gives_the_best_lines_best_first() {
        let v = rules::variants::by_name("chess").expect("chess");
        let pos = Position::from_fen(v, "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1").expect("fen");
        let r = analyse(&pos, &[], Duration::from_millis(200), 3);
        let lines = r["lines"].as_array().expect("lines");
        assert_eq!(lines.len(), 3, "{r}");
        assert_eq!(lines[0]["score"], r["score"]);
        assert_eq!(lines[0]["pv"], r["pv"]);
        assert_eq!(lines[0]["pv"][0]["san"], "Ra8#");
        // The others are other moves, and no mate.
        let firsts: Vec<&Value> = lines.iter().map(|l| &l["pv"][0]["uci"]).collect();
        assert!(firsts[1] != firsts[0] && firsts[2] != firsts[0] && firsts[1] != firsts[2], "{r}");
        assert!(lines[1]["score"]["cp"].is_i64() && lines[2]["score"]["cp"].is_i64(), "{r}");
    }
}
