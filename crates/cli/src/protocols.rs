//! `fairylab uci` and `fairylab xboard`: hand stdin and stdout to the engine's protocol loops.

use anyhow::Result;
use std::process::ExitCode;

/// Runs the UCI loop until `quit` or the end of input.
pub(crate) fn uci() -> Result<ExitCode> {
    anyhow::bail!("uci: not yet available")
}

/// Runs the XBoard loop until `quit` or the end of input.
pub(crate) fn xboard() -> Result<ExitCode> {
    anyhow::bail!("xboard: not yet available")
}
