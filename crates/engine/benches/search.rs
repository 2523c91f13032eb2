//! `cargo bench -p fairylab-engine --bench search`: the bench positions searched to their
//! fixed depths; prints nodes, nodes/second per position, the chess total and the signature.

fn main() {
    let shallower: i32 = std::env::var("BENCH_SHALLOWER").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    let lines = engine::bench::run(-shallower, |l| {
        println!(
            "{:<20} depth {:>2} nodes {:>10} time {:>8.3} s  {:>9.0} nodes/s",
            l.case.name,
            l.depth,
            l.nodes,
            l.time.as_secs_f64(),
            l.nodes as f64 / l.time.as_secs_f64().max(1e-9)
        );
    });
    let chess: Vec<_> = lines.iter().filter(|l| l.case.variant == "chess").collect();
    let nodes: u64 = chess.iter().map(|l| l.nodes).sum();
    let secs: f64 = chess.iter().map(|l| l.time.as_secs_f64()).sum();
    println!("chess: {nodes} nodes in {secs:.3} s = {:.0} nodes/s", nodes as f64 / secs.max(1e-9));
    println!("bench signature: {}", lines.iter().map(|l| l.nodes).sum::<u64>());
}
