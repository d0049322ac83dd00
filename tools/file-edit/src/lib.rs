//! The `file_edit` tool: replaces exact text in a file.
//!
//! Matching is on bytes, so every byte outside the replaced span survives:
//! CRLF line endings, a byte-order mark, Latin-1 or Shift-JIS text. The file
//! is streamed twice and never held in memory: the first pass counts the
//! matches (uniqueness is decided before anything is written), the second
//! writes the result through [`ikigai_fs::replace_file`] (atomic, mode,
//! owner and links kept). A single replacement copies the untouched spans
//! with `copy_file_range`, so editing a large file costs about one copy.

use ikigai_fs::{Durability, basename, open_regular, replace_file};
use ikigai_protocol::runner::ToolSpec;
use ikigai_protocol::{Args, ErrorCode, ToolContext, ToolError};
use memchr::memmem::Finder;
use serde_json::{Value, json};
use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};

pub const SCHEMA: &str = r#"{
  "name": "file_edit",
  "description": "Edit a file by replacing exact text matches. You must read the file before editing.",
  "parameters": {
    "type": "object",
    "properties": {
      "file_path": {
        "type": "string",
        "description": "Absolute or relative path to file"
      },
      "old_string": {
        "type": "string",
        "description": "Exact text to find and replace"
      },
      "new_string": {
        "type": "string",
        "description": "Text to replace old_string with"
      },
      "replace_all": {
        "type": "boolean",
        "description": "Replace all occurrences (default: false, fails if not unique)"
      }
    },
    "required": ["file_path", "old_string", "new_string"]
  }
}"#;

pub const SPEC: ToolSpec = ToolSpec {
    binary: "file-edit",
    schema: SCHEMA,
    about: "Returns {\"output\": \"Replaced N occurrence(s) in NAME\", \"replacements\": N}.\n\
            Without replace_all, old_string must occur exactly once. Matching is byte-exact\n\
            (CRLF, BOM and non-UTF-8 bytes elsewhere are kept). Atomic like file-write.\n",
};

/// Block size for both passes.
const BLOCK: usize = 1024 * 1024;

pub fn run(args: &Args, ctx: &ToolContext) -> Result<Value, ToolError> {
    let shown = args.required_path("file_path")?;
    let old = args.required_str("old_string")?;
    let new = args.required_str("new_string")?;
    let replace_all = args.bool("replace_all").unwrap_or(false);
    if old.is_empty() {
        return Err(ToolError::new(
            ErrorCode::InvalidArg,
            "old_string cannot be empty",
        ));
    }
    if old == new {
        return Err(ToolError::new(
            ErrorCode::InvalidArg,
            "old_string and new_string are identical",
        ));
    }
    let (mut file, _) = open_regular(&ctx.resolve(shown)).map_err(|e| e.to_tool_error(shown))?;
    let read_failed = |e: io::Error| {
        ToolError::new(
            ErrorCode::ReadFailed,
            format!("Failed to read file: {shown}"),
        )
        .with_detail(ikigai_fs::os_reason(&e))
    };
    let finder = Finder::new(old.as_bytes());
    let found = scan(&mut file, &finder, None).map_err(read_failed)?;
    match (found.count, replace_all) {
        (0, false) => {
            return Err(ToolError::new(
                ErrorCode::NotFound,
                "String not found in file",
            ));
        }
        (n, false) if n > 1 => {
            return Err(ToolError::new(
                ErrorCode::NotUnique,
                format!("String found {n} times, use replace_all to replace all"),
            ));
        }
        _ => {}
    }
    if found.count > 0 {
        replace_file(
            &ctx.resolve(shown),
            Durability::for_context(ctx),
            |out| match found.first {
                Some(at) if found.count == 1 => {
                    splice(&mut file, out, at, old.len() as u64, new.as_bytes())
                }
                _ => {
                    file.seek(SeekFrom::Start(0))?;
                    let mut out = BufWriter::with_capacity(BLOCK, out);
                    scan(&mut file, &finder, Some((new.as_bytes(), &mut out)))?;
                    out.flush()
                }
            },
        )
        .map_err(|e| e.to_tool_error(shown))?;
    }
    let noun = if found.count == 1 {
        "occurrence"
    } else {
        "occurrences"
    };
    Ok(json!({
        "output": format!("Replaced {} {noun} in {}", found.count, basename(shown)),
        "replacements": found.count,
    }))
}

/// What a scan found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    /// Non-overlapping matches, counted left to right.
    pub count: u64,
    /// Byte offset of the first match.
    pub first: Option<u64>,
}

/// Streams `reader` looking for the finder's needle. With `replace`, also
/// writes the input with every (non-overlapping) match replaced.
///
/// The block buffer keeps the last `needle.len() - 1` bytes of each block so
/// a match spanning two blocks is still found.
pub fn scan(
    reader: &mut impl Read,
    finder: &Finder<'_>,
    mut replace: Option<(&[u8], &mut dyn Write)>,
) -> io::Result<Found> {
    let needle_len = finder.needle().len();
    let keep = needle_len.saturating_sub(1);
    let mut buf: Vec<u8> = Vec::with_capacity(BLOCK + keep);
    let mut buf_start = 0u64; // file offset of buf[0]
    let mut search_from = 0usize; // index in buf where the next match may start
    let mut written = 0usize; // index in buf up to which output was written
    let mut found = Found {
        count: 0,
        first: None,
    };
    loop {
        let filled = buf.len();
        buf.resize(filled + BLOCK, 0);
        let n = loop {
            match reader.read(&mut buf[filled..]) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                other => break other?,
            }
        };
        buf.truncate(filled + n);
        let eof = n == 0;
        let mut at = search_from;
        while let Some(i) = finder.find(&buf[at..]) {
            let start = at + i;
            found.count += 1;
            found.first.get_or_insert(buf_start + start as u64);
            if let Some((new, out)) = replace.as_mut() {
                out.write_all(&buf[written..start])?;
                out.write_all(new)?;
                written = start + needle_len;
            }
            at = start + needle_len;
        }
        if eof {
            if let Some((_, out)) = replace.as_mut() {
                out.write_all(&buf[written.min(buf.len())..])?;
            }
            return Ok(found);
        }
        // Keep the tail that could begin a match spanning into the next block.
        let cut = buf.len().saturating_sub(keep).max(at.min(buf.len()));
        if let Some((_, out)) = replace.as_mut()
            && written < cut
        {
            out.write_all(&buf[written..cut])?;
            written = cut;
        }
        buf.drain(..cut);
        buf_start += cut as u64;
        search_from = at.saturating_sub(cut);
        written -= cut.min(written);
    }
}

/// Writes `src` with `len` bytes at `at` replaced by `new`, copying the
/// untouched spans file-to-file (the kernel's `copy_file_range` when both
/// ends are files on one filesystem).
fn splice(src: &mut File, out: &mut File, at: u64, len: u64, new: &[u8]) -> io::Result<()> {
    src.seek(SeekFrom::Start(0))?;
    let copied = io::copy(&mut Read::by_ref(src).take(at), out)?;
    if copied != at {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "file shrank during edit",
        ));
    }
    out.write_all(new)?;
    src.seek(SeekFrom::Start(at + len))?;
    io::copy(src, out)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replace_all(input: &[u8], old: &str, new: &str) -> (Vec<u8>, Found) {
        let finder = Finder::new(old.as_bytes());
        let mut out = Vec::new();
        let found = scan(&mut &input[..], &finder, Some((new.as_bytes(), &mut out))).unwrap();
        (out, found)
    }

    #[test]
    fn counts_non_overlapping() {
        let (out, found) = replace_all(b"aaaa", "aa", "b");
        assert_eq!((out.as_slice(), found.count), (&b"bb"[..], 2));
        let (out, found) = replace_all(b"aaa", "aa", "b");
        assert_eq!(
            (out.as_slice(), found.count, found.first),
            (&b"ba"[..], 1, Some(0))
        );
    }

    #[test]
    fn matches_across_block_boundaries() {
        let mut input = vec![b'x'; BLOCK - 2];
        input.extend_from_slice(b"NEEDLE");
        input.extend(vec![b'y'; BLOCK]);
        input.extend_from_slice(b"NEEDLE");
        let (out, found) = replace_all(&input, "NEEDLE", "n");
        assert_eq!(found.count, 2);
        assert_eq!(found.first, Some(BLOCK as u64 - 2));
        assert_eq!(out.len(), input.len() - 10);
        let mut expected = vec![b'x'; BLOCK - 2];
        expected.push(b'n');
        expected.extend(vec![b'y'; BLOCK]);
        expected.push(b'n');
        assert_eq!(out, expected);
    }

    #[test]
    fn keeps_foreign_bytes() {
        let input = b"\xEF\xBB\xBFcaf\xE9 = 1\r\nx = 2\r\n";
        let (out, _) = replace_all(input, "x = 2", "x = 3");
        assert_eq!(out, b"\xEF\xBB\xBFcaf\xE9 = 1\r\nx = 3\r\n");
    }

    #[test]
    fn long_needle_longer_than_a_block() {
        let needle = "z".repeat(BLOCK + 5);
        let mut input = b"ab".to_vec();
        input.extend_from_slice(needle.as_bytes());
        input.extend_from_slice(b"cd");
        let (out, found) = replace_all(&input, &needle, "-");
        assert_eq!((out.as_slice(), found.count), (&b"ab-cd"[..], 1));
    }
}
