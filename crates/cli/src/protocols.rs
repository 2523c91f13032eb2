//! `fairylab uci` and `fairylab xboard`: hand stdin and stdout to the engine's protocol loops.
//! Every reply is a flushed line; the loops end at `quit` or at the end of input.

use anyhow::Result;
use std::io::BufReader;
use std::process::ExitCode;

/// Runs the UCI loop until `quit` or the end of input.
pub(crate) fn uci() -> Result<ExitCode> {
    engine::uci::run(std::io::stdin().lock(), engine::protocol::output(std::io::stdout()))?;
    Ok(ExitCode::SUCCESS)
}

/// Runs the XBoard loop until `quit` or the end of input.
pub(crate) fn xboard() -> Result<ExitCode> {
    // The XBoard loop reads on its own thread (it must hear `?` and `force` while it thinks).
    engine::xboard::run(BufReader::new(std::io::stdin()), engine::protocol::output(std::io::stdout()))?;
    Ok(ExitCode::SUCCESS)
}
