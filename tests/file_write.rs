//! The file_write tool: spec results and errors, atomicity, and what an
//! existing file keeps (mode, symlink, hard links).

use crate::util::*;
use serde_json::json;
use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::time::Duration;

#[test]
fn spec_example_and_empty_content() {
    let dir = tempdir();
    let path = dir.path().join("test.txt");
    assert_eq!(
        call(
            "file-write",
            &json!({"file_path": path, "content": "Hello, world!\n"})
        ),
        json!({"output": "Wrote 14 bytes to test.txt", "bytes": 14})
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), "Hello, world!\n");
    assert_eq!(
        call("file-write", &json!({"file_path": path, "content": ""})),
        json!({"output": "Wrote 0 bytes to test.txt", "bytes": 0})
    );
    assert_eq!(fs::read(&path).unwrap(), b"");
}

#[test]
fn relative_paths_and_utf8_byte_counts() {
    let dir = tempdir();
    fs::create_dir(dir.path().join("sub")).unwrap();
    assert_eq!(
        call_in(
            "file-write",
            dir.path(),
            &json!({"file_path": "sub/é.txt", "content": "héllo"})
        ),
        json!({"output": "Wrote 6 bytes to é.txt", "bytes": 6})
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("sub/é.txt")).unwrap(),
        "héllo"
    );
}

#[test]
fn overwrites_existing_file() {
    let dir = tempdir();
    let path = dir.path().join("f");
    fs::write(&path, "a much longer old content\n").unwrap();
    call_in(
        "file-write",
        dir.path(),
        &json!({"file_path": "f", "content": "new"}),
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), "new");
    let names: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec!["f"], "temporary files left behind");
}

#[test]
fn missing_parent_directory() {
    assert_eq!(
        call(
            "file-write",
            &json!({"file_path": "/nonexistent/dir/file.txt", "content": "x"})
        ),
        json!({"error": "Cannot open file: /nonexistent/dir/file.txt", "error_code": "OPEN_FAILED",
               "detail": "the parent directory does not exist"})
    );
}

#[test]
fn directory_target() {
    let dir = tempdir();
    let shown = dir.path().display().to_string();
    assert_eq!(
        call("file-write", &json!({"file_path": shown, "content": "x"})),
        json!({"error": format!("Cannot open file: {shown}"), "error_code": "OPEN_FAILED",
               "detail": format!("{shown} is a directory")})
    );
}

#[test]
fn no_space_left_on_device() {
    assert_eq!(
        call(
            "file-write",
            &json!({"file_path": "/dev/full", "content": "x"})
        ),
        json!({"error": "No space left on device: /dev/full", "error_code": "NO_SPACE"})
    );
}

#[test]
fn permission_denied() {
    let dir = tempdir();
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let locked = dir.path().join("locked");
    fs::create_dir(&locked).unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o555)).unwrap();
    let path = locked.join("new.txt");
    let input = json!({"file_path": path, "content": "x"});
    assert_eq!(
        call_unprivileged("file-write", dir.path(), &input),
        json!({"error": format!("Permission denied: {}", path.display()), "error_code": "PERMISSION_DENIED"})
    );
}

#[test]
fn new_file_gets_default_creation_mode() {
    let dir = tempdir();
    call_in(
        "file-write",
        dir.path(),
        &json!({"file_path": "new", "content": "x"}),
    );
    let mode = fs::metadata(dir.path().join("new")).unwrap().mode() & 0o777;
    assert_eq!(mode, 0o666 & !current_umask());
}

#[test]
fn regression_claude_code_20356_keeps_permission_bits() {
    let dir = tempdir();
    let path = dir.path().join("run.sh");
    fs::write(&path, "#!/bin/sh\n").unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o750)).unwrap();
    call_in(
        "file-write",
        dir.path(),
        &json!({"file_path": "run.sh", "content": "#!/bin/sh\necho hi\n"}),
    );
    assert_eq!(fs::metadata(&path).unwrap().mode() & 0o7777, 0o750);
}

#[test]
fn regression_claude_code_28376_writes_through_symlink() {
    let dir = tempdir();
    fs::create_dir(dir.path().join("real")).unwrap();
    fs::write(dir.path().join("real/config"), "old").unwrap();
    std::os::unix::fs::symlink("real/config", dir.path().join("config")).unwrap();
    call_in(
        "file-write",
        dir.path(),
        &json!({"file_path": "config", "content": "new"}),
    );
    assert!(
        fs::symlink_metadata(dir.path().join("config"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        fs::read_link(dir.path().join("config")).unwrap(),
        std::path::Path::new("real/config")
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("real/config")).unwrap(),
        "new"
    );
}

#[test]
fn regression_claude_code_31290_keeps_hard_links() {
    let dir = tempdir();
    let a = dir.path().join("a");
    let b = dir.path().join("b");
    fs::write(&a, "old").unwrap();
    fs::hard_link(&a, &b).unwrap();
    call_in(
        "file-write",
        dir.path(),
        &json!({"file_path": "a", "content": "new content"}),
    );
    assert_eq!(fs::read_to_string(&b).unwrap(), "new content");
    assert_eq!(
        fs::metadata(&a).unwrap().ino(),
        fs::metadata(&b).unwrap().ino()
    );
    let names = fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(names, 2, "temporary files left behind");
}

#[test]
fn killed_writer_leaves_old_or_new_never_a_mix() {
    use std::io::Write;
    use std::process::Stdio;
    let dir = tempdir();
    let path = dir.path().join("data");
    let old = "o".repeat(1 << 20);
    let new = "n".repeat(24 << 20);
    let input = json!({"file_path": "data", "content": new}).to_string();
    let (mut saw_old, mut saw_new) = (0, 0);
    for round in 0..24u64 {
        fs::write(&path, &old).unwrap();
        let mut child = tool_command("file-write", dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let input = input.clone();
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(input.as_bytes());
        });
        // Spread the kills over parsing, writing and renaming.
        std::thread::sleep(Duration::from_millis(round * 4));
        let _ = child.kill();
        child.wait().unwrap();
        let _ = writer.join();
        let content = fs::read(&path).unwrap();
        if content == old.as_bytes() {
            saw_old += 1;
        } else if content == new.as_bytes() {
            saw_new += 1;
        } else {
            panic!(
                "round {round}: file holds {} bytes of mixed content",
                content.len()
            );
        }
    }
    assert!(
        saw_old > 0,
        "no kill landed before the rename (old {saw_old}, new {saw_new})"
    );
}

#[test]
fn durable_mode_writes_the_same_result() {
    let dir = tempdir();
    std::fs::write(dir.path().join("f"), "old").unwrap();
    let mut cmd = tool_command("file-write", dir.path());
    cmd.env("IKIGAI_FSYNC", "1");
    let out = run_with_input(
        cmd,
        br#"{"file_path": "f", "content": "durable"}"#,
        Duration::from_secs(20),
    );
    assert_eq!(
        parse_tool_output(&out),
        json!({"output": "Wrote 7 bytes to f", "bytes": 7})
    );
    assert_eq!(fs::read_to_string(dir.path().join("f")).unwrap(), "durable");
}
