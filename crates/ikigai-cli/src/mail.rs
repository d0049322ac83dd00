//! `ikigai agent ...` and `ikigai mail ...`: the human side of mail, with
//! the original's texts.

use crate::{AgentCommand, Cli, MailCommand};
use anyhow::{Context, Result, bail};
use ikigai_mail::text::{preview, relative};
use ikigai_mail::{DEFAULT_SESSION, InboxFilter, NewMessage, Store, StoreOptions, location};
use std::process::ExitCode;

fn open(cli: &Cli) -> Result<Store> {
    let path = match &cli.db {
        Some(db) => db.clone(),
        None => location::database_path(|k| std::env::var(k).ok())?,
    };
    let session = cli
        .session
        .as_deref()
        .filter(|s| !s.is_empty())
        .unwrap_or(DEFAULT_SESSION);
    Ok(Store::open_with(&path, session, StoreOptions::ONE_SHOT)?)
}

fn caller(cli: &Cli, store: &Store) -> Result<String> {
    let Some(agent) = cli.agent.clone().filter(|a| !a.is_empty()) else {
        bail!("mail commands act as an agent: pass --agent ID (or set IKIGAI_AGENT_ID)");
    };
    if !store.agent_exists(&agent)? {
        bail!(
            "agent {agent} is not registered in session {}; register it with: ikigai agent add {agent}",
            store.session()
        );
    }
    Ok(agent)
}

pub fn agent(cli: &Cli, command: &AgentCommand) -> Result<ExitCode> {
    let store = open(cli)?;
    match command {
        AgentCommand::Add { id } => {
            if store.register_agent(id)? {
                println!("Agent {id} registered in session {}", store.session());
            } else {
                println!(
                    "Agent {id} is already registered in session {}",
                    store.session()
                );
            }
        }
        AgentCommand::List => {
            for id in store.agents()? {
                println!("{id}");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn mail(cli: &Cli, command: Option<&MailCommand>) -> Result<ExitCode> {
    let store = open(cli)?;
    let me = caller(cli, &store)?;
    match command.unwrap_or(&MailCommand::Inbox) {
        MailCommand::Inbox => {
            let inbox = store.inbox(&me, &InboxFilter::default())?;
            println!("Inbox for agent {me}:");
            if inbox.messages.is_empty() {
                println!("  (no messages)");
            }
            for m in &inbox.messages {
                let status = if m.read { "" } else { " [unread]" };
                // One line per message: whitespace runs become one space.
                let line = preview(&m.body)
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ");
                println!("  #{}{status} from {} - \"{line}\"", m.id, m.from);
            }
        }
        MailCommand::Send { to, body } => {
            store.send(&me, to, NewMessage::text(body.join(" ")))?;
            println!("Mail sent to agent {to}");
        }
        MailCommand::Read { id } => {
            let m = store.read(&me, *id, true)?;
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(0));
            println!(
                "From: {}\nTime: {}\n\n{}",
                m.from,
                relative(m.timestamp, now),
                m.body
            );
        }
        MailCommand::Notify => {
            if let Some(line) = store.take_notification(&me).context("checking for mail")? {
                println!("{line}");
            }
        }
        MailCommand::Count => {
            let n = store.unread_count(&me)?;
            if n > 0 {
                println!("[mail:{n}]");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
