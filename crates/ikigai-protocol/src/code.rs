use serde::{Deserialize, Serialize};
use std::fmt;

/// Every `error_code` value the tools and the host emit.
///
/// The spec's codes keep their spec names; the codes we added are marked
/// and documented in `docs/protocol.md`. Serialised as the
/// SCREAMING_SNAKE_CASE string (`FileNotFound` is `"FILE_NOT_FOUND"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[non_exhaustive]
pub enum ErrorCode {
    // Tool codes from the spec.
    FileNotFound,
    PermissionDenied,
    OpenFailed,
    ReadFailed,
    WriteFailed,
    SeekFailed,
    SizeFailed,
    NoSpace,
    InvalidPattern,
    OutOfMemory,
    ReadError,
    NotFound,
    NotUnique,
    InvalidArg,
    // Tool codes we added.
    /// stdin was not a JSON object.
    InvalidJson,
    /// stdin was larger than [`crate::MAX_INPUT_BYTES`].
    InputTooLarge,
    /// A bug in the tool (a panic), reported instead of a crash.
    InternalError,
    /// The mail store could not be opened, read or written.
    DatabaseError,
    /// The calling agent (`IKIGAI_AGENT_ID`) is missing or not registered.
    AgentNotRegistered,
    /// A mail recipient does not exist.
    AgentNotFound,
    /// A mail message does not exist in the caller's mailbox.
    MessageNotFound,
    /// A value is too large (for example a mail body over the size limit).
    TooLarge,
    // Host (wrapper) codes from the spec.
    ToolTimeout,
    ToolCrashed,
    InvalidOutput,
    ToolNotFound,
    InvalidParams,
    // Host codes we added.
    /// The tool wrote more than the host's stdout cap and was killed.
    OutputTooLarge,
    /// The tool could not be started (exec failed).
    SpawnFailed,
    /// The call was cancelled by the caller before it finished.
    Cancelled,
}

impl ErrorCode {
    /// The wire string, e.g. `"FILE_NOT_FOUND"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::FileNotFound => "FILE_NOT_FOUND",
            ErrorCode::PermissionDenied => "PERMISSION_DENIED",
            ErrorCode::OpenFailed => "OPEN_FAILED",
            ErrorCode::ReadFailed => "READ_FAILED",
            ErrorCode::WriteFailed => "WRITE_FAILED",
            ErrorCode::SeekFailed => "SEEK_FAILED",
            ErrorCode::SizeFailed => "SIZE_FAILED",
            ErrorCode::NoSpace => "NO_SPACE",
            ErrorCode::InvalidPattern => "INVALID_PATTERN",
            ErrorCode::OutOfMemory => "OUT_OF_MEMORY",
            ErrorCode::ReadError => "READ_ERROR",
            ErrorCode::NotFound => "NOT_FOUND",
            ErrorCode::NotUnique => "NOT_UNIQUE",
            ErrorCode::InvalidArg => "INVALID_ARG",
            ErrorCode::InvalidJson => "INVALID_JSON",
            ErrorCode::InputTooLarge => "INPUT_TOO_LARGE",
            ErrorCode::InternalError => "INTERNAL_ERROR",
            ErrorCode::DatabaseError => "DATABASE_ERROR",
            ErrorCode::AgentNotRegistered => "AGENT_NOT_REGISTERED",
            ErrorCode::AgentNotFound => "AGENT_NOT_FOUND",
            ErrorCode::MessageNotFound => "MESSAGE_NOT_FOUND",
            ErrorCode::TooLarge => "TOO_LARGE",
            ErrorCode::ToolTimeout => "TOOL_TIMEOUT",
            ErrorCode::ToolCrashed => "TOOL_CRASHED",
            ErrorCode::InvalidOutput => "INVALID_OUTPUT",
            ErrorCode::ToolNotFound => "TOOL_NOT_FOUND",
            ErrorCode::InvalidParams => "INVALID_PARAMS",
            ErrorCode::OutputTooLarge => "OUTPUT_TOO_LARGE",
            ErrorCode::SpawnFailed => "SPAWN_FAILED",
            ErrorCode::Cancelled => "CANCELLED",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn as_str_matches_serde() {
        for code in [
            ErrorCode::FileNotFound,
            ErrorCode::NoSpace,
            ErrorCode::InvalidJson,
            ErrorCode::ToolTimeout,
            ErrorCode::OutputTooLarge,
            ErrorCode::AgentNotRegistered,
        ] {
            let via_serde = serde_json::to_value(code).unwrap();
            assert_eq!(via_serde, serde_json::Value::from(code.as_str()));
        }
    }
}
