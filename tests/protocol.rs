//! The stdin/stdout contract every tool shares: `--schema` exactly as the
//! spec prints it, `--help`/`--version`, and one JSON error object (exit 0)
//! for every kind of bad input.

use crate::util::*;
use serde_json::{Value, json};
use std::time::Duration;

/// The `--schema` objects exactly as the spec prints them.
pub const SPEC_SCHEMAS: &[(&str, &str)] = &[
    (
        "bash",
        r#"{"name": "bash", "description": "Execute a shell command and return output",
            "parameters": {"type": "object", "properties": {"command": {"type": "string", "description": "Shell command to execute"}},
            "required": ["command"]}}"#,
    ),
    (
        "file-read",
        r#"{"name": "file_read", "description": "Read contents of a file",
            "parameters": {"type": "object", "properties": {
                "file_path": {"type": "string", "description": "Absolute or relative path to file"},
                "offset": {"type": "integer", "description": "Line number to start reading from (1-based)"},
                "limit": {"type": "integer", "description": "Number of lines to read"}},
            "required": ["file_path"]}}"#,
    ),
    (
        "file-write",
        r#"{"name": "file_write", "description": "Write content to a file (creates or overwrites)",
            "parameters": {"type": "object", "properties": {
                "file_path": {"type": "string", "description": "Absolute or relative path to file"},
                "content": {"type": "string", "description": "Content to write to file"}},
            "required": ["file_path", "content"]}}"#,
    ),
    (
        "file-edit",
        r#"{"name": "file_edit", "description": "Edit a file by replacing exact text matches. You must read the file before editing.",
            "parameters": {"type": "object", "properties": {
                "file_path": {"type": "string", "description": "Absolute or relative path to file"},
                "old_string": {"type": "string", "description": "Exact text to find and replace"},
                "new_string": {"type": "string", "description": "Text to replace old_string with"},
                "replace_all": {"type": "boolean", "description": "Replace all occurrences (default: false, fails if not unique)"}},
            "required": ["file_path", "old_string", "new_string"]}}"#,
    ),
];

/// Tools covered by the generic input tests, with a valid call each.
fn tools() -> Vec<(&'static str, &'static str)> {
    SPEC_SCHEMAS
        .iter()
        .map(|(tool, _)| (*tool, schema_name(tool)))
        .collect()
}

fn schema_name(tool: &str) -> &'static str {
    match tool {
        "bash" => "bash",
        "file-read" => "file_read",
        "file-write" => "file_write",
        "file-edit" => "file_edit",
        _ => unreachable!(),
    }
}

fn run_flag(tool: &str, flag: &str) -> std::process::Output {
    let mut cmd = tool_command(tool, &std::env::temp_dir());
    cmd.arg(flag);
    run_with_input(cmd, b"", Duration::from_secs(10))
}

#[test]
fn schema_is_exactly_the_spec() {
    for (tool, spec) in SPEC_SCHEMAS {
        let out = run_flag(tool, "--schema");
        assert_eq!(out.status.code(), Some(0), "{tool}");
        let printed = String::from_utf8(out.stdout).unwrap();
        // Same keys, values and key order as the spec, compact, no newline.
        let expected: Value = serde_json::from_str(spec).unwrap();
        assert_eq!(printed, serde_json::to_string(&expected).unwrap(), "{tool}");
    }
}

#[test]
fn help_and_version() {
    for (tool, name) in tools() {
        let out = run_flag(tool, "--help");
        assert_eq!(out.status.code(), Some(0));
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.starts_with(&format!("{tool} - the `{name}` tool")),
            "{text}"
        );
        assert!(text.contains("--schema"));
        let out = run_flag(tool, "--version");
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            format!("{tool} {}\n", env!("CARGO_PKG_VERSION"))
        );
        let out = run_flag(tool, "--bogus");
        assert_eq!(out.status.code(), Some(2), "{tool}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("unexpected argument"));
    }
}

fn invalid_json(detail: &str) -> Value {
    json!({"error": "Invalid JSON arguments", "error_code": "INVALID_JSON", "detail": detail})
}

#[test]
fn bad_stdin_gives_one_error_object() {
    let dir = tempdir();
    for (tool, _) in tools() {
        let cases: Vec<(&[u8], Value)> = vec![
            (b"", invalid_json("empty input: expected a JSON object")),
            (
                b" \n\t",
                invalid_json("empty input: expected a JSON object"),
            ),
            (
                b"{not json",
                invalid_json("key must be a string at line 1 column 2"),
            ),
            (
                b"[1, 2]",
                invalid_json("expected a JSON object, got an array"),
            ),
            (
                b"\"text\"",
                invalid_json("expected a JSON object, got string \"text\""),
            ),
            (b"42", invalid_json("expected a JSON object, got number 42")),
            (b"null", invalid_json("expected a JSON object, got null")),
            (
                b"{\"a\": \"\xff\xfe\"}",
                invalid_json("invalid unicode code point at line 1 column 8"),
            ),
            (
                b"{} {}",
                invalid_json("trailing characters at line 1 column 4"),
            ),
        ];
        for (input, expected) in cases {
            let got = call_raw_in(tool, dir.path(), input);
            assert_eq!(
                got,
                expected,
                "{tool} with {:?}",
                String::from_utf8_lossy(input)
            );
        }
    }
}

#[test]
fn unknown_parameter_is_rejected_by_name() {
    let dir = tempdir();
    for (tool, name) in tools() {
        let got = call_in(
            tool,
            dir.path(),
            &json!({"file_path": "x", "command": "true", "timeout": 5}),
        );
        let accepts: Vec<String> = {
            let spec = SPEC_SCHEMAS.iter().find(|(t, _)| *t == tool).unwrap().1;
            let v: Value = serde_json::from_str(spec).unwrap();
            v["parameters"]["properties"]
                .as_object()
                .unwrap()
                .keys()
                .cloned()
                .collect()
        };
        // Keys are checked in input order, so the first unknown one is named.
        let unknown = if tool == "bash" {
            "file_path"
        } else {
            "command"
        };
        assert_eq!(
            got,
            json!({"error": format!("Unknown parameter: {unknown}"), "error_code": "INVALID_ARG",
                   "detail": format!("{name} accepts: {}", accepts.join(", "))}),
            "{tool}"
        );
    }
}

#[test]
fn missing_and_mistyped_parameters() {
    let dir = tempdir();
    let first_required = [
        ("bash", "command"),
        ("file-read", "file_path"),
        ("file-write", "file_path"),
        ("file-edit", "file_path"),
    ];
    for (tool, param) in first_required {
        assert_eq!(
            call_in(tool, dir.path(), &json!({})),
            json!({"error": format!("Missing required parameter: {param}"), "error_code": "INVALID_ARG"}),
            "{tool}"
        );
        assert_eq!(
            call_in(tool, dir.path(), &json!({ param: ["x"] })),
            json!({"error": format!("Invalid type for parameter {param}: expected string, got an array"), "error_code": "INVALID_ARG"}),
            "{tool}"
        );
    }
    assert_eq!(
        call_in("file-write", dir.path(), &json!({"file_path": "a"})),
        json!({"error": "Missing required parameter: content", "error_code": "INVALID_ARG"})
    );
    assert_eq!(
        call_in(
            "file-read",
            dir.path(),
            &json!({"file_path": "a", "offset": "two"})
        ),
        json!({"error": "Invalid type for parameter offset: expected integer, got string \"two\"", "error_code": "INVALID_ARG"})
    );
    assert_eq!(
        call_in(
            "file-edit",
            dir.path(),
            &json!({"file_path": "a", "old_string": "x", "new_string": "y", "replace_all": "yes"})
        ),
        json!({"error": "Invalid type for parameter replace_all: expected boolean, got string \"yes\"", "error_code": "INVALID_ARG"})
    );
}

#[test]
fn empty_path_is_refused() {
    let dir = tempdir();
    for (tool, input) in [
        ("file-read", json!({"file_path": ""})),
        ("file-write", json!({"file_path": "", "content": "x"})),
        (
            "file-edit",
            json!({"file_path": "", "old_string": "a", "new_string": "b"}),
        ),
    ] {
        assert_eq!(
            call_in(tool, dir.path(), &input),
            json!({"error": "Invalid value for parameter file_path: the path is empty", "error_code": "INVALID_ARG"})
        );
    }
}

#[test]
fn huge_stdin_is_refused_without_reading_it_all() {
    // 64 MiB + 1: one byte over the limit.
    let mut input = br#"{"command": ""#.to_vec();
    input.resize(64 * 1024 * 1024 + 1, b'a');
    let out = run_with_input(
        tool_command("bash", &std::env::temp_dir()),
        &input,
        Duration::from_secs(60),
    );
    assert_eq!(
        parse_tool_output(&out),
        json!({"error": "Input too large: more than 67108864 bytes on stdin", "error_code": "INPUT_TOO_LARGE"})
    );
}

#[test]
fn large_valid_values_are_handled() {
    // A 20 MB string value is valid input: the tool answers normally.
    let dir = tempdir();
    let content = "z".repeat(20_000_000);
    let got = call_in(
        "file-write",
        dir.path(),
        &json!({"file_path": "big.txt", "content": content}),
    );
    assert_eq!(
        got,
        json!({"output": "Wrote 20000000 bytes to big.txt", "bytes": 20_000_000})
    );
}
