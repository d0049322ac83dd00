//! The one place that starts, feeds, drains, times out and reaps tool
//! processes.
//!
//! Every child runs in its **own process group** so the whole tree it
//! starts can be signalled at once. Its stdin is written on a separate task
//! and then closed (a tool that never reads cannot block us), while stdout
//! and stderr are drained concurrently (a tool that fills stderr before
//! reading stdin cannot deadlock us, the original's bug). Both are bounded:
//! stdout up to a cap past which the group is killed, stderr as a small
//! head+tail capture.
//!
//! On timeout or cancellation the group gets SIGTERM, then SIGKILL after a
//! short grace, and the child is always reaped. After the child exits, the
//! pipes are drained for at most a short bound: a grandchild that keeps
//! stdout open (a server started with `&`) does not hold the call, and is
//! left running. The pipes are then dropped.

use ikigai_capture::HeadTail;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use std::ffi::OsString;
use std::io;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;
use tokio::sync::{oneshot, watch};

/// What to run and within which bounds.
#[derive(Debug, Clone)]
pub struct Spawn {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    /// Working directory; `None` inherits the host's.
    pub cwd: Option<PathBuf>,
    /// Variables set on top of the inherited environment.
    pub env: Vec<(String, String)>,
    pub stdin: Vec<u8>,
    pub limits: Limits,
}

/// Bounds on one child process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Wall-clock limit from spawn to exit.
    pub timeout: Duration,
    /// Most stdout bytes kept; one more byte kills the group.
    pub stdout_cap: usize,
    /// stderr bytes kept at each end of the stream.
    pub stderr_excerpt: usize,
    /// Time between SIGTERM and SIGKILL.
    pub kill_grace: Duration,
    /// How long to keep reading the pipes after the child exits.
    pub drain: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            timeout: Duration::from_secs(30),
            stdout_cap: 64 * 1024 * 1024,
            stderr_excerpt: 2048,
            kill_grace: Duration::from_millis(300),
            drain: Duration::from_millis(200),
        }
    }
}

/// How a child ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// It exited (or was killed by someone else) on its own.
    Exited,
    /// It ran past `Limits::timeout` and its group was killed.
    TimedOut,
    /// It wrote more than `Limits::stdout_cap` and its group was killed.
    OutputTooLarge,
    /// The caller cancelled the call and its group was killed.
    Cancelled,
}

/// Everything a finished child left behind.
#[derive(Debug)]
pub struct Finished {
    pub ending: Ending,
    pub status: ExitStatus,
    pub stdout: Vec<u8>,
    pub stderr: HeadTail,
    pub elapsed: Duration,
}

impl Finished {
    /// The shell convention: the exit code, or 128+N for signal N.
    pub fn exit_code(&self) -> i32 {
        exit_code(self.status)
    }
}

/// The shell convention for an exit status.
pub fn exit_code(status: ExitStatus) -> i32 {
    match (status.code(), status.signal()) {
        (Some(code), _) => code,
        (None, Some(signal)) => 128 + signal,
        (None, None) => -1,
    }
}

/// A signal's name (`SIGSEGV`), when it has one.
pub fn signal_name(signal: i32) -> Option<&'static str> {
    Signal::try_from(signal).ok().map(Signal::as_str)
}

/// A handle that cancels a running [`run`] when fired.
#[derive(Debug, Clone)]
pub struct Cancel {
    rx: watch::Receiver<bool>,
}

/// Fires the [`Cancel`] it was created with.
#[derive(Debug)]
pub struct CancelTrigger {
    tx: watch::Sender<bool>,
}

impl Cancel {
    pub fn new() -> (CancelTrigger, Cancel) {
        let (tx, rx) = watch::channel(false);
        (CancelTrigger { tx }, Cancel { rx })
    }

    /// Resolves once fired; never, if the trigger is dropped unfired.
    pub async fn fired(&mut self) {
        if self.rx.wait_for(|fired| *fired).await.is_err() {
            // The trigger was dropped without firing: never cancel.
            std::future::pending::<()>().await;
        }
    }
}

impl CancelTrigger {
    pub fn fire(&self) {
        let _ = self.tx.send(true);
    }
}

/// Runs one child to completion within its limits. Fails only when the
/// child cannot be started.
pub async fn run(spawn: Spawn, cancel: Option<Cancel>) -> io::Result<Finished> {
    let limits = spawn.limits;
    let mut cmd = Command::new(&spawn.program);
    cmd.args(&spawn.args)
        .envs(spawn.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    if let Some(cwd) = &spawn.cwd {
        cmd.current_dir(cwd);
    }
    let start = tokio::time::Instant::now();
    let mut child = cmd.spawn()?;
    let group = child
        .id()
        .and_then(|id| i32::try_from(id).ok())
        .map(Pid::from_raw);

    if let Some(mut stdin) = child.stdin.take() {
        let input = spawn.stdin;
        tokio::spawn(async move {
            // A tool that exits without reading gives EPIPE: not our error.
            let _ = stdin.write_all(&input).await;
            let _ = stdin.shutdown().await;
        });
    }
    let (overflow_tx, overflow_rx) = oneshot::channel();
    let stdout = Arc::new(Mutex::new(Vec::new()));
    let stderr = Arc::new(Mutex::new(HeadTail::new(
        limits.stderr_excerpt,
        limits.stderr_excerpt,
    )));
    let stdout_task = child.stdout.take().map(|out| {
        tokio::spawn(read_capped(
            out,
            limits.stdout_cap,
            overflow_tx,
            Arc::clone(&stdout),
        ))
    });
    let stderr_task = child
        .stderr
        .take()
        .map(|err| tokio::spawn(read_head_tail(err, Arc::clone(&stderr))));

    let mut cancel = cancel;
    let cancelled = async {
        match cancel.as_mut() {
            Some(c) => c.fired().await,
            None => std::future::pending().await,
        }
    };
    let overflowed = async {
        if overflow_rx.await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    let (ending, status) = tokio::select! {
        status = child.wait() => (Ending::Exited, status?),
        () = tokio::time::sleep(limits.timeout) => (Ending::TimedOut, terminate(&mut child, group, limits.kill_grace).await?),
        () = overflowed => {
            kill_group(group, Signal::SIGKILL);
            (Ending::OutputTooLarge, child.wait().await?)
        }
        () = cancelled => (Ending::Cancelled, terminate(&mut child, group, limits.kill_grace).await?),
    };
    if ending != Ending::Exited {
        // Whatever the group started dies with it, even if the leader went
        // on its own during the grace period.
        kill_group(group, Signal::SIGKILL);
    }

    // Bounded drain: a grandchild may hold the pipes open indefinitely.
    // Past the deadline the readers are stopped (their pipes dropped) and
    // what they read so far is kept.
    let deadline = tokio::time::Instant::now() + limits.drain;
    for task in [stdout_task, stderr_task].into_iter().flatten() {
        join_until(task, deadline).await;
    }
    Ok(Finished {
        ending,
        status,
        stdout: take(&stdout),
        stderr: take(&stderr),
        elapsed: start.elapsed(),
    })
}

/// SIGTERM to the group, SIGKILL after `grace` if the leader has not gone,
/// then reap the leader.
async fn terminate(
    child: &mut tokio::process::Child,
    group: Option<Pid>,
    grace: Duration,
) -> io::Result<ExitStatus> {
    kill_group(group, Signal::SIGTERM);
    match tokio::time::timeout(grace, child.wait()).await {
        Ok(status) => status,
        Err(_) => {
            kill_group(group, Signal::SIGKILL);
            child.wait().await
        }
    }
}

/// Signals a whole process group; a group that is already gone is fine.
pub fn kill_group(group: Option<Pid>, signal: Signal) {
    if let Some(pgid) = group {
        let _ = killpg(pgid, signal);
    }
}

/// Waits for a reader task until `deadline`, then aborts it (dropping its
/// pipe). Readers publish into shared buffers as they go, so nothing they
/// read is lost either way.
async fn join_until(task: tokio::task::JoinHandle<()>, deadline: tokio::time::Instant) {
    let abort = task.abort_handle();
    if tokio::time::timeout_at(deadline, task).await.is_err() {
        abort.abort();
    }
}

fn take<T: Default>(shared: &Mutex<T>) -> T {
    match shared.lock() {
        Ok(mut guard) => std::mem::take(&mut *guard),
        Err(poisoned) => std::mem::take(&mut *poisoned.into_inner()),
    }
}

/// Reads up to `cap` bytes into `out`; one byte more fires `overflow` and
/// stops reading (the caller kills the group).
async fn read_capped(
    mut pipe: impl AsyncRead + Unpin,
    cap: usize,
    overflow: oneshot::Sender<()>,
    out: Arc<Mutex<Vec<u8>>>,
) {
    let mut buf = vec![0u8; 64 * 1024];
    let mut kept = 0usize;
    loop {
        let n = match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        let room = cap - kept;
        let take = n.min(room);
        if let Ok(mut out) = out.lock() {
            out.extend_from_slice(&buf[..take]);
        }
        kept += take;
        if n > room {
            let _ = overflow.send(());
            return;
        }
    }
}

async fn read_head_tail(mut pipe: impl AsyncRead + Unpin, capture: Arc<Mutex<HeadTail>>) {
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if let Ok(mut capture) = capture.lock() {
                    capture.push(&buf[..n]);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str, limits: Limits) -> Spawn {
        Spawn {
            program: "/bin/sh".into(),
            args: vec!["-c".into(), script.into()],
            cwd: None,
            env: vec![],
            stdin: Vec::new(),
            limits,
        }
    }

    #[tokio::test]
    async fn captures_and_exits() {
        let f = run(
            sh("echo out; echo err >&2; exit 3", Limits::default()),
            None,
        )
        .await
        .unwrap();
        assert_eq!(f.ending, Ending::Exited);
        assert_eq!(f.exit_code(), 3);
        assert_eq!(f.stdout, b"out\n");
        assert_eq!(f.stderr.render().text, "err\n");
    }

    #[tokio::test]
    async fn times_out_and_kills() {
        let limits = Limits {
            timeout: Duration::from_millis(200),
            ..Limits::default()
        };
        let f = run(sh("trap '' TERM; sleep 30", limits), None)
            .await
            .unwrap();
        assert_eq!(f.ending, Ending::TimedOut);
        assert_eq!(f.exit_code(), 137);
        assert!(f.elapsed < Duration::from_secs(2));
    }

    #[tokio::test]
    async fn stdout_cap_kills() {
        let limits = Limits {
            stdout_cap: 1000,
            ..Limits::default()
        };
        let f = run(sh("yes", limits), None).await.unwrap();
        assert_eq!(f.ending, Ending::OutputTooLarge);
        assert_eq!(f.stdout.len(), 1000);
    }

    #[tokio::test]
    async fn cancel_kills() {
        let (trigger, cancel) = Cancel::new();
        let task = tokio::spawn(run(sh("sleep 30", Limits::default()), Some(cancel)));
        tokio::time::sleep(Duration::from_millis(100)).await;
        trigger.fire();
        let f = task.await.unwrap().unwrap();
        assert_eq!(f.ending, Ending::Cancelled);
        assert_eq!(f.exit_code(), 143);
    }

    #[test]
    fn names_signals() {
        assert_eq!(signal_name(11), Some("SIGSEGV"));
        assert_eq!(signal_name(999), None);
    }
}
