use crate::ErrorCode;
use serde_json::{Map, Value};

/// The host's wrapper around one call's outcome, exactly the spec's shape.
///
/// Success: `{"tool_success": true, "result": <tool JSON>}`. Note that a
/// tool's own error object (`{"error", "error_code"}`) is still a success
/// envelope: the tool ran and answered.
///
/// Failure: `{"tool_success": false, "error", "error_code", "exit_code",
/// "stdout", "stderr"}`, always with all five fields (`exit_code` is `null`
/// when no process exit status exists, e.g. `TOOL_NOT_FOUND`).
#[derive(Debug, Clone, PartialEq)]
pub enum Envelope {
    Success(Value),
    Failure(Failure),
}

/// Why the host could not get a result from a tool.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub error: String,
    pub error_code: ErrorCode,
    pub exit_code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Failure {
    /// A failure that never reached a process (no exit code, no output).
    pub fn without_process(error_code: ErrorCode, error: impl Into<String>) -> Failure {
        Failure {
            error: error.into(),
            error_code,
            exit_code: None,
            stdout: String::new(),
            stderr: String::new(),
        }
    }
}

impl Envelope {
    pub fn is_success(&self) -> bool {
        matches!(self, Envelope::Success(_))
    }

    /// The tool's result for a success envelope.
    pub fn result(&self) -> Option<&Value> {
        match self {
            Envelope::Success(v) => Some(v),
            Envelope::Failure(_) => None,
        }
    }

    /// True when the call succeeded but the tool answered with its own
    /// error object (`{"error": ...}`).
    pub fn is_tool_error(&self) -> bool {
        self.result()
            .and_then(Value::as_object)
            .is_some_and(|o| o.contains_key("error"))
    }

    pub fn to_json(&self) -> Value {
        let mut map = Map::new();
        match self {
            Envelope::Success(result) => {
                map.insert("tool_success".into(), Value::Bool(true));
                map.insert("result".into(), result.clone());
            }
            Envelope::Failure(f) => {
                map.insert("tool_success".into(), Value::Bool(false));
                map.insert("error".into(), Value::from(f.error.as_str()));
                map.insert("error_code".into(), Value::from(f.error_code.as_str()));
                map.insert(
                    "exit_code".into(),
                    f.exit_code.map_or(Value::Null, Value::from),
                );
                map.insert("stdout".into(), Value::from(f.stdout.as_str()));
                map.insert("stderr".into(), Value::from(f.stderr.as_str()));
            }
        }
        Value::Object(map)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn shapes() {
        let ok = Envelope::Success(json!({"output": "x"}));
        assert_eq!(
            ok.to_json(),
            json!({"tool_success": true, "result": {"output": "x"}})
        );
        assert!(!ok.is_tool_error());
        let fail = Envelope::Failure(Failure {
            error: "Tool 'bash' crashed with exit code 139".into(),
            error_code: ErrorCode::ToolCrashed,
            exit_code: Some(139),
            stdout: "partial output...".into(),
            stderr: "segmentation fault".into(),
        });
        assert_eq!(
            fail.to_json(),
            json!({"tool_success": false, "error": "Tool 'bash' crashed with exit code 139",
                   "error_code": "TOOL_CRASHED", "exit_code": 139,
                   "stdout": "partial output...", "stderr": "segmentation fault"})
        );
        let tool_err = Envelope::Success(json!({"error": "e", "error_code": "NOT_FOUND"}));
        assert!(tool_err.is_tool_error());
    }
}
