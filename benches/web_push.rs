//! Latency from God's POST of a play to the tablet's WebSocket push of the new
//! view, through the real service: referee, durable SQLite commit (WAL,
//! synchronous=FULL), view rebuild from the stored log, push.
//!
//! `cargo bench --bench web_push`

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};

#[path = "../tests/web_support/mod.rs"]
mod support;

const ROUND: &str = r#"{"new_game":true,"god":"G","players":["A","B","C","D"],"rule":"if last.odd then black else red","starter":"3H"}"#;

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("dir");
    let server = support::Server::start(&dir.path().join("bench.db"));
    let mut ws = server.ws(false);
    ws.next_view(&server.rt);
    let mut version = server.post("/api/rounds", ROUND).expect(200)["version"]
        .as_u64()
        .unwrap_or(0);
    // Cards alternate colours so most plays are right; a wrong one is fine too.
    let cards = ["4S", "9D", "JC", "2H", "7S", "KD", "QC", "8H", "5C", "6D"];
    let mut i = 0usize;
    c.bench_function("POST /api/plays → WebSocket push", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let body = format!("{{\"cards\":[\"{}\"]}}", cards[i % cards.len()]);
                i += 1;
                let start = Instant::now();
                let reply = server.post("/api/plays", &body);
                let view = ws.view_from(&server.rt, version + 1);
                total += start.elapsed();
                version = view["version"].as_u64().unwrap_or(version);
                let ended = reply.status != 200 || view["state"]["ended"] == true;
                if ended || view["state"]["laid"].as_u64().unwrap_or(0) > 120 {
                    version = server.post("/api/rounds", ROUND).expect(200)["version"]
                        .as_u64()
                        .unwrap_or(version);
                }
            }
            total
        })
    });
    server.stop();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(Duration::from_secs(10));
    targets = bench
}
criterion_main!(benches);
