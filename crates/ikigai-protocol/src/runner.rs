//! The `main` of every tool binary.
//!
//! ```no_run
//! # use ikigai_protocol::{runner::{self, ToolSpec}, Args, ToolContext, ToolError};
//! # use serde_json::Value;
//! # fn run(_: &Args, _: &ToolContext) -> Result<Value, ToolError> { Ok(Value::Null) }
//! # const SPEC: ToolSpec = ToolSpec { binary: "x", schema: "{}", about: "" };
//! fn main() -> std::process::ExitCode {
//!     runner::main(&SPEC, run)
//! }
//! ```

use crate::{Args, ErrorCode, MAX_INPUT_BYTES, Schema, ToolContext, ToolError};
use serde_json::Value;
use std::io::{IsTerminal, Read, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::process::ExitCode;

/// What a tool binary declares about itself.
#[derive(Debug, Clone, Copy)]
pub struct ToolSpec {
    /// The executable's file name (`file-read`).
    pub binary: &'static str,
    /// The exact `--schema` JSON text.
    pub schema: &'static str,
    /// Extra `--help` text: extensions, limits, environment variables.
    pub about: &'static str,
}

/// A tool's library entry point: validated arguments in, result out.
pub type RunFn = fn(&Args, &ToolContext) -> Result<Value, ToolError>;

/// Runs one call from raw stdin bytes to the JSON object to print.
///
/// Never fails and never panics: bad input, tool errors and even a panic in
/// the tool become an error object, so a caller always gets one JSON object.
pub fn execute(spec: &ToolSpec, run: RunFn, input: &[u8], ctx: &ToolContext) -> Value {
    let outcome = catch_unwind(AssertUnwindSafe(|| -> Result<Value, ToolError> {
        let schema = Schema::parse(spec.schema).map_err(|e| {
            ToolError::new(
                ErrorCode::InternalError,
                format!("Internal error: bad schema: {e}"),
            )
        })?;
        let args = schema.parse_args(input)?;
        run(&args, ctx)
    }));
    match outcome {
        Ok(Ok(value)) => value,
        Ok(Err(error)) => error.to_json(),
        Err(payload) => {
            let reason = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_owned());
            ToolError::new(
                ErrorCode::InternalError,
                format!("Internal error in {}: {reason}", spec.binary),
            )
            .to_json()
        }
    }
}

/// The whole `main` of a tool binary.
///
/// `--schema` prints the schema, `--help` and `--version` print text;
/// otherwise stdin is read to EOF (at most [`MAX_INPUT_BYTES`]), the call
/// runs, exactly one JSON object is printed without a trailing newline, and
/// the exit code is 0 whatever the outcome.
pub fn main(spec: &ToolSpec, run: RunFn) -> ExitCode {
    let mut argv = std::env::args_os().skip(1);
    if let Some(flag) = argv.next() {
        return match flag.to_str() {
            Some("--schema") => print_schema(spec),
            Some("--help" | "-h") => {
                print_text(&help_text(spec));
                ExitCode::SUCCESS
            }
            Some("--version" | "-V") => {
                print_text(&format!("{} {}\n", spec.binary, env!("CARGO_PKG_VERSION")));
                ExitCode::SUCCESS
            }
            _ => {
                eprintln!(
                    "{}: unexpected argument {:?}\nUsage: {} [--schema | --help | --version] < ARGS.json",
                    spec.binary, flag, spec.binary
                );
                ExitCode::from(2)
            }
        };
    }
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        eprintln!(
            "{}: reading JSON arguments from stdin (end with Ctrl-D; --help for usage)",
            spec.binary
        );
    }
    let output = match read_input(stdin.lock()) {
        Ok(input) => execute(spec, run, &input, &ToolContext::from_process()),
        Err(error) => error.to_json(),
    };
    write_json(&output);
    ExitCode::SUCCESS
}

fn read_input(reader: impl Read) -> Result<Vec<u8>, ToolError> {
    let mut input = Vec::new();
    let limit = u64::try_from(MAX_INPUT_BYTES)
        .unwrap_or(u64::MAX)
        .saturating_add(1);
    reader
        .take(limit)
        .read_to_end(&mut input)
        .map_err(|e| ToolError::invalid_json(format!("cannot read stdin: {e}")))?;
    if input.len() > MAX_INPUT_BYTES {
        return Err(ToolError::new(
            ErrorCode::InputTooLarge,
            format!("Input too large: more than {MAX_INPUT_BYTES} bytes on stdin"),
        ));
    }
    Ok(input)
}

fn print_schema(spec: &ToolSpec) -> ExitCode {
    match Schema::parse(spec.schema) {
        Ok(schema) => {
            write_json(schema.as_value());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{}: internal error: bad schema: {e}", spec.binary);
            ExitCode::FAILURE
        }
    }
}

fn help_text(spec: &ToolSpec) -> String {
    let (name, description) = Schema::parse(spec.schema)
        .map(|s| (s.name().to_owned(), s.description().to_owned()))
        .unwrap_or_default();
    format!(
        "{binary} - the `{name}` tool: {description}\n\n\
         Usage: {binary} < ARGS.json\n       {binary} --schema | --help | --version\n\n\
         Reads one JSON object of arguments on stdin (to EOF) and writes one JSON\n\
         object on stdout: the result, or {{\"error\": ..., \"error_code\": ...}}.\n\
         Exits 0 in both cases. --schema prints the parameters as JSON.\n\n{about}",
        binary = spec.binary,
        about = spec.about,
    )
}

fn print_text(text: &str) {
    let mut out = std::io::stdout().lock();
    // A closed stdout (e.g. `| head`) is not an error worth reporting.
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

fn write_json(value: &Value) {
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, std::io::stdout().lock());
    let _ = serde_json::to_writer(&mut out, value).map_err(std::io::Error::from);
    let _ = out.flush();
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const SPEC: ToolSpec = ToolSpec {
        binary: "echo",
        schema: r#"{"name":"echo","description":"Echo","parameters":{"type":"object","properties":{"text":{"type":"string","description":"t"}},"required":["text"]}}"#,
        about: "",
    };

    fn echo(args: &Args, _: &ToolContext) -> Result<Value, ToolError> {
        let text = args.required_str("text")?;
        if text == "panic" {
            #[allow(clippy::panic)]
            {
                panic!("boom");
            }
        }
        Ok(json!({ "output": text }))
    }

    #[test]
    fn execute_covers_every_outcome() {
        let ctx = ToolContext::from_process();
        assert_eq!(
            execute(&SPEC, echo, br#"{"text":"hi"}"#, &ctx),
            json!({"output": "hi"})
        );
        assert_eq!(
            execute(&SPEC, echo, b"{}", &ctx),
            json!({"error": "Missing required parameter: text", "error_code": "INVALID_ARG"})
        );
        assert_eq!(
            execute(&SPEC, echo, br#"{"text":"panic"}"#, &ctx),
            json!({"error": "Internal error in echo: boom", "error_code": "INTERNAL_ERROR"})
        );
    }

    #[test]
    fn oversized_input_is_refused() {
        let big = std::io::repeat(b' ').take(MAX_INPUT_BYTES as u64 + 10);
        let err = read_input(big).unwrap_err();
        assert_eq!(err.code, ErrorCode::InputTooLarge);
    }
}
