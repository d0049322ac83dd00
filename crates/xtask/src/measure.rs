//! Peak memory of a command.
//!
//! Linux keeps a process's peak RSS across `execve`, and a child spawned
//! with `vfork`/`CLONE_VM` (what `posix_spawn` does) starts from its
//! parent's. So a big parent (a test binary, a benchmark holding data)
//! inflates the figure of every child it spawns. Spawning from this small
//! process and reading the child's `wait4` usage gives the tool's own peak.

use anyhow::{Context, Result, bail};
use std::path::Path;
use std::process::Command;

/// Runs `program args` with inherited stdio; returns its exit status (as
/// from `wait`) and its peak RSS in KiB.
pub fn run(program: &str, args: &[String]) -> Result<(i32, i64)> {
    let child = Command::new(program)
        .args(args)
        .spawn()
        .with_context(|| format!("spawning {program}"))?;
    let pid = i32::try_from(child.id()).context("pid out of range")?;
    let mut status = 0;
    #[allow(unsafe_code)]
    // SAFETY: wait4 writes only into the two locals passed by pointer.
    let (r, usage) = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        let r = libc::wait4(pid, &mut status, 0, &mut usage);
        (r, usage)
    };
    if r != pid {
        bail!("wait4 failed: {}", std::io::Error::last_os_error());
    }
    // The child is reaped; `Child` has no drop-time wait, so nothing leaks.
    drop(child);
    Ok((status, usage.ru_maxrss))
}

/// `xtask measure-rss --out FILE -- PROGRAM ARGS...`: runs the program with
/// this process's stdio, writes its peak RSS (KiB) to FILE, and exits with
/// its exit code.
pub fn command(args: &[String]) -> Result<i32> {
    let (out, rest) = match args {
        [flag, out, dashdash, rest @ ..] if flag == "--out" && dashdash == "--" => (out, rest),
        _ => bail!("usage: xtask measure-rss --out FILE -- PROGRAM ARGS..."),
    };
    let Some((program, program_args)) = rest.split_first() else {
        bail!("usage: xtask measure-rss --out FILE -- PROGRAM ARGS...");
    };
    let (status, rss) = run(program, program_args)?;
    std::fs::write(Path::new(out), format!("{rss}\n"))?;
    Ok(if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        128 + libc::WTERMSIG(status)
    })
}
