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

/// Invisible format characters a chat line has no use for: zero-width spaces and joiners'
/// neighbours, direction marks and overrides (which could turn the rest of the page's line
/// around), the byte-order mark. Zero-width joiners stay (emoji are built with them).
fn is_invisible(c: char) -> bool {
    matches!(c, '\u{200B}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}')
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
        assert_eq!(clean("👨\u{200D}👩"), Ok("👨\u{200D}👩".into()), "emoji keep their joiners");
        let long = "é".repeat(MAX_CHARS);
        assert_eq!(clean(&long), Ok(long.clone()));
        assert!(clean(&format!("{long}x")).is_err_and(|e| e.contains("141 characters; at most 140")));
    }
}
