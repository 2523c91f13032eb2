//! Driving an external UCI engine as a child process: handshake, options, positions, `go`
//! and `bestmove`, every wait bounded by a time-out, the process quit and killed on drop.

use std::collections::VecDeque;
use std::fmt;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// How many of the engine's last stderr lines an error message quotes.
const STDERR_TAIL: usize = 5;

/// Errors talking to an engine process.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum UciClientError {
    /// The command line has no program.
    #[error("empty engine command")]
    EmptyCommand,
    /// The command line has a quote that is never closed.
    #[error("unterminated quote in engine command '{0}'")]
    UnterminatedQuote(String),
    /// The process could not be started.
    #[error("cannot start engine '{command}': {source}")]
    Spawn {
        /// The command line.
        command: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The engine sent nothing the runner waited for in time.
    #[error("engine '{engine}' sent no {expected} within {} ms", timeout.as_millis())]
    Timeout {
        /// The engine.
        engine: String,
        /// What the runner waited for (`uciok`, `readyok`, `bestmove`).
        expected: &'static str,
        /// How long it waited.
        timeout: Duration,
    },
    /// The engine's output ended: it exited or closed its stdout.
    #[error("engine '{engine}' exited ({status}) while the runner waited for {expected}{stderr}")]
    Exited {
        /// The engine.
        engine: String,
        /// What the runner waited for.
        expected: &'static str,
        /// The exit status, as far as it is known.
        status: String,
        /// The engine's last stderr lines (`; stderr: ...`), or nothing.
        stderr: String,
    },
    /// Writing a command to the engine failed (usually: it exited).
    #[error("cannot write to engine '{engine}': {source}")]
    Write {
        /// The engine.
        engine: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A line that breaks the protocol, such as `bestmove` without a move.
    #[error("engine '{engine}' sent a malformed line: '{line}'")]
    Protocol {
        /// The engine.
        engine: String,
        /// The line.
        line: String,
    },
    /// `setoption` for an option the engine did not list after `uci`.
    #[error("engine '{engine}' has no option '{name}' (its options: {known})")]
    UnknownOption {
        /// The engine.
        engine: String,
        /// The option asked for.
        name: String,
        /// The options it has, comma-separated.
        known: String,
    },
}

/// A program and its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineCommand {
    /// The program (a path, or a name looked up in `PATH`).
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
}

impl EngineCommand {
    /// A program with arguments.
    pub fn new(program: impl Into<String>, args: impl IntoIterator<Item = impl Into<String>>) -> EngineCommand {
        EngineCommand { program: program.into(), args: args.into_iter().map(Into::into).collect() }
    }

    /// Splits a command line as a POSIX shell would for plain words: whitespace separates,
    /// single quotes keep everything, double quotes keep all but `\"` and `\\`, a backslash
    /// outside quotes escapes the next character. No variables, globs or redirections.
    ///
    /// ```
    /// use engine::uci_client::EngineCommand;
    /// let c = EngineCommand::parse("/usr/games/stockfish").unwrap();
    /// assert_eq!(c.program, "/usr/games/stockfish");
    /// let c = EngineCommand::parse(r#"python3 "my engine.py" --depth 3"#).unwrap();
    /// assert_eq!(c.args, ["my engine.py", "--depth", "3"]);
    /// ```
    pub fn parse(line: &str) -> Result<EngineCommand, UciClientError> {
        let mut words = Vec::new();
        let mut word = String::new();
        let mut in_word = false;
        let mut chars = line.chars();
        while let Some(c) = chars.next() {
            match c {
                c if c.is_whitespace() => {
                    if in_word {
                        words.push(std::mem::take(&mut word));
                        in_word = false;
                    }
                }
                '\'' => {
                    in_word = true;
                    loop {
                        match chars.next() {
                            Some('\'') => break,
                            Some(c) => word.push(c),
                            None => return Err(UciClientError::UnterminatedQuote(line.to_string())),
                        }
                    }
                }
                '"' => {
                    in_word = true;
                    loop {
                        match chars.next() {
                            Some('"') => break,
                            Some('\\') => match chars.next() {
                                Some(c @ ('"' | '\\')) => word.push(c),
                                Some(c) => {
                                    word.push('\\');
                                    word.push(c);
                                }
                                None => return Err(UciClientError::UnterminatedQuote(line.to_string())),
                            },
                            Some(c) => word.push(c),
                            None => return Err(UciClientError::UnterminatedQuote(line.to_string())),
                        }
                    }
                }
                '\\' => {
                    in_word = true;
                    if let Some(c) = chars.next() {
                        word.push(c);
                    }
                }
                c => {
                    in_word = true;
                    word.push(c);
                }
            }
        }
        if in_word {
            words.push(word);
        }
        let mut words = words.into_iter();
        let program = words.next().ok_or(UciClientError::EmptyCommand)?;
        Ok(EngineCommand { program, args: words.collect() })
    }
}

impl fmt::Display for EngineCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let quote = |w: &str| {
            if !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+=:,@%".contains(c)) {
                w.to_string()
            } else {
                format!("'{}'", w.replace('\'', r"'\''"))
            }
        };
        write!(f, "{}", quote(&self.program))?;
        for a in &self.args {
            write!(f, " {}", quote(a))?;
        }
        Ok(())
    }
}

/// One option an engine listed after `uci`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UciOption {
    /// Its name (may contain spaces).
    pub name: String,
    /// Its type: `check`, `spin`, `combo`, `button` or `string`.
    pub kind: String,
    /// The values of a `combo` option (`var ...`); empty for other types.
    pub vars: Vec<String>,
}

impl UciOption {
    /// Parses the text after `option `.
    fn parse(rest: &str) -> Option<UciOption> {
        let tokens: Vec<&str> = rest.split_whitespace().collect();
        let name_at = tokens.iter().position(|&t| t == "name")?;
        let type_at = tokens.iter().position(|&t| t == "type")?;
        if type_at <= name_at + 1 {
            return None;
        }
        let name = tokens[name_at + 1..type_at].join(" ");
        let kind = tokens.get(type_at + 1).map_or_else(String::new, |t| t.to_string());
        let mut vars = Vec::new();
        let mut i = type_at + 2;
        while i < tokens.len() {
            if tokens[i] == "var" {
                let end = tokens[i + 1..]
                    .iter()
                    .position(|&t| matches!(t, "var" | "default" | "min" | "max"))
                    .map_or(tokens.len(), |p| i + 1 + p);
                vars.push(tokens[i + 1..end].join(" "));
                i = end;
            } else {
                i += 1;
            }
        }
        Some(UciOption { name, kind, vars })
    }
}

/// A score an engine reported, from the point of view of the side to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EngineScore {
    /// Centipawns.
    Cp(i32),
    /// Mate in this many moves (negative: the side to move is mated).
    Mate(i32),
}

impl EngineScore {
    /// The score in centipawns, a mate counted as ±(100000 − moves), beyond any evaluation.
    pub fn centipawns(self) -> i32 {
        match self {
            EngineScore::Cp(cp) => cp,
            EngineScore::Mate(n) if n > 0 => 100_000 - n,
            EngineScore::Mate(n) => -100_000 - n,
        }
    }

    /// The same score from the other side's point of view.
    pub fn negate(self) -> EngineScore {
        match self {
            EngineScore::Cp(cp) => EngineScore::Cp(-cp),
            EngineScore::Mate(n) => EngineScore::Mate(-n),
        }
    }
}

impl fmt::Display for EngineScore {
    /// Pawns with two decimals (`+0.35`), mates as `+M3` / `-M2`, as PGN comments write them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            EngineScore::Cp(cp) => {
                let sign = if cp < 0 { '-' } else { '+' };
                write!(f, "{sign}{}.{:02}", cp.unsigned_abs() / 100, cp.unsigned_abs() % 100)
            }
            EngineScore::Mate(n) => write!(f, "{}M{}", if n < 0 { '-' } else { '+' }, n.unsigned_abs()),
        }
    }
}

/// What `go` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Go {
    /// `go movetime N`.
    MoveTime(Duration),
    /// `go wtime .. btime .. winc .. binc ..`.
    Clock {
        /// White's remaining time.
        wtime: Duration,
        /// Black's remaining time.
        btime: Duration,
        /// White's increment.
        winc: Duration,
        /// Black's increment.
        binc: Duration,
    },
    /// `go depth N`.
    Depth(u32),
    /// `go nodes N`.
    Nodes(u64),
}

impl fmt::Display for Go {
    /// The command line sent to the engine.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Go::MoveTime(t) => write!(f, "go movetime {}", t.as_millis()),
            Go::Clock { wtime, btime, winc, binc } => write!(
                f,
                "go wtime {} btime {} winc {} binc {}",
                wtime.as_millis(),
                btime.as_millis(),
                winc.as_millis(),
                binc.as_millis()
            ),
            Go::Depth(d) => write!(f, "go depth {d}"),
            Go::Nodes(n) => write!(f, "go nodes {n}"),
        }
    }
}

/// The answer to `go`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BestMove {
    /// The move as the engine wrote it (unchecked: `(none)` and nonsense included).
    pub uci: String,
    /// The move it expects in reply, if it named one.
    pub ponder: Option<String>,
    /// The last score of its `info` lines (side-to-move view), if any.
    pub score: Option<EngineScore>,
    /// The last depth of its `info` lines, if any.
    pub depth: Option<u32>,
    /// The time from sending `go` to reading `bestmove`.
    pub elapsed: Duration,
}

/// A running UCI engine. Dropping it sends `quit` and kills the process if it does not exit.
#[derive(Debug)]
pub struct UciEngine {
    name: String,
    options: Vec<UciOption>,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
}

impl UciEngine {
    /// Starts the process and completes the `uci` / `uciok` handshake within `timeout`.
    ///
    /// The engine's name is its `id name` (the program name if it sends none).
    pub fn spawn(command: &EngineCommand, timeout: Duration) -> Result<UciEngine, UciClientError> {
        let mut child = Command::new(&command.program)
            .args(&command.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|source| UciClientError::Spawn { command: command.to_string(), source })?;
        let stdin = child.stdin.take();
        let (tx, lines) = mpsc::channel();
        if let Some(stdout) = child.stdout.take() {
            thread::spawn(move || {
                for_each_line(stdout, |line| tx.send(line.trim_end_matches(['\r', '\n']).to_string()).is_ok())
            });
        }
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        if let Some(stderr) = child.stderr.take() {
            let tail = Arc::clone(&stderr_tail);
            thread::spawn(move || keep_tail(stderr, &tail));
        }
        let program = std::path::Path::new(&command.program)
            .file_name()
            .map_or_else(|| command.program.clone(), |n| n.to_string_lossy().into_owned());
        let mut engine = UciEngine { name: program, options: Vec::new(), child, stdin, lines, stderr_tail };
        engine.send("uci")?;
        let deadline = Instant::now() + timeout;
        loop {
            let line = engine.recv("uciok", deadline, timeout)?;
            let line = line.trim();
            if line == "uciok" {
                break;
            }
            if let Some(name) = line.strip_prefix("id name ") {
                engine.name = name.trim().to_string();
            } else if let Some(rest) = line.strip_prefix("option ") {
                if let Some(option) = UciOption::parse(rest) {
                    engine.options.push(option);
                }
            }
        }
        Ok(engine)
    }

    /// The engine's name (`id name`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The options it listed.
    pub fn options(&self) -> &[UciOption] {
        &self.options
    }

    /// The option with this name (case-insensitive, as UCI says), if it listed one.
    pub fn option(&self, name: &str) -> Option<&UciOption> {
        self.options.iter().find(|o| o.name.eq_ignore_ascii_case(name))
    }

    /// Sends `setoption name N value V` (`setoption name N` for an empty value, as buttons need).
    ///
    /// An option the engine did not list is an error, so a misspelt name does not pass unnoticed.
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<(), UciClientError> {
        let Some(option) = self.option(name) else {
            let known: Vec<&str> = self.options.iter().map(|o| o.name.as_str()).collect();
            return Err(UciClientError::UnknownOption {
                engine: self.name.clone(),
                name: name.to_string(),
                known: known.join(", "),
            });
        };
        let line = if value.is_empty() {
            format!("setoption name {}", option.name)
        } else {
            format!("setoption name {} value {value}", option.name)
        };
        self.send(&line)
    }

    /// Sends `isready` and waits for `readyok`.
    pub fn is_ready(&mut self, timeout: Duration) -> Result<(), UciClientError> {
        self.send("isready")?;
        let deadline = Instant::now() + timeout;
        while self.recv("readyok", deadline, timeout)?.trim() != "readyok" {}
        Ok(())
    }

    /// Sends `ucinewgame`, then waits for `isready` to be answered.
    pub fn new_game(&mut self, timeout: Duration) -> Result<(), UciClientError> {
        self.send("ucinewgame")?;
        self.is_ready(timeout)
    }

    /// Sends `position fen F [moves ...]`.
    pub fn position(&mut self, fen: &str, moves: &[String]) -> Result<(), UciClientError> {
        let mut line = format!("position fen {fen}");
        if !moves.is_empty() {
            line.push_str(" moves");
            for m in moves {
                line.push(' ');
                line.push_str(m);
            }
        }
        self.send(&line)
    }

    /// Sends `go` and waits up to `timeout` for `bestmove`, keeping the last score and depth
    /// of the `info` lines on the way.
    pub fn go(&mut self, go: &Go, timeout: Duration) -> Result<BestMove, UciClientError> {
        self.send(&go.to_string())?;
        let start = Instant::now();
        let deadline = start + timeout;
        let mut score = None;
        let mut depth = None;
        loop {
            let line = self.recv("bestmove", deadline, timeout)?;
            let mut tokens = line.split_whitespace();
            match tokens.next() {
                Some("info") => {
                    let tokens: Vec<&str> = tokens.collect();
                    if tokens.first() == Some(&"string") {
                        continue;
                    }
                    let (s, d) = parse_info(&tokens);
                    score = s.or(score);
                    depth = d.or(depth);
                }
                Some("bestmove") => {
                    let elapsed = start.elapsed();
                    let Some(uci) = tokens.next() else {
                        return Err(UciClientError::Protocol { engine: self.name.clone(), line: line.clone() });
                    };
                    let ponder = match (tokens.next(), tokens.next()) {
                        (Some("ponder"), Some(p)) => Some(p.to_string()),
                        _ => None,
                    };
                    return Ok(BestMove { uci: uci.to_string(), ponder, score, depth, elapsed });
                }
                _ => {}
            }
        }
    }

    /// Sends `quit`, waits up to `grace` for the process to exit, then kills it.
    pub fn quit(mut self, grace: Duration) {
        self.shut_down(grace);
    }

    fn shut_down(&mut self, grace: Duration) {
        if let Some(mut stdin) = self.stdin.take() {
            // The engine may be gone already; then there is nobody to tell.
            let _ = writeln!(stdin, "quit").and_then(|()| stdin.flush());
        }
        let deadline = Instant::now() + grace;
        loop {
            match self.child.try_wait() {
                Ok(Some(_)) => return,
                Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(2)),
                _ => break,
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    fn send(&mut self, line: &str) -> Result<(), UciClientError> {
        let result = match self.stdin.as_mut() {
            Some(stdin) => writeln!(stdin, "{line}").and_then(|()| stdin.flush()),
            None => Err(std::io::Error::new(std::io::ErrorKind::BrokenPipe, "stdin closed")),
        };
        result.map_err(|source| UciClientError::Write { engine: self.name.clone(), source })
    }

    /// The next line, or why there is none before the deadline.
    fn recv(&mut self, expected: &'static str, deadline: Instant, timeout: Duration) -> Result<String, UciClientError> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(left) {
            Ok(line) => Ok(line),
            Err(RecvTimeoutError::Timeout) => {
                Err(UciClientError::Timeout { engine: self.name.clone(), expected, timeout })
            }
            Err(RecvTimeoutError::Disconnected) => {
                // Give the process a moment to be reaped, so the status is known.
                let mut status = "status unknown".to_string();
                for _ in 0..50 {
                    if let Ok(Some(s)) = self.child.try_wait() {
                        status = s.to_string();
                        break;
                    }
                    thread::sleep(Duration::from_millis(2));
                }
                // The stderr reader may still be storing the last lines.
                thread::sleep(Duration::from_millis(10));
                let tail: Vec<String> = match self.stderr_tail.lock() {
                    Ok(t) => t.iter().cloned().collect(),
                    Err(_) => Vec::new(),
                };
                let stderr = if tail.is_empty() { String::new() } else { format!("; stderr: {}", tail.join(" | ")) };
                Err(UciClientError::Exited { engine: self.name.clone(), expected, status, stderr })
            }
        }
    }
}

impl Drop for UciEngine {
    fn drop(&mut self) {
        self.shut_down(Duration::from_millis(300));
    }
}

/// Calls `each` with every line of `stream` (lossy UTF-8, line end included) until the
/// stream ends or `each` returns false.
fn for_each_line(stream: impl Read, mut each: impl FnMut(&str) -> bool) {
    let mut reader = BufReader::new(stream);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                if !each(&String::from_utf8_lossy(&buf)) {
                    break;
                }
            }
        }
    }
}

/// Keeps the last [`STDERR_TAIL`] non-empty lines of a stream.
fn keep_tail(stream: impl Read, tail: &Mutex<VecDeque<String>>) {
    for_each_line(stream, |line| {
        let line = line.trim();
        if !line.is_empty() {
            if let Ok(mut t) = tail.lock() {
                if t.len() == STDERR_TAIL {
                    t.pop_front();
                }
                t.push_back(line.to_string());
            }
        }
        true
    });
}

/// The score and depth of an `info` line (the tokens after `info`).
fn parse_info(tokens: &[&str]) -> (Option<EngineScore>, Option<u32>) {
    let mut score = None;
    let mut depth = None;
    let mut i = 0;
    while i < tokens.len() {
        match tokens[i] {
            "depth" => depth = tokens.get(i + 1).and_then(|t| t.parse().ok()),
            "score" => {
                score = match (tokens.get(i + 1), tokens.get(i + 2).and_then(|t| t.parse().ok())) {
                    (Some(&"cp"), Some(v)) => Some(EngineScore::Cp(v)),
                    (Some(&"mate"), Some(v)) => Some(EngineScore::Mate(v)),
                    _ => None,
                };
            }
            // The principal variation and strings run to the end of the line.
            "pv" | "string" => break,
            _ => {}
        }
        i += 1;
    }
    (score, depth)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines_split_like_a_shell() {
        let c = EngineCommand::parse("  a  'b c' \"d \\\"e\\\"\" f\\ g ''").expect("valid");
        assert_eq!(c.program, "a");
        assert_eq!(c.args, ["b c", "d \"e\"", "f g", ""]);
        assert!(matches!(EngineCommand::parse("   "), Err(UciClientError::EmptyCommand)));
        assert!(matches!(EngineCommand::parse("a 'b"), Err(UciClientError::UnterminatedQuote(_))));
        let round = EngineCommand::parse(&c.to_string()).expect("valid");
        assert_eq!(round, c);
    }

    #[test]
    fn options_with_spaces_and_combos() {
        let o = UciOption::parse("name Clear Hash type button").expect("valid");
        assert_eq!((o.name.as_str(), o.kind.as_str()), ("Clear Hash", "button"));
        let o = UciOption::parse("name UCI_Variant type combo default chess var 3check var chess var gardner")
            .expect("valid");
        assert_eq!(o.vars, ["3check", "chess", "gardner"]);
        assert!(UciOption::parse("name type spin").is_none());
    }

    #[test]
    fn info_lines() {
        let t: Vec<&str> = "depth 12 seldepth 15 score cp -35 nodes 1000 pv e2e4 e7e5".split(' ').collect();
        assert_eq!(parse_info(&t), (Some(EngineScore::Cp(-35)), Some(12)));
        let t: Vec<&str> = "depth 3 score mate -2 lowerbound pv a1a2".split(' ').collect();
        assert_eq!(parse_info(&t), (Some(EngineScore::Mate(-2)), Some(3)));
        assert_eq!(EngineScore::Cp(-35).to_string(), "-0.35");
        assert_eq!(EngineScore::Cp(1234).to_string(), "+12.34");
        assert_eq!(EngineScore::Mate(-2).to_string(), "-M2");
        assert!(EngineScore::Mate(3).centipawns() > 10_000 && EngineScore::Mate(-3).centipawns() < -10_000);
    }
}
