//! Walking the filesystem guided by a compiled pattern.

use crate::pattern::Segment;
use std::cmp::Reverse;
use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Result order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Lexicographic (byte order of the path as printed).
    Name,
    /// Newest modification time first, then by name.
    Modified,
}

/// The matches kept so far: sorted, de-duplicated, at most `limit`.
#[derive(Debug)]
pub struct Collector {
    order: Order,
    limit: usize,
    by_name: BTreeSet<String>,
    by_time: BTreeSet<(Reverse<SystemTime>, String)>,
    overflowed: bool,
}

impl Collector {
    pub fn new(order: Order, limit: usize) -> Collector {
        Collector {
            order,
            limit,
            by_name: BTreeSet::new(),
            by_time: BTreeSet::new(),
            overflowed: false,
        }
    }

    fn add(&mut self, display: String, fs_path: &Path) {
        match self.order {
            Order::Name => {
                self.by_name.insert(display);
                if self.by_name.len() > self.limit {
                    self.by_name.pop_last();
                    self.overflowed = true;
                }
            }
            Order::Modified => {
                let mtime = fs::metadata(fs_path)
                    .or_else(|_| fs::symlink_metadata(fs_path))
                    .and_then(|m| m.modified())
                    .unwrap_or(SystemTime::UNIX_EPOCH);
                self.by_time.insert((Reverse(mtime), display));
                if self.by_time.len() > self.limit {
                    self.by_time.pop_last();
                    self.overflowed = true;
                }
            }
        }
    }

    /// The kept paths in order, and whether any were left out.
    pub fn finish(self) -> (Vec<String>, bool) {
        let paths = match self.order {
            Order::Name => self.by_name.into_iter().collect(),
            Order::Modified => self.by_time.into_iter().map(|(_, p)| p).collect(),
        };
        (paths, self.overflowed)
    }
}

fn join_display(dir: &str, name: &OsStr) -> String {
    let name = name.to_string_lossy();
    if dir.is_empty() {
        name.into_owned()
    } else if dir.ends_with('/') {
        format!("{dir}{name}")
    } else {
        format!("{dir}/{name}")
    }
}

fn is_hidden(name: &OsStr) -> bool {
    name.as_bytes().first() == Some(&b'.')
}

/// Whether `segment` (not `**`) matches the entry name.
fn matches(segment: &Segment, name: &OsStr) -> bool {
    match segment {
        Segment::Literal(literal) => literal.as_os_str() == name,
        Segment::Glob {
            matcher,
            explicit_dot,
        } => (*explicit_dot || !is_hidden(name)) && matcher.is_match(Path::new(name)),
        Segment::AnyDirs => false,
    }
}

/// Matches `segments` below the directory `dir` (shown as `display`).
pub fn walk(dir: &Path, display: &str, segments: &[Segment], out: &mut Collector) {
    let Some((first, rest)) = segments.split_first() else {
        return;
    };
    match first {
        Segment::Literal(name) => {
            let path = dir.join(name);
            if rest.is_empty() {
                // lstat: a dangling symlink matches, as with glob(3).
                if fs::symlink_metadata(&path).is_ok() {
                    out.add(join_display(display, name), &path);
                }
            } else if fs::metadata(&path).is_ok_and(|m| m.is_dir()) {
                walk(&path, &join_display(display, name), rest, out);
            }
        }
        Segment::Glob { .. } => {
            let Ok(entries) = fs::read_dir(dir) else {
                return;
            };
            for entry in entries.filter_map(Result::ok) {
                let name = entry.file_name();
                if !matches(first, &name) {
                    continue;
                }
                let path = entry.path();
                if rest.is_empty() {
                    out.add(join_display(display, &name), &path);
                } else if entry_is_dir(&entry, &path, true) {
                    walk(&path, &join_display(display, &name), rest, out);
                }
            }
        }
        Segment::AnyDirs => any_dirs(dir, display, rest, out),
    }
}

/// `**` followed by `rest`: one listing per directory serves both the
/// zero-directory case (the next segment matched here) and the descent.
fn any_dirs(dir: &Path, display: &str, rest: &[Segment], out: &mut Collector) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        let path = entry.path();
        match rest.split_first() {
            // Trailing `**`: everything below that is not hidden.
            None if !is_hidden(&name) => out.add(join_display(display, &name), &path),
            None => {}
            Some((next, after)) => {
                if matches!(next, Segment::AnyDirs) {
                    // Cannot happen: `**/**` collapses when compiling.
                } else if matches(next, &name) {
                    if after.is_empty() {
                        out.add(join_display(display, &name), &path);
                    } else if entry_is_dir(&entry, &path, true) {
                        walk(&path, &join_display(display, &name), after, out);
                    }
                }
            }
        }
        // Descend into real directories only: following symlinks here could
        // loop forever.
        if !is_hidden(&name) && entry_is_dir(&entry, &path, false) {
            any_dirs(&path, &join_display(display, &name), rest, out);
        }
    }
}

fn entry_is_dir(entry: &fs::DirEntry, path: &PathBuf, follow: bool) -> bool {
    match entry.file_type() {
        Ok(t) if t.is_dir() => true,
        Ok(t) if t.is_symlink() && follow => fs::metadata(path).is_ok_and(|m| m.is_dir()),
        _ => false,
    }
}
