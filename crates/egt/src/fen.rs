//! Table positions as FEN (placement and side to move, men by piece letter, White upper case);
//! parsing finds the family table for the men and, for probes, refuses positions illegal in play.

use crate::board::BoardShape;
use crate::error::EgtError;
use crate::index::Squares;
use crate::material::{Material, BLACK, MAX_MEN, WHITE};
use crate::table::Family;

/// The FEN of a position: placement, side to move (`w`/`b`), and `- - 0 1` for castling, en passant
/// and move counters, so chess tools read it.
pub fn to_fen(material: &Material, board: BoardShape, sq: &Squares, stm: usize) -> String {
    let n = material.men().len();
    let mut out = String::new();
    for rank in (0..board.ranks).rev() {
        let mut empty = 0;
        for file in 0..board.files {
            let s = rank * board.files + file;
            match sq[..n].iter().position(|&x| x == s) {
                Some(m) => {
                    if empty > 0 {
                        out.push_str(&empty.to_string());
                        empty = 0;
                    }
                    out.push(material.letter(m));
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            out.push_str(&empty.to_string());
        }
        if rank > 0 {
            out.push('/');
        }
    }
    out.push_str(if stm == WHITE { " w - - 0 1" } else { " b - - 0 1" });
    out
}

/// A parsed probe position: the family table it belongs to, its men's squares and the side to move.
#[derive(Debug, Clone)]
pub struct ProbePosition {
    /// Index of the table in [`Family::tables`].
    pub table: usize,
    /// The men's squares in the table's man order.
    pub squares: Squares,
    /// Side to move.
    pub stm: usize,
}

/// Parses a FEN for a family: the placement, then optionally the side to move (`w` if omitted),
/// castling and en passant (`-` only: the tables have neither castling nor pawns) and the two
/// move counters (numbers, not used). The position may be illegal in play; [`parse_legal_fen`]
/// refuses those.
///
/// # Errors
///
/// [`EgtError::BadPosition`] naming the fault: bad placement syntax or size, an unknown letter,
/// men that form no material of the family, castling rights or an en-passant square, a counter
/// that is not a number, or an extra field.
pub fn parse_fen(family: &Family, fen: &str) -> Result<ProbePosition, EgtError> {
    let bad = |reason: String| EgtError::BadPosition { fen: fen.to_string(), reason };
    let board = family.board;
    let mut fields = fen.split_whitespace();
    let placement = fields.next().ok_or_else(|| bad("empty FEN".into()))?;
    let stm = match fields.next() {
        None | Some("w") => WHITE,
        Some("b") => BLACK,
        Some(x) => return Err(bad(format!("side to move must be w or b, found {x:?}"))),
    };
    match fields.next() {
        None | Some("-") => {}
        Some(x) => {
            return Err(bad(format!("castling field {x:?}: the tables have no castling, so it must be -")));
        }
    }
    match fields.next() {
        None | Some("-") => {}
        Some(x) => {
            return Err(bad(format!("en-passant field {x:?}: the tables have no pawns, so it must be -")));
        }
    }
    if let Some(x) = fields.next() {
        x.parse::<u32>().map_err(|_| bad(format!("halfmove clock {x:?} is not a number")))?;
    }
    if let Some(x) = fields.next() {
        // 0 is read too, as python-chess and the rules' FEN reader read it.
        x.parse::<u32>().map_err(|_| bad(format!("fullmove number {x:?} is not a number")))?;
    }
    if let Some(x) = fields.next() {
        return Err(bad(format!("unexpected extra field {x:?}")));
    }
    let rows: Vec<&str> = placement.split('/').collect();
    if rows.len() != usize::from(board.ranks) {
        return Err(bad(format!("{} ranks, the table's board {board} has {}", rows.len(), board.ranks)));
    }
    let mut men: Vec<(char, u8)> = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let rank = board.ranks - 1 - i as u8;
        let mut file = 0u32;
        let mut digits = String::new();
        let flush = |digits: &mut String, file: &mut u32| -> Result<(), EgtError> {
            if digits.starts_with('0') {
                return Err(bad(format!("zero empty squares in rank {}", rank + 1)));
            }
            if !digits.is_empty() {
                *file += digits.parse::<u32>().map_err(|_| bad(format!("bad number in rank {}", rank + 1)))?;
                digits.clear();
            }
            Ok(())
        };
        for c in row.chars() {
            if c.is_ascii_digit() {
                digits.push(c);
                continue;
            }
            flush(&mut digits, &mut file)?;
            if !c.is_ascii_alphabetic() {
                return Err(bad(format!("unexpected {c:?} in rank {}", rank + 1)));
            }
            if file >= u32::from(board.files) {
                return Err(bad(format!("rank {} is longer than {} files", rank + 1, board.files)));
            }
            men.push((c, rank * board.files + file as u8));
            file += 1;
        }
        flush(&mut digits, &mut file)?;
        if file != u32::from(board.files) {
            return Err(bad(format!("rank {} has {file} files, the board has {}", rank + 1, board.files)));
        }
    }
    if men.len() > MAX_MEN {
        return Err(bad(format!("{} men; tables hold at most {MAX_MEN}", men.len())));
    }
    for (ti, table) in family.tables.iter().enumerate() {
        let m = &table.material;
        let n = m.men().len();
        if n != men.len() {
            continue;
        }
        let mut used = vec![false; men.len()];
        let mut sq = [0u8; MAX_MEN];
        let mut ok = true;
        for k in 0..n {
            match (0..men.len()).find(|&i| !used[i] && men[i].0 == m.letter(k)) {
                Some(i) => {
                    used[i] = true;
                    sq[k] = men[i].1;
                }
                None => {
                    ok = false;
                    break;
                }
            }
        }
        if ok {
            return Ok(ProbePosition { table: ti, squares: sq, stm });
        }
    }
    let names: Vec<String> = family.tables.iter().map(|t| t.material.to_string()).collect();
    // The same men with the colours exchanged: the table holds the position turned half round
    // (Black's moves are White's turned so), which has this one's value.
    let swapped: Vec<char> = men.iter().map(|&(c, _)| swap_case(c)).collect();
    let exchanged_fits = family.tables.iter().any(|t| {
        let mut want: Vec<char> = (0..t.material.men().len()).map(|k| t.material.letter(k)).collect();
        let mut have = swapped.clone();
        want.sort_unstable();
        have.sort_unstable();
        want == have
    });
    let hint = if exchanged_fits {
        let turned = turned_half_round(&men, board, 1 - stm);
        format!(
            "; with the colours exchanged they do: probe {turned:?} (this position turned half round, the same value)"
        )
    } else {
        String::new()
    };
    Err(bad(format!(
        "the men {:?} form none of this file's endings ({}); each side needs its royal piece{hint}",
        men.iter().map(|x| x.0).collect::<String>(),
        names.join(", ")
    )))
}

fn swap_case(c: char) -> char {
    if c.is_ascii_uppercase() {
        c.to_ascii_lowercase()
    } else {
        c.to_ascii_uppercase()
    }
}

/// The FEN of `men` (letter, square) turned half round with the colours exchanged, `stm` to move.
fn turned_half_round(men: &[(char, u8)], board: BoardShape, stm: usize) -> String {
    let squares = usize::from(board.files) * usize::from(board.ranks);
    let mut at = vec![None; squares];
    for &(c, sq) in men {
        at[squares - 1 - usize::from(sq)] = Some(swap_case(c));
    }
    let rows: Vec<String> = (0..board.ranks)
        .rev()
        .map(|rank| {
            let (mut row, mut empty) = (String::new(), 0);
            for file in 0..board.files {
                match at[usize::from(rank) * usize::from(board.files) + usize::from(file)] {
                    Some(c) => {
                        if empty > 0 {
                            row.push_str(&empty.to_string());
                            empty = 0;
                        }
                        row.push(c);
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                row.push_str(&empty.to_string());
            }
            row
        })
        .collect();
    format!("{} {}", rows.join("/"), if stm == WHITE { "w" } else { "b" })
}

/// Parses a FEN as [`parse_fen`] does and refuses a position chess does not allow: the side not to
/// move in check. The tables hold such positions too (docs/RULES.md, "King capture and mate": the
/// side to move wins by capturing the royal), but a probe answers only positions of real games,
/// as `perft` and the Syzygy tables of lichess do.
///
/// One exception, `-b`'s: Black to move with only its royal left, White in check, where White's
/// last move can have been the capture that bared Black (a white man stands where it could have
/// captured from an empty square, and Black was not in check before it). The rule ends the game
/// on arrival, before the exposed royal could be taken, so the position is a finished game.
///
/// # Errors
///
/// What [`parse_fen`] refuses, and [`EgtError::IllegalPosition`] when the side not to move is in
/// check (outside that exception).
pub fn parse_legal_fen(family: &Family, fen: &str) -> Result<ProbePosition, EgtError> {
    let pos = parse_fen(family, fen)?;
    let moves = &family.tables[pos.table].moves;
    let (sq, them) = (&pos.squares, 1 - pos.stm);
    if moves.in_check(sq, moves.occupied(sq), them) && !bared_by_last_move(family, &pos) {
        let side = if them == WHITE { "White" } else { "Black" };
        return Err(EgtError::IllegalPosition {
            fen: fen.trim().to_string(),
            reason: format!("the side not to move ({side}) is in check"),
        });
    }
    Ok(pos)
}

/// Whether `pos` (Black to move, under `-b`, Black's royal alone against more) can have arisen from
/// a White capture that bared Black: some white man could have captured onto its square from an
/// empty square, and in the position before (that man on the origin, the captured man on its
/// square) White could not capture Black's royal, so it was legal with White to move.
fn bared_by_last_move(family: &Family, pos: &ProbePosition) -> bool {
    let t = &family.tables[pos.table];
    if pos.stm != BLACK || !family.rules.bare_king_lost(&t.material) {
        return false;
    }
    let (moves, sq) = (&t.moves, &pos.squares);
    let occ = moves.occupied(sq);
    let black_royal = sq[t.material.royal(BLACK)];
    (0..t.material.men().len()).filter(|&m| moves.side_of(m) == WHITE).any(|m| {
        let mut found = false;
        moves.for_each_uncapture_origin(m, sq[m], occ, |from| {
            let mut before = *sq;
            before[m] = from;
            // The captured man still stands on sq[m]: occupancy keeps that square, adds `from`.
            found |= !moves.side_attacks(&before, occ | 1u64 << from, WHITE, black_royal);
        });
        found
    })
}
