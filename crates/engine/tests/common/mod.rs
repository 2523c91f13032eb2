//! A GUI stand-in for the protocol tests: runs a protocol loop on its own thread, feeds it
//! lines through a pipe and reads its replies line by line with a timeout.

#![allow(dead_code)]

use engine::protocol::Output;
use std::io::{self, BufReader, Read, Write};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long a test waits for an expected line before failing.
pub const TIMEOUT: Duration = Duration::from_secs(60);

/// The reading end of a pipe fed by [`Client::send`]; end of input when the client drops.
struct PipeReader {
    rx: Receiver<Vec<u8>>,
    buf: Vec<u8>,
    pos: usize,
}

impl Read for PipeReader {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.pos == self.buf.len() {
            match self.rx.recv() {
                Ok(bytes) => {
                    self.buf = bytes;
                    self.pos = 0;
                }
                Err(_) => return Ok(0),
            }
        }
        let n = out.len().min(self.buf.len() - self.pos);
        out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// Output that forwards each complete line to the client.
struct LineWriter {
    partial: Vec<u8>,
    tx: Sender<String>,
}

impl Write for LineWriter {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        for &b in data {
            if b == b'\n' {
                let line = String::from_utf8_lossy(&self.partial).into_owned();
                self.partial.clear();
                // The client may have stopped listening; the loop must not care.
                let _ = self.tx.send(line);
            } else {
                self.partial.push(b);
            }
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A running protocol loop and the pipes to talk to it.
pub struct Client {
    input: Option<Sender<Vec<u8>>>,
    output: Receiver<String>,
    thread: Option<JoinHandle<io::Result<()>>>,
    /// Every line received so far.
    pub transcript: Vec<String>,
}

impl Client {
    /// Starts `run` (e.g. `engine::uci::run`) on its own thread.
    pub fn start<F>(run: F) -> Client
    where
        F: FnOnce(BufReader<Box<dyn Read + Send>>, Output) -> io::Result<()> + Send + 'static,
    {
        let (in_tx, in_rx) = mpsc::channel();
        let (out_tx, out_rx) = mpsc::channel();
        let reader: Box<dyn Read + Send> = Box::new(PipeReader { rx: in_rx, buf: Vec::new(), pos: 0 });
        let writer: Output = Arc::new(Mutex::new(LineWriter { partial: Vec::new(), tx: out_tx }));
        let thread = std::thread::spawn(move || run(BufReader::new(reader), writer));
        Client { input: Some(in_tx), output: out_rx, thread: Some(thread), transcript: Vec::new() }
    }

    /// Sends one command line.
    pub fn send(&mut self, line: &str) {
        if let Some(tx) = &self.input {
            tx.send(format!("{line}\n").into_bytes()).expect("the protocol loop stopped reading");
        }
    }

    /// Reads lines until one satisfies `pred`; returns it (all lines go to the transcript).
    pub fn expect(&mut self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.output.recv_timeout(left) {
                Ok(line) => {
                    self.transcript.push(line.clone());
                    if pred(&line) {
                        return line;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!("timed out waiting for {what}; transcript:\n{}", self.transcript.join("\n"))
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("the loop ended before {what}; transcript:\n{}", self.transcript.join("\n"))
                }
            }
        }
    }

    /// Reads lines until one starts with `prefix`.
    pub fn expect_prefix(&mut self, prefix: &str) -> String {
        self.expect(prefix, |l| l.starts_with(prefix))
    }

    /// Sends `ping`-like synchronisation: `isready` for UCI, `ping N` for XBoard, and returns
    /// the lines received before the answer.
    pub fn sync(&mut self, command: &str, answer: &str) -> Vec<String> {
        let start = self.transcript.len();
        self.send(command);
        self.expect(answer, |l| l == answer);
        let end = self.transcript.len() - 1;
        self.transcript[start..end].to_vec()
    }

    /// Closes the input and waits for the loop to end; returns the remaining lines.
    pub fn finish(mut self) -> Vec<String> {
        self.input = None;
        let result = self.thread.take().map(|t| t.join());
        let rest: Vec<String> = self.output.try_iter().collect();
        match result {
            Some(Ok(Ok(()))) => {}
            other => panic!("the protocol loop failed: {other:?}"),
        }
        rest
    }
}

/// Runs a whole script through `run` with in-memory input and returns the output lines.
pub fn run_script(run: impl FnOnce(io::Cursor<Vec<u8>>, Output) -> io::Result<()>, script: &str) -> Vec<String> {
    let buffer = Arc::new(Mutex::new(Vec::<u8>::new()));
    let out: Output = buffer.clone();
    run(io::Cursor::new(script.as_bytes().to_vec()), out).expect("the protocol loop failed");
    let bytes = buffer.lock().expect("output lock").clone();
    String::from_utf8(bytes).expect("UTF-8 output").lines().map(str::to_string).collect()
}

/// A small deterministic generator for scripted random moves.
pub struct XorShift(pub u64);

impl XorShift {
    /// A number below `n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}
