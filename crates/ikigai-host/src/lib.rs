//! The tool host: what an agent harness uses to offer tools to a model and
//! run the calls the model makes.
//!
//! - [`ToolDirs`] and [`discover`]: tools are executables in the system,
//!   user and project directories (later overriding earlier) plus any the
//!   caller adds; every candidate's `--schema` runs concurrently and each
//!   one left out comes with a [`Warning`] saying why.
//! - [`Registry`]: the usable tools, exported for a model as OpenAI
//!   functions, Anthropic tools or the raw schemas ([`Format`]).
//! - [`Host`]: runs calls ([`Host::call`], [`Host::call_many`]) and wraps
//!   every outcome in the spec's `tool_success` [`Envelope`]: timeouts kill
//!   the whole process group, crashes report the signal, bad output is
//!   named, stdout and stderr are bounded.
//! - [`process`]: the only module that spawns, signals and reaps.
//!
//! ```no_run
//! # async fn demo() {
//! use ikigai_host::{CallContext, Format, Host, HostConfig};
//! let (host, warnings) = Host::discover(HostConfig::standard(std::path::Path::new("."))).await;
//! for w in &warnings {
//!     eprintln!("warning: {w}");
//! }
//! let tools = host.registry().export(Format::OpenAi);
//! let envelope = host.call("file_read", r#"{"file_path": "README.md"}"#, &CallContext::default()).await;
//! println!("{tools}\n{}", envelope.to_json());
//! # }
//! ```

mod dirs;
mod discovery;
mod envelope;
mod host;
pub mod process;
mod registry;
pub mod schedule;

pub use dirs::{LIBEXEC_VAR, Source, ToolDirs, default_system_dir, tool_name};
pub use discovery::{
    Candidate, SchemaFailure, Warning, candidates, discover, load_schema, locate, scan_dir,
};
pub use envelope::{EXCERPT, parse_output};
pub use host::{Builtin, CallContext, Host, HostConfig, ToolCall};
pub use ikigai_protocol::{Envelope, ErrorCode, Failure};
pub use registry::{Format, Registry, ToolEntry, export_one};
