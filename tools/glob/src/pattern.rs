//! Glob patterns: brace expansion, then one matcher per path component.

use globset::{GlobBuilder, GlobMatcher};
use std::ffi::OsString;

/// Most alternatives a pattern's brace sets may expand to.
pub const MAX_ALTERNATIVES: usize = 1024;

/// Why a pattern was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatternError {
    #[error("the pattern is empty")]
    Empty,
    #[error("unmatched `{{` in brace set")]
    UnclosedBrace,
    #[error("brace sets expand to more than {MAX_ALTERNATIVES} patterns")]
    TooManyAlternatives,
    #[error("{0}")]
    Component(String),
}

/// One path component of a pattern.
#[derive(Debug, Clone)]
pub enum Segment {
    /// No wildcards: looked up directly, never listed.
    Literal(OsString),
    /// Wildcards within one name. `explicit_dot`: the pattern itself starts
    /// with `.`, so it may match hidden names (POSIX: a leading dot must be
    /// matched explicitly).
    Glob {
        matcher: GlobMatcher,
        explicit_dot: bool,
    },
    /// `**`: any number of directories (hidden ones excluded).
    AnyDirs,
}

/// A pattern ready to walk: absolute or relative, and its segments.
#[derive(Debug, Clone)]
pub struct Compiled {
    pub absolute: bool,
    pub segments: Vec<Segment>,
}

/// Expands brace sets (`a{b,c{d,e}}` is `ab`, `acd`, `ace`), honouring
/// backslash escapes and leaving braces inside `[...]` alone.
pub fn expand_braces(pattern: &str) -> Result<Vec<String>, PatternError> {
    let chars: Vec<char> = pattern.chars().collect();
    let Some((open, close, commas)) = first_brace_set(&chars)? else {
        return Ok(vec![pattern.to_owned()]);
    };
    let prefix: String = chars[..open].iter().collect();
    let suffix: String = chars[close + 1..].iter().collect();
    let mut bounds = vec![open];
    bounds.extend(&commas);
    bounds.push(close);
    let mut out = Vec::new();
    for pair in bounds.windows(2) {
        let alternative: String = chars[pair[0] + 1..pair[1]].iter().collect();
        for expanded in expand_braces(&format!("{prefix}{alternative}{suffix}"))? {
            out.push(expanded);
            if out.len() > MAX_ALTERNATIVES {
                return Err(PatternError::TooManyAlternatives);
            }
        }
    }
    Ok(out)
}

/// The first top-level brace set: its `{`, its `}` and its top-level commas.
fn first_brace_set(chars: &[char]) -> Result<Option<(usize, usize, Vec<usize>)>, PatternError> {
    let mut i = 0;
    let mut open: Option<usize> = None;
    let mut depth = 0;
    let mut commas = Vec::new();
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 1,
            '[' => {
                // Skip a bracket expression; `]` right after `[` or `[!` is literal.
                let mut j = i + 1;
                if j < chars.len() && (chars[j] == '!' || chars[j] == '^') {
                    j += 1;
                }
                if j < chars.len() && chars[j] == ']' {
                    j += 1;
                }
                while j < chars.len() && chars[j] != ']' {
                    j += 1;
                }
                if j < chars.len() {
                    i = j;
                }
            }
            '{' => {
                if open.is_none() {
                    open = Some(i);
                }
                depth += 1;
            }
            ',' if depth == 1 => commas.push(i),
            // An unmatched `}` is literal, as in the shell.
            '}' if depth == 0 => {}
            '}' => {
                depth -= 1;
                if depth == 0
                    && let Some(o) = open
                {
                    return Ok(Some((o, i, commas)));
                }
            }
            _ => {}
        }
        i += 1;
    }
    if depth > 0 {
        return Err(PatternError::UnclosedBrace);
    }
    Ok(None)
}

fn has_wildcard(component: &str) -> bool {
    let mut escaped = false;
    for c in component.chars() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if matches!(c, '*' | '?' | '[') {
            return true;
        }
    }
    false
}

fn unescape(component: &str) -> String {
    let mut out = String::with_capacity(component.len());
    let mut chars = component.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(next) = chars.next() {
                out.push(next);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Compiles one brace-free pattern.
pub fn compile(pattern: &str) -> Result<Compiled, PatternError> {
    if pattern.is_empty() {
        return Err(PatternError::Empty);
    }
    let absolute = pattern.starts_with('/');
    let mut segments = Vec::new();
    for component in pattern.split('/').filter(|c| !c.is_empty()) {
        let segment = if component == "**" {
            if matches!(segments.last(), Some(Segment::AnyDirs)) {
                continue; // `**/**` is `**`
            }
            Segment::AnyDirs
        } else if has_wildcard(component) {
            let glob = GlobBuilder::new(component)
                .literal_separator(true)
                .backslash_escape(true)
                .build()
                .map_err(|e| PatternError::Component(e.kind().to_string()))?;
            Segment::Glob {
                matcher: glob.compile_matcher(),
                explicit_dot: component.starts_with('.'),
            }
        } else {
            Segment::Literal(unescape(component).into())
        };
        segments.push(segment);
    }
    Ok(Compiled { absolute, segments })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn braces() {
        assert_eq!(
            expand_braces("*.{rs,toml}").unwrap(),
            vec!["*.rs", "*.toml"]
        );
        assert_eq!(
            expand_braces("{a,b}/{c,d}").unwrap(),
            vec!["a/c", "a/d", "b/c", "b/d"]
        );
        assert_eq!(
            expand_braces("a{b,c{d,e}}f").unwrap(),
            vec!["abf", "acdf", "acef"]
        );
        assert_eq!(expand_braces("x\\{a,b}").unwrap(), vec!["x\\{a,b}"]);
        assert_eq!(expand_braces("[{]x").unwrap(), vec!["[{]x"]);
        assert_eq!(expand_braces("{a}").unwrap(), vec!["a"]);
        assert_eq!(expand_braces("a{,b}").unwrap(), vec!["a", "ab"]);
        assert_eq!(expand_braces("{a,b"), Err(PatternError::UnclosedBrace));
        assert_eq!(expand_braces("a}").unwrap(), vec!["a}"]);
        assert_eq!(
            expand_braces(&"{a,b,c,d}".repeat(6)),
            Err(PatternError::TooManyAlternatives)
        );
    }

    #[test]
    fn segments() {
        let c = compile("/src/**/**/*.rs").unwrap();
        assert!(c.absolute);
        assert_eq!(c.segments.len(), 3);
        assert!(matches!(&c.segments[0], Segment::Literal(n) if n == "src"));
        assert!(matches!(c.segments[1], Segment::AnyDirs));
        assert!(matches!(
            &c.segments[2],
            Segment::Glob {
                explicit_dot: false,
                ..
            }
        ));
        assert!(
            matches!(compile("a\\*b").unwrap().segments[0], Segment::Literal(ref n) if n == "a*b")
        );
        assert!(compile("[abc").is_err());
        assert_eq!(compile("").unwrap_err(), PatternError::Empty);
    }
}
