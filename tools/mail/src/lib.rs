//! The `mail` tool: an agent's mailbox, for the model.
//!
//! The caller is `IKIGAI_AGENT_ID` (never an argument, so an agent cannot
//! send as another), in the session `IKIGAI_SESSION_ID` (default
//! `default`), in the database `IKIGAI_DB` (see
//! [`ikigai_mail::location`]). Actions: the seed's `inbox`, `read` and
//! `send` with its exact result shapes and error strings, plus `delete`,
//! and the peer feature set (subject, type, priority, tags, needs_response,
//! replies and threads, inbox filters) as optional parameters.

use ikigai_mail::text::{iso8601, parse_iso8601, preview};
use ikigai_mail::{
    DEFAULT_SESSION, InboxFilter, MailError, Message, MessageType, NewMessage, Priority, Store,
    StoreOptions, location,
};
use ikigai_protocol::runner::ToolSpec;
use ikigai_protocol::{Args, ErrorCode, ToolContext, ToolError};
use serde_json::{Map, Value, json};

/// The seed's schema (name, description, the four properties, `required`)
/// unchanged; our extensions only add to it.
pub const SCHEMA: &str = r#"{
  "name": "mail",
  "description": "Send and receive messages to/from other agents",
  "parameters": {
    "type": "object",
    "properties": {
      "action": {
        "type": "string",
        "enum": ["inbox", "read", "send", "delete"],
        "description": "Operation to perform"
      },
      "to": {
        "type": "string",
        "description": "Recipient agent ID (required for send)"
      },
      "body": {
        "type": "string",
        "description": "Message body (required for send)"
      },
      "id": {
        "type": "integer",
        "description": "Message ID (required for read)"
      },
      "subject": {
        "type": "string",
        "description": "Brief subject line (send)"
      },
      "type": {
        "type": "string",
        "enum": ["status", "alert", "task", "question", "response"],
        "description": "Message type (send); with inbox, list only this type"
      },
      "priority": {
        "type": "string",
        "enum": ["urgent", "normal", "low"],
        "description": "Message priority (send); with inbox, list only this priority"
      },
      "tags": {
        "type": "array",
        "items": {"type": "string"},
        "description": "Tags for filtering and categorisation (send)"
      },
      "needs_response": {
        "type": "boolean",
        "description": "Whether a response is expected (send); with inbox, list only messages that do (true) or do not (false)"
      },
      "in_reply_to": {
        "type": "integer",
        "description": "ID of the message this one answers (send); replies share its thread_id"
      },
      "unread_only": {
        "type": "boolean",
        "description": "List only unread messages (inbox)"
      },
      "from": {
        "type": "string",
        "description": "List only messages from this agent (inbox)"
      },
      "since": {
        "type": "string",
        "description": "List only messages sent at or after this ISO 8601 UTC time, e.g. 2024-01-15T10:30:00Z (inbox)"
      },
      "limit": {
        "type": "integer",
        "description": "Maximum number of messages to list (inbox; default 1000)"
      },
      "include_archived": {
        "type": "boolean",
        "description": "Also list archived messages (inbox)"
      },
      "mark_read": {
        "type": "boolean",
        "description": "Mark the message read (read; default true)"
      },
      "archive": {
        "type": "boolean",
        "description": "For delete (which takes id): archive the message (default true) or, if false, delete it for good"
      }
    },
    "required": ["action"]
  }
}"#;

pub const SPEC: ToolSpec = ToolSpec {
    binary: "mail",
    schema: SCHEMA,
    about: "Actions: inbox, read (id), send (to, body), delete (id). The caller is IKIGAI_AGENT_ID\n\
            (a registered agent) in session IKIGAI_SESSION_ID (default \"default\"); the database is\n\
            IKIGAI_DB, else $IKIGAI_STATE_DIR/ikigai.db (state dir: $XDG_STATE_HOME/ikigai, then\n\
            ~/.local/state/ikigai). Register agents with `ikigai agent add ID`.\n\
            Bodies over 262144 bytes are refused. inbox lists at most 1000 messages (\"limit\").\n",
};

/// Most messages an inbox listing returns without an explicit `limit`.
pub const DEFAULT_INBOX_LIMIT: u64 = 1000;

pub fn run(args: &Args, ctx: &ToolContext) -> Result<Value, ToolError> {
    let action = args.required_str("action")?;
    let request = match action {
        "inbox" => Request::Inbox(inbox_filter(args)?),
        "read" => Request::Read {
            id: required_int(args, "id")?,
            mark_read: args.bool("mark_read").unwrap_or(true),
        },
        "send" => {
            let to = args
                .str("to")
                .ok_or_else(|| ToolError::invalid_arg("Missing required parameter: to"))?;
            let body = args
                .str("body")
                .ok_or_else(|| ToolError::invalid_arg("Missing required parameter: body"))?;
            Request::Send {
                to: to.to_owned(),
                message: new_message(args, body)?,
            }
        }
        "delete" => Request::Delete {
            id: required_int(args, "id")?,
            archive: args.bool("archive").unwrap_or(true),
        },
        other => return Err(ToolError::invalid_arg(format!("Unknown action: {other}"))),
    };
    let caller = ctx
        .var("IKIGAI_AGENT_ID")
        .filter(|a| !a.is_empty())
        .ok_or_else(|| {
            ToolError::new(
                ErrorCode::AgentNotRegistered,
                "No calling agent: IKIGAI_AGENT_ID is not set",
            )
        })?;
    let session = ctx
        .var("IKIGAI_SESSION_ID")
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| DEFAULT_SESSION.to_owned());
    let path = location::database_path(|k| ctx.var(k)).map_err(mail_error)?;
    let store = Store::open_with(&path, &session, StoreOptions::ONE_SHOT).map_err(mail_error)?;
    if !store.agent_exists(&caller).map_err(mail_error)? {
        return Err(ToolError::new(
            ErrorCode::AgentNotRegistered,
            format!("Calling agent {caller} is not registered in session {session}"),
        )
        .with_detail("register it with: ikigai agent add ID"));
    }
    request.execute(&store, &caller).map_err(mail_error)
}

enum Request {
    Inbox(InboxFilter),
    Read { id: i64, mark_read: bool },
    Send { to: String, message: NewMessage },
    Delete { id: i64, archive: bool },
}

impl Request {
    fn execute(self, store: &Store, caller: &str) -> Result<Value, MailError> {
        match self {
            Request::Inbox(filter) => {
                let inbox = store.inbox(caller, &filter)?;
                let messages: Vec<Value> = inbox.messages.iter().map(inbox_entry).collect();
                let mut result = Map::new();
                result.insert("messages".into(), Value::Array(messages));
                result.insert("unread_count".into(), Value::from(inbox.unread_count));
                if inbox.truncated {
                    result.insert("truncated".into(), Value::Bool(true));
                }
                Ok(Value::Object(result))
            }
            Request::Read { id, mark_read } => {
                let m = store.read(caller, id, mark_read)?;
                let mut result = Map::new();
                result.insert("id".into(), Value::from(m.id));
                result.insert("from".into(), Value::from(m.from.as_str()));
                result.insert("timestamp".into(), Value::from(iso8601(m.timestamp)));
                result.insert("body".into(), Value::from(m.body.as_str()));
                optional_fields(&m, &mut result);
                Ok(Value::Object(result))
            }
            Request::Send { to, message } => {
                let reply = message.in_reply_to.is_some();
                let sent = store.send(caller, &to, message)?;
                let mut result = json!({"sent": true, "to": to, "id": sent.id});
                if reply {
                    result["thread_id"] = Value::from(sent.thread_id);
                }
                Ok(result)
            }
            Request::Delete { id, archive } => {
                store.delete(caller, id, archive)?;
                Ok(json!({"deleted": true, "id": id, "archived": archive}))
            }
        }
    }
}

/// An inbox entry: the seed's four fields, then ours when set.
fn inbox_entry(m: &Message) -> Value {
    let mut entry = Map::new();
    entry.insert("id".into(), Value::from(m.id));
    entry.insert("from".into(), Value::from(m.from.as_str()));
    entry.insert("unread".into(), Value::Bool(!m.read));
    entry.insert("preview".into(), Value::from(preview(&m.body)));
    optional_fields(m, &mut entry);
    if m.archived {
        entry.insert("archived".into(), Value::Bool(true));
    }
    Value::Object(entry)
}

fn optional_fields(m: &Message, out: &mut Map<String, Value>) {
    if let Some(subject) = &m.subject {
        out.insert("subject".into(), Value::from(subject.as_str()));
    }
    if let Some(kind) = m.kind {
        out.insert("type".into(), Value::from(kind.as_str()));
    }
    if let Some(priority) = m.priority {
        out.insert("priority".into(), Value::from(priority.as_str()));
    }
    if !m.tags.is_empty() {
        out.insert("tags".into(), Value::from(m.tags.clone()));
    }
    if m.needs_response {
        out.insert("needs_response".into(), Value::Bool(true));
    }
    if let Some(parent) = m.in_reply_to {
        out.insert("in_reply_to".into(), Value::from(parent));
        if let Some(thread) = m.thread_id {
            out.insert("thread_id".into(), Value::from(thread));
        }
    }
}

fn required_int(args: &Args, name: &str) -> Result<i64, ToolError> {
    args.int(name)
        .ok_or_else(|| ToolError::invalid_arg(format!("Missing required parameter: {name}")))
}

fn message_type(args: &Args) -> Result<Option<MessageType>, ToolError> {
    Ok(args
        .one_of("type", MessageType::ALL)?
        .and_then(MessageType::parse))
}

fn priority(args: &Args) -> Result<Option<Priority>, ToolError> {
    Ok(args
        .one_of("priority", Priority::ALL)?
        .and_then(Priority::parse))
}

fn new_message(args: &Args, body: &str) -> Result<NewMessage, ToolError> {
    Ok(NewMessage {
        body: body.to_owned(),
        subject: args.str("subject").map(str::to_owned),
        kind: message_type(args)?,
        priority: priority(args)?,
        tags: args.str_list("tags").unwrap_or_default(),
        needs_response: args.bool("needs_response").unwrap_or(false),
        in_reply_to: args.int("in_reply_to"),
    })
}

fn inbox_filter(args: &Args) -> Result<InboxFilter, ToolError> {
    let since = match args.str("since") {
        None => None,
        Some(text) => Some(parse_iso8601(text).ok_or_else(|| {
            ToolError::invalid_arg(format!(
                "Invalid value for parameter since: {text} (expected an ISO 8601 UTC time such as 2024-01-15T10:30:00Z)"
            ))
        })?),
    };
    Ok(InboxFilter {
        unread_only: args.bool("unread_only").unwrap_or(false),
        from: args.str("from").map(str::to_owned),
        kind: message_type(args)?,
        priority: priority(args)?,
        needs_response: args.bool("needs_response"),
        since,
        limit: Some(
            args.int_at_least("limit", 1)?
                .map_or(DEFAULT_INBOX_LIMIT, |l| {
                    u64::try_from(l).unwrap_or(u64::MAX)
                }),
        ),
        include_archived: args.bool("include_archived").unwrap_or(false),
    })
}

/// The error object for a store failure.
pub fn mail_error(e: MailError) -> ToolError {
    let code = match &e {
        MailError::AgentNotFound(_) => ErrorCode::AgentNotFound,
        MailError::MessageNotFound(_) => ErrorCode::MessageNotFound,
        MailError::EmptyBody | MailError::InvalidAgentId { .. } => ErrorCode::InvalidArg,
        MailError::BodyTooLarge { .. } => ErrorCode::TooLarge,
        MailError::Open { .. }
        | MailError::CreateDir { .. }
        | MailError::Database(_)
        | MailError::SchemaTooNew { .. }
        | MailError::NoLocation => ErrorCode::DatabaseError,
    };
    let mut error = ToolError::new(code, e.to_string());
    if let Some(detail) = e.detail() {
        error = error.with_detail(detail);
    }
    error
}
