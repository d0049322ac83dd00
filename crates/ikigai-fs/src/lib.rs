//! File primitives shared by the file tools.
//!
//! - [`open_regular`]: opens a path for reading only when it is a regular
//!   file. It opens with `O_NONBLOCK` and checks the type on the open
//!   descriptor, so a FIFO, a device or a directory gives an error at once
//!   instead of hanging or reading forever.
//! - [`replace_file`]: writes a file atomically (temporary file in the same
//!   directory, written, optionally flushed to disk, renamed over the target), keeping
//!   the permission bits and owner of an existing file, writing through
//!   symbolic links to their target, and keeping hard links intact.
//! - [`FileKind`]: what a non-regular path is, for error messages.
//!
//! Errors map to the spec's error objects through
//! [`OpenError::to_tool_error`] and [`ReplaceError::to_tool_error`], so the
//! spec's strings live in one place.

mod kind;
mod open;
mod replace;

pub use kind::FileKind;
pub use open::{OpenError, open_regular};
pub use replace::{Durability, ReplaceError, Replaced, replace_file, resolve_symlinks};

/// Environment variable that makes file writes durable (see [`Durability`]).
pub const FSYNC_VAR: &str = "IKIGAI_FSYNC";

/// The last component of a path as the caller wrote it, like basename(3)
/// (`dir/` gives `dir`); used in result messages such as
/// `Wrote 14 bytes to test.txt`.
pub fn basename(shown: &str) -> String {
    std::path::Path::new(shown)
        .file_name()
        .map_or_else(|| shown.to_owned(), |n| n.to_string_lossy().into_owned())
}

/// An OS error's description without the trailing `(os error N)`.
pub fn os_reason(error: &std::io::Error) -> String {
    let text = error.to_string();
    match text.rfind(" (os error ") {
        Some(i) => text[..i].to_owned(),
        None => text,
    }
}

/// Whether an I/O error means the disk (or quota) is full.
pub fn is_no_space(error: &std::io::Error) -> bool {
    matches!(error.raw_os_error(), Some(libc::ENOSPC | libc::EDQUOT))
}
