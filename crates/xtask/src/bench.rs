//! `cargo xtask bench [SUITE...]`: performance targets as ratios against a
//! baseline measured in the same run. Suites: see [`SUITES`]. Results are
//! printed and written to `target/bench/results.md` for docs/benchmarks.md.

mod host;
mod mail;
mod mcp;
mod report;
mod search;
mod tools;

use anyhow::{Result, bail};
pub use report::{Report, Row};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Every suite, in the order `bench` with no argument runs them.
pub const SUITES: &[(&str, &str)] = &[
    ("tools", "file-read, file-edit and bash (issue: foundation)"),
    ("host", "the host library and the ikigai CLI"),
    ("search", "glob and grep against find and ripgrep"),
    ("mail", "the mail tool and store"),
    (
        "mcp",
        "ikigai mcp against the MCP filesystem reference server",
    ),
];

pub fn run(args: &[String]) -> Result<()> {
    let chosen: Vec<&str> = if args.is_empty() {
        SUITES.iter().map(|(name, _)| *name).collect()
    } else {
        args.iter().map(String::as_str).collect()
    };
    for name in &chosen {
        if !SUITES.iter().any(|(s, _)| s == name) {
            let known: Vec<&str> = SUITES.iter().map(|(s, _)| *s).collect();
            bail!("unknown suite `{name}` (known: {})", known.join(", "));
        }
    }
    let bin = crate::build(true)?;
    let data = crate::root().join("target/bench-data");
    std::fs::create_dir_all(&data)?;
    let env = Env { bin, data };
    let mut report = Report::new();
    for name in chosen {
        eprintln!("== suite {name}");
        match name {
            "tools" => tools::run(&env, &mut report)?,
            "host" => host::run(&env, &mut report)?,
            "search" => search::run(&env, &mut report)?,
            "mail" => mail::run(&env, &mut report)?,
            "mcp" => mcp::run(&env, &mut report)?,
            _ => unreachable!(),
        }
    }
    report.finish()
}

/// Where the suites find binaries and keep generated data.
pub struct Env {
    pub bin: PathBuf,
    pub data: PathBuf,
}

impl Env {
    pub fn tool(&self, name: &str) -> PathBuf {
        self.bin.join(name)
    }
}

/// Spawn to result: spawns `cmd` with piped stdin/stdout, writes `input`,
/// closes stdin, reads stdout to EOF and reaps the child.
pub fn time_call(cmd: &mut Command, input: &[u8]) -> Result<(Duration, Vec<u8>)> {
    let start = Instant::now();
    let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).spawn()?;
    if let Some(mut stdin) = child.stdin.take() {
        // Small inputs fit the pipe buffer; a tool that exits without
        // reading gives EPIPE, which is fine.
        let _ = stdin.write_all(input);
    }
    let mut out = Vec::new();
    if let Some(mut stdout) = child.stdout.take() {
        stdout.read_to_end(&mut out)?;
    }
    child.wait()?;
    Ok((start.elapsed(), out))
}

pub fn median(samples: &mut [Duration]) -> Duration {
    samples.sort();
    samples.get(samples.len() / 2).copied().unwrap_or_default()
}

pub fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

/// Reads a file once so later reads come from the page cache.
pub fn warm(path: &Path) -> Result<()> {
    let mut f = std::fs::File::open(path)?;
    let mut buf = vec![0u8; 1 << 20];
    while f.read(&mut buf)? > 0 {}
    Ok(())
}
