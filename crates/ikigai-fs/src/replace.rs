use crate::{FileKind, is_no_space, os_reason};
use ikigai_protocol::{ErrorCode, ToolContext, ToolError};
use std::ffi::OsString;
use std::fs::{self, File, Metadata, OpenOptions};
use std::io::{self, Seek, SeekFrom};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Why [`replace_file`] failed. Each variant says at which step, since the
/// spec maps them to different error codes.
#[derive(Debug, thiserror::Error)]
pub enum ReplaceError {
    #[error("cannot resolve symbolic links: {0}")]
    Resolve(#[source] io::Error),
    #[error("the target {}", .0.describe())]
    NotRegular(FileKind),
    #[error("cannot create the file: {0}")]
    Create(#[source] io::Error),
    #[error("cannot write the file: {0}")]
    Write(#[source] io::Error),
    #[error("cannot replace the file: {0}")]
    Commit(#[source] io::Error),
    #[error("writing in place failed: {source}; the new content is kept in {}", recovery.display())]
    InPlace {
        #[source]
        source: io::Error,
        recovery: PathBuf,
    },
}

impl ReplaceError {
    /// The spec's error object for a failed write of `shown` (the path as
    /// the caller wrote it).
    pub fn to_tool_error(&self, shown: &str) -> ToolError {
        let io_error = match self {
            ReplaceError::Resolve(e)
            | ReplaceError::Create(e)
            | ReplaceError::Write(e)
            | ReplaceError::Commit(e)
            | ReplaceError::InPlace { source: e, .. } => Some(e),
            ReplaceError::NotRegular(_) => None,
        };
        if let Some(e) = io_error {
            if is_no_space(e) {
                return ToolError::new(
                    ErrorCode::NoSpace,
                    format!("No space left on device: {shown}"),
                );
            }
            if e.kind() == io::ErrorKind::PermissionDenied {
                return ToolError::new(
                    ErrorCode::PermissionDenied,
                    format!("Permission denied: {shown}"),
                );
            }
        }
        match self {
            ReplaceError::NotRegular(kind) => {
                ToolError::new(ErrorCode::OpenFailed, format!("Cannot open file: {shown}"))
                    .with_detail(format!("{shown} {}", kind.describe()))
            }
            ReplaceError::Resolve(e) | ReplaceError::Create(e) => {
                let reason = if e.kind() == io::ErrorKind::NotFound {
                    "the parent directory does not exist".to_owned()
                } else {
                    os_reason(e)
                };
                ToolError::new(ErrorCode::OpenFailed, format!("Cannot open file: {shown}"))
                    .with_detail(reason)
            }
            ReplaceError::Write(e) | ReplaceError::Commit(e) => ToolError::new(
                ErrorCode::WriteFailed,
                format!("Failed to write file: {shown}"),
            )
            .with_detail(os_reason(e)),
            ReplaceError::InPlace { .. } => ToolError::new(
                ErrorCode::WriteFailed,
                format!("Failed to write file: {shown}"),
            )
            .with_detail(self.to_string()),
        }
    }
}

/// How [`replace_file`] wrote the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replaced {
    /// The file actually written: the path with symbolic links resolved.
    pub target: PathBuf,
    /// Whether the file was rewritten in place instead of renamed over
    /// (hard-linked files, character devices, unwritable directories).
    pub in_place: bool,
}

/// Follows symbolic links at the end of `path` (not in its directories,
/// which the kernel resolves) until a non-link or a missing entry. A
/// dangling link resolves to its (missing) target, so writing through it
/// creates the target as `fopen(path, "w")` would.
pub fn resolve_symlinks(path: &Path) -> io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..40 {
        match fs::symlink_metadata(&current) {
            Ok(m) if m.file_type().is_symlink() => {
                let link = fs::read_link(&current)?;
                current = if link.is_absolute() {
                    link
                } else {
                    parent_dir(&current).join(link)
                };
            }
            Ok(_) => return Ok(current),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(current),
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::from_raw_os_error(libc::ELOOP))
}

/// Whether [`replace_file`] waits for the data to reach the disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Durability {
    /// Write, close, rename. A killed process leaves the old file or the
    /// new one; after a power loss the rename may be lost (on ext4, whose
    /// rename-over-existing heuristic flushes the data, rarely). What `cp`,
    /// editors' "atomic save" and other agents' tools do.
    #[default]
    Atomic,
    /// Also `fdatasync` the file before the rename and `fsync` the directory
    /// after it, so the new content survives a power loss once the call
    /// returns. Costs a journal commit: several times slower on big files.
    Durable,
}

impl Durability {
    /// `IKIGAI_FSYNC=1` (or `true`, `yes`) in the call's environment
    /// selects [`Durability::Durable`].
    pub fn for_context(ctx: &ToolContext) -> Durability {
        match ctx.var(crate::FSYNC_VAR).as_deref().map(str::trim) {
            Some("1" | "true" | "yes") => Durability::Durable,
            _ => Durability::Atomic,
        }
    }
}

/// Replaces the contents of `path` with what `write` writes.
///
/// The normal path: a temporary file is created in the target's directory
/// with the target's permission bits and owner, `write` fills it, and it is
/// renamed over the target (flushed to disk first with
/// [`Durability::Durable`]). A process killed at any point leaves the old
/// file or the new one, never a mix; a killed process may leave a
/// `.<name>.ikigai-*.tmp` file behind.
///
/// Exceptions, each keeping what a user would lose otherwise:
/// - a symbolic link is written through: its target changes, the link stays;
/// - a file with several hard links is updated in place so every link sees
///   the new content (a rename would split them). The new content is first
///   written and flushed to a temporary file, then copied over the target;
///   a kill during that copy leaves the complete new content in the
///   temporary file;
/// - a character device (`/dev/null`) is written directly;
/// - an existing file in a directory we may not create files in is
///   rewritten in place, as `fopen(path, "w")` would.
pub fn replace_file<F>(
    path: &Path,
    durability: Durability,
    write: F,
) -> Result<Replaced, ReplaceError>
where
    F: FnOnce(&mut File) -> io::Result<()>,
{
    let durable = durability == Durability::Durable;
    let target = resolve_symlinks(path).map_err(ReplaceError::Resolve)?;
    let existing = match fs::metadata(&target) {
        Ok(m) => Some(m),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(ReplaceError::Create(e)),
    };
    if let Some(meta) = &existing {
        match FileKind::of(meta.file_type()) {
            FileKind::Regular => {}
            FileKind::CharDevice => return write_directly(target, write),
            kind => return Err(ReplaceError::NotRegular(kind)),
        }
    }
    if target.file_name().is_none() {
        return Err(ReplaceError::NotRegular(FileKind::Directory));
    }
    let (mut temp, temp_path) = match create_temp(&target, existing.as_ref()) {
        Ok(created) => created,
        Err(e) if existing.is_some() && is_denied(&e) => return write_directly(target, write),
        Err(e) => return Err(ReplaceError::Create(e)),
    };
    let result = (|| {
        write(&mut temp).map_err(ReplaceError::Write)?;
        if durable {
            temp.sync_data().map_err(ReplaceError::Write)?;
        }
        Ok(())
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&temp_path);
        return Err(e);
    }
    if existing.as_ref().is_some_and(|m| m.nlink() > 1) {
        return copy_in_place(temp, temp_path, target, durable);
    }
    drop(temp);
    if let Err(e) = fs::rename(&temp_path, &target) {
        let _ = fs::remove_file(&temp_path);
        return Err(ReplaceError::Commit(e));
    }
    if durable {
        // Make the rename itself durable; failure here loses nothing
        // already visible, so it is not reported.
        if let Ok(dir) = File::open(parent_dir(&target)) {
            let _ = dir.sync_all();
        }
    }
    Ok(Replaced {
        target,
        in_place: false,
    })
}

fn is_denied(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::PermissionDenied || e.raw_os_error() == Some(libc::EROFS)
}

fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Creates `.<name>.ikigai-<pid>-<n>.tmp` beside `target`, with the mode
/// (and, when permitted, the owner) of the existing file, or the default
/// creation mode (0666 less the umask) for a new one.
fn create_temp(target: &Path, existing: Option<&Metadata>) -> io::Result<(File, PathBuf)> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = parent_dir(target);
    let name = target
        .file_name()
        .map(OsStrExt::as_bytes)
        .unwrap_or(b"file");
    // Keep the temporary name under NAME_MAX whatever the target's length.
    let stem = &name[..name.len().min(160)];
    let mut attempt = 0;
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let mut temp_name = b".".to_vec();
        temp_name.extend_from_slice(stem);
        temp_name.extend_from_slice(format!(".ikigai-{}-{n}.tmp", std::process::id()).as_bytes());
        let temp_path = dir.join(OsString::from_vec(temp_name));
        let mode = if existing.is_some() { 0o600 } else { 0o666 };
        // Readable too: the hard-link path copies it back out.
        match OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&temp_path)
        {
            Ok(file) => {
                if let Some(meta) = existing {
                    let setup = (|| {
                        file.set_permissions(fs::Permissions::from_mode(meta.mode() & 0o7777))?;
                        let mine = file.metadata()?;
                        if mine.uid() != meta.uid() || mine.gid() != meta.gid() {
                            // Only root (or the owner, for the group) may do
                            // this; otherwise the writer's ids are the best
                            // anyone could do.
                            let _ = std::os::unix::fs::fchown(
                                &file,
                                Some(meta.uid()),
                                Some(meta.gid()),
                            );
                            // chown clears set-id bits; put the mode back.
                            file.set_permissions(fs::Permissions::from_mode(meta.mode() & 0o7777))?;
                        }
                        Ok::<(), io::Error>(())
                    })();
                    if let Err(e) = setup {
                        let _ = fs::remove_file(&temp_path);
                        return Err(e);
                    }
                }
                return Ok((file, temp_path));
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 100 => attempt += 1,
            Err(e) => return Err(e),
        }
    }
}

fn write_directly<F>(target: PathBuf, write: F) -> Result<Replaced, ReplaceError>
where
    F: FnOnce(&mut File) -> io::Result<()>,
{
    let mut file = OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(&target)
        .map_err(ReplaceError::Create)?;
    write(&mut file).map_err(ReplaceError::Write)?;
    Ok(Replaced {
        target,
        in_place: true,
    })
}

fn copy_in_place(
    mut temp: File,
    temp_path: PathBuf,
    target: PathBuf,
    durable: bool,
) -> Result<Replaced, ReplaceError> {
    let result = (|| {
        let mut out = OpenOptions::new().write(true).open(&target)?;
        temp.seek(SeekFrom::Start(0))?;
        let len = io::copy(&mut temp, &mut out)?;
        out.set_len(len)?;
        if durable { out.sync_data() } else { Ok(()) }
    })();
    match result {
        Ok(()) => {
            let _ = fs::remove_file(&temp_path);
            Ok(Replaced {
                target,
                in_place: true,
            })
        }
        Err(source) => Err(ReplaceError::InPlace {
            source,
            recovery: temp_path,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::unix::fs::symlink;

    fn write_text(path: &Path, text: &str) -> Result<Replaced, ReplaceError> {
        let text = text.to_owned();
        replace_file(path, Durability::Atomic, move |f| {
            f.write_all(text.as_bytes())
        })
    }

    #[test]
    fn creates_and_replaces() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.txt");
        write_text(&p, "one").unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "one");
        write_text(&p, "two").unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "two");
        let leftovers: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(leftovers.len(), 1);
    }

    #[test]
    fn keeps_mode_symlink_and_hard_link() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.sh");
        fs::write(&real, "old").unwrap();
        fs::set_permissions(&real, fs::Permissions::from_mode(0o751)).unwrap();
        let link = dir.path().join("link.sh");
        symlink("real.sh", &link).unwrap();
        let out = write_text(&link, "new").unwrap();
        assert_eq!(out.target, real);
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_to_string(&real).unwrap(), "new");
        assert_eq!(fs::metadata(&real).unwrap().mode() & 0o7777, 0o751);

        let hard = dir.path().join("hard.sh");
        fs::hard_link(&real, &hard).unwrap();
        let out = write_text(&real, "newer").unwrap();
        assert!(out.in_place);
        assert_eq!(fs::read_to_string(&hard).unwrap(), "newer");
        assert_eq!(
            fs::metadata(&real).unwrap().ino(),
            fs::metadata(&hard).unwrap().ino()
        );
    }

    #[test]
    fn dangling_symlink_creates_target() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("link");
        symlink("made.txt", &link).unwrap();
        write_text(&link, "x").unwrap();
        assert_eq!(
            fs::read_to_string(dir.path().join("made.txt")).unwrap(),
            "x"
        );
    }

    #[test]
    fn errors_map_to_spec_codes() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no/such/file");
        let e = write_text(&missing, "x").unwrap_err().to_tool_error("f");
        assert_eq!(
            (e.code, e.message.as_str()),
            (ErrorCode::OpenFailed, "Cannot open file: f")
        );
        let e = write_text(dir.path(), "x").unwrap_err().to_tool_error("d");
        assert_eq!(e.code, ErrorCode::OpenFailed);
        let e = write_text(Path::new("/dev/full"), "x")
            .unwrap_err()
            .to_tool_error("/dev/full");
        assert_eq!(
            (e.code, e.message.as_str()),
            (ErrorCode::NoSpace, "No space left on device: /dev/full")
        );
    }

    #[test]
    fn failed_write_removes_temp_and_keeps_old() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a");
        fs::write(&p, "old").unwrap();
        let err = replace_file(&p, Durability::Durable, |f| {
            f.write_all(b"partial")?;
            Err(io::Error::other("boom"))
        })
        .unwrap_err();
        assert!(matches!(err, ReplaceError::Write(_)));
        assert_eq!(fs::read_to_string(&p).unwrap(), "old");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
