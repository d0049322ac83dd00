//! Which calls of a batch may run at the same time.
//!
//! The original design's rules: independent calls run concurrently, writes
//! to the same path are serialised, and `bash` is a full barrier. A call
//! waits for every earlier call it conflicts with; everything else runs in
//! parallel. Tools other than the built-ins are treated as independent of
//! everything but `bash`.

use serde_json::Value;
use std::path::{Component, Path, PathBuf};

/// What a call may touch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Access {
    /// Reads one file.
    Read(PathBuf),
    /// Writes one file.
    Write(PathBuf),
    /// Reads everything under a directory.
    ReadTree(PathBuf),
    /// The mail store: mail calls keep their order among themselves.
    Mail,
    /// Nothing we can name: tools we know nothing about run freely, as in
    /// the original design.
    Unknown,
    /// Anything at all: `bash`, a full barrier.
    Everything,
}

/// Classifies a call from its tool name and arguments. `cwd` resolves
/// relative paths.
pub fn access(tool: &str, arguments: &Value, cwd: &Path) -> Access {
    let path = |key: &str| {
        arguments
            .get(key)
            .and_then(Value::as_str)
            .map(|p| normalise(cwd, p))
    };
    match tool {
        "file_read" => path("file_path").map_or(Access::Unknown, Access::Read),
        "file_write" | "file_edit" => path("file_path").map_or(Access::Unknown, Access::Write),
        "glob" | "grep" => Access::ReadTree(path("path").unwrap_or_else(|| cwd.to_path_buf())),
        "mail" => Access::Mail,
        "bash" => Access::Everything,
        _ => Access::Unknown,
    }
}

/// Whether `b` (later) must wait for `a` (earlier).
pub fn conflicts(a: &Access, b: &Access) -> bool {
    use Access::*;
    match (a, b) {
        (Everything, _) | (_, Everything) => true,
        (Mail, Mail) => true,
        (Write(p), Write(q)) | (Write(p), Read(q)) | (Read(p), Write(q)) => p == q,
        (Write(p), ReadTree(d)) | (ReadTree(d), Write(p)) => p.starts_with(d),
        _ => false,
    }
}

/// `cwd`-relative, lexically normalised (`a/./b/../c` is `a/c`). Symbolic
/// links are not resolved: two spellings of one file through a link are
/// treated as different files.
fn normalise(cwd: &Path, path: &str) -> PathBuf {
    let joined = cwd.join(path);
    let mut out = PathBuf::new();
    for part in joined.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rules() {
        let cwd = Path::new("/w");
        let w = access("file_write", &json!({"file_path": "a.txt"}), cwd);
        let w2 = access("file_edit", &json!({"file_path": "./x/../a.txt"}), cwd);
        let r = access("file_read", &json!({"file_path": "/w/a.txt"}), cwd);
        let other = access("file_read", &json!({"file_path": "b.txt"}), cwd);
        let tree = access("grep", &json!({"pattern": "x"}), cwd);
        let bash = access("bash", &json!({"command": "ls"}), cwd);
        assert!(conflicts(&w, &w2));
        assert!(conflicts(&w, &r));
        assert!(!conflicts(&w, &other));
        assert!(!conflicts(&r, &other));
        assert!(conflicts(&w, &tree));
        assert!(!conflicts(&r, &tree));
        assert!(conflicts(&bash, &r));
        assert!(conflicts(&other, &bash));
        assert!(conflicts(&Access::Mail, &Access::Mail));
        assert!(!conflicts(&Access::Mail, &r));
        let custom = access("custom", &json!({}), cwd);
        assert_eq!(custom, Access::Unknown);
        assert!(!conflicts(&custom, &w));
        assert!(conflicts(&custom, &bash));
    }
}
