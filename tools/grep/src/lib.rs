//! The `grep` tool: lines matching a regular expression, searched
//! recursively under a directory with ripgrep's engine.
//!
//! Spec output (`path:line: content`, `count`, `INVALID_PATTERN`), plus
//! what users of ripgrep expect: `.gitignore`/`.ignore` honoured, hidden
//! and binary files skipped (each can be turned off), `**` and brace sets
//! in the `glob` filter, case-insensitive search, three output modes,
//! context lines and a result limit. Results are in a fixed order (the
//! walk, sorted by name) whatever the thread timing: see [`search`].
//! The pattern dialect is described in [`dialect`].

pub mod dialect;
pub mod filter;
pub mod search;

use filter::Filter;
use grep_regex::RegexMatcherBuilder;
use ikigai_protocol::runner::ToolSpec;
use ikigai_protocol::{Args, ErrorCode, ToolContext, ToolError};
use search::{Mode, Options};
use serde_json::{Map, Value};

pub const SCHEMA: &str = r#"{
  "name": "grep",
  "description": "Search for pattern in files using regular expressions",
  "parameters": {
    "type": "object",
    "properties": {
      "pattern": {
        "type": "string",
        "description": "Regular expression pattern (POSIX extended)"
      },
      "glob": {
        "type": "string",
        "description": "Glob pattern to filter files (e.g., '*.c')"
      },
      "path": {
        "type": "string",
        "description": "Directory to search in (default: current directory)"
      },
      "case_insensitive": {
        "type": "boolean",
        "description": "Match letters regardless of case (default: false)"
      },
      "output_mode": {
        "type": "string",
        "enum": ["content", "files_with_matches", "count"],
        "description": "content (default): matching lines as path:line: text; files_with_matches: one path per file; count: path:N per file"
      },
      "before_context": {
        "type": "integer",
        "description": "Lines of context to show before each match (content mode)"
      },
      "after_context": {
        "type": "integer",
        "description": "Lines of context to show after each match (content mode)"
      },
      "context": {
        "type": "integer",
        "description": "Lines of context before and after each match (content mode)"
      },
      "limit": {
        "type": "integer",
        "description": "Maximum number of results (lines, or files in the other modes); stops early and sets \"truncated\": true"
      },
      "include_hidden": {
        "type": "boolean",
        "description": "Also search hidden files and directories (default: false)"
      },
      "include_ignored": {
        "type": "boolean",
        "description": "Also search files excluded by .gitignore and .ignore (default: false)"
      },
      "include_binary": {
        "type": "boolean",
        "description": "Also search binary files, those containing a NUL byte (default: false)"
      }
    },
    "required": ["pattern"]
  }
}"#;

pub const SPEC: ToolSpec = ToolSpec {
    binary: "grep",
    schema: SCHEMA,
    about: "Returns {\"output\": LINES, \"count\": N} with lines path:line: text, searching recursively\n\
            under path (default: .) in name order. Honours .gitignore/.ignore and skips hidden\n\
            and binary files unless asked. No match is {\"output\": \"\", \"count\": 0}; a bad pattern\n\
            is INVALID_PATTERN. Output beyond IKIGAI_GREP_MAX_OUTPUT bytes (default 1048576) or\n\
            past \"limit\" stops early with \"truncated\": true.\n",
};

/// Default output cap in bytes.
pub const DEFAULT_MAX_OUTPUT: usize = 1024 * 1024;

/// Environment variable overriding [`DEFAULT_MAX_OUTPUT`].
pub const MAX_OUTPUT_VAR: &str = "IKIGAI_GREP_MAX_OUTPUT";

pub fn run(args: &Args, ctx: &ToolContext) -> Result<Value, ToolError> {
    let pattern = args.required_str("pattern")?;
    let path = args.str("path").unwrap_or("");
    let mode = match args.one_of("output_mode", &["content", "files_with_matches", "count"])? {
        Some("files_with_matches") => Mode::Files,
        Some("count") => Mode::Count,
        _ => Mode::Content,
    };
    let context = args.int_at_least("context", 0)?;
    let before = args
        .int_at_least("before_context", 0)?
        .or(context)
        .unwrap_or(0);
    let after = args
        .int_at_least("after_context", 0)?
        .or(context)
        .unwrap_or(0);
    let limit = args.int_at_least("limit", 1)?;
    let filter = match args.str("glob").filter(|g| !g.is_empty()) {
        Some(glob) => Some(Filter::new(glob).map_err(|e| {
            ToolError::new(
                ErrorCode::InvalidPattern,
                format!("Invalid glob pattern: {glob}"),
            )
            .with_detail(e.kind().to_string())
        })?),
        None => None,
    };
    let translated = dialect::translate(pattern);
    let matcher = RegexMatcherBuilder::new()
        .case_insensitive(args.bool("case_insensitive").unwrap_or(false))
        .line_terminator(Some(b'\n'))
        .build(&translated)
        .map_err(|e| {
            ToolError::new(
                ErrorCode::InvalidPattern,
                format!(
                    "Invalid pattern: {}",
                    dialect::error_reason(&translated, &e.to_string())
                ),
            )
        })?;
    let root = ctx.resolve_dir(path);
    if std::fs::symlink_metadata(&root).is_err() {
        return Err(ToolError::new(
            ErrorCode::FileNotFound,
            format!(
                "Path not found: {}",
                if path.is_empty() { "." } else { path }
            ),
        ));
    }
    let options = Options {
        mode,
        before: usize::try_from(before).unwrap_or(usize::MAX),
        after: usize::try_from(after).unwrap_or(usize::MAX),
        limit: limit.and_then(|l| u64::try_from(l).ok()),
        max_output: ctx
            .var(MAX_OUTPUT_VAR)
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(DEFAULT_MAX_OUTPUT),
        hidden: args.bool("include_hidden").unwrap_or(false),
        ignored: args.bool("include_ignored").unwrap_or(false),
        binary: args.bool("include_binary").unwrap_or(false),
        filter,
        threads: std::thread::available_parallelism()
            .map_or(2, usize::from)
            .min(8),
    };
    let mut output = search::search(&root, path, &matcher, &options);
    if output.bytes.last() == Some(&b'\n') {
        output.bytes.pop();
    }
    let mut result = Map::new();
    result.insert(
        "output".into(),
        Value::from(ikigai_capture::lossy(output.bytes)),
    );
    result.insert("count".into(), Value::from(output.count));
    if output.truncated {
        result.insert("truncated".into(), Value::Bool(true));
    }
    Ok(Value::Object(result))
}
