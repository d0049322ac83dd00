//! The bash tool: spec examples and exit codes, merged ordered output,
//! /dev/null stdin, process groups, background children, the output cap.

use crate::util::*;
use serde_json::{Value, json};
use std::os::unix::process::CommandExt;
use std::time::{Duration, Instant};

fn sh(command: &str) -> Value {
    call("bash", &json!({ "command": command }))
}

#[test]
fn spec_examples() {
    assert_eq!(sh("echo hello"), json!({"output": "hello", "exit_code": 0}));
    assert_eq!(
        sh("nonexistent"),
        json!({"output": "sh: 1: nonexistent: not found", "exit_code": 127})
    );
    assert_eq!(
        sh("ls /nonexistent"),
        json!({"output": "ls: cannot access '/nonexistent': No such file or directory", "exit_code": 2})
    );
    assert_eq!(
        sh(""),
        json!({"output": "sh: empty command", "exit_code": 127})
    );
    assert_eq!(
        sh("  "),
        json!({"output": "sh: empty command", "exit_code": 127})
    );
}

#[test]
fn exit_codes() {
    assert_eq!(sh("exit 3"), json!({"output": "", "exit_code": 3}));
    assert_eq!(sh("exit 126"), json!({"output": "", "exit_code": 126}));
    assert_eq!(sh("kill -TERM $$"), json!({"output": "", "exit_code": 143}));
    assert_eq!(sh("kill -SEGV $$"), json!({"output": "", "exit_code": 139}));
    assert_eq!(sh("kill -INT $$"), json!({"output": "", "exit_code": 130}));
}

#[test]
fn single_trailing_newline_stripped() {
    assert_eq!(
        sh("printf 'a\\n\\n'"),
        json!({"output": "a\n", "exit_code": 0})
    );
    assert_eq!(sh("printf 'a'"), json!({"output": "a", "exit_code": 0}));
    assert_eq!(
        sh("printf 'a\\r\\n'"),
        json!({"output": "a\r", "exit_code": 0})
    );
    assert_eq!(
        sh("printf 'l1\\nl2\\n'"),
        json!({"output": "l1\nl2", "exit_code": 0})
    );
}

#[test]
fn stdout_and_stderr_interleave_in_order() {
    assert_eq!(
        sh("echo 1; echo 2 >&2; echo 3; echo 4 >&2"),
        json!({"output": "1\n2\n3\n4", "exit_code": 0})
    );
}

#[test]
fn stdin_is_dev_null() {
    let start = Instant::now();
    assert_eq!(
        sh("cat; read x; echo \"got:$x\""),
        json!({"output": "got:", "exit_code": 0})
    );
    assert!(start.elapsed() < Duration::from_secs(5));
    assert_eq!(
        sh("readlink /proc/self/fd/0"),
        json!({"output": "/dev/null", "exit_code": 0})
    );
}

#[test]
fn non_utf8_output_becomes_replacement_characters() {
    assert_eq!(
        sh("printf 'a\\377\\376b'"),
        json!({"output": "a\u{FFFD}\u{FFFD}b", "exit_code": 0})
    );
    assert_eq!(
        sh("printf 'nul:\\000:'"),
        json!({"output": "nul:\u{0}:", "exit_code": 0})
    );
}

#[test]
fn runs_in_the_tool_working_directory() {
    let dir = tempdir();
    std::fs::write(dir.path().join("marker.txt"), "").unwrap();
    assert_eq!(
        call_in("bash", dir.path(), &json!({"command": "ls"})),
        json!({"output": "marker.txt", "exit_code": 0})
    );
}

#[test]
fn command_stays_in_the_tool_process_group() {
    // The tool leads its own group here, as the host starts it.
    let mut cmd = tool_command("bash", &std::env::temp_dir());
    cmd.process_group(0);
    let out = run_with_input(
        cmd,
        br#"{"command": "ps -o pgid= -p $$; sh -c 'ps -o pgid= -p $$'"}"#,
        Duration::from_secs(20),
    );
    let got = parse_tool_output(&out);
    let text = got["output"].as_str().unwrap();
    let pgids: Vec<&str> = text.lines().map(str::trim).collect();
    assert_eq!(pgids.len(), 2, "{text}");
    assert!(pgids.iter().all(|p| *p == pgids[0]), "{text}");
    assert_ne!(
        pgids[0],
        unsafe { libc::getpgrp() }.to_string(),
        "the command left the tool's group"
    );
}

#[test]
fn killing_the_tool_group_kills_the_command_and_its_children() {
    let dir = tempdir();
    let pidfile = dir.path().join("pids");
    let mut cmd = tool_command("bash", dir.path());
    cmd.process_group(0)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null());
    let mut child = cmd.spawn().unwrap();
    let input = json!({"command": format!("sleep 300 & echo $! > {p}.tmp; echo $$ >> {p}.tmp; mv {p}.tmp {p}; sleep 300", p = pidfile.display())});
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(input.to_string().as_bytes()).unwrap();
    }
    assert!(wait_until(Duration::from_secs(10), || pidfile.exists()));
    let pids: Vec<i32> = std::fs::read_to_string(&pidfile)
        .unwrap()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect();
    assert!(pids.iter().all(|&p| process_alive(p)));
    // What a host does on timeout: kill the tool's whole group.
    unsafe {
        libc::killpg(child.id() as i32, libc::SIGKILL);
    }
    child.wait().unwrap();
    assert!(
        wait_until(Duration::from_secs(5), || pids
            .iter()
            .all(|&p| !process_alive(p))),
        "processes survived the group kill: {pids:?}"
    );
}

#[test]
fn regression_goose_2822_background_child_does_not_hold_the_call() {
    let start = Instant::now();
    let got = sh("sleep 100 & echo started $!");
    let elapsed = start.elapsed();
    assert!(elapsed < Duration::from_secs(3), "took {elapsed:?}");
    let text = got["output"].as_str().unwrap().to_owned();
    let pid: i32 = text.strip_prefix("started ").unwrap().parse().unwrap();
    assert_eq!(got, json!({"output": text, "exit_code": 0}));
    // Left running: agents start servers this way.
    assert!(process_alive(pid), "background child was killed");
    unsafe {
        libc::kill(pid, libc::SIGKILL);
    }
}

#[test]
fn regression_codex_7846_background_writer_survives_after_return() {
    // The background child writes after the tool has returned; with nobody
    // reading the pipe it would die of SIGPIPE before creating the marker.
    let dir = tempdir();
    let marker = dir.path().join("marker");
    let got = call_in(
        "bash",
        dir.path(),
        &json!({"command": format!("(sleep 0.5; for i in 1 2 3; do echo late $i; done; touch {}) & echo early", marker.display())}),
    );
    assert_eq!(got, json!({"output": "early", "exit_code": 0}));
    assert!(
        wait_until(Duration::from_secs(10), || marker.exists()),
        "background writer did not finish"
    );
}

#[test]
fn output_beyond_the_cap_keeps_head_and_tail() {
    // 3,000,000 bytes of "y\n": the default 1 MiB cap keeps 524,288 at each end.
    let got = sh("yes | head -c 3000000");
    let half = 512 * 1024;
    let omitted = 3_000_000 - 2 * half;
    let expected = format!(
        "{}[... {omitted} bytes omitted ...]\n{}",
        "y\n".repeat(half / 2),
        "y\n".repeat(half / 2).trim_end_matches('\n')
    );
    assert_eq!(
        got,
        json!({"output": expected, "exit_code": 0, "truncated": true})
    );
}

#[test]
fn output_cap_is_configurable() {
    let mut cmd = tool_command("bash", &std::env::temp_dir());
    cmd.env("IKIGAI_BASH_MAX_OUTPUT", "10");
    let out = run_with_input(
        cmd,
        br#"{"command": "printf 'abcdefghijklmnopqrstuvwxyz'"}"#,
        Duration::from_secs(20),
    );
    assert_eq!(
        parse_tool_output(&out),
        json!({"output": "abcde\n[... 16 bytes omitted ...]\nvwxyz", "exit_code": 0, "truncated": true})
    );
    // Exactly at the cap: not truncated.
    let mut cmd = tool_command("bash", &std::env::temp_dir());
    cmd.env("IKIGAI_BASH_MAX_OUTPUT", "10");
    let out = run_with_input(
        cmd,
        br#"{"command": "printf 0123456789"}"#,
        Duration::from_secs(20),
    );
    assert_eq!(
        parse_tool_output(&out),
        json!({"output": "0123456789", "exit_code": 0})
    );
}

#[test]
fn endless_output_stays_bounded_in_memory() {
    // `yes` for two seconds: hundreds of MB through the pipe.
    let (out, rss_kib) = run_measuring_rss(
        "bash",
        &std::env::temp_dir(),
        br#"{"command": "timeout 2 yes"}"#,
        Duration::from_secs(30),
    );
    let got = parse_tool_output(&out);
    assert_eq!(got["exit_code"], json!(124));
    assert_eq!(got["truncated"], json!(true));
    let text = got["output"].as_str().unwrap();
    assert!(
        text.len() <= 1024 * 1024 + 64,
        "output {} bytes",
        text.len()
    );
    assert!(text.contains(" bytes omitted ...]\n"));
    assert!(rss_kib < 32 * 1024, "peak RSS {rss_kib} KiB");
}

#[test]
fn regression_claude_code_26373_commands_print_plain_text() {
    // Even when the caller's terminal says colour, the command is told not to
    // colour or page: escape codes flood a model's context.
    let mut cmd = tool_command("bash", &root());
    cmd.env("TERM", "xterm-256color")
        .env("PAGER", "less")
        .env_remove("NO_COLOR");
    let got = parse_tool_output(&run_with_input(
        cmd,
        br#"{"command": "echo \"$NO_COLOR $CLICOLOR $TERM $PAGER $GIT_PAGER\""}"#,
        Duration::from_secs(20),
    ));
    assert_eq!(got, json!({"output": "1 0 dumb cat cat", "exit_code": 0}));
}
