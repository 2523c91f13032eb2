//! Fuzz target: any text as Predictor chess input: one side's orders in fixed positions
//! (`Orders::parse`), a reveal line, a commitment, and a whole game record
//! (`predictor::record::read`). Nothing may panic; orders that parse write back (`to_text`) into
//! text that parses to the same orders and resolve against each of the other side's primaries;
//! a reveal that parses writes back to the same line's reading; a record that reads writes back
//! into one that reads to the same plies.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rules::predictor::commit::{Commitment, Reveal};
use rules::predictor::{record, resolve, Orders};
use rules::{Color, Position};

/// Predictor positions with castling, en passant, promotions and a king in check.
const POSITIONS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N w - - 0 1",
    "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
];

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let variant = fuzz_support::variant("predictor");
    for fen in POSITIONS {
        let pos = Position::from_fen(variant, fen).expect("a fixed position reads");
        for side in Color::ALL {
            let Ok(orders) = Orders::parse(&pos, side, text) else { continue };
            let written = orders.to_text(&pos, side);
            assert_eq!(
                Orders::parse(&pos, side, &written).ok(),
                Some(orders),
                "{written} (from {text:?}) does not round-trip in {fen}"
            );
            // Against every primary of the other side (the first few), the ply resolves.
            let view = rules::predictor::side_view(&pos, !side);
            for m in view.legal_moves().iter().take(8) {
                let Ok(other) = Orders::parse(&pos, !side, &rules::uci::to_uci(&view, *m)) else { continue };
                let (white, black) = if side == Color::White { (&orders, &other) } else { (&other, &orders) };
                if let Err(e) = resolve(&pos, white, black) {
                    panic!("valid orders {written} and {} do not resolve in {fen}: {e}", other.to_text(&pos, !side));
                }
            }
        }
    }
    if let Ok(reveal) = Reveal::parse(text) {
        assert_eq!(Reveal::parse(&reveal.to_line()).ok(), Some(reveal.clone()), "{text:?} does not round-trip");
    }
    let _ = text.parse::<Commitment>();
    if let Ok(rec) = record::read(text) {
        let again = record::read(&record::write(&rec.game, &rec.tags)).expect("a written record reads back");
        assert_eq!(again.game.plies().len(), rec.game.plies().len(), "plies differ after a round trip of {text:?}");
        assert_eq!(again.game.position().fen(), rec.game.position().fen());
    }
});
