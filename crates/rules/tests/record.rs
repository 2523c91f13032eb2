//! Game records (`rules::record`): random SnowFall, coin-flip and Probabilistic games survive a write and
//! a read (moves, events, final position), hand-written records in the seed's style give the expected games
//! with their gifts inferred, hand-written Probabilistic records give the expected games, and every bad
//! record in `tests/data/records/invalid.txt` is one clear error.

use rules::chance::{seeded_rng, uniform_below, Event, KingMoves};
use rules::game::Game;
use rules::outcome::{EndReason, Outcome};
use rules::record::{read_games, read_pgn, read_record, read_records, write_pgn, RecordError};
use rules::san::parse_san;
use rules::square_map::{ring, SquareMap};
use rules::variants::probabilistic::{self, ProbOptions};
use rules::variants::{self, snowfall};
use rules::{Bitboard, Color, Geometry, MoveKind, Position, Variant};
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
            // A move number and its move are one token ("8. Nc3", "8... e5"): no line ends between them.
            let first = if next.starts_with('{') {
                &next[..next.find('}').map_or(next.len(), |e| e + 1)]
            } else {
                let mut words = next.split(' ');
                let word = words.next().unwrap_or("");
                match words.next() {
                    Some(mv) if word.ends_with('.') && word.starts_with(|c: char| c.is_ascii_digit()) => {
                        &next[..word.len() + 1 + mv.len()]
                    }
                    _ => word,
                }
            };
            assert!(!line.ends_with('.'), "{what}: a line ends with a move number: {line}");
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

/// A variant built on SnowFall (a variant file) is written by its own name with the game's
/// percentage, and read back with that file into the same game at that percentage; without the
/// file the record names a variant the reader does not know.
#[test]
fn a_custom_snowfall_variant_round_trips_at_its_percentage() {
    let file = "name = \"snowdrift\"\nparent = \"snowfall\"\nsummary = \"SnowFall by another name\"\n";
    let custom = rules::spec::load_variant_str(file).expect("a variant file");
    let variant = snowfall::with_percent(custom, 100).expect("at 100 %");
    for seed in 0..20 {
        let game = random_game(variant, seed, 60);
        let what = format!("seed {seed}");
        let orthodox = random_game(snowfall::variant(100), seed, 60);
        assert_eq!((game.moves(), game.events()), (orthodox.moves(), orthodox.events()), "{what}: as SnowFall 100 %");
        let pgn = write_pgn(&game, &[]);
        assert!(pgn.contains("[Variant \"snowdrift\"]\n[SnowFall \"100\"]\n"), "{what}: {pgn}");
        let record = rules::record::read_record_with(&pgn, &[custom]).unwrap_or_else(|e| panic!("{what}: {e}\n{pgn}"));
        assert_eq!(snowfall::percent(record.game.start().variant()), Some(100), "{what}");
        assert_same_game(&record.game, &game, &what);
        assert!(matches!(read_record(&pgn), Err(RecordError::UnknownVariant { .. })), "{what}: without the file");
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

/// A Probabilistic game from `start` with uniformly random legal moves (passes when stuck), except
/// that an en-passant capture is always tried when there is one (random play rarely meets one); every
/// roll drawn from the same seeded stream.
fn random_probabilistic_game(start: Position, seed: u64, max_plies: usize) -> Game {
    let mut rng = seeded_rng(seed);
    let mut game = Game::new(start);
    for _ in 0..max_plies {
        if game.outcome().is_some() {
            break;
        }
        let legal = game.position().legal_moves();
        let en_passant = legal.iter().copied().find(|m| m.kind() == MoveKind::EnPassant);
        let m = en_passant.unwrap_or_else(|| legal[uniform_below(&mut rng, legal.len() as u128) as usize]);
        game.play_sampled(m, &mut rng).expect("a legal move");
    }
    game
}

/// The option sets of the random Probabilistic games: the six listed variants and one with a ply limit.
fn probabilistic_options() -> Vec<ProbOptions> {
    let mut all = ProbOptions::listed();
    all.push(ProbOptions { king: KingMoves::Double, shrinking: true, ply_limit: 150 });
    all
}

#[test]
fn random_probabilistic_games_round_trip() {
    let options = probabilistic_options();
    let (mut failures, mut plies, mut finished, mut blocked) = (0, 0, 0, 0);
    let (mut failures_and_en_passant, mut failed_en_passant) = (0, 0);
    let mut file = String::new();
    let mut games = Vec::new();
    for seed in 0..50u64 {
        let o = options[seed as usize % options.len()];
        let v = probabilistic::variant(o);
        let map = probabilistic::random_map(v, &mut seeded_rng(500 + seed));
        let mut start = probabilistic::start(v, &map);
        // Every fifth game starts from a position reached by a few random plies: a set-up start.
        let set_up = seed % 5 == 4;
        if set_up {
            start = random_probabilistic_game(start, 900 + seed, 12).position().clone();
        }
        let game = random_probabilistic_game(start, seed, 400);
        let what = format!("{} seed {seed}", v.name);
        let pgn = write_pgn(&game, &[("Round".to_string(), seed.to_string())]);
        assert!(pgn.contains("[Variant \"Probabilistic\"]\n"), "{what}: {pgn}");
        assert_eq!(pgn.contains("[ProbabilisticOptions "), o != ProbOptions::default(), "{what}");
        let map_text = game.start().square_map().write(Bitboard::EMPTY, Geometry::CHESS);
        assert!(pgn.contains(&format!("[Probabilities \"{map_text}\"]\n")), "{what}: the start map");
        assert_eq!(pgn.contains("[SetUp \"1\"]"), set_up, "{what}: a FEN only for a set-up start");
        let moves = game.moves().iter().filter(|m| !m.is_pass()).count();
        let failed = game.events().iter().filter(|e| **e == Event::Failure).count();
        assert_eq!(pgn.matches("%: ok}").count() + pgn.matches("%: failed}").count(), moves, "{what}: {pgn}");
        assert_eq!(pgn.matches("%: failed}").count(), failed, "{what}");
        assert_wrapped(&pgn, &what);

        let record = read_record(&pgn).unwrap_or_else(|e| panic!("{what}: {e}\n{pgn}"));
        assert_same_game(&record.game, &game, &what);
        assert_eq!(record.game.position().square_map(), game.position().square_map(), "{what}: the map");
        assert_eq!(record.tag("Round"), Some(seed.to_string().as_str()));

        let en_passant: Vec<Event> = game
            .moves()
            .iter()
            .zip(game.events())
            .filter(|(m, _)| m.kind() == MoveKind::EnPassant)
            .map(|(_, e)| *e)
            .collect();
        failures_and_en_passant += usize::from(failed > 0 && en_passant.contains(&Event::Success));
        failed_en_passant += en_passant.iter().filter(|e| **e == Event::Failure).count();
        failures += failed;
        plies += game.moves().len();
        finished += usize::from(game.outcome().is_some());
        blocked += usize::from(!game.position().blocked().is_empty());
        file.push_str(&pgn);
        file.push('\n');
        games.push(game);
    }
    // The games exercise what the records carry.
    assert!(plies > 2_000 && failures > 500, "{plies} plies, {failures} failures");
    assert!(
        failures_and_en_passant > 0 && failed_en_passant > 0,
        "{failures_and_en_passant} games with failures and en passant, {failed_en_passant} en-passant captures failed"
    );
    assert!(finished > 10 && blocked > 0, "{finished} finished, {blocked} on a shrunk board");
    assert!(games.iter().any(|g| g.start().variant().name == "probabilistic-king-double-shrinking"));

    // All 50 in one file.
    let all = read_games(&file).expect("the whole file");
    assert_eq!(all.len(), games.len());
    for (i, (read, game)) in all.iter().zip(&games).enumerate() {
        assert_same_game(read, game, &format!("game {i} of the file"));
    }
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
        ("N@g5", gift("P P")),
    ] {
        let m = parse_san(game.position(), san).unwrap_or_else(|e| panic!("{san}: {e}"));
        game.play_event(m, event).expect("legal");
    }
    let pgn = write_pgn(&game, &[("Event".into(), "Test".into()), ("Date".into(), "2024.01.02".into())]);
    let expected = "[Event \"Test\"]\n[Site \"?\"]\n[Date \"2024.01.02\"]\n[Round \"?\"]\n[White \"?\"]\n\
[Black \"?\"]\n[Result \"*\"]\n[Variant \"SnowFall\"]\n[SnowFall \"20\"]\n\n\
1. e4 {H:} 1... e5 {H:} 2. Nf3 {H:Pp gift W:P B:P} 2... Nc6 {H:Pp} 3. Bc4 {H:Pp}\n\
3... Nf6 {H:NPbp gift W:N B:B} 4. N@g5 {H:PPbpp gift W:P B:P} *\n";
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

/// Plays `(SAN, succeeded)` pairs from `start`.
fn scripted(start: Position, moves: &[(&str, bool)]) -> Game {
    let mut game = Game::new(start);
    for &(san, ok) in moves {
        let m = parse_san(game.position(), san).unwrap_or_else(|e| panic!("{san}: {e}"));
        game.play_event(m, if ok { Event::Success } else { Event::Failure }).expect("legal");
    }
    game
}

#[test]
fn the_probabilistic_form_is_exact() {
    let sq = |name: &str| rules::Square::parse(name).expect("a square");
    // Options other than the default, a map with a few marked squares, a failed en passant, king moves
    // at double rate.
    let v = probabilistic::variant(ProbOptions { king: KingMoves::Double, shrinking: true, ply_limit: 500 });
    let mut map = SquareMap::uniform(50);
    for (name, percent) in [("e4", 37), ("d6", 81), ("h5", 0), ("e6", 45)] {
        map.set(sq(name), percent);
    }
    let moves = [
        ("e4", true),
        ("a6", true),
        ("e5", true),
        ("d5", true),
        ("exd6", false),
        ("Kd7", true),
        ("Qh5", false),
        ("Ke6", true),
    ];
    let game = scripted(probabilistic::start(v, &map), &moves);
    let pgn = write_pgn(&game, &[("Event".into(), "Test".into())]);
    let expected = format!(
        "[Event \"Test\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"?\"]\n\
[Black \"?\"]\n[Result \"*\"]\n[Variant \"Probabilistic\"]\n\
[ProbabilisticOptions \"king-double shrinking plies-500\"]\n[Probabilities \"{map}\"]\n\n\
1. e4 {{37%: ok}} 1... a6 {{50%: ok}} 2. e5 {{50%: ok}} 2... d5 {{50%: ok}} 3. exd6\n\
{{81%: failed}} 3... Kd7 {{100%: ok}} 4. Qh5 {{0%: failed}} 4... Ke6 {{90%: ok}} *\n"
    );
    assert_eq!(pgn, expected);
    // The map's ranks from the top: d6 and e6 on rank 6, h5, e4.
    let ranks: Vec<String> = map.to_string().split('/').map(String::from).collect();
    assert_eq!(ranks[2..5], ["50,50,50,81,45,50,50,50", "50,50,50,50,50,50,50,0", "50,50,50,50,37,50,50,50"]);
    assert_same_game(&read_pgn(&pgn).expect("reads"), &game, "exact form");

    // A set-up start on a shrunk board: the FEN marks the closed ring, the Probabilities tag holds only
    // the percentages; White, stuck, passes (`--`, no roll).
    let v = probabilistic::variant(ProbOptions { shrinking: true, ..ProbOptions::default() });
    let fen = format!("4k3/8/8/8/8/1p6/1P6/K7 w - - 0 1 {}", map.write(ring(Geometry::CHESS, 0), Geometry::CHESS));
    let start = Position::from_fen(v, &fen).expect("FEN");
    let game = scripted(start, &[("--", true), ("Kd7", false), ("--", true), ("Kd7", true)]);
    let pgn = write_pgn(&game, &[]);
    let tags = format!(
        "[Variant \"Probabilistic\"]\n[ProbabilisticOptions \"shrinking\"]\n[Probabilities \"{map}\"]\n\
         [SetUp \"1\"]\n[FEN \"{fen}\"]\n"
    );
    assert!(pgn.contains(&tags), "{pgn}");
    assert!(pgn.ends_with("\n\n1. -- Kd7 {50%: failed} 2. -- Kd7 {50%: ok} *\n"), "{pgn}");
    assert_same_game(&read_pgn(&pgn).expect("reads"), &game, "passes");
    // A roll on a pass is read if it says what a pass does: 100 %, ok.
    let rolled = pgn.replace("1. -- Kd7", "1. -- {100%: ok} Kd7");
    assert_same_game(&read_pgn(&rolled).expect("reads"), &game, "a pass with its roll");
}

#[test]
fn the_check_mark_follows_the_gift() {
    // A back-rank mate, unless the gift hands Black a piece to drop in between.
    let v = snowfall::variant(20);
    let start = Position::from_fen(v, "6k1/5ppp/8/8/8/8/5PPP/R5K1[] w - - 0 1").expect("FEN");
    for (event, movetext) in [
        (Event::Success, "1. Ra8# {H:} 1-0"),
        (
            Event::Gift(rules::gift::Gifts { white: "N".parse().expect("N"), black: "N".parse().expect("N") }),
            "1. Ra8+ {H:Nn gift W:N B:N} *",
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

/// What a game of `probabilistic.pgn` should read as.
struct Expected {
    /// The `Event` tag.
    event: &'static str,
    /// The variant's name.
    variant: &'static str,
    /// The final FEN without its map.
    fen: &'static str,
    /// The plies (1-based) whose moves failed.
    failed: &'static [usize],
    /// The game's outcome.
    outcome: Option<Outcome>,
}

const PROBABILISTIC: [Expected; 3] = [
    Expected {
        event: "Failures, en passant, king capture",
        variant: "probabilistic",
        fen: "rnb1kbnr/pppp2pp/4p3/8/3P4/8/PPP3PP/RNBQqBNR w kq - 0 7",
        failed: &[4, 9, 11],
        outcome: Some(Outcome::Decisive { winner: Color::Black, reason: EndReason::KingCaptured }),
    },
    Expected {
        event: "King moves always succeed",
        variant: "probabilistic-king-always-shrinking",
        fen: "r1bq1b1r/pppp1kpp/2n5/4p3/4n3/5N2/PPPP1PPP/RNBQ1RK1 w - - 0 8",
        failed: &[3, 6, 11],
        outcome: None,
    },
    Expected {
        event: "Passes on a shrunk board",
        variant: "probabilistic-shrinking",
        fen: "8/8/8/8/8/1p6/1K6/8 b - - 0 8",
        failed: &[2, 13],
        outcome: Some(Outcome::Decisive { winner: Color::White, reason: EndReason::KingCaptured }),
    },
];

#[test]
fn hand_written_probabilistic_records() {
    let text = read_data("probabilistic.pgn");
    let records = read_records(&text).unwrap_or_else(|e| panic!("probabilistic.pgn: {e}"));
    assert_eq!(records.len(), PROBABILISTIC.len());
    let map = records[0].tag("Probabilities").expect("the map tag");
    for (record, Expected { event, variant, fen, failed, outcome }) in records.iter().zip(PROBABILISTIC) {
        assert_eq!(record.tag("Event"), Some(event));
        let game = &record.game;
        assert_eq!(game.position().variant().name, variant, "{event}");
        let final_fen = game.position().fen();
        let (board, final_map) = final_fen.rsplit_once(' ').expect("a map field");
        assert_eq!(board, fen, "{event}");
        assert_eq!(final_map.replace('x', ""), map, "{event}: the map is the game's");
        let got: Vec<usize> =
            game.events().iter().enumerate().filter(|(_, e)| **e == Event::Failure).map(|(i, _)| i + 1).collect();
        assert_eq!(got, failed, "{event}: failed plies");
        assert_eq!(game.outcome(), outcome, "{event}");

        // Written back, it reads as the same game.
        let again = read_pgn(&write_pgn(game, &record.tags)).expect("round trip");
        assert_same_game(&again, game, event);
    }
    let first = &records[0].game;
    assert!(first.moves().iter().any(|m| m.kind() == MoveKind::EnPassant), "the first game takes en passant");
    // A listed variant's name in the Variant tag reads as the same game.
    let second = write_pgn(&records[1].game, &[]);
    let named = second.replace(
        "[Variant \"Probabilistic\"]\n[ProbabilisticOptions \"king-always shrinking\"]",
        "[Variant \"probabilistic-king-always-shrinking\"]",
    );
    assert_ne!(named, second);
    assert_same_game(&read_pgn(&named).expect("by name"), &records[1].game, "by name");
    let last = &records[2].game;
    assert_eq!(last.moves().iter().filter(|m| m.is_pass()).count(), 6, "White passes six times");
    assert_eq!(last.position().blocked(), ring(Geometry::CHESS, 0), "the closed ring from the FEN");
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
    // The result: the tag, or the movetext's terminator without one.
    let result = |pgn: &str| read_record(pgn).expect("reads").tag("Result").map(str::to_string);
    assert_eq!(result("1. e4 e5 0-1").as_deref(), Some("0-1"));
    assert_eq!(result("[Result \"1/2-1/2\"]\n\n1. e4 e5 1/2-1/2").as_deref(), Some("1/2-1/2"));
    assert_eq!(result("[Result \"1-0\"]\n\n1. e4 e5").as_deref(), Some("1-0"));
    assert_eq!(result("1. e4 e5").as_deref(), None);
    // After a mate the mate's result, or `*` (unknown); a repetition decides nothing, so a game
    // played on or won on time after one reads (bad_records_give_one_clear_error: the others).
    assert_eq!(result("1. f3 e5 2. g4 Qh4# 0-1").as_deref(), Some("0-1"));
    assert_eq!(result("1. f3 e5 2. g4 Qh4# *").as_deref(), Some("*"));
    let repeated = "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 1-0";
    assert_eq!(result(repeated).as_deref(), Some("1-0"));
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
    texts.push(read_data("probabilistic.pgn"));
    let v = probabilistic::variant(ProbOptions { king: KingMoves::Double, shrinking: true, ply_limit: 300 });
    let start = probabilistic::start(v, &probabilistic::random_map(v, &mut seeded_rng(9)));
    texts.push(write_pgn(&random_probabilistic_game(start, 9, 40), &[]));
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

/// Annotated records (a review's NAGs and comments after each move's own notes) read back into
/// the same game, for SnowFall (holdings and gifts) and Probabilistic chess (rolls), and with
/// the NAG and comment where they belong.
#[test]
fn annotated_records_read_back_into_the_same_game() {
    use rules::record::{write_pgn_annotated, Annotation};
    let probabilistic_start = Position::start(variants::by_name("probabilistic").expect("probabilistic"));
    let games = [
        random_game(snowfall::variant(60), 11, 80),
        random_game(variants::by_name("crazyhouse").expect("crazyhouse"), 12, 80),
        random_probabilistic_game(probabilistic_start, 13, 80),
    ];
    for (i, game) in games.iter().enumerate() {
        let notes: Vec<Annotation> = (0..game.moves().len())
            .map(|ply| Annotation {
                nags: [None, Some(6), Some(2), Some(4)][ply % 4].into_iter().collect(),
                comment: (ply % 3 != 0).then(|| format!("[%eval {}.25] Mistake {{sic}}. Nf3 was best.", ply % 7)),
            })
            .collect();
        let pgn = write_pgn_annotated(game, &[], &notes);
        assert!(pgn.contains(" $4") && pgn.contains("{[%eval 1.25] Mistake sic. Nf3 was best.}"), "{pgn}");
        let read = read_pgn(&pgn).unwrap_or_else(|e| panic!("game {i}: {e}\n{pgn}"));
        assert_same_game(&read, game, &format!("annotated game {i}"));
        assert_wrapped(&pgn, &format!("annotated game {i}"));
        // The annotations read back beside the game's own notes (the braces dropped).
        let back = read_record(&pgn).expect("reads").annotations;
        let expected: Vec<Annotation> = notes
            .iter()
            .map(|a| Annotation {
                nags: a.nags.clone(),
                comment: a.comment.as_ref().map(|c| c.replace(['{', '}'], "")),
            })
            .collect();
        assert_eq!(back, expected, "annotated game {i}");
        // Without annotations the record is the plain one.
        assert_eq!(write_pgn_annotated(game, &[], &[]), write_pgn(game, &[]));
    }
}

/// A Predictor record (simultaneous plies, its own format) is named as such, not misread as
/// moves played in turn.
#[test]
fn a_predictor_record_is_not_read_as_moves_in_turn() {
    let text = "[Event \"x\"]\n[Variant \"Predictor\"]\n\n1. e2e4 | e7e5 *\n";
    match read_record(text) {
        Err(e @ RecordError::Simultaneous { line: 2, .. }) => {
            assert!(e.to_string().contains("predictor referee --record"), "{e}");
        }
        other => panic!("expected a Simultaneous error, got {other:?}"),
    }
}

/// The `Variant` names other programs write are read as python-chess reads them: lichess's
/// "From Position" (standard chess from the record's FEN), "Normal", "Chess 960", "ZH".
#[test]
fn other_programs_variant_names_are_read() {
    let fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
    let from = format!("[Variant \"From Position\"]\n[SetUp \"1\"]\n[FEN \"{fen}\"]\n\n3. Bb5 a6 *\n");
    let g = read_pgn(&from).expect("From Position reads");
    assert_eq!((g.start().variant().name.as_str(), g.start().fen()), ("chess", fen.to_string()));
    assert_eq!(g.moves().len(), 2);
    for (name, variant) in [
        ("Normal", "chess"),
        ("classical", "chess"),
        ("Standard", "chess"),
        ("Chess 960", "chess960"),
        ("fischerrandom", "chess960"),
        ("FRC", "chess960"),
        ("ZH", "crazyhouse"),
        ("Crazy House", "crazyhouse"),
    ] {
        let g = read_pgn(&format!("[Variant \"{name}\"]\n\n1. e4 e5 *\n")).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(g.start().variant().name, variant, "{name}");
    }
    assert!(matches!(read_pgn("[Variant \"Atomic\"]\n\n1. e4 *\n"), Err(RecordError::UnknownVariant { .. })));
    // And written as lichess writes them: a crazyhouse record says "Crazyhouse".
    let zh = read_pgn("[Variant \"zh\"]\n\n1. e4 d5 2. exd5 *\n").expect("crazyhouse");
    let written = rules::record::write_pgn(&zh, &[]);
    assert!(written.contains("[Variant \"Crazyhouse\"]"), "{written}");
    assert_eq!(read_pgn(&written).expect("reads back").position(), zh.position());
}

/// A record's own NAGs, glyphs and comments (a clock, a coach's words) are read beside its moves,
/// commands where they stand (before SnowFall's holdings too); words that only look like notes in a variant
/// without them ("failed to see", "gift of a pawn") are free text, not a failed move or a gift;
/// a comment longer than a line is written broken between its words, commands whole.
#[test]
fn a_records_own_annotations_are_read_and_written_back() {
    use rules::record::{write_pgn_annotated, Annotation};
    let text = "[Event \"x\"]\n\n1. e4! {failed to see [%clk 0:03:00] it} e5 $2 $14 {[%clk 0:02:59]} \
                2. Nf3?! {gift of a pawn} Nc6 3. Bb5!! *\n";
    let rec = read_record(text).expect("reads");
    assert_eq!(rec.game.moves().len(), 5);
    assert!(rec.game.events().iter().all(|e| *e == Event::Success), "{:?}", rec.game.events());
    let a =
        |nags: &[u8], comment: Option<&str>| Annotation { nags: nags.to_vec(), comment: comment.map(str::to_string) };
    assert_eq!(
        rec.annotations,
        [
            a(&[1], Some("failed to see [%clk 0:03:00] it")),
            a(&[2, 14], Some("[%clk 0:02:59]")),
            a(&[6], Some("gift of a pawn")),
            a(&[], None),
            a(&[3], None),
        ]
    );
    // SnowFall: the clock before the holdings.
    let snow = "[Variant \"SnowFall\"]\n[SnowFall \"17\"]\n\n1. e4 {[%clk 0:03:00] H: good} e5 {H:} *\n";
    let rec = read_record(snow).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(rec.annotations[0].comment.as_deref(), Some("[%clk 0:03:00] good"));
    // Written back with them; a long comment is broken between words, within 80 columns.
    let mut notes = rec.annotations.clone();
    // (Commands come first in a comment read back, as they do here.)
    notes[1].comment = Some(format!("[%eval 0.25] [%clk 0:02:58] {}", "a long remark ".repeat(12).trim_end()));
    let pgn = write_pgn_annotated(&rec.game, &rec.tags, &notes);
    assert!(pgn.lines().all(|l| l.len() <= 80), "{pgn}");
    assert!(pgn.contains("[%clk 0:02:58]") && pgn.contains("[%clk 0:03:00]"), "{pgn}");
    let again = read_record(&pgn).expect("reads back");
    assert_eq!(again.annotations, notes);
}

/// Move numbers and glyphs as other programs write them: a number apart from its dot
/// (`2 . Nf3`), Black's move numbered after White's (`1. e4 1. ... e5`), position glyphs apart or
/// on the move (`+/-`, `Bb5+/-`, `=`).
#[test]
fn other_programs_move_numbers_and_glyphs_are_read() {
    for text in [
        "1. e4 1. ... e5 2 . Nf3 Nc6 3. Bb5+/- a6 =",
        "1. e4 e5 2. Nf3 Nc6 3. Bb5 +/- a6 $10",
        "1.e4 1...e5 2.Nf3 2...Nc6 3.Bb5 ± 3...a6",
    ] {
        let rec = read_record(&format!("{text} *\n")).unwrap_or_else(|e| panic!("{text}: {e}"));
        let ucis: Vec<String> = {
            let mut p = rec.game.start().clone();
            rec.game
                .moves()
                .iter()
                .map(|&m| {
                    let u = rules::uci::to_uci(&p, m);
                    p.play(m).expect("legal");
                    u
                })
                .collect()
        };
        assert_eq!(ucis, ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"], "{text}");
    }
    let rec = read_record("1. e4 e5 2. Nf3 Nc6 3. Bb5 +/- a6 = *\n").expect("reads");
    assert_eq!((rec.annotations[4].nags.clone(), rec.annotations[5].nags.clone()), (vec![16], vec![10]));
}

/// A line of moves from `start` in UCI.
fn uci_line(start: &Position, moves: &[rules::Move]) -> Vec<String> {
    let mut p = start.clone();
    moves
        .iter()
        .map(|&m| {
            let text = rules::uci::to_uci(&p, m);
            p.play(m).expect("a line's move is legal");
            text
        })
        .collect()
}

/// A variation as the expected file gives it: its whole line in UCI and where it parts.
type Line = (Vec<String>, usize);

#[test]
fn variations_are_read_as_python_chess_reads_them() {
    let records = read_records(&read_data("variations.pgn")).expect("the record reads");
    // The expected file: `game N`, `main m1,m2,...`, then `var PARTS m1,m2,...` per variation.
    let mut expected: Vec<(Vec<String>, Vec<Line>)> = Vec::new();
    for line in read_data("variations.expected").lines().filter(|l| !l.starts_with('#')) {
        let split = |s: &str| s.split(',').filter(|m| !m.is_empty()).map(str::to_string).collect::<Vec<_>>();
        match line.split_whitespace().collect::<Vec<_>>().as_slice() {
            ["game", _] => expected.push((Vec::new(), Vec::new())),
            ["main", moves] => expected.last_mut().expect("a game").0 = split(moves),
            ["var", parts, moves] => {
                expected.last_mut().expect("a game").1.push((split(moves), parts.parse().expect("a ply")))
            }
            other => panic!("unexpected line {other:?}"),
        }
    }
    assert_eq!(records.len(), expected.len(), "one record per game");
    assert_eq!(expected.iter().map(|(_, v)| v.len()).sum::<usize>(), 19, "the file's variations");
    for (i, (record, (main, lines))) in records.iter().zip(&expected).enumerate() {
        assert!(record.unread_variations.is_empty(), "game {}: {:?}", i + 1, record.unread_variations);
        let start = record.game.start();
        assert_eq!(&uci_line(start, record.game.moves()), main, "game {}: the main line", i + 1);
        let mut read: Vec<Line> = record.variations.iter().map(|v| (uci_line(start, &v.line), v.parts)).collect();
        // In the order written: each variation after the one it leaves (when that is one).
        for (k, v) in record.variations.iter().enumerate() {
            let leaves = record.variations[..k].iter().any(|w| w.line.starts_with(&v.line[..v.parts]));
            assert!(v.parts == 0 || leaves || record.game.moves().starts_with(&v.line[..v.parts]));
        }
        read.sort();
        let mut lines = lines.clone();
        lines.sort();
        assert_eq!(read, lines, "game {}: the variations", i + 1);
    }
}

#[test]
fn a_side_line_that_does_not_read_is_named_and_the_game_still_reads() {
    let pgn = "[Event \"side lines\"]\n\n1. d4 d5 2. c4 (2. Bf4 Nf6 3. Nf3 (3. Bxh7 Rxh7) 3... e6)\n\
               (2. Nf3 Bxh7) () 2... e6 *";
    let record = read_record(pgn).expect("the main line reads");
    assert_eq!(uci_line(record.game.start(), record.game.moves()), ["d2d4", "d7d5", "c2c4", "e7e6"]);
    // The good line is kept (its inner line, bad from its first move, is not); a line is kept
    // up to its bad move; each bad move named by its line and number.
    assert_eq!(record.variations.len(), 2);
    assert_eq!(record.variations.iter().map(|v| v.parts).collect::<Vec<_>>(), [2, 2]);
    assert_eq!(uci_line(record.game.start(), &record.variations[0].line)[2..], ["c1f4", "g8f6", "g1f3", "e7e6"]);
    assert_eq!(uci_line(record.game.start(), &record.variations[1].line)[2..], ["g1f3"]);
    let unread: Vec<String> = record.unread_variations.iter().map(ToString::to_string).collect();
    assert_eq!(unread.len(), 2, "{unread:?}");
    assert!(unread[0].starts_with("line 3: move 3. Bxh7: illegal in "), "{}", unread[0]);
    assert!(unread[1].starts_with("line 4: move 2... Bxh7: illegal in "), "{}", unread[1]);
    // The legal start of a line, and the lines that leave it there, are kept (as python-chess
    // keeps them): `8. Qxe8` (the queen on d1 cannot reach e8) ends it.
    let pgn = "1. e4 e5 2. Nf3 Nc6 (2... d6 3. d4 (3. Bc4 Be7 4. d4) 3... Nf6 4. Nc3 Nbd7 5. Bc4 Be7 \
               6. Bxf7+ Kf8 7. Ng5 Qe8 8. Qxe8) 3. Bb5 *";
    let record = read_record(pgn).expect("reads");
    let lines: Vec<usize> = record.variations.iter().map(|v| v.line.len()).collect();
    assert_eq!(lines, [14, 7], "the line up to 7... Qe8, then 3. Bc4 Be7 4. d4");
    assert_eq!(record.unread_variations.len(), 1);
    assert!(
        record.unread_variations[0].to_string().contains("move 8. Qxe8: illegal"),
        "{:?}",
        record.unread_variations
    );
    // A variation before any move has no move to replace.
    let early = read_record("(1. d4) 1. e4 *").expect("reads");
    assert!(early.variations.is_empty());
    assert_eq!(early.unread_variations[0].to_string(), "line 1: a variation before the first move");
    // SnowFall: a side line would need its gifts; it is said, and the game reads.
    let sf = read_record("[Variant \"SnowFall\"]\n\n1. e4 {H:} (1. d4 {H:}) 1... e5 {H:} *").expect("reads");
    assert_eq!(sf.game.moves().len(), 2);
    assert!(sf.variations.is_empty());
    assert!(sf.unread_variations[0].to_string().contains("variations are not read in snowfall records"));
    // Nesting is bounded; structure errors stay errors of the record.
    let deep = format!("1. e4 {} e5 {} *", "(1. d4 ".repeat(65), ")".repeat(65));
    assert!(matches!(read_record(&deep), Err(RecordError::Syntax { .. })), "65 deep");
    let ok = format!("1. e4 {} e5 {} *", "(1. d4 ".repeat(64), ")".repeat(64));
    let record = read_record(&ok).expect("64 deep reads");
    // Each inner `1. d4` replaces the `1. d4` before it: the same line 64 times, as written,
    // the innermost going on with `1... e5`.
    assert_eq!(record.variations.len(), 64);
    assert!(record.unread_variations.is_empty(), "{:?}", record.unread_variations);
    assert!(record.variations.iter().all(|v| v.parts == 0));
    let lengths: Vec<usize> = record.variations.iter().map(|v| v.line.len()).collect();
    assert_eq!(lengths.iter().filter(|&&n| n == 1).count(), 63);
    assert_eq!(lengths[63], 2, "the innermost comes last");
    for bad in ["1. e4 (1. d4 e5", "1. e4 (1. d4)) e5"] {
        assert!(matches!(read_record(bad), Err(RecordError::Syntax { .. })), "{bad}");
    }
}

#[test]
fn variations_are_written_as_they_are_read() {
    use rules::record::{write_pgn_with, Variation};
    let lines_of = |r: &rules::record::Record| -> Vec<Line> {
        let mut v: Vec<Line> = r.variations.iter().map(|v| (uci_line(r.game.start(), &v.line), v.parts)).collect();
        v.sort();
        v.dedup();
        v
    };
    for record in read_records(&read_data("variations.pgn")).expect("reads") {
        let text = write_pgn_with(&record.game, &record.tags, &record.annotations, &record.variations);
        let back = read_record(&text).unwrap_or_else(|e| panic!("{e}:\n{text}"));
        assert!(back.unread_variations.is_empty(), "{:?}\n{text}", back.unread_variations);
        assert_eq!(back.game.moves(), record.game.moves(), "{text}");
        assert_eq!(lines_of(&back), lines_of(&record), "{text}");
        assert!(text.lines().all(|l| l.len() <= 80), "{text}");
    }
    // As PGN writers print them: the parentheses on the moves, Black's move numbered after a
    // variation; a line that is the start of another, or that is not legal, adds nothing.
    let record = read_record("1. e4 e5 (1... c5 2. Nf3 (2. c3) d6) 2. Nf3 *").expect("reads");
    let mut variations = record.variations.clone();
    variations.push(Variation::new(record.variations[0].line[..2].to_vec(), 1));
    variations.push(Variation::new(vec![record.game.moves()[1]], 0));
    let text = write_pgn_with(&record.game, &[], &[], &variations);
    assert!(text.ends_with("\n1. e4 e5 (1... c5 2. Nf3 (2. c3) 2... d6) 2. Nf3 *\n"), "{text}");
    // Crazyhouse lines keep their holdings; SnowFall writes none (its side lines need gifts).
    let zh = read_record("[Variant \"Crazyhouse\"]\n\n1. e4 d5 2. exd5 Qxd5 (2... Nf6 3. P@e5) 3. Nc3 *").expect("zh");
    let text = write_pgn_with(&zh.game, &[], &[], &zh.variations);
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("2... Qxd5 {H:Pp} (2... Nf6 {H:P} 3. P@e5 {H:}) 3. Nc3 {H:Pp}"), "{text}");
    let sf = read_record("[Variant \"SnowFall\"]\n\n1. e4 {H:} e5 {H:} *").expect("sf");
    let line = vec![sf.game.moves()[0]];
    let text = write_pgn_with(&sf.game, &[], &[], &[Variation::new(line, 0)]);
    assert!(!text.contains('('), "{text}");
}

/// A record's comments and NAGs in the expected file's form ([`annotations_are_read_as_python_chess_reads_them`]):
/// `comment TEXT`, then `note PATH nags=N,.. before=TEXT after=TEXT` per move that has any, sorted.
fn annotation_listing(r: &rules::record::Record) -> Vec<String> {
    use rules::record::Annotation;
    let start = r.game.start();
    let mut out = Vec::new();
    if let Some(c) = &r.comment {
        out.push(format!("comment {c}"));
    }
    let mut notes = Vec::new();
    let mut note = |path: Vec<String>, a: Option<&Annotation>, before: Option<&String>| {
        let a = a.cloned().unwrap_or_default();
        if a.nags.is_empty() && a.comment.is_none() && before.is_none() {
            return;
        }
        let mut nags = a.nags.clone();
        nags.sort_unstable();
        nags.dedup();
        let nags = nags.iter().map(u8::to_string).collect::<Vec<_>>().join(",");
        let (before, after) = (before.cloned().unwrap_or_default(), a.comment.unwrap_or_default());
        notes.push(format!("note {} nags={nags} before={before} after={after}", path.join(",")));
    };
    let main = uci_line(start, r.game.moves());
    for (ply, a) in r.annotations.iter().enumerate() {
        note(main[..=ply].to_vec(), Some(a), None);
    }
    for v in &r.variations {
        let line = uci_line(start, &v.line);
        for ply in v.parts..v.line.len() {
            let before = if ply == v.parts { v.comment.as_ref() } else { None };
            note(line[..=ply].to_vec(), v.annotations.get(ply - v.parts), before);
        }
    }
    notes.sort();
    out.extend(notes);
    out
}

#[test]
fn annotations_are_read_as_python_chess_reads_them() {
    let records = read_records(&read_data("annotated.pgn")).expect("the record reads");
    let mut expected: Vec<Vec<String>> = Vec::new();
    for line in read_data("annotated.expected").lines().filter(|l| !l.starts_with('#')) {
        if line.starts_with("game ") {
            expected.push(Vec::new());
        } else {
            expected.last_mut().expect("a game").push(line.to_string());
        }
    }
    assert_eq!(records.len(), expected.len(), "one record per game");
    assert_eq!(expected.iter().flatten().filter(|l| l.starts_with("note ")).count(), 28, "the file's notes");
    for (i, (record, want)) in records.iter().zip(&expected).enumerate() {
        assert!(record.unread_variations.is_empty(), "game {}: {:?}", i + 1, record.unread_variations);
        assert_eq!(&annotation_listing(record), want, "game {}", i + 1);
    }
}

#[test]
fn annotations_are_written_as_they_are_read() {
    use rules::record::write_record;
    for record in read_records(&read_data("annotated.pgn")).expect("reads") {
        let text = write_record(&record);
        let back = read_record(&text).unwrap_or_else(|e| panic!("{e}:\n{text}"));
        assert_eq!(back.game.moves(), record.game.moves(), "{text}");
        assert_eq!(annotation_listing(&back), annotation_listing(&record), "{text}");
        assert_eq!(back.tags, record.tags, "{text}");
        assert!(text.lines().all(|l| l.starts_with('[') || l.len() <= 80), "{text}");
    }
    // As PGN writers print them: the game's comment first, a variation's before its first move,
    // NAGs after the move, Black's move numbered after a comment.
    let record =
        read_record("{Start} 1. e4 $1 {best} e5 ( {or} 1... c5 $5 {Sicilian} 2. Nf3 ) 2. Nf3 *").expect("reads");
    let text = write_record(&record);
    assert!(
        text.ends_with("\n{Start} 1. e4 $1 {best} 1... e5 ({or} 1... c5 $5 {Sicilian} 2. Nf3) 2. Nf3 *\n"),
        "{text}"
    );
    // Crazyhouse: a side line's comments follow its holdings, which are not read as comments.
    let zh = read_record(
        "[Variant \"Crazyhouse\"]\n\n1. e4 d5 2. exd5 Qxd5 (2... Nf6 {H:P} {develops} 3. P@e5 $2) 3. Nc3 *",
    )
    .expect("zh");
    assert_eq!(zh.variations[0].annotations[0].comment.as_deref(), Some("develops"));
    let text = write_record(&zh);
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("(2... Nf6 {H:P} {develops} 3. P@e5 $2 {H:}) 3. Nc3"), "{text}");
    let back = read_record(&text).expect("reads back");
    assert_eq!(annotation_listing(&back), annotation_listing(&zh));
}

#[test]
fn a_comment_a_record_would_read_as_a_note_is_named() {
    use rules::record::comment_error;
    let chess = variants::by_name("chess").expect("chess");
    let sf = snowfall::variant(17);
    let coin = variants::by_name("coinflip").expect("coinflip");
    let zh = variants::by_name("crazyhouse").expect("crazyhouse");
    let prob = probabilistic::variant(ProbOptions::default());
    // Where a note cannot mean anything, its words are a comment.
    for c in ["a fine move", "gift of a pawn", "failed to see the fork", "100% sure", "H:Qq", "gift W:Q B:Q", "50%: ok"]
    {
        assert_eq!(comment_error(chess, c), None, "{c}");
    }
    assert_eq!(comment_error(zh, "gift W:Q B:Q"), None);
    for (v, c, what) in [
        (zh, "H:Qq held", "holdings"),
        (sf, "[%clk 0:01:00] gift W:Q B:-", "gift"),
        (coin, "failed", "failure"),
        (prob, "50%: ok", "roll"),
    ] {
        let e = comment_error(v, c).unwrap_or_else(|| panic!("{c}"));
        assert!(e.ends_with(&format!("as the move's {what}")), "{e}");
    }
    // And a record reads them as comments, as python-chess does.
    for (pgn, comment) in [
        ("1. e4 {gift W: none} e5 *", "gift W: none"),
        ("1. e4 {gift W:Q B:Q} *", "gift W:Q B:Q"),
        ("1. e4 {30%: chance} *", "30%: chance"),
        ("1. e4 {H:Pb} *", "H:Pb"),
        ("[Variant \"coinflip\"]\n\n1. e4 {50%: failed} *", "50%: failed"),
    ] {
        let r = read_record(pgn).unwrap_or_else(|e| panic!("{pgn}: {e}"));
        assert_eq!(r.annotations[0].comment.as_deref(), Some(comment), "{pgn}");
    }
}

#[test]
fn nags_are_read_however_they_are_written() {
    let nags = |pgn: &str| -> Vec<Vec<u8>> {
        read_record(pgn).unwrap_or_else(|e| panic!("{pgn}: {e}")).annotations.iter().map(|a| a.nags.clone()).collect()
    };
    // Joined to the move or to each other, once each (python-chess reads `$1!` as one NAG).
    assert_eq!(nags("1. e4 $1! e5 2. Nf3$1 Nc6!?$14 *"), [vec![1], vec![], vec![1], vec![5, 14]]);
    // ChessBase's and the Informant's symbols, as words or after the move.
    assert_eq!(
        nags("1. e4 +/= e5 =/+ 2. d4 =∞ N □ ↑ → Δ ⇆ ⨀ ⟳ TN d5± 3. c4+- *"),
        [vec![14], vec![15], vec![44, 146, 7, 36, 40, 140, 132, 22, 32], vec![16], vec![18]]
    );
    // In a side line too.
    let r = read_record("1. e4 (1. d4?! $146 d5±) e5 *").expect("reads");
    assert_eq!(
        r.variations[0].annotations.iter().map(|a| a.nags.clone()).collect::<Vec<_>>(),
        [vec![6, 146], vec![16]]
    );
    // A promotion to a knight is not a novelty.
    let promo = read_record("[SetUp \"1\"]\n[FEN \"8/4P3/8/8/8/8/k7/4K3 w - - 0 1\"]\n\n1. e8=N± *").expect("reads");
    assert_eq!(uci_line(promo.game.start(), promo.game.moves()), ["e7e8n"]);
    assert_eq!(promo.annotations[0].nags, [16]);
    // A NAG beyond 255 is not one: the word is a bad move.
    assert!(matches!(read_record("1. e4 $300 *"), Err(RecordError::IllegalMove { .. })));
}

#[test]
fn what_a_comment_cannot_hold_is_not_written() {
    use rules::record::{write_pgn_annotated, Annotation};
    let record = read_record("1. e4 e5 *").expect("reads");
    let notes = [
        Annotation { nags: vec![1, 1, 14, 1], comment: Some("a {braced}\n\nline\u{7}\tend".into()) },
        Annotation { nags: vec![], comment: Some("{}".into()) },
    ];
    let text = write_pgn_annotated(&record.game, &[], &notes);
    assert!(text.ends_with("\n1. e4 $1 $14 {a braced line end} 1... e5 *\n"), "{text}");
    assert_eq!(text.matches("\n\n").count(), 1, "one blank line, after the tags: {text}");
}

#[test]
fn two_lines_noting_one_move_keep_both_notes() {
    use rules::record::write_record;
    // python-chess keeps two sibling lines with the same first move apart; a record written
    // here plays a move once, so their notes go together.
    let r = read_record("1. e4 e5 2. Nf3 (2. Nc3 $1 {Vienna} Nf6 3. f4) (2. Nc3 $5 {Vienna again} Nc6 3. Bc4) *")
        .expect("reads");
    let text = write_record(&r);
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("(2. Nc3 $1 $5 {Vienna Vienna again} 2... Nf6 (2... Nc6 3. Bc4) 3. f4)"), "{text}");
}

#[test]
fn a_comment_after_the_result_is_the_last_moves() {
    let records =
        read_records("1. f3 e5 2. g4 Qh4# {mate} 0-1 {Fool's mate}\n\n[Event \"b\"]\n\n1. d4 *").expect("reads");
    assert_eq!(records.len(), 2, "no game of its own");
    assert_eq!(records[0].annotations[3].comment.as_deref(), Some("mate Fool's mate"));
    assert_eq!(records[0].tag("Result"), Some("0-1"));
    assert_eq!(records[1].tag("Event"), Some("b"));
}
