//! The XBoard loop driven like a GUI: handshake, engine-defined variants, whole Gardner games
//! (engine against itself, and against scripted random moves with take-backs), clocks, `?`,
//! crazyhouse holdings, and one error line per bad input with the loop going on.

mod common;

use common::{run_script, Client, XorShift};
use rules::game::Game;
use rules::outcome::Outcome;
use rules::uci::{parse_uci, to_uci};
use rules::{variants, Position};
use std::time::{Duration, Instant};

fn xboard(script: &str) -> Vec<String> {
    run_script(engine::xboard::run, script)
}

fn client() -> Client {
    Client::start(engine::xboard::run)
}

fn is_result(line: &str) -> bool {
    ["1-0 {", "0-1 {", "1/2-1/2 {"].iter().any(|p| line.starts_with(p))
}

/// The result prefix XBoard expects for an outcome.
fn result_of(o: &Outcome) -> String {
    format!("{} {{", o.result())
}

/// The feature line's variant list.
fn advertised_variants(features: &str) -> Vec<String> {
    let start = features.find("variants=\"").expect("variants feature") + 10;
    let end = start + features[start..].find('"').expect("closing quote");
    features[start..end].split(',').map(str::to_string).collect()
}

#[test]
fn handshake_advertises_features_and_variants() {
    let out = xboard("xboard\nprotover 2\nping 7\n");
    assert_eq!(out.len(), 2, "{out:?}");
    let f = &out[0];
    for feature in ["ping=1", "setboard=1", "usermove=1", "san=0", "time=1", "draw=0", "sigint=0"] {
        assert!(f.contains(feature), "{feature} in {f}");
    }
    // No sigterm=0: python-chess rejects it, and SIGTERM comes only to end the engine.
    assert!(!f.contains("sigterm"), "{f}");
    assert!(f.contains("reuse=1") && f.contains("analyze=1") && f.contains("colors=0") && f.contains("smp=1"));
    assert!(f.contains(" option=\"MultiPV -spin 1 1 500\" "), "{f}");
    assert!(f.contains(" option=\"Move Overhead -spin 20 0 5000\" "), "{f}");
    assert!(f.contains(" option=\"Skill Level -spin 20 0 20\" "), "{f}");
    assert!(f.contains(" option=\"VariantPath -string <empty>\" "), "{f}");
    assert!(f.contains("myname=\"fairylab ") && f.ends_with("done=1"), "{f}");
    let names = advertised_variants(f);
    for name in ["normal", "crazyhouse", "gardner", "5x5+0_fairy"] {
        assert!(names.contains(&name.to_string()), "{name} in {names:?}");
    }
    // Each name once (several 5x5 variants share the board-size name: it names Gardner).
    let mut unique = names.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "{names:?}");
    assert_eq!(out[1], "pong 7");
    // `cores` (sent because of smp=1) is taken without a word, and the engine still moves.
    let out = xboard("xboard\nprotover 2\ncores 2\nnew\nsd 4\ngo\n");
    assert!(!out.iter().any(|l| l.starts_with("Error")), "{out:?}");
    assert!(out.iter().any(|l| l.starts_with("move ")), "{out:?}");
}

#[test]
fn engine_defined_variants_get_setup_and_piece_lines() {
    let out = xboard("variant 5x5+0_fairy\nvariant normal\nvariant crazyhouse\nvariant gardner\n");
    let setups: Vec<&String> = out.iter().filter(|l| l.starts_with("setup ")).collect();
    // Only the variants XBoard does not know get a setup: the two Gardner names.
    assert_eq!(setups.len(), 2, "{out:?}");
    assert_eq!(
        setups[0],
        "setup (PNBRQ................Kpnbrq................k) 5x5+0_fairy rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1"
    );
    assert!(out.contains(&"piece P& fmWfcF".to_string()), "{out:?}");
    assert!(out.contains(&"piece K& K".to_string()), "{out:?}");
}

/// `option VariantPath` loads fairylab variant files, as UCI's option and Fairy-Stockfish's: a
/// new `variants` feature lists them, `variant X` describes one with `setup` and `piece` lines,
/// the engine plays it legally; later loads add; a file that does not load is told to the
/// user and changes nothing. `run_with` (`fairylab xboard --variant-path`) lists them at once.
#[test]
fn variant_path_loads_custom_variants() {
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/variants");
    let out = xboard(&format!(
        "xboard\nprotover 2\noption VariantPath={data}/leapers.toml\noption VariantPath={data}/missing.toml\n\
         option VariantPath={data}/chiral.toml\nnew\nvariant leapers\nsd 2\ngo\n"
    ));
    let lists: Vec<Vec<String>> =
        out.iter().filter(|l| l.starts_with("feature variants=")).map(|l| advertised_variants(l)).collect();
    assert_eq!(lists.len(), 2, "one list per successful load: {out:?}");
    assert_eq!(lists[0].last().map(String::as_str), Some("leapers"), "{out:?}");
    assert!(lists[1].ends_with(&["leapers".to_string(), "chiral".to_string()]), "{:?}", lists[1]);
    assert!(lists[1].contains(&"gardner".to_string()), "the built-ins stay: {:?}", lists[1]);
    assert!(out.iter().any(|l| l.starts_with("tellusererror VariantPath: ") && l.contains("missing.toml")), "{out:?}");
    assert!(
        out.contains(
            &"setup (PDBRQA...............Kpdbrqa...............k) 8x8+0_fairy rdbqkbar/pppppppp/8/8/8/8/PPPPPPPP/RDBQKBAR w KQkq - 0 1"
                .to_string()
        ),
        "{out:?}"
    );
    assert!(out.contains(&"piece D& DH".to_string()) && out.contains(&"piece A& AG".to_string()), "{out:?}");
    let m = out.iter().find(|l| l.starts_with("move ")).expect("a move");
    let leapers = rules::spec::load_variant_file(format!("{data}/leapers.toml")).expect("leapers");
    parse_uci(&Position::start(leapers), &m[5..]).expect("a legal leapers move");
    // Loaded before the first command, they are in the handshake's own list.
    let out = run_script(
        move |input, output| {
            let chiral = rules::spec::load_variant_file(format!("{data}/chiral.toml")).expect("chiral");
            engine::xboard::run_with(input, output, vec![chiral])
        },
        "xboard\nprotover 2\nvariant chiral\n",
    );
    assert!(advertised_variants(&out[0]).contains(&"chiral".to_string()), "{}", out[0]);
    assert!(out.iter().any(|l| l.starts_with("setup (") && l.contains(" rybqkbzr/")), "{out:?}");
}

#[test]
fn end_of_input_lets_the_search_finish() {
    let out = xboard("new\nvariant gardner\nsd 2\npost\ngo\n");
    let m = out.iter().find(|l| l.starts_with("move ")).expect("a move");
    let pos = Position::start(variants::by_name("gardner").unwrap());
    parse_uci(&pos, &m[5..]).expect("legal move");
    // `post` lines: depth, score, centiseconds, nodes, pv.
    let thinking: Vec<&String> = out.iter().filter(|l| l.starts_with("1 ") || l.starts_with("2 ")).collect();
    assert_eq!(thinking.len(), 2, "{out:?}");
    let fields: Vec<&str> = thinking[1].split_whitespace().collect();
    assert!(fields.len() >= 5 && fields[1..4].iter().all(|f| f.parse::<i64>().is_ok()), "{}", thinking[1]);
}

/// Plays Gardner through the protocol to the end: with `random_white`, scripted random legal
/// moves for White (`usermove`, one take-back by `remove`) against the engine as Black
/// (`playother`); otherwise the engine plays both sides (`go` every move). Checks every move
/// and the result claim against the rules; returns the number of plies.
fn play_gardner(c: &mut Client, variant_name: &str, random_white: bool, seed: u64) -> usize {
    let gardner = variants::by_name("gardner").expect("gardner");
    let start = "rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1";
    c.send("new");
    c.send(&format!("variant {variant_name}"));
    c.expect_prefix("setup (");
    c.send("force");
    c.send(&format!("setboard {start}"));
    c.send("sd 3");
    if random_white {
        c.send("playother");
    }
    let mut game = Game::new(Position::from_fen(gardner, start).expect("start FEN"));
    let mut rng = XorShift(seed);
    let mut took_back = false;
    let outcome = loop {
        assert!(game.moves().len() < 1000, "the game does not end");
        if random_white {
            if game.moves().len() == 6 && !took_back {
                took_back = true;
                c.send("remove");
                game = rebuild(&game, 2);
            }
            let pos = game.position().clone();
            let legal = pos.legal_moves();
            let m = legal[rng.below(legal.len())];
            game.play(m).expect("a legal move");
            c.send(&format!("usermove {}", to_uci(&pos, m)));
            if let Some(o) = game.outcome() {
                break o;
            }
        } else {
            c.send("go");
        }
        let line = c.expect("a move", |l| l.starts_with("move ") || is_result(l) || l.starts_with("Illegal"));
        let text = line.strip_prefix("move ").unwrap_or_else(|| panic!("expected a move, got {line}"));
        let m = parse_uci(game.position(), text).unwrap_or_else(|e| panic!("engine move: {e}"));
        game.play(m).expect("a legal move");
        if let Some(o) = game.outcome() {
            break o;
        }
    };
    // The engine claims the result itself; the GUI confirms it.
    let claim = c.expect("a result", is_result);
    assert!(claim.starts_with(&result_of(&outcome)), "{claim} for {outcome}");
    c.send(&format!("result {claim}"));
    c.send("force");
    assert!(c.sync("ping 99", "pong 99").iter().all(|l| !l.starts_with("move ")));
    game.moves().len()
}

/// The game without its last `plies` moves.
fn rebuild(game: &Game, plies: usize) -> Game {
    let mut g = Game::new(game.start().clone());
    for &m in &game.moves()[..game.moves().len() - plies] {
        g.play(m).expect("a move of the game");
    }
    g
}

#[test]
fn scripted_sessions_play_gardner_games_to_the_end() {
    let t = Instant::now();
    let mut c = client();
    c.send("xboard");
    c.send("protover 2");
    let features = c.expect_prefix("feature ");
    let names = advertised_variants(&features);
    let size_name = names.iter().find(|n| n.starts_with("5x5+")).expect("a 5x5 variant").clone();
    // Engine against itself, by its WxH name, then against random moves with a take-back.
    let plies = play_gardner(&mut c, &size_name, false, 1);
    eprintln!("engine against itself: {plies} plies");
    for seed in [3, 5] {
        let plies = play_gardner(&mut c, "gardner", true, seed);
        eprintln!("engine against random moves (seed {seed}): {plies} plies");
    }
    c.send("quit");
    c.finish();
    assert!(t.elapsed() < Duration::from_secs(60), "took {:?}", t.elapsed());
}

#[test]
fn move_now_and_clocks() {
    let mut c = client();
    c.send("new");
    c.send("level 40 5 0");
    c.send("time 30000");
    c.send("otim 30000");
    c.send("st 60");
    c.send("go");
    std::thread::sleep(Duration::from_millis(200));
    let t = Instant::now();
    c.send("?");
    let m = c.expect_prefix("move ");
    assert!(t.elapsed() < Duration::from_secs(10), "'?' took {:?}", t.elapsed());
    let pos = Position::start(variants::by_name("chess").unwrap());
    parse_uci(&pos, &m[5..]).expect("legal move");
    // A clock with little time left answers quickly.
    c.send("level 0 0:02 0");
    c.send("time 100");
    c.send("otim 100");
    let t = Instant::now();
    c.send("usermove e7e5");
    c.expect_prefix("move ");
    assert!(t.elapsed() < Duration::from_secs(2), "took {:?}", t.elapsed());
    c.send("quit");
    c.finish();
}

#[test]
fn force_playother_and_undo() {
    let mut c = client();
    c.send("new");
    c.send("sd 2");
    c.send("force");
    c.send("usermove e2e4");
    c.send("usermove e7e5");
    // In force mode nothing answers.
    assert!(c.sync("ping 1", "pong 1").is_empty());
    c.send("undo");
    c.send("usermove c7c5");
    c.send("playother");
    assert!(c.sync("ping 2", "pong 2").is_empty());
    // The engine plays Black now; White's move makes it answer.
    c.send("force");
    c.send("undo");
    c.send("undo");
    c.send("playother");
    c.send("usermove d2d4");
    let m = c.expect_prefix("move ");
    let chess = variants::by_name("chess").unwrap();
    let pos = Position::from_fen(chess, "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1").unwrap();
    parse_uci(&pos, &m[5..]).expect("legal reply to d2d4");
    c.send("quit");
    c.finish();
}

#[test]
fn crazyhouse_holdings_and_drops() {
    let mut c = client();
    c.send("new");
    c.send("variant crazyhouse");
    c.send("force");
    c.send("setboard r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R[] w KQkq - 2 3");
    c.send("holding [Q] [n]");
    c.send("usermove Q@d5");
    c.send("usermove N@d4");
    assert!(c.sync("ping 1", "pong 1").is_empty(), "{:?}", c.transcript);
    c.send("holding [] []");
    c.send("usermove P@e3");
    assert_eq!(c.sync("ping 2", "pong 2"), vec!["Illegal move: P@e3".to_string()]);
    c.send("sd 2");
    c.send("go");
    let m = c.expect_prefix("move ");
    let zh = variants::by_name("crazyhouse").unwrap();
    let pos = Position::from_fen(zh, "r1bqkbnr/pppp1ppp/2n5/3Qp3/3nP3/5N2/PPPP1PPP/RNBQKB1R[] w KQkq - 4 4").unwrap();
    parse_uci(&pos, &m[5..]).expect("legal move");
    c.send("quit");
    c.finish();
}

#[test]
fn game_over_is_claimed_after_the_users_move() {
    // Fool's mate by the user playing Black: the engine (White) claims the result.
    let out =
        xboard("new\nforce\nusermove f2f3\nusermove e7e5\nusermove g2g4\nwhite\nplayother\nusermove d8h4\nping 1\n");
    assert_eq!(out, vec!["0-1 {Black mates}".to_string(), "pong 1".to_string()], "{out:?}");
    // Stalemate on `go`.
    let out = xboard("new\nsetboard 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1\ngo\nping 2\n");
    assert_eq!(out, vec!["1/2-1/2 {Stalemate}".to_string(), "pong 2".to_string()]);
}

#[test]
fn bad_input_gets_one_error_line_and_the_loop_goes_on() {
    let cases: &[(&str, &str)] = &[
        ("foo", "Error (unknown command): foo"),
        // Standard commands an engine that does not care about them takes silently.
        ("rating 2000 1800\nfoo", "Error (unknown command): foo"),
        ("usermove e2e5", "Illegal move: e2e5"),
        ("usermove zz", "Illegal move: zz"),
        ("setboard 8/8 w - - 0 1", "tellusererror Illegal position: invalid board field"),
        (
            "setboard 4k3/8/8/8/8/8/8/4R1K1 w - - 0 1",
            "tellusererror Illegal position: the side not to move is in check",
        ),
        ("variant shogi", "Error (unknown variant): shogi"),
        ("level 40 five 0", "Error (bad argument): level 40 five 0"),
        ("level 40", "Error (bad argument): level 40"),
        ("st -3", "Error (bad argument): st -3"),
        ("sd deep", "Error (bad argument): sd deep"),
        ("time x", "Error (bad argument): time x"),
        ("memory none", "Error (bad argument): memory none"),
        ("cores 0", "Error (bad argument): cores 0"),
        ("holding [P] []", "Error (bad holdings): [P] []: pieces in hand, but this variant has no drops"),
        ("holding P", "Error (bad holdings): P"),
        ("edit", "Error (not supported): edit"),
        ("option MultiPV=0", "Error (bad argument): option MultiPV=0 (MultiPV is 1 to 500)"),
        ("option Contempt=5", "Error (unknown option): Contempt=5"),
        ("option Skill Level=21", "Error (bad argument): option Skill Level=21 (Skill Level is 0 to 20)"),
        ("option Move Overhead=-1", "Error (bad argument): option Move Overhead=-1 (Move Overhead is 0 to 5000 ms)"),
        (
            "option Move Overhead=5001",
            "Error (bad argument): option Move Overhead=5001 (Move Overhead is 0 to 5000 ms)",
        ),
    ];
    for (command, error) in cases {
        let out = xboard(&format!("new\nforce\n{command}\nping 3\nusermove e2e4\nping 4\n"));
        assert!(out[0].starts_with(error), "{command}: {out:?}");
        if command.starts_with("setboard") {
            // No position to play on until one is set: the GUI's board is not the engine's.
            assert_eq!(out[1..], ["pong 3", "Illegal move (no legal position set): e2e4", "pong 4"], "{command}");
        } else {
            assert_eq!(out[1..], ["pong 3".to_string(), "pong 4".to_string()], "{command}");
        }
    }
}

/// After a refused `setboard` the engine does not move from the position before it (the move
/// would be illegal on the GUI's board) until a position is set again.
#[test]
fn a_refused_setboard_gets_no_move_until_a_position_is_set() {
    let out = xboard("xboard\nprotover 2\nnew\nvariant gardner\nsd 2\nsetboard 4k/5/5/5/K3R w - - 0 1\ngo\nping 1\n");
    let after: Vec<&String> = out.iter().skip_while(|l| !l.starts_with("tellusererror")).collect();
    assert_eq!(after[0], "tellusererror Illegal position: the side not to move is in check", "{out:?}");
    assert!(after[1].starts_with("Error (illegal position: the side not to move is in check)"), "{out:?}");
    assert_eq!(after[2], "pong 1", "{out:?}");
    assert!(!out.iter().any(|l| l.starts_with("move ")), "{out:?}");
    let out = xboard("new\nsd 2\nsetboard 8/8 w - - 0 1\nsetboard 4k3/8/8/8/8/8/8/4K2R w - - 0 1\ngo\n");
    assert!(out.iter().any(|l| l.starts_with("move ")), "a good setboard restores play: {out:?}");
    let out = xboard("new\nsd 2\nsetboard 8/8 w - - 0 1\nnew\ngo\n");
    assert!(out.iter().any(|l| l.starts_with("move ")), "new restores play: {out:?}");
}

/// A thinking line's (`depth score time nodes pv`) depth and first move, if its four numbers
/// parse and its whole line is legal from `pos`.
fn thinking_about(pos: &Position, line: &str) -> Option<(u32, String)> {
    let words: Vec<&str> = line.split_whitespace().collect();
    if words.len() < 5 || words[..4].iter().any(|w| w.parse::<i64>().is_err()) {
        return None;
    }
    let mut p = pos.clone();
    for text in &words[4..] {
        let m = parse_uci(&p, text).ok().filter(|&m| p.is_legal(m))?;
        p.play_unchecked(m);
    }
    Some((words[0].parse().ok()?, words[4].to_string()))
}

#[test]
fn analyze_mode_thinks_about_each_position_and_never_moves() {
    let chess = variants::by_name("chess").unwrap();
    let start = Position::from_fen(chess, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1").unwrap();
    let after = Position::from_fen(chess, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").unwrap();
    let mut c = client();
    c.send("xboard\nprotover 2\nnew\noption MultiPV=2\nanalyze");
    // Thinking lines about the start position, two per depth, of two different moves.
    let at_depth_3 = |l: &str| thinking_about(&start, l).is_some_and(|(d, _)| d == 3);
    let first = c.expect("a line of depth 3", at_depth_3);
    let second = c.expect("the second line of depth 3", at_depth_3);
    assert_ne!(thinking_about(&start, &first), thinking_about(&start, &second), "two lines, two moves");
    // A move restarts the analysis on the new position: lines of Black's moves, from depth 1.
    c.send("usermove e2e4");
    c.expect("a line about the position after e2e4", |l| thinking_about(&after, l).is_some_and(|(d, _)| d <= 2));
    c.expect("a deeper line after e2e4", |l| thinking_about(&after, l).is_some_and(|(d, _)| d == 4));
    // `exit` ends it: nothing more is printed, and no move was ever played.
    c.send("exit");
    c.sync("ping 2", "pong 2");
    let quiet = c.sync("ping 3", "pong 3");
    assert!(quiet.is_empty(), "{quiet:?}");
    assert!(!c.transcript.iter().any(|l| l.starts_with("move ")), "{:?}", c.transcript);
    c.send("quit");
    c.finish();
    // Set while the engine thinks about its own move, MultiPV does not stop it from moving.
    let out = xboard("new\nst 0.3\ngo\noption MultiPV=2\n");
    assert_eq!(out.iter().filter(|l| l.starts_with("move ")).count(), 1, "{out:?}");
}

/// The position after the UCI moves `moves` from the start of chess.
fn chess_after(moves: &[String]) -> Position {
    let mut pos = Position::start(variants::by_name("chess").expect("chess"));
    for text in moves {
        let m = parse_uci(&pos, text).expect("a legal move");
        pos.play(m).expect("a legal move");
    }
    pos
}

/// The move of a `move M` line.
fn move_of(line: &str) -> String {
    line.strip_prefix("move ").expect("a move line").to_string()
}

#[test]
fn hard_ponders_on_the_expected_reply_and_easy_stops_it() {
    let mut c = client();
    c.send("xboard\nprotover 2\nnew\nhard\npost\nsd 4");
    let mut moves = vec!["e2e4".to_string()];
    c.send("usermove e2e4");
    moves.push(move_of(&c.expect_prefix("move ")));
    // Pondering: thinking lines from the position shown, the expected reply first; `hint` names
    // it; no move comes, though the depth is long reached, and `?` does not make one.
    let shown = chess_after(&moves);
    let line = c.expect("a ponder line of depth 4", |l| thinking_about(&shown, l).is_some_and(|(d, _)| d == 4));
    let (_, reply) = thinking_about(&shown, &line).expect("a thinking line");
    c.send("hint");
    assert_eq!(c.expect_prefix("Hint: "), format!("Hint: {reply}"));
    c.send("?");
    std::thread::sleep(Duration::from_millis(200));
    let quiet = c.sync("ping 1", "pong 1");
    assert!(!quiet.iter().any(|l| l.starts_with("move ")), "{quiet:?}");
    // An illegal move changes nothing: the same reply is still expected.
    c.send("usermove a1a8");
    c.expect_prefix("Illegal move: a1a8");
    c.send("hint");
    assert_eq!(c.expect_prefix("Hint: "), format!("Hint: {reply}"));
    // The expected reply: the ponder search becomes the engine's own and moves.
    c.send(&format!("usermove {reply}"));
    moves.push(reply);
    let answer = move_of(&c.expect_prefix("move "));
    parse_uci(&chess_after(&moves), &answer).expect("a legal answer to the reply");
    moves.push(answer);
    // Another move: the ponder search is dropped and the engine answers the move played.
    let pos = chess_after(&moves);
    c.send("hint");
    let expected = c.expect_prefix("Hint: ")[6..].to_string();
    let other = pos.legal_moves().iter().map(|&m| to_uci(&pos, m)).find(|m| *m != expected).expect("another move");
    c.send(&format!("usermove {other}"));
    moves.push(other);
    let answer = move_of(&c.expect_prefix("move "));
    parse_uci(&chess_after(&moves), &answer).expect("a legal answer to the other move");
    moves.push(answer);
    // `easy` ends the pondering: nothing more is thought or played.
    c.send("easy");
    c.sync("ping 2", "pong 2");
    let quiet = c.sync("ping 3", "pong 3");
    assert!(quiet.is_empty(), "{quiet:?}");
    // With pondering off, the engine is quiet after its move.
    let pos = chess_after(&moves);
    let next = to_uci(&pos, pos.legal_moves()[0]);
    c.send(&format!("usermove {next}"));
    moves.push(next);
    let answer = move_of(&c.expect_prefix("move "));
    moves.push(answer);
    c.sync("ping 4", "pong 4");
    let quiet = c.sync("ping 5", "pong 5");
    assert!(quiet.is_empty(), "{quiet:?}");
    // Pondering again, then `force`: the game goes on from the moves played.
    c.send("hard");
    let pos = chess_after(&moves);
    let next = to_uci(&pos, pos.legal_moves()[0]);
    c.send(&format!("usermove {next}"));
    moves.push(next);
    moves.push(move_of(&c.expect_prefix("move ")));
    c.send("force");
    c.sync("ping 6", "pong 6");
    let quiet = c.sync("ping 7", "pong 7");
    assert!(quiet.is_empty(), "{quiet:?}");
    c.send("go");
    let answer = move_of(&c.expect_prefix("move "));
    let pos = chess_after(&moves);
    assert_eq!(pos.turn(), rules::Color::White);
    parse_uci(&pos, &answer).expect("a legal move after force and go");
    // At the end of input a ponder search is stopped, and no move is sent.
    c.send("post");
    let rest = c.finish();
    assert!(!rest.iter().any(|l| l.starts_with("move ")), "{rest:?}");
}

#[test]
fn skill_level_searches_shallow() {
    // Level 2 stops at depth 3, where the full engine goes on to the depth asked for.
    let depths = |script: &str| -> u32 {
        let out = xboard(script);
        assert!(out.iter().any(|l| l.starts_with("move ")), "{out:?}");
        out.iter().filter_map(|l| l.split_whitespace().next()?.parse::<u32>().ok()).max().expect("thinking lines")
    };
    assert_eq!(depths("xboard\nprotover 2\nnew\npost\nsd 6\ngo\n"), 6);
    assert_eq!(depths("xboard\nprotover 2\nnew\noption Skill Level=2\npost\nsd 6\ngo\n"), 3);
}

#[test]
fn new_holdings_while_pondering_restart_the_ponder_search() {
    let zh = variants::by_name("crazyhouse").expect("crazyhouse");
    let mut c = client();
    c.send("xboard\nprotover 2\nnew\nvariant crazyhouse\nhard\npost\nsd 3");
    c.send("usermove e2e4");
    let mut pos = Position::start(zh);
    pos.play(parse_uci(&pos, "e2e4").expect("e2e4")).expect("legal");
    let reply_to = move_of(&c.expect_prefix("move "));
    pos.play(parse_uci(&pos, &reply_to).expect("the engine's move")).expect("legal");
    c.expect("the ponder search's last depth", |l| l.starts_with("3 "));
    c.send("hint");
    let expected = c.expect_prefix("Hint: ")[6..].to_string();
    // A gift (holdings) while pondering: the search starts again on the new hands, and still
    // makes no move; the expected reply then brings a move legal with those hands.
    c.send("holding [Q] [N]");
    c.expect("a new ponder search, from depth 1", |l| l.starts_with("1 "));
    std::thread::sleep(Duration::from_millis(100));
    let quiet = c.sync("ping 1", "pong 1");
    assert!(!quiet.iter().any(|l| l.starts_with("move ") || l.starts_with("Error")), "{quiet:?}");
    let mut fen: Vec<String> = pos.fen().split(' ').map(str::to_string).collect();
    let board = fen[0].split('[').next().expect("board").to_string();
    fen[0] = format!("{board}[Qn]");
    let mut with_hands = Position::from_fen(zh, &fen.join(" ")).expect("the FEN with the new hands");
    with_hands.play(parse_uci(&with_hands, &expected).expect("the expected reply")).expect("legal");
    c.send(&format!("usermove {expected}"));
    let answer = move_of(&c.expect_prefix("move "));
    parse_uci(&with_hands, &answer).expect("a move legal with the new hands");
    c.send("quit");
    c.finish();
}

#[test]
fn fischerandom_reads_castling_as_o_o() {
    let out = xboard(
        "xboard\nprotover 2\nforce\nvariant fischerandom\n\
         setboard b1rb1nk1/1p3p2/p3pnpp/2ppB3/1P3P2/2PPN1P1/P3P2P/1QRBN1KR w KQq - 0 11\nusermove O-O\nusermove f8d7\n\
         usermove O-O-O\n",
    );
    let features = out.iter().find(|l| l.starts_with("feature ")).expect("features");
    assert!(features.contains("fischerandom"), "{features}");
    // White's O-O (the king stays on g1) is taken; Black's O-O-O is not legal (its bishop on d8
    // stands between the king and the c-file).
    let refused: Vec<&String> = out.iter().filter(|l| l.starts_with("Illegal") || l.starts_with("Error")).collect();
    assert_eq!(refused, ["Illegal move: O-O-O"], "{out:?}");
}

/// In `nps` mode the thinking lines' time is the nodes searched at that rate (CECP: the engine
/// times and reports by its node count), not the wall clock.
#[test]
fn nps_mode_reports_time_in_nodes() {
    let out = xboard("new\nnps 10000\nst 2\npost\ngo\n");
    let lines: Vec<Vec<u64>> = out
        .iter()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() >= 5 && f[..4].iter().all(|x| x.parse::<i64>().is_ok()))
                .then(|| vec![f[2].parse().unwrap(), f[3].parse().unwrap()])
        })
        .collect();
    assert!(!lines.is_empty(), "{out:?}");
    for l in &lines {
        assert_eq!(l[0], l[1] / 100, "centiseconds = nodes / 10000 × 100: {l:?}");
    }
    // 2 s at 10,000 nodes a second: at most 20,000 nodes, reported as at most 200 cs.
    assert!(lines.last().is_some_and(|l| l[1] <= 20_000 && l[0] <= 200), "{lines:?}");
    assert!(out.iter().any(|l| l.starts_with("move ")), "{out:?}");
}

/// Replies that echo megabytes of input stay readable (cut in the middle, the reason kept).
#[test]
fn errors_about_huge_input_are_short() {
    let out = xboard(&format!(
        "xboard\nprotover 2\nusermove {}\nmemory {}\n{}\nping 1\n",
        "e2e4".repeat(100_000),
        "1".repeat(100_000),
        "foo".repeat(100_000)
    ));
    let errors: Vec<&String> = out.iter().filter(|l| l.starts_with("Error") || l.starts_with("Illegal move")).collect();
    assert_eq!(errors.len(), 3, "{:?}", out.iter().map(|l| l.len()).collect::<Vec<_>>());
    assert!(errors.iter().all(|l| l.len() <= 420), "{:?}", errors.iter().map(|l| l.len()).collect::<Vec<_>>());
    assert!(errors[2].starts_with("Error (unknown command): foofoo"), "{}", errors[2]);
    assert_eq!(out.last().map(String::as_str), Some("pong 1"));
}
