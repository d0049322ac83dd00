//! `ikigai tools`, `ikigai tool NAME`, `ikigai call NAME ARGS`.

use crate::{Cli, Command, FormatArg};
use anyhow::{Context, Result};
use ikigai_host::{Format, Host, ToolCall, load_schema, locate};
use serde_json::json;
use std::io::{Read, Write};
use std::process::ExitCode;

pub async fn run(cli: &Cli) -> Result<ExitCode> {
    match &cli.command {
        Command::Tools { format } => list(cli, *format).await,
        Command::Tool { name } => show(cli, name).await,
        Command::Call { name, args } => call(cli, name, args.as_deref()).await,
        Command::Batch { parallel } => batch(cli, *parallel).await,
        Command::Agent { .. } | Command::Mail { .. } | Command::Mcp { .. } => {
            unreachable!("handled in main")
        }
    }
}

async fn list(cli: &Cli, format: FormatArg) -> Result<ExitCode> {
    let (host, warnings) = Host::discover(cli.host_config()).await;
    for warning in &warnings {
        eprintln!("ikigai: warning: {warning}");
    }
    let registry = host.registry();
    let text = match format {
        FormatArg::List => registry
            .iter()
            .map(|t| format!("{} ({})\n", t.name, t.path.display()))
            .collect(),
        FormatArg::Openai => pretty(&registry.export(Format::OpenAi))?,
        FormatArg::Anthropic => pretty(&registry.export(Format::Anthropic))?,
        FormatArg::Raw => pretty(&registry.export(Format::Raw))?,
    };
    print(&text)?;
    Ok(ExitCode::SUCCESS)
}

async fn show(cli: &Cli, name: &str) -> Result<ExitCode> {
    let config = cli.host_config();
    let Some(candidate) = locate(&config.dirs, name) else {
        eprintln!("Tool not found: {name}");
        return Ok(ExitCode::FAILURE);
    };
    match load_schema(&candidate, config.schema_timeout).await {
        Ok(schema) => {
            let value = json!({
                "name": candidate.name,
                "path": candidate.path,
                "source": candidate.source.as_str(),
                "schema": schema.as_value(),
            });
            print(&pretty(&value)?)?;
            Ok(ExitCode::SUCCESS)
        }
        Err(reason) => {
            eprintln!(
                "ikigai: tool {name} ({}) is unusable: {reason}",
                candidate.path.display()
            );
            Ok(ExitCode::FAILURE)
        }
    }
}

async fn call(cli: &Cli, name: &str, args: Option<&str>) -> Result<ExitCode> {
    let arguments = match args {
        None | Some("-") => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .context("reading arguments from stdin")?;
            text
        }
        Some(text) => text.to_owned(),
    };
    let host = Host::new(cli.host_config());
    let envelope = host
        .locate_and_call(name, &arguments, &cli.call_context())
        .await;
    print(&format!("{}\n", envelope.to_json()))?;
    Ok(if envelope.is_success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

async fn batch(cli: &Cli, parallel: usize) -> Result<ExitCode> {
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .context("reading the batch from stdin")?;
    let items: Vec<serde_json::Value> =
        serde_json::from_str(&text).context("the batch must be a JSON array of calls")?;
    let mut calls = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let name = item
            .get("name")
            .and_then(serde_json::Value::as_str)
            .with_context(|| format!("call {i}: `name` must be a string"))?;
        let arguments = match item.get("arguments") {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
            None => "{}".to_owned(),
        };
        calls.push(ToolCall {
            name: name.to_owned(),
            arguments,
        });
    }
    let mut config = cli.host_config();
    config.max_parallel = parallel.max(1);
    let (host, warnings) = Host::discover(config).await;
    for warning in &warnings {
        eprintln!("ikigai: warning: {warning}");
    }
    let envelopes = host.call_many(calls, &cli.call_context()).await;
    let all_ok = envelopes.iter().all(ikigai_host::Envelope::is_success);
    let array = serde_json::Value::Array(
        envelopes
            .iter()
            .map(ikigai_host::Envelope::to_json)
            .collect(),
    );
    print(&format!("{array}\n"))?;
    Ok(if all_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn pretty(value: &serde_json::Value) -> Result<String> {
    Ok(format!("{}\n", serde_json::to_string_pretty(value)?))
}

fn print(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        // `ikigai tools | head` closing the pipe is not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context("writing to stdout"),
    }
}
