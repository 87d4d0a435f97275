//! How many table-log lines per second `record` makes durable: the referee's
//! verdict, the chained insert, and the `synchronous=FULL` commit. Two regimes: one
//! commit per line (a table sending one play at a time) and one commit per batch
//! of waiting lines (a burst), as `eleusis record` does.
//!
//! Run: `cargo bench --bench store_record`

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};

use eleusis::store::history::standard_referee;
use eleusis::store::recorder::Recorder;
use eleusis::store::Store;

#[path = "../tests/store_support/mod.rs"]
mod store_support;

fn record(c: &mut Criterion) {
    let lines = store_support::legal_burst(300, 42);
    let numbered: Vec<(usize, String)> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| (i + 1, l.clone()))
        .collect();
    let mut group = c.benchmark_group("record");
    group.sample_size(10);
    group.throughput(Throughput::Elements(lines.len() as u64));
    for batch in [1usize, 256] {
        group.bench_function(
            format!("{} lines, commit every {batch}", lines.len()),
            |b| {
                b.iter_batched(
                    || tempfile::tempdir().expect("temp dir"),
                    |dir| {
                        let store = Store::open(&dir.path().join("bench.db")).expect("open");
                        let mut recorder = Recorder::new_game(&store, standard_referee());
                        for chunk in numbered.chunks(batch) {
                            recorder.record_batch(chunk).expect("record");
                        }
                        drop(recorder);
                        drop(store);
                        dir
                    },
                    BatchSize::PerIteration,
                )
            },
        );
    }
    group.finish();
}

criterion_group!(benches, record);
criterion_main!(benches);
