use crate::ErrorCode;
use serde_json::{Map, Value};

/// The error object a tool returns: `{"error": message, "error_code": code}`.
///
/// `detail` is our additive field: the underlying reason (an OS error, a
/// parser message, the accepted parameter names) when the spec's message
/// alone would leave a model guessing. Spec messages stay exact; the
/// explanation goes here.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ToolError {
    pub message: String,
    pub code: ErrorCode,
    pub detail: Option<String>,
}

impl ToolError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ToolError {
            message: message.into(),
            code,
            detail: None,
        }
    }

    /// Adds the additive `detail` field.
    #[must_use]
    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }

    /// `Invalid JSON arguments`, with the parser's reason as detail.
    pub fn invalid_json(detail: impl Into<String>) -> Self {
        ToolError::new(ErrorCode::InvalidJson, "Invalid JSON arguments").with_detail(detail)
    }

    /// An `INVALID_ARG` error.
    pub fn invalid_arg(message: impl Into<String>) -> Self {
        ToolError::new(ErrorCode::InvalidArg, message)
    }

    /// The object written on stdout.
    pub fn to_json(&self) -> Value {
        let mut map = Map::new();
        map.insert("error".into(), Value::from(self.message.as_str()));
        map.insert("error_code".into(), Value::from(self.code.as_str()));
        if let Some(detail) = &self.detail {
            map.insert("detail".into(), Value::from(detail.as_str()));
        }
        Value::Object(map)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn serialises_spec_fields_and_optional_detail() {
        let e = ToolError::new(ErrorCode::FileNotFound, "File not found: /x");
        assert_eq!(
            e.to_json(),
            json!({"error": "File not found: /x", "error_code": "FILE_NOT_FOUND"})
        );
        let e = e.with_detail("why");
        assert_eq!(
            e.to_json(),
            json!({"error": "File not found: /x", "error_code": "FILE_NOT_FOUND", "detail": "why"})
        );
    }
}
