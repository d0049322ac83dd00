//! Where tools are looked for, and in which precedence.

use std::path::{Path, PathBuf};

/// Which directory a tool came from. Later sources override earlier ones:
/// system < user < project < directories the caller adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Source {
    System,
    User,
    Project,
    Caller,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::System => "system",
            Source::User => "user",
            Source::Project => "project",
            Source::Caller => "caller",
        }
    }
}

/// The tool directories of one host.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolDirs {
    /// `$IKIGAI_LIBEXEC_DIR`, else the `libexec/ikigai/` of this
    /// installation or checkout.
    pub system: Option<PathBuf>,
    /// `~/.ikigai/tools/`.
    pub user: Option<PathBuf>,
    /// `.ikigai/tools/` under the working directory.
    pub project: Option<PathBuf>,
    /// Added by the caller; later entries override earlier ones.
    pub caller: Vec<PathBuf>,
}

/// Environment variable naming the system tool directory.
pub const LIBEXEC_VAR: &str = "IKIGAI_LIBEXEC_DIR";

impl ToolDirs {
    /// The standard directories for a host working in `cwd`.
    pub fn standard(cwd: &Path) -> ToolDirs {
        ToolDirs {
            system: default_system_dir(),
            user: std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".ikigai/tools")),
            project: Some(cwd.join(".ikigai/tools")),
            caller: Vec::new(),
        }
    }

    /// Every directory with its source, lowest precedence first.
    pub fn in_order(&self) -> Vec<(Source, &Path)> {
        let mut dirs = Vec::new();
        if let Some(d) = &self.system {
            dirs.push((Source::System, d.as_path()));
        }
        if let Some(d) = &self.user {
            dirs.push((Source::User, d.as_path()));
        }
        if let Some(d) = &self.project {
            dirs.push((Source::Project, d.as_path()));
        }
        for d in &self.caller {
            dirs.push((Source::Caller, d.as_path()));
        }
        dirs
    }
}

/// `$IKIGAI_LIBEXEC_DIR`, else the nearest `libexec/ikigai/` above the
/// running executable: `PREFIX/libexec/ikigai` for an installed
/// `PREFIX/bin/ikigai`, `<checkout>/libexec/ikigai` for
/// `<checkout>/target/release/ikigai`.
pub fn default_system_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os(LIBEXEC_VAR).filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    let exe = std::env::current_exe().ok()?;
    let exe = exe.canonicalize().unwrap_or(exe);
    exe.parent()?
        .ancestors()
        .take(4)
        .map(|dir| dir.join("libexec/ikigai"))
        .find(|candidate| candidate.is_dir())
}

/// A tool's name from its file name: `file-read` is `file_read`.
pub fn tool_name(file_name: &str) -> String {
    file_name.replace('-', "_")
}
