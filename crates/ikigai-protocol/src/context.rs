use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Where and with which environment a tool call runs.
///
/// A tool binary uses [`ToolContext::from_process`]: relative paths are left
/// to the kernel and variables come from the process environment. The host,
/// when it runs a built-in tool in-process, builds one with
/// [`ToolContext::new`] so the call sees the same working directory and
/// `IKIGAI_*` variables a spawned tool would, without touching the host
/// process's own cwd or environment.
#[derive(Debug, Clone, Default)]
pub struct ToolContext {
    cwd: Option<PathBuf>,
    vars: HashMap<String, String>,
}

impl ToolContext {
    /// The context of the current process.
    pub fn from_process() -> ToolContext {
        ToolContext::default()
    }

    /// An explicit working directory and variables layered over the process
    /// environment (as a spawned child would inherit them).
    pub fn new(cwd: Option<PathBuf>, vars: HashMap<String, String>) -> ToolContext {
        ToolContext { cwd, vars }
    }

    /// The working directory relative paths resolve against; `None` means
    /// the process's own.
    pub fn cwd(&self) -> Option<&Path> {
        self.cwd.as_deref()
    }

    /// Resolves a path argument against the working directory.
    pub fn resolve(&self, path: &str) -> PathBuf {
        match &self.cwd {
            Some(cwd) if !Path::new(path).is_absolute() => cwd.join(path),
            _ => PathBuf::from(path),
        }
    }

    /// Resolves a path that may be empty, meaning the working directory.
    pub fn resolve_dir(&self, path: &str) -> PathBuf {
        if path.is_empty() {
            self.cwd.clone().unwrap_or_else(|| PathBuf::from("."))
        } else {
            self.resolve(path)
        }
    }

    /// The variables this context sets on top of the process environment.
    pub fn vars(&self) -> impl Iterator<Item = (&str, &str)> {
        self.vars.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// A variable: the context's own first, then the process environment.
    pub fn var(&self, name: &str) -> Option<String> {
        match self.vars.get(name) {
            Some(v) => Some(v.clone()),
            None => std::env::var(name).ok(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_relative_paths_against_cwd() {
        let ctx = ToolContext::new(Some("/base".into()), HashMap::new());
        assert_eq!(ctx.resolve("a/b"), PathBuf::from("/base/a/b"));
        assert_eq!(ctx.resolve("/abs"), PathBuf::from("/abs"));
        assert_eq!(ctx.resolve_dir(""), PathBuf::from("/base"));
        let ctx = ToolContext::from_process();
        assert_eq!(ctx.resolve("a/b"), PathBuf::from("a/b"));
        assert_eq!(ctx.resolve_dir(""), PathBuf::from("."));
    }

    #[test]
    fn context_vars_shadow_process_env() {
        let mut vars = HashMap::new();
        vars.insert("PATH".to_owned(), "mine".to_owned());
        let ctx = ToolContext::new(None, vars);
        assert_eq!(ctx.var("PATH").as_deref(), Some("mine"));
        assert_eq!(ctx.var("IKIGAI_SURELY_UNSET_VARIABLE"), None);
    }
}
