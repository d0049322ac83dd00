//! `ikigai mcp`: the raw protocol checked line by line, and the official MCP
//! Python SDK driving the server (tests/mcp/sdk_client.py).

use crate::util::*;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

const TOOLS: &[&str] = &[
    "bash",
    "file-read",
    "file-write",
    "file-edit",
    "glob",
    "grep",
    "mail",
];
const ENVELOPE: &str = r#""_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}"#;

/// A sandbox: the real tools in a system directory, a mail database with
/// agents 0/ and 1/, a scratch working directory.
struct Sandbox {
    root: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Sandbox {
        let s = Sandbox { root: tempdir() };
        std::fs::create_dir_all(s.libexec()).unwrap();
        std::fs::create_dir_all(s.work()).unwrap();
        for tool in TOOLS {
            std::os::unix::fs::symlink(bin(tool), s.libexec().join(tool)).unwrap();
        }
        for agent in ["0/", "1/"] {
            let out = Command::new(bin("ikigai"))
                .args(["--db", s.db().to_str().unwrap(), "agent", "add", agent])
                .output()
                .unwrap();
            assert!(out.status.success());
        }
        s
    }

    fn libexec(&self) -> PathBuf {
        self.root.path().join("libexec")
    }
    fn work(&self) -> PathBuf {
        self.root.path().join("work")
    }
    fn db(&self) -> PathBuf {
        self.root.path().join("mail.db")
    }

    fn command(&self, extra: &[&str]) -> Command {
        let mut cmd = Command::new(bin("ikigai"));
        cmd.env("IKIGAI_LIBEXEC_DIR", self.libexec())
            .env("HOME", self.work())
            .env_remove("IKIGAI_TOOL_DIRS")
            .env_remove("IKIGAI_TIMEOUT")
            .env_remove("IKIGAI_AGENT_ID")
            .current_dir(self.work())
            .args(["--agent", "0/", "--db", self.db().to_str().unwrap()])
            .args(extra)
            .arg("mcp");
        cmd
    }

    /// Sends `lines`, closes stdin, and returns every reply.
    fn exchange(&self, extra: &[&str], lines: &[&str]) -> Vec<Value> {
        let mut input = lines.join("\n");
        input.push('\n');
        let out = run_with_input(
            self.command(extra),
            input.as_bytes(),
            Duration::from_secs(60),
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
            .collect()
    }

    /// A running server to talk to line by line.
    fn spawn(&self, extra: &[&str]) -> Server {
        let mut child = self
            .command(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Server {
            child,
            stdin,
            stdout,
        }
    }
}

struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Server {
    fn send(&mut self, line: &str) {
        self.stdin.write_all(line.as_bytes()).unwrap();
        self.stdin.write_all(b"\n").unwrap();
        self.stdin.flush().unwrap();
    }

    fn recv(&mut self) -> Value {
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn by_id(replies: &[Value], id: i64) -> Value {
    replies
        .iter()
        .find(|r| r["id"] == id)
        .cloned()
        .unwrap_or_else(|| panic!("no reply {id} in {replies:?}"))
}

#[test]
fn handshake_negotiates_the_version() {
    let s = Sandbox::new();
    let init = |v: &str| {
        format!(
            r#"{{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {{"protocolVersion": "{v}", "capabilities": {{}}, "clientInfo": {{"name": "t", "version": "1"}}}}}}"#
        )
    };
    for (asked, got) in [
        ("2024-11-05", "2024-11-05"),
        ("2025-03-26", "2025-03-26"),
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        ("2099-01-01", "2025-11-25"),
    ] {
        let replies = s.exchange(&[], &[&init(asked)]);
        let result = &by_id(&replies, 1)["result"];
        assert_eq!(result["protocolVersion"], got, "{asked}");
        assert_eq!(
            result["capabilities"],
            json!({"tools": {"listChanged": false}})
        );
        assert_eq!(
            result["serverInfo"],
            json!({"name": "ikigai", "version": env!("CARGO_PKG_VERSION")})
        );
        assert!(
            result["instructions"]
                .as_str()
                .unwrap()
                .contains("agent 0/")
        );
    }
}

#[test]
fn malformed_and_unknown_messages() {
    let s = Sandbox::new();
    let replies = s.exchange(
        &[],
        &[
            "not json at all",
            r#"{"jsonrpc": "2.0", "id": 1, "method": "ping"}"#,
            r#"{"id": 2, "method": "ping"}"#,
            r#"{"jsonrpc": "2.0", "id": 3, "method": "resources/list"}"#,
            r#"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#,
            r#"{"jsonrpc": "2.0", "method": "notifications/whatever"}"#,
            r#"{"jsonrpc": "2.0", "id": 99, "result": {}}"#,
            r#"{"jsonrpc": "2.0", "id": 4, "params": {}}"#,
            "[]",
            r#"[{"jsonrpc": "2.0", "id": 5, "method": "ping"}, {"jsonrpc": "2.0", "id": 6, "method": "ping"}]"#,
            r#"{"jsonrpc": "2.0", "id": 7, "method": "ping"}"#,
        ],
    );
    assert_eq!(replies.len(), 9, "{replies:?}");
    assert_eq!(
        replies[0],
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error", "data": "expected ident at line 1 column 2"}})
    );
    assert_eq!(replies[1], json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
    assert_eq!(
        replies[2],
        json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32600, "message": "Invalid Request", "data": "jsonrpc must be \"2.0\""}})
    );
    assert_eq!(
        replies[3],
        json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32601, "message": "Method not found", "data": "resources/list"}})
    );
    assert_eq!(
        replies[4],
        json!({"jsonrpc": "2.0", "id": 4, "error": {"code": -32600, "message": "Invalid Request", "data": "a request needs a method"}})
    );
    assert_eq!(
        replies[5],
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "Invalid Request", "data": "empty batch"}})
    );
    assert_eq!(
        (
            replies[6]["id"].clone(),
            replies[7]["id"].clone(),
            replies[8]["id"].clone()
        ),
        (json!(5), json!(6), json!(7))
    );
}

#[test]
fn tools_list_and_annotations() {
    let s = Sandbox::new();
    // A project tool overriding file_read gets no read-only promise.
    let project = s.work().join(".ikigai/tools");
    std::fs::create_dir_all(&project).unwrap();
    let fake = project.join("file-read");
    std::fs::write(
        &fake,
        "#!/bin/sh\nif [ \"$1\" = --schema ]; then printf '%s' '{\"name\":\"file_read\",\"description\":\"mine\",\"parameters\":{\"type\":\"object\",\"properties\":{}}}'; exit 0; fi\nprintf '{}'\n",
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let replies = s.exchange(
        &[],
        &[r#"{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}"#],
    );
    let tools = by_id(&replies, 1)["result"]["tools"]
        .as_array()
        .unwrap()
        .clone();
    let get = |n: &str| tools.iter().find(|t| t["name"] == n).cloned().unwrap();
    assert_eq!(tools.len(), 7);
    assert_eq!(
        get("grep")["annotations"],
        json!({"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false})
    );
    assert_eq!(
        get("bash"),
        json!({"name": "bash", "description": "Execute a shell command and return output",
               "inputSchema": {"type": "object", "properties": {"command": {"type": "string", "description": "Shell command to execute"}}, "required": ["command"]},
               "annotations": {"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": true}})
    );
    assert_eq!(
        get("file_read"),
        json!({"name": "file_read", "description": "mine", "inputSchema": {"type": "object", "properties": {}}})
    );
}

#[test]
fn tool_calls_map_envelopes_to_results() {
    let s = Sandbox::new();
    std::fs::write(s.work().join("a.txt"), "hello\n").unwrap();
    let call = |id: i64, name: &str, args: &str| {
        format!(
            r#"{{"jsonrpc": "2.0", "id": {id}, "method": "tools/call", "params": {{"name": "{name}", "arguments": {args}}}}}"#
        )
    };
    let replies = s.exchange(
        &["--timeout", "1"],
        &[
            &call(1, "file_read", r#"{"file_path": "a.txt"}"#),
            &call(2, "file_read", r#"{"file_path": "nope.txt"}"#),
            &call(3, "bash", r#"{"command": "sleep 5"}"#),
            &call(4, "nope", "{}"),
            r#"{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"arguments": {}}}"#,
            &call(6, "bash", "[1]"),
            r#"{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "bash"}}"#,
        ],
    );
    assert_eq!(
        by_id(&replies, 1)["result"],
        json!({"content": [{"type": "text", "text": "{\"output\":\"hello\\n\"}"}], "structuredContent": {"output": "hello\n"}, "isError": false})
    );
    assert_eq!(
        by_id(&replies, 2)["result"],
        json!({"content": [{"type": "text", "text": "{\"error\":\"File not found: nope.txt\",\"error_code\":\"FILE_NOT_FOUND\"}"}],
               "structuredContent": {"error": "File not found: nope.txt", "error_code": "FILE_NOT_FOUND"}, "isError": true})
    );
    let timeout = &by_id(&replies, 3)["result"];
    assert_eq!(timeout["isError"], true);
    assert_eq!(timeout["structuredContent"]["tool_success"], false);
    assert_eq!(
        timeout["structuredContent"]["error"],
        "Tool 'bash' timed out after 1 s"
    );
    assert_eq!(
        by_id(&replies, 4)["error"],
        json!({"code": -32602, "message": "Unknown tool: nope"})
    );
    assert_eq!(
        by_id(&replies, 5)["error"],
        json!({"code": -32602, "message": "tools/call needs params.name (a string)"})
    );
    assert_eq!(
        by_id(&replies, 6)["error"],
        json!({"code": -32602, "message": "params.arguments must be an object"})
    );
    assert_eq!(
        by_id(&replies, 7)["result"]["structuredContent"]["error"],
        "Missing required parameter: command"
    );
}

#[test]
fn in_process_and_spawned_calls_answer_alike() {
    let s = Sandbox::new();
    std::fs::write(s.work().join("a.txt"), "one\ntwo\n").unwrap();
    let lines = [
        r#"{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "file_read", "arguments": {"file_path": "a.txt", "offset": "2"}}}"#,
        r#"{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "file_read", "arguments": {"file_path": "a.txt", "offset": 0}}}"#,
        r#"{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "mail", "arguments": {"action": "send", "to": "9/", "body": "x"}}}"#,
    ];
    let fast = s.exchange(&[], &lines);
    let spawned_only = {
        let mut cmd = s.command(&[]);
        cmd.arg("--no-in-process");
        let mut input = lines.join("\n");
        input.push('\n');
        let out = run_with_input(cmd, input.as_bytes(), Duration::from_secs(60));
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .collect::<Vec<_>>()
    };
    for id in 1..=3 {
        assert_eq!(by_id(&fast, id), by_id(&spawned_only, id), "call {id}");
    }
    assert_eq!(
        by_id(&fast, 3)["result"]["structuredContent"],
        json!({"error": "Agent 9/ not found", "error_code": "AGENT_NOT_FOUND"})
    );
}

#[test]
fn modern_envelope_and_era_lock() {
    let s = Sandbox::new();
    let modern = |id: i64, method: &str, extra: &str| {
        format!(
            r#"{{"jsonrpc": "2.0", "id": {id}, "method": "{method}", "params": {{{ENVELOPE}{extra}}}}}"#
        )
    };
    let replies = s.exchange(
        &[],
        &[
            &modern(1, "server/discover", ""),
            &modern(2, "tools/list", ""),
            &modern(3, "tools/call", r#", "name": "bash", "arguments": {"command": "echo modern"}"#),
            r#"{"jsonrpc": "2.0", "id": 4, "method": "tools/list"}"#,
            r#"{"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2030-01-01", "io.modelcontextprotocol/clientCapabilities": {}}}}"#,
            r#"{"jsonrpc": "2.0", "id": 6, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}}"#,
            &modern(7, "ping", ""),
        ],
    );
    let server_info = json!({"io.modelcontextprotocol/serverInfo": {"name": "ikigai", "version": env!("CARGO_PKG_VERSION")}});
    let discover = by_id(&replies, 1)["result"].clone();
    assert_eq!(discover["supportedVersions"], json!(["2026-07-28"]));
    assert_eq!(discover["resultType"], "complete");
    assert_eq!(discover["cacheScope"], "private");
    assert_eq!(discover["ttlMs"], 0);
    assert_eq!(discover["_meta"], server_info);
    let list = by_id(&replies, 2)["result"].clone();
    assert_eq!(
        (
            list["tools"].as_array().unwrap().len(),
            list["resultType"].clone(),
            list["cacheScope"].clone()
        ),
        (7, json!("complete"), json!("private"))
    );
    let call = by_id(&replies, 3)["result"].clone();
    assert_eq!(
        call["structuredContent"],
        json!({"output": "modern", "exit_code": 0})
    );
    assert_eq!(
        (call["resultType"].clone(), call.get("cacheScope").is_none()),
        (json!("complete"), true)
    );
    assert_eq!(by_id(&replies, 4)["error"]["code"], -32602);
    assert_eq!(
        by_id(&replies, 5)["error"],
        json!({"code": -32022, "message": "Unsupported protocol version: 2030-01-01", "data": {"supported": ["2026-07-28"], "requested": "2030-01-01"}})
    );
    assert_eq!(by_id(&replies, 6)["error"]["code"], -32022);
    assert_eq!(
        by_id(&replies, 6)["error"]["data"],
        json!({"supported": ["2026-07-28"], "requested": "2025-11-25"})
    );
    assert_eq!(by_id(&replies, 7)["error"]["code"], -32601);
    // A handshake connection refuses the envelope.
    let replies = s.exchange(
        &[],
        &[r#"{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}}"#, &modern(2, "tools/list", "")],
    );
    assert_eq!(by_id(&replies, 2)["error"]["code"], -32600);
}

#[test]
fn cancelled_call_is_killed_and_not_answered() {
    let s = Sandbox::new();
    let pidfile = s.work().join("pid");
    let mut server = s.spawn(&[]);
    server.send(&format!(
        r#"{{"jsonrpc": "2.0", "id": "long", "method": "tools/call", "params": {{"name": "bash", "arguments": {{"command": "echo $$ > {}; sleep 300"}}}}}}"#,
        pidfile.display()
    ));
    assert!(wait_until(Duration::from_secs(10), || {
        std::fs::read_to_string(&pidfile).is_ok_and(|p| !p.trim().is_empty())
    }));
    let pid: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(process_alive(pid));
    let start = Instant::now();
    server.send(r#"{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "long", "reason": "user"}}"#);
    assert!(
        wait_until(Duration::from_secs(5), || !process_alive(pid)),
        "the call's process survived"
    );
    assert!(start.elapsed() < Duration::from_secs(3));
    server.send(r#"{"jsonrpc": "2.0", "id": 2, "method": "ping"}"#);
    // The next reply is the ping's: the cancelled call gets none.
    assert_eq!(
        server.recv(),
        json!({"jsonrpc": "2.0", "id": 2, "result": {}})
    );
}

#[test]
fn piped_requests_are_answered_before_exit() {
    let s = Sandbox::new();
    let start = Instant::now();
    let replies = s.exchange(
        &[],
        &[r#"{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "bash", "arguments": {"command": "sleep 0.3; echo late"}}}"#],
    );
    assert_eq!(
        by_id(&replies, 1)["result"]["structuredContent"]["output"],
        "late"
    );
    assert!(start.elapsed() < Duration::from_secs(5));
}

/// The Python interpreter with the MCP SDK: `IKIGAI_MCP_PYTHON`, else the
/// virtualenv `.ci/run` creates at target/mcp-venv.
fn sdk_python() -> Option<PathBuf> {
    let candidate = std::env::var_os("IKIGAI_MCP_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/mcp-venv/bin/python"));
    let ok = Command::new(&candidate)
        .args(["-c", "import mcp"])
        .output()
        .is_ok_and(|o| o.status.success());
    ok.then_some(candidate)
}

#[test]
fn official_python_sdk_drives_the_server() {
    let Some(python) = sdk_python() else {
        assert!(
            std::env::var_os("IKIGAI_REQUIRE_MCP_SDK").is_none(),
            "IKIGAI_REQUIRE_MCP_SDK is set but no Python with the `mcp` package was found"
        );
        eprintln!("skipped: no Python with the MCP SDK (run .ci/run, or set IKIGAI_MCP_PYTHON)");
        return;
    };
    let s = Sandbox::new();
    let script: &Path = &root().join("tests/mcp/sdk_client.py");
    let mut cmd = Command::new(python);
    cmd.arg(script)
        .env("IKIGAI_BIN", bin("ikigai"))
        .env("IKIGAI_LIBEXEC_DIR", s.libexec())
        .env("IKIGAI_TEST_DB", s.db())
        .env("IKIGAI_TEST_WORK", s.work());
    let out = run_with_input(cmd, b"", Duration::from_secs(180));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("all MCP SDK checks passed"),
        "SDK client failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("{stdout}");
}
