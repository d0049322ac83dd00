//! The regular expression dialect: POSIX ERE as far as users rely on it,
//! on top of Rust's `regex` engine (the one ripgrep uses).
//!
//! Everything ERE defines works as written: `.`, `*`, `+`, `?`, `{n,m}`,
//! `^`, `$`, `[...]` with `[:alpha:]`-style classes, `(a|b)`, `\` escapes,
//! plus GNU's `\<`, `\>`, `\b`, `\w`, `\s`. Two GNU ERE rules are applied
//! by rewriting the pattern before it is compiled:
//! - a `{` that does not start a valid interval is literal (`fn main() {`);
//! - a `}` with no interval open is literal.
//!
//! Known differences from POSIX, documented in docs/tools/grep.md: a
//! backslash inside `[...]` escapes (as in Perl and Rust); matching is
//! leftmost-first rather than leftmost-longest (which never changes which
//! lines match); back-references are not supported; Perl classes such as
//! `\d` work.

use regex_syntax::ast::ErrorKind;

/// Rewrites GNU ERE's literal braces into escaped ones.
pub fn translate(pattern: &str) -> String {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut i = 0;
    let mut in_class = false;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' {
            out.push(c);
            if let Some(&next) = chars.get(i + 1) {
                out.push(next);
            }
            i += 2;
            continue;
        }
        if in_class {
            if c == ']' {
                in_class = false;
            } else if c == '[' && matches!(chars.get(i + 1), Some(':' | '.' | '=')) {
                // `[:alpha:]` inside a class: copy through its closing `:]`.
                if let Some(end) = find_class_name_end(&chars, i + 2, chars[i + 1]) {
                    out.extend(&chars[i..=end]);
                    i = end + 1;
                    continue;
                }
            }
            out.push(c);
            i += 1;
            continue;
        }
        match c {
            '[' => {
                in_class = true;
                out.push(c);
                // `]` first in a class (`[]a]`, `[^]a]`) is literal.
                let mut j = i + 1;
                if chars.get(j) == Some(&'^') {
                    out.push('^');
                    j += 1;
                }
                if chars.get(j) == Some(&']') {
                    out.push_str("\\]");
                    j += 1;
                }
                i = j;
                continue;
            }
            '{' => match interval_end(&chars, i) {
                Some(end) => {
                    out.extend(&chars[i..=end]);
                    i = end + 1;
                    continue;
                }
                None => out.push_str("\\{"),
            },
            '}' => out.push_str("\\}"),
            _ => out.push(c),
        }
        i += 1;
    }
    out
}

fn find_class_name_end(chars: &[char], from: usize, delim: char) -> Option<usize> {
    (from..chars.len().saturating_sub(1))
        .find(|&k| chars[k] == delim && chars[k + 1] == ']')
        .map(|k| k + 1)
}

/// The index of the `}` closing a valid interval starting at `open`:
/// `{n}`, `{n,}`, `{n,m}` or `{,m}`.
fn interval_end(chars: &[char], open: usize) -> Option<usize> {
    let mut j = open + 1;
    let digits = |j: &mut usize| {
        let start = *j;
        while chars.get(*j).is_some_and(char::is_ascii_digit) {
            *j += 1;
        }
        *j > start
    };
    let lower = digits(&mut j);
    if chars.get(j) == Some(&',') {
        j += 1;
        let upper = digits(&mut j);
        if !lower && !upper {
            return None;
        }
    } else if !lower {
        return None;
    }
    (chars.get(j) == Some(&'}')).then_some(j)
}

/// The `Invalid pattern: <reason>` reason for a pattern that does not
/// parse: glibc's `regerror` wording where one exists (the spec's example is
/// `Unmatched ( or \(`), else the parser's own message.
pub fn error_reason(translated: &str, fallback: &str) -> String {
    let ast_error = match regex_syntax::ast::parse::Parser::new().parse(translated) {
        Err(e) => e,
        Ok(_) => return first_line(fallback),
    };
    let glibc = match ast_error.kind() {
        ErrorKind::GroupUnclosed => "Unmatched ( or \\(",
        ErrorKind::GroupUnopened => "Unmatched ) or \\)",
        ErrorKind::ClassUnclosed => "Unmatched [, [^, [:, [., or [=",
        ErrorKind::RepetitionMissing => "Invalid preceding regular expression",
        ErrorKind::RepetitionCountUnclosed => "Unmatched \\{",
        ErrorKind::RepetitionCountInvalid
        | ErrorKind::RepetitionCountDecimalEmpty
        | ErrorKind::DecimalEmpty
        | ErrorKind::DecimalInvalid => "Invalid content of \\{\\}",
        ErrorKind::ClassRangeInvalid => "Invalid range end",
        ErrorKind::EscapeUnexpectedEof => "Trailing backslash",
        ErrorKind::UnsupportedBackreference => "Invalid back reference",
        other => return other.to_string(),
    };
    glibc.to_owned()
}

fn first_line(text: &str) -> String {
    // The engine's messages draw the pattern with a caret over several
    // lines; the last line holds the reason.
    text.lines()
        .rev()
        .find(|l| l.trim_start().starts_with("error:"))
        .map(|l| {
            l.trim_start()
                .trim_start_matches("error:")
                .trim()
                .to_owned()
        })
        .unwrap_or_else(|| text.lines().next().unwrap_or(text).to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_braces() {
        assert_eq!(translate("fn main() {"), "fn main() \\{");
        assert_eq!(translate("a{2,3}"), "a{2,3}");
        assert_eq!(translate("a{,3}b{2}c{2,}"), "a{,3}b{2}c{2,}");
        assert_eq!(translate("{}"), "\\{\\}");
        assert_eq!(translate("x{a}"), "x\\{a\\}");
        assert_eq!(translate("\\{"), "\\{");
        assert_eq!(translate("[{}]"), "[{}]");
        assert_eq!(translate("[]x]"), "[\\]x]");
        assert_eq!(translate("[^]x]"), "[^\\]x]");
        assert_eq!(translate("[[:alpha:]]{2}"), "[[:alpha:]]{2}");
    }

    #[test]
    fn glibc_reasons() {
        assert_eq!(error_reason("(abc", ""), "Unmatched ( or \\(");
        assert_eq!(error_reason("abc)", ""), "Unmatched ) or \\)");
        assert_eq!(error_reason("[abc", ""), "Unmatched [, [^, [:, [., or [=");
        assert_eq!(
            error_reason("*abc", ""),
            "Invalid preceding regular expression"
        );
        assert_eq!(error_reason("a{3,2}", ""), "Invalid content of \\{\\}");
        assert_eq!(error_reason("[z-a]", ""), "Invalid range end");
        assert_eq!(error_reason("abc\\", ""), "Trailing backslash");
        assert_eq!(error_reason("(a)\\1", ""), "Invalid back reference");
    }
}
