//! Peak memory and wall time of a command.
//!
//! Linux keeps a process's peak RSS across `execve`, and a child spawned
//! with `vfork`/`CLONE_VM` (what `posix_spawn` does) starts from its
//! parent's. So a big parent (a test binary, a benchmark holding data)
//! inflates the figure of every child it spawns. Spawning from this small
//! process and reading the child's `wait4` usage gives the tool's own peak.

use anyhow::{Context, Result, bail};
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What one measured run produced.
#[derive(Debug)]
pub struct Measured {
    /// Raw wait status.
    pub status: i32,
    /// Peak resident set size, KiB.
    pub rss_kib: i64,
    /// Spawn to exit.
    pub wall: Duration,
    pub stdout: Vec<u8>,
}

impl Measured {
    pub fn exit_code(&self) -> i32 {
        if libc::WIFEXITED(self.status) {
            libc::WEXITSTATUS(self.status)
        } else {
            128 + libc::WTERMSIG(self.status)
        }
    }
}

/// Runs `cmd` to completion through a fresh `xtask measure-rss` process
/// (so the figure is the command's own, not inflated by this process),
/// feeding `input` on stdin (when given) and collecting stdout (when
/// `capture`). The wall time is the wrapper's spawn-to-reap of the command,
/// without the wrapper's own start-up.
pub fn run(cmd: Command, input: Option<&[u8]>, capture: bool) -> Result<Measured> {
    let report = tempfile_path()?;
    // /proc/self/exe, not current_exe(): the bench's own build may have
    // replaced this binary on disk while it runs.
    let mut wrapper = Command::new("/proc/self/exe");
    wrapper
        .arg("measure-rss")
        .arg("--out")
        .arg(&report)
        .arg("--")
        .arg(cmd.get_program())
        .args(cmd.get_args());
    if let Some(dir) = cmd.get_current_dir() {
        wrapper.current_dir(dir);
    }
    for (key, value) in cmd.get_envs() {
        match value {
            Some(v) => wrapper.env(key, v),
            None => wrapper.env_remove(key),
        };
    }
    let outer = run_direct(wrapper, input, capture)?;
    let text = std::fs::read_to_string(&report).context("reading the measure-rss report")?;
    let _ = std::fs::remove_file(&report);
    let mut fields = text.split_whitespace();
    let rss_kib = fields
        .next()
        .and_then(|f| f.parse().ok())
        .context("bad report")?;
    let nanos: u64 = fields
        .next()
        .and_then(|f| f.parse().ok())
        .context("bad report")?;
    Ok(Measured {
        status: outer.status,
        rss_kib,
        wall: Duration::from_nanos(nanos),
        stdout: outer.stdout,
    })
}

fn tempfile_path() -> Result<std::path::PathBuf> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    Ok(std::env::temp_dir().join(format!(
        "xtask-rss-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )))
}

/// Runs `cmd` from this process directly (its RSS figure includes ours).
pub fn run_direct(mut cmd: Command, input: Option<&[u8]>, capture: bool) -> Result<Measured> {
    if input.is_some() {
        cmd.stdin(Stdio::piped());
    }
    if capture {
        cmd.stdout(Stdio::piped());
    }
    let start = Instant::now();
    let mut child = cmd.spawn().with_context(|| format!("spawning {cmd:?}"))?;
    let pid = i32::try_from(child.id()).context("pid out of range")?;
    let writer = match (input, child.stdin.take()) {
        (Some(bytes), Some(mut stdin)) => {
            let bytes = bytes.to_vec();
            Some(std::thread::spawn(move || {
                let _ = stdin.write_all(&bytes);
            }))
        }
        _ => None,
    };
    let mut stdout = Vec::new();
    if let Some(mut pipe) = child.stdout.take() {
        pipe.read_to_end(&mut stdout)?;
    }
    let mut status = 0;
    #[allow(unsafe_code)]
    // SAFETY: wait4 writes only into the two locals passed by pointer.
    let (r, usage) = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        let r = libc::wait4(pid, &mut status, 0, &mut usage);
        (r, usage)
    };
    let wall = start.elapsed();
    if r != pid {
        bail!("wait4 failed: {}", std::io::Error::last_os_error());
    }
    if let Some(w) = writer {
        let _ = w.join();
    }
    // The child is reaped; `Child` has no drop-time wait, so nothing leaks.
    drop(child);
    Ok(Measured {
        status,
        rss_kib: usage.ru_maxrss,
        wall,
        stdout,
    })
}

/// `xtask measure-rss --out FILE -- PROGRAM ARGS...`: runs the program with
/// this process's stdio, writes its peak RSS (KiB) to FILE, and exits with
/// its exit code.
pub fn command(args: &[String]) -> Result<i32> {
    let usage = "usage: xtask measure-rss --out FILE -- PROGRAM ARGS...";
    let (out, rest) = match args {
        [flag, out, dashdash, rest @ ..] if flag == "--out" && dashdash == "--" => (out, rest),
        _ => bail!(usage),
    };
    let Some((program, program_args)) = rest.split_first() else {
        bail!(usage);
    };
    let mut cmd = Command::new(program);
    cmd.args(program_args);
    let measured = run_direct(cmd, None, false)?;
    std::fs::write(
        Path::new(out),
        format!("{} {}\n", measured.rss_kib, measured.wall.as_nanos()),
    )?;
    Ok(measured.exit_code())
}
