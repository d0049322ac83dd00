//! `ikigai`: list, inspect and call tools through the host, from a shell.
//!
//! stdout carries only each command's output (JSON for `tools` and `call`);
//! warnings and errors go to stderr.

mod mail;
mod mcp;
mod tools;

use clap::{Parser, Subcommand, ValueEnum};
use ikigai_host::{CallContext, HostConfig};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Debug, Parser)]
#[command(
    name = "ikigai",
    version,
    about = "Discover, inspect and call ikigai tools",
    long_about = "Discover, inspect and call ikigai tools.\n\n\
        Tools are looked for in the system directory ($IKIGAI_LIBEXEC_DIR, else the\n\
        libexec/ikigai/ of this installation or checkout), ~/.ikigai/tools/, the\n\
        project's .ikigai/tools/, and every --tool-dir, each overriding the ones before."
)]
pub struct Cli {
    /// Extra tool directory (repeatable); overrides all others, later ones win.
    #[arg(
        long = "tool-dir",
        value_name = "DIR",
        env = "IKIGAI_TOOL_DIRS",
        value_delimiter = ':',
        global = true
    )]
    pub tool_dirs: Vec<PathBuf>,

    /// Per-call timeout in seconds [default: 30].
    #[arg(long, value_name = "SECONDS", env = "IKIGAI_TIMEOUT", global = true, value_parser = parse_seconds)]
    pub timeout: Option<Duration>,

    /// Agent id the tools act as (sets IKIGAI_AGENT_ID for them).
    #[arg(
        long = "agent",
        value_name = "ID",
        env = "IKIGAI_AGENT_ID",
        global = true
    )]
    pub agent: Option<String>,

    /// Session id (sets IKIGAI_SESSION_ID for the tools).
    #[arg(
        long = "session",
        value_name = "ID",
        env = "IKIGAI_SESSION_ID",
        global = true
    )]
    pub session: Option<String>,

    /// Mail database file (sets IKIGAI_DB for the tools).
    #[arg(long, value_name = "PATH", env = "IKIGAI_DB", global = true)]
    pub db: Option<PathBuf>,

    /// Working directory for the tools; also where .ikigai/tools/ is looked for.
    #[arg(long, value_name = "DIR", env = "IKIGAI_CWD", global = true)]
    pub cwd: Option<PathBuf>,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Discover every tool and print the array handed to a model.
    Tools {
        /// Output form.
        #[arg(long, value_enum, default_value_t = FormatArg::Openai)]
        format: FormatArg,
    },
    /// Print one tool's path and schema.
    Tool {
        /// Tool name, e.g. file_read.
        name: String,
    },
    /// Run one call through the host and print its tool_success envelope.
    ///
    /// Exits 0 when tool_success is true, 1 otherwise. Only the named tool is
    /// looked up (by precedence); no other tool is run.
    Call {
        /// Tool name, e.g. file_read.
        name: String,
        /// Arguments as a JSON object; `-` or nothing reads them from stdin.
        args: Option<String>,
    },
    /// Run a batch of calls read from stdin; print their envelopes, in order.
    ///
    /// Input: a JSON array of {"name": TOOL, "arguments": OBJECT or JSON string}.
    /// Independent calls run concurrently (at most --parallel at once); a call
    /// that writes a file an earlier call touches, or any bash call, waits for
    /// the calls before it. Exits 0 when every call succeeded.
    Batch {
        /// Most calls running at once.
        #[arg(long, value_name = "N", default_value_t = 16)]
        parallel: usize,
    },
    /// Register and list the agents of a session.
    Agent {
        #[command(subcommand)]
        command: AgentCommand,
    },
    /// Read and send mail as --agent (default: show the inbox).
    Mail {
        #[command(subcommand)]
        command: Option<MailCommand>,
    },
    /// Serve every tool over the Model Context Protocol on stdin/stdout.
    ///
    /// Tool calls run through the host (same discovery, timeouts, crash and
    /// output handling as `ikigai call`) as --agent in --session, on --db.
    Mcp {
        /// Spawn every tool, instead of running file_read, file_write,
        /// file_edit and mail in-process.
        #[arg(long)]
        no_in_process: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum AgentCommand {
    /// Register an agent id (e.g. 0/, 1/, 1/0) in the session.
    Add {
        /// 1 to 64 printable characters, no whitespace.
        id: String,
    },
    /// List the session's agents.
    List,
}

#[derive(Debug, Subcommand)]
pub enum MailCommand {
    /// Show the inbox (unread first, newest first); clears the notification flag.
    Inbox,
    /// Send mail to an agent.
    Send {
        /// Recipient agent id.
        to: String,
        /// Message body (several words are joined with spaces).
        #[arg(required = true, num_args = 1..)]
        body: Vec<String>,
    },
    /// Show one message and mark it read.
    Read {
        /// Message id.
        id: i64,
    },
    /// Print the notification line a harness injects, once, when there is unread mail.
    Notify,
    /// Print "[mail:N]" for a status line (nothing when there is no unread mail).
    Count,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// [{"type": "function", "function": {name, description, parameters}}]
    Openai,
    /// [{name, description, input_schema}]
    Anthropic,
    /// The --schema objects as the tools print them.
    Raw,
    /// One `name (path)` line per tool.
    List,
}

fn parse_seconds(text: &str) -> Result<Duration, String> {
    let secs: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("not a number of seconds: {text}"))?;
    if !(secs.is_finite() && secs > 0.0) {
        return Err(format!("timeout must be positive: {text}"));
    }
    Ok(Duration::from_secs_f64(secs))
}

impl Cli {
    /// The working directory: `--cwd`, else the process's.
    pub fn working_dir(&self) -> PathBuf {
        self.cwd
            .clone()
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| PathBuf::from("."))
    }

    pub fn host_config(&self) -> HostConfig {
        let mut config = HostConfig::standard(&self.working_dir());
        config.dirs.caller = self.tool_dirs.clone();
        if let Some(timeout) = self.timeout {
            config.limits.timeout = timeout;
        }
        config
    }

    pub fn call_context(&self) -> CallContext {
        CallContext {
            cwd: self.cwd.clone(),
            agent_id: self.agent.clone(),
            session_id: self.session.clone(),
            db: self.db.clone(),
            ..CallContext::default()
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("ikigai: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = match &cli.command {
        Command::Agent { command } => mail::agent(&cli, command),
        Command::Mail { command } => mail::mail(&cli, command.as_ref()),
        Command::Mcp { no_in_process } => runtime.block_on(mcp::run(&cli, !*no_in_process)),
        _ => runtime.block_on(tools::run(&cli)),
    };
    match outcome {
        Ok(code) => code,
        Err(e) => {
            eprintln!("ikigai: {e:#}");
            ExitCode::FAILURE
        }
    }
}
