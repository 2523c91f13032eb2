//! A game's chat between its two players, as lichess's game chat: what a message may say, how
//! often a side may write, and how many messages a game keeps (`POST/GET /api/games/{id}/chat`).
//!
//! Only the players read and write it (their game tokens). The live stream announces each new
//! message by its number and side alone (`{"type":"chat","data":{"seq","by"}}`), so spectators
//! learn nothing of what was said; the players then read the messages after the last they have.

/// The longest message, in characters (lichess's limit).
pub const MAX_CHARS: usize = 140;

/// The most messages a game keeps.
pub const MAX_MESSAGES: i64 = 500;

/// The shortest wait between two messages of one side (milliseconds).
pub const MIN_INTERVAL_MS: i64 = 1000;

/// The format characters (Unicode general category Cf, as of Unicode 16) as inclusive ranges:
/// invisible, and of no use in a chat line. Among them zero-width spaces and joiners, the soft
/// hyphen, direction marks, embeddings, overrides and isolates (which could turn the rest of the
/// page's line around), the byte-order mark, interlinear annotation marks and tag characters.
/// Emoji built with zero-width joiners fall apart into their parts, as plain text shows them.
const FORMAT_CHARACTERS: [(char, char); 21] = [
    ('\u{00AD}', '\u{00AD}'),
    ('\u{0600}', '\u{0605}'),
    ('\u{061C}', '\u{061C}'),
    ('\u{06DD}', '\u{06DD}'),
    ('\u{070F}', '\u{070F}'),
    ('\u{0890}', '\u{0891}'),
    ('\u{08E2}', '\u{08E2}'),
    ('\u{180E}', '\u{180E}'),
    ('\u{200B}', '\u{200F}'),
    ('\u{202A}', '\u{202E}'),
    ('\u{2060}', '\u{2064}'),
    ('\u{2066}', '\u{206F}'),
    ('\u{FEFF}', '\u{FEFF}'),
    ('\u{FFF9}', '\u{FFFB}'),
    ('\u{110BD}', '\u{110BD}'),
    ('\u{110CD}', '\u{110CD}'),
    ('\u{13430}', '\u{1343F}'),
    ('\u{1BCA0}', '\u{1BCA3}'),
    ('\u{1D173}', '\u{1D17A}'),
    ('\u{E0001}', '\u{E0001}'),
    ('\u{E0020}', '\u{E007F}'),
];

/// Whether `c` is a format character ([`FORMAT_CHARACTERS`]).
fn is_invisible(c: char) -> bool {
    FORMAT_CHARACTERS.iter().any(|&(first, last)| (first..=last).contains(&c))
}

/// A message as kept: control characters (line breaks, tabs) become spaces, runs of spaces
/// one, invisible format characters go, and the ends are trimmed. Refused, with the reason, if
/// nothing is left or it is longer than [`MAX_CHARS`] (Unicode scalar values).
pub fn clean(text: &str) -> Result<String, String> {
    let spaced: String =
        text.chars().filter(|&c| !is_invisible(c)).map(|c| if c.is_control() { ' ' } else { c }).collect();
    let kept = spaced.split_whitespace().collect::<Vec<_>>().join(" ");
    let n = kept.chars().count();
    if n == 0 {
        return Err("the message is empty".into());
    }
    if n > MAX_CHARS {
        return Err(format!("the message has {n} characters; at most {MAX_CHARS}"));
    }
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Messages are trimmed and kept on one line; empty and long ones are refused.
    #[test]
    fn a_message_is_kept_on_one_line_within_the_limit() {
        assert_eq!(clean("  good\tluck\r\n  have fun "), Ok("good luck have fun".into()));
        assert_eq!(clean("gg \u{1b}[31m"), Ok("gg [31m".into()));
        assert!(clean(" \n\t ").is_err_and(|e| e.contains("empty")));
        // Invisible characters alone are nothing; a direction override is dropped.
        for blank in ["\u{200B}", "\u{200E} \u{FEFF}", "\u{2066}\u{2069}"] {
            assert!(clean(blank).is_err_and(|e| e.contains("empty")), "{blank:?}");
        }
        assert_eq!(clean("\u{202E}evil"), Ok("evil".into()));
        // Every format character goes: the soft hyphen, joiners, tags, Arabic number signs.
        assert_eq!(
            clean("soft\u{AD}ly \u{200D}joined\u{200C} \u{E0067}tag\u{E007F} \u{0600}1"),
            Ok("softly joined tag 1".into())
        );
        assert_eq!(clean("👨\u{200D}👩"), Ok("👨👩".into()));
        assert!(clean("\u{AD}\u{200D}\u{1343F}").is_err_and(|e| e.contains("empty")));
        let long = "é".repeat(MAX_CHARS);
        assert_eq!(clean(&long), Ok(long.clone()));
        assert!(clean(&format!("{long}x")).is_err_and(|e| e.contains("141 characters; at most 140")));
    }
}
