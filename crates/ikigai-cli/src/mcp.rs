//! `ikigai mcp`: the MCP server on stdin/stdout.

use crate::Cli;
use anyhow::{Context, Result};
use ikigai_host::Host;
use ikigai_mcp::ServerInfo;
use std::process::ExitCode;

pub async fn run(cli: &Cli, in_process: bool) -> Result<ExitCode> {
    let (host, warnings) = Host::discover(cli.host_config()).await;
    for warning in &warnings {
        eprintln!("ikigai: warning: {warning}");
    }
    if in_process {
        ikigai_mcp::add_builtins(&host);
    }
    let agent = cli
        .agent
        .as_deref()
        .unwrap_or("(none: set --agent for mail)");
    let session = cli
        .session
        .as_deref()
        .unwrap_or(ikigai_mail::DEFAULT_SESSION);
    let info = ServerInfo {
        name: "ikigai".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        instructions: format!(
            "ikigai tools: run shell commands, read, write and edit files, find files and search their \
             contents, and exchange mail with other agents. Calls act as agent {agent} in session {session}."
        ),
    };
    ikigai_mcp::serve(
        host,
        cli.call_context(),
        info,
        tokio::io::stdin(),
        tokio::io::stdout(),
    )
    .await
    .context("serving MCP on stdin/stdout")?;
    Ok(ExitCode::SUCCESS)
}
