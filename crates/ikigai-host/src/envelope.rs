//! Turning how a tool process ended into the spec's envelope.

use crate::process::{Ending, Finished, signal_name};
use ikigai_capture::HeadTail;
use ikigai_protocol::{Envelope, ErrorCode, Failure};
use serde_json::Value;
use std::os::unix::process::ExitStatusExt;
use std::time::Duration;

/// Bytes of stdout and of stderr kept at each end in a failure envelope.
pub const EXCERPT: usize = 2048;

/// The envelope for a finished tool process.
pub fn from_finished(
    name: &str,
    finished: Finished,
    timeout: Duration,
    stdout_cap: usize,
) -> Envelope {
    let exit_code = finished.exit_code();
    let fail = |code: ErrorCode, error: String, finished: &Finished| {
        Envelope::Failure(Failure {
            error,
            error_code: code,
            exit_code: Some(exit_code),
            stdout: excerpt(&finished.stdout),
            stderr: finished.stderr.render().text,
        })
    };
    match finished.ending {
        Ending::TimedOut => {
            return fail(
                ErrorCode::ToolTimeout,
                format!("Tool '{name}' timed out after {}", seconds(timeout)),
                &finished,
            );
        }
        Ending::OutputTooLarge => {
            return fail(
                ErrorCode::OutputTooLarge,
                format!(
                    "Tool '{name}' wrote more than {stdout_cap} bytes to stdout and was killed"
                ),
                &finished,
            );
        }
        Ending::Cancelled => {
            return fail(
                ErrorCode::Cancelled,
                format!("Tool '{name}' call was cancelled"),
                &finished,
            );
        }
        Ending::Exited => {}
    }
    if let Some(signal) = finished.status.signal() {
        let what = signal_name(signal).map_or_else(
            || format!("signal {signal}"),
            |n| format!("signal {signal}, {n}"),
        );
        return fail(
            ErrorCode::ToolCrashed,
            format!("Tool '{name}' crashed with exit code {exit_code} (killed by {what})"),
            &finished,
        );
    }
    if exit_code != 0 {
        return fail(
            ErrorCode::ToolCrashed,
            format!("Tool '{name}' crashed with exit code {exit_code}"),
            &finished,
        );
    }
    match parse_output(&finished.stdout) {
        Ok(value) => Envelope::Success(value),
        Err(reason) => fail(
            ErrorCode::InvalidOutput,
            format!("Tool '{name}' returned invalid output: {reason}"),
            &finished,
        ),
    }
}

/// Exactly one JSON object, optionally surrounded by whitespace.
pub fn parse_output(stdout: &[u8]) -> Result<Value, String> {
    if stdout.iter().all(u8::is_ascii_whitespace) {
        return Err("no output".into());
    }
    let mut stream = serde_json::Deserializer::from_slice(stdout).into_iter::<Value>();
    let value = match stream.next() {
        Some(Ok(value)) => value,
        Some(Err(e)) => return Err(format!("not valid JSON ({e})")),
        None => return Err("no output".into()),
    };
    if !value.is_object() {
        return Err("expected a JSON object".into());
    }
    let rest = &stdout[stream.byte_offset()..];
    if !rest.iter().all(u8::is_ascii_whitespace) {
        return Err("unexpected data after the JSON object".into());
    }
    Ok(value)
}

/// Head and tail of a byte stream as text, for a failure envelope.
pub fn excerpt(bytes: &[u8]) -> String {
    let mut capture = HeadTail::new(EXCERPT, EXCERPT);
    capture.push(bytes);
    capture.render().text
}

/// `30 s`, `2.5 s`, `0.2 s`.
pub fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        let text = format!("{s:.3}");
        format!("{} s", text.trim_end_matches('0').trim_end_matches('.'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_parsing() {
        assert!(parse_output(b"{\"a\":1}").is_ok());
        assert!(parse_output(b" {\"a\":1}\n").is_ok());
        assert_eq!(parse_output(b""), Err("no output".into()));
        assert_eq!(parse_output(b"[1]"), Err("expected a JSON object".into()));
        assert_eq!(
            parse_output(b"{} {}"),
            Err("unexpected data after the JSON object".into())
        );
        assert!(
            parse_output(b"{")
                .unwrap_err()
                .starts_with("not valid JSON")
        );
    }

    #[test]
    fn formats_seconds() {
        assert_eq!(seconds(Duration::from_secs(30)), "30 s");
        assert_eq!(seconds(Duration::from_millis(2500)), "2.5 s");
        assert_eq!(seconds(Duration::from_millis(200)), "0.2 s");
    }
}
