//! Protocol revisions, JSON-RPC error codes, and message helpers.

use serde_json::{Map, Value, json};

/// Revisions reachable through the `initialize` handshake, oldest first.
pub const HANDSHAKE_VERSIONS: &[&str] = &["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
/// Revisions that use the per-request `_meta` envelope.
pub const MODERN_VERSIONS: &[&str] = &["2026-07-28"];

/// `_meta` keys of the 2026-07-28 envelope.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
pub const INTERNAL_ERROR: i64 = -32603;
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// The version a handshake settles on: the client's own when we speak it,
/// else our newest (the client then decides whether it can continue).
pub fn negotiate_handshake(requested: Option<&str>) -> &'static str {
    HANDSHAKE_VERSIONS
        .iter()
        .find(|v| Some(**v) == requested)
        .copied()
        .unwrap_or(HANDSHAKE_VERSIONS[HANDSHAKE_VERSIONS.len() - 1])
}

/// Whether a request's params carry the 2026-07-28 envelope. The version
/// key alone decides, so a half-built envelope is still treated as modern
/// and told what is missing.
pub fn has_envelope(params: Option<&Value>) -> bool {
    params
        .and_then(|p| p.get("_meta"))
        .and_then(Value::as_object)
        .is_some_and(|m| m.contains_key(META_PROTOCOL_VERSION))
}

/// A JSON-RPC error with its code, message and optional data.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

impl RpcError {
    pub fn new(code: i64, message: impl Into<String>) -> RpcError {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }

    #[must_use]
    pub fn with_data(mut self, data: Value) -> RpcError {
        self.data = Some(data);
        self
    }

    pub fn unsupported_version(requested: &str) -> RpcError {
        RpcError::new(
            UNSUPPORTED_PROTOCOL_VERSION,
            format!("Unsupported protocol version: {requested}"),
        )
        .with_data(json!({"supported": MODERN_VERSIONS, "requested": requested}))
    }
}

/// Checks a modern request's envelope: `_meta` with the protocol version
/// and the client capabilities, and a version we serve.
pub fn check_envelope(params: Option<&Value>) -> Result<(), RpcError> {
    let meta = params
        .and_then(|p| p.get("_meta"))
        .and_then(Value::as_object)
        .ok_or_else(|| {
            RpcError::new(
                INVALID_PARAMS,
                format!("params._meta must be an object carrying {META_PROTOCOL_VERSION:?} and {META_CLIENT_CAPABILITIES:?}"),
            )
        })?;
    let missing: Vec<&str> = [META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES]
        .into_iter()
        .filter(|k| !meta.contains_key(*k))
        .collect();
    if !missing.is_empty() {
        return Err(RpcError::new(
            INVALID_PARAMS,
            format!(
                "params._meta is missing the required envelope key(s): {}",
                missing.join(", ")
            ),
        ));
    }
    match meta.get(META_PROTOCOL_VERSION) {
        Some(Value::String(v)) if MODERN_VERSIONS.contains(&v.as_str()) => Ok(()),
        Some(Value::String(v)) => Err(RpcError::unsupported_version(v)),
        _ => Err(RpcError::new(
            INVALID_PARAMS,
            format!("{META_PROTOCOL_VERSION} must be a string"),
        )),
    }
}

/// `{"jsonrpc": "2.0", "id": id, "result": result}`
pub fn response(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// `{"jsonrpc": "2.0", "id": id, "error": {...}}`
pub fn error_response(id: &Value, error: &RpcError) -> Value {
    let mut body = Map::new();
    body.insert("code".into(), Value::from(error.code));
    body.insert("message".into(), Value::from(error.message.as_str()));
    if let Some(data) = &error.data {
        body.insert("data".into(), data.clone());
    }
    json!({"jsonrpc": "2.0", "id": id, "error": body})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiation() {
        assert_eq!(negotiate_handshake(Some("2025-03-26")), "2025-03-26");
        assert_eq!(negotiate_handshake(Some("2099-01-01")), "2025-11-25");
        assert_eq!(negotiate_handshake(None), "2025-11-25");
    }

    #[test]
    fn envelopes() {
        let good =
            json!({"_meta": {META_PROTOCOL_VERSION: "2026-07-28", META_CLIENT_CAPABILITIES: {}}});
        assert!(has_envelope(Some(&good)));
        assert!(check_envelope(Some(&good)).is_ok());
        assert!(!has_envelope(Some(&json!({"_meta": {"progressToken": 1}}))));
        let half = json!({"_meta": {META_PROTOCOL_VERSION: "2026-07-28"}});
        assert_eq!(
            check_envelope(Some(&half)).unwrap_err().code,
            INVALID_PARAMS
        );
        let old =
            json!({"_meta": {META_PROTOCOL_VERSION: "2030-01-01", META_CLIENT_CAPABILITIES: {}}});
        let e = check_envelope(Some(&old)).unwrap_err();
        assert_eq!(e.code, UNSUPPORTED_PROTOCOL_VERSION);
        assert_eq!(
            e.data,
            Some(json!({"supported": ["2026-07-28"], "requested": "2030-01-01"}))
        );
    }
}
