//! The file_edit tool: spec messages, byte-exact replacement, and what the
//! file keeps (mode, symlink, hard links, foreign bytes).

use crate::util::*;
use serde_json::{Value, json};
use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::time::Duration;

fn edit(dir: &std::path::Path, input: Value) -> Value {
    call_in("file-edit", dir, &input)
}

#[test]
fn spec_example() {
    let dir = tempdir();
    let path = dir.path().join("config.txt");
    fs::write(&path, "name = x\ndebug = false\n").unwrap();
    assert_eq!(
        call(
            "file-edit",
            &json!({"file_path": path, "old_string": "debug = false", "new_string": "debug = true"})
        ),
        json!({"output": "Replaced 1 occurrence in config.txt", "replacements": 1})
    );
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        "name = x\ndebug = true\n"
    );
}

#[test]
fn uniqueness_and_replace_all() {
    let dir = tempdir();
    let path = dir.path().join("f");
    fs::write(&path, "x x x").unwrap();
    assert_eq!(
        edit(
            dir.path(),
            json!({"file_path": "f", "old_string": "x", "new_string": "y"})
        ),
        json!({"error": "String found 3 times, use replace_all to replace all", "error_code": "NOT_UNIQUE"})
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), "x x x");
    assert_eq!(
        edit(
            dir.path(),
            json!({"file_path": "f", "old_string": "x", "new_string": "yy", "replace_all": true})
        ),
        json!({"output": "Replaced 3 occurrences in f", "replacements": 3})
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), "yy yy yy");
    assert_eq!(
        edit(
            dir.path(),
            json!({"file_path": "f", "old_string": "yy ", "new_string": "", "replace_all": "true"})
        ),
        json!({"output": "Replaced 2 occurrences in f", "replacements": 2})
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), "yy");
}

#[test]
fn not_found_and_replace_all_of_nothing() {
    let dir = tempdir();
    let path = dir.path().join("f");
    fs::write(&path, "abc").unwrap();
    assert_eq!(
        edit(
            dir.path(),
            json!({"file_path": "f", "old_string": "zzz", "new_string": "y"})
        ),
        json!({"error": "String not found in file", "error_code": "NOT_FOUND"})
    );
    let before = fs::metadata(&path).unwrap();
    assert_eq!(
        edit(
            dir.path(),
            json!({"file_path": "f", "old_string": "zzz", "new_string": "y", "replace_all": true})
        ),
        json!({"output": "Replaced 0 occurrences in f", "replacements": 0})
    );
    let after = fs::metadata(&path).unwrap();
    assert_eq!(
        (before.ino(), before.mtime_nsec()),
        (after.ino(), after.mtime_nsec()),
        "file was rewritten"
    );
}

#[test]
fn argument_errors() {
    let dir = tempdir();
    fs::write(dir.path().join("f"), "abc").unwrap();
    assert_eq!(
        edit(
            dir.path(),
            json!({"file_path": "f", "old_string": "a", "new_string": "a"})
        ),
        json!({"error": "old_string and new_string are identical", "error_code": "INVALID_ARG"})
    );
    assert_eq!(
        edit(
            dir.path(),
            json!({"file_path": "f", "old_string": "", "new_string": "a"})
        ),
        json!({"error": "old_string cannot be empty", "error_code": "INVALID_ARG"})
    );
    assert_eq!(
        edit(
            dir.path(),
            json!({"file_path": "f", "old_string": "", "new_string": ""})
        ),
        json!({"error": "old_string cannot be empty", "error_code": "INVALID_ARG"})
    );
}

#[test]
fn file_errors() {
    assert_eq!(
        call(
            "file-edit",
            &json!({"file_path": "/path/to/missing.txt", "old_string": "a", "new_string": "b"})
        ),
        json!({"error": "File not found: /path/to/missing.txt", "error_code": "FILE_NOT_FOUND"})
    );
    let dir = tempdir();
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let path = dir.path().join("ro");
    fs::write(&path, "abc").unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o000)).unwrap();
    let input = json!({"file_path": path, "old_string": "a", "new_string": "b"});
    assert_eq!(
        call_unprivileged("file-edit", dir.path(), &input),
        json!({"error": format!("Permission denied: {}", path.display()), "error_code": "PERMISSION_DENIED"})
    );
}

#[test]
fn multi_line_and_deleting_edits() {
    let dir = tempdir();
    let path = dir.path().join("f.rs");
    fs::write(&path, "fn a() {\n    1\n}\n\nfn b() {}\n").unwrap();
    edit(
        dir.path(),
        json!({"file_path": "f.rs", "old_string": "fn a() {\n    1\n}\n\n", "new_string": ""}),
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), "fn b() {}\n");
}

#[test]
fn regression_codex_4003_crlf_endings_are_kept() {
    let dir = tempdir();
    let path = dir.path().join("win.txt");
    fs::write(&path, b"first\r\nsecond\r\nthird\r\n").unwrap();
    edit(
        dir.path(),
        json!({"file_path": "win.txt", "old_string": "second", "new_string": "2nd"}),
    );
    assert_eq!(fs::read(&path).unwrap(), b"first\r\n2nd\r\nthird\r\n");
}

#[test]
fn regression_claude_code_85842_latin1_and_bom_bytes_are_kept() {
    // An ASCII edit must not touch Latin-1, Shift-JIS or BOM bytes elsewhere.
    let dir = tempdir();
    let path = dir.path().join("legacy.txt");
    let before = b"\xEF\xBB\xBFcaf\xE9 cr\xE8me\n\x82\xA0\x82\xA2 version = 1\n\xFF\xFE end\n";
    fs::write(&path, before).unwrap();
    assert_eq!(
        edit(
            dir.path(),
            json!({"file_path": "legacy.txt", "old_string": "version = 1", "new_string": "version = 2"})
        ),
        json!({"output": "Replaced 1 occurrence in legacy.txt", "replacements": 1})
    );
    let after = b"\xEF\xBB\xBFcaf\xE9 cr\xE8me\n\x82\xA0\x82\xA2 version = 2\n\xFF\xFE end\n";
    assert_eq!(fs::read(&path).unwrap(), after);
}

#[test]
fn regression_codex_21164_non_utf8_file_can_be_edited() {
    let dir = tempdir();
    let path = dir.path().join("bin");
    fs::write(&path, b"\x00\x01\xFFkey=old\xFF\x00").unwrap();
    edit(
        dir.path(),
        json!({"file_path": "bin", "old_string": "key=old", "new_string": "key=new"}),
    );
    assert_eq!(fs::read(&path).unwrap(), b"\x00\x01\xFFkey=new\xFF\x00");
}

#[test]
fn regression_claude_code_20356_keeps_executable_bit() {
    let dir = tempdir();
    let path = dir.path().join("run.sh");
    fs::write(&path, "#!/bin/sh\necho old\n").unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
    edit(
        dir.path(),
        json!({"file_path": "run.sh", "old_string": "old", "new_string": "new"}),
    );
    assert_eq!(fs::metadata(&path).unwrap().mode() & 0o7777, 0o755);
    assert_eq!(fs::read_to_string(&path).unwrap(), "#!/bin/sh\necho new\n");
}

#[test]
fn regression_claude_code_28376_and_31290_links_are_kept() {
    let dir = tempdir();
    fs::write(dir.path().join("real"), "value = 1\n").unwrap();
    std::os::unix::fs::symlink("real", dir.path().join("link")).unwrap();
    fs::hard_link(dir.path().join("real"), dir.path().join("hard")).unwrap();
    edit(
        dir.path(),
        json!({"file_path": "link", "old_string": "1", "new_string": "2"}),
    );
    assert!(
        fs::symlink_metadata(dir.path().join("link"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("real")).unwrap(),
        "value = 2\n"
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("hard")).unwrap(),
        "value = 2\n"
    );
}

#[test]
fn large_file_is_streamed_with_small_memory() {
    // 96 MB: far more than the tool may hold. One match near the end.
    let dir = tempdir();
    let path = dir.path().join("big.log");
    {
        use std::io::Write;
        let mut f = std::io::BufWriter::new(fs::File::create(&path).unwrap());
        let line = format!("{}\n", "l".repeat(99));
        for _ in 0..960_000 {
            f.write_all(line.as_bytes()).unwrap();
        }
        f.write_all(b"THE NEEDLE\n").unwrap();
        for _ in 0..1000 {
            f.write_all(line.as_bytes()).unwrap();
        }
    }
    let input =
        json!({"file_path": "big.log", "old_string": "THE NEEDLE", "new_string": "the thread"});
    let (out, rss_kib) = run_measuring_rss(
        "file-edit",
        dir.path(),
        input.to_string().as_bytes(),
        Duration::from_secs(120),
    );
    assert_eq!(
        parse_tool_output(&out),
        json!({"output": "Replaced 1 occurrence in big.log", "replacements": 1})
    );
    assert!(rss_kib < 64 * 1024, "peak RSS {rss_kib} KiB");
    let content = fs::read(&path).unwrap();
    assert_eq!(content.len(), 961_000 * 100 + 11);
    assert_eq!(&content[96_000_000..96_000_011], b"the thread\n");
}
