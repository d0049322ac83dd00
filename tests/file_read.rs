//! The file_read tool: spec semantics of offset and limit, errors, and the
//! hardening (binary content, non-regular files, bounded output).

use crate::util::*;
use serde_json::{Value, json};
use std::fs;
use std::time::{Duration, Instant};

fn read(dir: &std::path::Path, input: Value) -> Value {
    call_in("file-read", dir, &input)
}

#[test]
fn reads_whole_file_exactly() {
    let dir = tempdir();
    fs::write(dir.path().join("hostname"), "myserver.example.com\n").unwrap();
    assert_eq!(
        read(dir.path(), json!({"file_path": "hostname"})),
        json!({"output": "myserver.example.com\n"})
    );
    let abs = dir.path().join("hostname");
    assert_eq!(
        call("file-read", &json!({"file_path": abs})),
        json!({"output": "myserver.example.com\n"})
    );
    fs::write(dir.path().join("crlf"), "a\r\nb\r\n\r\n").unwrap();
    assert_eq!(
        read(dir.path(), json!({"file_path": "crlf"})),
        json!({"output": "a\r\nb\r\n\r\n"})
    );
}

#[test]
fn empty_file() {
    let dir = tempdir();
    fs::write(dir.path().join("empty"), "").unwrap();
    assert_eq!(
        read(dir.path(), json!({"file_path": "empty"})),
        json!({"output": ""})
    );
    assert_eq!(
        read(
            dir.path(),
            json!({"file_path": "empty", "offset": 1, "limit": 5})
        ),
        json!({"output": ""})
    );
}

#[test]
fn offset_and_limit() {
    let dir = tempdir();
    fs::write(dir.path().join("f"), "one\ntwo\nthree\nfour\nfive").unwrap();
    let cases = [
        (json!({"offset": 1}), "one\ntwo\nthree\nfour\nfive"),
        (json!({"offset": 2}), "two\nthree\nfour\nfive"),
        (json!({"offset": 2, "limit": 2}), "two\nthree\n"),
        (json!({"limit": 1}), "one\n"),
        (json!({"offset": 5}), "five"),
        (json!({"offset": 5, "limit": 3}), "five"),
        (json!({"offset": 6}), ""),
        (json!({"offset": 1000, "limit": 1}), ""),
        (json!({"offset": "3", "limit": "1"}), "three\n"),
    ];
    for (mut input, expected) in cases {
        input["file_path"] = json!("f");
        assert_eq!(
            read(dir.path(), input.clone()),
            json!({"output": expected}),
            "{input}"
        );
    }
}

#[test]
fn offset_and_limit_below_one_are_refused() {
    let dir = tempdir();
    fs::write(dir.path().join("f"), "x\n").unwrap();
    for (param, value) in [("offset", 0), ("offset", -3), ("limit", 0), ("limit", -1)] {
        assert_eq!(
            read(dir.path(), json!({"file_path": "f", param: value})),
            json!({"error": format!("Invalid value for parameter {param}: {value} (must be at least 1)"), "error_code": "INVALID_ARG"})
        );
    }
}

#[test]
fn file_not_found() {
    assert_eq!(
        call("file-read", &json!({"file_path": "/path/to/missing.txt"})),
        json!({"error": "File not found: /path/to/missing.txt", "error_code": "FILE_NOT_FOUND"})
    );
}

#[test]
fn permission_denied() {
    let dir = tempdir();
    let path = dir.path().join("secret");
    fs::write(&path, "x").unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&path, fs::Permissions::from_mode(0o000)).unwrap();
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let input = json!({"file_path": path});
    assert_eq!(
        call_unprivileged("file-read", dir.path(), &input),
        json!({"error": format!("Permission denied: {}", path.display()), "error_code": "PERMISSION_DENIED"})
    );
}

#[test]
fn directory_fifo_and_device_are_refused_at_once() {
    let dir = tempdir();
    let fifo = dir.path().join("fifo");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o644)).unwrap();
    let cases = [
        (dir.path().to_path_buf(), "is a directory"),
        (fifo, "is a FIFO (named pipe)"),
        ("/dev/zero".into(), "is a character device"),
        ("/dev/null".into(), "is a character device"),
    ];
    for (path, what) in cases {
        let start = Instant::now();
        let got = call("file-read", &json!({"file_path": path}));
        assert!(start.elapsed() < Duration::from_secs(5));
        let shown = path.display().to_string();
        assert_eq!(
            got,
            json!({"error": format!("Cannot open file: {shown}"), "error_code": "OPEN_FAILED",
                   "detail": format!("{shown} {what}; only regular files can be read")})
        );
    }
}

#[test]
fn follows_symlinks() {
    let dir = tempdir();
    fs::write(dir.path().join("target"), "via link").unwrap();
    std::os::unix::fs::symlink("target", dir.path().join("link")).unwrap();
    assert_eq!(
        read(dir.path(), json!({"file_path": "link"})),
        json!({"output": "via link"})
    );
}

#[test]
fn non_utf8_content_is_lossy_valid_json() {
    let dir = tempdir();
    fs::write(dir.path().join("latin1"), b"caf\xe9\n\xff\xfe\x00end").unwrap();
    assert_eq!(
        read(dir.path(), json!({"file_path": "latin1"})),
        json!({"output": "caf\u{FFFD}\n\u{FFFD}\u{FFFD}\u{0}end"})
    );
}

#[test]
fn ten_mib_binary_file_reads_as_valid_json() {
    let dir = tempdir();
    let data = pseudo_random_bytes(10 * 1024 * 1024, 0x1234_5678_9abc_def1);
    fs::write(dir.path().join("blob.bin"), &data).unwrap();
    let got = read(dir.path(), json!({"file_path": "blob.bin"}));
    assert_eq!(got, json!({"output": String::from_utf8_lossy(&data)}));
}

#[test]
fn output_is_capped_at_a_line_boundary() {
    // 17 MiB of 64-byte lines: the 16 MiB cap ends after line 262,144.
    let dir = tempdir();
    let line = format!("{}\n", "x".repeat(63));
    let lines = 17 * 1024 * 1024 / 64;
    fs::write(dir.path().join("big"), line.repeat(lines)).unwrap();
    let got = read(dir.path(), json!({"file_path": "big"}));
    let kept = 16 * 1024 * 1024 / 64;
    assert_eq!(
        got,
        json!({"output": line.repeat(kept), "truncated": true, "next_offset": kept + 1})
    );
    let got = read(dir.path(), json!({"file_path": "big", "offset": kept + 1}));
    assert_eq!(got, json!({"output": line.repeat(lines - kept)}));
}

#[test]
fn lines_far_into_a_big_file_with_small_memory() {
    // 2,000,000 lines (~27 MB); read 3 lines from line 1,999,990.
    let dir = tempdir();
    let mut text = String::with_capacity(28_000_000);
    for i in 1..=2_000_000 {
        text.push_str(&format!("line {i:07}\n"));
    }
    fs::write(dir.path().join("lines"), &text).unwrap();
    let input = json!({"file_path": "lines", "offset": 1_999_990, "limit": 3});
    let (out, rss_kib) = run_measuring_rss(
        "file-read",
        dir.path(),
        input.to_string().as_bytes(),
        Duration::from_secs(60),
    );
    assert_eq!(
        parse_tool_output(&out),
        json!({"output": "line 1999990\nline 1999991\nline 1999992\n"})
    );
    assert!(rss_kib < 16 * 1024, "peak RSS {rss_kib} KiB");
}
