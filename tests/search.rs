//! The glob and grep tools: spec examples and formats, `**` and brace sets,
//! ignore rules, hidden and binary files, limits, the regex dialect, and
//! awkward trees (symlink loops, non-UTF-8 names, unreadable directories).

use crate::util::*;
use serde_json::{Value, json};
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

/// Creates files (parents included) under `root`.
fn tree(root: &Path, files: &[(&str, &str)]) {
    for (path, content) in files {
        let p = root.join(path);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, content).unwrap();
    }
}

fn glob_in(dir: &Path, input: Value) -> Value {
    call_in("glob", dir, &input)
}

fn grep_in(dir: &Path, input: Value) -> Value {
    call_in("grep", dir, &input)
}

fn found(paths: &[&str]) -> Value {
    json!({"output": paths.join("\n"), "count": paths.len()})
}

// ---------------------------------------------------------------- glob

#[test]
fn glob_spec_example() {
    let dir = tempdir();
    tree(
        dir.path(),
        &[
            ("file1.txt", ""),
            ("file2.txt", ""),
            ("notes.txt", ""),
            ("other.md", ""),
        ],
    );
    let base = dir.path().display().to_string();
    assert_eq!(
        call("glob", &json!({"pattern": "*.txt", "path": base})),
        json!({"output": format!("{base}/file1.txt\n{base}/file2.txt\n{base}/notes.txt"), "count": 3})
    );
    // A trailing slash on the path does not double it.
    assert_eq!(
        call(
            "glob",
            &json!({"pattern": "*.md", "path": format!("{base}/")})
        ),
        json!({"output": format!("{base}/other.md"), "count": 1})
    );
}

#[test]
fn glob_no_match_single_match_and_literals() {
    let dir = tempdir();
    tree(dir.path(), &[("a.txt", ""), ("sub/b.txt", "")]);
    assert_eq!(
        glob_in(dir.path(), json!({"pattern": "*.rs"})),
        json!({"output": "", "count": 0})
    );
    assert_eq!(
        glob_in(dir.path(), json!({"pattern": "*.txt"})),
        found(&["a.txt"])
    );
    assert_eq!(
        glob_in(dir.path(), json!({"pattern": "sub/b.txt"})),
        found(&["sub/b.txt"])
    );
    assert_eq!(
        glob_in(dir.path(), json!({"pattern": "sub/missing.txt"})),
        found(&[])
    );
    assert_eq!(
        glob_in(dir.path(), json!({"pattern": "*/*.txt"})),
        found(&["sub/b.txt"])
    );
    assert_eq!(
        glob_in(dir.path(), json!({"pattern": "*.txt", "path": ""})),
        found(&["a.txt"])
    );
    assert_eq!(
        glob_in(dir.path(), json!({"pattern": "*.txt", "path": "sub"})),
        found(&["sub/b.txt"])
    );
    assert_eq!(
        glob_in(dir.path(), json!({"pattern": "*.txt", "path": "."})),
        found(&["./a.txt"])
    );
}

#[test]
fn glob_wildcards_and_order() {
    let dir = tempdir();
    tree(
        dir.path(),
        &[
            ("b1", ""),
            ("a2", ""),
            ("a1", ""),
            ("c10", ""),
            ("B", ""),
            ("ab", ""),
        ],
    );
    assert_eq!(
        glob_in(dir.path(), json!({"pattern": "*"})),
        found(&["B", "a1", "a2", "ab", "b1", "c10"])
    );
    assert_eq!(
        glob_in(dir.path(), json!({"pattern": "a?"})),
        found(&["a1", "a2", "ab"])
    );
    assert_eq!(
        glob_in(dir.path(), json!({"pattern": "[ab]1"})),
        found(&["a1", "b1"])
    );
    assert_eq!(
        glob_in(dir.path(), json!({"pattern": "[a-b][0-9]"})),
        found(&["a1", "a2", "b1"])
    );
    assert_eq!(
        glob_in(dir.path(), json!({"pattern": "a[!1]"})),
        found(&["a2", "ab"])
    );
}

#[test]
fn glob_leading_dot_only_matches_explicitly() {
    let dir = tempdir();
    tree(
        dir.path(),
        &[
            (".env", ""),
            ("visible", ""),
            (".hidden/x.txt", ""),
            ("d/.secret.txt", ""),
            ("d/y.txt", ""),
        ],
    );
    assert_eq!(
        glob_in(dir.path(), json!({"pattern": "*"})),
        found(&["d", "visible"])
    );
    assert_eq!(glob_in(dir.path(), json!({"pattern": "?env"})), found(&[]));
    assert_eq!(
        glob_in(dir.path(), json!({"pattern": ".*"})),
        found(&[".env", ".hidden"])
    );
    assert_eq!(
        glob_in(dir.path(), json!({"pattern": "**/*.txt"})),
        found(&["d/y.txt"])
    );
    assert_eq!(
        glob_in(dir.path(), json!({"pattern": ".hidden/*.txt"})),
        found(&[".hidden/x.txt"])
    );
    assert_eq!(
        glob_in(dir.path(), json!({"pattern": "**/.secret.txt"})),
        found(&["d/.secret.txt"])
    );
}

#[test]
fn glob_double_star_at_start_middle_and_end() {
    let dir = tempdir();
    tree(
        dir.path(),
        &[
            ("main.rs", ""),
            ("src/lib.rs", ""),
            ("src/a/b/deep.rs", ""),
            ("src/a/notes.md", ""),
            ("tests/t.rs", ""),
        ],
    );
    assert_eq!(
        glob_in(dir.path(), json!({"pattern": "**/*.rs"})),
        found(&["main.rs", "src/a/b/deep.rs", "src/lib.rs", "tests/t.rs"])
    );
    assert_eq!(
        glob_in(dir.path(), json!({"pattern": "src/**/*.rs"})),
        found(&["src/a/b/deep.rs", "src/lib.rs"])
    );
    assert_eq!(
        glob_in(dir.path(), json!({"pattern": "src/**"})),
        found(&[
            "src/a",
            "src/a/b",
            "src/a/b/deep.rs",
            "src/a/notes.md",
            "src/lib.rs"
        ])
    );
    assert_eq!(
        glob_in(dir.path(), json!({"pattern": "**/b/*.rs"})),
        found(&["src/a/b/deep.rs"])
    );
    assert_eq!(
        glob_in(dir.path(), json!({"pattern": "src/**/**/deep.rs"})),
        found(&["src/a/b/deep.rs"])
    );
}

#[test]
fn glob_brace_sets() {
    let dir = tempdir();
    tree(
        dir.path(),
        &[
            ("Cargo.toml", ""),
            ("main.rs", ""),
            ("x.md", ""),
            ("src/a.rs", ""),
            ("tests/b.rs", ""),
            ("docs/c.rs", ""),
        ],
    );
    assert_eq!(
        glob_in(dir.path(), json!({"pattern": "*.{rs,toml}"})),
        found(&["Cargo.toml", "main.rs"])
    );
    assert_eq!(
        glob_in(dir.path(), json!({"pattern": "{src,tests}/**/*.rs"})),
        found(&["src/a.rs", "tests/b.rs"])
    );
    assert_eq!(
        glob_in(dir.path(), json!({"pattern": "{*.rs,main.rs}"})),
        found(&["main.rs"])
    );
}

#[test]
fn glob_symlink_loop_terminates() {
    let dir = tempdir();
    tree(dir.path(), &[("d/f.txt", "")]);
    std::os::unix::fs::symlink(".", dir.path().join("d/loop")).unwrap();
    std::os::unix::fs::symlink("loop2", dir.path().join("d/loop1")).unwrap();
    std::os::unix::fs::symlink("loop1", dir.path().join("d/loop2")).unwrap();
    let start = Instant::now();
    assert_eq!(
        glob_in(dir.path(), json!({"pattern": "**/*"})),
        found(&["d", "d/f.txt", "d/loop", "d/loop1", "d/loop2"])
    );
    assert!(start.elapsed() < Duration::from_secs(5));
    // An explicit component does follow a link (finitely).
    assert_eq!(
        glob_in(dir.path(), json!({"pattern": "d/loop/*.txt"})),
        found(&["d/loop/f.txt"])
    );
}

#[test]
fn glob_non_utf8_names_give_valid_json() {
    let dir = tempdir();
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.txt");
    fs::write(dir.path().join(name), "").unwrap();
    assert_eq!(
        glob_in(dir.path(), json!({"pattern": "*.txt"})),
        found(&["caf\u{FFFD}.txt"])
    );
}

#[test]
fn glob_path_errors() {
    let dir = tempdir();
    tree(dir.path(), &[("file", "")]);
    assert_eq!(
        glob_in(dir.path(), json!({"pattern": "*", "path": "missing"})),
        json!({"error": "Path not found: missing", "error_code": "FILE_NOT_FOUND"})
    );
    assert_eq!(
        glob_in(dir.path(), json!({"pattern": "*", "path": "file"})),
        json!({"error": "Not a directory: file", "error_code": "INVALID_ARG"})
    );
}

#[test]
fn glob_unreadable_directories() {
    let dir = tempdir();
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
    tree(dir.path(), &[("open/a.txt", ""), ("closed/b.txt", "")]);
    fs::set_permissions(dir.path().join("closed"), fs::Permissions::from_mode(0o000)).unwrap();
    let run = |input: Value| call_unprivileged("glob", dir.path(), &input);
    // Skipped inside the walk, as glob(3) does without GLOB_ERR.
    assert_eq!(run(json!({"pattern": "**/*.txt"})), found(&["open/a.txt"]));
    // The directory asked for is unreadable: the spec's READ_ERROR.
    assert_eq!(
        run(json!({"pattern": "*", "path": "closed"})),
        json!({"error": "Read error during glob", "error_code": "READ_ERROR", "detail": "closed: Permission denied"})
    );
}

#[test]
fn glob_invalid_patterns() {
    let dir = tempdir();
    for (pattern, detail) in [
        ("[abc", "unclosed character class; missing ']'"),
        ("{a,b", "unmatched `{` in brace set"),
        ("", "the pattern is empty"),
    ] {
        assert_eq!(
            glob_in(dir.path(), json!({"pattern": pattern})),
            json!({"error": "Invalid glob pattern", "error_code": "INVALID_PATTERN", "detail": detail}),
            "{pattern}"
        );
    }
}

#[test]
fn glob_limit_and_modified_order() {
    let dir = tempdir();
    tree(dir.path(), &[("a", ""), ("b", ""), ("c", ""), ("d", "")]);
    let base = std::time::SystemTime::now() - Duration::from_secs(1000);
    for (name, age) in [("a", 30), ("b", 10), ("c", 20), ("d", 40)] {
        let f = fs::File::options()
            .write(true)
            .open(dir.path().join(name))
            .unwrap();
        f.set_modified(base - Duration::from_secs(age)).unwrap();
    }
    assert_eq!(
        glob_in(dir.path(), json!({"pattern": "*", "limit": 2})),
        json!({"output": "a\nb", "count": 2, "truncated": true})
    );
    assert_eq!(
        glob_in(dir.path(), json!({"pattern": "*", "limit": 4})),
        found(&["a", "b", "c", "d"])
    );
    assert_eq!(
        glob_in(dir.path(), json!({"pattern": "*", "sort": "modified"})),
        found(&["b", "c", "a", "d"])
    );
    assert_eq!(
        glob_in(
            dir.path(),
            json!({"pattern": "*", "sort": "modified", "limit": "1"})
        ),
        json!({"output": "b", "count": 1, "truncated": true})
    );
    assert_eq!(
        glob_in(dir.path(), json!({"pattern": "*", "sort": "size"})),
        json!({"error": "Invalid value for parameter sort: size (expected one of: name, modified)", "error_code": "INVALID_ARG"})
    );
}

#[test]
fn glob_absolute_pattern() {
    let dir = tempdir();
    tree(dir.path(), &[("x.conf", "")]);
    let pattern = format!("{}/*.conf", dir.path().display());
    assert_eq!(
        call(
            "glob",
            &json!({"pattern": pattern, "path": "/nonexistent-is-ignored-for-absolute"})
        ),
        json!({"error": "Path not found: /nonexistent-is-ignored-for-absolute", "error_code": "FILE_NOT_FOUND"})
    );
    assert_eq!(
        call("glob", &json!({"pattern": pattern})),
        found(&[&format!("{}/x.conf", dir.path().display())])
    );
}

// ---------------------------------------------------------------- grep

#[test]
fn grep_spec_example() {
    let dir = tempdir();
    let mut main_c: Vec<String> = (1..=41).map(|i| format!("int line{i};")).collect();
    main_c.push("// TODO: implement error handling".into());
    let mut util_c: Vec<String> = (1..=14).map(|i| format!("int u{i};")).collect();
    util_c.push("// TODO: optimize this".into());
    tree(
        dir.path(),
        &[
            ("src/main.c", &main_c.join("\n")),
            ("src/util.c", &util_c.join("\n")),
            ("src/notes.txt", "TODO: not a C file"),
        ],
    );
    assert_eq!(
        grep_in(
            dir.path(),
            json!({"pattern": "TODO", "glob": "*.c", "path": "src"})
        ),
        json!({"output": "src/main.c:42: // TODO: implement error handling\nsrc/util.c:15: // TODO: optimize this", "count": 2})
    );
}

#[test]
fn grep_no_match_and_invalid_pattern() {
    let dir = tempdir();
    tree(dir.path(), &[("a.txt", "hello")]);
    assert_eq!(
        grep_in(dir.path(), json!({"pattern": "absent"})),
        json!({"output": "", "count": 0})
    );
    assert_eq!(
        grep_in(dir.path(), json!({"pattern": "(abc"})),
        json!({"error": "Invalid pattern: Unmatched ( or \\(", "error_code": "INVALID_PATTERN"})
    );
    assert_eq!(
        grep_in(dir.path(), json!({"pattern": "x", "glob": "[a"})),
        json!({"error": "Invalid glob pattern: [a", "error_code": "INVALID_PATTERN", "detail": "unclosed character class; missing ']'"})
    );
}

#[test]
fn grep_paths_are_shown_as_given() {
    let dir = tempdir();
    tree(dir.path(), &[("a.txt", "hit"), ("sub/b.txt", "hit")]);
    assert_eq!(
        grep_in(dir.path(), json!({"pattern": "hit"}))["output"],
        "a.txt:1: hit\nsub/b.txt:1: hit"
    );
    assert_eq!(
        grep_in(dir.path(), json!({"pattern": "hit", "path": ""}))["output"],
        "a.txt:1: hit\nsub/b.txt:1: hit"
    );
    assert_eq!(
        grep_in(dir.path(), json!({"pattern": "hit", "path": "."}))["output"],
        "./a.txt:1: hit\n./sub/b.txt:1: hit"
    );
    assert_eq!(
        grep_in(dir.path(), json!({"pattern": "hit", "path": "sub"}))["output"],
        "sub/b.txt:1: hit"
    );
    // A file as the path is searched directly.
    assert_eq!(
        grep_in(dir.path(), json!({"pattern": "hit", "path": "sub/b.txt"})),
        json!({"output": "sub/b.txt:1: hit", "count": 1})
    );
    assert_eq!(
        grep_in(dir.path(), json!({"pattern": "hit", "path": "missing"})),
        json!({"error": "Path not found: missing", "error_code": "FILE_NOT_FOUND"})
    );
}

#[test]
fn grep_recursive_in_name_order() {
    let dir = tempdir();
    tree(
        dir.path(),
        &[
            ("b.txt", "x"),
            ("a/z.txt", "x"),
            ("a.txt", "x"),
            ("a/b/c.txt", "x\nno\nx"),
            ("A.txt", "x"),
        ],
    );
    let expected = json!({"output": "A.txt:1: x\na/b/c.txt:1: x\na/b/c.txt:3: x\na/z.txt:1: x\na.txt:1: x\nb.txt:1: x", "count": 6});
    for _ in 0..3 {
        assert_eq!(grep_in(dir.path(), json!({"pattern": "x"})), expected);
    }
    // The limited (ordered) strategy agrees.
    assert_eq!(
        grep_in(dir.path(), json!({"pattern": "x", "limit": 100})),
        expected
    );
}

#[test]
fn grep_honours_ignore_files_hidden_and_binary() {
    let dir = tempdir();
    tree(
        dir.path(),
        &[
            (".gitignore", "target/\n*.log\n"),
            ("target/out.txt", "needle"),
            ("app.log", "needle"),
            ("sub/.ignore", "skipped.txt\n"),
            ("sub/skipped.txt", "needle"),
            ("sub/kept.txt", "needle"),
            (".hidden/h.txt", "needle"),
            (".dotfile", "needle"),
            ("src/main.rs", "needle"),
        ],
    );
    fs::write(dir.path().join("blob.bin"), b"needle\x00\x01binary").unwrap();
    assert_eq!(
        grep_in(
            dir.path(),
            json!({"pattern": "needle", "output_mode": "files_with_matches"})
        ),
        json!({"output": "src/main.rs\nsub/kept.txt", "count": 2})
    );
    assert_eq!(
        grep_in(
            dir.path(),
            json!({"pattern": "needle", "output_mode": "files_with_matches", "include_ignored": true})
        ),
        json!({"output": "app.log\nsrc/main.rs\nsub/kept.txt\nsub/skipped.txt\ntarget/out.txt", "count": 5})
    );
    assert_eq!(
        grep_in(
            dir.path(),
            json!({"pattern": "needle", "output_mode": "files_with_matches", "include_hidden": true})
        ),
        json!({"output": ".dotfile\n.hidden/h.txt\nsrc/main.rs\nsub/kept.txt", "count": 4})
    );
    assert_eq!(
        grep_in(
            dir.path(),
            json!({"pattern": "needle", "output_mode": "files_with_matches", "include_binary": true})
        ),
        json!({"output": "blob.bin\nsrc/main.rs\nsub/kept.txt", "count": 3})
    );
}

#[test]
fn grep_glob_filter_names_paths_braces_and_negation() {
    let dir = tempdir();
    tree(
        dir.path(),
        &[
            ("a.c", "x"),
            ("a.h", "x"),
            ("src/b.c", "x"),
            ("src/deep/c.rs", "x"),
            ("lib/src/d.rs", "x"),
            ("Cargo.toml", "x"),
        ],
    );
    let files = |glob: &str| {
        grep_in(
            dir.path(),
            json!({"pattern": "x", "glob": glob, "output_mode": "files_with_matches"}),
        )["output"]
            .clone()
    };
    assert_eq!(files("*.c"), "a.c\nsrc/b.c");
    assert_eq!(files("src/**/*.rs"), "src/deep/c.rs");
    assert_eq!(files("**/src/**"), "lib/src/d.rs\nsrc/b.c\nsrc/deep/c.rs");
    assert_eq!(
        files("*.{rs,toml}"),
        "Cargo.toml\nlib/src/d.rs\nsrc/deep/c.rs"
    );
    assert_eq!(files("!*.{c,h}"), "Cargo.toml\nlib/src/d.rs\nsrc/deep/c.rs");
    assert_eq!(
        files(""),
        "Cargo.toml\na.c\na.h\nlib/src/d.rs\nsrc/b.c\nsrc/deep/c.rs"
    );
}

#[test]
fn grep_case_modes_and_context() {
    let dir = tempdir();
    tree(
        dir.path(),
        &[
            ("f.txt", "one\nTwo\nthree\nfour\nfive\nsix\nTWO again\n"),
            ("g.txt", "two\n"),
        ],
    );
    assert_eq!(
        grep_in(
            dir.path(),
            json!({"pattern": "two", "case_insensitive": true})
        ),
        json!({"output": "f.txt:2: Two\nf.txt:7: TWO again\ng.txt:1: two", "count": 3})
    );
    assert_eq!(
        grep_in(
            dir.path(),
            json!({"pattern": "two", "case_insensitive": true, "output_mode": "count"})
        ),
        json!({"output": "f.txt:2\ng.txt:1", "count": 2})
    );
    assert_eq!(
        grep_in(dir.path(), json!({"pattern": "T[Ww]O?", "context": 1})),
        json!({"output": "f.txt-1- one\nf.txt:2: Two\nf.txt-3- three\n--\nf.txt-6- six\nf.txt:7: TWO again", "count": 2})
    );
    assert_eq!(
        grep_in(
            dir.path(),
            json!({"pattern": "^three$", "before_context": 2, "after_context": "0"})
        ),
        json!({"output": "f.txt-1- one\nf.txt-2- Two\nf.txt:3: three", "count": 1})
    );
    assert_eq!(
        grep_in(dir.path(), json!({"pattern": "x", "output_mode": "lines"}))["error_code"],
        "INVALID_ARG"
    );
}

#[test]
fn grep_limit_stops_early() {
    // The match comes first; after it, 100 GB of (sparse) zeros that would
    // take many seconds to search.
    let dir = tempdir();
    tree(dir.path(), &[("a.txt", "needle 1\nneedle 2\n")]);
    fs::File::create(dir.path().join("z.bin"))
        .unwrap()
        .set_len(100 << 30)
        .unwrap();
    let start = Instant::now();
    let got = grep_in(
        dir.path(),
        json!({"pattern": "needle", "include_binary": true, "limit": 1}),
    );
    assert_eq!(
        got,
        json!({"output": "a.txt:1: needle 1", "count": 1, "truncated": true})
    );
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(
        grep_in(dir.path(), json!({"pattern": "needle", "limit": 2})),
        json!({"output": "a.txt:1: needle 1\na.txt:2: needle 2", "count": 2})
    );
    assert_eq!(
        grep_in(
            dir.path(),
            json!({"pattern": "needle", "output_mode": "files_with_matches", "limit": 1})
        ),
        json!({"output": "a.txt", "count": 1})
    );
}

#[test]
fn grep_output_cap() {
    let dir = tempdir();
    let lines: String = (0..1000).map(|i| format!("match {i:04}\n")).collect();
    tree(dir.path(), &[("a.txt", &lines), ("b.txt", "match b\n")]);
    let mut cmd = tool_command("grep", dir.path());
    cmd.env("IKIGAI_GREP_MAX_OUTPUT", "100");
    let out = run_with_input(cmd, br#"{"pattern": "match"}"#, Duration::from_secs(20));
    // Each line is 19 bytes: 5 fit in 100.
    assert_eq!(
        parse_tool_output(&out),
        json!({"output": "a.txt:1: match 0000\na.txt:2: match 0001\na.txt:3: match 0002\na.txt:4: match 0003\na.txt:5: match 0004", "count": 5, "truncated": true})
    );
}

#[test]
fn grep_long_lines_non_utf8_and_symlink_loops() {
    let dir = tempdir();
    let long = format!("{}needle{}\n", "a".repeat(300_000), "b".repeat(300_000));
    tree(dir.path(), &[("long.txt", &long)]);
    fs::write(
        dir.path()
            .join(std::ffi::OsStr::from_bytes(b"l\xe4tin.txt")),
        b"caf\xe9 needle\n",
    )
    .unwrap();
    fs::create_dir(dir.path().join("loop")).unwrap();
    std::os::unix::fs::symlink("..", dir.path().join("loop/up")).unwrap();
    let start = Instant::now();
    let got = grep_in(dir.path(), json!({"pattern": "needle"}));
    assert!(start.elapsed() < Duration::from_secs(10));
    // Names sort by bytes: "lo" (0x6f) before "l\xe4".
    let expected = json!({"output": format!("long.txt:1: {}\nl\u{FFFD}tin.txt:1: caf\u{FFFD} needle", long.trim_end()), "count": 2});
    assert!(
        got == expected,
        "got {} bytes: {:.200}",
        got["output"].as_str().map_or(0, str::len),
        got["output"]
    );
}

#[test]
fn grep_skips_unreadable_files_and_directories() {
    let dir = tempdir();
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
    tree(
        dir.path(),
        &[
            ("ok.txt", "needle"),
            ("secret.txt", "needle"),
            ("closed/x.txt", "needle"),
        ],
    );
    fs::set_permissions(
        dir.path().join("secret.txt"),
        fs::Permissions::from_mode(0o000),
    )
    .unwrap();
    fs::set_permissions(dir.path().join("closed"), fs::Permissions::from_mode(0o000)).unwrap();
    assert_eq!(
        call_unprivileged("grep", dir.path(), &json!({"pattern": "needle"})),
        json!({"output": "ok.txt:1: needle", "count": 1})
    );
}

#[test]
fn grep_regex_dialect() {
    let dir = tempdir();
    tree(
        dir.path(),
        &[(
            "d.txt",
            "alpha beta\n123 go\nfn main() {\nfoo bar\nthe cat sat\ncatalog\naa\naaa\nx{y}\n[bracket]\nback\\slash\n",
        )],
    );
    let lines = |pattern: &str| -> Value {
        grep_in(dir.path(), json!({"pattern": pattern, "path": "d.txt"}))["output"].clone()
    };
    // POSIX classes, alternation, anchors, intervals.
    assert_eq!(
        lines("^[[:alpha:]]+ [[:alpha:]]+$"),
        "d.txt:1: alpha beta\nd.txt:4: foo bar"
    );
    assert_eq!(lines("^[[:digit:]]+"), "d.txt:2: 123 go");
    assert_eq!(
        lines("(foo|alpha)"),
        "d.txt:1: alpha beta\nd.txt:4: foo bar"
    );
    assert_eq!(lines("^a{2}$"), "d.txt:7: aa");
    assert_eq!(lines("^a{2,3}$"), "d.txt:7: aa\nd.txt:8: aaa");
    // GNU word boundaries.
    assert_eq!(lines("\\<cat\\>"), "d.txt:5: the cat sat");
    assert_eq!(lines("\\bcat"), "d.txt:5: the cat sat\nd.txt:6: catalog");
    // A `{` that is not an interval is literal, as in GNU ERE.
    assert_eq!(lines("main\\(\\) {"), "d.txt:3: fn main() {");
    assert_eq!(lines("x{y}"), "d.txt:9: x{y}");
    // Brackets and escapes.
    assert_eq!(lines("\\[bracket\\]"), "d.txt:10: [bracket]");
    assert_eq!(lines("[]]$"), "d.txt:10: [bracket]");
    assert_eq!(lines("back\\\\slash"), "d.txt:11: back\\slash");
    // Perl classes work (an extension to ERE).
    assert_eq!(lines("\\d{3}"), "d.txt:2: 123 go");
    // Back-references are not supported: a clear error.
    assert_eq!(
        grep_in(dir.path(), json!({"pattern": "(a)\\1"})),
        json!({"error": "Invalid pattern: Invalid back reference", "error_code": "INVALID_PATTERN"})
    );
    for (pattern, reason) in [
        ("[abc", "Unmatched [, [^, [:, [., or [="),
        ("abc)", "Unmatched ) or \\)"),
        ("a{3,2}", "Invalid content of \\{\\}"),
        ("[z-a]", "Invalid range end"),
        ("abc\\", "Trailing backslash"),
    ] {
        assert_eq!(
            grep_in(dir.path(), json!({"pattern": pattern})),
            json!({"error": format!("Invalid pattern: {reason}"), "error_code": "INVALID_PATTERN"}),
            "{pattern}"
        );
    }
}

#[test]
fn search_schemas_extend_the_spec() {
    for (tool, spec_properties, extensions) in [
        ("glob", vec!["pattern", "path"], vec!["limit", "sort"]),
        (
            "grep",
            vec!["pattern", "glob", "path"],
            vec![
                "case_insensitive",
                "output_mode",
                "before_context",
                "after_context",
                "context",
                "limit",
                "include_hidden",
                "include_ignored",
                "include_binary",
            ],
        ),
    ] {
        let mut cmd = tool_command(tool, &std::env::temp_dir());
        cmd.arg("--schema");
        let schema = parse_tool_output(&run_with_input(cmd, b"", Duration::from_secs(10)));
        let names: Vec<&str> = schema["parameters"]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let expected: Vec<&str> = spec_properties.iter().chain(&extensions).copied().collect();
        assert_eq!(names, expected, "{tool}");
        assert_eq!(schema["parameters"]["required"], json!(["pattern"]));
    }
    let mut cmd = tool_command("grep", &std::env::temp_dir());
    cmd.arg("--schema");
    let grep = parse_tool_output(&run_with_input(cmd, b"", Duration::from_secs(10)));
    assert_eq!(
        grep["description"],
        "Search for pattern in files using regular expressions"
    );
    assert_eq!(
        grep["parameters"]["properties"]["pattern"],
        json!({"type": "string", "description": "Regular expression pattern (POSIX extended)"})
    );
    assert_eq!(
        grep["parameters"]["properties"]["glob"],
        json!({"type": "string", "description": "Glob pattern to filter files (e.g., '*.c')"})
    );
    let mut cmd = tool_command("glob", &std::env::temp_dir());
    cmd.arg("--schema");
    let glob = parse_tool_output(&run_with_input(cmd, b"", Duration::from_secs(10)));
    assert_eq!(glob["description"], "Find files matching a glob pattern");
    assert_eq!(
        glob["parameters"]["properties"]["pattern"],
        json!({"type": "string", "description": "Glob pattern (e.g., '*.txt', 'src/**/*.c')"})
    );
    assert_eq!(
        glob["parameters"]["properties"]["path"],
        json!({"type": "string", "description": "Directory to search in (default: current directory)"})
    );
}
