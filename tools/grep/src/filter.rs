//! The `glob` parameter: which files to search, like ripgrep's `--glob`.
//!
//! A glob without `/` matches a file's name anywhere in the tree (`*.c`);
//! one with `/` matches the path relative to the search root
//! (`src/**/*.rs`). `**` and `{a,b}` work; a leading `!` excludes instead.

use globset::{GlobBuilder, GlobMatcher};
use std::path::Path;

#[derive(Debug, Clone)]
pub struct Filter {
    matcher: GlobMatcher,
    whole_path: bool,
    negated: bool,
}

impl Filter {
    pub fn new(glob: &str) -> Result<Filter, globset::Error> {
        let (negated, glob) = match glob.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, glob),
        };
        let glob = glob.strip_prefix("./").unwrap_or(glob);
        let whole_path = glob.contains('/');
        let glob = glob.strip_prefix('/').unwrap_or(glob);
        let matcher = GlobBuilder::new(glob)
            .literal_separator(true)
            .backslash_escape(true)
            .build()?
            .compile_matcher();
        Ok(Filter {
            matcher,
            whole_path,
            negated,
        })
    }

    /// Whether to search the file at `relative` (relative to the root).
    pub fn accepts(&self, relative: &Path) -> bool {
        let matched = if self.whole_path {
            self.matcher.is_match(relative)
        } else {
            relative
                .file_name()
                .is_some_and(|name| self.matcher.is_match(Path::new(name)))
        };
        matched != self.negated
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_paths() {
        let f = Filter::new("*.c").unwrap();
        assert!(f.accepts(Path::new("a/b/x.c")));
        assert!(!f.accepts(Path::new("a/b/x.h")));
        let f = Filter::new("src/**/*.rs").unwrap();
        assert!(f.accepts(Path::new("src/a/b.rs")));
        assert!(f.accepts(Path::new("src/b.rs")));
        assert!(!f.accepts(Path::new("lib/src/b.rs")));
        let f = Filter::new("*.{rs,toml}").unwrap();
        assert!(f.accepts(Path::new("Cargo.toml")));
        let f = Filter::new("!*.min.js").unwrap();
        assert!(!f.accepts(Path::new("x/a.min.js")));
        assert!(f.accepts(Path::new("x/a.js")));
    }
}
