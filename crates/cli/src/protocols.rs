//! `fairylab uci` and `fairylab xboard`: hand stdin and stdout to the engine's protocol loops.
//! Every reply is a flushed line; the loops end at `quit` or at the end of input.

use anyhow::Result;
use std::io::BufReader;
use std::process::ExitCode;

/// Runs the UCI loop until `quit` or the end of input.
/// `fairylab uci` options.
#[derive(Debug, clap::Args)]
pub(crate) struct UciArgs {
    /// Custom variant files (TOML, `;`-separated) loaded before the first `uci`, so that their
    /// variants are in the `UCI_Variant` list a GUI reads once (python-chess, cutechess), as
    /// Fairy-Stockfish's `load` command line does; the option `VariantPath` does the same later.
    #[arg(long, value_name = "FILES")]
    variant_path: Option<String>,
}

/// Runs the UCI loop until `quit` or the end of input.
pub(crate) fn uci(a: &UciArgs) -> Result<ExitCode> {
    let preload = match &a.variant_path {
        Some(files) => engine::uci::load_variant_files(files).map_err(|e| anyhow::anyhow!("--variant-path: {e}"))?,
        None => Vec::new(),
    };
    engine::uci::run_with(std::io::stdin().lock(), engine::protocol::output(std::io::stdout()), preload)?;
    Ok(ExitCode::SUCCESS)
}

/// Runs the XBoard loop until `quit` or the end of input.
pub(crate) fn xboard() -> Result<ExitCode> {
    // The XBoard loop reads on its own thread (it must hear `?` and `force` while it thinks).
    engine::xboard::run(BufReader::new(std::io::stdin()), engine::protocol::output(std::io::stdout()))?;
    Ok(ExitCode::SUCCESS)
}
