//! The XBoard (CECP protocol 2) loop: variants by XBoard's names, `setup` for engine-defined
//! variants, clocks and levels, force mode, and the engine's `move` replies and result claims.
//!
//! Input is read on its own thread, so `?`, `force`, `ping` and `quit` are heard while the
//! engine thinks; every state change happens on the loop's thread, in the order events come.
//!
//! Readings worth knowing:
//! - Variant names: `chess` is `normal` and `crazyhouse` is `crazyhouse` (XBoard knows both);
//!   every other built-in variant is offered by its own name and, if its board is not 8x8,
//!   also as `WxH+P_parent` (Gardner: `5x5+0_fairy`). After `variant X` for a variant XBoard
//!   does not know, the engine describes it as Fairy-Stockfish does: `setup (PIECETOCHAR) WxH+P_parent
//!   FEN` and one `piece L& BETZA` line per piece (pawn double steps, en passant `fceF`, castling
//!   and drops as Betza suffixes), so XBoard can draw and check it. The Betza is written from the
//!   pieces' steps with explicit direction sets (Baby Chess's queen `fRsRfB`, not `fsQ`, which
//!   XBoard reads as its forward diagonals). What XBetza cannot say XBoard cannot check: Baby
//!   Chess's limit of five column switches (play it with `-testLegality false`: XBoard would
//!   refuse a frozen piece's limits and the stalemates they make), and the chance of coinflip,
//!   Probabilistic chess and SnowFall's gifts (every move is played as if it succeeded).
//! - Without `st`, a clock (`level`, `time`) or `sd`, the engine thinks one second per move;
//!   `sd` combines with either. `st N` is XBoard's clock for each move, which it flags: the
//!   engine keeps back the move overhead and a fiftieth of it (`st 2`: 1.94 s), and, as with a
//!   clock, counts from the command's arrival (ending a ponder search that missed takes time).
//! - `nps N` (N > 0, until `new` or `nps 0`) counts time in nodes: the time the engine would
//!   give a move (`st`, or its share of the clock) becomes a budget of that many seconds × N
//!   nodes, and the search is bounded by nodes alone (`nps 1` with `st 5000`: 5000 nodes, as
//!   python-chess asks for a node limit); thinking lines then give the time as nodes / N.
//! - `ping N` is answered at once, except while the engine thinks about its own move: then
//!   `pong N` follows the `move` (and the result claim) the earlier commands led to.
//! - Moves are taken with or without `usermove`, in coordinates or SAN. Bad input never ends
//!   the loop: `Error (unknown command): foo`, `Illegal move: e2e5` (for any word that reads
//!   as a move, bare or not),
//!   `tellusererror Illegal position: ...` (then, until a position is set, `go` gets `Error
//!   (illegal position: ...)` and moves `Illegal move`: the GUI's board is not the engine's), `Error (unknown
//!   variant): x`, `Error (bad holdings): ...`, `Error (bad argument): ...`.
//! - When a move ends the game by fairylab's rules and the engine is playing (not in force
//!   mode), it claims the result: `1-0 {White mates}`, `1/2-1/2 {Stalemate}`, ...
//! - A `setboard` FEN without the fields fairylab adds after the sixth (Probabilistic chess's
//!   square map, which XBoard neither sends nor keeps) takes them from the current position.
//! - `holding [PN] [b]` replaces both hands (crazyhouse from an ICS); `undo` takes back one
//!   ply, `remove` two. In chance variants every move is played as if it succeeded.
//! - At the end of input a running search finishes and its move is printed (a ponder search
//!   is stopped).
//! - `cores N` (advertised with `smp=1`) searches with N threads, as UCI's `Threads`.
//! - `hard` turns pondering on, `easy` off (off until `hard`; `new` keeps the setting). After
//!   its move the engine searches the position after the reply it expects, as UCI's `go
//!   ponder` does, with thinking lines (after `post`) that start with that reply. If the
//!   user plays it, the search goes on as the engine's own and its time counts from the
//!   start of the pondering, as Stockfish counts it, so a long ponder answers at once; any
//!   other move, `force`, `easy` and the like end it; an illegal move leaves it running. `?`
//!   does not apply to a ponder search.
//!   `hint` answers `Hint: M` with the expected reply, if there is one.
//! - `analyze` starts analysis mode: the engine searches the position until told otherwise and
//!   sends thinking lines (`depth score time nodes pv`, as with `post`) without moving; a move
//!   (`usermove`), `undo`, `setboard`, `holding` or `variant` restarts it on the new position,
//!   `exit` (or `new`, `quit`) ends it. `option MultiPV=N` (advertised as a spin option, 1 to 500)
//!   sends the N best lines of each depth.
//! - `option Move Overhead=N` (milliseconds, 0 to 5000, default 20) is kept back from the
//!   clock for the GUI's and the network's lag, and `option Skill Level=N` (0 to 20) weakens
//!   the play, as UCI's options of those names.
//! - `option VariantPath=FILES` loads fairylab variant files (`;`-separated), as UCI's option of
//!   that name and Fairy-Stockfish's: their variants are then played by their names (`variant
//!   X` answered with `setup` and `piece` lines), and a new `feature variants=...` line lists
//!   them; a file that does not load gets `tellusererror VariantPath: ...`. `fairylab xboard
//!   --variant-path FILES` loads them before `protover`, for GUIs that read the list once.
//!
//! ```
//! use std::io::Cursor;
//! let out = std::sync::Arc::new(std::sync::Mutex::new(Vec::<u8>::new()));
//! let input = Cursor::new("xboard\nprotover 2\nnew\nvariant gardner\nsd 2\ngo\n");
//! engine::xboard::run(input, out.clone()).unwrap();
//! let text = String::from_utf8(out.lock().unwrap().clone()).unwrap();
//! assert!(text.contains("feature ") && text.contains("\nmove "));
//! ```

use crate::engine::{Info, Report, SearchResult};
use crate::protocol::{self, pocket_size, send, template, uci_line, Output, Session, MAX_MULTIPV, MAX_THREADS};
use crate::score::Score;
use crate::time::{Limits, DEFAULT_OVERHEAD, MAX_OVERHEAD_MS};
use crate::{Engine, MAX_SKILL};
use rules::fen::ParseFenError;
use rules::outcome::{EndReason, Outcome};
use rules::uci::to_uci;
use rules::{variants, Color, Move, Position, Variant};
use std::io::{self, BufRead};
use std::sync::mpsc::{self, Sender};
use std::time::Duration;

/// Thinking time per move when the GUI set no time control and no depth.
const DEFAULT_MOVE_TIME: Duration = Duration::from_secs(1);

/// Runs the XBoard loop on `input` until `quit` or the end of input, writing to `output`.
///
/// # Errors
///
/// Writing the output failed (e.g. the GUI closed the pipe), or no input thread could start.
pub fn run<R: BufRead + Send + 'static>(input: R, output: Output) -> io::Result<()> {
    run_with(input, output, Vec::new())
}

/// [`run`] with custom variants loaded before the first command (`fairylab xboard
/// --variant-path`), as if `option VariantPath` had been set: they are in the `variants`
/// feature the GUI reads at `protover 2`.
///
/// # Errors
///
/// As [`run`].
pub fn run_with<R: BufRead + Send + 'static>(
    input: R,
    output: Output,
    custom: Vec<&'static Variant>,
) -> io::Result<()> {
    let (tx, rx) = mpsc::channel();
    let reader = tx.clone();
    std::thread::Builder::new().name("xboard-input".into()).spawn(move || {
        for line in protocol::lines(input) {
            let Ok(line) = line else { break };
            if reader.send(Event::Line(line)).is_err() {
                return;
            }
        }
        let _ = reader.send(Event::Eof);
    })?;
    let mut xb = XBoard::new(output, tx);
    xb.custom = custom;
    let mut input_ended = false;
    // The loop holds a sender itself (for the search), so `recv` only fails if that is gone.
    while let Ok(event) = rx.recv() {
        match event {
            Event::Line(line) => {
                if xb.handle(&line)? == Flow::Quit {
                    xb.abort();
                    return Ok(());
                }
            }
            Event::Eof => input_ended = true,
            Event::Report(id, report) => xb.report(id, report)?,
        }
        if input_ended && xb.pondering().is_some() {
            // Nobody will play the expected reply.
            xb.abort();
        }
        xb.flush_pongs()?;
        if input_ended && xb.search.is_none() {
            return Ok(());
        }
    }
    Ok(())
}

/// What the loop thread hears: input lines and search reports.
enum Event {
    Line(String),
    Eof,
    Report(u64, Report),
}

/// Whether the loop goes on after a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flow {
    Continue,
    Quit,
}

/// The time control and clocks the GUI sent.
#[derive(Debug, Clone, Copy, Default)]
struct Clock {
    /// Moves per session (`level`); 0 is the whole game.
    mps: u32,
    /// Base time of `level`.
    base: Option<Duration>,
    /// Increment per move.
    inc: Duration,
    /// Exact time per move (`st`).
    st: Option<Duration>,
    /// Depth limit (`sd`).
    sd: Option<u32>,
    /// The engine's and the opponent's clocks (`time`, `otim`).
    mine: Option<Duration>,
    theirs: Option<Duration>,
    /// Nodes per second (`nps N`, N > 0): time is counted in nodes.
    nps: Option<u64>,
}

/// A search in the background.
struct Running {
    id: u64,
    root: Position,
    /// Pondering: the opponent's reply searched after (the root is the position after it);
    /// `None` for the engine's own move or an analysis.
    ponder: Option<rules::Move>,
}

/// The state of one XBoard session.
struct XBoard {
    out: Output,
    events: Sender<Event>,
    engine: Engine,
    session: Session,
    /// In force mode the engine only records moves.
    force: bool,
    /// The side the engine plays when not in force mode.
    engine_color: Color,
    post: bool,
    clock: Clock,
    search: Option<Running>,
    next_id: u64,
    /// Analysis mode: search the position without end and never move.
    analyzing: bool,
    /// Pondering is on (`hard`).
    ponder: bool,
    /// The reply the engine expects in the current position (for `hint` and pondering).
    expected: Option<rules::Move>,
    /// How long the engine's last move took: its clock (`time`) is that much older.
    spent: Duration,
    /// `option Move Overhead=N`: kept back from the clock.
    overhead: Duration,
    /// The seed of `Skill Level`'s choices, drawn when the session starts.
    skill_seed: u64,
    /// Why the last `setboard` was refused: until a position is set again (`setboard`, `new`,
    /// `variant`), the engine neither moves nor takes moves (the GUI's board is not its own).
    refused: Option<String>,
    /// `pong N` answers held back until the move the engine is thinking about is sent.
    pongs: Vec<String>,
    /// The custom variants `option VariantPath` loaded.
    custom: Vec<&'static Variant>,
    /// When the command being handled was taken up: the GUI's clock runs from its move, so
    /// what the engine spends before its search starts (ending a ponder search that missed)
    /// counts against the move's time.
    received: std::time::Instant,
}

impl XBoard {
    fn new(out: Output, events: Sender<Event>) -> XBoard {
        XBoard {
            out,
            events,
            engine: Engine::new(),
            session: Session::new(variants::all()[0]),
            force: false,
            engine_color: Color::Black,
            post: false,
            clock: Clock::default(),
            search: None,
            next_id: 0,
            analyzing: false,
            ponder: false,
            expected: None,
            spent: Duration::ZERO,
            overhead: DEFAULT_OVERHEAD,
            skill_seed: protocol::session_seed(),
            refused: None,
            pongs: Vec::new(),
            custom: Vec::new(),
            received: std::time::Instant::now(),
        }
    }

    /// The start position of `v`, a position again after a refused one.
    fn start_over(&mut self, v: &'static rules::Variant) {
        self.session.reset(v);
        self.refused = None;
    }

    fn send(&self, line: &str) -> io::Result<()> {
        // Replies that echo the input are cut to a readable length.
        if ["Error", "Illegal move", "tellusererror", "telluser"].iter().any(|p| line.starts_with(p)) {
            return send(&self.out, &crate::protocol::elide(line));
        }
        send(&self.out, line)
    }

    /// The reply a running ponder search expects.
    fn pondering(&self) -> Option<rules::Move> {
        self.search.as_ref().and_then(|r| r.ponder)
    }

    /// Whether the engine is thinking about its own move (not pondering, not analysing).
    fn thinking(&self) -> bool {
        self.search.is_some() && self.pondering().is_none() && !self.analyzing
    }

    /// Sends the held-back `pong`s once the engine no longer thinks about its own move: after
    /// its move, or after the command that ended the search without one.
    fn flush_pongs(&mut self) -> io::Result<()> {
        if self.thinking() {
            return Ok(());
        }
        for pong in std::mem::take(&mut self.pongs) {
            self.send(&pong)?;
        }
        Ok(())
    }

    /// Ends a running search without playing its move.
    fn abort(&mut self) {
        if self.search.take().is_some() {
            self.engine.stop();
            self.engine.wait();
        }
    }

    fn handle(&mut self, line: &str) -> io::Result<Flow> {
        self.received = std::time::Instant::now();
        let line = line.trim();
        let (command, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        let args: Vec<&str> = rest.split_whitespace().collect();
        match command {
            // Accepted silently: nothing to do for an engine that does not talk.
            // After `rejected usermove` moves come bare, which are taken as well.
            "" | "xboard" | "accepted" | "rejected" | "computer" | "name" | "rating" | "random" | "ics" | "bk"
            | "draw" | "white" | "black" | "." => {}
            // From the engine's next move on.
            "hard" => self.ponder = true,
            "easy" => {
                self.ponder = false;
                if self.pondering().is_some() {
                    self.abort();
                }
            }
            "hint" => {
                if let Some(m) = self.expected.filter(|m| self.session.position().is_legal(*m)) {
                    self.send(&format!("Hint: {}", move_text(self.session.position(), m)))?;
                }
            }
            "post" => self.post = true,
            "nopost" => self.post = false,
            "edit" | "pause" | "resume" => self.send(&format!("Error (not supported): {command}"))?,
            "analyze" => {
                self.abort();
                self.analyzing = true;
                self.force = true;
                self.think()?;
            }
            "exit" => {
                if self.analyzing {
                    self.abort();
                    self.analyzing = false;
                }
            }
            "option" => self.option(rest)?,
            "protover" => self.features()?,
            // CECP: the pong comes after everything the commands before the ping led to, so
            // after the move the engine is thinking about (a ponder or analysis has none).
            "ping" if self.thinking() => self.pongs.push(format!("pong {rest}")),
            "ping" => self.send(&format!("pong {rest}"))?,
            "new" => {
                self.abort();
                self.analyzing = false;
                self.engine.clear();
                self.start_over(variants::all()[0]);
                self.force = false;
                self.engine_color = Color::Black;
                self.clock.sd = None;
                self.clock.mine = None;
                self.clock.theirs = None;
                // CECP: `new` goes back to the wall clock.
                self.clock.nps = None;
            }
            "variant" => self.variant(rest)?,
            "force" | "result" => {
                self.abort();
                self.force = true;
            }
            "go" => {
                self.abort();
                self.analyzing = false;
                self.force = false;
                self.engine_color = self.session.turn();
                self.think()?;
            }
            "playother" => {
                self.abort();
                self.analyzing = false;
                self.force = false;
                self.engine_color = !self.session.turn();
            }
            // Move now; a ponder search has no move to make yet.
            "?" => {
                if self.search.is_some() && self.pondering().is_none() {
                    self.engine.stop();
                }
            }
            "level" | "st" | "sd" | "time" | "otim" | "nps" => {
                if let Err(e) = self.time_control(command, &args) {
                    self.send(&format!("Error (bad argument): {line}: {e}"))?;
                }
            }
            "egtpath" => match (args.first(), args.get(1..)) {
                (Some(&"fairylab"), Some(paths)) if !paths.is_empty() => {
                    self.abort();
                    match crate::uci::load_tables(&paths.join(" ")) {
                        Ok(tb) => {
                            let what =
                                tb.as_ref().map_or("no endgame tables".to_string(), |t| crate::uci::describe_tables(t));
                            self.engine.set_tablebase(tb);
                            self.send(&format!("# {what}"))?;
                        }
                        Err(e) => self.send(&format!("Error (bad table file): {e}"))?,
                    }
                }
                _ => self.send(&format!("Error (unsupported table type, only fairylab): {line}"))?,
            },
            "cores" => {
                match args.first().and_then(|a| a.parse::<usize>().ok()).filter(|n| (1..=MAX_THREADS).contains(n)) {
                    // From the next search on: a running one keeps its threads and its move.
                    Some(n) => self.engine.set_threads(n),
                    None => self.send(&format!("Error (bad argument): {line}"))?,
                }
            }
            "memory" => match args.first().and_then(|a| a.parse::<usize>().ok()).filter(|&mb| mb >= 1) {
                Some(mb) => {
                    self.abort();
                    if let Err(e) = self.engine.try_set_hash(mb) {
                        self.send(&format!("Error (cannot allocate {mb} MB): {e}"))?;
                    }
                }
                None => self.send(&format!("Error (bad argument): {line}"))?,
            },
            "setboard" => {
                self.abort();
                let fen = complete_fen(rest, &self.session.position().fen());
                // A castling right or en-passant square the position cannot have is dropped
                // (said in a comment line, which the GUI ignores), as the UCI loop does.
                self.refused = match self.session.set_fen_lenient(&fen) {
                    Ok(dropped) => {
                        for what in dropped {
                            self.send(&format!("# setboard: {what}: ignored"))?;
                        }
                        None
                    }
                    Err(e) => {
                        self.send(&format!("tellusererror Illegal position: {}", reason(&e)))?;
                        Some(reason(&e))
                    }
                };
                self.reanalyze()?;
            }
            "holding" => self.holding(rest)?,
            "undo" | "remove" => {
                self.abort();
                self.session.undo(if command == "undo" { 1 } else { 2 });
                self.reanalyze()?;
            }
            "usermove" => self.user_move(rest)?,
            "quit" => return Ok(Flow::Quit),
            other => {
                // A bare move (protocol 1 style, or after `rejected usermove`): whatever reads as
                // a move is played or answered `Illegal move`, as `usermove` would be.
                if args.is_empty() && reads_as_move(other) {
                    self.user_move(other)?;
                } else {
                    self.send(&format!("Error (unknown command): {}", crate::protocol::shorten(other)))?;
                }
            }
        }
        Ok(Flow::Continue)
    }

    /// XBoard's names of the variants the engine plays: the built-ins', then the custom ones'.
    fn variant_list(&self) -> String {
        let mut names = Vec::new();
        for v in crate::protocol::sequential_variants() {
            // A board-size name shared by several variants (`5x5+0_fairy`) names the first.
            for name in xboard_names(v) {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
        // A custom variant goes by its own name only (the board-size names are the built-ins').
        names.extend(self.custom.iter().map(|v| v.name.clone()));
        names.join(",")
    }

    fn features(&self) -> io::Result<()> {
        // No `sigterm=0`: the GUIs send SIGTERM only to end the engine after `quit` (python-chess
        // rejects the feature), and ending is then what the engine should do. `sigint=0`: input
        // is read while thinking, so no interrupt is needed.
        self.send(&format!(
            "feature ping=1 setboard=1 usermove=1 san=0 time=1 draw=0 sigint=0 reuse=1 analyze=1 playother=1 \
             nps=1 colors=0 memory=1 smp=1 egt=\"fairylab\" option=\"MultiPV -spin 1 1 {MAX_MULTIPV}\" \
             option=\"Move Overhead -spin {} 0 {MAX_OVERHEAD_MS}\" \
             option=\"Skill Level -spin {MAX_SKILL} 0 {MAX_SKILL}\" option=\"VariantPath -string <empty>\" \
             myname=\"{}\" variants=\"{}\" done=1",
            DEFAULT_OVERHEAD.as_millis(),
            crate::NAME,
            self.variant_list()
        ))
    }

    fn variant(&mut self, name: &str) -> io::Result<()> {
        self.abort();
        let custom = self.custom.iter().copied().find(|v| v.name.eq_ignore_ascii_case(name.trim()));
        let Some(v) = custom.or_else(|| variant_from_xboard(name)) else {
            return self.send(&format!("Error (unknown variant): {name}"));
        };
        self.start_over(v);
        if !is_xboard_standard(v) {
            for line in setup_lines(v) {
                self.send(&line)?;
            }
        }
        self.reanalyze()
    }

    /// `option NAME=VALUE` for the options the engine advertised (`MultiPV`, `Move Overhead`,
    /// `Skill Level`, `VariantPath`).
    fn option(&mut self, rest: &str) -> io::Result<()> {
        match rest.split_once('=').map(|(n, v)| (n.trim(), v.trim())) {
            Some(("MultiPV", value)) => match value.parse::<usize>() {
                Ok(n) if (1..=MAX_MULTIPV).contains(&n) => {
                    // A search of the engine's move keeps its lines and still moves; an analysis
                    // starts again with the new number.
                    self.engine.set_multipv(n);
                    if self.analyzing && self.search.is_some() {
                        self.abort();
                        self.think()?;
                    }
                    Ok(())
                }
                _ => self.send(&format!("Error (bad argument): option {rest} (MultiPV is 1 to {MAX_MULTIPV})")),
            },
            Some(("Skill Level", value)) => match value.parse::<u8>() {
                // The seed of the handicap's choices: each session plays its own games.
                Ok(n) if n <= MAX_SKILL => {
                    self.engine.set_skill(n, self.skill_seed);
                    Ok(())
                }
                _ => self.send(&format!("Error (bad argument): option {rest} (Skill Level is 0 to {MAX_SKILL})")),
            },
            Some(("Move Overhead", value)) => match value.parse::<u64>() {
                Ok(ms) if ms <= MAX_OVERHEAD_MS => {
                    self.overhead = Duration::from_millis(ms);
                    Ok(())
                }
                _ => self
                    .send(&format!("Error (bad argument): option {rest} (Move Overhead is 0 to {MAX_OVERHEAD_MS} ms)")),
            },
            Some(("VariantPath", value)) => match protocol::load_variant_files(value) {
                Ok(loaded) => {
                    self.abort();
                    let before = self.custom.clone();
                    protocol::add_variants(&mut self.custom, loaded);
                    // The GUI learns the new list (XBoard reads features at any time).
                    self.send(&format!("feature variants=\"{}\"", self.variant_list()))?;
                    if let Some(next) = protocol::replaced_variant(self.session.variant(), &before, &self.custom) {
                        self.start_over(next);
                        if !is_xboard_standard(next) {
                            for line in setup_lines(next) {
                                self.send(&line)?;
                            }
                        }
                    }
                    self.reanalyze()
                }
                Err(e) => self.send(&format!("tellusererror VariantPath: {e}")),
            },
            _ => self.send(&format!("Error (unknown option): {rest}")),
        }
    }

    /// In analysis mode, searches the position as it now stands.
    fn reanalyze(&mut self) -> io::Result<()> {
        if self.analyzing {
            self.think()?;
        }
        Ok(())
    }

    fn time_control(&mut self, command: &str, args: &[&str]) -> Result<(), String> {
        let seconds = |text: Option<&&str>| -> Result<Duration, String> {
            let text = text.ok_or("missing number")?;
            let s: f64 = text.parse().map_err(|_| format!("bad number '{text}'"))?;
            if s.is_finite() && s >= 0.0 {
                Ok(Duration::from_secs_f64(s))
            } else {
                Err(format!("bad number '{text}'"))
            }
        };
        let centis = |text: Option<&&str>| -> Result<Duration, String> {
            let text = text.ok_or("missing number")?;
            // A clock may run below zero once the flag falls.
            let cs: i64 = text.parse().map_err(|_| format!("bad number '{text}'"))?;
            Ok(Duration::from_millis(cs.max(0) as u64 * 10))
        };
        match command {
            "level" => {
                if args.len() != 3 {
                    return Err("expected 'level MPS BASE INC'".into());
                }
                let mps: u32 = args[0].parse().map_err(|_| format!("bad number '{}'", args[0]))?;
                let base = match args[1].split_once(':') {
                    Some((m, s)) => {
                        let m: u64 = m.parse().map_err(|_| format!("bad time '{}'", args[1]))?;
                        let s: u64 = s.parse().map_err(|_| format!("bad time '{}'", args[1]))?;
                        Duration::from_secs(m * 60 + s)
                    }
                    None => seconds(args.get(1))? * 60,
                };
                let inc = seconds(args.get(2))?;
                self.clock = Clock { mps, base: Some(base), inc, st: None, ..self.clock };
            }
            "st" => self.clock.st = Some(seconds(args.first())?),
            "sd" => {
                let text = args.first().ok_or("missing depth")?;
                let d: u32 = text.parse().map_err(|_| format!("bad depth '{text}'"))?;
                self.clock.sd = Some(d.max(1));
            }
            "time" => self.clock.mine = Some(centis(args.first())?),
            "nps" => {
                let text = args.first().ok_or("missing number")?;
                let n: u64 = text.parse().map_err(|_| format!("bad number '{text}'"))?;
                self.clock.nps = (n > 0).then_some(n);
            }
            _ => self.clock.theirs = Some(centis(args.first())?),
        }
        Ok(())
    }

    /// `holding [WHITE] [BLACK]` (anything after the brackets is ignored).
    fn holding(&mut self, rest: &str) -> io::Result<()> {
        let parts: Vec<&str> = rest.split(['[', ']']).collect();
        // "[PN] [b]" splits into "", "PN", " ", "b", ...
        let (Some(white), Some(black)) = (parts.get(1), parts.get(3)) else {
            return self.send(&format!("Error (bad holdings): {rest}"));
        };
        let was_thinking = self.search.is_some();
        let pondered = self.pondering();
        self.abort();
        if let Err(e) = self.session.set_hands(white, black) {
            self.send(&format!("Error (bad holdings): {rest}: {}", reason(&e)))?;
        }
        // New hands (a gift, an ICS's holdings) restart the search on them.
        match pondered {
            Some(reply) => self.ponder_on(reply)?,
            None if was_thinking => self.think()?,
            None => {}
        }
        Ok(())
    }

    fn user_move(&mut self, text: &str) -> io::Result<()> {
        if self.refused.is_some() {
            return self.send(&format!("Illegal move (no legal position set): {text}"));
        }
        let pos = self.session.position();
        // Coordinates, else SAN: castling as XBoard writes it in fischerandom (`O-O`, `O-O-O`),
        // or a GUI that sends SAN though the engine asked for coordinates (`san=0`).
        let played = rules::uci::parse_uci(pos, text)
            .ok()
            .or_else(|| rules::san::parse_san(pos, text).ok())
            .filter(|m| pos.is_legal(*m));
        let pondered = self.pondering();
        if pondered.is_some() && played.is_none() {
            // Nothing was played: the ponder search goes on.
            return self.send(&format!("Illegal move: {text}"));
        }
        self.expected = None;
        if let Some(reply) = pondered.filter(|r| played == Some(*r)) {
            if self.session.play(reply).is_ok() {
                if let Some(o) = self.session.outcome() {
                    self.abort();
                    return self.send(&result_line(&o));
                }
                // A ponder hit: the search goes on as the engine's own.
                if let Some(r) = self.search.as_mut() {
                    r.ponder = None;
                }
                self.engine.ponderhit();
                return Ok(());
            }
        }
        self.abort();
        if played.is_none_or(|m| self.session.play(m).is_err()) {
            self.send(&format!("Illegal move: {text}"))?;
            return self.reanalyze();
        }
        if self.force {
            return self.reanalyze();
        }
        if let Some(o) = self.session.outcome() {
            return self.send(&result_line(&o));
        }
        if self.session.turn() == self.engine_color {
            self.think()?;
        }
        Ok(())
    }

    /// Starts thinking about the engine's move (or claims the result if the game is over); in
    /// analysis mode, analyses the position until stopped (nothing if the game is over).
    fn think(&mut self) -> io::Result<()> {
        if let Some(why) = &self.refused {
            return self.send(&format!("Error (illegal position: {why}): the engine waits for a legal setboard"));
        }
        if let Some(o) = self.session.outcome() {
            return if self.analyzing { Ok(()) } else { self.send(&result_line(&o)) };
        }
        let mut limits =
            if self.analyzing { Limits { infinite: true, ..Limits::default() } } else { self.limits(&self.session) };
        limits = self.less_time_spent(limits);
        let session = self.session.clone();
        self.start(&session, limits, None);
        Ok(())
    }

    /// `limits` less the time since the command came (a ponder search that missed takes a
    /// moment to end): the GUI's clock has run meanwhile. Node counts (`nps`) are exact.
    fn less_time_spent(&self, mut limits: Limits) -> Limits {
        if self.clock.nps.is_none() {
            let late = self.received.elapsed();
            let us = self.session.turn().index();
            limits.movetime = limits.movetime.map(|t| t.saturating_sub(late).max(Duration::from_millis(1)));
            limits.time[us] = limits.time[us].map(|t| t.saturating_sub(late));
        }
        limits
    }

    /// Starts a search of `session`'s position (`ponder`: the reply it comes after).
    fn start(&mut self, session: &Session, limits: Limits, ponder: Option<rules::Move>) {
        let limits = self.in_nodes(limits, session.turn());
        let id = self.next_id;
        self.next_id += 1;
        let pos = session.position().clone();
        let events = self.events.clone();
        self.search = Some(Running { id, root: pos.clone(), ponder });
        self.engine.start(pos, session.history(), limits, move |r| {
            // The loop may be gone (quit); then nobody needs the report.
            let _ = events.send(Event::Report(id, r));
        });
    }

    /// Ponders: searches the position after the opponent's `reply` (if it is legal and the
    /// game goes on after it) with the limits the engine will have there.
    fn ponder_on(&mut self, reply: rules::Move) -> io::Result<()> {
        let mut after = self.session.clone();
        if after.play(reply).is_err() || after.outcome().is_some() {
            return Ok(());
        }
        let mut limits = Limits { ponder: true, ..self.limits(&after) };
        // The clock the GUI last sent was read before the engine's move.
        let us = after.turn().index();
        if let Some(t) = limits.time[us] {
            limits.time[us] = Some(t.saturating_sub(self.spent) + self.clock.inc);
        }
        self.start(&after, limits, Some(reply));
        Ok(())
    }

    /// The search limits from the time control, for the side to move in `session`.
    fn limits(&self, session: &Session) -> Limits {
        let c = &self.clock;
        let mut limits = Limits { depth: c.sd, overhead: Some(self.overhead), ..Limits::default() };
        let us = session.turn();
        if let Some(st) = c.st {
            // XBoard flags a move that takes longer than `st`: its clock is the move's, so the
            // overhead and a fiftieth are kept back, as from a clock. Counted in nodes (`nps`),
            // `st` is exact.
            limits.movetime = Some(if c.nps.is_some() { st } else { st.saturating_sub(self.overhead + st / 50) });
        } else if c.mine.is_some() || c.base.is_some() {
            limits.time[us.index()] = c.mine.or(c.base);
            limits.time[(!us).index()] = c.theirs.or(c.base);
            limits.inc = [Some(c.inc); 2];
            if c.mps > 0 {
                let game = session.game();
                let first = usize::from(game.start().turn() == us);
                let ours = (game.moves().len() + first) / 2;
                limits.movestogo = Some(c.mps - (ours as u32 % c.mps));
            }
        } else if c.sd.is_none() {
            limits.movetime = Some(DEFAULT_MOVE_TIME);
        }
        limits
    }

    /// With `nps N`, the time `limits` give the side to move `us` as a node budget (seconds ×
    /// N), the search then bounded by nodes only: `st` exactly (CECP: `st 8` and `nps 10000`
    /// never search more than 80,000 nodes), a clock by the time the engine plans for the move
    /// (its soft budget, which it would otherwise pass only to finish an iteration). Limits
    /// without time (an analysis, a depth alone) are kept.
    fn in_nodes(&self, limits: Limits, us: Color) -> Limits {
        let Some(nps) = self.clock.nps else { return limits };
        let time = match (limits.movetime, limits.budget(us)) {
            (Some(st), _) => st,
            (None, Some((soft, _))) => soft,
            (None, None) => return limits,
        };
        let nodes = u64::try_from(time.as_micros() * u128::from(nps) / 1_000_000).unwrap_or(u64::MAX).max(1);
        Limits { nodes: Some(nodes), movetime: None, time: [None; 2], inc: [None; 2], movestogo: None, ..limits }
    }

    fn report(&mut self, id: u64, report: Report) -> io::Result<()> {
        let Some(running) = self.search.as_ref().filter(|r| r.id == id) else { return Ok(()) };
        match report {
            Report::Info(i) => {
                if self.post || self.analyzing {
                    // A ponder line starts with the reply it comes after, from the position shown.
                    let reply = running.ponder.map(|m| to_uci(self.session.position(), m));
                    // In `nps` mode time is counted in nodes, and reported so (CECP).
                    let mut i = i;
                    if let Some(nps) = self.clock.nps {
                        i.time = Duration::from_micros(i.nodes.saturating_mul(1_000_000) / nps.max(1));
                    }
                    self.send(&thinking_line(&running.root, &i, reply.as_deref()))?;
                }
            }
            Report::Done(r) => {
                let root = running.root.clone();
                self.search = None;
                self.engine.wait();
                // Analysis never moves.
                if !self.analyzing {
                    self.play_result(&root, &r)?;
                }
            }
        }
        Ok(())
    }

    /// Plays the searched move: `move M`, then the result if the game is over.
    fn play_result(&mut self, root: &Position, r: &SearchResult) -> io::Result<()> {
        let legal = root.legal_moves();
        let best = match r.best {
            Some(m) if root.is_legal(m) => Some(m),
            Some(m) => {
                // Never hand the GUI an illegal move: say so and play a legal one.
                self.send(&format!("telluser fairylab: the search returned an illegal move ({m:?})"))?;
                legal.first().copied()
            }
            None => legal.first().copied(),
        };
        let Some(m) = best else {
            if let Some(o) = self.session.outcome() {
                self.send(&result_line(&o))?;
            }
            return Ok(());
        };
        let text = move_text(root, m);
        if self.session.play(m).is_err() {
            return self.send(&format!("telluser fairylab: lost track of the position; {text} not played"));
        }
        self.send(&format!("move {text}"))?;
        // With `nps`, the clock runs in nodes.
        self.spent = match self.clock.nps {
            Some(nps) => Duration::from_secs_f64(r.nodes as f64 / nps as f64),
            None => r.time,
        };
        if let Some(o) = self.session.outcome() {
            return self.send(&result_line(&o));
        }
        self.expected = r.ponder.filter(|p| self.session.position().is_legal(*p));
        match self.expected {
            Some(reply) if self.ponder && !self.force && !self.analyzing => self.ponder_on(reply),
            _ => Ok(()),
        }
    }
}

/// The names XBoard may use for a variant: `normal` for chess, the name itself otherwise,
/// plus `WxH+P_parent` for boards other than 8x8.
fn xboard_names(v: &Variant) -> Vec<String> {
    if v.name == "chess" {
        return vec!["normal".into()];
    }
    if v.name == "chess960" {
        return vec!["fischerandom".into()];
    }
    let mut names = vec![v.name.clone()];
    if v.geometry.files() != 8 || v.geometry.ranks() != 8 {
        names.push(size_name(v));
    }
    names
}

/// `WxH+P_parent`, XBoard's name for a board size, holdings size and parent variant.
fn size_name(v: &Variant) -> String {
    format!("{}x{}+{}_{}", v.geometry.files(), v.geometry.ranks(), pocket_size(v), template(v))
}

/// Whether XBoard knows the variant by itself (no `setup` needed).
fn is_xboard_standard(v: &Variant) -> bool {
    matches!(v.name.as_str(), "chess" | "chess960" | "crazyhouse")
}

/// A move as the engine sends it: UCI notation, but Chess960 castling as `O-O` / `O-O-O`, as
/// XBoard expects in `fischerandom`.
fn move_text(pos: &Position, m: Move) -> String {
    match pos.castle_side(m) {
        Some(side) if pos.variant().castling.is_some_and(|c| c.chess960) => {
            if side == 0 { "O-O" } else { "O-O-O" }.to_string()
        }
        _ => to_uci(pos, m),
    }
}

/// The variant XBoard means by `name`.
fn variant_from_xboard(name: &str) -> Option<&'static Variant> {
    let name = name.trim();
    if name.eq_ignore_ascii_case("normal") {
        return variants::by_name("chess");
    }
    if name.eq_ignore_ascii_case("fischerandom") {
        return variants::by_name("chess960");
    }
    variants::by_name(name)
        .or_else(|| variants::all().iter().copied().find(|v| size_name(v) == name))
        .filter(|v| !v.simultaneous)
}

/// The XBoard piece slot of each piece, as in Fairy-Stockfish's `pieceToCharTable`: pawn,
/// knight, bishop, rook, queen first, the king last, other pieces in the free slots between.
fn piece_to_char(v: &Variant) -> String {
    const SLOTS: usize = 22;
    let mut table = ['.'; SLOTS];
    let mut others = Vec::new();
    for p in &v.pieces {
        let slot = if p.royal {
            Some(SLOTS - 1)
        } else if p.pawn {
            Some(0)
        } else {
            "pnbrq".find(p.letter)
        };
        match slot.filter(|&s| table[s] == '.') {
            Some(s) => table[s] = p.letter,
            None => others.push(p.letter),
        }
    }
    for letter in others {
        if let Some(slot) = table[..SLOTS - 1].iter().position(|&c| c == '.') {
            table[slot] = letter;
        }
    }
    let white: String = table.iter().map(|c| c.to_ascii_uppercase()).collect();
    let black: String = table.iter().collect();
    format!("{white}{black}")
}

/// `setup (PIECETOCHAR) WxH+P_parent FEN` and `piece L& BETZA` lines for a variant XBoard
/// does not know (pieces defined other than in Betza get no `piece` line).
fn setup_lines(v: &Variant) -> Vec<String> {
    // XBoard reads a FEN's six fields and cannot use more: the fields fairylab adds (Probabilistic
    // chess's square map) stay with the engine, which keeps them when XBoard's `setboard` comes
    // without them (`complete_fen`).
    let fen = v.start_fen.split_whitespace().take(6).collect::<Vec<_>>().join(" ");
    let mut lines = vec![format!("setup ({}) {} {fen}", piece_to_char(v), size_name(v))];
    for p in &v.pieces {
        let written =
            xbetza(&p.movement).or_else(|| rules::betza::parse_betza(&p.source).is_ok().then(|| p.source.clone()));
        let Some(mut betza) = written else { continue };
        if p.pawn && v.double_step[0] {
            betza.push_str("ifmnD");
        }
        // En passant: XBetza's `e` on the pawn's diagonal capture (`fceF`, as Fairy-Stockfish
        // writes it); without it XBoard refuses a legal en-passant capture as illegal.
        if p.pawn && v.en_passant {
            betza = betza.replacen("fcF", "fceF", 1);
        }
        // XBetza's `On` is castling with the king moving n squares towards the corner piece:
        // orthodox castling only. Chess960 castling (crazyhouse960) has no XBetza, so it is
        // left to XBoard, which castles Fischer-random style itself, as in `fischerandom`
        // (or with its -fischerCastling option); the engine writes it `O-O` / `O-O-O` there too.
        if p.royal {
            if let Some(c) = v.castling.filter(|c| !c.chess960) {
                betza.push_str(&format!("O{}", (c.king_to[0].abs_diff(c.king_to[1])) / 2));
            }
        }
        if v.drops {
            if p.pawn {
                betza.push_str(&format!("j@{}", v.geometry.ranks() - 1));
            } else {
                betza.push_str(&format!("@{}", v.geometry.ranks()));
            }
        }
        lines.push(format!("piece {}& {betza}", p.letter.to_ascii_uppercase()));
    }
    lines
}

/// A movement in XBetza as XBoard reads it, built from its atoms (one per direction) rather than
/// from the text it was defined by: each group of steps of one shape, range and mode is written
/// with explicit direction sets, orthogonal ones as a vertical and a horizontal token (`fWsW`),
/// never as the two-letter tokens dialects read differently (XBoard takes `fsK` and `fsQ` for
/// their forward diagonals alone, where fairylab, as Fairy-Stockfish for `W`, reads the forward
/// and sideways steps too; Baby Chess's pieces). `None` for a step XBetza has no letter for.
fn xbetza(m: &rules::movement::Movement) -> Option<String> {
    use rules::movement::Mode;
    // Groups in order of first appearance: (long, short, range, mode, initial, lame) and steps.
    type Key = (i8, i8, u8, Mode, bool, bool);
    let mut groups: Vec<(Key, Vec<(i8, i8)>)> = Vec::new();
    for a in m.atoms() {
        let (long, short) = (a.dx.abs().max(a.dy.abs()), a.dx.abs().min(a.dy.abs()));
        let key = (long, short, a.range, a.mode, a.initial, a.lame);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, steps)) => steps.push((a.dx, a.dy)),
            None => groups.push((key, vec![(a.dx, a.dy)])),
        }
    }
    let letter = |long: i8, short: i8, range: u8| -> Option<String> {
        let base = match (long, short) {
            (1, 0) => 'W',
            (1, 1) => 'F',
            (2, 0) => 'D',
            (2, 1) => 'N',
            (2, 2) => 'A',
            (3, 0) => 'H',
            (3, 1) => 'C',
            (3, 2) => 'Z',
            (3, 3) => 'G',
            _ => return None,
        };
        Some(match (base, range) {
            (_, 1) => base.to_string(),
            ('W', 0) => "R".into(),
            ('F', 0) => "B".into(),
            (_, 0) => format!("{base}{base}"),
            (_, n) => format!("{base}{n}"),
        })
    };
    // The direction tokens of a group's steps (empty: all of them).
    let directions = |long: i8, short: i8, steps: &[(i8, i8)]| -> Vec<String> {
        let has = |v: (i8, i8)| steps.contains(&v);
        let all = rules::movement::eight_fold(long, short);
        if all.iter().all(|&v| has(v)) {
            return vec![String::new()];
        }
        let pick = |pairs: &[(&str, &[(i8, i8)])]| -> Vec<String> {
            let mut out = Vec::new();
            let mut covered: Vec<(i8, i8)> = Vec::new();
            for (name, vs) in pairs {
                if vs.iter().all(|&v| has(v)) && vs.iter().any(|v| !covered.contains(v)) {
                    out.push((*name).to_string());
                    covered.extend_from_slice(vs);
                }
            }
            out
        };
        let (a, b) = (long, short);
        if short == 0 {
            // Orthogonal: a vertical token and a horizontal one.
            let vertical = match (has((0, a)), has((0, -a))) {
                (true, true) => "v",
                (true, false) => "f",
                (false, true) => "b",
                _ => "",
            };
            let horizontal = match (has((a, 0)), has((-a, 0))) {
                (true, true) => "s",
                (true, false) => "r",
                (false, true) => "l",
                _ => "",
            };
            [vertical, horizontal].iter().filter(|t| !t.is_empty()).map(|t| (*t).to_string()).collect()
        } else if a == b {
            pick(&[
                ("f", &[(a, a), (-a, a)]),
                ("b", &[(a, -a), (-a, -a)]),
                ("fr", &[(a, a)]),
                ("fl", &[(-a, a)]),
                ("br", &[(a, -a)]),
                ("bl", &[(-a, -a)]),
            ])
        } else {
            // Oblique: the pairs dialects agree on; a single step (a chiral piece) has no
            // token they agree on, so such a piece keeps the text it was defined by.
            let tokens = pick(&[
                ("ff", &[(b, a), (-b, a)]),
                ("fs", &[(a, b), (-a, b)]),
                ("bb", &[(b, -a), (-b, -a)]),
                ("bs", &[(a, -b), (-a, -b)]),
            ]);
            let covered = |v: &(i8, i8)| {
                let pair = |t: &str| match t {
                    "ff" => v.1 == a,
                    "fs" => v.1 == b,
                    "bb" => v.1 == -a,
                    _ => v.1 == -b,
                };
                tokens.iter().any(|t| pair(t))
            };
            if !steps.iter().all(covered) {
                return Vec::new();
            }
            tokens
        }
    };
    let mut tokens: Vec<String> = Vec::new();
    for ((long, short, range, mode, initial, lame), steps) in &groups {
        let atom = letter(*long, *short, *range)?;
        let mode_text = match mode {
            Mode::Move => "m",
            Mode::Capture => "c",
            Mode::Both => "",
        };
        let dirs = directions(*long, *short, steps);
        if dirs.is_empty() {
            return None;
        }
        for d in dirs {
            let text =
                format!("{}{d}{mode_text}{}{atom}", if *initial { "i" } else { "" }, if *lame { "n" } else { "" });
            tokens.push(text);
        }
    }
    // The king and the queen by their letters, as XBoard's own pieces are written.
    let mut text: String = tokens.concat();
    for (pair, short) in [("WF", "K"), ("RB", "Q")] {
        if text == pair {
            text = short.to_string();
        }
    }
    Some(text)
}

/// `fen` with the fields after the sixth taken from `current` when it has only six (XBoard
/// keeps no more; Probabilistic chess's square map is the seventh), else `fen` as it is.
fn complete_fen(fen: &str, current: &str) -> String {
    let extra: Vec<&str> = current.split_whitespace().skip(6).collect();
    if fen.split_whitespace().count() != 6 || extra.is_empty() {
        return fen.to_string();
    }
    format!("{} {}", fen.trim(), extra.join(" "))
}

/// Whether `text` has the shape of a move, legal or not: coordinates (`e2e4`, `e7e8q`, `P@e4`,
/// `0000`), castling (`O-O`) or SAN (`Nf3`, `exd5`, `e8=Q+`, `@e4`). Such a word is answered
/// `Illegal move` when it is not legal; any other unknown word is an unknown command.
fn reads_as_move(text: &str) -> bool {
    if rules::uci::UciMove::parse(text).is_ok() {
        return true;
    }
    let t = text.trim_end_matches(['+', '#', '!', '?']);
    if !t.is_ascii() {
        return false;
    }
    if matches!(t, "O-O" | "O-O-O" | "0-0" | "0-0-0") {
        return true;
    }
    // An optional piece letter, then a drop (`@e4`) or [file][rank][x]square[=piece].
    let rest = t.strip_prefix(|c: char| c.is_ascii_uppercase()).unwrap_or(t);
    if let Some(square) = rest.strip_prefix('@') {
        return rules::Square::parse(square).is_some();
    }
    let rest = match rest.split_once('=') {
        Some((head, piece)) if piece.len() == 1 && piece.chars().all(|c| c.is_ascii_alphabetic()) => head,
        Some(_) => return false,
        // A promotion without '=' (`e8Q`).
        None if rest.len() > 2 => rest.strip_suffix(|c: char| c.is_ascii_uppercase()).unwrap_or(rest),
        None => rest,
    };
    let Some(split) = rest.len().checked_sub(2) else { return false };
    let (from, to) = rest.split_at(split);
    let from = from.strip_suffix('x').unwrap_or(from);
    let file = from.strip_prefix(|c: char| ('a'..='h').contains(&c)).unwrap_or(from);
    let rank = file.strip_prefix(|c: char| ('1'..='8').contains(&c)).unwrap_or(file);
    rules::Square::parse(to).is_some() && rank.is_empty()
}

/// The result claim for a finished game.
fn result_line(o: &Outcome) -> String {
    let reason = match *o {
        Outcome::Decisive { winner, reason: EndReason::Checkmate } => format!("{} mates", side_name(winner)),
        Outcome::Decisive { winner, reason: EndReason::KingCaptured } => {
            format!("{} captures the king", side_name(winner))
        }
        Outcome::Decisive { winner, .. } => format!("{} wins", side_name(winner)),
        Outcome::Draw { reason: EndReason::Stalemate } => "Stalemate".into(),
        Outcome::Draw { reason: EndReason::FiftyMoves } => "Draw by fifty-move rule".into(),
        Outcome::Draw { reason: EndReason::Repetition } => "Draw by repetition".into(),
        Outcome::Draw { reason: EndReason::InsufficientMaterial } => "Insufficient material".into(),
        Outcome::Draw { .. } => "Draw".into(),
    };
    format!("{} {{{reason}}}", o.result())
}

/// Why a FEN or holdings failed, without repeating "illegal position".
fn reason(e: &ParseFenError) -> String {
    match e {
        ParseFenError::Illegal(p) => p.to_string(),
        other => other.to_string(),
    }
}

fn side_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// A `post` line: depth, score in centipawns (mates as ±(100000 + moves)), time in
/// centiseconds, nodes and the principal variation (after the move `before`, when given).
fn thinking_line(root: &Position, i: &Info, before: Option<&str>) -> String {
    let score = match i.score {
        Score::Cp(cp) => cp,
        Score::Mate(m) if m >= 0 => 100_000 + m,
        Score::Mate(m) => -100_000 + m,
    };
    let pv = uci_line(root, &i.pv);
    let pv = before.map_or(pv.clone(), |m| format!("{m} {pv}"));
    format!("{} {} {} {} {}", i.depth, score, i.time.as_millis() / 10, i.nodes, pv.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gardner_is_described_like_fairy_stockfish() {
        let g = variants::by_name("gardner").unwrap();
        assert_eq!(xboard_names(g), vec!["gardner".to_string(), "5x5+0_fairy".to_string()]);
        assert_eq!(variant_from_xboard("5x5+0_fairy").map(|v| v.name.as_str()), Some("gardner"));
        assert_eq!(variant_from_xboard("normal").map(|v| v.name.as_str()), Some("chess"));
        let lines = setup_lines(g);
        assert_eq!(
            lines[0],
            "setup (PNBRQ................Kpnbrq................k) 5x5+0_fairy rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1"
        );
        assert!(lines.contains(&"piece P& fmWfcF".to_string()));
        let chess = variants::by_name("chess").unwrap();
        assert!(setup_lines(chess).contains(&"piece K& KO2".to_string()));
        // En passant as Fairy-Stockfish writes it.
        assert!(setup_lines(chess).contains(&"piece P& fmWfceFifmnD".to_string()));
    }

    #[test]
    fn chess960_is_fischerandom_and_castles_as_o_o() {
        let v = variants::by_name("chess960").unwrap();
        assert_eq!(xboard_names(v), vec!["fischerandom".to_string()]);
        assert_eq!(variant_from_xboard("fischerandom").map(|v| v.name.as_str()), Some("chess960"));
        let pos =
            Position::from_fen(v, "b1rb1nk1/1p3p2/p3pnpp/2ppB3/1P3P2/2PPN1P1/P3P2P/1QRBN1KR w KQq - 0 11").unwrap();
        let castle = rules::uci::parse_uci(&pos, "g1h1").unwrap();
        assert_eq!(move_text(&pos, castle), "O-O");
        let plain = rules::uci::parse_uci(&pos, "e1f3").unwrap();
        assert_eq!(move_text(&pos, plain), "e1f3");
        // Orthodox chess keeps the king's move.
        let chess = variants::by_name("chess").unwrap();
        let pos = Position::from_fen(chess, "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1").unwrap();
        assert_eq!(move_text(&pos, rules::uci::parse_uci(&pos, "e1c1").unwrap()), "e1c1");
    }

    /// Runs the loop on `input` to its end: the lines it wrote.
    fn session(input: &str) -> Vec<String> {
        let out = std::sync::Arc::new(std::sync::Mutex::new(Vec::<u8>::new()));
        run(std::io::Cursor::new(input.to_string()), out.clone()).unwrap();
        let text = String::from_utf8(out.lock().unwrap().clone()).unwrap();
        text.lines().map(str::to_string).collect()
    }

    /// `st` is XBoard's clock for the move: the overhead and a fiftieth are kept back (before,
    /// a move took the whole `st` and XBoard flagged it); counted in nodes it is exact.
    #[test]
    fn st_keeps_a_margin_for_the_gui() {
        let mut xb = XBoard::new(protocol::output(Vec::new()), mpsc::channel().0);
        let session = xb.session.clone();
        xb.time_control("st", &["2"]).unwrap();
        assert_eq!(xb.limits(&session).movetime, Some(Duration::from_millis(2000 - 20 - 40)));
        xb.option("Move Overhead=300").unwrap();
        xb.time_control("st", &["1"]).unwrap();
        assert_eq!(xb.limits(&session).movetime, Some(Duration::from_millis(1000 - 300 - 20)));
        xb.option("Move Overhead=5000").unwrap();
        let (_, hard) = xb.limits(&session).budget(Color::White).unwrap();
        assert_eq!(hard, Duration::from_millis(1), "more overhead than time: a moment");
        // What went before the search (ending a ponder search that missed) is off the move's time.
        xb.option("Move Overhead=20").unwrap();
        xb.time_control("st", &["2"]).unwrap();
        xb.received = std::time::Instant::now() - Duration::from_millis(300);
        let t = xb.less_time_spent(xb.limits(&session)).movetime.unwrap();
        assert!(t <= Duration::from_millis(1940 - 300), "{t:?}");
        xb.clock.st = None;
        xb.time_control("time", &["1000"]).unwrap();
        let left = xb.less_time_spent(xb.limits(&session)).time[Color::White.index()].unwrap();
        assert!(left <= Duration::from_millis(10_000 - 300), "{left:?}");
    }

    /// Pieces are written in XBetza from their steps: Baby Chess's forward-and-sideways pieces
    /// as XBoard reads them (it takes `fsQ` for the forward diagonals alone), the pawn's en
    /// passant as `fceF`, a chiral piece as it was defined.
    #[test]
    fn pieces_are_written_as_xboard_reads_them() {
        let lines = |name: &str| setup_lines(variants::by_name(name).unwrap());
        let baby = lines("baby");
        for piece in
            ["piece P& fmWfcF", "piece N& ffNfsN", "piece B& fB", "piece R& fRsR", "piece Q& fRsRfB", "piece K& fWsWfF"]
        {
            assert!(baby.contains(&piece.to_string()), "{piece} in {baby:?}");
        }
        assert!(lines("coinflip").contains(&"piece P& fmWfceFifmnD".to_string()), "{:?}", lines("coinflip"));
        assert!(lines("snowfall").contains(&"piece P& fmWfceFifmnDj@7".to_string()), "{:?}", lines("snowfall"));
        assert!(lines("gardner").contains(&"piece P& fmWfcF".to_string()), "no en passant in Gardner");
        let chiral = rules::spec::load_variant_str(
            "name = \"c\"\nparent = \"chess\"\nstart = \"rnbqkbyr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBYR w KQkq - 0 1\"\n[[piece]]\nletter = \"y\"\nname = \"y\"\nbetza = \"rNlF\"\n",
        )
        .unwrap();
        assert!(setup_lines(chiral).contains(&"piece Y& rNlF".to_string()), "{:?}", setup_lines(chiral));
    }

    #[test]
    fn nps_turns_the_time_into_nodes() {
        let mut xb = XBoard::new(protocol::output(Vec::new()), mpsc::channel().0);
        let session = xb.session.clone();
        // `st 5000` with `nps 1` (python-chess's node limit): 5000 nodes, no time limit.
        xb.time_control("st", &["5000"]).unwrap();
        xb.time_control("nps", &["1"]).unwrap();
        let limits = xb.in_nodes(xb.limits(&session), Color::White);
        assert_eq!((limits.nodes, limits.movetime, limits.budget(Color::White)), (Some(5000), None, None));
        // A clock: the time the engine plans for the move, in nodes.
        xb.clock.st = None;
        xb.time_control("level", &["40", "5", "0"]).unwrap();
        xb.time_control("nps", &["1000"]).unwrap();
        let timed = xb.limits(&session);
        let (soft, _) = timed.budget(Color::White).unwrap();
        let limits = xb.in_nodes(timed, Color::White);
        assert_eq!(limits.nodes, Some(soft.as_millis() as u64));
        assert_eq!((limits.time, limits.inc, limits.movestogo), ([None; 2], [None; 2], None));
        // `nps 0`: the wall clock again; a depth alone or an analysis has no time to convert.
        xb.time_control("nps", &["0"]).unwrap();
        assert_eq!(xb.in_nodes(timed, Color::White), timed);
        xb.time_control("nps", &["10"]).unwrap();
        let infinite = Limits { infinite: true, ..Limits::default() };
        assert_eq!(xb.in_nodes(infinite, Color::White), infinite);
        assert!(xb.time_control("nps", &["-1"]).is_err());
    }

    #[test]
    fn a_ping_while_thinking_is_answered_after_the_move() {
        let out = session("xboard\nprotover 2\nnew\nst 0.3\ngo\nping 7\n");
        let at = |prefix: &str| out.iter().position(|l| l.starts_with(prefix));
        let (mv, pong) = (at("move "), at("pong 7"));
        assert!(mv.is_some() && pong.is_some() && mv < pong, "{out:?}");
        // In force mode (nothing to think about) the pong comes at once.
        assert_eq!(session("xboard\nforce\nping 3\n"), vec!["pong 3".to_string()]);
    }

    #[test]
    fn words_that_read_as_moves_are_illegal_moves() {
        for m in
            ["e1e2", "e7e8q", "P@e4", "0000", "O-O", "O-O-O+", "Nf3", "exd5", "e8=Q#", "e8Q", "Nbd7", "R1a3", "@e4"]
        {
            assert!(reads_as_move(m), "{m}");
        }
        for w in ["foo", "Hello", "book", "e", "ab12", "e9", "Nf3x", "e8=QQ", "é4"] {
            assert!(!reads_as_move(w), "{w}");
        }
        let out = session("xboard\nprotover 2\nrejected usermove\nnew\nforce\ne1e2\nfoo\ne2e4\nNf6\nping 1\n");
        assert_eq!(out[1..], ["Illegal move: e1e2", "Error (unknown command): foo", "pong 1"]);
    }

    #[test]
    fn the_feature_line_declares_what_the_engine_does() {
        let out = session("xboard\nprotover 2\n");
        let features = &out[0];
        for f in [" ping=1 ", " playother=1 ", " nps=1 ", " usermove=1 "] {
            assert!(features.contains(f), "{f} in {features}");
        }
        assert!(!features.contains("sigterm"), "{features}");
    }

    #[test]
    fn setups_are_what_xboard_reads() {
        // Chess960 castling has no XBetza: the king gets none, XBoard castles Fischer-random style.
        let zh960 = setup_lines(variants::by_name("crazyhouse960").unwrap());
        assert!(zh960.contains(&"piece K& K@8".to_string()), "{zh960:?}");
        assert!(setup_lines(variants::by_name("crazyhouse").unwrap()).contains(&"piece K& KO2@8".to_string()));
        // Probabilistic chess: a six-field FEN, the square map stays with the engine.
        let prob = variants::by_name("probabilistic").unwrap();
        assert!(prob.start_fen.split_whitespace().count() > 6);
        let setup = &setup_lines(prob)[0];
        assert!(setup.ends_with(" 8x8+0_fairy rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"), "{setup}");
        let six = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1";
        assert_eq!(complete_fen(six, &prob.start_fen), format!("{six} {}", prob.start_fen.split(' ').nth(6).unwrap()));
        assert_eq!(complete_fen(six, "8/8/8/8/8/8/8/8 w - - 0 1"), six);
        let out = session(&format!("xboard\nnew\nvariant probabilistic\nsetboard {six}\nsd 1\ngo\n"));
        assert!(out.last().is_some_and(|l| l.starts_with("move ")), "{out:?}");
    }

    #[test]
    fn results_name_the_reason() {
        let mate = Outcome::Decisive { winner: Color::White, reason: EndReason::Checkmate };
        assert_eq!(result_line(&mate), "1-0 {White mates}");
        assert_eq!(result_line(&Outcome::Draw { reason: EndReason::Stalemate }), "1/2-1/2 {Stalemate}");
    }
}
