use std::fs::FileType;
use std::os::unix::fs::FileTypeExt;

/// The type of a filesystem entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Regular,
    Directory,
    Symlink,
    Fifo,
    Socket,
    CharDevice,
    BlockDevice,
    Unknown,
}

impl FileKind {
    pub fn of(file_type: FileType) -> FileKind {
        if file_type.is_file() {
            FileKind::Regular
        } else if file_type.is_dir() {
            FileKind::Directory
        } else if file_type.is_symlink() {
            FileKind::Symlink
        } else if file_type.is_fifo() {
            FileKind::Fifo
        } else if file_type.is_socket() {
            FileKind::Socket
        } else if file_type.is_char_device() {
            FileKind::CharDevice
        } else if file_type.is_block_device() {
            FileKind::BlockDevice
        } else {
            FileKind::Unknown
        }
    }

    /// "is a directory", "is a FIFO (named pipe)", ...
    pub fn describe(self) -> &'static str {
        match self {
            FileKind::Regular => "is a regular file",
            FileKind::Directory => "is a directory",
            FileKind::Symlink => "is a symbolic link",
            FileKind::Fifo => "is a FIFO (named pipe)",
            FileKind::Socket => "is a socket",
            FileKind::CharDevice => "is a character device",
            FileKind::BlockDevice => "is a block device",
            FileKind::Unknown => "is not a regular file",
        }
    }
}
