//! The `bash` tool: runs a command with `/bin/sh -c` and returns its output
//! and exit code.
//!
//! How [`run`] behaves, and why:
//! - stdout and stderr share one pipe, so they arrive interleaved in the
//!   order the command wrote them, as in a terminal;
//! - the command's stdin is `/dev/null`, so a command that waits for input
//!   ends instead of hanging the agent;
//! - the command stays in the tool's process group: a host that kills the
//!   tool's group on timeout kills the command and all its children;
//! - the tool returns once the shell exits, after at most [`DRAIN`] more
//!   for output in flight, even when a background child (`server &`) still
//!   holds the pipe. That child is left running, and a small drainer process
//!   keeps reading its output (and discarding it) so it never dies of
//!   SIGPIPE when it next writes;
//! - output is kept in a fixed-size head + tail capture
//!   ([`ikigai_capture::HeadTail`], 1 MiB by default): beyond it the middle
//!   is replaced by a marker line giving the bytes omitted and the result
//!   carries `"truncated": true`. Memory stays bounded whatever the command
//!   prints; invalid UTF-8 becomes U+FFFD;
//! - the command sees [`PLAIN_OUTPUT_ENV`] (`NO_COLOR`, `TERM=dumb`, pagers
//!   set to `cat`), so programs that colour or page by default print plain
//!   text: escape codes are noise in a model's context (Claude Code #26373).

use ikigai_capture::HeadTail;
use ikigai_protocol::runner::ToolSpec;
use ikigai_protocol::{Args, ToolContext, ToolError};
use serde_json::{Map, Value, json};
use std::io::{self, Read};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

pub const SCHEMA: &str = r#"{
  "name": "bash",
  "description": "Execute a shell command and return output",
  "parameters": {
    "type": "object",
    "properties": {
      "command": {
        "type": "string",
        "description": "Shell command to execute"
      }
    },
    "required": ["command"]
  }
}"#;

pub const SPEC: ToolSpec = ToolSpec {
    binary: "bash",
    schema: SCHEMA,
    about: "Runs COMMAND with /bin/sh -c; stdin is /dev/null; stdout and stderr are merged.\n\
            Returns {\"output\": TEXT, \"exit_code\": N} (127: not found, 128+N: killed by signal N).\n\
            One trailing newline is stripped. Output beyond IKIGAI_BASH_MAX_OUTPUT bytes\n\
            (default 1048576) keeps its head and tail around a marker line and adds\n\
            \"truncated\": true. Background children (cmd &) are left running.\n\
            The command runs with NO_COLOR=1 CLICOLOR=0 TERM=dumb PAGER=cat GIT_PAGER=cat.\n",
};

/// Default output cap in bytes (documented in docs/tools/bash.md).
pub const DEFAULT_MAX_OUTPUT: usize = 1024 * 1024;

/// Environment variable overriding [`DEFAULT_MAX_OUTPUT`].
pub const MAX_OUTPUT_VAR: &str = "IKIGAI_BASH_MAX_OUTPUT";

/// How long to wait for the output pipe to reach EOF after the shell exits.
pub const DRAIN: Duration = Duration::from_millis(100);

/// Hidden argument that makes the binary act as the output drainer.
pub const DRAIN_FLAG: &str = "--internal-drain-stdin";

const EMPTY_COMMAND_EXIT: i64 = 127;

/// Variables every command runs with, over the inherited environment, so
/// also over what a host passed in a call's `env` (the tool cannot tell the
/// two apart). A command that wants colour asks for it itself
/// (`TERM=xterm ls --color=always`). No `FORCE_COLOR`: some programs
/// (Python's rich) read any value as "force".
pub const PLAIN_OUTPUT_ENV: [(&str, &str); 5] = [
    ("NO_COLOR", "1"),
    ("CLICOLOR", "0"),
    ("TERM", "dumb"),
    ("PAGER", "cat"),
    ("GIT_PAGER", "cat"),
];

pub fn run(args: &Args, ctx: &ToolContext) -> Result<Value, ToolError> {
    let command = args.required_str("command")?;
    if command.trim().is_empty() {
        return Ok(json!({"output": "sh: empty command", "exit_code": EMPTY_COMMAND_EXIT}));
    }
    let cap = ctx
        .var(MAX_OUTPUT_VAR)
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n >= 2)
        .unwrap_or(DEFAULT_MAX_OUTPUT);
    match execute(command, ctx, cap) {
        Ok(outcome) => Ok(outcome.to_json()),
        // The spec's popen() failure: reported as a shell error, not a tool error.
        Err(e) => Ok(json!({"output": format!("sh: cannot run command: {e}"), "exit_code": 127})),
    }
}

struct Outcome {
    status: ExitStatus,
    capture: HeadTail,
}

impl Outcome {
    fn to_json(&self) -> Value {
        let rendered = self.capture.render();
        let mut text = rendered.text;
        if text.ends_with('\n') {
            text.pop();
        }
        let exit_code = match (self.status.code(), self.status.signal()) {
            (Some(code), _) => i64::from(code),
            (None, Some(signal)) => 128 + i64::from(signal),
            (None, None) => 127,
        };
        let mut map = Map::new();
        map.insert("output".into(), Value::from(text));
        map.insert("exit_code".into(), Value::from(exit_code));
        if rendered.truncated {
            map.insert("truncated".into(), Value::Bool(true));
        }
        Value::Object(map)
    }
}

fn execute(command: &str, ctx: &ToolContext, cap: usize) -> io::Result<Outcome> {
    let (mut reader, writer) = io::pipe()?;
    let handoff = reader.try_clone()?;
    let mut cmd = Command::new("/bin/sh");
    // popen() runs the shell as `sh`, which is the name its messages carry
    // ("sh: 1: foo: not found").
    cmd.arg0("sh")
        .arg("-c")
        .arg(command)
        .stdin(Stdio::null())
        .stdout(writer.try_clone()?)
        .stderr(writer);
    if let Some(cwd) = ctx.cwd() {
        cmd.current_dir(cwd);
    }
    cmd.envs(PLAIN_OUTPUT_ENV).envs(ctx.vars());
    let mut child = cmd.spawn()?;
    // `cmd` holds our copies of the pipe's write end; EOF only comes once
    // they are closed.
    drop(cmd);

    let capture = Arc::new(Mutex::new(HeadTail::with_cap(cap)));
    let (eof_tx, eof_rx) = mpsc::channel();
    let sink = Arc::clone(&capture);
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match reader.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => match sink.lock() {
                    Ok(mut cap) => cap.push(&buf[..n]),
                    Err(_) => break,
                },
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        let _ = eof_tx.send(());
    });

    let status = child.wait()?;
    if eof_rx.recv_timeout(DRAIN).is_err() {
        // A background child still holds the pipe: hand it to a drainer so
        // that child keeps running (and never gets SIGPIPE) after we exit.
        spawn_drainer(handoff);
    } else {
        drop(handoff);
    }
    let capture = match capture.lock() {
        Ok(cap) => cap.clone(),
        Err(poisoned) => poisoned.into_inner().clone(),
    };
    Ok(Outcome { status, capture })
}

fn spawn_drainer(pipe: io::PipeReader) {
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    // Not waited for: it lives as long as the background writer and is
    // reaped by init once we have exited.
    let _ = Command::new(exe)
        .arg(DRAIN_FLAG)
        .stdin(pipe)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
}

/// The drainer's whole job: read stdin to EOF and discard it.
pub fn drain_stdin() {
    let _ = io::copy(&mut io::stdin().lock(), &mut io::sink());
}
