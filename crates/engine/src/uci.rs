//! The UCI protocol loop with Fairy-Stockfish's variant conventions (`UCI_Variant`, drops as
//! `P@e4`, FENs with pockets and any board size), driving the [`Engine`] in the background.
//!
//! Commands: `uci`, `isready`, `setoption` (`Hash`, `Threads`, `Clear Hash`, `Ponder`, `Move
//! Overhead`, `Skill Level`, `MultiPV`, `TablePath`, `VariantPath`, `UCI_Variant`, `SnowFall`,
//! `UCI_Chess960`),
//! `ucinewgame`, `position startpos|fen ... [moves ...]`, `go` (`wtime btime winc binc
//! movestogo movetime nodes depth mate infinite ponder searchmoves`, and `go perft N`), `stop`,
//! `ponderhit`, `quit`, and `d` (a diagram with the FEN).
//!
//! Readings worth knowing:
//! - Bad input never ends the loop: it gets one `info string error: ...` line. After a bad FEN
//!   there is no position: `go` answers `bestmove (none)` until the next `position` (a move of
//!   the previous position would be illegal on the GUI's board); an illegal move in `position
//!   ... moves` keeps the position reached before it (as Stockfish); a `go` that does not read
//!   is answered after a search to depth 1 (the GUI waits for its `bestmove`), but `go perft`
//!   with a bad depth counts nothing. `go mate N` searches until it has a mate in at most N
//!   moves (or is stopped), as Stockfish's. A clock for the opponent only, or increments or
//!   `movestogo` alone, count as no time left for the engine (as Fairy-Stockfish reads them).
//!   `setoption` during `go infinite` or `go ponder` is ignored with an error.
//! - After `setoption name UCI_Variant value X` the position is X's start position and the
//!   engine prints Fairy-Stockfish's line `info string variant X files F ranks R pocket P
//!   template T startpos FEN` (pocket as Fairy-Stockfish counts it: every piece kind of a drop
//!   variant, 6 for crazyhouse).
//! - `VariantPath` loads custom variants, as Fairy-Stockfish's option loads a variants.ini: its
//!   value is fairylab variant files (TOML, docs/FORMATS.md "Variant files"), `;`-separated
//!   (`<empty>`: none). Each file's variant is then a `UCI_Variant` value (the list of a later
//!   `uci` includes them), and an `info string` line names all loaded. Files add to those loaded
//!   before, one of a loaded name replacing it, as Fairy-Stockfish adds; `<empty>` clears them.
//!   A file that does not load gets its error line and nothing changes; a variant of
//!   simultaneous plies is refused.
//! - `go ponder ...` searches the position after the expected reply without a time limit
//!   and gives no move until `ponderhit` or `stop`. At `ponderhit` the limits of that `go`
//!   apply, counted from the `go` as Stockfish counts them: a search that has pondered past
//!   its budget answers at once, one that has not goes on to it. `stop` answers at once (the
//!   GUI ignores that move when the reply was not the one pondered on). `Ponder` is
//!   advertised so that GUIs enable it; its value changes nothing in the engine.
//! - A `go`, `ucinewgame` or table change during a search stops that search first (it prints
//!   its `bestmove`); `position` and `isready` do not disturb it.
//! - At the end of input a running search finishes and prints its move, so `echo "go depth 6" |
//!   fairylab uci` answers; a search that would only end at `stop` (`go infinite`, or no limit
//!   for the side to move) is stopped, and so is one whose output finds the pipe closed (the
//!   GUI is gone). `quit` stops at once.
//! - A bound's `info` line (`lowerbound`, `upperbound`) repeats its line's last `pv`, and a
//!   search stopped in the middle of an iteration ends with an `info` line of its true totals
//!   before `bestmove`, as Stockfish's do. A root move that beat the last completed depth's
//!   best in that iteration is played, and the line gives its own score (`lowerbound` where it
//!   failed high) and line, with its ponder move. `movestogo 0` is none given; `go perft` counts to
//!   depth 64 at most.
//! - `Threads N` searches with N threads (Lazy SMP: helpers share the table; the result is then
//!   not reproducible node for node); MultiPV searches on one thread.
//! - `Skill Level L` (0 to 20, default 20: full strength) weakens the play as Stockfish's
//!   option does: depth at most `1 + L`, at least 4 lines, and one of them chosen at random
//!   with the worse ones favoured more the lower the level (`Engine::set_skill`).
//! - `Move Overhead N` (milliseconds, 0 to 5000, default 20) is kept back from the clock for
//!   the GUI's and the network's lag, as in Stockfish; `go movetime` is not shortened by it.
//! - `MultiPV N` reports the N best lines of each iteration as `info ... multipv K ...` (every
//!   line costs about one more search); `go searchmoves m1 m2 ...` searches only those root
//!   moves: one that is not legal gets an `info string error` and is left out, and if none is
//!   legal all moves are searched.
//! - `UCI_Chess960 true` plays chess as Chess960 (`UCI_Variant chess960` does too): FENs may
//!   put king and rooks on any files (castling field `KQkq`, X-FEN or Shredder-FEN letters), and
//!   castling is written, read and reported as the king taking its own rook (`e1h1`).
//! - In chance variants the moves of `position` are played as if they succeeded; in SnowFall
//!   (option `SnowFall`, the gift percentage) no gift arrives with them. Gifts reach the engine
//!   as the hands of `position fen ...[hands] ...`: the referee sends the FEN after each gift
//!   (the protocol extension; without gifts `position startpos moves ...` is enough). Setting
//!   `SnowFall` while the variant is SnowFall resets the position to the start.
//!
//! ```
//! use std::io::Cursor;
//! let out = std::sync::Arc::new(std::sync::Mutex::new(Vec::<u8>::new()));
//! let input = Cursor::new("uci\nposition startpos moves e2e4\ngo depth 2\n");
//! engine::uci::run(input, out.clone()).unwrap();
//! let text = String::from_utf8(out.lock().unwrap().clone()).unwrap();
//! assert!(text.contains("uciok") && text.contains("bestmove "));
//! ```

use crate::engine::{Info, Report, SearchResult};
use crate::protocol::{self, parse_number, send, uci_line, variant_by_name, Output, Session, MAX_MULTIPV, MAX_THREADS};
use crate::time::{Limits, DEFAULT_OVERHEAD, MAX_OVERHEAD_MS};
use crate::tt::DEFAULT_MB;
use crate::{Engine, MAX_SKILL};
use rules::perft::{divide_until, perft};
use rules::uci::to_uci;
use rules::{variants, Position};
use std::io::{self, BufRead};
use std::time::Duration;

/// The largest `Hash` value accepted, in MiB.
const MAX_HASH_MB: usize = 65536;

/// The deepest `go perft` counted (deeper would never end, and its recursion would not fit the
/// stack).
const MAX_PERFT_DEPTH: u32 = 64;

/// Runs the UCI loop on `input` until `quit` or the end of input, writing replies to `output`.
///
/// # Errors
///
/// Reading the input or writing the output failed (e.g. the GUI closed the pipe).
pub fn run<R: BufRead>(input: R, output: Output) -> io::Result<()> {
    run_with(input, output, Vec::new())
}

/// [`run`] with custom variants loaded before the first command (`fairylab uci --variant-path`),
/// as if `VariantPath` had been set: they are in the `UCI_Variant` list of the first `uci`.
///
/// # Errors
///
/// As [`run`].
pub fn run_with<R: BufRead>(input: R, output: Output, custom: Vec<&'static rules::Variant>) -> io::Result<()> {
    let mut uci = Uci::new(output);
    uci.custom = custom;
    for line in protocol::lines(input) {
        if uci.handle(&line?)? == Flow::Quit {
            return Ok(());
        }
    }
    uci.finish_search();
    Ok(())
}

/// Whether the loop goes on after a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flow {
    Continue,
    Quit,
}

/// What `go` asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Go {
    /// The limits and the `searchmoves` (as written).
    Search(Limits, Vec<String>),
    Perft(u32),
}

/// The state of one UCI session.
struct Uci {
    out: Output,
    engine: Engine,
    session: Session,
    /// Whether the running search (if any) only ends at `stop`: `go infinite`, or a `go`
    /// with no limit for the side to move.
    endless: bool,
    /// The seed of `Skill Level`'s choices, drawn when the session starts.
    skill_seed: u64,
    /// What `endless` becomes at `ponderhit` (the `go ponder` limits without the pondering).
    endless_after_hit: bool,
    /// The `SnowFall` option: the gift percentage SnowFall games use.
    snowfall: u8,
    /// `UCI_Chess960`: chess is played as Chess960 (FENs with any castling files, castling
    /// written as the king taking its rook).
    chess960: bool,
    /// The custom variants `VariantPath` loaded.
    custom: Vec<&'static rules::Variant>,
    /// `Move Overhead`: kept back from the clock.
    overhead: Duration,
    /// A `go perft` counting on its own thread, and the flag that stops it (`stop`, `quit`).
    perft: Option<(std::thread::JoinHandle<()>, std::sync::Arc<std::sync::atomic::AtomicBool>)>,
    /// Set by the search's reports when the output is closed (the GUI is gone).
    closed: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// Why the last `position` was refused: until a position is set again (`position`,
    /// `ucinewgame`, `UCI_Variant`), `go` answers `bestmove (none)` rather than a move of a
    /// position the GUI did not send.
    refused: Option<String>,
}

impl Uci {
    fn new(out: Output) -> Uci {
        let chess = variants::all()[0];
        Uci {
            out,
            engine: Engine::with_hash(DEFAULT_MB),
            session: Session::new(chess),
            endless: false,
            endless_after_hit: false,
            skill_seed: protocol::session_seed(),
            snowfall: variants::snowfall::DEFAULT_PERCENT,
            chess960: false,
            custom: Vec::new(),
            overhead: DEFAULT_OVERHEAD,
            perft: None,
            closed: Default::default(),
            refused: None,
        }
    }

    /// The start position of `v`, a position again after a refused one.
    fn start_over(&mut self, v: &'static rules::Variant) {
        self.session.reset(v);
        self.refused = None;
    }

    fn send(&self, line: &str) -> io::Result<()> {
        send(&self.out, line)
    }

    fn error(&self, message: &str) -> io::Result<()> {
        self.send(&crate::protocol::elide(&format!("info string error: {message}")))
    }

    /// Stops a running search (it still prints its `bestmove`).
    fn stop_search(&mut self) {
        self.engine.stop();
        self.engine.wait();
        self.endless = false;
        self.end_perft(true);
    }

    /// Lets a running search end by its limits (stopping it if it would only end at `stop`, or
    /// as soon as its output finds nobody reading: a `go depth 60` of a GUI that is gone).
    fn finish_search(&mut self) {
        if self.endless {
            self.engine.stop();
        }
        while self.engine.is_searching() {
            if self.closed.load(std::sync::atomic::Ordering::Relaxed) {
                self.engine.stop();
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        self.engine.wait();
        self.endless = false;
        self.end_perft(false);
    }

    /// Waits for a running `go perft`, stopping it first if `stop`.
    fn end_perft(&mut self, stop: bool) {
        if let Some((handle, flag)) = self.perft.take() {
            if stop {
                flag.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            let _ = handle.join();
        }
    }

    fn handle(&mut self, line: &str) -> io::Result<Flow> {
        let mut tokens = line.split_whitespace();
        let Some(command) = tokens.next() else { return Ok(Flow::Continue) };
        let rest: Vec<&str> = tokens.collect();
        match command {
            "uci" => self.identify()?,
            "isready" => self.send("readyok")?,
            "debug" | "register" => {}
            "setoption" => self.set_option(&rest)?,
            "ucinewgame" => {
                self.stop_search();
                self.engine.clear();
                self.start_over(self.session.variant());
            }
            "position" => self.position(&rest)?,
            "go" => self.go(&rest)?,
            "stop" => {
                self.engine.stop();
                // It ends now: options may be set as soon as it has (a GUI sends them right
                // after the `bestmove`, which may come before the search thread is gone).
                self.endless = false;
                if let Some((_, flag)) = &self.perft {
                    flag.store(true, std::sync::atomic::Ordering::Relaxed);
                }
            }
            "ponderhit" => {
                self.engine.ponderhit();
                self.endless = self.endless_after_hit;
            }
            "quit" => {
                self.stop_search();
                return Ok(Flow::Quit);
            }
            "d" => {
                for l in self.session.diagram() {
                    self.send(&l)?;
                }
            }
            other => self.error(&format!("unknown command '{}'", crate::protocol::shorten(other)))?,
        }
        Ok(Flow::Continue)
    }

    fn identify(&self) -> io::Result<()> {
        self.send(&format!("id name {}", crate::NAME))?;
        self.send("id author fairylab developers")?;
        self.send("")?;
        self.send(&format!("option name Hash type spin default {DEFAULT_MB} min 1 max {MAX_HASH_MB}"))?;
        self.send(&format!("option name Threads type spin default 1 min 1 max {MAX_THREADS}"))?;
        self.send("option name Clear Hash type button")?;
        self.send("option name Ponder type check default false")?;
        self.send(&format!(
            "option name Move Overhead type spin default {} min 0 max {MAX_OVERHEAD_MS}",
            DEFAULT_OVERHEAD.as_millis()
        ))?;
        self.send(&format!("option name Skill Level type spin default {MAX_SKILL} min 0 max {MAX_SKILL}"))?;
        self.send(&format!("option name MultiPV type spin default 1 min 1 max {MAX_MULTIPV}"))?;
        self.send("option name TablePath type string default <empty>")?;
        self.send("option name VariantPath type string default <empty>")?;
        let vars: String = protocol::sequential_variants()
            .chain(self.custom.iter().copied())
            .map(|v| format!(" var {}", v.name))
            .collect();
        self.send(&format!("option name UCI_Variant type combo default chess{vars}"))?;
        self.send(&format!(
            "option name SnowFall type spin default {} min 0 max 100",
            variants::snowfall::DEFAULT_PERCENT
        ))?;
        self.send("option name UCI_Chess960 type check default false")?;
        self.send("uciok")
    }

    /// `setoption name <name> [value <value>]`; names are case-insensitive.
    fn set_option(&mut self, args: &[&str]) -> io::Result<()> {
        if args.first() != Some(&"name") {
            return self.error("setoption needs 'name <option> [value <value>]'");
        }
        let value_at = args.iter().position(|t| *t == "value").unwrap_or(args.len());
        let name = args[1..value_at].join(" ");
        // A search that only ends at `stop` gives its move only then, whatever comes meanwhile
        // (UCI sets options only while the engine waits).
        if self.endless && self.engine.is_searching() {
            return self.error(&format!(
                "setoption name {name} during 'go infinite' or 'go ponder': ignored (send stop first)"
            ));
        }
        let value = args.get(value_at + 1..).map(|v| v.join(" ")).unwrap_or_default();
        match name.to_ascii_lowercase().as_str() {
            "hash" => match value.parse::<usize>() {
                Ok(mb) if (1..=MAX_HASH_MB).contains(&mb) => {
                    self.stop_search();
                    if let Err(e) = self.engine.try_set_hash(mb) {
                        self.error(&format!("Hash {mb}: {e}"))?;
                    }
                }
                _ => self.error(&format!("bad value '{value}' for Hash (1 to {MAX_HASH_MB} MiB)"))?,
            },
            "threads" => match value.parse::<usize>() {
                // From the next search on.
                Ok(n) if (1..=MAX_THREADS).contains(&n) => self.engine.set_threads(n),
                _ => self.error(&format!("bad value '{value}' for Threads (1 to {MAX_THREADS})"))?,
            },
            // The GUI decides whether to ponder; the engine only answers `go ponder`.
            "ponder" => {
                if !matches!(value.to_ascii_lowercase().as_str(), "true" | "false") {
                    self.error(&format!("bad value '{value}' for Ponder (true or false)"))?;
                }
            }
            "move overhead" => match value.parse::<u64>() {
                // From the next search on.
                Ok(ms) if ms <= MAX_OVERHEAD_MS => self.overhead = Duration::from_millis(ms),
                _ => self.error(&format!("bad value '{value}' for Move Overhead (0 to {MAX_OVERHEAD_MS} ms)"))?,
            },
            "skill level" => match value.parse::<u8>() {
                // The seed of the handicap's choices: each session plays its own games.
                Ok(n) if n <= MAX_SKILL => self.engine.set_skill(n, self.skill_seed),
                _ => self.error(&format!("bad value '{value}' for Skill Level (0 to {MAX_SKILL})"))?,
            },
            "clear hash" => {
                self.stop_search();
                self.engine.clear();
            }
            "multipv" => match value.parse::<usize>() {
                Ok(n) if (1..=MAX_MULTIPV).contains(&n) => {
                    self.stop_search();
                    self.engine.set_multipv(n);
                }
                _ => self.error(&format!("bad value '{value}' for MultiPV (1 to {MAX_MULTIPV} lines)"))?,
            },
            "tablepath" => {
                self.stop_search();
                match load_tables(&value) {
                    Ok(tb) => {
                        let what = tb.as_ref().map_or("no endgame tables".to_string(), |t| describe_tables(t));
                        self.engine.set_tablebase(tb);
                        self.send(&format!("info string {what}"))?;
                    }
                    Err(e) => self.error(&format!("TablePath: {e}"))?,
                }
            }
            "snowfall" => match value.parse::<u8>() {
                Ok(n) if n <= 100 => {
                    self.snowfall = n;
                    if variants::snowfall::percent(self.session.variant()).is_some() {
                        self.stop_search();
                        let v = variants::snowfall::variant(n);
                        self.start_over(v);
                        self.send(&format!("info string variant {} {}", v.name, self.session.variant_info()))?;
                    }
                }
                _ => self.error(&format!("bad value '{value}' for SnowFall (a percentage, 0 to 100)"))?,
            },
            "uci_chess960" => match value.to_ascii_lowercase().as_str() {
                flag @ ("true" | "false") => {
                    self.chess960 = flag == "true";
                    let name = self.session.variant().name.as_str();
                    let switch = if self.chess960 { chess960_of(name) } else { orthodox_of(name) };
                    if let Some(v) = switch {
                        self.stop_search();
                        self.start_over(v);
                        self.send(&format!("info string variant {} {}", v.name, self.session.variant_info()))?;
                    }
                }
                _ => self.error(&format!("bad value '{value}' for UCI_Chess960 (true or false)"))?,
            },
            "variantpath" => {
                match protocol::load_variant_files(&value) {
                    Ok(loaded) => {
                        self.stop_search();
                        let before = self.custom.clone();
                        protocol::add_variants(&mut self.custom, loaded);
                        let names: Vec<&str> = self.custom.iter().map(|v| v.name.as_str()).collect();
                        let what = if names.is_empty() {
                            "no custom variants".to_string()
                        } else {
                            format!("custom variants: {}", names.join(", "))
                        };
                        self.send(&format!("info string {what}"))?;
                        // A custom variant in play that was replaced starts over as its new
                        // definition; one no longer loaded gives way to chess.
                        if let Some(next) = protocol::replaced_variant(self.session.variant(), &before, &self.custom) {
                            self.start_over(next);
                            self.send(&format!("info string variant {} {}", next.name, self.session.variant_info()))?;
                        }
                    }
                    Err(e) => self.error(&format!("VariantPath: {e}"))?,
                }
            }
            "uci_variant" => {
                match self.custom.iter().copied().find(|v| v.name.eq_ignore_ascii_case(&value)).map_or_else(
                    || {
                        variant_by_name(&value).map_err(|e| {
                            if self.custom.is_empty() {
                                e
                            } else {
                                let names: Vec<&str> = self.custom.iter().map(|v| v.name.as_str()).collect();
                                format!("{e}; custom: {}", names.join(", "))
                            }
                        })
                    },
                    Ok,
                ) {
                    Ok(v) => {
                        let v = if variants::snowfall::percent(v).is_some() {
                            variants::snowfall::variant(self.snowfall)
                        } else if self.chess960 {
                            chess960_of(&v.name).unwrap_or(v)
                        } else {
                            v
                        };
                        self.start_over(v);
                        self.send(&format!("info string variant {} {}", v.name, self.session.variant_info()))?;
                    }
                    Err(e) => self.error(&format!("{e}; keeping {}", self.session.variant().name))?,
                }
            }
            _ => self.error(&format!("unknown option '{name}'"))?,
        }
        Ok(())
    }

    /// `position startpos|fen <fen> [moves ...]`.
    fn position(&mut self, args: &[&str]) -> io::Result<()> {
        let moves_at = args.iter().position(|t| *t == "moves").unwrap_or(args.len());
        let moves = args.get(moves_at + 1..).unwrap_or(&[]);
        let mut next = self.session.clone();
        match args.first() {
            Some(&"startpos") if moves_at == 1 => next.reset(next.variant()),
            Some(&"fen") if moves_at > 1 => {
                let fen = args[1..moves_at].join(" ");
                match next.set_fen_lenient(&fen) {
                    // A stale castling right or en-passant square is dropped, as Stockfish does.
                    Ok(dropped) => {
                        for what in dropped {
                            let fen = crate::protocol::shorten(&fen);
                            self.send(&format!("info string warning: FEN '{fen}': {what}: ignored"))?;
                        }
                    }
                    Err(e) => {
                        let (fen, e) =
                            (crate::protocol::shorten(&fen), crate::protocol::shorten(&e.to_string()).into_owned());
                        let why = format!("bad FEN '{fen}' for {}: {e}", next.variant().name);
                        self.error(&format!(
                            "{why}; no position until the next 'position' ('go' answers bestmove (none))"
                        ))?;
                        self.refused = Some(why);
                        return Ok(());
                    }
                }
            }
            _ => return self.error("position needs 'startpos' or 'fen <FEN>', then optionally 'moves ...'"),
        }
        let result = next.play_all(moves.iter().copied());
        self.session = next;
        self.refused = None;
        if let Err(e) = result {
            self.error(&format!("{e}; the position is the one before that move"))?;
        }
        Ok(())
    }

    fn go(&mut self, args: &[&str]) -> io::Result<()> {
        // A GUI waits for the `bestmove` of every `go`: a `go` that does not read is answered
        // after a search to depth 1, never left unanswered.
        let go = match parse_go(args) {
            Ok(go) => go,
            // `go perft` is a command-line request, not a GUI's: a bad one counts nothing.
            Err(e) if args.first() == Some(&"perft") => return self.error(&format!("go: {e}; nothing counted")),
            Err(e) => {
                self.error(&format!("go: {e}; searching to depth 1 instead"))?;
                Go::Search(Limits { depth: Some(1), ..Limits::default() }, Vec::new())
            }
        };
        // A `go` during a search (a GUI error) replaces it rather than waiting behind it.
        self.stop_search();
        if let Some(why) = &self.refused {
            self.error(&format!("no position to search ({why})"))?;
            return self.send("bestmove (none)");
        }
        match go {
            Go::Perft(depth) => self.perft(depth),
            Go::Search(limits, searchmoves) => {
                let limits = Limits { overhead: Some(self.overhead), ..limits };
                let pos = self.session.position().clone();
                let mut only = Vec::new();
                for text in &searchmoves {
                    match rules::uci::parse_uci(&pos, text) {
                        Ok(m) if pos.is_legal(m) => only.push(m),
                        _ => self.error(&format!("searchmoves: '{text}' is not a legal move here; left out"))?,
                    }
                }
                if only.is_empty() && !searchmoves.is_empty() {
                    self.send("info string searchmoves: no legal move given; searching all moves")?;
                }
                self.engine.set_search_moves(only);
                self.endless_after_hit = limits.infinite
                    || (limits.depth.is_none()
                        && limits.nodes.is_none()
                        && limits.mate.is_none()
                        && limits.budget(pos.turn()).is_none());
                self.endless = self.endless_after_hit || limits.ponder;
                let out = self.out.clone();
                let root = pos.clone();
                let closed = self.closed.clone();
                let mut lines = Lines::default();
                self.engine.start(pos, self.session.history(), limits, move |report| {
                    let sent = match report {
                        Report::Info(i) => send(&out, &lines.info(&root, i)),
                        Report::Done(r) => lines
                            .last(&root, &r)
                            .map_or(Ok(()), |l| send(&out, &l))
                            .and_then(|()| send_bestmove(&out, &root, &r)),
                    };
                    // Nobody reads the output any more (the GUI closed the pipe): the loop stops
                    // the search at the end of input (`finish_search`).
                    if sent.is_err() {
                        closed.store(true, std::sync::atomic::Ordering::Relaxed);
                    }
                });
                Ok(())
            }
        }
    }

    /// `go perft N`: the count below each legal move, then the total (as Stockfish prints it),
    /// counted on a thread of its own so that `isready` is answered and `stop` or `quit` end it.
    fn perft(&mut self, depth: u32) -> io::Result<()> {
        let pos = self.session.position().clone();
        let out = self.out.clone();
        let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let stop = flag.clone();
        let handle = std::thread::spawn(move || {
            let split = if depth == 0 { Some(Vec::new()) } else { divide_until(&pos, depth, &stop) };
            let Some(split) = split else {
                let _ = send(&out, "info string perft stopped before the end: no count");
                return;
            };
            let mut split: Vec<(String, u64)> = split.into_iter().map(|(m, n)| (to_uci(&pos, m), n)).collect();
            split.sort();
            let total = if depth == 0 { perft(&pos, 0) } else { split.iter().map(|(_, n)| n).sum() };
            let mut lines: Vec<String> = split.iter().map(|(m, n)| format!("{m}: {n}")).collect();
            lines.extend([String::new(), format!("Nodes searched: {total}"), String::new()]);
            for l in &lines {
                if send(&out, l).is_err() {
                    return;
                }
            }
        });
        self.perft = Some((handle, flag));
        Ok(())
    }
}

/// Parses the arguments of `go`.
fn parse_go(args: &[&str]) -> Result<Go, String> {
    let mut limits = Limits::default();
    let mut searchmoves = Vec::new();
    let mut it = args.iter().copied().peekable();
    let millis = |name: &str, text: Option<&str>| -> Result<Duration, String> {
        // Some GUIs send a negative remaining time once the flag has fallen.
        let ms: i64 = parse_number(name, text)?;
        Ok(Duration::from_millis(ms.max(0) as u64))
    };
    while let Some(token) = it.next() {
        match token {
            "wtime" => limits.time[0] = Some(millis(token, it.next())?),
            "btime" => limits.time[1] = Some(millis(token, it.next())?),
            "winc" => limits.inc[0] = Some(millis(token, it.next())?),
            "binc" => limits.inc[1] = Some(millis(token, it.next())?),
            "movetime" => limits.movetime = Some(millis(token, it.next())?),
            // As Stockfish, 0 moves to go is none given (a sudden-death clock).
            "movestogo" => limits.movestogo = Some(parse_number::<u32>(token, it.next())?).filter(|&n| n > 0),
            "nodes" => limits.nodes = Some(parse_number(token, it.next())?),
            // As Stockfish, a depth below 1 gives a move at once (a search to depth 1).
            "depth" => limits.depth = Some(parse_number::<i64>(token, it.next())?.clamp(1, i64::from(u32::MAX)) as u32),
            "mate" => limits.mate = Some(parse_number::<u32>(token, it.next())?.max(1)),
            "infinite" => limits.infinite = true,
            "ponder" => limits.ponder = true,
            "perft" => {
                let depth = parse_number(token, it.next())?;
                if depth > MAX_PERFT_DEPTH {
                    return Err(format!("perft depth {depth} is more than {MAX_PERFT_DEPTH}"));
                }
                return Ok(Go::Perft(depth));
            }
            "searchmoves" => {
                // The moves: everything up to the next keyword.
                while let Some(m) = it.next_if(|t| !is_go_keyword(t)) {
                    searchmoves.push(m.to_string());
                }
            }
            other => return Err(format!("unknown parameter '{other}'")),
        }
    }
    Ok(Go::Search(limits, searchmoves))
}

fn is_go_keyword(t: &str) -> bool {
    matches!(
        t,
        "wtime"
            | "btime"
            | "winc"
            | "binc"
            | "movetime"
            | "movestogo"
            | "nodes"
            | "depth"
            | "mate"
            | "infinite"
            | "ponder"
            | "perft"
            | "searchmoves"
    )
}

/// What a search has reported so far, for the lines still to come: a bound's line repeats the
/// last principal variation of its line (as Stockfish's do), and a search stopped in the middle
/// of an iteration ends with a line of its true totals.
#[derive(Default)]
struct Lines {
    /// The last principal variation of each MultiPV line (index `multipv - 1`).
    pvs: Vec<Vec<rules::Move>>,
    /// The nodes of the last line sent.
    nodes: u64,
}

impl Lines {
    /// The line of an iteration's report.
    fn info(&mut self, root: &Position, mut i: Info) -> String {
        let k = i.multipv.max(1) as usize - 1;
        if self.pvs.len() <= k {
            self.pvs.resize(k + 1, Vec::new());
        }
        if i.pv.is_empty() && i.lower_bound.is_some() {
            i.pv = self.pvs[k].clone();
        } else if !i.pv.is_empty() {
            self.pvs[k] = i.pv.clone();
        }
        self.nodes = i.nodes;
        info_line(root, &i)
    }

    /// The closing line of a search whose totals differ from those of its last line (it was
    /// stopped in the middle of an iteration): the result's depth, score, nodes, time and line.
    /// None with several lines (MultiPV): a line without `multipv` would be read as the first
    /// line's alone.
    fn last(&self, root: &Position, r: &SearchResult) -> Option<String> {
        if r.nodes == self.nodes || r.best.is_none() || self.pvs.len() > 1 {
            return None;
        }
        let mut line = format!(
            "info depth {} score {}{} nodes {} nps {} time {}",
            r.depth.max(1),
            r.score,
            if r.lower_bound { " lowerbound" } else { "" },
            r.nodes,
            crate::engine::nps(r.nodes, r.time),
            r.time.as_millis()
        );
        let pv = uci_line(root, &r.pv);
        if !pv.is_empty() {
            line.push_str(" pv ");
            line.push_str(&pv);
        }
        Some(line)
    }
}

/// `info depth ... pv ...` for one iteration.
fn info_line(root: &Position, i: &Info) -> String {
    let bound = match i.lower_bound {
        Some(true) => " lowerbound",
        Some(false) => " upperbound",
        None => "",
    };
    let mut line = format!(
        "info depth {} seldepth {} multipv {} score {}{bound} nodes {} nps {} hashfull {} time {}",
        i.depth,
        i.seldepth.max(i.depth),
        i.multipv,
        i.score,
        i.nodes,
        i.nps(),
        i.hashfull,
        i.time.as_millis()
    );
    let pv = uci_line(root, &i.pv);
    if !pv.is_empty() {
        line.push_str(" pv ");
        line.push_str(&pv);
    }
    line
}

/// `bestmove M [ponder P]`, or Stockfish's `bestmove (none)` (after a depth-0 score) when
/// there is no legal move.
fn send_bestmove(out: &Output, root: &Position, r: &SearchResult) -> io::Result<()> {
    let legal = root.legal_moves();
    let Some(&first) = legal.first() else {
        let score = if root.is_check() { "mate 0" } else { "cp 0" };
        send(out, &format!("info depth 0 score {score}"))?;
        return send(out, "bestmove (none)");
    };
    let best = match r.best {
        Some(m) if root.is_legal(m) => m,
        other => {
            // Never hand the GUI an illegal move: say so and play a legal one.
            let text = other.map_or_else(|| "no move".to_string(), |m| format!("{m:?}"));
            send(
                out,
                &format!(
                    "info string error: the search returned {text}, not a legal move; playing the first legal move"
                ),
            )?;
            first
        }
    };
    let line = match r.ponder {
        Some(p) if r.best == Some(best) => uci_line(root, &[best, p]),
        _ => uci_line(root, &[best]),
    };
    let mut words = line.split(' ');
    let best_text = words.next().unwrap_or_default();
    match words.next() {
        Some(p) => send(out, &format!("bestmove {best_text} ponder {p}")),
        None => send(out, &format!("bestmove {best_text}")),
    }
}

/// Loads the `;`-separated table files of a `TablePath` value (`<empty>` or nothing: none).
pub(crate) fn load_tables(value: &str) -> Result<Option<std::sync::Arc<egt::tablebase::Tablebase>>, egt::EgtError> {
    let value = value.trim();
    if value.is_empty() || value == "<empty>" {
        return Ok(None);
    }
    let paths: Vec<&std::path::Path> =
        value.split(';').map(str::trim).filter(|p| !p.is_empty()).map(std::path::Path::new).collect();
    egt::tablebase::Tablebase::load(&paths).map(|t| Some(std::sync::Arc::new(t)))
}

/// One line naming the loaded tables.
pub(crate) fn describe_tables(tb: &egt::tablebase::Tablebase) -> String {
    let names: Vec<String> =
        tb.families().iter().map(|f| format!("{} ({})", f.main().material, f.rules.metric)).collect();
    format!("endgame tables: {}; up to {} men", names.join(", "), tb.max_men())
}

/// The Chess960 form of a variant (`chess` -> `chess960`, `crazyhouse` -> `crazyhouse960`),
/// what `UCI_Chess960` asks for; `None` if it has none.
fn chess960_of(name: &str) -> Option<&'static rules::Variant> {
    variants::by_name(&format!("{name}960")).filter(|v| variants::chess960::is_chess960(v))
}

/// The orthodox form of a Chess960 variant (`chess960` -> `chess`); `None` for others.
fn orthodox_of(name: &str) -> Option<&'static rules::Variant> {
    name.strip_suffix("960").and_then(variants::by_name)
}
