//! The mail tool and the human mail commands, against a real SQLite file:
//! the seed's test list, the peer feature set, notifications, and
//! reliability (concurrent senders, killed senders, broken databases).

use crate::util::*;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

/// A mail database with agents 0/, 1/ and 2/ registered in session "default".
struct Mail {
    dir: tempfile::TempDir,
}

impl Mail {
    fn new() -> Mail {
        let m = Mail { dir: tempdir() };
        for agent in ["0/", "1/", "2/"] {
            let out = m.ikigai(&["agent", "add", agent]);
            assert!(out.status.success());
        }
        m
    }

    fn db(&self) -> PathBuf {
        self.dir.path().join("ikigai.db")
    }

    fn command(&self, tool: &str) -> Command {
        let mut cmd = tool_command(tool, self.dir.path());
        cmd.env("IKIGAI_DB", self.db())
            .env_remove("IKIGAI_SESSION_ID")
            .env_remove("IKIGAI_STATE_DIR")
            .env_remove("IKIGAI_AGENT_ID");
        cmd
    }

    /// The mail tool acting as `agent`, with raw stdin.
    fn raw(&self, agent: &str, input: &[u8]) -> Value {
        let mut cmd = self.command("mail");
        cmd.env("IKIGAI_AGENT_ID", agent);
        parse_tool_output(&run_with_input(cmd, input, Duration::from_secs(30)))
    }

    fn call(&self, agent: &str, input: Value) -> Value {
        self.raw(agent, input.to_string().as_bytes())
    }

    fn send(&self, from: &str, to: &str, body: &str) -> i64 {
        let r = self.call(from, json!({"action": "send", "to": to, "body": body}));
        r["id"]
            .as_i64()
            .unwrap_or_else(|| panic!("send failed: {r}"))
    }

    fn ikigai(&self, args: &[&str]) -> Output {
        let mut cmd = Command::new(bin("ikigai"));
        cmd.env("IKIGAI_DB", self.db())
            .env_remove("IKIGAI_SESSION_ID")
            .env_remove("IKIGAI_AGENT_ID")
            .current_dir(self.dir.path())
            .args(args);
        run_with_input(cmd, b"", Duration::from_secs(30))
    }

    fn ikigai_text(&self, args: &[&str]) -> String {
        let out = self.ikigai(args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    fn sql(&self) -> rusqlite::Connection {
        rusqlite::Connection::open(self.db()).unwrap()
    }
}

fn err(message: &str, code: &str) -> Value {
    json!({"error": message, "error_code": code})
}

// ------------------------------------------------------------ invalid input

#[test]
fn invalid_input() {
    let m = Mail::new();
    let invalid = m.raw("0/", b"not valid json");
    assert_eq!(invalid["error"], "Invalid JSON arguments");
    assert_eq!(invalid["error_code"], "INVALID_JSON");
    assert_eq!(
        m.call("0/", json!({})),
        err("Missing required parameter: action", "INVALID_ARG")
    );
    assert_eq!(
        m.call("0/", json!({"action": "foo"})),
        err("Unknown action: foo", "INVALID_ARG")
    );
    assert_eq!(
        m.call("0/", json!({"action": 123})),
        err(
            "Invalid type for parameter action: expected string, got number 123",
            "INVALID_ARG"
        )
    );
}

#[test]
fn caller_must_be_set_and_registered() {
    let m = Mail::new();
    let out = parse_tool_output(&run_with_input(
        m.command("mail"),
        br#"{"action": "inbox"}"#,
        Duration::from_secs(20),
    ));
    assert_eq!(
        out,
        err(
            "No calling agent: IKIGAI_AGENT_ID is not set",
            "AGENT_NOT_REGISTERED"
        )
    );
    assert_eq!(
        m.call("7/", json!({"action": "inbox"})),
        json!({"error": "Calling agent 7/ is not registered in session default", "error_code": "AGENT_NOT_REGISTERED",
               "detail": "register it with: ikigai agent add ID"})
    );
}

// ------------------------------------------------------------------- inbox

#[test]
fn inbox_empty_and_with_messages() {
    let m = Mail::new();
    assert_eq!(
        m.call("0/", json!({"action": "inbox"})),
        json!({"messages": [], "unread_count": 0})
    );
    let a = m.send(
        "1/",
        "0/",
        "Found 3 OAuth patterns worth considering: 1) Silent refresh...",
    );
    let b = m.send("2/", "0/", "Build complete, all 847 tests passing.");
    assert_eq!(
        m.call("0/", json!({"action": "inbox"})),
        json!({"messages": [
            {"id": b, "from": "2/", "unread": true, "preview": "Build complete, all 847 tests passing."},
            {"id": a, "from": "1/", "unread": true, "preview": "Found 3 OAuth patterns worth considering: 1) Silen..."}
        ], "unread_count": 2})
    );
}

#[test]
fn preview_is_fifty_characters_not_bytes() {
    let m = Mail::new();
    let long = "This is a very long message body that exceeds the fifty character preview limit and should be truncated";
    m.send("1/", "0/", long);
    let accents = "é".repeat(60);
    m.send("1/", "0/", &accents);
    let inbox = m.call("0/", json!({"action": "inbox"}));
    assert_eq!(
        inbox["messages"][0]["preview"],
        format!("{}...", "é".repeat(50))
    );
    assert_eq!(
        inbox["messages"][1]["preview"],
        "This is a very long message body that exceeds the ..."
    );
}

#[test]
fn unread_first_then_newest_and_listing_keeps_read_state() {
    let m = Mail::new();
    let first = m.send("1/", "0/", "first");
    let second = m.send("1/", "0/", "second");
    let third = m.send("2/", "0/", "third");
    m.call("0/", json!({"action": "read", "id": third}));
    let inbox = m.call("0/", json!({"action": "inbox"}));
    let order: Vec<(i64, bool)> = inbox["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["id"].as_i64().unwrap(), e["unread"].as_bool().unwrap()))
        .collect();
    assert_eq!(order, vec![(second, true), (first, true), (third, false)]);
    assert_eq!(inbox["unread_count"], 2);
    // Listing again changes nothing.
    assert_eq!(m.call("0/", json!({"action": "inbox"})), inbox);
}

// -------------------------------------------------------------------- read

#[test]
fn read_errors_and_success() {
    let m = Mail::new();
    assert_eq!(
        m.call("0/", json!({"action": "read"})),
        err("Missing required parameter: id", "INVALID_ARG")
    );
    assert_eq!(
        m.call("0/", json!({"action": "read", "id": 99})),
        err("Message #99 not found", "MESSAGE_NOT_FOUND")
    );
    let id = m.send("1/", "0/", "Found 3 OAuth patterns worth considering...");
    let got = m.call("0/", json!({"action": "read", "id": id}));
    let ts = got["timestamp"].as_str().unwrap().to_owned();
    assert_eq!(
        got,
        json!({"id": id, "from": "1/", "timestamp": ts, "body": "Found 3 OAuth patterns worth considering..."})
    );
    // YYYY-MM-DDTHH:MM:SSZ
    let b = ts.as_bytes();
    assert_eq!(b.len(), 20);
    assert!(
        b[4] == b'-'
            && b[7] == b'-'
            && b[10] == b'T'
            && b[13] == b':'
            && b[16] == b':'
            && b[19] == b'Z',
        "{ts}"
    );
    // Marked read.
    assert_eq!(m.call("0/", json!({"action": "inbox"}))["unread_count"], 0);
    // An id as a string of digits.
    assert_eq!(
        m.call("0/", json!({"action": "read", "id": id.to_string()}))["id"],
        id
    );
}

#[test]
fn mail_in_someone_elses_inbox_is_not_found() {
    let m = Mail::new();
    let id = m.send("0/", "1/", "private to 1/");
    assert_eq!(
        m.call("2/", json!({"action": "read", "id": id})),
        err(&format!("Message #{id} not found"), "MESSAGE_NOT_FOUND")
    );
    assert_eq!(
        m.call("0/", json!({"action": "read", "id": id})),
        err(&format!("Message #{id} not found"), "MESSAGE_NOT_FOUND")
    );
    assert_eq!(
        m.call("2/", json!({"action": "delete", "id": id})),
        err(&format!("Message #{id} not found"), "MESSAGE_NOT_FOUND")
    );
}

// -------------------------------------------------------------------- send

#[test]
fn send_errors() {
    let m = Mail::new();
    assert_eq!(
        m.call("0/", json!({"action": "send", "body": "Hello"})),
        err("Missing required parameter: to", "INVALID_ARG")
    );
    assert_eq!(
        m.call("0/", json!({"action": "send", "to": "1/"})),
        err("Missing required parameter: body", "INVALID_ARG")
    );
    for body in ["", "  \n\t "] {
        assert_eq!(
            m.call("0/", json!({"action": "send", "to": "1/", "body": body})),
            err("Message body cannot be empty", "INVALID_ARG")
        );
    }
    assert_eq!(
        m.call(
            "0/",
            json!({"action": "send", "to": "99/", "body": "Hello"})
        ),
        err("Agent 99/ not found", "AGENT_NOT_FOUND")
    );
    let big = "x".repeat(256 * 1024 + 1);
    assert_eq!(
        m.call("0/", json!({"action": "send", "to": "1/", "body": big})),
        err(
            "Message body too large: 262145 bytes (limit 262144)",
            "TOO_LARGE"
        )
    );
    // Nothing was stored by any of them.
    let n: i64 = m
        .sql()
        .query_row("SELECT COUNT(*) FROM mail", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 0);
}

#[test]
fn send_success_reaches_the_recipient_from_the_caller() {
    let m = Mail::new();
    let got = m.call(
        "0/",
        json!({"action": "send", "to": "1/", "body": "Hello from agent 0/"}),
    );
    let id = got["id"].as_i64().unwrap();
    assert!(id >= 1);
    assert_eq!(got, json!({"sent": true, "to": "1/", "id": id}));
    assert_eq!(
        m.call("1/", json!({"action": "inbox"})),
        json!({"messages": [{"id": id, "from": "0/", "unread": true, "preview": "Hello from agent 0/"}], "unread_count": 1})
    );
    // The body at the size limit is kept whole.
    let big = "y".repeat(256 * 1024);
    let id = m.send("0/", "1/", &big);
    assert_eq!(
        m.call("1/", json!({"action": "read", "id": id}))["body"],
        big
    );
}

#[test]
fn send_to_self_is_allowed() {
    let m = Mail::new();
    let id = m.send("0/", "0/", "Note to self");
    assert_eq!(
        m.call("0/", json!({"action": "inbox"}))["messages"][0]["id"],
        id
    );
}

// ----------------------------------------------------------- notifications

#[test]
fn notification_flag_is_cleared_by_inbox_and_read_but_not_send_or_errors() {
    let m = Mail::new();
    let pending = |m: &Mail| -> bool {
        m.sql()
            .query_row(
                "SELECT mail_notification_pending FROM agents WHERE agent_id = '0/'",
                [],
                |r| r.get(0),
            )
            .unwrap()
    };
    let id = m.send("1/", "0/", "ping");
    assert_eq!(
        m.ikigai_text(&["--agent", "0/", "mail", "notify"]),
        "[Notification: You have 1 unread message in your inbox]\n"
    );
    assert!(pending(&m));
    // Not repeated until the agent checks its inbox.
    assert_eq!(m.ikigai_text(&["--agent", "0/", "mail", "notify"]), "");
    m.send("1/", "0/", "ping again");
    assert_eq!(m.ikigai_text(&["--agent", "0/", "mail", "notify"]), "");
    // Send and errors leave it set.
    m.call("0/", json!({"action": "send", "to": "1/", "body": "reply"}));
    m.call("0/", json!({"action": "read", "id": 9999}));
    assert!(pending(&m));
    // Inbox clears it; the next check notifies again (2 unread).
    m.call("0/", json!({"action": "inbox"}));
    assert!(!pending(&m));
    assert_eq!(
        m.ikigai_text(&["--agent", "0/", "mail", "notify"]),
        "[Notification: You have 2 unread messages in your inbox]\n"
    );
    // Read clears it too.
    m.call("0/", json!({"action": "read", "id": id}));
    assert!(!pending(&m));
    // The status line count.
    assert_eq!(
        m.ikigai_text(&["--agent", "0/", "mail", "count"]),
        "[mail:1]\n"
    );
    assert_eq!(m.ikigai_text(&["--agent", "2/", "mail", "count"]), "");
    assert_eq!(m.ikigai_text(&["--agent", "2/", "mail", "notify"]), "");
}

// ------------------------------------------------------- peer feature set

#[test]
fn typed_messages_filters_and_threads() {
    let m = Mail::new();
    let task = m.call(
        "1/",
        json!({"action": "send", "to": "0/", "body": "Please review PR 12", "subject": "Review", "type": "task",
               "priority": "urgent", "tags": ["pr", "review"], "needs_response": true}),
    );
    let task_id = task["id"].as_i64().unwrap();
    let status = m.send("2/", "0/", "Build green");
    let entry = json!({"id": task_id, "from": "1/", "unread": true, "preview": "Please review PR 12", "subject": "Review",
        "type": "task", "priority": "urgent", "tags": ["pr", "review"], "needs_response": true});
    let plain = json!({"id": status, "from": "2/", "unread": true, "preview": "Build green"});
    let list = |filter: Value| -> Value {
        let mut input = filter;
        input["action"] = json!("inbox");
        m.call("0/", input)["messages"].clone()
    };
    assert_eq!(list(json!({"type": "task"})), json!([entry]));
    assert_eq!(list(json!({"priority": "urgent"})), json!([entry]));
    assert_eq!(list(json!({"needs_response": true})), json!([entry]));
    assert_eq!(list(json!({"needs_response": false})), json!([plain]));
    assert_eq!(list(json!({"from": "2/"})), json!([plain]));
    assert_eq!(
        list(json!({"since": "2000-01-01T00:00:00Z"}))
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert_eq!(list(json!({"since": "2999-01-01"})), json!([]));
    assert_eq!(
        m.call("0/", json!({"action": "inbox", "limit": 1})),
        json!({"messages": [plain], "unread_count": 2, "truncated": true})
    );
    // Reading without marking.
    let read = m.call(
        "0/",
        json!({"action": "read", "id": task_id, "mark_read": false}),
    );
    assert_eq!(read["subject"], "Review");
    assert_eq!(read["tags"], json!(["pr", "review"]));
    assert_eq!(
        list(json!({"unread_only": true})).as_array().unwrap().len(),
        2
    );
    m.call("0/", json!({"action": "read", "id": task_id}));
    assert_eq!(list(json!({"unread_only": true})), json!([plain]));
    // A reply shares the thread.
    let reply = m.call("0/", json!({"action": "send", "to": "1/", "body": "LGTM", "type": "response", "in_reply_to": task_id}));
    assert_eq!(
        reply,
        json!({"sent": true, "to": "1/", "id": reply["id"], "thread_id": task_id})
    );
    let got = m.call("1/", json!({"action": "read", "id": reply["id"]}));
    assert_eq!(
        (
            got["in_reply_to"].clone(),
            got["thread_id"].clone(),
            got["type"].clone()
        ),
        (json!(task_id), json!(task_id), json!("response"))
    );
    // Replying to mail one cannot see is refused.
    assert_eq!(
        m.call(
            "2/",
            json!({"action": "send", "to": "1/", "body": "x", "in_reply_to": task_id})
        ),
        err(
            &format!("Message #{task_id} not found"),
            "MESSAGE_NOT_FOUND"
        )
    );
    // Bad values name the parameter.
    assert_eq!(
        m.call(
            "0/",
            json!({"action": "send", "to": "1/", "body": "x", "type": "memo"})
        ),
        err(
            "Invalid value for parameter type: memo (expected one of: status, alert, task, question, response)",
            "INVALID_ARG"
        )
    );
    assert_eq!(
        m.call("0/", json!({"action": "inbox", "since": "last week"})),
        err(
            "Invalid value for parameter since: last week (expected an ISO 8601 UTC time such as 2024-01-15T10:30:00Z)",
            "INVALID_ARG"
        )
    );
}

#[test]
fn delete_archives_by_default_or_deletes_for_good() {
    let m = Mail::new();
    let a = m.send("1/", "0/", "archive me");
    let b = m.send("1/", "0/", "delete me");
    assert_eq!(
        m.call("0/", json!({"action": "delete", "id": a})),
        json!({"deleted": true, "id": a, "archived": true})
    );
    assert_eq!(
        m.call("0/", json!({"action": "delete", "id": b, "archive": false})),
        json!({"deleted": true, "id": b, "archived": false})
    );
    assert_eq!(
        m.call("0/", json!({"action": "inbox"})),
        json!({"messages": [], "unread_count": 0})
    );
    assert_eq!(
        m.call("0/", json!({"action": "inbox", "include_archived": true})),
        json!({"messages": [{"id": a, "from": "1/", "unread": true, "preview": "archive me", "archived": true}], "unread_count": 0})
    );
    assert_eq!(
        m.call("0/", json!({"action": "read", "id": a}))["body"],
        "archive me"
    );
    assert_eq!(
        m.call("0/", json!({"action": "read", "id": b})),
        err(&format!("Message #{b} not found"), "MESSAGE_NOT_FOUND")
    );
    assert_eq!(
        m.call("0/", json!({"action": "delete"})),
        err("Missing required parameter: id", "INVALID_ARG")
    );
}

#[test]
fn sessions_are_separate() {
    let m = Mail::new();
    let out = m.ikigai(&["--session", "other", "agent", "add", "0/"]);
    assert!(out.status.success());
    m.send("1/", "0/", "in default");
    let mut cmd = m.command("mail");
    cmd.env("IKIGAI_AGENT_ID", "0/")
        .env("IKIGAI_SESSION_ID", "other");
    let got = parse_tool_output(&run_with_input(
        cmd,
        br#"{"action": "inbox"}"#,
        Duration::from_secs(20),
    ));
    assert_eq!(got, json!({"messages": [], "unread_count": 0}));
    let mut cmd = m.command("mail");
    cmd.env("IKIGAI_AGENT_ID", "0/")
        .env("IKIGAI_SESSION_ID", "other");
    let got = parse_tool_output(&run_with_input(
        cmd,
        br#"{"action": "send", "to": "1/", "body": "x"}"#,
        Duration::from_secs(20),
    ));
    assert_eq!(got, err("Agent 1/ not found", "AGENT_NOT_FOUND"));
}

#[test]
fn database_location_and_creation() {
    let dir = tempdir();
    let cases: [(&str, &str, &str); 3] = [
        ("IKIGAI_STATE_DIR", "state", "state/ikigai.db"),
        ("XDG_STATE_HOME", "xdg", "xdg/ikigai/ikigai.db"),
        ("HOME", "home", "home/.local/state/ikigai/ikigai.db"),
    ];
    for (var, value, expected) in cases {
        let mut cmd = Command::new(bin("ikigai"));
        cmd.env_remove("IKIGAI_DB")
            .env_remove("IKIGAI_STATE_DIR")
            .env_remove("XDG_STATE_HOME")
            .env("HOME", dir.path().join("unused-home"))
            .env(var, dir.path().join(value))
            .args(["agent", "add", "0/"]);
        let out = run_with_input(cmd, b"", Duration::from_secs(20));
        assert!(
            out.status.success(),
            "{var}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(dir.path().join(expected).is_file(), "{var}: no {expected}");
    }
}

// ---------------------------------------------------------- human commands

#[test]
fn human_commands_print_the_original_texts() {
    let m = Mail::new();
    assert_eq!(
        m.ikigai_text(&["--agent", "0/", "mail"]),
        "Inbox for agent 0/:\n  (no messages)\n"
    );
    assert_eq!(
        m.ikigai_text(&[
            "--agent",
            "1/",
            "mail",
            "send",
            "0/",
            "Starting",
            "research..."
        ]),
        "Mail sent to agent 0/\n"
    );
    let first: i64 = 1;
    let second = m.send(
        "1/",
        "0/",
        "Found 3 OAuth patterns worth considering:\n1) Silent refresh 2) rotation",
    );
    m.call("0/", json!({"action": "read", "id": first}));
    assert_eq!(
        m.ikigai_text(&["--agent", "0/", "mail", "inbox"]),
        format!(
            "Inbox for agent 0/:\n  #{second} [unread] from 1/ - \"Found 3 OAuth patterns worth considering: 1) Silen...\"\n  #1 from 1/ - \"Starting research...\"\n"
        )
    );
    // Two minutes ago.
    m.sql()
        .execute(
            "UPDATE mail SET timestamp = timestamp - 150 WHERE id = ?1",
            [second],
        )
        .unwrap();
    assert_eq!(
        m.ikigai_text(&["--agent", "0/", "mail", "read", &second.to_string()]),
        "From: 1/\nTime: 2 minutes ago\n\nFound 3 OAuth patterns worth considering:\n1) Silent refresh 2) rotation\n"
    );
    assert_eq!(m.ikigai_text(&["agent", "list"]), "0/\n1/\n2/\n");
    let out = m.ikigai(&["--agent", "0/", "mail", "send", "99/", "hi"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "ikigai: Agent 99/ not found\n"
    );
    let out = m.ikigai(&["agent", "add", "bad id"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "ikigai: Invalid agent id \"bad id\": it contains whitespace\n"
    );
}

#[test]
fn mail_through_the_host_uses_the_call_context() {
    let m = Mail::new();
    let sys = m.dir.path().join("libexec");
    std::fs::create_dir(&sys).unwrap();
    std::os::unix::fs::symlink(bin("mail"), sys.join("mail")).unwrap();
    let run = |args: &[&str]| -> Value {
        let mut cmd = Command::new(bin("ikigai"));
        cmd.env("IKIGAI_LIBEXEC_DIR", &sys)
            .env("HOME", m.dir.path())
            .env_remove("IKIGAI_AGENT_ID")
            .env_remove("IKIGAI_DB")
            .args(["--db", m.db().to_str().unwrap()])
            .args(args);
        serde_json::from_slice(&run_with_input(cmd, b"", Duration::from_secs(20)).stdout).unwrap()
    };
    let sent = run(&[
        "--agent",
        "2/",
        "call",
        "mail",
        r#"{"action": "send", "to": "0/", "body": "via host"}"#,
    ]);
    assert_eq!(sent["result"]["sent"], true);
    let inbox = run(&["--agent", "0/", "call", "mail", r#"{"action": "inbox"}"#]);
    assert_eq!(inbox["result"]["messages"][0]["from"], "2/");
    // The array for the model holds the seed's target schema, unchanged but for additions.
    let tools = run(&["tools", "--format", "openai"]);
    let exported = &tools[0];
    let seed = json!({"type": "function", "function": {"name": "mail", "description": "Send and receive messages to/from other agents",
        "parameters": {"type": "object", "properties": {
            "action": {"type": "string", "enum": ["inbox", "read", "send"], "description": "Operation to perform"},
            "to": {"type": "string", "description": "Recipient agent ID (required for send)"},
            "body": {"type": "string", "description": "Message body (required for send)"},
            "id": {"type": "integer", "description": "Message ID (required for read)"}},
        "required": ["action"]}}});
    assert_contains(exported, &seed, "");
}

/// `got` holds everything in `seed`: the same scalars, every key of every
/// object, and every array element of `seed` at the same position (arrays
/// may be longer: extensions append).
fn assert_contains(got: &Value, seed: &Value, at: &str) {
    match (got, seed) {
        (Value::Object(g), Value::Object(s)) => {
            for (k, v) in s {
                let child = g.get(k).unwrap_or_else(|| panic!("missing {at}/{k}"));
                assert_contains(child, v, &format!("{at}/{k}"));
            }
        }
        (Value::Array(g), Value::Array(s)) => {
            assert!(g.len() >= s.len(), "{at}: shorter than the seed");
            for (i, v) in s.iter().enumerate() {
                assert_contains(&g[i], v, &format!("{at}[{i}]"));
            }
        }
        _ => assert_eq!(got, seed, "{at}"),
    }
}

// ------------------------------------------------------------- reliability

#[test]
fn eight_concurrent_senders_250_each() {
    let m = Mail::new();
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let db = m.db();
            let dir = m.dir.path().to_path_buf();
            std::thread::spawn(move || {
                let mut ids = Vec::new();
                for i in 0..250 {
                    let mut cmd = tool_command("mail", &dir);
                    cmd.env("IKIGAI_DB", &db)
                        .env("IKIGAI_AGENT_ID", "1/")
                        .env_remove("IKIGAI_SESSION_ID");
                    let body = format!(
                        r#"{{"action": "send", "to": "0/", "body": "sender {t} message {i}"}}"#
                    );
                    let got = parse_tool_output(&run_with_input(
                        cmd,
                        body.as_bytes(),
                        Duration::from_secs(60),
                    ));
                    assert_eq!(got["sent"], true, "sender {t} send {i}: {got}");
                    ids.push(got["id"].as_i64().unwrap());
                }
                ids
            })
        })
        .collect();
    let mut ids: Vec<i64> = threads
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 2000);
    let n: i64 = m
        .sql()
        .query_row(
            "SELECT COUNT(*) FROM mail WHERE to_agent_id = '0/'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(n, 2000);
    assert_eq!(
        m.call("0/", json!({"action": "inbox", "limit": 1}))["unread_count"],
        2000
    );
}

#[test]
fn senders_killed_mid_send_lose_nothing_acknowledged() {
    use std::io::{Read, Write};
    let m = Mail::new();
    let mut acknowledged = Vec::new();
    for round in 0..60u64 {
        let mut cmd = m.command("mail");
        cmd.env("IKIGAI_AGENT_ID", "1/")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = cmd.spawn().unwrap();
        let body = format!("round {round}");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(
                json!({"action": "send", "to": "0/", "body": body})
                    .to_string()
                    .as_bytes(),
            )
            .unwrap();
        std::thread::sleep(Duration::from_micros(round * 150));
        let _ = child.kill();
        child.wait().unwrap();
        let mut out = String::new();
        child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut out)
            .unwrap();
        if let Ok(v) = serde_json::from_str::<Value>(&out) {
            assert_eq!(v["sent"], true, "{v}");
            acknowledged.push((v["id"].as_i64().unwrap(), body));
        }
    }
    let conn = m.sql();
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    for (id, body) in &acknowledged {
        let stored: String = conn
            .query_row("SELECT body FROM mail WHERE id = ?1", [id], |r| r.get(0))
            .unwrap();
        assert_eq!(&stored, body);
    }
    // The database is still fully usable.
    assert_eq!(
        m.call("1/", json!({"action": "send", "to": "0/", "body": "after"}))["sent"],
        true
    );
}

#[test]
fn corrupt_or_unwritable_database_gives_an_error_object() {
    let dir = tempdir();
    let corrupt = dir.path().join("corrupt.db");
    std::fs::write(&corrupt, vec![0x42u8; 8192]).unwrap();
    let mut cmd = tool_command("mail", dir.path());
    cmd.env("IKIGAI_DB", &corrupt).env("IKIGAI_AGENT_ID", "0/");
    let got = parse_tool_output(&run_with_input(
        cmd,
        br#"{"action": "inbox"}"#,
        Duration::from_secs(20),
    ));
    assert_eq!(
        got,
        json!({"error": format!("Cannot open mail database: {}", corrupt.display()), "error_code": "DATABASE_ERROR",
               "detail": "file is not a database"})
    );
    // A database the caller may not write.
    let m = Mail::new();
    m.send("1/", "0/", "existing");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(m.dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    for f in std::fs::read_dir(m.dir.path()).unwrap() {
        std::fs::set_permissions(f.unwrap().path(), std::fs::Permissions::from_mode(0o444))
            .unwrap();
    }
    std::fs::set_permissions(m.dir.path(), std::fs::Permissions::from_mode(0o555)).unwrap();
    let as_agent = |agent: &str, input: &[u8]| {
        let mut cmd = unprivileged("mail", m.dir.path());
        cmd.env("IKIGAI_DB", m.db())
            .env("IKIGAI_AGENT_ID", agent)
            .env_remove("IKIGAI_SESSION_ID");
        parse_tool_output(&run_with_input(cmd, input, Duration::from_secs(20)))
    };
    let got = as_agent("1/", br#"{"action": "send", "to": "0/", "body": "x"}"#);
    // Reading marks the message read: a write, refused the same way.
    let read = as_agent("0/", br#"{"action": "read", "id": 1}"#);
    std::fs::set_permissions(m.dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(
        got,
        json!({"error": "Mail database error: attempt to write a readonly database", "error_code": "DATABASE_ERROR"})
    );
    assert_eq!(read, got);
    // A directory where the database should be.
    let mut cmd = tool_command("mail", dir.path());
    cmd.env("IKIGAI_DB", dir.path())
        .env("IKIGAI_AGENT_ID", "0/");
    let got = parse_tool_output(&run_with_input(
        cmd,
        br#"{"action": "inbox"}"#,
        Duration::from_secs(20),
    ));
    assert_eq!(got["error_code"], "DATABASE_ERROR");
}

#[test]
fn ten_thousand_message_inbox_with_limit() {
    let m = Mail::new();
    {
        // Through the store library: 10,000 real sends, one transaction each.
        let store = ikigai_mail::Store::open(&m.db(), "default").unwrap();
        for i in 0..10_000 {
            store
                .send(
                    "1/",
                    "0/",
                    ikigai_mail::NewMessage::text(format!("message {i}")),
                )
                .unwrap();
        }
    }
    let got = m.call("0/", json!({"action": "inbox", "limit": 3}));
    assert_eq!(
        got,
        json!({"messages": [
            {"id": 10_000, "from": "1/", "unread": true, "preview": "message 9999"},
            {"id": 9_999, "from": "1/", "unread": true, "preview": "message 9998"},
            {"id": 9_998, "from": "1/", "unread": true, "preview": "message 9997"}
        ], "unread_count": 10_000, "truncated": true})
    );
    let all = m.call("0/", json!({"action": "inbox"}));
    assert_eq!(all["messages"].as_array().unwrap().len(), 1000);
    assert_eq!(all["truncated"], true);
}
