//! Game records (`rules::record`): random SnowFall and coin-flip games survive a write and a read
//! (moves, events, final position), hand-written records in the seed's style give the expected games
//! with their gifts inferred, and every bad record in `tests/data/records/invalid.txt` is one clear error.

use rules::chance::{seeded_rng, uniform_below, Event};
use rules::game::Game;
use rules::record::{read_games, read_pgn, read_record, read_records, write_pgn, RecordError};
use rules::san::parse_san;
use rules::variants::{self, snowfall};
use rules::{Position, Variant};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/records")
}

fn read_data(file: &str) -> String {
    let path = data_dir().join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// A game of uniformly random legal moves, chance drawn from the same seeded stream.
fn random_game(variant: &'static Variant, seed: u64, max_plies: usize) -> Game {
    let mut rng = seeded_rng(seed);
    let mut game = Game::new(Position::start(variant));
    for _ in 0..max_plies {
        if game.outcome().is_some() {
            break;
        }
        let legal = game.position().legal_moves();
        let m = legal[uniform_below(&mut rng, legal.len() as u128) as usize];
        game.play_sampled(m, &mut rng).expect("a legal move");
    }
    game
}

fn assert_same_game(read: &Game, game: &Game, what: &str) {
    assert_eq!(read.start(), game.start(), "{what}: start");
    assert_eq!(read.moves(), game.moves(), "{what}: moves");
    assert_eq!(read.events(), game.events(), "{what}: events");
    assert_eq!(read.position().fen(), game.position().fen(), "{what}: final FEN");
    assert_eq!(read.position(), game.position(), "{what}: final position");
}

/// Movetext lines are at most 80 columns and filled greedily: the next line's first token would not fit.
fn assert_wrapped(pgn: &str, what: &str) {
    let movetext: Vec<&str> = pgn.lines().skip_while(|l| !l.is_empty()).skip(1).collect();
    assert!(!movetext.is_empty(), "{what}: no movetext");
    for (i, line) in movetext.iter().enumerate() {
        assert!(line.len() <= 80, "{what}: line of {} columns: {line}", line.len());
        if let Some(next) = movetext.get(i + 1) {
            // Comments hold spaces: the first token of the next line is up to its end if it opens a brace.
            let first = if next.starts_with('{') {
                &next[..next.find('}').map_or(next.len(), |e| e + 1)]
            } else {
                next.split(' ').next().unwrap_or("")
            };
            assert!(line.len() + 1 + first.len() > 80, "{what}: '{first}' would fit after: {line}");
        }
    }
}

/// Removes every `gift W:.. B:..` note, leaving the holdings alone (the seed's style).
fn strip_gift_notes(pgn: &str) -> String {
    let mut out = String::with_capacity(pgn.len());
    let mut rest = pgn;
    while let Some(i) = rest.find(" gift W:") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let end = after.find('}').expect("a gift note ends its comment");
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

#[test]
fn random_snowfall_games_round_trip() {
    let variant = snowfall::variant(24);
    let (mut gifts, mut drops, mut plies, mut finished) = (0, 0, 0, 0);
    let mut file = String::new();
    let mut games = Vec::new();
    for seed in 0..200 {
        let game = random_game(variant, seed, 120);
        let tags =
            [("Round".to_string(), seed.to_string()), ("Annotator".to_string(), "fairylab \"test\"".to_string())];
        let pgn = write_pgn(&game, &tags);
        let what = format!("seed {seed}");
        assert!(pgn.contains("[Variant \"SnowFall\"]\n[SnowFall \"24\"]\n"), "{what}: {pgn}");
        assert!(!pgn.contains("[SetUp"), "{what}: the standard start needs no FEN");
        assert_eq!(pgn.matches("{H:").count(), game.moves().len(), "{what}: one holdings comment per move");
        assert_wrapped(&pgn, &what);

        let record = read_record(&pgn).unwrap_or_else(|e| panic!("{what}: {e}\n{pgn}"));
        assert_same_game(&record.game, &game, &what);
        assert_eq!(record.tag("Round"), Some(seed.to_string().as_str()));
        assert_eq!(record.tag("Annotator"), Some("fairylab \"test\""));
        assert_eq!(record.tag("Result"), Some(game.outcome().map_or("*", |o| o.result())));

        // Without the gift notes the holdings alone give back every gift.
        let seed_style = strip_gift_notes(&pgn);
        assert!(!seed_style.contains("gift"));
        let inferred = read_pgn(&seed_style).unwrap_or_else(|e| panic!("{what}, gifts inferred: {e}\n{seed_style}"));
        assert_same_game(&inferred, &game, &format!("{what}, gifts inferred"));

        gifts += game.events().iter().filter(|e| matches!(e, Event::Gift(_))).count();
        drops += game.moves().iter().filter(|m| m.is_drop()).count();
        plies += game.moves().len();
        finished += usize::from(game.outcome().is_some());
        file.push_str(&pgn);
        file.push('\n');
        games.push(game);
    }
    // The games exercise what the records carry.
    assert!(plies > 10_000, "{plies} plies");
    assert!(gifts > 1_000 && drops > 500, "{gifts} gifts, {drops} drops");
    assert!(finished > 0, "no game ended");

    // All 200 in one file.
    let all = read_games(&file).expect("the whole file");
    assert_eq!(all.len(), games.len());
    for (i, (read, game)) in all.iter().zip(&games).enumerate() {
        assert_same_game(read, game, &format!("game {i} of the file"));
    }
}

#[test]
fn coinflip_games_round_trip_with_failed_moves() {
    let variant = variants::by_name("coinflip").expect("coinflip");
    let mut failures = 0;
    for seed in 0..40 {
        let game = random_game(variant, 1000 + seed, 80);
        let pgn = write_pgn(&game, &[]);
        assert!(pgn.contains("[Variant \"coinflip\"]"));
        let failed = game.events().iter().filter(|e| **e == Event::Failure).count();
        assert_eq!(pgn.matches("{failed}").count(), failed, "seed {seed}: {pgn}");
        assert!(!pgn.contains("{H:"), "no hands in coinflip");
        failures += failed;
        let read = read_pgn(&pgn).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{pgn}"));
        assert_same_game(&read, &game, &format!("coinflip seed {seed}"));
    }
    assert!(failures > 100, "{failures} failed moves");
}

#[test]
fn the_written_form_is_exact() {
    let v = snowfall::variant(20);
    let mut game = Game::new(Position::start(v));
    let gift = |text: &str| {
        let (w, b) = text.split_once(' ').expect("two parts");
        Event::Gift(rules::gift::Gifts { white: w.parse().expect("gift"), black: b.parse().expect("gift") })
    };
    for (san, event) in [
        ("e4", Event::Success),
        ("e5", Event::Success),
        ("Nf3", gift("P P")),
        ("Nc6", Event::Success),
        ("Bc4", Event::Success),
        ("Nf6", gift("N B")),
        ("N@g5", gift("- -")),
    ] {
        let m = parse_san(game.position(), san).unwrap_or_else(|e| panic!("{san}: {e}"));
        game.play_event(m, event).expect("legal");
    }
    let pgn = write_pgn(&game, &[("Event".into(), "Test".into()), ("Date".into(), "2024.01.02".into())]);
    let expected = "[Event \"Test\"]\n[Site \"?\"]\n[Date \"2024.01.02\"]\n[Round \"?\"]\n[White \"?\"]\n\
[Black \"?\"]\n[Result \"*\"]\n[Variant \"SnowFall\"]\n[SnowFall \"20\"]\n\n\
1. e4 {H:} 1... e5 {H:} 2. Nf3 {H:Pp gift W:P B:P} 2... Nc6 {H:Pp} 3. Bc4 {H:Pp}\n\
3... Nf6 {H:NPbp gift W:N B:B} 4. N@g5 {H:Pbp gift W:- B:-} *\n";
    assert_eq!(pgn, expected);
    assert_same_game(&read_pgn(&pgn).expect("reads"), &game, "exact form");

    // Chess: no Variant tag, no comments, Black's moves without numbers; a set-up start gets SetUp/FEN.
    let chess = variants::by_name("chess").expect("chess");
    let fen = "4k3/8/8/8/8/8/4P3/4K3 b - - 3 40";
    let mut game = Game::new(Position::from_fen(chess, fen).expect("FEN"));
    for san in ["Kd7", "e4", "Ke6", "e5", "Kxe5"] {
        let m = parse_san(game.position(), san).expect("legal");
        game.play(m).expect("legal");
    }
    let pgn = write_pgn(&game, &[("Result".into(), "not a result".into()), ("Bad Name".into(), "x".into())]);
    let expected = "[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"?\"]\n\
[Black \"?\"]\n[Result \"1/2-1/2\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 3 40\"]\n\n\
40... Kd7 41. e4 Ke6 42. e5 Kxe5 1/2-1/2\n";
    assert_eq!(pgn, expected);
    assert_same_game(&read_pgn(&pgn).expect("reads"), &game, "set-up chess");
}

#[test]
fn the_check_mark_follows_the_gift() {
    // A back-rank mate, unless the gift hands Black a piece to drop in between.
    let v = snowfall::variant(20);
    let start = Position::from_fen(v, "6k1/5ppp/8/8/8/8/5PPP/R5K1[] w - - 0 1").expect("FEN");
    for (event, movetext) in [
        (Event::Success, "1. Ra8# {H:} 1-0"),
        (
            Event::Gift(rules::gift::Gifts { white: rules::gift::Gift::NONE, black: "N".parse().expect("N") }),
            "1. Ra8+ {H:n gift W:- B:N} *",
        ),
    ] {
        let mut game = Game::new(start.clone());
        game.play_event(parse_san(&start, "Ra8").expect("legal"), event).expect("legal");
        let pgn = write_pgn(&game, &[]);
        assert!(pgn.ends_with(&format!("\n\n{movetext}\n")), "{pgn}");
        assert_same_game(&read_pgn(&pgn).expect("reads"), &game, movetext);
    }
}

/// Expected results of the hand-written records: final FEN and the gifts, as `ply W:.. B:..`.
const SEED_STYLE: [(&str, &str, &[&str]); 2] = [
    (
        "Fried liver with gifts",
        "r1bq1b1r/ppp2Qpp/2n5/1Nknp3/2Bp4/5Q2/PPPP1PPP/RNB1K2R[PNRpnbrr] w KQ - 4 11",
        &["3 W:P B:P", "6 W:N B:B", "15 W:Q B:RP", "17 W:R B:R", "20 W:N B:N"],
    ),
    (
        "The seed's second example: White at the pawn cap, Black at the bishop cap",
        "rnbqkbnr/pppp1ppp/8/4p3/1b2P3/2PP4/PP1P1PPP/RNBQKBNR[PPPPPPPBRpbr] b KQkq - 0 3",
        &["2 W:- B:P", "3 W:B B:-", "5 W:R B:R"],
    ),
];

#[test]
fn hand_written_records_in_the_seed_s_style() {
    let text = read_data("snowfall-seed-style.pgn");
    let records = read_records(&text).unwrap_or_else(|e| panic!("snowfall-seed-style.pgn: {e}"));
    assert_eq!(records.len(), SEED_STYLE.len());
    for (record, (event, fen, gifts)) in records.iter().zip(SEED_STYLE) {
        assert_eq!(record.tag("Event"), Some(event));
        let game = &record.game;
        assert_eq!(snowfall::percent(game.position().variant()), Some(20), "{event}");
        assert_eq!(game.position().fen(), fen, "{event}");
        let got: Vec<String> = game
            .events()
            .iter()
            .enumerate()
            .filter_map(|(i, e)| match e {
                Event::Gift(g) => Some(format!("{} {g}", i + 1)),
                _ => None,
            })
            .collect();
        assert_eq!(got, gifts, "{event}");
        assert!(game.moves().iter().any(|m| m.is_drop()), "{event} has drops");

        // Written back (gifts now noted), it reads as the same game.
        let again = read_pgn(&write_pgn(game, &record.tags)).expect("round trip");
        assert_same_game(&again, game, event);
    }
    // `read_pgn` takes the first game.
    assert_eq!(read_pgn(&text).expect("first game").position().fen(), SEED_STYLE[0].1);
}

#[test]
fn what_readers_tolerate() {
    let pgn = "% an escaped line\n\
[Event \"tolerance\"]\n[Variant \"SnowFall\"]\n\n\
; a line comment\n\
1.e4 $1 {H:} {free text after the holdings} 1...e5!? {H:Pp That was a gift.}\n\
(1... c5 {H:} 2. Nf3 (2. c3) d6) 2. g1f3 {H:Pp} Nc6?! {H:Pp} 3. @e3 ! {H:p} 1-0\n\
\n[Event \"second\"]\n[Variant \"Standard\"]\n\n1. e4 e5 2. O-O *\n";
    // The first game reads although the second has an illegal move; the whole file does not.
    let game = read_pgn(pgn).expect("first game");
    let pawns = rules::gift::Gifts { white: "P".parse().expect("P"), black: "P".parse().expect("P") };
    assert_eq!(game.events(), &[Event::Success, Event::Gift(pawns), Event::Success, Event::Success, Event::Success]);
    assert_eq!(game.position().fen(), "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/4PN2/PPPP1PPP/RNBQKB1R[p] b KQkq - 0 3");
    assert_eq!(snowfall::percent(game.position().variant()), Some(17), "SnowFall defaults to 17");
    match read_games(pgn) {
        Err(RecordError::IllegalMove { line: 12, text, .. }) => assert_eq!(text, "O-O"),
        other => panic!("expected the second game's illegal O-O, got {other:?}"),
    }
    // Other variants by name, case-insensitively; the percent with a '%'.
    let zh = read_pgn("[Variant \"Crazyhouse\"]\n\n1. e4 {H:} d5 {H:} 2. exd5 {H:P} *").expect("crazyhouse");
    assert_eq!(zh.position().variant().name, "crazyhouse");
    assert_eq!(zh.events(), &[Event::Success; 3]);
    let sf = read_pgn("[Variant \"snowfall\"]\n[SnowFall \"10%\"]\n\n*").expect("no moves");
    assert_eq!(snowfall::percent(sf.position().variant()), Some(10));
    assert!(sf.moves().is_empty());
    assert!(read_games("  \n\n").expect("nothing").is_empty());
}

#[test]
fn bad_records_give_one_clear_error() {
    let text = read_data("invalid.txt");
    let mut failures = Vec::new();
    let mut cases = 0;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        cases += 1;
        let at = format!("tests/data/records/invalid.txt:{}", i + 1);
        let Some((kind, record)) = line.split_once('\t') else {
            failures.push(format!("{at}: no tab"));
            continue;
        };
        let (kind, needle) = match kind.split_once('(') {
            Some((k, rest)) => (k, rest.strip_suffix(')').unwrap_or(rest)),
            None => (kind, ""),
        };
        let record = record.replace("\\n", "\n");
        match catch_unwind(AssertUnwindSafe(|| read_pgn(&record))) {
            Err(_) => failures.push(format!("{at}: panicked")),
            Ok(Ok(game)) => failures.push(format!("{at}: accepted, final FEN {}", game.position().fen())),
            Ok(Err(e)) => {
                let debug = format!("{e:?}");
                let got: String = debug.chars().take_while(char::is_ascii_alphanumeric).collect();
                let message = e.to_string();
                if got != kind || !message.contains(needle) || message.contains('\n') {
                    failures.push(format!("{at}: expected {kind}({needle}), got {got}: {message}"));
                }
            }
        }
    }
    assert!(cases >= 40, "only {cases} cases");
    assert!(failures.is_empty(), "{} of {cases} cases failed:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn damaged_records_never_panic() {
    // Every prefix, and every single-character change at a sample of places, of written records.
    let mut texts = vec![read_data("snowfall-seed-style.pgn")];
    texts.push(write_pgn(&random_game(snowfall::variant(24), 7, 60), &[]));
    texts.push(write_pgn(&random_game(variants::by_name("coinflip").expect("coinflip"), 8, 40), &[]));
    let mut read = 0;
    for text in &texts {
        let cuts: Vec<usize> = (0..=text.len()).filter(|&i| text.is_char_boundary(i)).collect();
        for &cut in &cuts {
            let prefix = &text[..cut];
            let r = catch_unwind(AssertUnwindSafe(|| read_records(prefix)));
            assert!(r.is_ok(), "panic on a prefix of {cut} bytes:\n{prefix}");
            read += 1;
        }
        for (n, &at) in cuts.iter().enumerate().step_by(7) {
            for replacement in ["{", "}", "(", ")", "[", "]", "\"", "\\", "@", "x", "9", "Q", "%", ";", "\u{e9}", ""] {
                let Some(&next) = cuts.get(n + 1) else { continue };
                let damaged = format!("{}{replacement}{}", &text[..at], &text[next..]);
                let r = catch_unwind(AssertUnwindSafe(|| read_records(&damaged)));
                assert!(r.is_ok(), "panic on:\n{damaged}");
                read += 1;
            }
        }
    }
    assert!(read > 5_000, "{read} texts");
}
