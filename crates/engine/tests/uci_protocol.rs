//! The UCI loop driven in memory: handshake, variants, positions with drops, searches,
//! perft, repetition history, stop, and one error line per bad input with the loop going on.

mod common;

use common::{run_script, Client};
use rules::game::Game;
use rules::uci::parse_uci;
use rules::{variants, Position};

fn uci(script: &str) -> Vec<String> {
    run_script(engine::uci::run, script)
}

fn client() -> Client {
    Client::start(engine::uci::run)
}

/// The FEN the `d` command prints.
fn fen_of(lines: &[String]) -> String {
    let fens: Vec<&String> = lines.iter().filter(|l| l.starts_with("Fen: ")).collect();
    fens.last().expect("a Fen: line")[5..].to_string()
}

#[test]
fn handshake_lists_options_and_every_sequential_variant() {
    let out = uci("uci\nisready\n");
    assert_eq!(out[0], format!("id name {}", engine::NAME));
    // The version, then (built from a git checkout) the commit: two builds tell apart in a GUI.
    let suffix = engine::NAME.strip_prefix(concat!("fairylab ", env!("CARGO_PKG_VERSION"))).expect("the version");
    let commit = suffix.strip_prefix(" (").and_then(|s| s.strip_suffix(')'));
    assert!(
        suffix.is_empty() || commit.is_some_and(|c| c.len() == 7 && c.chars().all(|c| c.is_ascii_hexdigit())),
        "{suffix}"
    );
    assert!(out.contains(&"id author fairylab developers".to_string()));
    assert!(out.contains(&"option name Hash type spin default 16 min 1 max 65536".to_string()));
    assert!(out.contains(&"option name Threads type spin default 1 min 1 max 256".to_string()));
    assert!(out.contains(&"option name Clear Hash type button".to_string()));
    assert!(out.contains(&"option name Ponder type check default false".to_string()));
    assert!(out.contains(&"option name Skill Level type spin default 20 min 0 max 20".to_string()));
    let combo = out.iter().find(|l| l.starts_with("option name UCI_Variant type combo default chess")).expect("combo");
    for v in variants::all() {
        // Predictor chess's simultaneous plies cannot be expressed in UCI.
        assert_eq!(
            combo.contains(&format!(" var {} ", v.name)) || combo.ends_with(&format!(" var {}", v.name)),
            !v.simultaneous,
            "{combo}"
        );
    }
    let uciok = out.iter().position(|l| l == "uciok").expect("uciok");
    assert_eq!(out[uciok + 1], "readyok");
}

#[test]
fn variant_switch_prints_fairy_stockfish_line() {
    let out = uci("setoption name UCI_Variant value gardner\nsetoption name uci_variant value crazyhouse\nd\n");
    assert_eq!(
        out[0],
        "info string variant gardner files 5 ranks 5 pocket 0 template fairy startpos rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1"
    );
    assert_eq!(
        out[1],
        "info string variant crazyhouse files 8 ranks 8 pocket 6 template crazyhouse startpos \
         rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1"
    );
    assert_eq!(fen_of(&out), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1");
}

#[test]
fn positions_with_moves_drops_and_pockets() {
    let out = uci("setoption name UCI_Variant value crazyhouse\n\
         position startpos moves e2e4 d7d5 e4d5 d8d5 b1c3 d5a5 P@e6\nd\n\
         position fen r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R[Pp] w KQkq - 2 3 moves P@d5 p@d4\nd\n");
    let fens: Vec<&String> = out.iter().filter(|l| l.starts_with("Fen: ")).collect();
    assert_eq!(fens[0], "Fen: rnb1kbnr/ppp1pppp/4P3/q7/8/2N5/PPPP1PPP/R1BQKBNR[p] b KQkq - 0 4");
    assert_eq!(fens[1], "Fen: r1bqkbnr/pppp1ppp/2n5/3Pp3/3pP3/5N2/PPPP1PPP/RNBQKB1R[] w KQkq - 0 4");
    assert!(!out.iter().any(|l| l.contains("error")), "{out:?}");
    // Gardner: a 5x5 FEN.
    let out = uci(
        "setoption name UCI_Variant value gardner\nposition fen rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1 moves a2a3\nd\n",
    );
    assert_eq!(fen_of(&out), "rnbqk/ppppp/P4/1PPPP/RNBQK b - - 0 1");
}

#[test]
fn go_depth_gives_a_legal_bestmove_with_info_lines() {
    let out = uci("position startpos moves e2e4 e7e5\ngo depth 3\n");
    let infos: Vec<&String> = out.iter().filter(|l| l.starts_with("info depth ")).collect();
    assert!(infos.len() >= 3, "{out:?}");
    for i in &infos {
        assert!(i.contains(" seldepth ") && i.contains(" score ") && i.contains(" nodes ") && i.contains(" nps "));
        assert!(i.contains(" hashfull ") && i.contains(" time ") && i.contains(" pv "), "{i}");
    }
    let best = out.last().expect("output");
    assert!(best.starts_with("bestmove "), "{out:?}");
    let mut pos = Position::start(variants::by_name("chess").unwrap());
    for m in ["e2e4", "e7e5"] {
        let mv = parse_uci(&pos, m).unwrap();
        pos.play(mv).unwrap();
    }
    let words: Vec<&str> = best.split_whitespace().collect();
    let m = parse_uci(&pos, words[1]).expect("legal bestmove");
    if words.len() == 4 {
        assert_eq!(words[2], "ponder");
        pos.play(m).unwrap();
        parse_uci(&pos, words[3]).expect("legal ponder move");
    }
}

#[test]
fn crazyhouse_search_may_drop() {
    // White to move has a pawn in hand and mates by dropping... or at least plays legally.
    let fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R[Pp] w KQkq - 2 3";
    let out = uci(&format!("setoption name UCI_Variant value crazyhouse\nposition fen {fen}\ngo depth 3\n"));
    let best = out.last().expect("output");
    let pos = Position::from_fen(variants::by_name("crazyhouse").unwrap(), fen).unwrap();
    parse_uci(&pos, best.split_whitespace().nth(1).expect("move")).expect("legal bestmove");
}

#[test]
fn perft_splits_like_stockfish() {
    let out = uci("position startpos\ngo perft 3\n");
    assert!(out.contains(&"e2e4: 600".to_string()), "{out:?}");
    assert_eq!(out.iter().filter(|l| l.contains(": ") && !l.starts_with("Nodes")).count(), 20);
    assert!(out.contains(&"Nodes searched: 8902".to_string()));
    let out = uci("setoption name UCI_Variant value crazyhouse\nposition startpos\ngo perft 2\n");
    assert!(out.contains(&"Nodes searched: 400".to_string()), "{out:?}");
}

/// A long `go perft` does not hold the loop: `isready` is answered while it counts, and `stop`
/// or `quit` end it (depth 9 from the start would count for hours).
#[test]
fn a_long_perft_answers_isready_and_stops() {
    let out = uci("position startpos\ngo perft 9\nisready\nstop\n");
    assert_eq!(out, ["readyok", "info string perft stopped before the end: no count"], "{out:?}");
    let out = uci("position startpos\ngo perft 9\nquit\n");
    assert!(!out.iter().any(|l| l.starts_with("Nodes searched")), "{out:?}");
}

#[test]
fn no_legal_move_gives_bestmove_none() {
    // Fool's mate: White is mated.
    let out = uci("position startpos moves f2f3 e7e5 g2g4 d8h4\ngo depth 3\n");
    assert_eq!(out, vec!["info depth 0 score mate 0".to_string(), "bestmove (none)".to_string()]);
}

#[test]
fn game_history_reaches_the_search() {
    // White's king can only shuttle h1-g1; Black is a queen and a rook up.
    let fen = "kq3r2/8/8/8/8/7p/7P/7K w - - 0 1";
    let score_of = |out: &[String]| -> String {
        let last = out.iter().rfind(|l| l.starts_with("info depth")).expect("info").clone();
        let words: Vec<&str> = last.split_whitespace().collect();
        let i = words.iter().position(|w| *w == "score").expect("score");
        format!("{} {}", words[i + 1], words[i + 2])
    };
    // Without history, Kg1 is just lost material.
    let alone = uci(&format!("position fen {fen}\ngo depth 3\n"));
    assert_ne!(score_of(&alone), "cp 0", "{alone:?}");
    // After Kg1 Rf7 Kh1 Rf8, Kg1 repeats a position of the game: a draw by the search's rule.
    let with_history = uci(&format!("position fen {fen} moves h1g1 f8f7 g1h1 f7f8\ngo depth 3\n"));
    assert_eq!(score_of(&with_history), "cp 0", "{with_history:?}");
    assert_eq!(with_history.last().map(String::as_str), Some("bestmove h1g1"));
}

#[test]
fn stop_ends_an_infinite_search() {
    let mut c = client();
    c.send("position startpos");
    c.send("go infinite");
    c.expect_prefix("info depth 2");
    c.send("isready");
    c.expect("readyok", |l| l == "readyok");
    c.send("stop");
    let best = c.expect_prefix("bestmove ");
    assert!(!best.contains("(none)"));
    c.send("quit");
    assert!(c.finish().is_empty());
}

/// Waits `ms` and checks that the engine has sent no `bestmove` meanwhile.
fn no_move_within(c: &mut Client, ms: u64) {
    std::thread::sleep(std::time::Duration::from_millis(ms));
    let lines = c.sync("isready", "readyok");
    assert!(!lines.iter().any(|l| l.starts_with("bestmove")), "{lines:?}");
}

#[test]
fn a_ponder_search_gives_its_move_only_at_ponderhit_or_stop() {
    let mut c = client();
    c.send("setoption name Ponder value true");
    c.send("position startpos moves e2e4 e7e5");
    // The budget (50 ms) is long past when the hit comes: no move before it, one at once after.
    c.send("go ponder movetime 50");
    c.expect_prefix("info depth 3");
    no_move_within(&mut c, 300);
    c.send("ponderhit");
    let best = c.expect_prefix("bestmove ");
    let mut pos = Position::start(variants::by_name("chess").unwrap());
    for m in ["e2e4", "e7e5"] {
        pos.play(parse_uci(&pos, m).unwrap()).unwrap();
    }
    parse_uci(&pos, best.split_whitespace().nth(1).expect("move")).expect("a legal move");

    // A ponder search that reaches its depth still waits for the hit.
    c.send("go ponder depth 2");
    c.expect_prefix("info depth 2");
    no_move_within(&mut c, 100);
    c.send("ponderhit");
    c.expect_prefix("bestmove ");

    // The reply was another move: `stop` ends the ponder search with a move the GUI drops.
    c.send("go ponder wtime 60000 btime 60000");
    c.expect_prefix("info depth 2");
    c.send("stop");
    c.expect_prefix("bestmove ");

    // A hit soon after the start leaves the search to its clock budget, which it keeps to.
    c.send("go ponder wtime 3000 btime 3000");
    c.send("ponderhit");
    c.expect_prefix("bestmove ");

    // `ponderhit` outside a ponder search does not end an infinite one.
    c.send("go infinite");
    c.expect_prefix("info depth 1");
    c.send("ponderhit");
    no_move_within(&mut c, 100);
    c.send("stop");
    c.expect_prefix("bestmove ");
    c.send("quit");
    c.finish();

    // The end of input ends a ponder search that nothing will hit.
    let out = uci("position startpos\ngo ponder movetime 100\n");
    assert!(out.last().is_some_and(|l| l.starts_with("bestmove ")), "{out:?}");
    let out = uci("setoption name Ponder value maybe\n");
    assert_eq!(out, ["info string error: bad value 'maybe' for Ponder (true or false)"]);
}

#[test]
fn skill_level_searches_shallow_among_several_lines() {
    let out = uci("setoption name Skill Level value 2\nposition startpos moves e2e4\ngo depth 12\n");
    let depths: Vec<u32> = out
        .iter()
        .filter_map(|l| l.strip_prefix("info depth "))
        .filter_map(|l| l.split_whitespace().next()?.parse().ok())
        .collect();
    assert_eq!(depths.iter().max(), Some(&3), "level 2 stops at depth 3: {out:?}");
    assert!(out.iter().any(|l| l.contains(" multipv 4 ")), "{out:?}");
    assert!(out.last().is_some_and(|l| l.starts_with("bestmove ")), "{out:?}");
    // Back to full strength: the plain search, one line.
    let out = uci("setoption name Skill Level value 2\nsetoption name Skill Level value 20\ngo depth 5\n");
    assert!(out.iter().any(|l| l.starts_with("info depth 5 ")), "{out:?}");
    assert!(!out.iter().any(|l| l.contains(" multipv 2 ")), "{out:?}");
}

#[test]
fn go_during_a_search_replaces_it() {
    let mut c = client();
    c.send("go infinite");
    c.expect_prefix("info depth 1");
    c.send("position startpos moves e2e4");
    c.send("go depth 2");
    let first = c.expect_prefix("bestmove ");
    let second = c.expect_prefix("bestmove ");
    assert!(!first.contains("(none)"));
    let mut pos = Position::start(variants::by_name("chess").unwrap());
    pos.play(parse_uci(&pos, "e2e4").unwrap()).unwrap();
    parse_uci(&pos, second.split_whitespace().nth(1).expect("move")).expect("a reply to e2e4");
    c.send("quit");
    c.finish();
}

#[test]
fn quit_stops_a_search_and_the_end_of_input_lets_it_finish() {
    let mut c = client();
    c.send("go infinite");
    c.expect_prefix("info depth 1");
    c.send("quit");
    let rest = c.finish();
    assert!(rest.iter().any(|l| l.starts_with("bestmove ")), "{rest:?}");
    // End of input: a finite search completes to its depth.
    let out = uci("go depth 4\n");
    assert!(out.iter().any(|l| l.starts_with("info depth 4 ")), "{out:?}");
    assert!(out.last().is_some_and(|l| l.starts_with("bestmove ")));
    // A search with no limit would never end by itself: the end of input stops it.
    let out = uci("go\n");
    assert!(out.last().is_some_and(|l| l.starts_with("bestmove ")), "{out:?}");
    let out = uci("position startpos moves e2e4\ngo wtime 1000\n");
    assert!(out.last().is_some_and(|l| l.starts_with("bestmove ")), "{out:?}");
}

#[test]
fn bad_input_gets_one_error_line_and_the_loop_goes_on() {
    let cases: &[(&str, &str)] = &[
        ("foo bar", "info string error: unknown command 'foo'"),
        ("setoption name UCI_Variant value nosuch", "info string error: unknown variant 'nosuch'"),
        ("setoption name Hash value lots", "info string error: bad value 'lots' for Hash"),
        ("setoption name Hash value 0", "info string error: bad value '0' for Hash"),
        ("setoption name Threads value 0", "info string error: bad value '0' for Threads (1 to 256)"),
        ("setoption name Threads value 257", "info string error: bad value '257' for Threads (1 to 256)"),
        ("setoption name Skill Level value 21", "info string error: bad value '21' for Skill Level (0 to 20)"),
        (
            "setoption name Move Overhead value 5001",
            "info string error: bad value '5001' for Move Overhead (0 to 5000 ms)",
        ),
        (
            "setoption name Move Overhead value soon",
            "info string error: bad value 'soon' for Move Overhead (0 to 5000 ms)",
        ),
        ("setoption name Contempt value 3", "info string error: unknown option 'Contempt'"),
        ("setoption value 3", "info string error: setoption needs"),
        ("position", "info string error: position needs 'startpos' or 'fen <FEN>'"),
        ("position somewhere", "info string error: position needs 'startpos' or 'fen <FEN>'"),
        ("position fen moves e2e4", "info string error: position needs 'startpos' or 'fen <FEN>'"),
    ];
    // Each case: the command, then isready: exactly one error line, then readyok.
    for (command, error) in cases {
        let out = uci(&format!("{command}\nisready\n"));
        assert_eq!(out.len(), 2, "{command}: {out:?}");
        assert!(out[0].starts_with(error), "{command}: {out:?}");
        assert_eq!(out[1], "readyok", "{command}");
    }
}

/// A GUI waits for the `bestmove` of every `go`: one that does not read gets its error line,
/// then the move of a depth-1 search; a depth below 1 is a depth-1 search, as in Stockfish.
#[test]
fn a_go_that_does_not_read_still_gets_a_bestmove() {
    let cases: &[(&str, Option<&str>)] = &[
        ("go depth deep", Some("info string error: go: bad value 'deep' for depth; searching to depth 1 instead")),
        ("go wtime", Some("info string error: go: wtime needs a value")),
        ("go sideways", Some("info string error: go: unknown parameter 'sideways'")),
        ("go depth 99999999999999999999", Some("info string error: go: bad value '99999999999999999999' for depth")),
        ("go nodes -5", Some("info string error: go: bad value '-5' for nodes")),
        ("go depth -1", None),
        ("go depth 0", None),
    ];
    for (command, error) in cases {
        let out = uci(&format!("position startpos\n{command}\nisready\n"));
        let errors: Vec<&String> = out.iter().filter(|l| l.starts_with("info string error")).collect();
        match error {
            Some(e) => assert!(errors.len() == 1 && errors[0].starts_with(e), "{command}: {out:?}"),
            None => assert!(errors.is_empty(), "{command}: {out:?}"),
        }
        let depths: Vec<&String> = out.iter().filter(|l| l.starts_with("info depth")).collect();
        assert!(depths.iter().all(|l| l.starts_with("info depth 1 ")), "{command}: depth 1 only: {out:?}");
        assert!(out.iter().any(|l| l.starts_with("bestmove ") && l != "bestmove 0000"), "{command}: {out:?}");
        assert!(out.iter().any(|l| l == "readyok"), "{command}: {out:?}");
    }
    // `go perft` is no GUI's: a bad one counts nothing and moves nothing.
    let out = uci("position startpos\ngo perft -1\nisready\n");
    assert_eq!(out, ["info string error: go: bad value '-1' for perft; nothing counted", "readyok"]);
}

/// `go mate N` searches until it has a mate in at most N moves, past the 2N−1 plies a depth
/// limit would stop at: Ra6! bxa6 b7# is found only deeper (the rook sacrifice is reduced).
#[test]
fn go_mate_searches_until_the_mate_is_found() {
    let out = uci("position fen kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1\ngo mate 2\n");
    let last_info = out.iter().rev().find(|l| l.starts_with("info depth")).expect("info lines");
    assert!(last_info.contains(" score mate 2 "), "{out:?}");
    assert_eq!(out.last().map(String::as_str), Some("bestmove a1a6 ponder b7a6"), "{out:?}");
}

/// A clock for the opponent only, or increments or moves to go alone: the engine has no time
/// left, so it answers at once (as Fairy-Stockfish) rather than searching until `stop`.
#[test]
fn a_go_without_the_engine_s_own_clock_answers_at_once() {
    for go in ["go btime 1000", "go winc 100 binc 100", "go movestogo 10", "go wtime 1000"] {
        let mut c = client();
        c.send("position startpos");
        c.send(go);
        let started = std::time::Instant::now();
        c.expect_prefix("bestmove ");
        assert!(started.elapsed() < std::time::Duration::from_secs(5), "{go}: {:?}", started.elapsed());
        c.send("quit");
        c.finish();
    }
}

/// After a refused FEN the GUI's board is not the engine's: `go` gets no move of the previous
/// position (it would be illegal on the GUI's board) until a position is set again.
#[test]
fn a_refused_position_gets_no_move() {
    let out = uci(
        "position startpos\nposition fen 8/8/8/8/8/2k5/1q6/K7 b - - 0 1\ngo depth 3\nposition startpos\ngo depth 1\n",
    );
    let best: Vec<&String> = out.iter().filter(|l| l.starts_with("bestmove")).collect();
    assert_eq!(best.len(), 2, "{out:?}");
    assert_eq!(best[0], "bestmove (none)");
    assert!(best[1] != "bestmove (none)", "{out:?}");
    assert!(out.iter().any(|l| l.starts_with("info string error: no position to search (bad FEN")), "{out:?}");
    // ucinewgame and a variant sets a position too.
    let out = uci("position fen x\nucinewgame\ngo depth 1\nposition fen x\nsetoption name UCI_Variant value gardner\ngo depth 1\n");
    assert_eq!(out.iter().filter(|l| l.starts_with("bestmove") && *l != "bestmove (none)").count(), 2, "{out:?}");
}

/// `setoption` during `go infinite` is ignored with an error: the move waits for `stop`.
#[test]
fn setoption_does_not_end_an_infinite_search() {
    let mut c = client();
    c.send("position startpos");
    c.send("go infinite");
    c.expect_prefix("info depth 2");
    c.send("setoption name Hash value 32");
    c.expect_prefix("info string error: setoption name Hash during 'go infinite'");
    no_move_within(&mut c, 200);
    c.send("stop");
    c.expect_prefix("bestmove ");
    c.send("quit");
    c.finish();
}

#[test]
fn bad_positions_keep_the_last_good_one() {
    let out = uci("position startpos moves e2e4\n\
         position fen 8/8/8 w - - 0 1\nd\n\
         position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 moves e2e4 e7e5 e1e3 g1f3\nd\n\
         position startpos moves e2e4 X@e5\nd\n\
         position fen 4k3/8/8/8/8/8/8/4K2Q b - - 0 1\nd\n\
         go depth 1\n");
    let errors: Vec<&String> = out.iter().filter(|l| l.starts_with("info string error:")).collect();
    assert_eq!(errors.len(), 3, "{out:?}");
    assert!(errors[0].contains("bad FEN '8/8/8 w - - 0 1'") && errors[0].contains("no position until the next"));
    assert!(errors[1].contains("move 3 of the list") && errors[1].contains("e1e3"), "{}", errors[1]);
    assert!(errors[1].ends_with("the position is the one before that move"));
    assert!(errors[2].contains("move 2 of the list") && errors[2].contains("X@e5"), "{}", errors[2]);
    let fens: Vec<&String> = out.iter().filter(|l| l.starts_with("Fen: ")).collect();
    assert_eq!(fens[0], "Fen: rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    assert_eq!(fens[1], "Fen: rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
    assert_eq!(fens[2], "Fen: rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    assert_eq!(fens[3], "Fen: 4k3/8/8/8/8/8/8/4K2Q b - - 0 1");
    assert!(out.last().is_some_and(|l| l.starts_with("bestmove ")));
}

#[test]
fn engine_plays_a_game_against_itself_through_the_protocol() {
    // Gardner, each move from a fresh `position ... moves` like a GUI sends it.
    let gardner = variants::by_name("gardner").unwrap();
    let mut game = Game::new(Position::start(gardner));
    let mut moves: Vec<String> = Vec::new();
    let mut c = client();
    c.send("uci");
    c.expect("uciok", |l| l == "uciok");
    c.send("setoption name UCI_Variant value gardner");
    c.expect_prefix("info string variant gardner");
    c.send("ucinewgame");
    while game.outcome().is_none() {
        assert!(moves.len() < 600, "game too long");
        c.send(&format!("position startpos moves {}", moves.join(" ")));
        c.send("go depth 2");
        let best = c.expect_prefix("bestmove ");
        let text = best.split_whitespace().nth(1).expect("move").to_string();
        let m = parse_uci(game.position(), &text).unwrap_or_else(|e| panic!("{e}"));
        game.play(m).unwrap();
        moves.push(text);
    }
    c.send("quit");
    c.finish();
}

#[test]
fn snowfall_takes_its_percentage_and_hands_from_the_fen() {
    let out = uci("uci\nsetoption name SnowFall value 23\nsetoption name UCI_Variant value snowfall\n\
         position fen b3k3/8/8/8/6n1/8/7P/5BKR[p] b - - 1 1\ngo depth 3\nsetoption name SnowFall value 300\n");
    assert!(out.iter().any(|l| l == "option name SnowFall type spin default 17 min 0 max 100"), "{out:?}");
    assert!(out.iter().any(|l| l.starts_with("info string variant snowfall")), "{out:?}");
    // The pawn in Black's hand (a gift that arrived) mates at once.
    assert!(out.iter().any(|l| l == "bestmove P@f2"), "{out:?}");
    assert!(out.iter().any(|l| l.contains("error") && l.contains("SnowFall")), "{out:?}");
}

#[test]
fn multipv_reports_that_many_distinct_lines_best_first() {
    let out = uci("uci\nsetoption name MultiPV value 3\nposition startpos moves e2e4 e7e5\ngo depth 6\n\
         setoption name MultiPV value 0\nsetoption name MultiPV value x\n");
    assert!(out.contains(&"option name MultiPV type spin default 1 min 1 max 500".to_string()));
    let last: Vec<&String> = out.iter().filter(|l| l.starts_with("info depth 6 ")).collect();
    assert_eq!(last.len(), 3, "{out:?}");
    let field = |l: &str, key: &str| -> String {
        let words: Vec<&str> = l.split_whitespace().collect();
        let at = words.iter().position(|w| *w == key).unwrap_or_else(|| panic!("{key} in {l}"));
        words[at + 1].to_string()
    };
    let mut firsts = Vec::new();
    let mut values = Vec::new();
    for (k, l) in last.iter().enumerate() {
        assert_eq!(field(l, "multipv"), (k + 1).to_string(), "{l}");
        assert_eq!(field(l, "score"), "cp", "{l}");
        values.push(field(l, "cp").parse::<i32>().unwrap());
        firsts.push(field(l, "pv"));
    }
    assert!(values.windows(2).all(|w| w[0] >= w[1]), "{values:?}");
    firsts.sort();
    firsts.dedup();
    assert_eq!(firsts.len(), 3, "{last:?}");
    let best = out.iter().find(|l| l.starts_with("bestmove ")).unwrap();
    assert_eq!(best.split_whitespace().nth(1).unwrap(), field(last[0], "pv"));
    let errors: Vec<&String> = out.iter().filter(|l| l.contains("bad value")).collect();
    assert_eq!(errors.len(), 2, "{out:?}");
}

#[test]
fn searchmoves_restricts_the_root_and_leaves_out_what_is_not_legal() {
    // Ra8 mates at once; searched without it, the engine must choose among the moves given.
    let out = uci("position fen 6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1\ngo depth 5 searchmoves g1f1 h2h3 a1a9 e2e4\n\
         go depth 5\n");
    let moves: Vec<&String> = out.iter().filter(|l| l.starts_with("bestmove ")).collect();
    let first = moves[0].split_whitespace().nth(1).unwrap();
    assert!(["g1f1", "h2h3"].contains(&first), "{out:?}");
    assert!(moves[1].starts_with("bestmove a1a8"), "{out:?}");
    let errors: Vec<&String> = out.iter().filter(|l| l.starts_with("info string error: searchmoves")).collect();
    assert_eq!(errors.len(), 2, "{out:?}");
    // Nothing legal given: every move is searched, and the engine says so.
    let out = uci("position fen 6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1\ngo depth 4 searchmoves e2e4\n");
    assert!(out.iter().any(|l| l == "info string searchmoves: no legal move given; searching all moves"), "{out:?}");
    assert!(out.iter().any(|l| l.starts_with("bestmove a1a8")), "{out:?}");
}

#[test]
fn the_move_overhead_is_kept_back_from_the_clock() {
    // Five seconds on the clock, 4.99 of them lag: the search must fit in the 10 ms left (its
    // hard limit is three fifths of it), where it would take about 160 ms without.
    let out = uci("uci\nsetoption name Move Overhead value 4990\nposition startpos\ngo wtime 5000 btime 5000\n");
    assert!(out.iter().any(|l| l == "option name Move Overhead type spin default 20 min 0 max 5000"), "{out:?}");
    assert!(out.iter().any(|l| l.starts_with("bestmove ")), "{out:?}");
    let last_time = out
        .iter()
        .rev()
        .filter_map(|l| l.split(" time ").nth(1))
        .find_map(|rest| rest.split_whitespace().next()?.parse::<u64>().ok())
        .expect("an info line with a time");
    assert!(last_time <= 100, "searched {last_time} ms of the 10 ms left");
}

#[test]
fn chess960_castles_as_the_king_taking_its_rook() {
    let out = uci("uci\n");
    assert!(out.contains(&"option name UCI_Chess960 type check default false".to_string()), "{out:?}");
    // UCI_Chess960: a Chess960 FEN (Shredder-FEN here), castling with the king staying on g1.
    let out = uci("setoption name UCI_Chess960 value true\n\
         position fen b1rb1nk1/1p3p2/p3pnpp/2ppB3/1P3P2/2PPN1P1/P3P2P/1QRBN1KR w HCc - 0 11 moves g1h1 f8d7\nd\n\
         position fen 4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1\ngo depth 3 searchmoves e1h1\n");
    assert!(out[0].starts_with("info string variant chess960 "), "{out:?}");
    assert_eq!(fen_of(&out), "b1rb2k1/1p1n1p2/p3pnpp/2ppB3/1P3P2/2PPN1P1/P3P2P/1QRBNRK1 w q - 2 12");
    assert!(out.iter().any(|l| l.starts_with("bestmove e1h1")), "{out:?}");
    assert!(!out.iter().any(|l| l.contains("error")), "{out:?}");
    // Without it, castling is the king's move and Chess960 rights are refused.
    let out = uci("position fen 4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1\ngo depth 3 searchmoves e1g1\n\
         position fen b1rb1nk1/1p3p2/p3pnpp/2ppB3/1P3P2/2PPN1P1/P3P2P/1QRBN1KR w HCc - 0 11\n");
    assert!(out.iter().any(|l| l.starts_with("bestmove e1g1")), "{out:?}");
    assert!(out.iter().any(|l| l.starts_with("info string error: bad FEN")), "{out:?}");
    // Turned off again: back to chess.
    let out = uci("setoption name UCI_Chess960 value true\nsetoption name UCI_Chess960 value false\nsetoption name UCI_Chess960 value maybe\n");
    assert!(out[1].starts_with("info string variant chess "), "{out:?}");
    assert!(out[2].starts_with("info string error: bad value 'maybe' for UCI_Chess960"), "{out:?}");
}

/// `UCI_Chess960` with `UCI_Variant crazyhouse` (in either order) is crazyhouse960, as in
/// Fairy-Stockfish: drops and Chess960 castling together; turned off, crazyhouse again.
#[test]
fn crazyhouse_with_uci_chess960_is_crazyhouse960() {
    let out = uci("setoption name UCI_Variant value crazyhouse
setoption name UCI_Chess960 value true
         position fen rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R[Nn] w KQkq - 0 1 moves b1h1 N@e6
d
         setoption name UCI_Chess960 value false
         setoption name UCI_Chess960 value true
setoption name UCI_Variant value crazyhouse
");
    assert!(out[0].starts_with("info string variant crazyhouse "), "{out:?}");
    assert!(out[1].starts_with("info string variant crazyhouse960 "), "{out:?}");
    assert_eq!(fen_of(&out), "rk5r/pppppppp/4n3/8/8/8/PPPPPPPP/R4RK1[N] w kq - 2 2");
    assert!(out.iter().any(|l| l.starts_with("info string variant crazyhouse ")) && out.len() >= 4, "{out:?}");
    assert!(out.last().is_some_and(|l| l.starts_with("info string variant crazyhouse960 ")), "{out:?}");
    assert!(!out.iter().any(|l| l.contains("error")), "{out:?}");
}

/// A GUI's FEN with a castling right or en-passant square the position cannot have (an opening
/// book's stale flags) is played with them dropped, each named in a warning, as Stockfish reads
/// it; a FEN wrong otherwise is still refused.
#[test]
fn stale_castling_rights_and_en_passant_squares_are_dropped_with_a_warning() {
    let out = uci("position fen 4k3/8/8/8/8/8/8/R3K3 w KQ - 0 1\nd\n\
         position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1\nd\n\
         position fen r3k3/8/8/8/8/8/8/4K2R b Kkq - 3 9 moves a8a1\nd\ngo depth 1\n");
    let warnings: Vec<&String> = out.iter().filter(|l| l.starts_with("info string warning: FEN ")).collect();
    assert_eq!(warnings.len(), 3, "{out:?}");
    assert!(warnings[0].contains("castling right 'K'") && warnings[0].ends_with(": ignored"), "{}", warnings[0]);
    assert!(warnings[1].contains("invalid en-passant square e6"), "{}", warnings[1]);
    assert!(warnings[2].contains("castling right 'k'"), "{}", warnings[2]);
    let fens: Vec<&String> = out.iter().filter(|l| l.starts_with("Fen: ")).collect();
    assert_eq!(fens[0], "Fen: 4k3/8/8/8/8/8/8/R3K3 w Q - 0 1");
    assert_eq!(fens[1], "Fen: rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    assert_eq!(fens[2], "Fen: 4k3/8/8/8/8/8/8/r3K2R w K - 4 10");
    assert!(!out.iter().any(|l| l.starts_with("info string error")), "{out:?}");
    assert!(out.last().is_some_and(|l| l.starts_with("bestmove ") && l != "bestmove (none)"), "{out:?}");
}

/// A search stopped in the middle of an iteration ends with a line of its true totals (the
/// nodes of `go nodes N`), and `movestogo 0` is a clock without moves to go, not one move.
#[test]
fn a_stopped_search_reports_its_totals_and_movestogo_0_is_none() {
    let out = uci("position startpos\ngo nodes 5000\n");
    let last_info = out.iter().rev().find(|l| l.starts_with("info depth")).expect("an info line");
    assert!(last_info.contains(" nodes 5000 ") && last_info.contains(" pv "), "{out:?}");
    assert!(out.last().is_some_and(|l| l.starts_with("bestmove ")));
    // A budget of a twentieth of 60 s would be a whole move's 3 s; 60 s over "0 moves" is not.
    let started = std::time::Instant::now();
    let out = uci("position startpos\ngo wtime 2000 btime 2000 movestogo 0\n");
    assert!(out.last().is_some_and(|l| l.starts_with("bestmove ")));
    assert!(started.elapsed() < std::time::Duration::from_millis(1500), "{:?}", started.elapsed());
}

/// `go perft` deeper than 64 is refused (it would never end, nor fit the stack).
#[test]
fn an_absurd_perft_depth_is_refused() {
    let out = uci("go perft 1000\nisready\n");
    assert_eq!(out, ["info string error: go: perft depth 1000 is more than 64; nothing counted", "readyok"]);
}

/// A hash table too large for the machine is refused, and the engine searches on with its
/// table.
#[test]
fn a_hash_table_that_cannot_be_had_is_refused() {
    let mut e = engine::Engine::with_hash(1);
    let refusal = e.try_set_hash(usize::MAX).expect_err("no machine has that");
    assert!(refusal.contains("cannot be had") && refusal.ends_with("it keeps 1 MiB"), "{refusal}");
    let pos = Position::start(variants::by_name("chess").expect("chess"));
    let r = e.search(pos, &[], engine::Limits { depth: Some(3), ..Default::default() }, |_| {});
    assert!(r.best.is_some());
    // A command line's engine (`analyse --hash`, `solve --hash`) is refused the same way, never
    // a panic.
    let refusal = engine::Engine::try_with_hash(usize::MAX).err().expect("no machine has that");
    assert!(refusal.contains("cannot be allocated"), "{refusal}");
    assert!(engine::Engine::try_with_hash(2).is_ok());
}

/// After `stop` ends a ponder search, options are taken at once, even while the search thread
/// is still returning after its `bestmove` (python-chess sets MultiPV right after it).
#[test]
fn options_are_taken_right_after_a_stopped_ponder_search() {
    for _ in 0..20 {
        let out =
            uci("position startpos\ngo ponder nodes 2000\nstop\nsetoption name MultiPV value 3\ngo depth 3\nstop\n");
        assert!(!out.iter().any(|l| l.starts_with("info string error")), "{out:?}");
        assert!(out.iter().any(|l| l.contains(" multipv 3 ")), "{out:?}");
    }
}

/// `VariantPath` loads fairylab variant files as Fairy-Stockfish's loads a variants.ini: the
/// variant is then a `UCI_Variant` value, plays from its start and counts its perft as
/// `tests/data/leapers.perft` (Fairy-Stockfish's figures); a later load adds (as Fairy-Stockfish's
/// does), a file of a loaded name replaces it (the same file again changes nothing), one that does not load changes nothing, and
/// `<empty>` drops the custom variants.
#[test]
fn variant_path_loads_custom_variants() {
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/variants");
    let out = uci(&format!(
        "setoption name VariantPath value {data}/leapers.toml\nsetoption name VariantPath value {data}/chiral.toml\nuci\n\
         setoption name UCI_Variant value leapers\nposition startpos moves e2e4\n\
         setoption name VariantPath value {data}/leapers.toml\nd\nposition startpos\ngo perft 3\n\
         setoption name VariantPath value {data}/missing.toml\nsetoption name UCI_Variant value chiral\n\
         position startpos\nd\nsetoption name VariantPath value <empty>\nsetoption name UCI_Variant value chiral\nd\n"
    ));
    assert!(out.contains(&"info string custom variants: leapers".to_string()), "{out:?}");
    let both = out.iter().filter(|l| *l == "info string custom variants: leapers, chiral").count();
    assert_eq!(both, 2, "the second file added, the reloaded one replaced: {out:?}");
    assert!(out.iter().any(|l| l.starts_with("info string variant leapers files 8 ranks 8")), "{out:?}");
    let combo = out.iter().find(|l| l.starts_with("option name UCI_Variant")).expect("the variants");
    assert!(combo.ends_with(" var leapers var chiral"), "{combo}");
    assert!(out.contains(&"Nodes searched: 8942".to_string()), "{out:?}");
    assert!(
        out.iter().any(|l| l.starts_with("info string error: VariantPath: ") && l.contains("missing.toml")),
        "{out:?}"
    );
    // The failed load kept chiral; `<empty>` dropped it, and the position went back to chess.
    let fens: Vec<&String> = out.iter().filter(|l| l.starts_with("Fen: ")).collect();
    assert_eq!(
        fens[0], "Fen: rdbqkbar/pppppppp/8/8/4P3/8/PPPP1PPP/RDBQKBAR b KQkq - 0 1",
        "the same file again changed nothing: {out:?}"
    );
    assert_eq!(fens[1], "Fen: rybqkbzr/pppppppp/8/8/8/8/PPPPPPPP/RYBQKBZR w KQkq - 0 1", "{out:?}");
    assert!(out.iter().any(|l| l.starts_with("info string error: unknown variant 'chiral'")), "{out:?}");
    assert_eq!(fens[2], "Fen: rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "{out:?}");
}

/// A `VariantPath` file whose variant has the name of the one in play, defined otherwise,
/// replaces it: the game starts over from the new definition's start.
#[test]
fn variant_path_replaces_a_variant_of_the_same_name() {
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/variants");
    let text = std::fs::read_to_string(format!("{data}/leapers.toml")).expect("leapers.toml");
    let dir = std::env::temp_dir().join(format!("fairylab-variant-path-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let other = dir.join("leapers-queenless.toml");
    let start = "rdbqkbar/pppppppp/8/8/8/8/PPPPPPPP/RDBQKBAR w KQkq - 0 1";
    std::fs::write(&other, text.replace(start, "rdb1kbar/pppppppp/8/8/8/8/PPPPPPPP/RDB1KBAR w KQkq - 0 1"))
        .expect("write");
    let out = uci(&format!(
        "setoption name VariantPath value {data}/leapers.toml;{data}/chiral.toml\n\
         setoption name UCI_Variant value leapers\nposition startpos moves e2e4\n\
         setoption name VariantPath value {}\nd\n",
        other.display()
    ));
    assert!(out.contains(&"info string custom variants: leapers, chiral".to_string()), "{out:?}");
    assert_eq!(fen_of(&out), "rdb1kbar/pppppppp/8/8/8/8/PPPPPPPP/RDB1KBAR w KQkq - 0 1", "{out:?}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Errors about megabytes of input stay readable: the echoed text is cut, the reason kept (a
/// GUI with a line-length limit was sent the whole input back).
#[test]
fn errors_about_huge_input_are_short() {
    let huge = "x".repeat(2_000_000);
    let out = uci(&format!(
        "position fen {huge}\n{}\nsetoption name Hash value {}\nisready\n",
        "foo".repeat(1_000_000),
        "9".repeat(100_000)
    ));
    let errors: Vec<&String> = out.iter().filter(|l| l.starts_with("info string error")).collect();
    assert_eq!(errors.len(), 3, "{:?}", out.iter().map(|l| l.len()).collect::<Vec<_>>());
    assert!(errors.iter().all(|l| l.len() <= 420), "{:?}", errors.iter().map(|l| l.len()).collect::<Vec<_>>());
    assert!(
        errors[0].contains("bad FEN 'xxx") && errors[0].ends_with("('go' answers bestmove (none))"),
        "{}",
        errors[0]
    );
    assert!(errors[1].contains("(3000000 characters)"), "{}", errors[1]);
    assert!(errors[2].ends_with("for Hash (1 to 65536 MiB)"), "{}", errors[2]);
}
