//! The mail figures: one send through the binary (process start to
//! result), sends per second through the library, and an inbox page from a
//! database of a million messages.

use super::{Env, Report, Row, median, ms, time_call};
use anyhow::{Result, ensure};
use ikigai_mail::{NewMessage, Store};
use std::process::Command;
use std::time::{Duration, Instant};

const SUITE: &str = "mail";

pub fn run(env: &Env, report: &mut Report) -> Result<()> {
    binary_send(env, report)?;
    library_sends(env, report)?;
    big_inbox(env, report)
}

fn fresh_db(env: &Env, name: &str) -> Result<std::path::PathBuf> {
    let path = env.data.join(name);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    let store = Store::open(&path, "bench")?;
    store.register_agent("0/")?;
    store.register_agent("1/")?;
    Ok(path)
}

fn mail_command(env: &Env, db: &std::path::Path, agent: &str) -> Command {
    let mut cmd = Command::new(env.tool("mail"));
    cmd.env("IKIGAI_DB", db)
        .env("IKIGAI_SESSION_ID", "bench")
        .env("IKIGAI_AGENT_ID", agent);
    cmd
}

fn binary_send(env: &Env, report: &mut Report) -> Result<()> {
    let db = fresh_db(env, "mail-send.db")?;
    let input =
        br#"{"action": "send", "to": "0/", "body": "Build complete, all 847 tests passing."}"#;
    let mut times = Vec::new();
    for _ in 0..500 {
        let (t, out) = time_call(&mut mail_command(env, &db, "1/"), input)?;
        ensure!(
            out.starts_with(br#"{"sent":true"#),
            "send failed: {}",
            String::from_utf8_lossy(&out)
        );
        times.push(t);
    }
    let t = median(&mut times);
    report.add(Row {
        suite: SUITE,
        name: "one `send` through the mail binary (median of 500)".into(),
        measured: ms(t),
        baseline: "peer ~27 ms".into(),
        ratio: None,
        target: "<= 3 ms".into(),
        pass: t <= Duration::from_millis(3),
    });
    Ok(())
}

fn library_sends(env: &Env, report: &mut Report) -> Result<()> {
    let db = fresh_db(env, "mail-library.db")?;
    let store = Store::open(&db, "bench")?;
    let n = 50_000u32;
    let start = Instant::now();
    for i in 0..n {
        store.send("1/", "0/", NewMessage::text(format!("message number {i}")))?;
    }
    let rate = f64::from(n) / start.elapsed().as_secs_f64();
    report.add(Row {
        suite: SUITE,
        name: format!("sends through the store library, one process ({n}, one transaction each)"),
        measured: format!("{rate:.0}/s"),
        baseline: String::new(),
        ratio: None,
        target: ">= 20000/s".into(),
        pass: rate >= 20_000.0,
    });
    Ok(())
}

fn big_inbox(env: &Env, report: &mut Report) -> Result<()> {
    let db = env.data.join("mail-1m.db");
    let marker = env.data.join("mail-1m.complete");
    if !marker.exists() {
        eprintln!("generating a mail database of 1,000,000 messages (1,000 agents x 1,000)");
        let _ = std::fs::remove_file(&db);
        let store = Store::open(&db, "bench")?;
        let conn = store.connection();
        conn.execute_batch("BEGIN")?;
        for a in 0..1000 {
            conn.execute(
                "INSERT INTO agents (session_id, agent_id, created_at) VALUES ('bench', ?1, 0)",
                [format!("{a}/")],
            )?;
        }
        {
            let mut insert = conn.prepare(
                "INSERT INTO mail (session_id, from_agent_id, to_agent_id, body, timestamp, read) VALUES ('bench', ?1, ?2, ?3, ?4, ?5)",
            )?;
            for i in 0..1_000_000i64 {
                let to = format!("{}/", i % 1000);
                let from = format!("{}/", (i * 7 + 3) % 1000);
                let body = format!(
                    "Message {i}: status update about task {} with some more words to make it realistic",
                    i % 977
                );
                insert.execute(rusqlite_params(
                    &from,
                    &to,
                    &body,
                    1_700_000_000 + i,
                    i % 3 == 0,
                ))?;
            }
        }
        conn.execute_batch("COMMIT")?;
        store.checkpoint()?;
        std::fs::write(&marker, "")?;
    }
    // Warm the cache, then time whole binary calls.
    let input = br#"{"action": "inbox", "limit": 50}"#;
    let mut times = Vec::new();
    for i in 0..200 {
        let agent = format!("{}/", (i * 37) % 1000);
        let (t, out) = time_call(&mut mail_command(env, &db, &agent), input)?;
        let value: serde_json::Value = serde_json::from_slice(&out)?;
        ensure!(
            value["messages"].as_array().map(Vec::len) == Some(50),
            "inbox failed: {value}"
        );
        if i >= 20 {
            times.push(t);
        }
    }
    let t = median(&mut times);
    report.add(Row {
        suite: SUITE,
        name: "`inbox` limit 50, agent with 1,000 of 1,000,000 messages, binary (median of 180)"
            .into(),
        measured: ms(t),
        baseline: String::new(),
        ratio: None,
        target: "<= 5 ms".into(),
        pass: t <= Duration::from_millis(5),
    });
    Ok(())
}

fn rusqlite_params<'a>(
    from: &'a str,
    to: &'a str,
    body: &'a str,
    ts: i64,
    read: bool,
) -> impl rusqlite::Params + 'a {
    (from, to, body, ts, read)
}
