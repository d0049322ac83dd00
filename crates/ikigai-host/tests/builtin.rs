//! In-process built-ins: used only for the system directory's tool, with
//! the same envelope, timeout and cancellation behaviour as a spawned call.
#![allow(clippy::unwrap_used, clippy::panic)]

use ikigai_host::process::Cancel;
use ikigai_host::{Builtin, CallContext, Host, HostConfig, ToolDirs};
use ikigai_protocol::runner::ToolSpec;
use ikigai_protocol::{Args, ToolContext, ToolError};
use serde_json::{Value, json};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

const SCHEMA: &str = r#"{"name":"echo","description":"echo","parameters":{"type":"object","properties":{"text":{"type":"string","description":"t"}},"required":["text"]}}"#;
static SPEC: ToolSpec = ToolSpec {
    binary: "echo",
    schema: SCHEMA,
    about: "",
};

fn run(args: &Args, ctx: &ToolContext) -> Result<Value, ToolError> {
    let text = args.required_str("text")?;
    match text {
        "sleep" => std::thread::sleep(Duration::from_secs(3)),
        "panic" => panic!("boom"),
        "big" => return Ok(json!({"output": "x".repeat(2000)})),
        _ => {}
    }
    Ok(json!({"in_process": text, "agent": ctx.var("IKIGAI_AGENT_ID"), "cwd": ctx.cwd()}))
}

fn script(dir: &Path, body: &str) {
    let path = dir.join("echo");
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\nif [ \"$1\" = --schema ]; then printf '%s' '{SCHEMA}'; exit 0; fi\n{body}\n"
        ),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

async fn host(system: &Path, caller: Option<&Path>) -> Host {
    let mut config = HostConfig::standard(system);
    config.dirs = ToolDirs {
        system: Some(system.to_path_buf()),
        caller: caller.map(Path::to_path_buf).into_iter().collect(),
        ..ToolDirs::default()
    };
    config.limits.stdout_cap = 1000;
    let (host, warnings) = Host::discover(config).await;
    assert!(warnings.is_empty());
    host.add_builtin("echo", Builtin { spec: &SPEC, run });
    host
}

#[tokio::test]
async fn builtin_runs_in_process_with_the_call_context() {
    let dir = tempfile::tempdir().unwrap();
    script(dir.path(), "printf '{\"spawned\":true}'");
    let host = host(dir.path(), None).await;
    let ctx = CallContext {
        agent_id: Some("3/".into()),
        cwd: Some("/somewhere".into()),
        ..CallContext::default()
    };
    let env = host.call("echo", r#"{"text":"hi"}"#, &ctx).await;
    assert_eq!(
        env.to_json(),
        json!({"tool_success": true, "result": {"in_process": "hi", "agent": "3/", "cwd": "/somewhere"}})
    );
    // Argument validation is the tool's own, as in its binary.
    let env = host.call("echo", r#"{"bogus":1}"#, &ctx).await;
    assert_eq!(env.result().unwrap()["error_code"], "INVALID_ARG");
    // A panic is an error object, as the binary's runner makes it.
    let env = host.call("echo", r#"{"text":"panic"}"#, &ctx).await;
    assert_eq!(
        env.to_json(),
        json!({"tool_success": true, "result": {"error": "Internal error in echo: boom", "error_code": "INTERNAL_ERROR"}})
    );
    // The stdout cap still applies.
    let env = host.call("echo", r#"{"text":"big"}"#, &ctx).await;
    assert_eq!(env.to_json()["error_code"], "OUTPUT_TOO_LARGE");
}

#[tokio::test]
async fn builtin_timeout_and_cancel() {
    let dir = tempfile::tempdir().unwrap();
    script(dir.path(), "printf '{}'");
    let host = host(dir.path(), None).await;
    let ctx = CallContext {
        timeout: Some(Duration::from_millis(300)),
        ..CallContext::default()
    };
    let start = Instant::now();
    let env = host.call("echo", r#"{"text":"sleep"}"#, &ctx).await;
    assert!(start.elapsed() < Duration::from_secs(2));
    assert_eq!(
        env.to_json(),
        json!({"tool_success": false, "error": "Tool 'echo' timed out after 0.3 s", "error_code": "TOOL_TIMEOUT",
               "exit_code": null, "stdout": "", "stderr": ""})
    );
    let (trigger, cancel) = Cancel::new();
    let ctx = CallContext {
        cancel: Some(cancel),
        ..CallContext::default()
    };
    let call = {
        let host = host.clone();
        tokio::spawn(async move { host.call("echo", r#"{"text":"sleep"}"#, &ctx).await })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    trigger.fire();
    let env = call.await.unwrap();
    assert_eq!(env.to_json()["error_code"], "CANCELLED");
}

#[tokio::test]
async fn an_override_disables_the_builtin() {
    let system = tempfile::tempdir().unwrap();
    let caller = tempfile::tempdir().unwrap();
    script(system.path(), "printf '{\"spawned\":\"system\"}'");
    script(caller.path(), "printf '{\"spawned\":\"override\"}'");
    let host = host(system.path(), Some(caller.path())).await;
    let env = host
        .call("echo", r#"{"text":"hi"}"#, &CallContext::default())
        .await;
    assert_eq!(
        env.to_json(),
        json!({"tool_success": true, "result": {"spawned": "override"}})
    );
}
