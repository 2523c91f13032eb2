use rules::{perft, variants, Position};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let v = variants::by_name(&args[1]).unwrap();
    let pos = Position::from_fen(v, &args[2]).unwrap();
    let d: u32 = args[3].parse().unwrap();
    let t = std::time::Instant::now();
    let n = perft(&pos, d);
    let s = t.elapsed().as_secs_f64();
    println!("{n} {:.2}s {:.1} M/s", s, n as f64 / s / 1e6);
}
