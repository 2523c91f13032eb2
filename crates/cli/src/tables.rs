//! `fairylab egt`: generate endgame tables FairyGen-style (`egt KQ.KR -m`), and `egt probe`,
//! `egt line`, `egt check` on a saved table file; parsing and output only, the work is in `egt`.

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use egt::fen::parse_legal_fen;
use egt::generate::{human_bytes, memory_needed};
use egt::probe::{describe_under, game_over, line, probe, ProbeMove, NOT_WON_FOR_WHITE};
use egt::{generate, BoardShape, Family, Material, Metric, PieceSet, Progress, Request, TableRules};
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

/// `fairylab egt ...`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub(crate) struct EgtArgs {
    #[command(subcommand)]
    action: Option<EgtAction>,
    #[command(flatten)]
    generate: GenerateArgs,
}

#[derive(Debug, Subcommand)]
enum EgtAction {
    /// The value of a position in a table file and every move with the value it leads to.
    Probe(ProbeArgs),
    /// Play out an optimal line from a position, move by move.
    Line(ProbeArgs),
    /// Check random positions of every table in a file: each value must equal the best over its moves.
    Check(CheckArgs),
}

/// The pieces: orthodox K Q R B N built in, plus a piecedef.ini and Betza definitions.
#[derive(Debug, Args)]
struct PieceArgs {
    /// FairyGen piece definitions (`X: dx,dy[,specs][*|+] ...` per line).
    #[arg(long, value_name = "FILE")]
    pieces: Option<PathBuf>,
    /// Read --pieces as FairyGen's own reader does (a spec-less step inherits the symmetry mark; a
    /// step without its comma ends the line).
    #[arg(long, requires = "pieces")]
    lenient: bool,
    /// A piece in Betza notation, `LETTER=NOTATION` (e.g. `A=BN`); repeatable.
    #[arg(long, value_name = "X=BETZA")]
    betza: Vec<String>,
}

/// FairyGen's options.
#[derive(Debug, Args)]
struct RuleArgs {
    /// Distance to mate instead of distance to conversion.
    #[arg(short = 'm', long = "dtm")]
    dtm: bool,
    /// Black (the defender) may pass when it has a legal move.
    #[arg(short = '0', long = "null-move")]
    null_move: bool,
    /// Stalemating the opponent wins.
    #[arg(short = 's', long = "stalemate-wins")]
    stalemate_wins: bool,
    /// A bare black royal loses (while White keeps a man besides its royal).
    #[arg(short = 'b', long = "bare-king")]
    bare_king: bool,
    /// FairyGen's one-sided mode: only White's wins; Black's wins count as draws.
    #[arg(long)]
    one_sided: bool,
    /// The board, FILESxRANKS from 5x5 to 8x8 (default 8x8; when probing, the file's).
    #[arg(long, value_name = "FxR")]
    board: Option<String>,
}

impl RuleArgs {
    fn rules(&self) -> TableRules {
        TableRules {
            metric: if self.dtm { Metric::Dtm } else { Metric::Dtc },
            null_move: self.null_move,
            stalemate_wins: self.stalemate_wins,
            bare_king_loses: self.bare_king,
            one_sided: self.one_sided,
        }
    }

    /// The board given, else 8x8.
    fn board(&self) -> Result<BoardShape> {
        Ok(BoardShape::parse(self.board.as_deref().unwrap_or("8x8"))?)
    }

    /// The rules of a table file with the options given here on top: an option given that the
    /// file does not have is a mismatch, one not given is the file's.
    fn over(&self, file: &TableRules) -> TableRules {
        let mut r = *file;
        if self.dtm {
            r.metric = Metric::Dtm;
        }
        r.null_move |= self.null_move;
        r.stalemate_wins |= self.stalemate_wins;
        r.bare_king_loses |= self.bare_king;
        r.one_sided |= self.one_sided;
        r
    }
}

#[derive(Debug, Args)]
struct GenerateArgs {
    /// The ending: White's men, a period, Black's; the first letter of each side is its royal piece
    /// (e.g. KQ.KR, KBB.KN).
    #[arg(required = true, value_name = "MATERIAL")]
    material: Option<String>,
    #[command(flatten)]
    pieces: PieceArgs,
    #[command(flatten)]
    rules: RuleArgs,
    /// Save the tables (the ending and every sub-ending) to this file, for probe, line and check
    /// (`-`: standard output, which then carries only the file).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Write the statistics report as text here too (FairyGen's rep2.txt; `-`: standard output,
    /// where it goes anyway).
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// Write the statistics report as JSON here (docs/FORMATS.md, "Endgame table reports"; `-`:
    /// standard output, instead of the text report).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Worker threads (default: every core). The tables do not depend on it.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1024))]
    threads: Option<u64>,
    /// Refuse to generate tables larger than this (e.g. 200M, 4G; default: 80 % of available memory).
    #[arg(long, value_name = "BYTES")]
    max_memory: Option<String>,
    /// No per-level progress on stderr.
    #[arg(long)]
    quiet: bool,
}

#[derive(Debug, Args)]
struct ProbeArgs {
    /// A table file written by `fairylab egt MATERIAL --out FILE`.
    file: PathBuf,
    /// The position: FEN placement and side to move (`w` if omitted), on the table's board;
    /// castling and en passant, if given, must be `-`. Illegal positions (the side not to move in
    /// check) are refused, except the finished game a -b capture leaves.
    #[arg(long)]
    fen: String,
    /// Print one JSON object instead of text (docs/FORMATS.md, "Endgame table probes").
    #[arg(long)]
    json: bool,
    /// `line` only: stop after this many plies (moves of either side).
    #[arg(long, default_value_t = 300)]
    max_plies: usize,
    #[command(flatten)]
    pieces: PieceArgs,
    /// Require the file to have been generated under these options (refused otherwise).
    #[command(flatten)]
    rules: RuleArgs,
}

#[derive(Debug, Args)]
struct CheckArgs {
    /// A table file.
    file: PathBuf,
    /// Random positions per table (at least 1).
    #[arg(long, default_value_t = 100_000)]
    samples: u64,
    /// Seed for choosing positions.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Runs `fairylab egt ...`.
pub(crate) fn egt(a: &EgtArgs, out: &mut impl Write) -> Result<()> {
    match &a.action {
        Some(EgtAction::Probe(p)) => probe_command(p, out),
        Some(EgtAction::Line(p)) => line_command(p, out),
        Some(EgtAction::Check(c)) => check_command(c, out),
        None => generate_command(&a.generate, out),
    }
}

fn piece_set(a: &PieceArgs) -> Result<PieceSet> {
    let mut set = PieceSet::orthodox();
    // Who defined each letter beyond the orthodox set: a second definition is refused, not
    // silently preferred.
    let mut defined: Vec<(char, String)> = Vec::new();
    if let Some(path) = &a.pieces {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("cannot read piece file {}", path.display()))?;
        let before = set.clone();
        set.add_piecedef(&text, a.lenient).with_context(|| format!("piece file {}", path.display()))?;
        for k in set.kinds() {
            if before.get(k.letter).is_none_or(|b| b.movement != k.movement) {
                defined.push((k.letter, format!("the piece file {}", path.display())));
            }
        }
    }
    for def in &a.betza {
        let Some((letter, notation)) = def.split_once('=') else {
            bail!("--betza {def:?}: expected LETTER=NOTATION, e.g. A=BN");
        };
        let mut chars = letter.trim().chars();
        let (Some(c), None) = (chars.next(), chars.next()) else {
            bail!("--betza {def:?}: the piece letter must be one character");
        };
        if let Some((_, by)) = defined.iter().find(|(l, _)| *l == c) {
            bail!("--betza {def:?}: piece {c} is defined already, by {by}");
        }
        set.add_betza(c, notation.trim())?;
        defined.push((c, format!("--betza {def:?}")));
    }
    Ok(set)
}

/// Parses `200M`, `4G`, `1.5G`, `123456` (bytes).
fn parse_bytes(text: &str) -> Result<u64> {
    let t = text.trim();
    let (num, unit) = match t.char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
        Some((i, _)) => (&t[..i], t[i..].to_ascii_uppercase()),
        None => (t, String::new()),
    };
    let scale: f64 = match unit.trim_end_matches(['B', 'I']) {
        "" => 1.0,
        "K" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        _ => bail!("--max-memory {text:?}: unknown unit (use K, M, G or T)"),
    };
    let n: f64 = num.trim().parse().with_context(|| format!("--max-memory {text:?}: not a number"))?;
    if n.is_nan() || n <= 0.0 {
        bail!("--max-memory {text:?}: must be positive");
    }
    Ok((n * scale) as u64)
}

/// 80 % of the memory available now (Linux `MemAvailable`), or 16 GB when unknown.
fn default_memory_limit() -> u64 {
    let available = std::fs::read_to_string("/proc/meminfo").ok().and_then(|s| {
        s.lines()
            .find(|l| l.starts_with("MemAvailable:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|k| k.parse::<u64>().ok())
            .map(|kb| kb * 1024)
    });
    available.map_or(16_000_000_000, |b| b / 5 * 4)
}

fn generate_command(a: &GenerateArgs, out: &mut impl Write) -> Result<()> {
    let pieces = piece_set(&a.pieces)?;
    let text = a.material.as_deref().unwrap_or_default();
    let material = Material::parse(text, &pieces)?;
    let board = a.rules.board()?;
    let rules = a.rules.rules();
    let max_memory = match &a.max_memory {
        Some(m) => parse_bytes(m)?,
        None => default_memory_limit(),
    };
    let threads = crate::simulation::thread_count(a.threads)?;
    let pool = crate::simulation::thread_pool(threads)?;
    let needed = memory_needed(&material, board);
    if needed > max_memory {
        bail!(egt::EgtError::TooLarge {
            material: material.to_string(),
            needed: human_bytes(needed),
            limit: human_bytes(max_memory),
        });
    }
    // `-` is standard output; it carries one thing. The files to write are checked before the
    // work, not after it.
    let to_stdout: Vec<&str> = [("--out", &a.out), ("--json", &a.json), ("--report", &a.report)]
        .into_iter()
        .filter(|(_, p)| p.as_deref().is_some_and(is_stdout))
        .map(|(flag, _)| flag)
        .collect();
    if to_stdout.len() > 1 {
        let all = if to_stdout.len() == 2 { "both" } else { "all" };
        bail!("{} {all} name - (standard output); only one of them can", to_stdout.join(" and "));
    }
    for path in [&a.out, &a.report, &a.json].into_iter().flatten().filter(|p| !is_stdout(p)) {
        writable(path)?;
    }
    let req = Request { material: material.clone(), board, rules, pieces, max_memory };
    if !a.quiet {
        eprintln!(
            "{material} on {board}, {}{}, {threads} thread(s), about {} of tables",
            rules.metric,
            if rules.flags().is_empty() { String::new() } else { format!(" {}", rules.flags()) },
            human_bytes(needed)
        );
    }
    let main = material.to_string();
    let clock = Instant::now();
    let quiet = a.quiet;
    let mut progress = |p: &Progress| {
        if quiet {
            return;
        }
        match p {
            Progress::Table { material, index, count, positions } => {
                eprintln!("[{}/{count}] {material}: {positions} indices per side to move", index + 1)
            }
            Progress::Level { material, plies, white, black } if *material == main && white + black > 0 => {
                let (what_w, what_b) = if plies % 2 == 0 { ("won", "won") } else { ("lost", "lost") };
                eprintln!(
                    "  {material} ply {plies:>3}: {white:>12} white to move {what_w}, {black:>12} black to move {what_b} ({:.1} s)",
                    clock.elapsed().as_secs_f64()
                );
            }
            Progress::Level { .. } => {}
        }
    };
    let cpu_before = cpu_seconds();
    let family = pool.install(|| generate(&req, &mut progress))?;
    let seconds = clock.elapsed().as_secs_f64();
    let cpu = cpu_seconds().zip(cpu_before).map(|(after, before)| after - before);
    if !a.quiet {
        eprintln!(
            "generated in {seconds:.2} s wall{}, peak memory {}",
            cpu.map_or(String::new(), |c| format!(", {c:.2} s CPU")),
            peak_memory().map_or("unknown".to_string(), human_bytes)
        );
    }
    let report = pool.install(|| egt::stats::report(&family));
    let text = report.text();
    let json = serde_json::to_string_pretty(&report.json())? + "\n";
    // Standard output carries the text report unless --json or --out claims it.
    match (a.json.as_deref().filter(|p| is_stdout(p)), a.out.as_deref().filter(|p| is_stdout(p))) {
        (Some(_), _) => out.write_all(json.as_bytes())?,
        (_, Some(_)) => family.write_to(&mut *out, "standard output")?,
        (None, None) => out.write_all(text.as_bytes())?,
    }
    if let Some(path) = a.report.as_deref().filter(|p| !is_stdout(p)) {
        std::fs::write(path, &text).with_context(|| format!("cannot write report {}", path.display()))?;
    }
    if let Some(path) = a.json.as_deref().filter(|p| !is_stdout(p)) {
        std::fs::write(path, json).with_context(|| format!("cannot write JSON report {}", path.display()))?;
    }
    if let Some(path) = a.out.as_deref().filter(|p| !is_stdout(p)) {
        family.save(path)?;
        if !a.quiet {
            eprintln!(
                "saved {} ({})",
                path.display(),
                human_bytes(std::fs::metadata(path).map(|m| m.len()).unwrap_or(0))
            );
        }
    }
    Ok(())
}

/// Whether an output path is `-`, standard output.
fn is_stdout(path: &std::path::Path) -> bool {
    path.as_os_str() == "-"
}

/// Whether a file can be written at `path`: not a directory, in a directory that exists.
fn writable(path: &std::path::Path) -> Result<()> {
    if path.is_dir() {
        bail!("cannot write {}: it is a directory", path.display());
    }
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
    if !parent.is_dir() {
        bail!("cannot write {}: there is no directory {}", path.display(), parent.display());
    }
    Ok(())
}

/// CPU seconds used by this process so far (Linux), user plus system.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let after = stat.rsplit_once(')')?.1;
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// Peak resident memory of this process (Linux `VmHWM`).
fn peak_memory() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb: u64 = s.lines().find(|l| l.starts_with("VmHWM:"))?.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn load(a: &ProbeArgs) -> Result<Family> {
    let family = Family::load(&a.file)?;
    // Only what was given is checked against the file; the rest is the file's.
    let board = match &a.rules.board {
        Some(b) => BoardShape::parse(b)?,
        None => family.board,
    };
    let rules = a.rules.over(&family.rules);
    let pieces = match a.pieces.pieces.is_some() || !a.pieces.betza.is_empty() {
        true => Some(piece_set(&a.pieces)?),
        false => None,
    };
    family.require(&a.file.display().to_string(), board, &rules, pieces.as_ref())?;
    Ok(family)
}

fn side(stm: usize) -> &'static str {
    if stm == 0 {
        "White"
    } else {
        "Black"
    }
}

/// A value in words for text output: as the JSON says it, a one-sided table's "not won for White"
/// explained.
fn words(family: &Family, v: egt::Value) -> String {
    match describe_under(&family.rules, v) {
        w if w == NOT_WON_FOR_WHITE => format!("{w} (one-sided table)"),
        w => w,
    }
}

/// The text header of `probe` and `line`: the position, its table, the side to move and its value,
/// and how the game is over if it is.
fn header_text(family: &Family, r: &egt::probe::ProbeResult, stm: usize) -> String {
    let end = r.end.map_or(String::new(), |e| format!(": the game is over ({e})"));
    format!("{} ({} {}): {} to move, {}{end}", r.fen, r.material, r.metric, side(stm), words(family, r.value))
}

/// The text note after a move that converts: `(conversion to KR.K)`, with the game's end if any.
fn notes(conversion: Option<&str>, end: Option<&str>) -> String {
    let notes: Vec<String> =
        conversion.map(|c| format!("conversion to {c}")).into_iter().chain(end.map(str::to_string)).collect();
    if notes.is_empty() {
        String::new()
    } else {
        format!("  ({})", notes.join(", "))
    }
}

fn probe_command(a: &ProbeArgs, out: &mut impl Write) -> Result<()> {
    let family = load(a)?;
    let pos = parse_legal_fen(&family, &a.fen)?;
    let r = probe(&family, &pos);
    if a.json {
        writeln!(out, "{}", serde_json::to_string(&r)?)?;
        return Ok(());
    }
    writeln!(out, "{}", header_text(&family, &r, pos.stm))?;
    for m in &r.moves {
        let value = words(&family, m.value);
        match &m.conversion {
            Some(_) => writeln!(out, "  {:<10} {value:<12}{}", m.text, notes(m.conversion.as_deref(), None))?,
            None => writeln!(out, "  {:<10} {value}", m.text)?,
        }
    }
    Ok(())
}

/// `egt line --json`: the fields of `egt probe --json` in its order, with the line for the moves.
#[derive(Serialize)]
struct LineJson<'a> {
    material: &'a str,
    fen: &'a str,
    side_to_move: &'static str,
    metric: &'a str,
    value: &'a str,
    end: Option<&'static str>,
    line: Vec<LineMove<'a>>,
}

/// One move of `egt line --json`: a probe's move, the position after it and how the line ends.
#[derive(Serialize)]
struct LineMove<'a> {
    text: &'a str,
    uci: &'a str,
    value: &'a str,
    conversion: Option<&'a str>,
    fen: Option<&'a str>,
    end: Option<&'static str>,
}

/// `egt line`: the probe's header (the position, its side to move, value and metric), then the
/// moves; with `--json` one object holding both, shaped as `egt probe --json` with `line` for
/// `moves`.
fn line_command(a: &ProbeArgs, out: &mut impl Write) -> Result<()> {
    let family = load(a)?;
    let pos = parse_legal_fen(&family, &a.fen)?;
    let root = probe(&family, &pos);
    let moves = line(&family, &pos, a.max_plies);
    // How the line ends, on its last move: the royal captured, or the game over after it
    // (checkmate, stalemate, a bare king).
    let end = |i: usize, m: &ProbeMove| match &m.next {
        None => Some("royal captured"),
        Some(next) if i + 1 == moves.len() => game_over(&family, next),
        Some(_) => None,
    };
    if a.json {
        let line = moves
            .iter()
            .enumerate()
            .map(|(i, (m, fen))| LineMove {
                text: &m.text,
                uci: &m.uci,
                value: &m.value_text,
                conversion: m.conversion.as_deref(),
                fen: (!fen.is_empty()).then_some(fen.as_str()),
                end: end(i, m),
            })
            .collect();
        let doc = LineJson {
            material: &root.material,
            fen: &root.fen,
            side_to_move: root.side_to_move,
            metric: &root.metric,
            value: &root.value_text,
            end: root.end,
            line,
        };
        writeln!(out, "{}", serde_json::to_string(&doc)?)?;
        return Ok(());
    }
    writeln!(out, "{}", header_text(&family, &root, pos.stm))?;
    let mut stm = pos.stm;
    for (i, (m, fen)) in moves.iter().enumerate() {
        let notes = notes(m.conversion.as_deref(), end(i, m));
        let value = words(&family, m.value);
        writeln!(out, "{:>3}. {} {:<10} {value:<12} {fen}{notes}", i / 2 + 1, side(stm), m.text)?;
        stm = 1 - stm;
    }
    Ok(())
}

fn check_command(a: &CheckArgs, out: &mut impl Write) -> Result<()> {
    if a.samples == 0 {
        bail!("--samples 0: nothing would be checked; give at least 1 position per table");
    }
    let family = Family::load(&a.file)?;
    let mut bad = 0u64;
    for r in egt::probe::check(&family, a.samples, a.seed) {
        for (fen, got, want) in &r.mismatches {
            let (got, want) = (words(&family, *got), words(&family, *want));
            writeln!(out, "MISMATCH {} {fen}: stored {got}, moves give {want}", r.material)?;
        }
        writeln!(out, "{}: {} positions checked, {} disagree", r.material, r.checked, r.mismatch_count)?;
        bad += r.mismatch_count;
    }
    if bad > 0 {
        bail!("{bad} positions disagree with their moves");
    }
    writeln!(out, "all consistent")?;
    Ok(())
}
