//! Bounded capture of a byte stream.
//!
//! [`HeadTail`] keeps the first `head` bytes and the last `tail` bytes of
//! everything pushed into it, counting the rest, so memory stays fixed
//! however much a command prints. [`HeadTail::render`] turns the capture
//! into text for a model: invalid UTF-8 becomes U+FFFD, the cut never
//! splits a character, and a marker line states how many bytes were left
//! out, so truncation is never silent.
//!
//! ```
//! use ikigai_capture::HeadTail;
//! let mut cap = HeadTail::new(4, 4);
//! cap.push(b"0123456789");
//! let text = cap.render();
//! assert!(text.truncated);
//! assert_eq!(text.text, "0123\n[... 2 bytes omitted ...]\n6789");
//! ```

use std::collections::VecDeque;

/// Keeps the first `head` and last `tail` bytes of a stream.
#[derive(Debug, Clone)]
pub struct HeadTail {
    head_cap: usize,
    tail_cap: usize,
    head: Vec<u8>,
    tail: VecDeque<u8>,
    total: u64,
}

/// A capture rendered as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// Head, marker line (when anything was dropped), tail.
    pub text: String,
    /// Whether any bytes were left out.
    pub truncated: bool,
    /// Bytes the stream carried in all.
    pub total_bytes: u64,
    /// Bytes left out of `text`.
    pub omitted_bytes: u64,
}

impl Default for HeadTail {
    /// A capture that keeps nothing (it still counts bytes).
    fn default() -> HeadTail {
        HeadTail::new(0, 0)
    }
}

impl HeadTail {
    /// A capture keeping at most `head + tail` bytes.
    pub fn new(head: usize, tail: usize) -> HeadTail {
        HeadTail {
            head_cap: head,
            tail_cap: tail,
            head: Vec::new(),
            tail: VecDeque::new(),
            total: 0,
        }
    }

    /// A capture keeping `cap` bytes in all, half at each end.
    pub fn with_cap(cap: usize) -> HeadTail {
        HeadTail::new(cap - cap / 2, cap / 2)
    }

    pub fn push(&mut self, mut bytes: &[u8]) {
        self.total += bytes.len() as u64;
        if self.head.len() < self.head_cap {
            let take = bytes.len().min(self.head_cap - self.head.len());
            self.head.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
        }
        if bytes.is_empty() || self.tail_cap == 0 {
            return;
        }
        if bytes.len() >= self.tail_cap {
            self.tail.clear();
            self.tail.extend(&bytes[bytes.len() - self.tail_cap..]);
        } else {
            let overflow = (self.tail.len() + bytes.len()).saturating_sub(self.tail_cap);
            self.tail.drain(..overflow);
            self.tail.extend(bytes);
        }
    }

    /// Bytes pushed so far.
    pub fn total_bytes(&self) -> u64 {
        self.total
    }

    /// Renders the capture as text (see the crate docs).
    pub fn render(&self) -> Rendered {
        let (head, tail) = (
            self.head.as_slice(),
            self.tail.iter().copied().collect::<Vec<u8>>(),
        );
        let kept = (head.len() + tail.len()) as u64;
        if self.total <= kept {
            let mut all = head.to_vec();
            all.extend_from_slice(&tail);
            return Rendered {
                text: lossy(all),
                truncated: false,
                total_bytes: self.total,
                omitted_bytes: 0,
            };
        }
        // Never split a character at the cut: drop a partial sequence at the
        // end of the head and continuation bytes at the start of the tail.
        let head_end = utf8_cut_back(head);
        let tail_start = tail
            .iter()
            .take(3)
            .take_while(|b| (**b & 0xC0) == 0x80)
            .count();
        let head = &head[..head_end];
        let tail = &tail[tail_start..];
        let omitted = self.total - (head.len() + tail.len()) as u64;
        let mut text = lossy(head.to_vec());
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&format!("[... {omitted} bytes omitted ...]"));
        if !tail.is_empty() {
            text.push('\n');
            text.push_str(&lossy(tail.to_vec()));
        }
        Rendered {
            text,
            truncated: true,
            total_bytes: self.total,
            omitted_bytes: omitted,
        }
    }
}

/// Bytes to text, replacing invalid UTF-8 with U+FFFD without copying
/// valid input.
pub fn lossy(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

/// Length of `bytes` without a trailing incomplete UTF-8 sequence.
fn utf8_cut_back(bytes: &[u8]) -> usize {
    let n = bytes.len();
    for back in 1..=3.min(n) {
        let b = bytes[n - back];
        if b & 0xC0 == 0x80 {
            continue; // continuation byte: keep looking for the lead
        }
        let width = match b {
            0x00..=0x7F => 1,
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => return n, // invalid lead: leave it to lossy decoding
        };
        return if width > back { n - back } else { n };
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_streams_are_kept_whole() {
        let mut cap = HeadTail::new(8, 8);
        cap.push(b"hello ");
        cap.push(b"world");
        let r = cap.render();
        assert_eq!(r.text, "hello world");
        assert!(!r.truncated);
        assert_eq!(r.total_bytes, 11);
    }

    #[test]
    fn keeps_head_and_tail_across_many_pushes() {
        let mut cap = HeadTail::new(3, 3);
        for chunk in [&b"ab"[..], b"cd", b"ef", b"gh", b"i"] {
            cap.push(chunk);
        }
        let r = cap.render();
        assert_eq!(r.text, "abc\n[... 3 bytes omitted ...]\nghi");
        assert_eq!(r.omitted_bytes, 3);
    }

    #[test]
    fn marker_sits_on_its_own_line() {
        let mut cap = HeadTail::new(4, 4);
        cap.push(b"abc\nxxxxxxxx\nyz");
        assert_eq!(cap.render().text, "abc\n[... 7 bytes omitted ...]\nx\nyz");
    }

    #[test]
    fn never_splits_a_character() {
        let mut cap = HeadTail::new(4, 4);
        // "aé" is 3 bytes; "é" again splits the head at byte 4.
        cap.push("aéé0123456789ééz".as_bytes());
        let r = cap.render();
        assert!(!r.text.contains('\u{FFFD}'), "{:?}", r.text);
        assert!(r.text.starts_with("aé\n"));
        assert!(r.text.ends_with("éz"));
        assert_eq!(r.total_bytes, "aéé0123456789ééz".len() as u64);
    }

    #[test]
    fn invalid_utf8_becomes_replacement() {
        let mut cap = HeadTail::new(16, 16);
        cap.push(b"a\xffb");
        assert_eq!(cap.render().text, "a\u{FFFD}b");
    }

    #[test]
    fn zero_tail_keeps_only_head() {
        let mut cap = HeadTail::new(2, 0);
        cap.push(b"abcdef");
        assert_eq!(cap.render().text, "ab\n[... 4 bytes omitted ...]");
    }
}
