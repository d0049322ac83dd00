use crate::{FileKind, os_reason};
use ikigai_protocol::{ErrorCode, ToolError};
use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Why a file could not be opened for reading.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("{0}")]
    Io(#[source] io::Error),
    #[error("not a regular file: it {}", .0.describe())]
    NotRegular(FileKind),
}

impl OpenError {
    /// The spec's error object for a failed open of `shown` (the path as the
    /// caller wrote it): `FILE_NOT_FOUND`, `PERMISSION_DENIED`, or
    /// `OPEN_FAILED` with the reason in `detail`.
    pub fn to_tool_error(&self, shown: &str) -> ToolError {
        match self {
            OpenError::Io(e) if e.kind() == io::ErrorKind::NotFound => {
                ToolError::new(ErrorCode::FileNotFound, format!("File not found: {shown}"))
            }
            OpenError::Io(e) if e.kind() == io::ErrorKind::PermissionDenied => ToolError::new(
                ErrorCode::PermissionDenied,
                format!("Permission denied: {shown}"),
            ),
            OpenError::Io(e) => {
                ToolError::new(ErrorCode::OpenFailed, format!("Cannot open file: {shown}"))
                    .with_detail(os_reason(e))
            }
            OpenError::NotRegular(kind) => {
                ToolError::new(ErrorCode::OpenFailed, format!("Cannot open file: {shown}"))
                    .with_detail(format!(
                        "{shown} {}; only regular files can be read",
                        kind.describe()
                    ))
            }
        }
    }
}

/// Opens `path` for reading if (after following symbolic links) it is a
/// regular file.
///
/// `O_NONBLOCK` makes opening a FIFO return at once instead of waiting for
/// a writer; the type check on the open descriptor then refuses it. For a
/// regular file the flag has no effect on reads.
pub fn open_regular(path: &Path) -> Result<(File, Metadata), OpenError> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(OpenError::Io)?;
    let metadata = file.metadata().map_err(OpenError::Io)?;
    let kind = FileKind::of(metadata.file_type());
    if kind != FileKind::Regular {
        return Err(OpenError::NotRegular(kind));
    }
    Ok((file, metadata))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_directories_and_devices() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            open_regular(dir.path()),
            Err(OpenError::NotRegular(FileKind::Directory))
        ));
        assert!(matches!(
            open_regular(Path::new("/dev/null")),
            Err(OpenError::NotRegular(FileKind::CharDevice))
        ));
        let missing = dir.path().join("missing");
        let err = open_regular(&missing).unwrap_err();
        assert_eq!(err.to_tool_error("m").code, ErrorCode::FileNotFound);
    }
}
