//! The live SnowFall odds of a game (`GET /api/games/{id}/odds`): the next gift event's pieces,
//! and the chance that each move of the side to move lets the opponent mate it thanks to a gift.
//!
//! On the server every gift is drawn as soon as its move is played, so the event still to come
//! is the one after the next move (its mover is the side to move). Both figures come from
//! `rules::odds`, exact; the pieces of the next gift are counted with the board as it stands
//! (a capture by the next move can change a cap).

use rules::chance::{fraction_text, to_f64, Probability};
use rules::gift::Kind;
use rules::uci::to_uci;
use rules::{Color, Position};
use serde_json::{json, Map, Value};

fn prob(p: Probability) -> Value {
    json!({ "fraction": fraction_text(p), "decimal": to_f64(p) })
}

/// The odds report of `pos` (the position to move in), or `None` outside SnowFall or when the
/// side to move has no move.
pub fn report(pos: &Position) -> Option<Value> {
    if !pos.has_legal_move() {
        return None;
    }
    let gifts = rules::odds::next_gift_odds(pos)?;
    let mated = rules::odds::mated_odds(pos)?;
    let kinds = |c: Color| {
        let mut o = Map::new();
        for k in Kind::ALL {
            o.insert(k.letter().to_string(), prob(gifts.kinds[c.index()][k as usize]));
        }
        Value::Object(o)
    };
    let side = |c: Color| c.to_string();
    let mv = |(m, p): (rules::Move, Probability)| json!({ "uci": to_uci(pos, m), "san": rules::san::to_san(pos, m), "probability": prob(p) });
    let risky = mated.iter().filter(|(_, p)| *p > Probability::from_integer(0)).count();
    Some(json!({
        "fen": pos.fen(),
        "snowfall": gifts.percent,
        "to_move": side(pos.turn()),
        "next_gift": {
            "after_move_of": side(pos.turn()),
            "event_probability": prob(gifts.event),
            "kinds": { "white": kinds(Color::White), "black": kinds(Color::Black) },
            "outcomes": gifts.joint.len(),
        },
        "mated_next": {
            "side": side(pos.turn()),
            "by": side(!pos.turn()),
            "best_defence": mated.first().copied().map(mv),
            "worst": mated.last().copied().map(mv),
            "risky_moves": risky,
            "moves": mated.len(),
        },
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_reads_the_next_event_and_the_mate_danger_from_rules_odds() {
        let v = rules::variants::snowfall::variant(20);
        let pos =
            Position::from_fen(v, "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR[] b KQkq - 0 2").expect("fen");
        let r = report(&pos).expect("a SnowFall position");
        assert_eq!(r["next_gift"]["event_probability"]["fraction"], "1/5");
        // Black to move already mates (Qh4#): the opponent mating it next is beside the point
        // only if every move lets White mate; the safest move's danger is the smallest.
        let best = r["mated_next"]["best_defence"]["probability"]["decimal"].as_f64().expect("decimal");
        let worst = r["mated_next"]["worst"]["probability"]["decimal"].as_f64().expect("decimal");
        assert!(best <= worst);
        assert_eq!(r["mated_next"]["moves"], pos.legal_moves().len());
        // The next gift is the one after Black's move: the same as for the board where Black
        // has just moved (White to move), as `fairylab snowfall odds` reads a FEN.
        let moved =
            Position::from_fen(v, "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR[] w KQkq - 0 3").expect("fen");
        let expected = rules::odds::gift_odds(&moved).expect("SnowFall");
        for (c, name) in [(Color::White, "white"), (Color::Black, "black")] {
            for k in Kind::ALL {
                let want = fraction_text(expected.kinds[c.index()][k as usize]);
                assert_eq!(r["next_gift"]["kinds"][name][k.letter().to_string()]["fraction"], want.as_str());
            }
        }
        let q = r["next_gift"]["kinds"]["white"]["Q"]["decimal"].as_f64().expect("decimal");
        assert!(q > 0.0 && q < 1.0);
        // Chess is not SnowFall.
        let chess =
            Position::from_fen(rules::variants::by_name("chess").expect("chess"), "8/8/8/8/8/8/8/K6k w - - 0 1")
                .expect("fen");
        assert!(report(&chess).is_none());
    }
}
