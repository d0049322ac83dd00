//! Tool descriptions for `tools/list` and results for `tools/call`.

use ikigai_host::{Envelope, Source, ToolEntry};
use serde_json::{Map, Value, json};

/// MCP tool annotations for our built-in tools. Only the system
/// directory's tools get them: a user or project tool of the same name may
/// behave differently, and MCP's defaults (may destroy, open world) are the
/// safe assumption for it.
pub fn annotations(entry: &ToolEntry) -> Option<Value> {
    if entry.source != Source::System {
        return None;
    }
    // (read only, destructive, idempotent, open world)
    let (read_only, destructive, idempotent, open_world) = match entry.name.as_str() {
        "file_read" | "glob" | "grep" => (true, false, true, false),
        "file_write" => (false, true, true, false),
        "file_edit" => (false, true, false, false),
        "bash" => (false, true, false, true),
        // Sending is additive; deleting archives unless told otherwise.
        "mail" => (false, false, false, false),
        _ => return None,
    };
    Some(json!({
        "readOnlyHint": read_only,
        "destructiveHint": destructive,
        "idempotentHint": idempotent,
        "openWorldHint": open_world,
    }))
}

/// A `tools/list` entry: name, description, the tool's parameters as
/// `inputSchema`, and annotations where known.
pub fn describe(entry: &ToolEntry) -> Value {
    let mut tool = Map::new();
    tool.insert("name".into(), Value::from(entry.name.as_str()));
    tool.insert(
        "description".into(),
        Value::from(entry.schema.description()),
    );
    tool.insert("inputSchema".into(), entry.schema.parameters().clone());
    if let Some(a) = annotations(entry) {
        tool.insert("annotations".into(), a);
    }
    Value::Object(tool)
}

/// A `CallToolResult` for a host envelope.
///
/// The tool's JSON goes both into a text block (what most clients show the
/// model) and into `structuredContent`. A tool's own error object
/// (`{"error", "error_code"}`) and every `tool_success: false` envelope
/// (timeout, crash, bad output) are results with `isError: true`, so the
/// model sees the failure and can react; they are not protocol errors.
pub fn call_result(envelope: &Envelope) -> Value {
    let (body, is_error) = match envelope {
        Envelope::Success(result) => (result.clone(), envelope.is_tool_error()),
        Envelope::Failure(_) => (envelope.to_json(), true),
    };
    json!({
        "content": [{"type": "text", "text": body.to_string()}],
        "structuredContent": body,
        "isError": is_error,
    })
}
