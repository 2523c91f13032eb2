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

/// A message as kept: control characters (line breaks, tabs) become spaces, runs of spaces
/// one, and the ends are trimmed. Refused, with the reason, if nothing is left or it is longer
/// than [`MAX_CHARS`].
pub fn clean(text: &str) -> Result<String, String> {
    let spaced: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
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
        let long = "é".repeat(MAX_CHARS);
        assert_eq!(clean(&long), Ok(long.clone()));
        assert!(clean(&format!("{long}x")).is_err_and(|e| e.contains("141 characters; at most 140")));
    }
}
