//! Black-box tests of the built executables: every test feeds JSON to a real
//! binary (built once per run by `util::bin`) and compares whole JSON values.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, unsafe_code)]

mod util;

mod bash;
mod file_edit;
mod file_read;
mod file_write;
mod host;
mod mail;
mod mcp;
mod protocol;
mod search;
