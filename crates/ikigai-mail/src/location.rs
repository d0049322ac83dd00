//! Where the database lives: `IKIGAI_DB`, else `$IKIGAI_STATE_DIR/ikigai.db`,
//! with `IKIGAI_STATE_DIR` defaulting to `$XDG_STATE_HOME/ikigai`, then
//! `~/.local/state/ikigai`.

use crate::MailError;
use std::path::PathBuf;

/// The database file name inside the state directory.
pub const DB_FILE: &str = "ikigai.db";

/// Resolves the database path from environment variables, read through
/// `var` (so a caller can supply its own environment).
pub fn database_path(var: impl Fn(&str) -> Option<String>) -> Result<PathBuf, MailError> {
    let set = |name: &str| var(name).filter(|v| !v.is_empty());
    if let Some(db) = set("IKIGAI_DB") {
        return Ok(PathBuf::from(db));
    }
    Ok(state_dir(var)?.join(DB_FILE))
}

/// The state directory (see the module docs).
pub fn state_dir(var: impl Fn(&str) -> Option<String>) -> Result<PathBuf, MailError> {
    let set = |name: &str| var(name).filter(|v| !v.is_empty());
    if let Some(dir) = set("IKIGAI_STATE_DIR") {
        return Ok(PathBuf::from(dir));
    }
    if let Some(xdg) = set("XDG_STATE_HOME") {
        return Ok(PathBuf::from(xdg).join("ikigai"));
    }
    match set("HOME") {
        Some(home) => Ok(PathBuf::from(home).join(".local/state/ikigai")),
        None => Err(MailError::NoLocation),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| ((*k).into(), (*v).into()))
            .collect();
        move |k| map.get(k).cloned()
    }

    #[test]
    fn precedence() {
        let all = [
            ("IKIGAI_DB", "/x.db"),
            ("IKIGAI_STATE_DIR", "/s"),
            ("XDG_STATE_HOME", "/x"),
            ("HOME", "/h"),
        ];
        assert_eq!(database_path(env(&all)).unwrap(), PathBuf::from("/x.db"));
        assert_eq!(
            database_path(env(&all[1..])).unwrap(),
            PathBuf::from("/s/ikigai.db")
        );
        assert_eq!(
            database_path(env(&all[2..])).unwrap(),
            PathBuf::from("/x/ikigai/ikigai.db")
        );
        assert_eq!(
            database_path(env(&all[3..])).unwrap(),
            PathBuf::from("/h/.local/state/ikigai/ikigai.db")
        );
        assert!(matches!(
            database_path(env(&[])),
            Err(MailError::NoLocation)
        ));
        assert_eq!(
            database_path(env(&[("IKIGAI_DB", ""), ("HOME", "/h")])).unwrap(),
            PathBuf::from("/h/.local/state/ikigai/ikigai.db")
        );
    }
}
