//! The Model Context Protocol server: every tool the host discovers, served
//! over stdio (JSON-RPC 2.0, one message per line) to any MCP client.
//!
//! - [`serve`]: runs one connection until the client closes its end.
//! - [`protocol`]: the protocol revisions and how a connection negotiates
//!   one: the `initialize` handshake (2024-11-05 to 2025-11-25) or the
//!   2026-07-28 per-request envelope (`server/discover`).
//! - [`tools`]: tool descriptions (with read-only / destructive
//!   annotations) and the mapping of a host envelope to a `CallToolResult`.
//! - [`add_builtins`]: lets the host run the file tools and mail
//!   in-process, with a spawned call's semantics.
//!
//! Calls go through [`ikigai_host::Host`], so they get the same discovery,
//! timeouts, crash detection and output caps as any other call; several can
//! be in flight at once, and a client's `notifications/cancelled` kills the
//! call's process group.

mod builtins;
pub mod protocol;
mod server;
pub mod tools;

pub use builtins::add_builtins;
pub use server::{ServerInfo, serve};
