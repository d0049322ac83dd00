//! The host, through the `ikigai` CLI: discovery and precedence, exports,
//! and every failure mode of a tool process, with fixture tools written per
//! test (small shell scripts in temp tool directories).

use crate::util::*;
use serde_json::{Value, json};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// A host sandbox: its own system, user (HOME) and project directories.
struct Sandbox {
    root: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Sandbox {
        let s = Sandbox { root: tempdir() };
        for d in ["system", "home/.ikigai/tools", "project/.ikigai/tools"] {
            std::fs::create_dir_all(s.root.path().join(d)).unwrap();
        }
        s
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.root.path().join(rel)
    }

    fn system(&self) -> PathBuf {
        self.path("system")
    }
    fn user(&self) -> PathBuf {
        self.path("home/.ikigai/tools")
    }
    fn project(&self) -> PathBuf {
        self.path("project/.ikigai/tools")
    }

    /// Links the real built tools into the system directory.
    fn with_real_tools(self, tools: &[&str]) -> Sandbox {
        for tool in tools {
            std::os::unix::fs::symlink(bin(tool), self.system().join(tool)).unwrap();
        }
        self
    }

    fn ikigai(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(bin("ikigai"));
        cmd.env("IKIGAI_LIBEXEC_DIR", self.system())
            .env("HOME", self.path("home"))
            .env_remove("IKIGAI_TOOL_DIRS")
            .env_remove("IKIGAI_TIMEOUT")
            .env_remove("IKIGAI_AGENT_ID")
            .env_remove("IKIGAI_CWD")
            .current_dir(self.path("project"))
            .args(args);
        cmd
    }

    fn run(&self, args: &[&str], stdin: &str) -> Output {
        run_with_input(self.ikigai(args), stdin.as_bytes(), Duration::from_secs(60))
    }

    /// `ikigai call NAME ARGS`: the envelope and the exit code.
    fn call(&self, name: &str, args: &str, extra: &[&str]) -> (Value, i32) {
        let mut argv: Vec<&str> = extra.to_vec();
        argv.extend(["call", name, args]);
        let out = self.run(&argv, "");
        let stdout = String::from_utf8(out.stdout).unwrap();
        let value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout:?}"));
        (value, out.status.code().unwrap())
    }
}

/// Writes an executable fixture tool: `--schema` prints a minimal schema
/// named `schema_name`; otherwise `body` runs (stdin not read unless the
/// body reads it).
fn fixture(dir: &Path, file_name: &str, schema_name: &str, body: &str) -> PathBuf {
    let path = dir.join(file_name);
    let script = format!(
        "#!/bin/sh\nif [ \"$1\" = \"--schema\" ]; then\n  printf '%s' '{{\"name\":\"{schema_name}\",\"description\":\"fixture {file_name}\",\"parameters\":{{\"type\":\"object\",\"properties\":{{}}}}}}'\n  exit 0\nfi\n{body}\n"
    );
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn failure(error: &str, code: &str, exit_code: Value, stdout: &str, stderr: &str) -> Value {
    json!({"tool_success": false, "error": error, "error_code": code, "exit_code": exit_code, "stdout": stdout, "stderr": stderr})
}

#[test]
fn call_succeeds_through_real_tool() {
    let s = Sandbox::new().with_real_tools(&["file-read", "bash"]);
    std::fs::write(s.path("project/notes.txt"), "one\ntwo\n").unwrap();
    let (env, code) = s.call(
        "file_read",
        r#"{"file_path": "notes.txt", "offset": 2}"#,
        &[],
    );
    assert_eq!(
        env,
        json!({"tool_success": true, "result": {"output": "two\n"}})
    );
    assert_eq!(code, 0);
    // A tool's own error object is still a successful call.
    let (env, code) = s.call("file_read", r#"{"file_path": "missing"}"#, &[]);
    assert_eq!(
        env,
        json!({"tool_success": true, "result": {"error": "File not found: missing", "error_code": "FILE_NOT_FOUND"}})
    );
    assert_eq!(code, 0);
}

#[test]
fn unknown_tool_and_bad_arguments() {
    let s = Sandbox::new().with_real_tools(&["bash"]);
    let (env, code) = s.call("nope", "{}", &[]);
    assert_eq!(
        env,
        failure(
            "Tool not found: nope",
            "TOOL_NOT_FOUND",
            Value::Null,
            "",
            ""
        )
    );
    assert_eq!(code, 1);
    let (env, _) = s.call("bash", "[1, 2]", &[]);
    assert_eq!(
        env,
        failure(
            "Invalid arguments for tool 'bash': expected a JSON object",
            "INVALID_PARAMS",
            Value::Null,
            "",
            ""
        )
    );
    let (env, _) = s.call("bash", "{oops", &[]);
    assert_eq!(env["error_code"], "INVALID_PARAMS");
    // `ikigai tool` on an unknown name.
    let out = s.run(&["tool", "nope"], "");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "Tool not found: nope\n"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn arguments_from_stdin() {
    let s = Sandbox::new().with_real_tools(&["bash"]);
    let out = s.run(&["call", "bash", "-"], r#"{"command": "echo piped"}"#);
    assert_eq!(
        serde_json::from_slice::<Value>(&out.stdout).unwrap(),
        json!({"tool_success": true, "result": {"output": "piped", "exit_code": 0}})
    );
    let out = s.run(&["call", "bash"], r#"{"command": "echo piped"}"#);
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn timeout_kills_within_a_second_of_the_limit() {
    let s = Sandbox::new();
    fixture(&s.system(), "sleeper", "sleeper", "sleep 1000");
    fixture(
        &s.system(),
        "stubborn",
        "stubborn",
        "trap '' TERM\nsleep 1000 & wait; sleep 1000",
    );
    for tool in ["sleeper", "stubborn"] {
        let start = Instant::now();
        let (env, code) = s.call(tool, "{}", &["--timeout", "1"]);
        let elapsed = start.elapsed();
        assert!(elapsed < Duration::from_secs(2), "{tool}: {elapsed:?}");
        assert_eq!(env["error_code"], "TOOL_TIMEOUT", "{env}");
        assert_eq!(env["error"], format!("Tool '{tool}' timed out after 1 s"));
        assert_eq!(code, 1);
    }
}

#[test]
fn regression_codex_4337_timeout_kills_every_grandchild() {
    let s = Sandbox::new();
    let pids = s.path("pids");
    fixture(
        &s.system(),
        "spawner",
        "spawner",
        &format!(
            "sleep 300 & echo $! >> {p}\n( sleep 300 & echo $! >> {p}; wait ) &\nsh -c 'echo $$ >> {p}; exec sleep 300' &\nsleep 300",
            p = pids.display()
        ),
    );
    let (env, _) = s.call("spawner", "{}", &["--timeout", "1"]);
    assert_eq!(env["error_code"], "TOOL_TIMEOUT");
    let pids: Vec<i32> = std::fs::read_to_string(&pids)
        .unwrap()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect();
    assert_eq!(pids.len(), 3);
    assert!(
        wait_until(Duration::from_secs(3), || pids
            .iter()
            .all(|&p| !process_alive(p))),
        "survivors: {:?}",
        pids.iter()
            .filter(|&&p| process_alive(p))
            .collect::<Vec<_>>()
    );
}

#[test]
fn regression_codex_7846_grandchild_holding_stdout_does_not_hold_the_call() {
    let s = Sandbox::new();
    let pidfile = s.path("pid");
    fixture(
        &s.system(),
        "detacher",
        "detacher",
        &format!(
            "sleep 300 & echo $! > {}\nprintf '%s' '{{\"started\":true}}'",
            pidfile.display()
        ),
    );
    let start = Instant::now();
    let (env, code) = s.call("detacher", "{}", &[]);
    let elapsed = start.elapsed();
    assert_eq!(
        env,
        json!({"tool_success": true, "result": {"started": true}})
    );
    assert_eq!(code, 0);
    assert!(elapsed < Duration::from_secs(2), "{elapsed:?}");
    let pid: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(
        process_alive(pid),
        "the background grandchild should be left running"
    );
    unsafe {
        libc::kill(pid, libc::SIGKILL);
    }
}

#[test]
fn crashes_report_exit_code_and_signal() {
    let s = Sandbox::new();
    fixture(
        &s.system(),
        "segv",
        "segv",
        "echo partial output...\necho segmentation fault >&2\nkill -SEGV $$",
    );
    fixture(
        &s.system(),
        "three",
        "three",
        "echo out\necho err >&2\nexit 3",
    );
    let (env, code) = s.call("segv", "{}", &[]);
    assert_eq!(
        env,
        failure(
            "Tool 'segv' crashed with exit code 139 (killed by signal 11, SIGSEGV)",
            "TOOL_CRASHED",
            json!(139),
            "partial output...\n",
            "segmentation fault\n"
        )
    );
    assert_eq!(code, 1);
    let (env, _) = s.call("three", "{}", &[]);
    assert_eq!(
        env,
        failure(
            "Tool 'three' crashed with exit code 3",
            "TOOL_CRASHED",
            json!(3),
            "out\n",
            "err\n"
        )
    );
}

#[test]
fn invalid_output_is_named() {
    let s = Sandbox::new();
    fixture(&s.system(), "prose", "prose", "echo 'hello, not json'");
    fixture(&s.system(), "silent", "silent", "true");
    fixture(&s.system(), "twice", "twice", "printf '{\"a\":1}{\"b\":2}'");
    fixture(&s.system(), "array", "array", "printf '[1]'");
    fixture(&s.system(), "newline", "newline", "printf '{\"a\":1}\\n'");
    let (env, _) = s.call("prose", "{}", &[]);
    assert_eq!(env["error_code"], "INVALID_OUTPUT");
    assert!(
        env["error"]
            .as_str()
            .unwrap()
            .starts_with("Tool 'prose' returned invalid output: not valid JSON")
    );
    assert_eq!(env["stdout"], "hello, not json\n");
    assert_eq!(env["exit_code"], 0);
    let (env, _) = s.call("silent", "{}", &[]);
    assert_eq!(
        env,
        failure(
            "Tool 'silent' returned invalid output: no output",
            "INVALID_OUTPUT",
            json!(0),
            "",
            ""
        )
    );
    let (env, _) = s.call("twice", "{}", &[]);
    assert_eq!(
        env,
        failure(
            "Tool 'twice' returned invalid output: unexpected data after the JSON object",
            "INVALID_OUTPUT",
            json!(0),
            "{\"a\":1}{\"b\":2}",
            ""
        )
    );
    let (env, _) = s.call("array", "{}", &[]);
    assert_eq!(
        env["error"],
        "Tool 'array' returned invalid output: expected a JSON object"
    );
    // Trailing whitespace is tolerated.
    let (env, _) = s.call("newline", "{}", &[]);
    assert_eq!(env, json!({"tool_success": true, "result": {"a": 1}}));
}

#[test]
fn huge_stdout_is_killed_and_excerpts_are_short() {
    let s = Sandbox::new();
    fixture(
        &s.system(),
        "flood",
        "flood",
        "head -c 100000000 /dev/zero | tr '\\0' 'x'\nyes err >&2",
    );
    let (env, code) = s.call("flood", "{}", &[]);
    assert_eq!(env["error_code"], "OUTPUT_TOO_LARGE");
    assert_eq!(
        env["error"],
        "Tool 'flood' wrote more than 67108864 bytes to stdout and was killed"
    );
    assert_eq!(code, 1);
    let stdout = env["stdout"].as_str().unwrap();
    assert!(stdout.len() < 5000, "stdout excerpt {} bytes", stdout.len());
    assert!(stdout.contains(" bytes omitted ...]"));
}

#[test]
fn stderr_flood_before_reading_stdin_does_not_deadlock() {
    let s = Sandbox::new();
    fixture(
        &s.system(),
        "noisy",
        "noisy",
        "head -c 10000000 /dev/zero | tr '\\0' 'e' >&2\nn=$(wc -c)\nprintf '{\"read\":%s}' \"$n\"",
    );
    let args = json!({"blob": "a".repeat(1_000_000)}).to_string();
    let out = s.run(&["call", "noisy", "-"], &args);
    let env: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        env,
        json!({"tool_success": true, "result": {"read": args.len()}})
    );
    // On failure the stderr excerpt stays a few KiB.
    fixture(
        &s.system(),
        "noisy-fail",
        "noisy_fail",
        "head -c 10000000 /dev/zero | tr '\\0' 'e' >&2\nexit 1",
    );
    let (env, _) = s.call("noisy_fail", "{}", &[]);
    let stderr = env["stderr"].as_str().unwrap();
    assert!(stderr.len() < 5000);
    assert!(
        stderr.contains("[... 9995904 bytes omitted ...]"),
        "{stderr}"
    );
}

#[test]
fn tool_that_never_reads_a_huge_argument() {
    let s = Sandbox::new();
    fixture(&s.system(), "deaf", "deaf", "printf '{\"ok\":true}'");
    let args = json!({"blob": "a".repeat(10_000_000)}).to_string();
    let start = Instant::now();
    let out = s.run(&["call", "deaf", "-"], &args);
    let env: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(env, json!({"tool_success": true, "result": {"ok": true}}));
    assert!(start.elapsed() < Duration::from_secs(10));
}

#[test]
fn precedence_project_over_user_over_system() {
    let s = Sandbox::new();
    for (dir, who) in [
        (s.system(), "system"),
        (s.user(), "user"),
        (s.project(), "project"),
    ] {
        fixture(
            &dir,
            "who",
            "who",
            &format!("printf '{{\"from\":\"{who}\"}}'"),
        );
    }
    let (env, _) = s.call("who", "{}", &[]);
    assert_eq!(env["result"]["from"], "project");
    let extra = s.path("extra");
    std::fs::create_dir(&extra).unwrap();
    fixture(&extra, "who", "who", "printf '{\"from\":\"caller\"}'");
    let (env, _) = s.call("who", "{}", &["--tool-dir", extra.to_str().unwrap()]);
    assert_eq!(env["result"]["from"], "caller");
    std::fs::remove_file(s.project().join("who")).unwrap();
    let (env, _) = s.call("who", "{}", &[]);
    assert_eq!(env["result"]["from"], "user");
    std::fs::remove_file(s.user().join("who")).unwrap();
    let (env, _) = s.call("who", "{}", &[]);
    assert_eq!(env["result"]["from"], "system");
    // Discovery agrees.
    let out = s.run(&["tools", "--format", "list"], "");
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("who ({})\n", s.system().join("who").display())
    );
}

#[test]
fn broken_schemas_are_left_out_with_a_warning() {
    let s = Sandbox::new().with_real_tools(&["file-read"]);
    let write = |dir: &Path, name: &str, script: &str| {
        let p = dir.join(name);
        std::fs::write(&p, script).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    write(&s.system(), "crashes", "#!/bin/sh\nexit 1\n");
    write(&s.system(), "garbage", "#!/bin/sh\necho not json\n");
    write(&s.system(), "hangs", "#!/bin/sh\nexec sleep 100\n");
    write(
        &s.system(),
        "misnamed",
        "#!/bin/sh\nprintf '{\"name\":\"other\",\"description\":\"d\",\"parameters\":{\"type\":\"object\"}}'\n",
    );
    write(
        &s.system(),
        "no-params",
        "#!/bin/sh\nprintf '{\"name\":\"no_params\",\"description\":\"d\"}'\n",
    );
    std::fs::write(s.system().join("not-executable"), "#!/bin/sh\n").unwrap();
    // A broken override falls back to the tool it overrides.
    write(&s.project(), "file-read", "#!/bin/sh\nexit 7\n");
    let start = Instant::now();
    let out = s.run(&["tools", "--format", "raw"], "");
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "discovery waited on a hanging tool"
    );
    assert_eq!(out.status.code(), Some(0));
    let tools: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["file_read"]);
    let stderr = String::from_utf8(out.stderr).unwrap();
    let sys = s.system();
    let expected = [
        format!(
            "ikigai: warning: ignoring tool {}: --schema exited with code 1",
            sys.join("crashes").display()
        ),
        format!(
            "ikigai: warning: ignoring tool {}: --schema output is not JSON: expected ident at line 1 column 2",
            sys.join("garbage").display()
        ),
        format!(
            "ikigai: warning: ignoring tool {}: --schema did not finish within 2s",
            sys.join("hangs").display()
        ),
        format!(
            "ikigai: warning: ignoring tool {}: its schema is named `other` but the file name makes it `misnamed`",
            sys.join("misnamed").display()
        ),
        format!(
            "ikigai: warning: ignoring tool {}: --schema output is not a valid schema: schema field `parameters` is missing",
            sys.join("no-params").display()
        ),
        format!(
            "ikigai: warning: ignoring tool {}: --schema exited with code 7 (using {} instead)",
            s.project().join("file-read").display(),
            sys.join("file-read").display()
        ),
    ];
    let mut lines: Vec<&str> = stderr.lines().collect();
    lines.sort();
    let mut expected: Vec<&str> = expected.iter().map(String::as_str).collect();
    expected.sort();
    assert_eq!(lines, expected);
}

#[test]
fn exports_openai_anthropic_and_raw() {
    let s = Sandbox::new().with_real_tools(&["file-read", "bash"]);
    let export = |format: &str| -> Value {
        let out = s.run(&["tools", "--format", format], "");
        assert_eq!(out.status.code(), Some(0));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let raw = export("raw");
    let bash_schema = json!({"name": "bash", "description": "Execute a shell command and return output",
        "parameters": {"type": "object", "properties": {"command": {"type": "string", "description": "Shell command to execute"}}, "required": ["command"]}});
    assert_eq!(raw[0], bash_schema);
    assert_eq!(raw[1]["name"], "file_read");
    assert_eq!(
        export("openai")[0],
        json!({"type": "function", "function": {"name": "bash", "description": bash_schema["description"], "parameters": bash_schema["parameters"]}})
    );
    assert_eq!(
        export("anthropic")[0],
        json!({"name": "bash", "description": bash_schema["description"], "input_schema": bash_schema["parameters"]})
    );
    // `ikigai tool NAME`.
    let out = s.run(&["tool", "bash"], "");
    assert_eq!(
        serde_json::from_slice::<Value>(&out.stdout).unwrap(),
        json!({"name": "bash", "path": s.system().join("bash"), "source": "system", "schema": bash_schema})
    );
}

#[test]
fn context_sets_cwd_and_identity_environment() {
    let s = Sandbox::new();
    fixture(
        &s.system(),
        "whoami",
        "whoami",
        "printf '{\"cwd\":\"%s\",\"agent\":\"%s\",\"session\":\"%s\",\"db\":\"%s\"}' \"$PWD\" \"$IKIGAI_AGENT_ID\" \"$IKIGAI_SESSION_ID\" \"$IKIGAI_DB\"",
    );
    let elsewhere = s.path("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let (env, _) = s.call(
        "whoami",
        "{}",
        &[
            "--cwd",
            elsewhere.to_str().unwrap(),
            "--agent",
            "1/",
            "--session",
            "s42",
            "--db",
            "/tmp/x.db",
        ],
    );
    assert_eq!(
        env["result"],
        json!({"cwd": elsewhere, "agent": "1/", "session": "s42", "db": "/tmp/x.db"})
    );
    // The environment variables are the flags' equivalents.
    let mut cmd = s.ikigai(&["call", "whoami", "{}"]);
    cmd.env("IKIGAI_AGENT_ID", "2/");
    let out = run_with_input(cmd, b"", Duration::from_secs(20));
    let env: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(env["result"]["agent"], "2/");
}

#[test]
fn batch_runs_sixteen_calls_concurrently_in_order() {
    let s = Sandbox::new();
    fixture(
        &s.system(),
        "nap",
        "nap",
        "n=$(cat)\nsleep 0.5\nprintf '{\"got\":%s}' \"$n\"",
    );
    let calls: Vec<Value> = (0..16)
        .map(|i| json!({"name": "nap", "arguments": {"i": i}}))
        .collect();
    let start = Instant::now();
    let out = s.run(&["batch"], &Value::Array(calls).to_string());
    let elapsed = start.elapsed();
    assert_eq!(out.status.code(), Some(0));
    let results: Value = serde_json::from_slice(&out.stdout).unwrap();
    let expected: Vec<Value> = (0..16)
        .map(|i| json!({"tool_success": true, "result": {"got": {"i": i}}}))
        .collect();
    assert_eq!(results, Value::Array(expected));
    // Sequentially this takes 8 s; concurrently about 0.5 s.
    assert!(elapsed < Duration::from_secs(4), "{elapsed:?}");
}

#[test]
fn batch_orders_conflicting_calls() {
    let s = Sandbox::new().with_real_tools(&["file-write", "file-edit", "file-read", "bash"]);
    let calls = json!([
        {"name": "file_write", "arguments": {"file_path": "f.txt", "content": "v1"}},
        {"name": "file_edit", "arguments": {"file_path": "f.txt", "old_string": "v1", "new_string": "v2"}},
        {"name": "file_read", "arguments": {"file_path": "f.txt"}},
        {"name": "bash", "arguments": {"command": "cat f.txt; echo; echo v3 > f.txt"}},
        {"name": "file_read", "arguments": {"file_path": "./f.txt"}},
        {"name": "nope", "arguments": {}}
    ]);
    let out = s.run(&["batch"], &calls.to_string());
    assert_eq!(out.status.code(), Some(1));
    let results: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        results,
        json!([
            {"tool_success": true, "result": {"output": "Wrote 2 bytes to f.txt", "bytes": 2}},
            {"tool_success": true, "result": {"output": "Replaced 1 occurrence in f.txt", "replacements": 1}},
            {"tool_success": true, "result": {"output": "v2"}},
            {"tool_success": true, "result": {"output": "v2", "exit_code": 0}},
            {"tool_success": true, "result": {"output": "v3\n"}},
            {"tool_success": false, "error": "Tool not found: nope", "error_code": "TOOL_NOT_FOUND", "exit_code": null, "stdout": "", "stderr": ""}
        ])
    );
}

#[test]
fn help_documents_every_global_option() {
    let out = Sandbox::new().run(&["--help"], "");
    let help = String::from_utf8(out.stdout).unwrap();
    for option in [
        "--tool-dir",
        "--timeout",
        "--agent",
        "--session",
        "--db",
        "--cwd",
        "IKIGAI_TOOL_DIRS",
        "IKIGAI_TIMEOUT",
        "IKIGAI_AGENT_ID",
        "IKIGAI_SESSION_ID",
        "IKIGAI_DB",
        "IKIGAI_CWD",
    ] {
        assert!(help.contains(option), "--help lacks {option}");
    }
}
