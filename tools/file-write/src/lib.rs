//! The `file_write` tool: creates or overwrites a file.
//!
//! The write is atomic and keeps what the file was: see
//! [`ikigai_fs::replace_file`] (temporary file in the same directory,
//! flushed, renamed; permission bits, owner, symbolic links and hard links
//! kept).

use ikigai_fs::{Durability, basename, replace_file};
use ikigai_protocol::runner::ToolSpec;
use ikigai_protocol::{Args, ToolContext, ToolError};
use serde_json::{Value, json};
use std::io::Write;

pub const SCHEMA: &str = r#"{
  "name": "file_write",
  "description": "Write content to a file (creates or overwrites)",
  "parameters": {
    "type": "object",
    "properties": {
      "file_path": {
        "type": "string",
        "description": "Absolute or relative path to file"
      },
      "content": {
        "type": "string",
        "description": "Content to write to file"
      }
    },
    "required": ["file_path", "content"]
  }
}"#;

pub const SPEC: ToolSpec = ToolSpec {
    binary: "file-write",
    schema: SCHEMA,
    about: "Returns {\"output\": \"Wrote N bytes to NAME\", \"bytes\": N}. The parent directory must exist.\n\
            Atomic: a temporary file in the same directory is written, flushed and renamed\n\
            over the target. An existing file keeps its permission bits and owner; a\n\
            symbolic link is written through (the link stays); hard links stay linked.\n",
};

pub fn run(args: &Args, ctx: &ToolContext) -> Result<Value, ToolError> {
    let shown = args.required_path("file_path")?;
    let content = args.required_str("content")?;
    replace_file(&ctx.resolve(shown), Durability::for_context(ctx), |file| {
        file.write_all(content.as_bytes())
    })
    .map_err(|e| e.to_tool_error(shown))?;
    Ok(json!({
        "output": format!("Wrote {} bytes to {}", content.len(), basename(shown)),
        "bytes": content.len(),
    }))
}
