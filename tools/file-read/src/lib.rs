//! The `file_read` tool: a file's contents, or a range of its lines.
//!
//! [`run`] streams the file: it skips to `offset` by counting newlines in
//! fixed-size blocks and keeps only the requested lines, so memory grows
//! with the range asked for, not with the file. Whatever the bytes, the
//! output is valid JSON (invalid UTF-8 becomes U+FFFD). Only regular files
//! are read: a directory, FIFO or device is refused at once (see
//! [`ikigai_fs::open_regular`]).

use ikigai_fs::open_regular;
use ikigai_protocol::runner::ToolSpec;
use ikigai_protocol::{Args, ErrorCode, ToolContext, ToolError};
use serde_json::{Map, Value};
use std::io::{self, Read};

pub const SCHEMA: &str = r#"{
  "name": "file_read",
  "description": "Read contents of a file",
  "parameters": {
    "type": "object",
    "properties": {
      "file_path": {
        "type": "string",
        "description": "Absolute or relative path to file"
      },
      "offset": {
        "type": "integer",
        "description": "Line number to start reading from (1-based)"
      },
      "limit": {
        "type": "integer",
        "description": "Number of lines to read"
      }
    },
    "required": ["file_path"]
  }
}"#;

pub const SPEC: ToolSpec = ToolSpec {
    binary: "file-read",
    schema: SCHEMA,
    about: "Returns {\"output\": TEXT}. offset is 1-based; offset past the end gives \"\".\n\
            At most 16 MiB of content is returned per call; beyond that the output\n\
            ends at a line boundary and carries \"truncated\": true and \"next_offset\".\n\
            Only regular files are read (directories, FIFOs and devices are refused).\n",
};

/// Most bytes of file content one call returns (documented in
/// docs/tools/file_read.md).
pub const MAX_OUTPUT_BYTES: usize = 16 * 1024 * 1024;

/// Read block size: large enough that counting newlines runs at memory
/// speed, small enough to keep the process's footprint tiny.
const BLOCK: usize = 256 * 1024;

pub fn run(args: &Args, ctx: &ToolContext) -> Result<Value, ToolError> {
    let shown = args.required_path("file_path")?;
    let offset = args.int_at_least("offset", 1)?.unwrap_or(1);
    let limit = args.int_at_least("limit", 1)?;
    let (mut file, _) = open_regular(&ctx.resolve(shown)).map_err(|e| e.to_tool_error(shown))?;
    advise_sequential(&file);
    let read_failed = |e: io::Error| {
        ToolError::new(
            ErrorCode::ReadFailed,
            format!("Failed to read file: {shown}"),
        )
        .with_detail(ikigai_fs::os_reason(&e))
    };
    let range = read_lines(
        &mut file,
        u64::try_from(offset - 1).unwrap_or(0),
        limit.and_then(|l| u64::try_from(l).ok()),
        MAX_OUTPUT_BYTES,
    )
    .map_err(read_failed)?;
    let mut result = Map::new();
    let lines = bytecount::count(&range.bytes, b'\n') as u64;
    result.insert(
        "output".into(),
        Value::from(ikigai_capture::lossy(range.bytes)),
    );
    if range.truncated {
        result.insert("truncated".into(), Value::Bool(true));
        result.insert(
            "next_offset".into(),
            Value::from(offset.saturating_add_unsigned(lines)),
        );
    }
    Ok(Value::Object(result))
}

/// The bytes of a line range.
#[derive(Debug, PartialEq, Eq)]
pub struct LineRange {
    pub bytes: Vec<u8>,
    /// True when the range was cut at `max_bytes`.
    pub truncated: bool,
}

/// Skips `skip` lines, then returns up to `limit` lines (all when `None`),
/// never more than `max_bytes`: a cut falls after the last complete line
/// that fits, or at `max_bytes` when not even one line fits.
pub fn read_lines(
    reader: &mut impl Read,
    mut skip: u64,
    limit: Option<u64>,
    max_bytes: usize,
) -> io::Result<LineRange> {
    let mut block = vec![0u8; BLOCK];
    let mut out = Vec::new();
    let mut remaining = limit;
    loop {
        let n = match reader.read(&mut block) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let mut chunk = &block[..n];
        if skip > 0 {
            let newlines = bytecount::count(chunk, b'\n') as u64;
            if newlines < skip {
                skip -= newlines;
                continue;
            }
            let nth = usize::try_from(skip - 1).unwrap_or(usize::MAX);
            let Some(pos) = memchr::memchr_iter(b'\n', chunk).nth(nth) else {
                continue; // unreachable: the count said it is there
            };
            chunk = &chunk[pos + 1..];
            skip = 0;
        }
        let mut done = false;
        if let Some(left) = remaining.as_mut() {
            let wanted = usize::try_from(*left).unwrap_or(usize::MAX);
            match memchr::memchr_iter(b'\n', chunk).nth(wanted.saturating_sub(1)) {
                Some(pos) => {
                    chunk = &chunk[..=pos];
                    done = true;
                }
                None => *left -= bytecount::count(chunk, b'\n') as u64,
            }
        }
        if out.len() + chunk.len() > max_bytes {
            let room = max_bytes - out.len();
            let cut = match memchr::memrchr(b'\n', &chunk[..room]) {
                Some(pos) => pos + 1,
                None if !out.is_empty() => 0,
                None => room,
            };
            out.extend_from_slice(&chunk[..cut]);
            if cut == 0 {
                // Cut after the previous complete line instead.
                let keep = memchr::memrchr(b'\n', &out).map_or(out.len(), |p| p + 1);
                out.truncate(keep);
            }
            return Ok(LineRange {
                bytes: out,
                truncated: true,
            });
        }
        out.extend_from_slice(chunk);
        if done {
            break;
        }
    }
    Ok(LineRange {
        bytes: out,
        truncated: false,
    })
}

/// Tells the kernel we read front to back, so readahead is generous on a
/// cold cache. Purely advisory.
fn advise_sequential(file: &std::fs::File) {
    use std::os::fd::AsRawFd;
    #[allow(unsafe_code)]
    // SAFETY: posix_fadvise only reads the descriptor number, which `file`
    // keeps open for the duration of the call.
    unsafe {
        libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_SEQUENTIAL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str, skip: u64, limit: Option<u64>, max: usize) -> (String, bool) {
        let r = read_lines(&mut text.as_bytes(), skip, limit, max).unwrap();
        (String::from_utf8(r.bytes).unwrap(), r.truncated)
    }

    #[test]
    fn ranges() {
        let t = "a\nb\nc\n";
        assert_eq!(lines(t, 0, None, 100), (t.into(), false));
        assert_eq!(lines(t, 1, None, 100), ("b\nc\n".into(), false));
        assert_eq!(lines(t, 1, Some(1), 100), ("b\n".into(), false));
        assert_eq!(lines(t, 3, None, 100), ("".into(), false));
        assert_eq!(lines(t, 9, Some(2), 100), ("".into(), false));
        assert_eq!(lines("a\nb", 1, Some(5), 100), ("b".into(), false));
    }

    #[test]
    fn cap_cuts_at_line_boundary() {
        assert_eq!(lines("aa\nbb\ncc\n", 0, None, 7), ("aa\nbb\n".into(), true));
        assert_eq!(lines("aaaaaaaaaa", 0, None, 4), ("aaaa".into(), true));
    }

    #[test]
    fn spans_blocks() {
        let text: String = (0..200_000).map(|i| format!("line {i}\n")).collect();
        let (out, _) = lines(&text, 150_000, Some(2), usize::MAX);
        assert_eq!(out, "line 150000\nline 150001\n");
        let (out, _) = lines(&text, 0, Some(100_000), usize::MAX);
        assert_eq!(out.lines().count(), 100_000);
    }
}
