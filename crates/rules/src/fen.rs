//! FEN for every board size, with pockets in brackets and `~` for promoted pieces.
//! Parsing gives a `Setup` (syntax errors name the field); `Position::from_fen` adds legality.

use crate::board::PROMOTED;
use crate::color::Color;
use crate::piece::Piece;
use crate::position::{Position, PositionError};
use crate::setup::Setup;
use crate::square::Square;
use crate::variant::Variant;
use std::fmt::Write;

/// A syntax error in a FEN, naming the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FenError {
    /// Nothing to parse.
    #[error("empty FEN")]
    Empty,
    /// The placement field.
    #[error("invalid board field: {0}")]
    Board(String),
    /// The pocket (hand) part.
    #[error("invalid pocket: {0}")]
    Pocket(String),
    /// The side-to-move field.
    #[error("invalid side to move '{0}' (expected w or b)")]
    Turn(String),
    /// The castling field.
    #[error("invalid castling field '{0}'")]
    Castling(String),
    /// The en-passant field.
    #[error("invalid en-passant field '{0}'")]
    EnPassant(String),
    /// The halfmove clock.
    #[error("invalid halfmove clock '{0}'")]
    Halfmoves(String),
    /// The fullmove number.
    #[error("invalid fullmove number '{0}'")]
    Fullmoves(String),
    /// Extra fields after the fullmove number.
    #[error("unexpected extra field '{0}'")]
    ExtraField(String),
    /// Probabilistic chess: the square map (seventh field) is missing or malformed.
    #[error("{0} (Probabilistic chess FENs end with the square map: 64 percentages, rank 8 first, ',' between squares, '/' between ranks)")]
    SquareMap(String),
}

/// Why a FEN could not give a position: bad syntax, or a setup that is not legal.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseFenError {
    /// The text is not a FEN for this variant.
    #[error("{0}")]
    Syntax(#[from] FenError),
    /// The FEN is well formed but the position is not legal.
    #[error("illegal position: {0}")]
    Illegal(#[from] PositionError),
}

fn parse_pocket(variant: &Variant, text: &str, setup: &mut Setup) -> Result<(), FenError> {
    for ch in text.chars() {
        if ch == '-' {
            continue;
        }
        let role = variant.role_by_letter(ch).ok_or_else(|| FenError::Pocket(format!("unknown piece '{ch}'")))?;
        if Some(role) == variant.king() {
            return Err(FenError::Pocket("a king cannot be in hand".into()));
        }
        let color = Color::from_case(ch);
        setup.hands[color.index()].add(role).ok_or_else(|| FenError::Pocket("more than 64 pieces of a kind".into()))?;
    }
    Ok(())
}

/// Reads a switch count `n}` (after its `{`) for the piece on `sq`: one digit up to the
/// variant's column-switch limit.
fn parse_switches(
    variant: &Variant,
    chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
    sq: Square,
) -> Result<u8, FenError> {
    let limit = variant.column_switch_limit.unwrap_or(0);
    if limit == 0 {
        return Err(FenError::Board(format!("switch count at {sq}, but {} has no column-switch limit", variant.name)));
    }
    let mut text = String::new();
    loop {
        match chars.next() {
            Some('}') => break,
            Some(ch) if text.len() < 4 => text.push(ch),
            _ => return Err(FenError::Board(format!("unterminated switch count at {sq} (expected '{{n}}')"))),
        }
    }
    let digits =
        !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) && (text.len() == 1 || !text.starts_with('0'));
    match text.parse::<u8>().ok().filter(|_| digits) {
        Some(n) if n <= limit => Ok(n),
        Some(n) => Err(FenError::Board(format!("switch count {n} at {sq} is more than the limit {limit}"))),
        None => Err(FenError::Board(format!("switch count '{text}' at {sq} is not a number 0..={limit}"))),
    }
}

/// Parses a FEN's syntax for a variant.
///
/// A `~` after a piece marks it promoted; it is kept only in variants where captures go to hand.
/// In variants with a column-switch limit (Baby Chess) `{n}` after a piece (and its `~`) gives
/// its switch count, 0 to the limit; `fen()` writes it for counts above 0.
pub fn parse_setup(variant: &Variant, fen: &str) -> Result<Setup, FenError> {
    let g = variant.geometry;
    let mut fields = fen.split_ascii_whitespace();
    let board_field = fields.next().ok_or(FenError::Empty)?;
    let mut setup = Setup::default();

    // Pocket: "board[pocket]" or an extra rank "board/pocket".
    let (placement, pocket) = match board_field.find('[') {
        Some(i) => {
            let rest = &board_field[i + 1..];
            let inner = rest.strip_suffix(']').ok_or_else(|| FenError::Pocket("missing ']'".into()))?;
            (&board_field[..i], Some(inner))
        }
        None => {
            let ranks = board_field.split('/').count();
            if ranks == g.ranks() as usize + 1 && variant.drops {
                let i = board_field.rfind('/').unwrap_or(0);
                (&board_field[..i], Some(&board_field[i + 1..]))
            } else {
                (board_field, None)
            }
        }
    };
    if placement.is_empty() {
        return Err(FenError::Board("empty".into()));
    }
    let rows: Vec<&str> = placement.split('/').collect();
    if rows.len() != g.ranks() as usize {
        return Err(FenError::Board(format!("{} ranks, expected {}", rows.len(), g.ranks())));
    }
    for (i, row) in rows.iter().enumerate() {
        let rank = g.ranks() - 1 - i as u8;
        let mut file: u32 = 0;
        let mut chars = row.chars().peekable();
        while let Some(ch) = chars.next() {
            if let Some(d) = ch.to_digit(10) {
                let mut n = d;
                // A count is written without leading zeros (`K07` is not `K7`, as python-chess and
                // shakmaty read it): a zero is only ever a zero count, refused below.
                if d == 0 {
                    return Err(FenError::Board(format!("zero empty squares on rank {}", rank + 1)));
                }
                while let Some(d2) = chars.peek().and_then(|c| c.to_digit(10)) {
                    // Saturating: a run of digits longer than any board is an error below, not an overflow.
                    n = n.saturating_mul(10).saturating_add(d2);
                    chars.next();
                }
                if n == 0 {
                    return Err(FenError::Board(format!("zero empty squares on rank {}", rank + 1)));
                }
                file = file.saturating_add(n);
            } else if ch == '~' {
                return Err(FenError::Board("'~' must follow a piece".into()));
            } else if ch == '{' {
                return Err(FenError::Board(format!(
                    "switch count '{{' on an empty square of rank {} (it must follow a piece)",
                    rank + 1
                )));
            } else {
                let role = variant
                    .role_by_letter(ch)
                    .ok_or_else(|| FenError::Board(format!("unknown piece '{ch}' for {}", variant.name)))?;
                if file >= g.files() as u32 {
                    return Err(FenError::Board(format!("rank {} has more than {} files", rank + 1, g.files())));
                }
                let mut state = 0;
                if chars.peek() == Some(&'~') {
                    chars.next();
                    // A promoted piece came from a pawn: a king or a pawn never is one.
                    if Some(role) == variant.king() || Some(role) == variant.pawn() {
                        return Err(FenError::Board(format!(
                            "'{ch}~': a {} cannot be a promoted piece",
                            variant.piece(role).name
                        )));
                    }
                    // Only where captures go to hand does being promoted matter (and `fen()` write it);
                    // elsewhere the mark is read and dropped, so one position has one hash and one FEN.
                    if variant.captures_to_hand {
                        state = PROMOTED;
                    }
                }
                let sq = Square::new(file as u8, rank).ok_or_else(|| FenError::Board("square outside 8x8".into()))?;
                if chars.peek() == Some(&'{') {
                    chars.next();
                    state |= parse_switches(variant, &mut chars, sq)?;
                }
                setup.board.put(sq, Piece { color: Color::from_case(ch), role }, state);
                file += 1;
            }
            if file > g.files() as u32 {
                return Err(FenError::Board(format!("rank {} has more than {} files", rank + 1, g.files())));
            }
        }
        if file != g.files() as u32 {
            return Err(FenError::Board(format!("rank {} has {} files, expected {}", rank + 1, file, g.files())));
        }
    }
    if let Some(p) = pocket {
        parse_pocket(variant, p, &mut setup)?;
    }

    if let Some(turn) = fields.next() {
        setup.turn = match turn {
            "w" => Color::White,
            "b" => Color::Black,
            other => return Err(FenError::Turn(other.into())),
        };
    }
    if let Some(c) = fields.next() {
        if c != "-" {
            let chess960 = variant.castling.is_some_and(|c| c.chess960);
            for ch in c.chars() {
                let (i, file) = match ch {
                    'K' => (0, None),
                    'Q' => (1, None),
                    'k' => (2, None),
                    'q' => (3, None),
                    // Chess960: the rook's file, on the side of the king it stands on.
                    'A'..='H' | 'a'..='h' if chess960 => {
                        let color = Color::from_case(ch);
                        let file = ch.to_ascii_lowercase() as u8 - b'a';
                        let rank = g.relative_rank_mask(color, 0).first().map_or(0, |s| s.rank());
                        let king = variant.t.king.and_then(|k| {
                            setup.board.pieces(color, k).into_iter().find(|s| s.rank() == rank).map(|s| s.file())
                        });
                        let Some(king) = king.filter(|&k| k != file) else {
                            return Err(FenError::Castling(c.into()));
                        };
                        (2 * color.index() + usize::from(file < king), Some(file))
                    }
                    // Shredder-FEN in a variant with fixed castling (python-chess reads it):
                    // the corner rooks' files, `HAha` for `KQkq`.
                    'A'..='H' | 'a'..='h' if variant.castling.is_some() => {
                        let color = Color::from_case(ch);
                        let file = ch.to_ascii_lowercase() as u8 - b'a';
                        match file {
                            0 => (2 * color.index() + 1, None),
                            f if f + 1 == g.files() => (2 * color.index(), None),
                            _ => return Err(FenError::Castling(c.into())),
                        }
                    }
                    _ => return Err(FenError::Castling(c.into())),
                };
                if setup.castling[i] {
                    return Err(FenError::Castling(c.into()));
                }
                setup.castling[i] = true;
                setup.castling_files[i] = file;
            }
        }
    }
    if let Some(ep) = fields.next() {
        if ep != "-" {
            let sq = Square::parse(ep).filter(|s| g.contains(*s)).ok_or_else(|| FenError::EnPassant(ep.into()))?;
            setup.ep = Some(sq);
        }
    }
    if let Some(h) = fields.next() {
        setup.halfmoves = h.parse().map_err(|_| FenError::Halfmoves(h.into()))?;
    }
    if let Some(f) = fields.next() {
        let n: u32 = f.parse().map_err(|_| FenError::Fullmoves(f.into()))?;
        setup.fullmoves = n.max(1);
    }
    if matches!(variant.chance, crate::chance::ChanceRule::SquareMap { .. }) {
        let text = fields.next().ok_or_else(|| FenError::SquareMap("the square map is missing".into()))?;
        let (map, blocked) = crate::square_map::SquareMap::parse(text, variant.geometry)
            .map_err(|e| FenError::SquareMap(e.to_string()))?;
        if blocked.any() && variant.shrink_after.is_none() {
            return Err(FenError::SquareMap("blocked squares ('x') need the shrinking board".into()));
        }
        for sq in variant.geometry.mask() {
            setup.square_state[sq.index()] =
                map.percent(sq) | if blocked.contains(sq) { crate::square_map::BLOCKED } else { 0 };
        }
    }
    if let Some(extra) = fields.next() {
        return Err(FenError::ExtraField(extra.into()));
    }
    Ok(setup)
}

impl Position {
    /// Parses and validates a FEN.
    pub fn from_fen(variant: &'static Variant, fen: &str) -> Result<Position, ParseFenError> {
        let setup = parse_setup(variant, fen)?;
        Ok(Position::from_setup(variant, setup)?)
    }

    /// Parses a FEN as [`Position::from_fen`] does, but drops the castling rights and the
    /// en-passant square the position cannot have (a stale `K` after the king moved, an `e6`
    /// with no pawn that double-stepped) instead of refusing it, as Stockfish reads a GUI's FEN
    /// (and as shakmaty's `ignore_invalid_castling_rights` and `ignore_invalid_ep_square` do).
    /// Returns the position and what was dropped, each as the error it would have been.
    ///
    /// # Errors
    ///
    /// The FEN does not read, or the position is illegal for another reason.
    pub fn from_fen_lenient(
        variant: &'static Variant,
        fen: &str,
    ) -> Result<(Position, Vec<PositionError>), ParseFenError> {
        let mut setup = parse_setup(variant, fen)?;
        let mut dropped = Vec::new();
        loop {
            match Position::from_setup(variant, setup.clone()) {
                Ok(pos) => return Ok((pos, dropped)),
                Err(e @ (PositionError::BadCastlingRights(ch) | PositionError::NoCastling(ch))) => {
                    let i = ['K', 'Q', 'k', 'q'].iter().position(|&c| c == ch);
                    match i.filter(|&i| setup.castling[i]) {
                        Some(i) => setup.castling[i] = false,
                        None => return Err(e.into()),
                    }
                    dropped.push(e);
                }
                Err(e @ PositionError::Chess960Castling(_)) if setup.castling.iter().any(|&c| c) => {
                    setup.castling = [false; 4];
                    dropped.push(e);
                }
                Err(e @ PositionError::BadEnPassant(_)) if setup.ep.is_some() => {
                    setup.ep = None;
                    dropped.push(e);
                }
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// The placement field (with `~` marks in variants where promoted pieces matter).
    pub fn board_fen(&self) -> String {
        let g = self.variant.geometry;
        let mark_promoted = self.variant.captures_to_hand;
        let mut s = String::with_capacity(72);
        for rank in (0..g.ranks()).rev() {
            let mut empty = 0;
            for file in 0..g.files() {
                let Some(sq) = Square::new(file, rank) else { continue };
                match self.board.piece_at(sq) {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            let _ = write!(s, "{empty}");
                            empty = 0;
                        }
                        s.push(self.variant.piece(p.role).char(p.color));
                        if mark_promoted && self.board.state_at(sq) & PROMOTED != 0 {
                            s.push('~');
                        }
                        let switches = self.switches_at(sq);
                        if switches != 0 {
                            let _ = write!(s, "{{{switches}}}");
                        }
                    }
                }
            }
            if empty > 0 {
                let _ = write!(s, "{empty}");
            }
            if rank > 0 {
                s.push('/');
            }
        }
        if self.variant.drops {
            s.push('[');
            for c in Color::ALL {
                for (role, n) in self.hands[c.index()].iter() {
                    for _ in 0..n {
                        s.push(self.variant.piece(role).char(c));
                    }
                }
            }
            s.push(']');
        }
        s
    }

    /// Chess960 (X-FEN): the rook's file letter for castling right `i` (`[K, Q, k, q]`) when
    /// another rook of the side stands further out on that side, so that `KQkq` (the outermost
    /// rook) would name another; `None` where `KQkq` is right.
    fn castling_letter(&self, i: usize) -> Option<char> {
        let c = self.variant.castling.filter(|c| c.chess960)?;
        let (color, side) = (if i < 2 { Color::White } else { Color::Black }, i % 2);
        let rank = self.variant.geometry.relative_rank_mask(color, 0).first().map_or(0, |s| s.rank());
        let file = c.rook_file[side];
        let rook = self.variant.role_by_letter('r')?;
        let outer = |f: u8| Square::new(f, rank).and_then(|sq| self.board.piece_at(sq));
        let files = self.variant.geometry.files();
        let mut beyond = if side == 0 { file + 1..files } else { 0..file };
        let ambiguous = beyond.any(|f| outer(f) == Some(Piece { color, role: rook }));
        let letter = (b'a' + file) as char;
        ambiguous.then(|| if color == Color::White { letter.to_ascii_uppercase() } else { letter })
    }

    /// The en-passant square if a legal en-passant capture exists (as FEN writes it).
    pub fn legal_ep_square(&self) -> Option<Square> {
        let ep = self.ep?;
        self.legal_moves().iter().any(|m| m.kind() == crate::moves::MoveKind::EnPassant).then_some(ep)
    }

    /// The FEN (en passant written only when a legal en-passant capture exists).
    pub fn fen(&self) -> String {
        let mut s = self.board_fen();
        let _ = write!(s, " {} ", self.turn.char());
        let rights = self.castling_rights();
        if rights.iter().any(|&r| r) {
            for (i, ch) in ['K', 'Q', 'k', 'q'].into_iter().enumerate() {
                if rights[i] {
                    s.push(self.castling_letter(i).unwrap_or(ch));
                }
            }
        } else {
            s.push('-');
        }
        match self.legal_ep_square() {
            Some(ep) => {
                let _ = write!(s, " {ep}");
            }
            None => s.push_str(" -"),
        }
        let _ = write!(s, " {} {}", self.halfmoves, self.fullmoves);
        if matches!(self.variant.chance, crate::chance::ChanceRule::SquareMap { .. }) {
            let _ = write!(s, " {}", self.square_map().write(self.blocked(), self.variant.geometry));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use crate::variants::by_name;
    use crate::Position;

    /// Found by the `fen` fuzz target: chess kept a `~` mark that `fen()` does not write, so the same
    /// position had two hashes and `e1d1` gave a hash that its own FEN did not.
    #[test]
    fn promoted_mark_is_dropped_where_it_does_not_matter() {
        let Some(chess) = by_name("chess") else { panic!("chess") };
        let plain = Position::from_fen(chess, "rnbqkBnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBqKBNR w KQkq - 0 3");
        let marked = Position::from_fen(chess, "rnbqkBnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNB~qKBNR w KQkq - 0 3");
        let (Ok(plain), Ok(marked)) = (plain, marked) else { panic!("both parse") };
        assert_eq!(marked.hash(), plain.hash());
        assert!(marked == plain);

        let Some(zh) = by_name("crazyhouse") else { panic!("crazyhouse") };
        let Ok(zh) = Position::from_fen(zh, "2k5/4Q~3/8/8/8/8/5K2/8[] b - - 0 30") else { panic!("parses") };
        assert_eq!(zh.fen(), "2k5/4Q~3/8/8/8/8/5K2/8[] b - - 0 30");
    }
}
