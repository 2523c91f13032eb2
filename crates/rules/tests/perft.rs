//! The one perft driver: every `tests/data/*.perft` suite, each run in the variant its file name maps to.
//! `cargo test` runs the cases up to a node limit; `cargo test --release -- --ignored` runs them all.
//!
//! Suite format (shared with shakmaty and scalachess): blocks of `id <name>`, `epd <FEN>` and one or
//! more `perft <depth> <nodes>` lines; `#` starts a comment line; blank lines separate blocks.

use rules::{perft, spec, variants, Position, Variant};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// Where a suite's variant comes from.
#[derive(Debug, Clone, Copy)]
enum Source {
    /// A built-in variant by name.
    Builtin(&'static str),
    /// A variant file under `tests/data/`.
    File(&'static str),
}

/// The suite file stem (`tests/data/<stem>.perft`) and its variant: the one mapping table.
const SUITES: &[(&str, Source)] = &[
    ("chess", Source::Builtin("chess")),
    ("chess960", Source::Builtin("chess960")),
    ("perftsuite", Source::Builtin("chess")),
    ("crazyhouse", Source::Builtin("crazyhouse")),
    ("crazyhouse960", Source::Builtin("crazyhouse960")),
    ("snowfall", Source::Builtin("snowfall")),
    ("probabilistic", Source::Builtin("probabilistic")),
    ("gardner", Source::Builtin("gardner")),
    ("baby", Source::Builtin("baby")),
    ("baby-double", Source::Builtin("baby-double")),
    ("losalamos", Source::File("variants/losalamos.toml")),
    ("customleaper", Source::File("variants/customleaper.toml")),
    ("nightrider", Source::File("variants/nightrider.toml")),
    ("leapers", Source::File("variants/leapers.toml")),
    ("chiral", Source::File("variants/chiral.toml")),
];

/// Cases with more expected nodes than this are left to the ignored full run.
const NODE_LIMIT: u64 = 2_000_000;

/// Suites of variants defined by files are run at least to this depth by `cargo test`.
const MIN_FILE_VARIANT_DEPTH: u32 = 4;

/// One `perft <depth> <nodes>` line with its position.
#[derive(Debug, Clone)]
struct Case {
    file: String,
    line: usize,
    id: String,
    fen: String,
    depth: u32,
    nodes: u64,
    variant: &'static Variant,
}

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data")
}

fn load_variant(source: Source) -> Result<&'static Variant, String> {
    match source {
        Source::Builtin(name) => variants::by_name(name).ok_or_else(|| format!("no built-in variant {name}")),
        Source::File(rel) => {
            let path = data_dir().join(rel);
            spec::load_variant_file(&path).map_err(|e| format!("{}: {e}", path.display()))
        }
    }
}

/// Every case of every suite file, or the problems that stop a file from being read.
fn read_suites() -> (Vec<Case>, Vec<String>) {
    let mut cases = Vec::new();
    let mut problems = Vec::new();
    let mut paths: Vec<PathBuf> = match std::fs::read_dir(data_dir()) {
        Ok(dir) => dir
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "perft"))
            .collect(),
        Err(e) => return (cases, vec![format!("cannot list {}: {e}", data_dir().display())]),
    };
    paths.sort();
    for path in paths {
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_string();
        let file = format!("tests/data/{stem}.perft");
        let Some(&(_, source)) = SUITES.iter().find(|(s, _)| *s == stem) else {
            problems
                .push(format!("{file}: no variant for this suite; add it to SUITES in crates/rules/tests/perft.rs"));
            continue;
        };
        let variant = match load_variant(source) {
            Ok(v) => v,
            Err(e) => {
                problems.push(format!("{file}: {e}"));
                continue;
            }
        };
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                problems.push(format!("{file}: {e}"));
                continue;
            }
        };
        let (mut id, mut fen) = (String::new(), None::<Result<String, ()>>);
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim();
            let at = format!("{file}:{}", i + 1);
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (key, value) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
            let value = value.trim();
            match key {
                "id" => {
                    id = value.to_string();
                    fen = None;
                }
                "epd" => {
                    // A FEN that does not load is reported once, here, and its perft lines are skipped.
                    fen = Some(match Position::from_fen(variant, value) {
                        Ok(_) => Ok(value.to_string()),
                        Err(e) => {
                            problems.push(format!(
                                "{at}: id {id} ({}): FEN does not parse: {e}\n    fen {value}",
                                variant.name
                            ));
                            Err(())
                        }
                    });
                }
                "perft" => {
                    let mut parts = value.split_whitespace();
                    let depth = parts.next().and_then(|d| d.parse().ok());
                    let nodes = parts.next().and_then(|n| n.parse().ok());
                    match (&fen, depth, nodes, parts.next()) {
                        (Some(Err(())), ..) => {}
                        (Some(Ok(fen)), Some(depth), Some(nodes), None) => cases.push(Case {
                            file: file.clone(),
                            line: i + 1,
                            id: id.clone(),
                            fen: fen.clone(),
                            depth,
                            nodes,
                            variant,
                        }),
                        (None, ..) => problems.push(format!("{at}: perft line before any epd line")),
                        _ => problems.push(format!("{at}: expected 'perft <depth> <nodes>', got {line:?}")),
                    }
                }
                _ => problems.push(format!("{at}: unknown line {line:?}")),
            }
        }
    }
    (cases, problems)
}

/// Runs the cases on all cores, biggest first; returns one message per failure, in file order.
fn run(cases: &[Case]) -> Vec<String> {
    let mut order: Vec<usize> = (0..cases.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(cases[i].nodes));
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                while let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let c = &cases[i];
                    let result = match Position::from_fen(c.variant, &c.fen) {
                        Ok(pos) => {
                            let got = perft(&pos, c.depth);
                            (got != c.nodes).then(|| format!("expected {}, got {got}", c.nodes))
                        }
                        Err(e) => Some(format!("FEN does not parse: {e}")),
                    };
                    if let Some(what) = result {
                        let msg = format!(
                            "{}:{} id {} ({}) depth {}: {what}\n    fen {}",
                            c.file, c.line, c.id, c.variant.name, c.depth, c.fen
                        );
                        failures.lock().unwrap_or_else(|e| e.into_inner()).push((i, msg));
                    }
                }
            });
        }
    });
    let mut failures = failures.into_inner().unwrap_or_else(|e| e.into_inner());
    failures.sort();
    failures.into_iter().map(|(_, m)| m).collect()
}

fn check(limit: Option<u64>) {
    let start = Instant::now();
    let (cases, mut problems) = read_suites();
    let selected: Vec<Case> = cases.iter().filter(|c| limit.is_none_or(|l| c.nodes <= l)).cloned().collect();
    // Custom variants (from files) must be checked to at least MIN_FILE_VARIANT_DEPTH even in the fast run.
    for c in &cases {
        let from_file = SUITES
            .iter()
            .any(|(stem, src)| matches!(src, Source::File(_)) && c.file == format!("tests/data/{stem}.perft"));
        let deepest_run = selected.iter().filter(|s| s.file == c.file && s.id == c.id).map(|s| s.depth).max();
        if from_file && c.depth <= MIN_FILE_VARIANT_DEPTH && deepest_run.is_none_or(|d| d < c.depth) {
            problems.push(format!(
                "{}:{} id {}: depth {} ({} nodes) is over the node limit, but custom variants must be run to depth {}",
                c.file, c.line, c.id, c.depth, c.nodes, MIN_FILE_VARIANT_DEPTH
            ));
        }
    }
    let failures = run(&selected);
    let nodes: u64 = selected.iter().map(|c| c.nodes).sum();
    let mut files: Vec<&str> = selected.iter().map(|c| c.file.as_str()).collect();
    files.dedup();
    eprintln!(
        "perft: {} cases from {} files ({}), {nodes} nodes in {:.1} s",
        selected.len(),
        files.len(),
        files.join(", "),
        start.elapsed().as_secs_f64()
    );
    let all: Vec<String> = problems.into_iter().chain(failures).collect();
    assert!(!selected.is_empty(), "no perft cases found in {}", data_dir().display());
    assert!(all.is_empty(), "{} perft problems:\n{}", all.len(), all.join("\n"));
}

/// Every case whose expected node count is at most [`NODE_LIMIT`].
#[test]
fn perft_suites_within_node_limit() {
    check(Some(NODE_LIMIT));
}

/// Every case of every suite (minutes even in release mode). `PERFT_MAX_NODES=<n>` caps it at `n` nodes per case.
#[test]
#[ignore = "slow: run with `cargo test --release -- --ignored`"]
fn perft_suites_full() {
    let cap = std::env::var("PERFT_MAX_NODES").ok().map(|v| match v.trim().replace('_', "").parse::<u64>() {
        Ok(n) => n,
        Err(e) => panic!("PERFT_MAX_NODES={v:?} is not a node count: {e}"),
    });
    check(cap);
}
