//! `fairylab verify-game`: a server game's record replayed against its revealed seed (the drawn
//! setup, every roll and gift; a Predictor game's commitments opened), one game or a whole file.

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use rules::record::read_record_with;
use server::seed::GameSeed;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
pub(crate) struct VerifyGameArgs {
    /// A PGN record downloaded from the server (with its `SeedHash` and, once finished, `Seed`
    /// tags), or a file of several (`fairylab export`): every game in it is checked.
    record: PathBuf,
    /// The variant file (TOML) of a game of a custom variant; its SHA-256 must match the
    /// record's `VariantSha256` tag. Repeat it for a file with games of several such variants.
    #[arg(long)]
    variant_file: Vec<PathBuf>,
}

/// A variant file given with `--variant-file`: its path, its text's SHA-256 and the variant.
struct VariantFile {
    path: PathBuf,
    hash: String,
    variant: &'static rules::Variant,
}

pub(crate) fn verify_game(a: &VerifyGameArgs, out: &mut impl Write) -> Result<()> {
    let text = std::fs::read_to_string(&a.record).with_context(|| format!("reading {}", a.record.display()))?;
    let files = a.variant_file.iter().map(|p| variant_file(p)).collect::<Result<Vec<_>>>()?;
    let games = split_games(&text);
    if games.len() <= 1 {
        let said = verify_one(&text, &files, true).with_context(|| format!("checking {}", a.record.display()))?;
        writeln!(out, "{said}")?;
        return Ok(());
    }
    // A file of games (a club's export): each checked and reported; a game still in play has
    // no revealed seed yet and is named as such, not as a failure.
    let (mut failed, mut open) = (0, 0);
    for (k, game) in games.iter().enumerate() {
        let name = tag_of(game, "GameId").map_or_else(String::new, |id| format!(" ({id})"));
        match verify_one(game, &files, false) {
            Ok(said) => writeln!(out, "game {}{name}: {said}", k + 1)?,
            Err(_) if tag_of(game, "Result") == Some("*") && tag_of(game, "Seed").is_none() => {
                open += 1;
                writeln!(out, "game {}{name}: not finished: its seed is revealed when it ends", k + 1)?;
            }
            Err(e) => {
                failed += 1;
                writeln!(out, "game {}{name}: FAILED: {e:#}", k + 1)?;
            }
        }
    }
    for f in &files {
        if !games.iter().any(|g| tag_of(g, "VariantSha256").is_some_and(|t| t.eq_ignore_ascii_case(&f.hash))) {
            bail!("{} is the variant file of none of the games (SHA-256 {})", f.path.display(), f.hash);
        }
    }
    let n = games.len();
    if failed > 0 {
        bail!("{failed} of {n} games in {} do not verify (above)", a.record.display());
    }
    let unchecked = if open > 0 { format!(" ({open} not finished, so not checked)") } else { String::new() };
    writeln!(out, "ok: {} of {n} games verified{unchecked}", n - open)?;
    Ok(())
}

/// One game's record checked: against its seed, or a Predictor game's commitments. `alone`: the
/// file holds only this game, so a variant file given for a game of a built-in variant is an error.
fn verify_one(text: &str, files: &[VariantFile], alone: bool) -> Result<String> {
    if text.lines().any(|l| l.trim() == "[Variant \"Predictor\"]") {
        return verify_predictor(text);
    }
    let rec = read_record_with(text, &custom_variant(text, files, alone)?).context("reading the record")?;
    let hash = rec.tag("SeedHash").ok_or_else(|| anyhow!("the record has no SeedHash tag: it is not a server game"))?;
    let seed_text = rec
        .tag("Seed")
        .ok_or_else(|| anyhow!("the record has no Seed tag: the seed is revealed when the game ends"))?;
    let seed = GameSeed::from_hex(seed_text).ok_or_else(|| anyhow!("the Seed tag is not 64 hexadecimal digits"))?;
    if seed.commitment() != hash.trim().to_ascii_lowercase() {
        bail!("the revealed seed does not match the SeedHash published at the start");
    }
    let game = &rec.game;
    let setup = verify_setup(&seed, rec.tag(server::seed::SETUP_TAG).unwrap_or(""), game.start())?;
    let mut pos = game.start().clone();
    let mut chance_draws = 0usize;
    for (k, (m, e)) in game.moves().iter().zip(game.events()).enumerate() {
        let dist = pos.chance(*m);
        let drawn = *dist.sample(&mut seed.ply_rng(k as u32));
        if drawn != *e {
            bail!(
                "move {} ({}): the record says {} but the seed draws {}",
                k + 1,
                rules::uci::to_uci(&pos, *m),
                outcome_words(*e),
                outcome_words(drawn)
            );
        }
        if dist.outcomes().len() > 1 {
            chance_draws += 1;
        }
        pos.play_event(*m, *e);
    }
    Ok(format!(
        "ok: the seed matches its published hash{setup} and all {} moves ({chance_draws} chance draws) replay exactly",
        game.moves().len()
    ))
}

/// The games of a file of PGN records, each from its first tag to the next game's first tag (a
/// tag line after moves, outside comments); a text without tags is one game.
fn split_games(text: &str) -> Vec<&str> {
    let mut starts = Vec::new();
    let (mut offset, mut in_comment, mut after_moves) = (0, false, false);
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        let tag = !in_comment
            && t.starts_with('[')
            && t.ends_with(']')
            && t[1..].split_whitespace().next().is_some_and(rules::record::is_tag_name);
        if tag {
            if starts.is_empty() || after_moves {
                starts.push(offset);
            }
            after_moves = false;
        } else {
            if !t.is_empty() && !t.starts_with('%') {
                after_moves = true;
            }
            for c in line.chars() {
                match c {
                    '{' => in_comment = true,
                    '}' => in_comment = false,
                    _ => {}
                }
            }
        }
        offset += line.len();
    }
    match starts.len() {
        0 | 1 => vec![text],
        _ => starts
            .iter()
            .zip(starts.iter().skip(1).chain(std::iter::once(&text.len())))
            .map(|(&a, &b)| &text[a..b])
            .collect(),
    }
}

/// The value of the tag `name` in a record's text, as written.
fn tag_of<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    text.lines().find_map(|l| {
        let rest = l.trim().strip_prefix('[')?.strip_prefix(name)?;
        rest.trim_start().strip_prefix('"')?.strip_suffix("\"]")
    })
}

/// A `--variant-file`, read and loaded.
fn variant_file(path: &Path) -> Result<VariantFile> {
    use sha2::{Digest, Sha256};
    let toml = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let hash = hex::encode(Sha256::digest(toml.as_bytes()));
    let variant =
        rules::spec::load_variant_str(&toml).with_context(|| format!("reading the variant file {}", path.display()))?;
    Ok(VariantFile { path: path.to_path_buf(), hash, variant })
}

/// The custom variant a record needs: the variant file given whose SHA-256 is the record's
/// `VariantSha256` tag (none for a built-in variant). `alone`: a variant file given for a record
/// that names none is an error.
fn custom_variant(text: &str, files: &[VariantFile], alone: bool) -> Result<Vec<&'static rules::Variant>> {
    let Some(tag) = tag_of(text, "VariantSha256").map(str::to_ascii_lowercase) else {
        if alone && !files.is_empty() {
            bail!("the record names no variant file (no VariantSha256 tag), so --variant-file does not apply");
        }
        return Ok(Vec::new());
    };
    if let Some(f) = files.iter().find(|f| f.hash == tag) {
        return Ok(vec![f.variant]);
    }
    match files {
        [] => bail!(
            "the game is of a variant defined by a variant file: give it with --variant-file FILE (SHA-256 {tag})"
        ),
        [f] => bail!("{} is not the game's variant file (SHA-256 {}, the record says {tag})", f.path.display(), f.hash),
        _ => bail!("none of the variant files given is the game's (the record says SHA-256 {tag})"),
    }
}

/// Checks what the seed drew at the start (`drawn`, the record's setup tag) against the
/// record's start; the phrase that reports it (empty if nothing was drawn).
fn verify_setup(seed: &GameSeed, drawn: &str, start: &rules::Position) -> Result<String> {
    use server::seed::SetupDraw;
    let draws = seed.replay_setup(drawn, start).map_err(|e| anyhow!("the {} tag: {e}", server::seed::SETUP_TAG))?;
    let drawn_kinds: Vec<&str> = drawn.split_whitespace().collect();
    let mut said = Vec::new();
    for draw in draws {
        match draw {
            SetupDraw::SnowFall(n) => {
                let recorded = rules::variants::snowfall::percent(start.variant());
                if recorded != Some(n) {
                    let has = recorded.map_or("none".to_string(), |r| format!("{r} %"));
                    bail!("the seed draws a SnowFall percentage of {n} % but the record's game has {has}");
                }
                said.push(format!("the SnowFall percentage ({n} %)"));
            }
            SetupDraw::Map(fen) => {
                if start.fen() != fen {
                    bail!("the start position is not the one the seed draws: the seed draws {fen}");
                }
                said.push("the square map".to_string());
            }
            SetupDraw::Start(n, fen) => {
                if start.fen() != fen {
                    bail!(
                        "the start position is not the one the seed draws: the seed draws Chess960 number {n}, {fen}"
                    );
                }
                said.push(format!("the start position (Chess960 number {n})"));
            }
        }
    }
    // What the server would have drawn had the creator not chosen it: the seed vouches for
    // none of it, so the report says so (a record whose setup tag was deleted reads the same).
    let v = start.variant();
    let chosen: Vec<&str> = [
        (
            rules::variants::snowfall::percent(v).is_some() && !drawn_kinds.contains(&"snowfall"),
            "the SnowFall percentage",
        ),
        (rules::variants::probabilistic::options(v).is_some() && !drawn_kinds.contains(&"map"), "the square map"),
        (rules::variants::chess960::is_chess960(v) && !drawn_kinds.contains(&"start"), "the start position"),
    ]
    .into_iter()
    .filter_map(|(chosen, what)| chosen.then_some(what))
    .collect();
    let mut report = if said.is_empty() { String::new() } else { format!(", it drew {}", said.join(" and ")) };
    if !chosen.is_empty() {
        report.push_str(&format!(
            " ({} {} not drawn by the seed but chosen when the game was created: the seed does not vouch for {})",
            chosen.join(" and "),
            if chosen.len() == 1 { "was" } else { "were" },
            if chosen.len() == 1 { "it" } else { "them" }
        ));
    }
    Ok(report)
}

/// A Predictor record: every ply replayed and every sealed ply's commitments opened by its
/// revealed orders and nonces (the reader checks them against the `GameId` tag).
fn verify_predictor(text: &str) -> Result<String> {
    let rec = rules::predictor::record::read(text).context("reading the record")?;
    let plies = rec.game.plies();
    let sealed = plies.iter().filter(|p| p.seals.is_some()).count();
    if sealed < plies.len() {
        bail!("{} of {} plies carry no commitments: they cannot be checked", plies.len() - sealed, plies.len());
    }
    // A forfeit by unplayable orders: the published reveal opens the published commitment, is
    // for the ply after the last one played, and its orders are indeed not playable there.
    let mut forfeit = String::new();
    if let Some(line) = rec.tag("ForfeitReveal") {
        use rules::predictor::commit::{Commitment, Reveal};
        let reveal = Reveal::parse(line).map_err(|e| anyhow!("the ForfeitReveal tag: {e}"))?;
        let commitment: Commitment = rec
            .tag("ForfeitCommitment")
            .ok_or_else(|| anyhow!("a ForfeitReveal tag without its ForfeitCommitment"))?
            .parse()
            .map_err(|e| anyhow!("the ForfeitCommitment tag: {e}"))?;
        reveal.verify(&commitment).map_err(|e| anyhow!("the forfeited orders do not open their commitment: {e}"))?;
        let next = rec.game.plies().len() as u32 + 1;
        if reveal.ply != next {
            bail!("the forfeited orders are for ply {}, but the record's next ply is {next}", reveal.ply);
        }
        if rules::predictor::Orders::parse(rec.game.position(), reveal.side, &reveal.orders).is_ok() {
            bail!("the forfeited orders '{}' can be played in the position: the forfeit is wrong", reveal.orders);
        }
        forfeit = format!(
            "; {}'s forfeited orders '{}' open their commitment and cannot be played",
            reveal.side, reveal.orders
        );
    }
    Ok(format!("ok: all {} plies replay and every commitment opens with its revealed orders{forfeit}", plies.len()))
}

/// A chance outcome as the records write it: `no gift`, `gift W:P B:-`, `success`, `failure`.
fn outcome_words(e: rules::chance::Event) -> String {
    match (e, server::live::event_text(e).as_str()) {
        (rules::chance::Event::Success, _) => "success (no gift, no failed roll)".into(),
        (_, text) => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_splits_into_its_games_at_the_tags_after_moves() {
        let one = "[Event \"a\"]\n[Site \"b\"]\n\n1. e4 {a comment\n[Not \"a tag\"]\n} e5 *\n";
        assert_eq!(split_games(one), vec![one]);
        let two = format!("{one}\n[Event \"c\"]\n\n1. d4 *\n\n");
        assert_eq!(split_games(&two), vec![format!("{one}\n").as_str(), "[Event \"c\"]\n\n1. d4 *\n\n"]);
        // Moves without tags are one game; so is an empty text.
        assert_eq!(split_games("1. e4 e5 *"), vec!["1. e4 e5 *"]);
        assert_eq!(split_games(""), vec![""]);
        // A Predictor record's ply lines are moves too.
        let p = "[Variant \"Predictor\"]\n\n1. e2e4 | e7e5\n";
        assert_eq!(split_games(&format!("{p}{p}")).len(), 2);
    }

    #[test]
    fn tags_are_read_as_written() {
        let text = "[GameId \"abc\"]\n[SeedHash \"00\"]\n[Seed \"11\"]\n";
        assert_eq!(
            (tag_of(text, "Seed"), tag_of(text, "GameId"), tag_of(text, "Result")),
            (Some("11"), Some("abc"), None)
        );
    }
}
