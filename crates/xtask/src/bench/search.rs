//! The search tools' figures: grep against ripgrep (same rules) and GNU
//! grep, glob against find (and fd for information), on a real source tree
//! of crates fetched from crates.io and on 100,000 generated small files.
//! Wall time is the median of interleaved runs from a warm cache; peak
//! memory is each process's own.

use super::{Env, Report, Row, median, ms};
use crate::measure;
use anyhow::{Context, Result, bail, ensure};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const SUITE: &str = "search";
const RUNS: usize = 5;

/// The crates whose sources make up the real tree (exact versions; their
/// dependencies resolve at fetch time).
const CORPUS_MANIFEST: &str = r#"[package]
name = "ikigai-bench-corpus"
version = "0.0.0"
edition = "2021"
publish = false

# Not part of the ikigai-tools workspace it sits inside.
[workspace]

[dependencies]
tokio = { version = "=1.54.1", features = ["full"] }
syn = { version = "2", features = ["full"] }
regex = "1"
clap = "4"
serde = "1"
web-sys = "0.3"
windows-sys = "0.59"
aws-sdk-s3 = "1"
rustls = "0.23"
hyper = "1"
reqwest = "0.12"
diesel = "2"
"#;

pub fn run(env: &Env, report: &mut Report) -> Result<()> {
    install_baselines()?;
    eprintln!("baselines: {}", versions());
    let corpus = corpus(env)?;
    let (bytes, files) = tree_size(&corpus)?;
    eprintln!(
        "corpus: {} ({:.0} MB, {files} files)",
        corpus.display(),
        bytes as f64 / 1e6
    );
    ensure!(
        bytes >= 150_000_000 && files >= 10_000,
        "the corpus is too small"
    );
    let small = small_files(env)?;
    for (name, tree) in [("crates.io sources", &corpus), ("100k small files", &small)] {
        warm_tree(tree);
        grep_figures(env, report, name, tree)?;
        glob_figures(env, report, name, tree)?;
    }
    Ok(())
}

fn have(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// ripgrep and fd from Debian's packages, when missing.
fn install_baselines() -> Result<()> {
    if have("rg") && have("fdfind") {
        return Ok(());
    }
    eprintln!("installing ripgrep and fd-find with apt-get");
    let status = Command::new("apt-get")
        .args(["install", "-y", "-qq", "ripgrep", "fd-find"])
        .env("DEBIAN_FRONTEND", "noninteractive")
        .status()
        .context("running apt-get")?;
    if !status.success() {
        let update = Command::new("apt-get").args(["update", "-qq"]).status()?;
        ensure!(update.success(), "apt-get update failed");
        let status = Command::new("apt-get")
            .args(["install", "-y", "-qq", "ripgrep", "fd-find"])
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()?;
        ensure!(status.success(), "apt-get install ripgrep fd-find failed");
    }
    Ok(())
}

fn versions() -> String {
    let first_line = |program: &str| {
        Command::new(program)
            .arg("--version")
            .output()
            .map(|o| {
                String::from_utf8_lossy(&o.stdout)
                    .lines()
                    .next()
                    .unwrap_or("")
                    .to_owned()
            })
            .unwrap_or_default()
    };
    ["rg", "fdfind", "grep", "find"]
        .iter()
        .map(|p| first_line(p))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Fetches the corpus crates into a private CARGO_HOME and returns the
/// directory holding their sources.
fn corpus(env: &Env) -> Result<PathBuf> {
    let dir = env.data.join("corpus");
    std::fs::create_dir_all(dir.join("src"))?;
    std::fs::write(dir.join("Cargo.toml"), CORPUS_MANIFEST)?;
    std::fs::write(dir.join("src/main.rs"), "fn main() {}\n")?;
    let home = dir.join("home");
    let src = home.join("registry/src");
    if !src.is_dir() {
        eprintln!("fetching the corpus crates (about 390 MB of sources)");
        let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(["fetch", "--quiet", "--manifest-path"])
            .arg(dir.join("Cargo.toml"))
            .env("CARGO_HOME", &home)
            .status()?;
        ensure!(status.success(), "cargo fetch of the corpus failed");
    }
    // registry/src/<index>/: the one index directory.
    let index = std::fs::read_dir(&src)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.is_dir())
        .context("no sources fetched")?;
    Ok(index)
}

fn tree_size(root: &Path) -> Result<(u64, u64)> {
    let mut bytes = 0;
    let mut files = 0;
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)?.filter_map(Result::ok) {
            let t = entry.file_type()?;
            if t.is_dir() {
                stack.push(entry.path());
            } else if t.is_file() {
                files += 1;
                bytes += entry.metadata()?.len();
            }
        }
    }
    Ok((bytes, files))
}

/// 100 directories of 1,000 files of a few lines each, half `.rs`.
fn small_files(env: &Env) -> Result<PathBuf> {
    let root = env.data.join("small-files");
    let done = root.join(".complete");
    if done.exists() {
        return Ok(root);
    }
    eprintln!("generating 100,000 small files");
    let _ = std::fs::remove_dir_all(&root);
    for d in 0..100 {
        let dir = root.join(format!("dir{d:03}"));
        std::fs::create_dir_all(&dir)?;
        for f in 0..1000 {
            let ext = if f % 2 == 0 { "rs" } else { "txt" };
            let mut text = String::new();
            for line in 0..4 {
                let _ = writeln!(text, "line {line} of file {f} in dir {d}: some words here");
            }
            if f % 97 == 0 {
                text.push_str(
                    "use std::collections::HashMap;\nfn main() -> Result<(), Error> { todo!() }\n",
                );
            }
            std::fs::write(dir.join(format!("file{f:04}.{ext}")), text)?;
        }
    }
    std::fs::write(&done, "")?;
    Ok(root)
}

/// Reads every file once so the runs compare from a warm cache.
fn warm_tree(root: &Path) {
    let _ = Command::new("rg")
        .args(["-uu", "--files"])
        .current_dir(root)
        .output();
    let _ = Command::new("sh")
        .arg("-c")
        .arg("rg -uu -c zzzqqq >/dev/null")
        .current_dir(root)
        .status();
}

/// One measured command: its runs' wall times and the largest peak RSS.
struct Figure {
    times: Vec<Duration>,
    rss_kib: i64,
}

impl Figure {
    fn median(&mut self) -> Duration {
        median(&mut self.times)
    }
}

fn measure_command(
    cmd: impl Fn() -> Command,
    input: Option<&[u8]>,
    figure: &mut Figure,
) -> Result<Vec<u8>> {
    let m = measure::run(cmd(), input, true)?;
    figure.times.push(m.wall);
    figure.rss_kib = figure.rss_kib.max(m.rss_kib);
    Ok(m.stdout)
}

fn new_figure() -> Figure {
    Figure {
        times: Vec::new(),
        rss_kib: 0,
    }
}

fn grep_figures(env: &Env, report: &mut Report, tree_name: &str, tree: &Path) -> Result<()> {
    let patterns: [(&str, &str, bool); 3] = [
        ("literal", "HashMap", false),
        ("word-boundary regex", "\\bfn\\s+main\\b", false),
        ("case-insensitive alternation", "(todo|fixme|error)", true),
    ];
    for (kind, pattern, insensitive) in patterns {
        let input =
            serde_json::json!({"pattern": pattern, "case_insensitive": insensitive}).to_string();
        let ours_cmd = || {
            let mut c = Command::new(env.tool("grep"));
            // The whole output, as the baselines print it: the same work.
            c.current_dir(tree)
                .env("IKIGAI_GREP_MAX_OUTPUT", "4000000000");
            c
        };
        let rg_cmd = || {
            let mut c = Command::new("rg");
            c.current_dir(tree).args(["-n", "--no-require-git"]);
            if insensitive {
                c.arg("-i");
            }
            c.arg("-e").arg(pattern);
            c
        };
        let grep_cmd = || {
            let mut c = Command::new("grep");
            c.current_dir(tree).arg("-rnE");
            if insensitive {
                c.arg("-i");
            }
            c.arg("-e").arg(pattern).arg(".");
            c
        };
        let (mut ours, mut rg, mut gnu) = (new_figure(), new_figure(), new_figure());
        let mut lines = (0, 0);
        for _ in 0..RUNS {
            let out = measure_command(ours_cmd, Some(input.as_bytes()), &mut ours)?;
            let value: serde_json::Value = serde_json::from_slice(&out)?;
            if value.get("truncated").is_some() || value.get("error").is_some() {
                bail!(
                    "grep {pattern}: unexpected result {}",
                    &value.to_string()[..200.min(value.to_string().len())]
                );
            }
            lines.0 = value["count"].as_u64().unwrap_or(0);
            let out = measure_command(rg_cmd, None, &mut rg)?;
            lines.1 = out.iter().filter(|&&b| b == b'\n').count() as u64;
            measure_command(grep_cmd, None, &mut gnu)?;
        }
        let (o, r, g) = (ours.median(), rg.median(), gnu.median());
        let vs_rg = o.as_secs_f64() / r.as_secs_f64();
        let vs_grep = g.as_secs_f64() / o.as_secs_f64();
        report.add(Row {
            suite: SUITE,
            name: format!(
                "{tree_name}: grep {kind} `{pattern}` ({} lines; rg {})",
                lines.0, lines.1
            ),
            measured: ms(o),
            baseline: format!("rg -n {}", ms(r)),
            ratio: Some(vs_rg),
            target: "<= 1.25x rg".into(),
            pass: vs_rg <= 1.25,
        });
        report.add(Row {
            suite: SUITE,
            name: "  against GNU grep -rnE (speedup)".into(),
            measured: ms(o),
            baseline: format!("grep {}", ms(g)),
            ratio: Some(vs_grep),
            target: ">= 2.00x faster".into(),
            pass: vs_grep >= 2.0,
        });
        report.add(Row {
            suite: SUITE,
            name: "  peak RSS: ours / rg / grep".into(),
            measured: format!("{:.1} MiB", ours.rss_kib as f64 / 1024.0),
            baseline: format!(
                "{:.1} / {:.1} MiB",
                rg.rss_kib as f64 / 1024.0,
                gnu.rss_kib as f64 / 1024.0
            ),
            ratio: None,
            target: "(information)".into(),
            pass: true,
        });
    }
    Ok(())
}

fn glob_figures(env: &Env, report: &mut Report, tree_name: &str, tree: &Path) -> Result<()> {
    let input = br#"{"pattern": "**/*.rs"}"#;
    let ours_cmd = || {
        let mut c = Command::new(env.tool("glob"));
        c.current_dir(tree);
        c
    };
    let find_cmd = || {
        let mut c = Command::new("find");
        c.current_dir(tree).args([".", "-name", "*.rs"]);
        c
    };
    let fd_cmd = || {
        let mut c = Command::new("fdfind");
        c.current_dir(tree).args(["-u", "-e", "rs"]);
        c
    };
    let (mut ours, mut find, mut fd) = (new_figure(), new_figure(), new_figure());
    let mut counts = (0, 0);
    for _ in 0..RUNS {
        let out = measure_command(ours_cmd, Some(input), &mut ours)?;
        let value: serde_json::Value = serde_json::from_slice(&out)?;
        counts.0 = value["count"].as_u64().unwrap_or(0);
        let out = measure_command(find_cmd, None, &mut find)?;
        counts.1 = out.iter().filter(|&&b| b == b'\n').count() as u64;
        measure_command(fd_cmd, None, &mut fd)?;
    }
    let (o, f, d) = (ours.median(), find.median(), fd.median());
    let ratio = o.as_secs_f64() / f.as_secs_f64();
    report.add(Row {
        suite: SUITE,
        name: format!(
            "{tree_name}: glob `**/*.rs` ({} paths; find {})",
            counts.0, counts.1
        ),
        measured: ms(o),
        baseline: format!("find {}", ms(f)),
        ratio: Some(ratio),
        target: "<= 1.30x find".into(),
        pass: ratio <= 1.3,
    });
    report.add(Row {
        suite: SUITE,
        name: "  peak RSS: ours / find; fd -u time".into(),
        measured: format!("{:.1} MiB", ours.rss_kib as f64 / 1024.0),
        baseline: format!("{:.1} MiB; fd {}", find.rss_kib as f64 / 1024.0, ms(d)),
        ratio: None,
        target: "(information)".into(),
        pass: true,
    });
    Ok(())
}
