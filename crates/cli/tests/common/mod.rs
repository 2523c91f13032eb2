//! Helpers shared by the CLI's end-to-end tests: running the binary, reading its output,
//! temporary paths and the check that bad input gets one `error:` line and exit status 2.
#![allow(dead_code)]

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

/// Starts `fairylab serve --listen 127.0.0.1:0` with more `args`: the process and the base
/// URL it printed (`http://127.0.0.1:PORT`).
pub fn spawn_server(args: &[&str]) -> (std::process::Child, String) {
    use std::io::{BufRead, BufReader};
    let mut child = Command::new(env!("CARGO_BIN_EXE_fairylab"))
        .args(["serve", "--listen", "127.0.0.1:0"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the server starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut line).expect("the address line");
    let base = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .trim_end_matches('/')
        .to_string();
    (child, base)
}

/// Runs `fairylab` with `args`.
pub fn fairylab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fairylab")).args(args).output().expect("the binary runs")
}

/// Runs `fairylab` with `args`, `input` on its stdin.
pub fn fairylab_stdin(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fairylab"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child.stdin.take().expect("stdin").write_all(input.as_bytes()).expect("write stdin");
    child.wait_with_output().expect("the binary finishes")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `name` in this test process's own temporary directory `fairylab-<tag>-<pid>`.
pub fn temp_path(tag: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fairylab-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

pub fn assert_ok(o: &Output) {
    assert!(o.status.success(), "status {:?}, stderr {}", o.status, stderr(o));
}

/// Bad input: exit status 2, exactly one stderr line starting with `error: `, nothing on stdout, no panic.
pub fn assert_bad_input(args: &[&str], mentions: &str) {
    let o = fairylab(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: status {:?}, stderr {err}", o.status);
    assert!(!err.contains("panicked") && !err.contains("RUST_BACKTRACE"), "{args:?} panicked: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: expected one stderr line, got {err:?}");
    assert!(err.starts_with("error: "), "{args:?}: {err:?}");
    assert!(err.contains(mentions), "{args:?}: {err:?} should mention {mentions:?}");
    assert!(o.stdout.is_empty(), "{args:?}: stdout {:?}", stdout(&o));
}
