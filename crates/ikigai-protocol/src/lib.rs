//! The wire protocol every ikigai tool and the host share.
//!
//! A tool is an executable that reads one JSON object (its arguments) on
//! stdin and writes one JSON object (its result, or an error object) on
//! stdout, then exits 0. This crate owns everything about that exchange so
//! that no other crate has to know the wire format:
//!
//! - [`ErrorCode`]: every `error_code` string a tool or the host can emit.
//! - [`ToolError`]: the `{"error", "error_code"}` object a tool returns.
//! - [`Schema`]: a tool's `--schema` object, and the argument validation it
//!   drives ([`Args`]): unknown parameters rejected by name, types checked,
//!   integers accepted as digit strings, `null` treated as absent.
//! - [`ToolContext`]: the working directory and environment a call runs in,
//!   so a tool's library function behaves the same in its own process and
//!   in-process inside the host.
//! - [`runner::main`]: the whole `main` of a tool binary (`--schema`,
//!   `--help`, `--version`, stdin to EOF, one JSON object out, exit 0).
//! - [`Envelope`]: the host's `tool_success` wrapper around a call's outcome.
//!
//! ```
//! use ikigai_protocol::{Schema, ToolContext};
//! let schema = Schema::parse(r#"{"name":"echo","description":"Echo","parameters":
//!     {"type":"object","properties":{"n":{"type":"integer","description":"N"}},"required":["n"]}}"#).unwrap();
//! let args = schema.parse_args(br#"{"n": "42"}"#).unwrap();
//! assert_eq!(args.int("n"), Some(42));
//! let err = schema.parse_args(br#"{"m": 1}"#).unwrap_err();
//! assert_eq!(err.message, "Unknown parameter: m");
//! # let _ = ToolContext::from_process();
//! ```

mod args;
mod code;
mod context;
mod envelope;
mod error;
pub mod runner;
mod schema;

pub use args::Args;
pub use code::ErrorCode;
pub use context::ToolContext;
pub use envelope::{Envelope, Failure};
pub use error::ToolError;
pub use schema::{Schema, SchemaError};

/// Most bytes a tool reads from stdin. Arguments beyond this are refused
/// with `INPUT_TOO_LARGE` instead of being buffered without bound.
pub const MAX_INPUT_BYTES: usize = 64 * 1024 * 1024;
