//! The foundation's figures: file-read spawn latency against `/bin/true`,
//! a line range deep in a 1 GB file, one edit of a 200 MB file against
//! `cp`, and bash holding `yes` output in bounded memory.

use super::{Env, Report, Row, median, ms, time_call, warm};
use crate::measure;
use anyhow::{Context, Result, ensure};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

const SUITE: &str = "tools";

pub fn run(env: &Env, report: &mut Report) -> Result<()> {
    spawn_latency(env, report)?;
    deep_lines(env, report)?;
    big_edit(env, report)?;
    bash_yes(env, report)?;
    Ok(())
}

fn spawn_latency(env: &Env, report: &mut Report) -> Result<()> {
    let small = env.data.join("small.txt");
    std::fs::write(&small, "hello\nworld\n")?;
    let input = serde_json::json!({"file_path": small}).to_string();
    let (mut tool, mut truth) = (Vec::new(), Vec::new());
    for _ in 0..1000 {
        truth.push(time_call(&mut Command::new("/bin/true"), input.as_bytes())?.0);
        let (t, out) = time_call(&mut Command::new(env.tool("file-read")), input.as_bytes())?;
        ensure!(
            out == br#"{"output":"hello\nworld\n"}"#,
            "unexpected output {:?}",
            String::from_utf8_lossy(&out)
        );
        tool.push(t);
    }
    let (tool, truth) = (median(&mut tool), median(&mut truth));
    let ratio = tool.as_secs_f64() / truth.as_secs_f64();
    report.add(Row {
        suite: SUITE,
        name: "file-read small file, spawn to result (median of 1000)".into(),
        measured: ms(tool),
        baseline: format!("/bin/true {}", ms(truth)),
        ratio: Some(ratio),
        target: "<= 2.00x".into(),
        pass: ratio <= 2.0,
    });
    Ok(())
}

/// Writes `lines` lines of exactly 100 bytes (`line` number, padding).
fn generate_lines(path: &Path, lines: u64, marker_at: Option<u64>) -> Result<()> {
    let expected = lines * 100;
    if std::fs::metadata(path).is_ok_and(|m| m.len() == expected) {
        return Ok(());
    }
    eprintln!(
        "generating {} ({} MB)",
        path.display(),
        expected / 1_000_000
    );
    let mut f = BufWriter::with_capacity(1 << 20, File::create(path)?);
    let pad = "x".repeat(89);
    for i in 1..=lines {
        if Some(i) == marker_at {
            writeln!(f, "{:09} {:<89}", i, "NEEDLE-0")?;
        } else {
            writeln!(f, "{i:09} {pad}")?;
        }
    }
    f.flush()?;
    Ok(())
}

fn deep_lines(env: &Env, report: &mut Report) -> Result<()> {
    let path = env.data.join("lines-1g.txt");
    generate_lines(&path, 10_500_000, None)?;
    warm(&path)?;
    let input =
        serde_json::json!({"file_path": path, "offset": 5_000_000, "limit": 100}).to_string();
    let mut times = Vec::new();
    let mut peak = 0;
    for _ in 0..5 {
        let m = measure::run(
            Command::new(env.tool("file-read")),
            Some(input.as_bytes()),
            true,
        )?;
        let value: serde_json::Value = serde_json::from_slice(&m.stdout)?;
        let text = value["output"].as_str().context("no output")?;
        ensure!(
            text.lines().count() == 100 && text.starts_with("005000000 "),
            "wrong lines"
        );
        times.push(m.wall);
        peak = peak.max(m.rss_kib);
    }
    let t = median(&mut times);
    let scanned = 4_999_999.0 * 100.0;
    let gbps = scanned / t.as_secs_f64() / 1e9;
    report.add(Row {
        suite: SUITE,
        name: "file-read 100 lines at line 5,000,000 of 1.05 GB (warm)".into(),
        measured: format!("{gbps:.2} GB/s ({})", ms(t)),
        baseline: String::new(),
        ratio: None,
        target: ">= 2 GB/s".into(),
        pass: gbps >= 2.0,
    });
    report.add(Row {
        suite: SUITE,
        name: "  peak RSS of that read".into(),
        measured: format!("{:.1} MiB", peak as f64 / 1024.0),
        baseline: String::new(),
        ratio: None,
        target: "<= 16 MiB".into(),
        pass: peak <= 16 * 1024,
    });
    Ok(())
}

fn big_edit(env: &Env, report: &mut Report) -> Result<()> {
    let path = env.data.join("edit-200m.txt");
    generate_lines(&path, 2_000_000, Some(1_000_000))?;
    warm(&path)?;
    let copy = env.data.join("edit-200m.copy");
    let replica = env.data.join("edit-200m.replica");
    std::fs::copy(&path, &replica)?;
    let (mut edits, mut copies, mut replaces) = (Vec::new(), Vec::new(), Vec::new());
    let mut peak = 0;
    for i in 0..9 {
        let _ = std::fs::remove_file(&copy);
        // Start each timed run with no writeback pending from the last one,
        // for the baseline and the tool alike.
        settle();
        let mut cp = Command::new("cp");
        cp.arg(&path).arg(&copy);
        let m = measure::run(cp, None, false)?;
        ensure!(m.exit_code() == 0, "cp failed");
        copies.push(m.wall);
        settle();
        // The same atomic replace done with coreutils: copy to a temporary
        // name, rename over an existing file.
        let mut sh = Command::new("/bin/sh");
        sh.arg("-c")
            .arg("cp \"$1\" \"$2.tmp\" && mv \"$2.tmp\" \"$2\"")
            .arg("sh")
            .arg(&path)
            .arg(&replica);
        let m = measure::run(sh, None, false)?;
        ensure!(m.exit_code() == 0, "cp + mv failed");
        replaces.push(m.wall);
        std::fs::remove_file(&copy)?;
        settle();
        let input = serde_json::json!({"file_path": path, "old_string": format!("NEEDLE-{i}"), "new_string": format!("NEEDLE-{}", i + 1)}).to_string();
        let m = measure::run(
            Command::new(env.tool("file-edit")),
            Some(input.as_bytes()),
            true,
        )?;
        ensure!(
            m.stdout == br#"{"output":"Replaced 1 occurrence in edit-200m.txt","replacements":1}"#,
            "unexpected output {}",
            String::from_utf8_lossy(&m.stdout)
        );
        edits.push(m.wall);
        peak = peak.max(m.rss_kib);
    }
    // Leave the file as generated for the next run.
    let input =
        serde_json::json!({"file_path": path, "old_string": "NEEDLE-9", "new_string": "NEEDLE-0"})
            .to_string();
    measure::run(
        Command::new(env.tool("file-edit")),
        Some(input.as_bytes()),
        true,
    )?;
    std::fs::remove_file(&replica)?;
    let (edit, cp, cp_mv) = (
        median(&mut edits),
        median(&mut copies),
        median(&mut replaces),
    );
    let ratio = edit.as_secs_f64() / cp.as_secs_f64();
    report.add(Row {
        suite: SUITE,
        name: "file-edit one replacement in 200 MB (median of 9)".into(),
        measured: ms(edit),
        baseline: format!("cp {}", ms(cp)),
        ratio: Some(ratio),
        target: "<= 2.50x".into(),
        pass: ratio <= 2.5,
    });
    report.add(Row {
        suite: SUITE,
        name: "  same edit vs `cp` to temp + `mv` over the file".into(),
        measured: ms(edit),
        baseline: format!("cp+mv {}", ms(cp_mv)),
        ratio: Some(edit.as_secs_f64() / cp_mv.as_secs_f64()),
        target: "(information)".into(),
        pass: true,
    });
    report.add(Row {
        suite: SUITE,
        name: "  peak RSS of that edit".into(),
        measured: format!("{:.1} MiB", peak as f64 / 1024.0),
        baseline: String::new(),
        ratio: None,
        target: "<= 64 MiB".into(),
        pass: peak <= 64 * 1024,
    });
    Ok(())
}

fn bash_yes(env: &Env, report: &mut Report) -> Result<()> {
    let input = br#"{"command": "yes | head -c 200000000"}"#;
    let m = measure::run(Command::new(env.tool("bash")), Some(input), true)?;
    let value: serde_json::Value = serde_json::from_slice(&m.stdout)?;
    let ok = value["exit_code"] == 0 && value["truncated"] == true;
    report.add(Row {
        suite: SUITE,
        name: "bash `yes | head -c 200000000`: completes, truncated".into(),
        measured: format!("{} in {}", if ok { "yes" } else { "NO" }, ms(m.wall)),
        baseline: String::new(),
        ratio: None,
        target: "truncated result".into(),
        pass: ok && m.wall < Duration::from_secs(30),
    });
    report.add(Row {
        suite: SUITE,
        name: "  peak RSS of that call".into(),
        measured: format!("{:.1} MiB", m.rss_kib as f64 / 1024.0),
        baseline: String::new(),
        ratio: None,
        target: "<= 32 MiB".into(),
        pass: m.rss_kib <= 32 * 1024,
    });
    Ok(())
}

/// Flushes dirty pages (sync(2)) so a timed run does not pay for the
/// previous one's writeback.
fn settle() {
    #[allow(unsafe_code)]
    // SAFETY: sync(2) takes no arguments and cannot fail.
    unsafe {
        libc::sync();
    }
}
