//! Sends N messages through the library and prints the rate (a profiling
//! aid; the benchmark proper is `cargo xtask bench mail`).
#![allow(clippy::unwrap_used)]
fn main() {
    let n: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20_000);
    let dir = std::env::temp_dir().join(format!("ikigai-sends-{}", std::process::id()));
    let store = ikigai_mail::Store::open(&dir.join("m.db"), "s").unwrap();
    store.register_agent("0/").unwrap();
    store.register_agent("1/").unwrap();
    let start = std::time::Instant::now();
    for i in 0..n {
        store
            .send(
                "1/",
                "0/",
                ikigai_mail::NewMessage::text(format!("message {i}")),
            )
            .unwrap();
    }
    println!(
        "{:.0} sends/s",
        f64::from(n) / start.elapsed().as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(dir);
}
