//! Standard Algebraic Notation for every variant: disambiguation, captures, promotions,
//! castling, drops (`Q@f2`, `P@e4`; shakmaty's `@e4` is read too) and check marks.

use crate::moves::{Move, MoveKind, MoveList};
use crate::position::Position;
use crate::square::Square;

/// Errors turning SAN text into a legal move.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SanError {
    /// Not SAN syntax.
    #[error("invalid SAN '{0}'")]
    Syntax(String),
    /// No legal move matches.
    #[error("illegal SAN '{text}' in {fen}")]
    Illegal {
        /// The text.
        text: String,
        /// The position.
        fen: String,
    },
    /// More than one legal move matches.
    #[error("ambiguous SAN '{text}' in {fen}")]
    Ambiguous {
        /// The text.
        text: String,
        /// The position.
        fen: String,
    },
}

/// Writes `m` (legal in `pos`) in SAN without the check suffix.
pub fn to_san_plain(pos: &Position, m: Move) -> String {
    let v = pos.variant();
    let mut s = String::with_capacity(8);
    match m.kind() {
        MoveKind::Castle => {
            return if pos.castle_side(m) == Some(0) { "O-O".into() } else { "O-O-O".into() };
        }
        MoveKind::Drop => {
            // Every drop names its piece, pawns too (`P@e4`), as lichess, Fairy-Stockfish
            // and python-chess write them; `@e4` is still read.
            if let Some(r) = m.drop_role() {
                s.push(v.piece(r).char(crate::Color::White));
            }
            s.push('@');
            s.push_str(&m.to().to_string());
            return s;
        }
        MoveKind::Pass => return "--".into(),
        _ => {}
    }
    let from = m.from();
    let Some(role) = pos.board().role_at(from) else { return "--".into() };
    let capture = pos.is_capture(m);
    let pawn = Some(role) == v.pawn();
    if !pawn {
        s.push(v.piece(role).san_letter().unwrap_or('?'));
    }
    // Other legal moves of the same kind of piece to the same square. Fairy pawns need this too: a
    // pawn that also steps diagonally (`fmF`) or backwards reaches one square from several origins.
    let (mut ambiguous, mut same_file, mut same_rank) = (false, false, false);
    let mut legal = MoveList::new();
    pos.gen_legal(&mut legal);
    for &o in &legal {
        if o.is_drop() || o.kind() == MoveKind::Castle || o.from() == from || o.to() != m.to() {
            continue;
        }
        if pos.board().role_at(o.from()) == Some(role) && o.promotion_role() == m.promotion_role() {
            ambiguous = true;
            same_rank |= o.from().rank() == from.rank();
            same_file |= o.from().file() == from.file();
        }
    }
    // A pawn capture always names the file (`exd5`); otherwise the file, the rank or both, as needed.
    if (pawn && capture) || (ambiguous && (pawn || !same_file || same_rank)) {
        s.push(from.file_char());
    }
    if same_file {
        s.push(from.rank_char());
    }
    if capture {
        s.push('x');
    }
    s.push_str(&m.to().to_string());
    if let Some(p) = m.promotion_role() {
        s.push('=');
        s.push(v.piece(p).letter.to_ascii_uppercase());
    }
    s
}

/// Writes `m` (legal in `pos`) in SAN with `+` or `#`.
pub fn to_san(pos: &Position, m: Move) -> String {
    let mut s = to_san_plain(pos, m);
    let mut after = pos.clone();
    after.play_unchecked(m);
    s.push_str(check_mark(&after));
    s
}

/// Writes `m` (legal in `pos`) in SAN with `+` or `#` judged where the move and its chance
/// outcome `event` lead, as game records mark it: a SnowFall gift can give the checked side a
/// drop that blocks (`Ra8+`, not `Ra8#`); a move that failed (Probabilistic chess) marks nothing.
pub fn to_san_event(pos: &Position, m: Move, event: crate::chance::Event) -> String {
    let mut s = to_san_plain(pos, m);
    if event != crate::chance::Event::Failure {
        let mut after = pos.clone();
        after.play_event(m, event);
        s.push_str(check_mark(&after));
    }
    s
}

/// `+`, `#` or nothing for the position a move reached: check, checkmate, or (king-capture
/// variants) the king taken.
pub fn check_mark(after: &Position) -> &'static str {
    if after.is_check() {
        if after.has_legal_move() {
            "+"
        } else {
            "#"
        }
    } else if after.variant().win == crate::variant::WinCondition::KingCapture
        && after.king_square(after.turn()).is_none()
    {
        "#"
    } else {
        ""
    }
}

/// What a SAN text names, before it is matched against a position's moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SanForm {
    /// `--`.
    Pass,
    /// `O-O` (king side: true) or `O-O-O`.
    Castle(bool),
    /// `Q@f2`, `P@e4` (`@e4` read as a pawn).
    Drop(crate::Role, Square),
    /// A piece or pawn move: the piece (`None`: a variant without pawns), the target, the
    /// promotion piece, and the disambiguating file and rank.
    Piece { role: Option<crate::Role>, to: Square, promotion: Option<crate::Role>, file: Option<u8>, rank: Option<u8> },
}

impl SanForm {
    /// Whether `m` (a move of `pos`) is a move this form names; `promotion` also compared
    /// when `exact`.
    pub(crate) fn names(self, pos: &Position, m: Move, exact: bool) -> bool {
        match self {
            SanForm::Pass => m.is_pass(),
            SanForm::Castle(king_side) => m.kind() == MoveKind::Castle && (pos.castle_side(m) == Some(0)) == king_side,
            SanForm::Drop(role, to) => m.drop_role() == Some(role) && m.to() == to,
            SanForm::Piece { role, to, promotion, file, rank } => {
                !m.is_drop()
                    && !m.is_pass()
                    && m.kind() != MoveKind::Castle
                    && m.to() == to
                    && (!exact || m.promotion_role() == promotion)
                    && pos.board().role_at(m.from()) == role
                    && file.is_none_or(|f| m.from().file() == f)
                    && rank.is_none_or(|r| m.from().rank() == r)
            }
        }
    }
}

/// Reads SAN text (suffixes `+ # ! ?` ignored) into what it names in `pos`'s variant.
pub(crate) fn read_san(pos: &Position, text: &str) -> Result<SanForm, SanError> {
    let v = pos.variant();
    let syntax = || SanError::Syntax(text.to_string());
    let illegal = || SanError::Illegal { text: text.to_string(), fen: pos.fen() };
    let t = text.trim_end_matches(['+', '#', '!', '?']);
    // `exd6e.p.`, `exd6ep`: the en-passant mark after the square, as old records write it.
    let t = match t.strip_suffix("e.p.").or_else(|| t.strip_suffix("ep")) {
        Some(head) if head.ends_with(|c: char| c.is_ascii_digit()) => head,
        _ => t,
    };
    if t.is_empty() || !t.is_ascii() {
        return Err(syntax());
    }
    if t == "--" {
        return Ok(SanForm::Pass);
    }
    if matches!(t, "O-O" | "0-0" | "O-O-O" | "0-0-0") {
        return Ok(SanForm::Castle(t.len() == 3));
    }
    if let Some((piece, sq)) = t.split_once('@') {
        let to = Square::parse(sq).ok_or_else(syntax)?;
        let role = match piece {
            "" => v.pawn().ok_or_else(illegal)?,
            p if p.len() == 1 => v.role_by_letter(p.chars().next().unwrap_or('?')).ok_or_else(illegal)?,
            _ => return Err(syntax()),
        };
        return Ok(SanForm::Drop(role, to));
    }
    let b = t.as_bytes();
    let mut i = 0;
    let role = if b[0].is_ascii_uppercase() {
        i = 1;
        Some(v.role_by_letter(b[0] as char).ok_or_else(illegal)?)
    } else {
        v.pawn()
    };
    let mut rest = &t[i..];
    let mut promotion = None;
    if let Some((head, p)) = rest.split_once('=') {
        let mut c = p.chars();
        match (c.next(), c.next()) {
            (Some(ch), None) if ch.is_ascii_alphabetic() => promotion = Some(v.role_by_letter(ch).ok_or_else(illegal)?),
            _ => return Err(syntax()),
        }
        rest = head;
    } else if role == v.pawn() && rest.len() >= 3 {
        // Promotion without '=' (e8Q).
        let last = rest.as_bytes()[rest.len() - 1];
        if last.is_ascii_uppercase() {
            promotion = Some(v.role_by_letter(last as char).ok_or_else(illegal)?);
            rest = &rest[..rest.len() - 1];
        }
    }
    if rest.len() < 2 {
        return Err(syntax());
    }
    let to = Square::parse(&rest[rest.len() - 2..]).ok_or_else(syntax)?;
    let mut disamb = &rest[..rest.len() - 2];
    // `exd5`, and long algebraic `e2-e4`, `Ng1-f3` (the start square a full disambiguation).
    if let Some(d) = disamb.strip_suffix('x').or_else(|| disamb.strip_suffix('-')) {
        disamb = d;
    }
    let (mut file, mut rank) = (None, None);
    for c in disamb.chars() {
        match c {
            'a'..='h' if file.is_none() && rank.is_none() => file = Some(c as u8 - b'a'),
            '1'..='8' if rank.is_none() => rank = Some(c as u8 - b'1'),
            _ => return Err(syntax()),
        }
    }
    Ok(SanForm::Piece { role, to, promotion, file, rank })
}

/// Parses SAN (suffixes `+ # ! ?` ignored) into the legal move it denotes.
pub fn parse_san(pos: &Position, text: &str) -> Result<Move, SanError> {
    let form = read_san(pos, text)?;
    let mut legal = MoveList::new();
    pos.gen_legal(&mut legal);
    let mut found = legal.iter().copied().filter(|&m| form.names(pos, m, true));
    let first = found.next().ok_or_else(|| SanError::Illegal { text: text.to_string(), fen: pos.fen() })?;
    // Only a piece move can be ambiguous (one pass, one castle a side, one drop a square).
    if found.next().is_some() {
        return Err(SanError::Ambiguous { text: text.to_string(), fen: pos.fen() });
    }
    Ok(first)
}

#[cfg(test)]
mod tests {
    use super::{parse_san, to_san};
    use crate::spec::load_variant_str;
    use crate::uci::{parse_uci, to_uci};
    use crate::Position;

    /// What python-chess reads besides SAN proper: long algebraic (`e2-e4`, `Ng1-f3`, `e5xd6`)
    /// and the en-passant mark (`exd6e.p.`, `exd6ep`); and a record with `e.p.` written apart.
    #[test]
    fn long_algebraic_and_en_passant_marks_are_read() {
        let chess = crate::variants::by_name("chess").expect("chess");
        let start = Position::start(chess);
        for (text, uci) in [("e2-e4", "e2e4"), ("Ng1-f3", "g1f3"), ("e2e4", "e2e4")] {
            let m = parse_san(&start, text).or_else(|_| parse_uci(&start, text).map_err(|_| ())).expect(text);
            assert_eq!(to_uci(&start, m), uci, "{text}");
        }
        let ep = Position::from_fen(chess, "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2").expect("FEN");
        for text in ["exd6", "exd6e.p.", "exd6ep", "e5xd6", "e5-d6"] {
            let m = parse_san(&ep, text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(to_uci(&ep, m), "e5d6", "{text}");
        }
        assert!(parse_san(&ep, "e.p.").is_err());
        // Castling written as the king taking its rook, in chess too; written back as e1g1.
        let castles = Position::from_fen(chess, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").expect("FEN");
        for (text, uci) in [("e1h1", "e1g1"), ("e1a1", "e1c1"), ("e1g1", "e1g1")] {
            assert_eq!(to_uci(&castles, parse_uci(&castles, text).expect(text)), uci, "{text}");
        }
        let no_rights = Position::from_fen(chess, "r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1").expect("FEN");
        assert!(parse_uci(&no_rights, "e1h1").is_err());
        let game = crate::record::read_pgn("1. e4 Nf6 2. e5 d5 3. exd6 e.p. *").expect("e.p. apart");
        assert_eq!(game.moves().len(), 5);
    }

    /// Found by the `variant_file` fuzz target: a pawn that also steps diagonally without capturing
    /// reaches a3 from a2 and from b2, and both were written `a3`, which then did not parse (ambiguous).
    #[test]
    fn fairy_pawn_moves_to_one_square_are_disambiguated() {
        let text = "name = \"diagonal-pawns\"\nparent = \"chess\"\n[[piece]]\nletter = \"p\"\nname = \"pawn\"\nbetza = \"fmWfcFfmF\"\npawn = true\n";
        let v = match load_variant_str(text) {
            Ok(v) => v,
            Err(e) => panic!("{e}"),
        };
        let pos = Position::start(v);
        let san = |uci: &str| match parse_uci(&pos, uci) {
            Ok(m) => to_san(&pos, m),
            Err(e) => panic!("{e}"),
        };
        assert_eq!(san("a2a3"), "aa3");
        assert_eq!(san("b2a3"), "ba3");
        assert_eq!(san("g1f3"), "Nf3");
        for m in pos.legal_moves() {
            let text = to_san(&pos, m);
            assert_eq!(parse_san(&pos, &text), Ok(m), "{text} ({})", to_uci(&pos, m));
        }
    }
}
