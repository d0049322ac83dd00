//! One MCP connection: read JSON-RPC messages line by line, answer them,
//! run tool calls concurrently, honour cancellations.

use crate::protocol::{
    self, INVALID_PARAMS, INVALID_REQUEST, META_SERVER_INFO, METHOD_NOT_FOUND, PARSE_ERROR,
    RpcError,
};
use crate::tools;
use ikigai_host::process::{Cancel, CancelTrigger};
use ikigai_host::{CallContext, Host};
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::io;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

/// Largest message accepted, in bytes (a tool's stdin limit).
const MAX_MESSAGE: usize = ikigai_protocol::MAX_INPUT_BYTES;

/// How long calls in flight may still finish after the client closes its
/// end before they are cancelled.
const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// How the server introduces itself.
#[derive(Debug, Clone)]
pub struct ServerInfo {
    pub name: String,
    pub version: String,
    pub instructions: String,
}

/// The protocol era a connection settled on with its first request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Era {
    Unset,
    /// The `initialize` handshake, at this revision.
    Handshake(&'static str),
    /// The 2026-07-28 per-request envelope.
    Modern,
}

struct State {
    host: Host,
    ctx: CallContext,
    info: ServerInfo,
    era: Mutex<Era>,
    /// Calls in flight by request id (its JSON text), to cancel them.
    in_flight: Mutex<HashMap<String, CancelTrigger>>,
    out: mpsc::UnboundedSender<Value>,
}

/// Serves one connection until the client closes `input`; then cancels the
/// calls still running (killing their process groups) and returns once
/// they are reaped and everything is written.
pub async fn serve<R, W>(
    host: Host,
    ctx: CallContext,
    info: ServerInfo,
    input: R,
    output: W,
) -> io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (out, mut outgoing) = mpsc::unbounded_channel::<Value>();
    let writer = tokio::spawn(async move {
        let mut output = tokio::io::BufWriter::new(output);
        while let Some(message) = outgoing.recv().await {
            let mut line = message.to_string();
            line.push('\n');
            output.write_all(line.as_bytes()).await?;
            output.flush().await?;
        }
        Ok::<(), io::Error>(())
    });
    let state = Arc::new(State {
        host,
        ctx,
        info,
        era: Mutex::new(Era::Unset),
        in_flight: Mutex::new(HashMap::new()),
        out,
    });
    let mut calls = JoinSet::new();
    let mut reader = BufReader::new(input);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match read_message(&mut reader, &mut buf).await? {
            Message::Eof => break,
            Message::TooLarge => state.send(protocol::error_response(
                &Value::Null,
                &RpcError::new(PARSE_ERROR, "Parse error").with_data(Value::from(format!(
                    "message larger than {MAX_MESSAGE} bytes"
                ))),
            )),
            Message::Line => {
                if buf.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                match serde_json::from_slice::<Value>(&buf) {
                    Err(e) => state.send(protocol::error_response(
                        &Value::Null,
                        &RpcError::new(PARSE_ERROR, "Parse error")
                            .with_data(Value::from(e.to_string())),
                    )),
                    Ok(Value::Array(batch)) if batch.is_empty() => {
                        state.send(protocol::error_response(
                            &Value::Null,
                            &RpcError::new(INVALID_REQUEST, "Invalid Request")
                                .with_data(Value::from("empty batch")),
                        ))
                    }
                    Ok(Value::Array(batch)) => {
                        for message in batch {
                            dispatch(&state, message, &mut calls);
                        }
                    }
                    Ok(message) => dispatch(&state, message, &mut calls),
                }
            }
        }
        // Reap finished calls as we go.
        while calls.try_join_next().is_some() {}
    }
    // The client closed its end: calls in flight may finish and answer for
    // a short while (a piped batch of requests gets its replies), then the
    // rest are cancelled (process groups killed) so the server exits soon,
    // as MCP's stdio shutdown expects.
    let drained = tokio::time::timeout(SHUTDOWN_GRACE, async {
        while calls.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        let pending: Vec<CancelTrigger> = match state.in_flight.lock() {
            Ok(mut map) => map.drain().map(|(_, t)| t).collect(),
            Err(_) => Vec::new(),
        };
        for trigger in &pending {
            trigger.fire();
        }
        while calls.join_next().await.is_some() {}
    }
    drop(state);
    writer.await.unwrap_or_else(|e| Err(io::Error::other(e)))
}

enum Message {
    Line,
    TooLarge,
    Eof,
}

/// Reads one line into `buf` without holding more than [`MAX_MESSAGE`]
/// bytes: the rest of an oversized line is read and dropped.
async fn read_message<R: AsyncRead + Unpin>(
    reader: &mut BufReader<R>,
    buf: &mut Vec<u8>,
) -> io::Result<Message> {
    let mut too_large = false;
    loop {
        let chunk = reader.fill_buf().await?;
        if chunk.is_empty() {
            return Ok(if too_large {
                Message::TooLarge
            } else if buf.is_empty() {
                Message::Eof
            } else {
                Message::Line
            });
        }
        let (take, done) = match memchr_newline(chunk) {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        if !too_large {
            if buf.len() + take > MAX_MESSAGE {
                too_large = true;
                buf.clear();
            } else {
                buf.extend_from_slice(&chunk[..take]);
            }
        }
        reader.consume(take);
        if done {
            return Ok(if too_large {
                Message::TooLarge
            } else {
                Message::Line
            });
        }
    }
}

fn memchr_newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'\n')
}

impl State {
    fn send(&self, message: Value) {
        // A closed writer means the client is gone; the read loop ends soon.
        let _ = self.out.send(message);
    }

    fn reply(&self, id: &Value, outcome: Result<Value, RpcError>) {
        match outcome {
            Ok(result) => self.send(protocol::response(id, result)),
            Err(error) => self.send(protocol::error_response(id, &error)),
        }
    }

    fn era(&self) -> Era {
        self.era.lock().map_or(Era::Unset, |e| *e)
    }

    fn set_era(&self, era: Era) {
        if let Ok(mut e) = self.era.lock() {
            *e = era;
        }
    }

    fn server_info(&self) -> Value {
        json!({"name": self.info.name, "version": self.info.version})
    }

    /// Adds the fields every 2026-07-28 result carries.
    fn modern_result(&self, mut result: Value, cacheable: bool) -> Value {
        if let Some(obj) = result.as_object_mut() {
            obj.insert("resultType".into(), Value::from("complete"));
            let mut meta = Map::new();
            meta.insert(META_SERVER_INFO.into(), self.server_info());
            obj.insert("_meta".into(), Value::Object(meta));
            if cacheable {
                // The list is this server's, not to be shared across users;
                // tools may be rediscovered, so no caching window.
                obj.insert("cacheScope".into(), Value::from("private"));
                obj.insert("ttlMs".into(), Value::from(0));
            }
        }
        result
    }
}

/// Handles one decoded message: a request (answered, or for `tools/call`
/// run on its own task), a notification, or a stray response (ignored).
fn dispatch(state: &Arc<State>, message: Value, calls: &mut JoinSet<()>) {
    let Value::Object(message) = message else {
        state.send(protocol::error_response(
            &Value::Null,
            &RpcError::new(INVALID_REQUEST, "Invalid Request")
                .with_data(Value::from("a message must be a JSON object")),
        ));
        return;
    };
    let id = message.get("id").cloned();
    let valid_id = id
        .as_ref()
        .filter(|i| i.is_string() || i.is_number())
        .cloned();
    let invalid = |why: &str| {
        state.send(protocol::error_response(
            valid_id.as_ref().unwrap_or(&Value::Null),
            &RpcError::new(INVALID_REQUEST, "Invalid Request").with_data(Value::from(why)),
        ));
    };
    if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return invalid("jsonrpc must be \"2.0\"");
    }
    let Some(method) = message
        .get("method")
        .and_then(Value::as_str)
        .map(str::to_owned)
    else {
        if message.contains_key("result") || message.contains_key("error") {
            return; // a response to a request we never send
        }
        return invalid("a request needs a method");
    };
    let params = message.get("params").cloned();
    if params
        .as_ref()
        .is_some_and(|p| !p.is_object() && !p.is_array())
    {
        return invalid("params must be an object or an array");
    }
    let Some(id) = id else {
        return notification(state, &method, params.as_ref());
    };
    if valid_id.is_none() {
        return invalid("id must be a string or a number");
    }
    request(state, id, &method, params, calls);
}

fn notification(state: &State, method: &str, params: Option<&Value>) {
    if method == "notifications/cancelled"
        && let Some(request_id) = params.and_then(|p| p.get("requestId"))
    {
        let trigger = state
            .in_flight
            .lock()
            .ok()
            .and_then(|mut map| map.remove(&request_id.to_string()));
        if let Some(trigger) = trigger {
            trigger.fire();
        }
    }
    // Every other notification (initialized, progress, ...) needs nothing.
}

fn request(
    state: &Arc<State>,
    id: Value,
    method: &str,
    params: Option<Value>,
    calls: &mut JoinSet<()>,
) {
    let enveloped = protocol::has_envelope(params.as_ref());
    let era = state.era();
    // The first request settles the era, as the reference server does; a
    // request from the other era is refused.
    let modern = if method == "initialize" {
        if era == Era::Modern {
            let requested = params
                .as_ref()
                .and_then(|p| p.get("protocolVersion"))
                .and_then(Value::as_str);
            let mut error = RpcError::unsupported_version(requested.unwrap_or(""));
            error.message = "connection is serving the 2026-07-28 protocol; the initialize handshake is not accepted".into();
            return state.reply(&id, Err(error));
        }
        false
    } else if enveloped || era == Era::Modern {
        if let Era::Handshake(_) = era {
            return state.reply(
                &id,
                Err(RpcError::new(
                    INVALID_REQUEST,
                    "this connection serves the handshake protocol era; requests carrying the 2026-07-28 envelope are not accepted on it",
                )),
            );
        }
        if let Err(error) = protocol::check_envelope(params.as_ref()) {
            return state.reply(&id, Err(error));
        }
        state.set_era(Era::Modern);
        true
    } else {
        false
    };
    let params = params.unwrap_or(Value::Object(Map::new()));
    let outcome = match (method, modern) {
        ("initialize", _) => {
            let requested = params.get("protocolVersion").and_then(Value::as_str);
            let version = protocol::negotiate_handshake(requested);
            state.set_era(Era::Handshake(version));
            Ok(json!({
                "protocolVersion": version,
                "capabilities": {"tools": {"listChanged": false}},
                "serverInfo": state.server_info(),
                "instructions": state.info.instructions,
            }))
        }
        ("server/discover", true) => Ok(state.modern_result(
            json!({
                "supportedVersions": protocol::MODERN_VERSIONS,
                "capabilities": {"tools": {"listChanged": false}},
                "instructions": state.info.instructions,
            }),
            true,
        )),
        ("ping", false) => Ok(json!({})),
        ("tools/list", _) => {
            let tools: Vec<Value> = state.host.registry().iter().map(tools::describe).collect();
            let result = json!({"tools": tools});
            Ok(if modern {
                state.modern_result(result, true)
            } else {
                result
            })
        }
        ("tools/call", _) => return call(state, id, &params, modern, calls),
        (other, _) => {
            Err(RpcError::new(METHOD_NOT_FOUND, "Method not found").with_data(Value::from(other)))
        }
    };
    state.reply(&id, outcome);
}

/// Starts a tool call on its own task. Its answer is sent when it
/// finishes, unless the client cancelled it (then, as MCP asks, none).
fn call(state: &Arc<State>, id: Value, params: &Value, modern: bool, calls: &mut JoinSet<()>) {
    let Some(name) = params
        .get("name")
        .and_then(Value::as_str)
        .map(str::to_owned)
    else {
        return state.reply(
            &id,
            Err(RpcError::new(
                INVALID_PARAMS,
                "tools/call needs params.name (a string)",
            )),
        );
    };
    let arguments = match params.get("arguments") {
        None | Some(Value::Null) => "{}".to_owned(),
        Some(args @ Value::Object(_)) => args.to_string(),
        Some(_) => {
            return state.reply(
                &id,
                Err(RpcError::new(
                    INVALID_PARAMS,
                    "params.arguments must be an object",
                )),
            );
        }
    };
    if state.host.registry().get(&name).is_none() {
        return state.reply(
            &id,
            Err(RpcError::new(
                INVALID_PARAMS,
                format!("Unknown tool: {name}"),
            )),
        );
    }
    let key = id.to_string();
    let (trigger, cancel): (CancelTrigger, Cancel) = Cancel::new();
    if let Ok(mut map) = state.in_flight.lock() {
        map.insert(key.clone(), trigger);
    }
    let state = Arc::clone(state);
    calls.spawn(async move {
        let ctx = CallContext {
            cancel: Some(cancel),
            ..state.ctx.clone()
        };
        let envelope = state.host.call(&name, &arguments, &ctx).await;
        let still_wanted = state
            .in_flight
            .lock()
            .ok()
            .and_then(|mut map| map.remove(&key))
            .is_some();
        if still_wanted {
            let result = tools::call_result(&envelope);
            let result = if modern {
                state.modern_result(result, false)
            } else {
                result
            };
            state.reply(&id, Ok(result));
        }
    });
}
