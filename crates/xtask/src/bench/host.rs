//! The host's figures: per-call overhead of the library against
//! `/bin/true` spawned by the same process module, a whole `ikigai call`,
//! 16 concurrent calls, and discovery.

use super::{Env, Report, Row, median, ms};
use anyhow::{Context, Result, ensure};
use ikigai_host::process::{self, Limits, Spawn};
use ikigai_host::{CallContext, Host, HostConfig, ToolCall, ToolDirs};
use std::os::unix::fs::PermissionsExt;
use std::process::Command;
use std::time::{Duration, Instant};

const SUITE: &str = "host";

pub fn run(env: &Env, report: &mut Report) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        library_calls(env, report).await?;
        cli_call(env, report)?;
        concurrent(env, report).await?;
        discovery(env, report).await
    })
}

fn system_only(env: &Env) -> HostConfig {
    let mut config = HostConfig::standard(&env.data);
    config.dirs = ToolDirs {
        system: Some(crate::root().join("libexec/ikigai")),
        ..ToolDirs::default()
    };
    config
}

async fn library_calls(env: &Env, report: &mut Report) -> Result<()> {
    let small = env.data.join("small.txt");
    std::fs::write(&small, "hello\nworld\n")?;
    let args = serde_json::json!({"file_path": small}).to_string();
    let (host, warnings) = Host::discover(system_only(env)).await;
    ensure!(warnings.is_empty(), "discovery warnings: {warnings:?}");
    let ctx = CallContext::default();
    let (mut calls, mut truth) = (Vec::new(), Vec::new());
    for _ in 0..1000 {
        let start = Instant::now();
        let envelope = host.call("file_read", &args, &ctx).await;
        calls.push(start.elapsed());
        ensure!(envelope.is_success(), "call failed: {}", envelope.to_json());
        let spawn = Spawn {
            program: "/bin/true".into(),
            args: Vec::new(),
            cwd: None,
            env: Vec::new(),
            stdin: args.as_bytes().to_vec(),
            limits: Limits::default(),
        };
        let start = Instant::now();
        process::run(spawn, None).await?;
        truth.push(start.elapsed());
    }
    let (call, t) = (median(&mut calls), median(&mut truth));
    let ratio = call.as_secs_f64() / t.as_secs_f64();
    report.add(Row {
        suite: SUITE,
        name: "in-process host: file_read call (median of 1000)".into(),
        measured: ms(call),
        baseline: format!("/bin/true {}", ms(t)),
        ratio: Some(ratio),
        target: "<= 2.00x".into(),
        pass: ratio <= 2.0,
    });
    Ok(())
}

fn cli_call(env: &Env, report: &mut Report) -> Result<()> {
    let small = env.data.join("small.txt");
    let args = serde_json::json!({"file_path": small}).to_string();
    let mut times = Vec::new();
    for _ in 0..300 {
        let start = Instant::now();
        let out = Command::new(env.tool("ikigai"))
            .env("IKIGAI_LIBEXEC_DIR", crate::root().join("libexec/ikigai"))
            .args(["call", "file_read", &args])
            .output()?;
        times.push(start.elapsed());
        ensure!(
            out.status.success(),
            "ikigai call failed: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    let t = median(&mut times);
    report.add(Row {
        suite: SUITE,
        name: "`ikigai call file_read` whole process (median of 300)".into(),
        measured: ms(t),
        baseline: String::new(),
        ratio: None,
        target: "<= 4 ms".into(),
        pass: t <= Duration::from_millis(4),
    });
    Ok(())
}

async fn concurrent(env: &Env, report: &mut Report) -> Result<()> {
    let dir = env.data.join("nap-tools");
    std::fs::create_dir_all(&dir)?;
    let nap = dir.join("nap");
    std::fs::write(
        &nap,
        "#!/bin/sh\nif [ \"$1\" = --schema ]; then printf '%s' '{\"name\":\"nap\",\"description\":\"sleeps 200 ms\",\"parameters\":{\"type\":\"object\",\"properties\":{}}}'; exit 0; fi\nsleep 0.2\nprintf '{}'\n",
    )?;
    std::fs::set_permissions(&nap, std::fs::Permissions::from_mode(0o755))?;
    let mut config = system_only(env);
    config.dirs.caller = vec![dir];
    let (host, _) = Host::discover(config).await;
    let mut times = Vec::new();
    for _ in 0..5 {
        let calls: Vec<ToolCall> = (0..16)
            .map(|_| ToolCall {
                name: "nap".into(),
                arguments: "{}".into(),
            })
            .collect();
        let start = Instant::now();
        let results = host.call_many(calls, &CallContext::default()).await;
        times.push(start.elapsed());
        ensure!(
            results.iter().all(ikigai_host::Envelope::is_success),
            "a nap call failed"
        );
    }
    let t = median(&mut times);
    report.add(Row {
        suite: SUITE,
        name: "16 concurrent calls of a 200 ms tool (median of 5)".into(),
        measured: ms(t),
        baseline: "one call 200 ms".into(),
        ratio: Some(t.as_secs_f64() / 0.2),
        target: "<= 400 ms".into(),
        pass: t <= Duration::from_millis(400),
    });
    Ok(())
}

async fn discovery(env: &Env, report: &mut Report) -> Result<()> {
    let mut times = Vec::new();
    let mut count = 0;
    for _ in 0..50 {
        let start = Instant::now();
        let (host, warnings) = Host::discover(system_only(env)).await;
        times.push(start.elapsed());
        ensure!(warnings.is_empty(), "discovery warnings");
        count = host.registry().len();
    }
    let t = median(&mut times);
    report.add(Row {
        suite: SUITE,
        name: format!("discovery of all {count} tools (median of 50)"),
        measured: ms(t),
        baseline: String::new(),
        ratio: None,
        target: "<= 20 ms".into(),
        pass: t <= Duration::from_millis(20),
    });
    count.checked_sub(0).context("no tools")?;
    Ok(())
}
