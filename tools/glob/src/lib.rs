//! The `glob` tool: paths matching a glob pattern.
//!
//! POSIX `glob()` semantics (`*`, `?`, `[...]`, a leading dot matched only
//! explicitly, results in lexicographic order), plus what users expect:
//! `**` across directories (the spec's own example is `src/**/*.c`) and
//! brace sets (`*.{rs,toml}`). See [`pattern`] for the syntax and [`walk`]
//! for how the filesystem is visited: literal components are looked up, not
//! listed, and `**` never follows symbolic links, so loops cannot hang it.

pub mod pattern;
pub mod walk;

use ikigai_protocol::runner::ToolSpec;
use ikigai_protocol::{Args, ErrorCode, ToolContext, ToolError};
use pattern::{PatternError, compile, expand_braces};
use serde_json::{Map, Value};
use std::path::Path;
use walk::{Collector, Order};

pub const SCHEMA: &str = r#"{
  "name": "glob",
  "description": "Find files matching a glob pattern",
  "parameters": {
    "type": "object",
    "properties": {
      "pattern": {
        "type": "string",
        "description": "Glob pattern (e.g., '*.txt', 'src/**/*.c')"
      },
      "path": {
        "type": "string",
        "description": "Directory to search in (default: current directory)"
      },
      "limit": {
        "type": "integer",
        "description": "Maximum number of paths to return; more sets \"truncated\": true (default: all, up to 100000)"
      },
      "sort": {
        "type": "string",
        "enum": ["name", "modified"],
        "description": "Result order: name (default, lexicographic) or modified (newest first)"
      }
    },
    "required": ["pattern"]
  }
}"#;

pub const SPEC: ToolSpec = ToolSpec {
    binary: "glob",
    schema: SCHEMA,
    about: "Returns {\"output\": PATHS, \"count\": N}: matching paths one per line, in lexicographic\n\
            order (or newest first with \"sort\": \"modified\"). No match is {\"output\": \"\", \"count\": 0}.\n\
            * ? [..] match within one name and never a leading dot; ** spans directories;\n\
            {a,b} brace sets expand. At most 100000 paths (or \"limit\"); more adds \"truncated\": true.\n",
};

/// Most paths returned without an explicit `limit`.
pub const MAX_RESULTS: usize = 100_000;

pub fn run(args: &Args, ctx: &ToolContext) -> Result<Value, ToolError> {
    let pattern = args.required_str("pattern")?;
    let path = args.str("path").unwrap_or("");
    let limit = args
        .int_at_least("limit", 1)?
        .map_or(MAX_RESULTS, |l| usize::try_from(l).unwrap_or(usize::MAX));
    let order = match args.one_of("sort", &["name", "modified"])? {
        Some("modified") => Order::Modified,
        _ => Order::Name,
    };
    let invalid = |e: PatternError| {
        ToolError::new(ErrorCode::InvalidPattern, "Invalid glob pattern").with_detail(e.to_string())
    };
    let compiled = expand_braces(pattern)
        .map_err(invalid)?
        .iter()
        .map(|p| compile(p))
        .collect::<Result<Vec<_>, _>>()
        .map_err(invalid)?;
    let base = ctx.resolve_dir(path);
    if !path.is_empty() {
        check_base(&base, path)?;
    }
    let mut out = Collector::new(order, limit);
    for pattern in &compiled {
        if pattern.absolute {
            walk::walk(Path::new("/"), "/", &pattern.segments, &mut out);
        } else {
            walk::walk(&base, path, &pattern.segments, &mut out);
        }
    }
    let (paths, truncated) = out.finish();
    let mut result = Map::new();
    result.insert("output".into(), Value::from(paths.join("\n")));
    result.insert("count".into(), Value::from(paths.len()));
    if truncated {
        result.insert("truncated".into(), Value::Bool(true));
    }
    Ok(Value::Object(result))
}

/// The `path` parameter must be a readable directory.
fn check_base(base: &Path, shown: &str) -> Result<(), ToolError> {
    match std::fs::metadata(base) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(ToolError::new(
            ErrorCode::FileNotFound,
            format!("Path not found: {shown}"),
        )),
        Err(e) => Err(
            ToolError::new(ErrorCode::ReadError, "Read error during glob")
                .with_detail(format!("{shown}: {}", ikigai_fs::os_reason(&e))),
        ),
        Ok(m) if !m.is_dir() => Err(ToolError::invalid_arg(format!("Not a directory: {shown}"))),
        Ok(_) => match std::fs::read_dir(base) {
            Ok(_) => Ok(()),
            Err(e) => Err(
                ToolError::new(ErrorCode::ReadError, "Read error during glob")
                    .with_detail(format!("{shown}: {}", ikigai_fs::os_reason(&e))),
            ),
        },
    }
}
