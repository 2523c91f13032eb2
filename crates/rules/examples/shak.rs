use shakmaty::{CastlingMode, Chess, Position as _};
fn perft<P: shakmaty::Position + Clone>(pos: &P, depth: u32) -> u64 {
    let moves = pos.legal_moves();
    if depth == 1 { return moves.len() as u64; }
    let mut n = 0;
    for m in &moves { let mut c = pos.clone(); c.play_unchecked(*m); n += perft(&c, depth - 1); }
    n
}
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let setup: shakmaty::fen::Fen = args[1].parse().unwrap();
    let p: Chess = setup.into_position(CastlingMode::Standard).unwrap();
    println!("{}", perft(&p, args[2].parse().unwrap()));
}
