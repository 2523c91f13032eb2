//! `fairylab match`: two UCI engines play a match adjudicated by fairylab's rules; prints
//! the score with its 95 % interval and the Elo difference.

use anyhow::Result;
use clap::Args;
use std::process::ExitCode;

/// Arguments of `fairylab match`.
#[derive(Debug, Args)]
pub(crate) struct MatchArgs {}

/// Plays the match.
pub(crate) fn run(_args: &MatchArgs) -> Result<ExitCode> {
    anyhow::bail!("match: not yet available")
}
