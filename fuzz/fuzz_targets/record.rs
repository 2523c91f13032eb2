//! Fuzz target: any text as a game record (`read_games`). It must never panic, and a record that
//! reads must write back (`write_pgn`) into text that reads into the same games.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rules::record::{read_games, write_pgn};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(games) = read_games(text) else { return };
    for game in games {
        let again = rules::record::read_pgn(&write_pgn(&game, &[])).expect("a written record reads back");
        assert_eq!(again.moves(), game.moves(), "moves differ after a round trip of {text:?}");
        assert_eq!(again.events(), game.events(), "chance outcomes differ after a round trip of {text:?}");
        assert_eq!(again.position().fen(), game.position().fen());
    }
});
