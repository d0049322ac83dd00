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

/// Runs `cmd` to completion, feeding `input` on stdin (when given) and
/// collecting stdout (when `capture`), and returns its peak RSS.
pub fn run(mut cmd: Command, input: Option<&[u8]>, capture: bool) -> Result<Measured> {
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
    let measured = run(cmd, None, false)?;
    std::fs::write(Path::new(out), format!("{}\n", measured.rss_kib))?;
    Ok(measured.exit_code())
}
