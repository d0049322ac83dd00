//! Shared helpers: locating (and building) the binaries, running a tool with
//! JSON on stdin, and checking the protocol contract on every call.

use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The directory holding the built binaries of this test run's profile.
///
/// Cargo does not build other packages' binaries for an integration test,
/// so the first call runs `cargo build --workspace --bins` with the same
/// profile and target directory (cargo releases its build lock before it
/// runs tests, so the nested build is safe).
pub fn bin_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let exe = std::env::current_exe().unwrap();
        // <target>/<profile>/deps/integration-<hash>
        let profile_dir = exe.parent().unwrap().parent().unwrap().to_path_buf();
        let target_dir = profile_dir.parent().unwrap();
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut cmd = Command::new(cargo);
        cmd.current_dir(root())
            .args(["build", "--quiet", "--workspace", "--bins", "--target-dir"])
            .arg(target_dir);
        if profile_dir.file_name().is_some_and(|n| n == "release") {
            cmd.arg("--release");
        }
        let out = cmd.output().expect("running cargo build");
        assert!(
            out.status.success(),
            "cargo build failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        profile_dir
    })
}

/// Path of a built binary (`bash`, `file-read`, `ikigai`, ...).
pub fn bin(name: &str) -> PathBuf {
    let path = bin_dir().join(name);
    assert!(path.exists(), "{} was not built", path.display());
    path
}

/// A command for a tool binary, run in `dir`.
pub fn tool_command(name: &str, dir: &Path) -> Command {
    let mut cmd = Command::new(bin(name));
    cmd.current_dir(dir);
    cmd
}

/// Runs `cmd` with `input` on stdin (written on its own thread so a tool
/// that does not read cannot deadlock the test) and a deadline.
pub fn run_with_input(mut cmd: Command, input: &[u8], deadline: Duration) -> Output {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawning tool");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = wait_output(child, deadline);
    let _ = writer.join();
    out
}

/// Waits for a child with a deadline; kills it (and fails) past it.
pub fn wait_output(child: Child, deadline: Duration) -> Output {
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(deadline) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            unsafe {
                libc::kill(pid as i32, libc::SIGKILL);
            }
            panic!("process {pid} did not finish within {deadline:?}");
        }
    }
}

/// Checks the protocol contract on a tool's output and returns its JSON:
/// exit code 0, exactly one JSON object on stdout, no trailing newline.
pub fn parse_tool_output(out: &Output) -> Value {
    let stdout = String::from_utf8(out.stdout.clone()).expect("stdout is UTF-8");
    assert_eq!(
        out.status.code(),
        Some(0),
        "tool exited with {:?}; stderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!stdout.ends_with('\n'), "trailing newline in {stdout:?}");
    let mut stream = serde_json::Deserializer::from_str(&stdout).into_iter::<Value>();
    let value = stream
        .next()
        .expect("no JSON on stdout")
        .expect("stdout is JSON");
    assert!(
        stream.next().is_none(),
        "more than one JSON value on stdout"
    );
    assert!(value.is_object(), "not an object: {value}");
    value
}

/// Runs a tool in `dir` with raw stdin bytes and returns its JSON.
pub fn call_raw_in(name: &str, dir: &Path, input: &[u8]) -> Value {
    let out = run_with_input(tool_command(name, dir), input, Duration::from_secs(60));
    parse_tool_output(&out)
}

/// Runs a tool in `dir` with a JSON value on stdin and returns its JSON.
pub fn call_in(name: &str, dir: &Path, input: &Value) -> Value {
    call_raw_in(name, dir, input.to_string().as_bytes())
}

/// Runs a tool in the system temp dir (for tests using absolute paths).
pub fn call(name: &str, input: &Value) -> Value {
    call_in(name, &std::env::temp_dir(), input)
}

/// A fresh temporary directory.
pub fn tempdir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("ikigai-test-")
        .tempdir()
        .unwrap()
}

/// Whether tests run as root (permission tests then run the tool as
/// `nobody`, since root bypasses file permissions).
pub fn is_root() -> bool {
    unsafe { libc::geteuid() == 0 }
}

/// A tool command that runs without root's permission bypass.
pub fn unprivileged(name: &str, dir: &Path) -> Command {
    use std::os::unix::process::CommandExt;
    let mut cmd = tool_command(name, dir);
    if is_root() {
        cmd.uid(65534).gid(65534);
    }
    cmd
}

/// Runs a tool in `dir` as [`unprivileged`] and returns its JSON.
pub fn call_unprivileged(name: &str, dir: &Path, input: &Value) -> Value {
    let out = run_with_input(
        unprivileged(name, dir),
        input.to_string().as_bytes(),
        Duration::from_secs(20),
    );
    parse_tool_output(&out)
}

/// Runs a tool in `dir` with `input` on stdin through
/// `xtask measure-rss`, returning its output and peak RSS in KiB.
///
/// The measurement runs from the small xtask process because a child
/// spawned from this (large, multi-threaded) test process inherits the
/// test's peak RSS at exec time.
pub fn run_measuring_rss(
    tool: &str,
    dir: &Path,
    input: &[u8],
    deadline: Duration,
) -> (Output, i64) {
    let rss_file = tempfile::NamedTempFile::new().unwrap();
    let mut cmd = Command::new(bin("xtask"));
    cmd.current_dir(dir)
        .arg("measure-rss")
        .arg("--out")
        .arg(rss_file.path())
        .arg("--")
        .arg(bin(tool));
    let out = run_with_input(cmd, input, deadline);
    // The report is "PEAK_RSS_KIB WALL_NS".
    let report = std::fs::read_to_string(rss_file.path()).unwrap();
    let rss = report.split_whitespace().next().unwrap().parse().unwrap();
    (out, rss)
}

/// Whether a process exists and is not a zombie.
pub fn process_alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            // The state follows the parenthesised command name.
            let state = stat
                .rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .chars()
                .next();
            !matches!(state, Some('Z' | 'X') | None)
        }
        Err(_) => false,
    }
}

/// Waits until `cond` holds or `timeout` passes; returns whether it held.
pub fn wait_until(timeout: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < timeout {
        if cond() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    cond()
}

/// The process umask, from /proc (reading it with umask(2) would race with
/// other tests creating files).
pub fn current_umask() -> u32 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("Umask:")).unwrap();
    u32::from_str_radix(line.split_whitespace().nth(1).unwrap(), 8).unwrap()
}

/// Deterministic pseudo-random bytes (xorshift), for binary fixtures.
pub fn pseudo_random_bytes(len: usize, mut seed: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        out.extend_from_slice(&seed.to_le_bytes());
    }
    out.truncate(len);
    out
}
