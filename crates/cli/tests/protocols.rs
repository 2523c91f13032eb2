//! `fairylab uci` and `fairylab xboard` as processes: scripted sessions on stdin, and
//! python-chess playing whole chess and crazyhouse games against the engine as a real UCI client.

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::Instant;

fn session(command: &str, input: &str) -> Output {
    common::fairylab_stdin(&[command], input)
}

fn lines(o: &Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stdout).lines().map(str::to_string).collect()
}

#[test]
fn uci_session_on_stdin() {
    let o = session(
        "uci",
        "uci\nisready\nsetoption name UCI_Variant value crazyhouse\n\
         position startpos moves e2e4 d7d5 e4d5 d8d5 P@e6\nnonsense\ngo depth 3\n",
    );
    assert!(o.status.success(), "{o:?}");
    assert!(o.stderr.is_empty(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = lines(&o);
    assert!(out.contains(&"uciok".to_string()) && out.contains(&"readyok".to_string()), "{out:?}");
    assert!(out.iter().any(|l| l.starts_with("info string variant crazyhouse files 8 ranks 8 pocket 6")));
    assert!(out.contains(&"info string error: unknown command 'nonsense'".to_string()));
    // The end of input lets the search finish.
    assert!(out.last().is_some_and(|l| l.starts_with("bestmove ")), "{out:?}");
}

#[test]
fn uci_quit_ends_with_success() {
    let o = session("uci", "go infinite\nquit\nisready\n");
    assert!(o.status.success(), "{o:?}");
    let out = lines(&o);
    assert!(out.last().is_some_and(|l| l.starts_with("bestmove ")), "{out:?}");
    assert!(!out.contains(&"readyok".to_string()));
}

#[test]
fn xboard_session_on_stdin() {
    let o = session("xboard", "xboard\nprotover 2\nnew\nvariant gardner\nsd 2\nusermove a2a3\nping 1\n");
    assert!(o.status.success(), "{o:?}");
    let out = lines(&o);
    assert!(out[0].starts_with("feature ") && out[0].contains("5x5+0_fairy"), "{out:?}");
    assert!(out.iter().any(|l| l.starts_with("setup (") && l.contains("5x5+0_fairy")), "{out:?}");
    assert!(out.iter().any(|l| l.starts_with("move ")), "{out:?}");
    assert!(out.contains(&"pong 1".to_string()), "{out:?}");
}

/// python-chess plays 10 chess and 10 crazyhouse games against the engine through UCI and
/// analyses a position of each with MultiPV and searchmoves (`scripts/uci_python_games.py`);
/// skipped with a notice when python-chess is missing.
#[test]
fn python_chess_plays_whole_games() {
    let has_chess = Command::new("python3").args(["-c", "import chess"]).output().is_ok_and(|o| o.status.success());
    if !has_chess {
        eprintln!("python-chess not installed: skipping the python-chess games (pip install chess)");
        return;
    }
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/uci_python_games.py");
    let start = Instant::now();
    let o = Command::new("python3")
        .arg(&script)
        .args(["--bin", env!("CARGO_BIN_EXE_fairylab"), "--games", "10"])
        .output()
        .expect("python3 runs");
    let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    eprintln!("{text}python-chess games: {:.1} s", start.elapsed().as_secs_f64());
    assert!(o.status.success(), "{text}");
    assert_eq!(text.lines().filter(|l| l.contains(" game ") && l.contains(" plies, ")).count(), 20, "{text}");
    assert!(text.contains("20 positions analysed with MultiPV 3 and searchmoves"), "{text}");
}
