//! `cargo xtask`: the workspace's developer commands, in Rust so they need
//! nothing beyond the toolchain.
//!
//! - `build [--debug]`: builds every binary and fills `libexec/ikigai/`;
//! - `demo`: `build`, then shows a tool call made by hand;
//! - `install --prefix DIR`: tools to `DIR/libexec/ikigai/`, `ikigai` to
//!   `DIR/bin/`;
//! - `bench [SUITE...]`: the benchmarks (see docs/benchmarks.md).

mod bench;
mod measure;

use anyhow::{Context, Result, bail};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

/// Every tool executable, by file name.
pub const TOOLS: &[&str] = &[
    "bash",
    "file-read",
    "file-write",
    "file-edit",
    "glob",
    "grep",
    "mail",
];

const USAGE: &str = "\
Usage: cargo xtask <command>

Commands:
  build [--debug]          build all binaries (release unless --debug) and fill libexec/ikigai/
  demo                     build, then run a tool by hand and show its JSON
  install --prefix DIR     build release; tools to DIR/libexec/ikigai/, ikigai to DIR/bin/
  bench [SUITE...]         run benchmarks and print ratios against baselines (see docs/benchmarks.md)
  measure-rss --out F -- CMD...   run CMD, write 'PEAK_RSS_KIB WALL_NS' to F (used by tests and benches)
";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (command, rest) = args
        .split_first()
        .map_or(("", &[][..]), |(c, r)| (c.as_str(), r));
    match command {
        "build" => {
            let release = !rest.iter().any(|a| a == "--debug");
            build(release)?;
            Ok(())
        }
        "demo" => demo(),
        "install" => {
            let prefix = match rest {
                [flag, dir] if flag == "--prefix" => dir.as_str(),
                [arg] if arg.starts_with("--prefix=") => &arg["--prefix=".len()..],
                _ => bail!("usage: cargo xtask install --prefix DIR"),
            };
            // `just install PREFIX=/opt` passes the assignment through whole.
            let prefix = PathBuf::from(prefix.strip_prefix("PREFIX=").unwrap_or(prefix));
            install(&prefix)
        }
        "bench" => bench::run(rest),
        "measure-rss" => {
            let code = measure::command(rest)?;
            std::process::exit(code);
        }
        "" | "help" | "--help" | "-h" => {
            print!("{USAGE}");
            Ok(())
        }
        other => bail!("unknown command `{other}`\n\n{USAGE}"),
    }
}

/// The repository root (two levels above this crate).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned())
}

/// Builds every binary and copies the tools into `libexec/ikigai/`.
/// Returns the directory holding the built binaries.
pub fn build(release: bool) -> Result<PathBuf> {
    let root = root();
    let mut cmd = Command::new(cargo());
    cmd.current_dir(&root)
        .args(["build", "--workspace", "--bins"]);
    if release {
        cmd.arg("--release");
    }
    let status = cmd.status().context("running cargo build")?;
    if !status.success() {
        bail!("cargo build failed");
    }
    let target = target_dir(&root).join(if release { "release" } else { "debug" });
    let libexec = root.join("libexec/ikigai");
    copy_tools(&target, &libexec)?;
    eprintln!("xtask: {} tools in {}", TOOLS.len(), libexec.display());
    Ok(target)
}

fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from)
}

/// Copies each tool next to a temporary name and renames it into place, so
/// a tool that is running while we install is never overwritten mid-copy.
fn copy_tools(from: &Path, to: &Path) -> Result<()> {
    fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    for tool in TOOLS {
        copy_executable(&from.join(tool), &to.join(tool))?;
    }
    Ok(())
}

fn copy_executable(from: &Path, to: &Path) -> Result<()> {
    let temp = to.with_extension("xtask-tmp");
    fs::copy(from, &temp).with_context(|| format!("copying {}", from.display()))?;
    fs::rename(&temp, to).with_context(|| format!("installing {}", to.display()))?;
    Ok(())
}

fn install(prefix: &Path) -> Result<()> {
    let target = build(true)?;
    let libexec = prefix.join("libexec/ikigai");
    copy_tools(&target, &libexec)?;
    let ikigai = target.join("ikigai");
    if ikigai.exists() {
        let bin = prefix.join("bin");
        fs::create_dir_all(&bin)?;
        copy_executable(&ikigai, &bin.join("ikigai"))?;
    }
    eprintln!("xtask: installed into {}", prefix.display());
    Ok(())
}

fn demo() -> Result<()> {
    let target = build(true)?;
    let root = root();
    let input = r#"{"file_path": "README.md", "limit": 3}"#;
    println!("$ echo '{input}' | libexec/ikigai/file-read");
    show(
        Command::new(root.join("libexec/ikigai/file-read")).current_dir(&root),
        input,
    )?;
    let ikigai = target.join("ikigai");
    let shown = ikigai
        .strip_prefix(&root)
        .unwrap_or(&ikigai)
        .display()
        .to_string();
    println!("\n$ {shown} tools --format list");
    show(
        Command::new(&ikigai)
            .args(["tools", "--format", "list"])
            .current_dir(&root),
        "",
    )?;
    let args = r#"{"command": "echo hello from $IKIGAI_AGENT_ID"}"#;
    println!("\n$ {shown} --agent 0/ call bash '{args}'");
    show(
        Command::new(&ikigai)
            .args(["--agent", "0/", "call", "bash", args])
            .current_dir(&root),
        "",
    )?;
    Ok(())
}

/// Runs `cmd` with `input` on stdin and prints its stdout.
fn show(cmd: &mut Command, input: &str) -> Result<()> {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .with_context(|| format!("running {cmd:?}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(input.as_bytes())?;
    }
    let output = child.wait_with_output()?;
    let text = String::from_utf8_lossy(&output.stdout);
    print!("{text}");
    if !text.ends_with('\n') {
        println!();
    }
    Ok(())
}
