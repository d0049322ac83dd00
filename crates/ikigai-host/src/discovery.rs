//! Finding tools: executable files in the tool directories, each asked for
//! its `--schema` concurrently, with every failure reported, never
//! skipped silently.

use crate::dirs::{Source, ToolDirs, tool_name};
use crate::process::{self, Ending, Limits, Spawn};
use crate::registry::{Registry, ToolEntry};
use ikigai_protocol::{Schema, SchemaError};
use std::collections::BTreeMap;
use std::fmt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// An executable that may be a tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub name: String,
    pub path: PathBuf,
    pub source: Source,
}

/// Why a candidate was left out.
#[derive(Debug, thiserror::Error)]
pub enum SchemaFailure {
    #[error("cannot run it: {0}")]
    Spawn(#[source] std::io::Error),
    #[error("--schema did not finish within {0:?}")]
    TimedOut(Duration),
    #[error("--schema printed more than {0} bytes")]
    TooLarge(usize),
    #[error("--schema exited with code {0}")]
    Failed(i32),
    #[error("--schema output is not JSON: {0}")]
    NotJson(#[source] serde_json::Error),
    #[error("--schema output is not a valid schema: {0}")]
    Invalid(#[source] SchemaError),
    #[error("its schema is named `{found}` but the file name makes it `{expected}`")]
    NameMismatch { expected: String, found: String },
}

/// A tool that was left out of the registry, and why.
#[derive(Debug)]
pub struct Warning {
    pub path: PathBuf,
    pub reason: SchemaFailure,
    /// The lower-precedence tool used instead, if any.
    pub fallback: Option<PathBuf>,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ignoring tool {}: {}", self.path.display(), self.reason)?;
        if let Some(fallback) = &self.fallback {
            write!(f, " (using {} instead)", fallback.display())?;
        }
        Ok(())
    }
}

/// The executable regular files of one directory (symlinks followed),
/// by name. A missing or unreadable directory has none.
pub fn scan_dir(dir: &Path, source: Source) -> Vec<Candidate> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<Candidate> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let file_name = entry.file_name().into_string().ok()?;
            if file_name.starts_with('.') {
                return None;
            }
            let path = entry.path();
            let meta = std::fs::metadata(&path).ok()?;
            (meta.is_file() && meta.permissions().mode() & 0o111 != 0).then(|| Candidate {
                name: tool_name(&file_name),
                path,
                source,
            })
        })
        .collect();
    found.sort_by(|a, b| a.name.cmp(&b.name));
    found
}

/// Every candidate by name, highest precedence first.
pub fn candidates(dirs: &ToolDirs) -> BTreeMap<String, Vec<Candidate>> {
    let mut by_name: BTreeMap<String, Vec<Candidate>> = BTreeMap::new();
    for (source, dir) in dirs.in_order() {
        for candidate in scan_dir(dir, source) {
            by_name
                .entry(candidate.name.clone())
                .or_default()
                .insert(0, candidate);
        }
    }
    by_name
}

/// The highest-precedence executable for `name`, without running anything.
pub fn locate(dirs: &ToolDirs, name: &str) -> Option<Candidate> {
    dirs.in_order()
        .into_iter()
        .rev()
        .find_map(|(source, dir)| scan_dir(dir, source).into_iter().find(|c| c.name == name))
}

/// Runs `<path> --schema` and validates what it prints.
pub async fn load_schema(
    candidate: &Candidate,
    timeout: Duration,
) -> Result<Schema, SchemaFailure> {
    const CAP: usize = 1024 * 1024;
    let spawn = Spawn {
        program: candidate.path.clone(),
        args: vec!["--schema".into()],
        cwd: None,
        env: Vec::new(),
        stdin: Vec::new(),
        limits: Limits {
            timeout,
            stdout_cap: CAP,
            drain: Duration::from_millis(50),
            ..Limits::default()
        },
    };
    let finished = process::run(spawn, None)
        .await
        .map_err(SchemaFailure::Spawn)?;
    match finished.ending {
        Ending::TimedOut => return Err(SchemaFailure::TimedOut(timeout)),
        Ending::OutputTooLarge => return Err(SchemaFailure::TooLarge(CAP)),
        Ending::Exited | Ending::Cancelled => {}
    }
    if !finished.status.success() {
        return Err(SchemaFailure::Failed(finished.exit_code()));
    }
    let value = serde_json::from_slice(&finished.stdout).map_err(SchemaFailure::NotJson)?;
    let schema = Schema::from_value(value).map_err(SchemaFailure::Invalid)?;
    if schema.name() != candidate.name {
        return Err(SchemaFailure::NameMismatch {
            expected: candidate.name.clone(),
            found: schema.name().to_owned(),
        });
    }
    Ok(schema)
}

/// Discovers every tool: the best candidate of each name has its schema
/// loaded, all concurrently; where it fails, the next candidate of that
/// name is tried, with a warning either way.
pub async fn discover(dirs: &ToolDirs, timeout: Duration) -> (Registry, Vec<Warning>) {
    let mut pending: Vec<Vec<Candidate>> = candidates(dirs).into_values().collect();
    let mut entries = Vec::new();
    let mut warnings = Vec::new();
    while !pending.is_empty() {
        let round: Vec<_> = pending
            .into_iter()
            .filter(|list| !list.is_empty())
            .map(|mut list| {
                let best = list.remove(0);
                tokio::spawn(async move {
                    let result = load_schema(&best, timeout).await;
                    (best, result, list)
                })
            })
            .collect();
        pending = Vec::new();
        for task in round {
            let Ok((candidate, result, rest)) = task.await else {
                continue;
            };
            match result {
                Ok(schema) => entries.push(ToolEntry {
                    name: candidate.name,
                    path: candidate.path,
                    source: candidate.source,
                    schema,
                }),
                Err(reason) => {
                    warnings.push(Warning {
                        path: candidate.path,
                        reason,
                        fallback: rest.first().map(|c| c.path.clone()),
                    });
                    if !rest.is_empty() {
                        pending.push(rest);
                    }
                }
            }
        }
    }
    (Registry::new(entries), warnings)
}
