//! `fairylab uci` and `fairylab xboard`: hand stdin and stdout to the engine's protocol loops.
//! Every reply is a flushed line; the loops end at `quit` or at the end of input.

use anyhow::Result;
use std::io::BufReader;
use std::process::ExitCode;

/// `fairylab uci` and `fairylab xboard` options.
#[derive(Debug, clap::Args)]
pub(crate) struct ProtocolArgs {
    /// Custom variant files (TOML, `;`-separated) loaded before the first command, so that their
    /// variants are in the list a GUI reads once (UCI's `UCI_Variant` for python-chess and
    /// cutechess, XBoard's `variants` feature), as Fairy-Stockfish's `load` command line does;
    /// the option `VariantPath` does the same later.
    #[arg(long, value_name = "FILES")]
    variant_path: Option<String>,
}

/// The variants of `--variant-path`, none without it.
fn preload(a: &ProtocolArgs) -> Result<Vec<&'static rules::Variant>> {
    match &a.variant_path {
        Some(files) => engine::protocol::load_variant_files(files).map_err(|e| anyhow::anyhow!("--variant-path: {e}")),
        None => Ok(Vec::new()),
    }
}

/// Runs the UCI loop until `quit` or the end of input.
pub(crate) fn uci(a: &ProtocolArgs) -> Result<ExitCode> {
    engine::uci::run_with(std::io::stdin().lock(), engine::protocol::output(std::io::stdout()), preload(a)?)?;
    Ok(ExitCode::SUCCESS)
}

/// Runs the XBoard loop until `quit` or the end of input.
pub(crate) fn xboard(a: &ProtocolArgs) -> Result<ExitCode> {
    // The XBoard loop reads on its own thread (it must hear `?` and `force` while it thinks).
    let custom = preload(a)?;
    engine::xboard::run_with(BufReader::new(std::io::stdin()), engine::protocol::output(std::io::stdout()), custom)?;
    Ok(ExitCode::SUCCESS)
}
