//! Fuzz target: any text as a UCI move (`UciMove::parse`, `parse_uci`) in fixed positions of each variant.
//! A move that parses must be legal there and write back (`to_uci`) to text that parses to the same move.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rules::uci::{parse_uci, to_uci, UciMove};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let syntax = UciMove::parse(text);
    for pos in fuzz_support::notation_positions() {
        match parse_uci(pos, text) {
            Ok(m) => {
                assert!(syntax.is_ok(), "parse_uci accepted {text:?}, which UciMove::parse refuses");
                assert!(pos.legal_moves().contains(&m), "parse_uci({text:?}) gave an illegal move in {}", pos.fen());
                let uci = to_uci(pos, m);
                assert_eq!(
                    parse_uci(pos, &uci).ok(),
                    Some(m),
                    "{uci} (from {text:?}) does not round-trip in {}",
                    pos.fen()
                );
                fuzz_support::check_notation(pos, m);
            }
            Err(_) => {
                if let Ok(u) = syntax {
                    assert_eq!(u.to_move(pos), None, "parse_uci refused {text:?} but to_move finds a move");
                }
            }
        }
    }
});
