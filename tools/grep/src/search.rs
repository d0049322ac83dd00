//! The search pipeline: ordered results from a parallel search.
//!
//! One thread walks the tree in sorted order (ripgrep's `ignore` walker:
//! `.gitignore`, `.ignore`, hidden files) and numbers the files; worker
//! threads search them with ripgrep's searcher; this thread puts the
//! results back in walk order, so the output is the same on every run,
//! and stops everything as soon as the limit or the output cap is reached.
//! Results that arrive ahead of an unfinished earlier file wait in a
//! reorder buffer, whose size is bounded: workers pause before starting a
//! new file while it holds more than the output cap.

use crate::filter::Filter;
use grep_regex::RegexMatcher;
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};
use ignore::WalkBuilder;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};

/// What each result line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `path:line: content` for each matching line.
    Content,
    /// `path` for each file with a match.
    Files,
    /// `path:N` for each file with N matching lines.
    Count,
}

/// Everything that decides what is searched and how.
#[derive(Debug, Clone)]
pub struct Options {
    pub mode: Mode,
    pub before: usize,
    pub after: usize,
    /// Most results (matching lines; files in `Files`/`Count` mode).
    pub limit: Option<u64>,
    /// Most output bytes.
    pub max_output: usize,
    pub hidden: bool,
    pub ignored: bool,
    pub binary: bool,
    pub filter: Option<Filter>,
    pub threads: usize,
}

/// The assembled output.
#[derive(Debug, Default)]
pub struct Output {
    pub bytes: Vec<u8>,
    /// Matching lines (`Content`, `Count`) or files (`Files`) in `bytes`.
    pub count: u64,
    pub truncated: bool,
}

/// One file's results: its output and, for every output line, where it
/// ends and how many results it completes, so the collector can cut
/// between lines.
#[derive(Debug, Default)]
struct FileResult {
    out: Vec<u8>,
    marks: Vec<(usize, u64)>,
}

impl FileResult {
    /// Appends the next file's results (of the same batch).
    fn absorb(&mut self, next: FileResult) {
        let (base_end, base_count) = self.marks.last().copied().unwrap_or((0, 0));
        self.out.extend_from_slice(&next.out);
        self.marks.extend(
            next.marks
                .into_iter()
                .map(|(end, completes)| (base_end + end, base_count + completes)),
        );
    }
}

/// Consecutive files searched by one worker as one job: fewer channel
/// round trips and wake-ups than one job per file.
type Batch = Vec<PathBuf>;

/// Files per batch.
const BATCH: usize = 16;

/// Files larger than this in one line are skipped rather than buffered.
const HEAP_LIMIT: usize = 64 * 1024 * 1024;

fn searcher(options: &Options) -> Searcher {
    let mut builder = SearcherBuilder::new();
    builder
        .line_number(true)
        .heap_limit(Some(HEAP_LIMIT))
        .binary_detection(if options.binary {
            BinaryDetection::none()
        } else {
            BinaryDetection::quit(b'\x00')
        });
    if options.mode == Mode::Content {
        builder
            .before_context(options.before)
            .after_context(options.after);
    }
    builder.build()
}

/// Searches one file into a [`FileResult`]. Unreadable files give none.
fn search_file(
    searcher: &mut Searcher,
    matcher: &RegexMatcher,
    path: &Path,
    display: Display<'_>,
    options: &Options,
    stop: &AtomicBool,
) -> FileResult {
    let mut sink = FileSink {
        display,
        mode: options.mode,
        max_output: options.max_output,
        per_file_limit: options.limit.map(|l| l + 1),
        stop,
        result: FileResult::default(),
        matches: 0,
    };
    let searched = read_and_search(searcher, matcher, path, stop, &mut sink);
    if searched.is_err() {
        // Files that cannot be read are skipped, as the spec says (and a
        // search interrupted by a stop has nothing more to give).
        return FileResult::default();
    }
    if options.mode == Mode::Count && sink.matches > 0 {
        let shown = sink.display.bytes().to_vec();
        let r = &mut sink.result;
        r.out.extend_from_slice(&shown);
        r.out.push(b':');
        r.out.extend_from_slice(sink.matches.to_string().as_bytes());
        r.out.push(b'\n');
        r.marks.push((r.out.len(), 1));
    }
    sink.result
}

/// Bytes read up front; a file that fits is searched as a slice.
const SMALL: usize = 64 * 1024;

/// Searches one file. Most files in a tree are small: those are read whole
/// (two reads, as GNU grep does) and searched in memory. A file that fills
/// the first buffer, or starts with a UTF-16 byte-order mark (which the
/// streaming path transcodes, as ripgrep does), continues as a stream.
fn read_and_search(
    searcher: &mut Searcher,
    matcher: &RegexMatcher,
    path: &Path,
    stop: &AtomicBool,
    sink: &mut FileSink<'_>,
) -> std::io::Result<()> {
    use std::io::Read;
    let mut file = std::fs::File::open(path)?;
    let mut head = vec![0u8; SMALL];
    let mut filled = 0;
    while filled < SMALL {
        match file.read(&mut head[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    head.truncate(filled);
    let utf16 = head.starts_with(&[0xFF, 0xFE]) || head.starts_with(&[0xFE, 0xFF]);
    if filled < SMALL && !utf16 {
        return searcher.search_slice(matcher, &head, sink);
    }
    let rest = StopReader { file, stop };
    searcher.search_reader(matcher, std::io::Cursor::new(head).chain(rest), sink)
}

/// Reads a file but fails once the search is stopped, so a worker deep in
/// a huge file notices a stop within one buffer instead of at its next
/// match.
struct StopReader<'a> {
    file: std::fs::File,
    stop: &'a AtomicBool,
}

impl std::io::Read for StopReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.stop.load(Ordering::Relaxed) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::Interrupted,
                "search stopped",
            ));
        }
        self.file.read(buf)
    }
}

/// How a file's path is shown, computed only once the file has a result
/// (most searched files have none).
struct Display<'a> {
    path: &'a Path,
    root: &'a Path,
    shown: &'a str,
    cached: Option<Vec<u8>>,
}

impl<'a> Display<'a> {
    fn new(path: &'a Path, root: &'a Path, shown: &'a str) -> Display<'a> {
        Display {
            path,
            root,
            shown,
            cached: None,
        }
    }

    fn bytes(&mut self) -> &[u8] {
        let (path, root, shown) = (self.path, self.root, self.shown);
        self.cached
            .get_or_insert_with(|| display_path(path, root, shown))
    }
}

struct FileSink<'a> {
    display: Display<'a>,
    mode: Mode,
    max_output: usize,
    per_file_limit: Option<u64>,
    stop: &'a AtomicBool,
    result: FileResult,
    matches: u64,
}

impl FileSink<'_> {
    fn line(&mut self, separator: u8, line_number: Option<u64>, bytes: &[u8], completes: u64) {
        let display = self.display.bytes();
        let out = &mut self.result.out;
        out.extend_from_slice(display);
        out.push(separator);
        out.extend_from_slice(line_number.unwrap_or(0).to_string().as_bytes());
        out.push(separator);
        out.push(b' ');
        let content = bytes.strip_suffix(b"\n").unwrap_or(bytes);
        out.extend_from_slice(content);
        out.push(b'\n');
        self.result.marks.push((out.len(), completes));
    }
}

impl Sink for FileSink<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, std::io::Error> {
        self.matches += 1;
        match self.mode {
            Mode::Content => {
                let completes = self.matches;
                self.line(b':', mat.line_number(), mat.bytes(), completes);
            }
            Mode::Files => {
                let display = self.display.bytes().to_vec();
                self.result.out.extend_from_slice(&display);
                self.result.out.push(b'\n');
                self.result.marks.push((self.result.out.len(), 1));
                return Ok(false);
            }
            Mode::Count => {}
        }
        let under_limit =
            self.per_file_limit.is_none_or(|l| self.matches < l) || self.mode == Mode::Count;
        Ok(under_limit && !self.stop.load(Ordering::Relaxed))
    }

    fn context(&mut self, _: &Searcher, ctx: &SinkContext<'_>) -> Result<bool, std::io::Error> {
        let completes = self.matches;
        self.line(b'-', ctx.line_number(), ctx.bytes(), completes);
        Ok(self.result.out.len() <= self.max_output && !self.stop.load(Ordering::Relaxed))
    }

    fn context_break(&mut self, _: &Searcher) -> Result<bool, std::io::Error> {
        self.result.out.extend_from_slice(b"--\n");
        let completes = self.matches;
        self.result.marks.push((self.result.out.len(), completes));
        Ok(true)
    }
}

/// Shared between the collector and the workers.
#[derive(Debug, Default)]
struct Flow {
    /// The next batch the collector will emit.
    next: usize,
    /// Bytes waiting in the reorder buffer.
    pending: usize,
    /// Workers paused for room, so the collector knows whom to wake.
    waiting: usize,
}

/// Searches the tree (or file) at `root`, showing paths as `shown` (the
/// `path` argument; empty shows paths relative to the root).
///
/// Both strategies give the same output, in sorted walk order:
/// - without a limit, [`unordered`]: ripgrep's parallel walk, every file
///   searched, results sorted at the end (fastest);
/// - with a limit, [`ordered`]: a sorted walk feeding parallel searches,
///   so the search can stop as soon as the first `limit` results are in.
pub fn search(root: &Path, shown: &str, matcher: &RegexMatcher, options: &Options) -> Output {
    if options.limit.is_some() {
        ordered(root, shown, matcher, options)
    } else {
        unordered(root, shown, matcher, options)
    }
}

/// The parallel walk: each thread walks and searches, like ripgrep; the
/// results are sorted by path at the end. Comparing paths component by
/// component gives exactly the order of a walk sorted by name. Memory stays
/// bounded: files whose results can no longer fit in the output (all the
/// smaller paths already fill it) are dropped as they come.
pub fn unordered(root: &Path, shown: &str, matcher: &RegexMatcher, options: &Options) -> Output {
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel::<(PathBuf, FileResult)>();
    let walker = {
        let root = root.to_path_buf();
        let shown = shown.to_owned();
        let options = options.clone();
        let matcher = matcher.clone();
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            walk_builder(&root, &options).build_parallel().run(|| {
                let mut searcher = searcher(&options);
                let tx = tx.clone();
                let (root, shown, options, matcher, stop) =
                    (&root, &shown, &options, &matcher, &stop);
                Box::new(move |entry| {
                    let Ok(entry) = entry else {
                        return ignore::WalkState::Continue;
                    };
                    if !entry.file_type().is_some_and(|t| t.is_file()) {
                        return ignore::WalkState::Continue;
                    }
                    let path = entry.into_path();
                    if !accepted(&path, root, options) {
                        return ignore::WalkState::Continue;
                    }
                    let display = Display::new(&path, root, shown);
                    let result = search_file(&mut searcher, matcher, &path, display, options, stop);
                    if !result.out.is_empty() && tx.send((path, result)).is_err() {
                        return ignore::WalkState::Quit;
                    }
                    ignore::WalkState::Continue
                })
            });
        })
    };
    let mut kept: BTreeMap<PathBuf, FileResult> = BTreeMap::new();
    let mut held = 0usize;
    let mut dropped = false;
    for (path, result) in rx {
        held += result.out.len();
        kept.insert(path, result);
        while let Some(largest) = kept.last_key_value().map(|(_, r)| r.out.len()) {
            if held - largest < options.max_output {
                break;
            }
            held -= largest;
            kept.pop_last();
            dropped = true;
        }
    }
    let _ = walker.join();
    let mut output = Output::default();
    let mut complete = false;
    for (_, result) in kept {
        if append(&mut output, result, u64::MAX, options) {
            complete = true;
            break;
        }
    }
    output.truncated |= dropped || complete;
    output
}

/// The ordered pipeline (see the module docs).
pub fn ordered(root: &Path, shown: &str, matcher: &RegexMatcher, options: &Options) -> Output {
    let stop = Arc::new(AtomicBool::new(false));
    let flow = Arc::new((Mutex::new(Flow::default()), Condvar::new()));
    let (job_tx, job_rx) = mpsc::sync_channel::<(usize, Batch)>(64);
    let job_rx = Arc::new(Mutex::new(job_rx));
    let (result_tx, result_rx) = mpsc::channel::<(usize, FileResult)>();

    let walker = {
        let root = root.to_path_buf();
        let options = options.clone();
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || walk(&root, &options, &stop, &job_tx))
    };
    let mut workers = Vec::new();
    for _ in 0..options.threads.max(1) {
        let (root, shown) = (root.to_path_buf(), shown.to_owned());
        let job_rx = Arc::clone(&job_rx);
        let result_tx = result_tx.clone();
        let matcher = matcher.clone();
        let options = options.clone();
        let stop = Arc::clone(&stop);
        let flow = Arc::clone(&flow);
        workers.push(std::thread::spawn(move || {
            let mut searcher = searcher(&options);
            loop {
                let job = match job_rx.lock() {
                    Ok(rx) => rx.recv(),
                    Err(_) => return,
                };
                // Keep taking jobs after a stop (without searching) until the
                // walker closes the channel, so it never blocks on a full one.
                let Ok((seq, batch)) = job else {
                    return;
                };
                if stop.load(Ordering::Relaxed) {
                    continue;
                }
                wait_for_room(&flow, seq, options.max_output, &stop);
                let mut result = FileResult::default();
                let enough = options.limit.map_or(u64::MAX, |l| l.saturating_add(1));
                for path in batch {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let display = Display::new(&path, &root, &shown);
                    let file =
                        search_file(&mut searcher, &matcher, &path, display, &options, &stop);
                    result.absorb(file);
                    // Later files of the batch come later in the output: once
                    // this batch alone holds more than the limit, they cannot show.
                    if result.marks.last().is_some_and(|m| m.1 >= enough) {
                        break;
                    }
                }
                let _ = result_tx.send((seq, result));
            }
        }));
    }
    drop(result_tx);

    let output = collect(&result_rx, options, &stop, &flow);
    stop.store(true, Ordering::Relaxed);
    flow.1.notify_all();
    // Unblock the walker if it waits on a full channel, then join everyone.
    drop(result_rx);
    let _ = walker.join();
    for w in workers {
        let _ = w.join();
    }
    output
}

fn wait_for_room(flow: &(Mutex<Flow>, Condvar), seq: usize, cap: usize, stop: &AtomicBool) {
    let (lock, cvar) = flow;
    let Ok(mut state) = lock.lock() else {
        return;
    };
    while seq != state.next && state.pending > cap && !stop.load(Ordering::Relaxed) {
        state.waiting += 1;
        state = match cvar.wait(state) {
            Ok(s) => s,
            Err(_) => return,
        };
        state.waiting -= 1;
    }
}

/// The walker: numbers every file to search, in sorted walk order.
fn walk(
    root: &Path,
    options: &Options,
    stop: &AtomicBool,
    jobs: &mpsc::SyncSender<(usize, Batch)>,
) {
    let mut builder = walk_builder(root, options);
    builder.sort_by_file_name(|a, b| a.cmp(b));
    let mut seq = 0;
    let mut batch: Batch = Vec::with_capacity(BATCH);
    for entry in builder.build().filter_map(Result::ok) {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let path = entry.into_path();
        if !accepted(&path, root, options) {
            continue;
        }
        batch.push(path);
        if batch.len() == BATCH {
            let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH));
            if jobs.send((seq, full)).is_err() {
                return;
            }
            seq += 1;
        }
    }
    if !batch.is_empty() {
        let _ = jobs.send((seq, batch));
    }
}

/// The walker both strategies use: ripgrep's ignore rules, symbolic
/// links not followed, `.gitignore` honoured even outside a git repository.
fn walk_builder(root: &Path, options: &Options) -> WalkBuilder {
    let mut builder = WalkBuilder::new(root);
    builder
        .hidden(!options.hidden)
        .ignore(!options.ignored)
        .git_ignore(!options.ignored)
        .git_global(!options.ignored)
        .git_exclude(!options.ignored)
        .parents(!options.ignored)
        .require_git(false)
        .follow_links(false)
        .threads(options.threads);
    builder
}

/// Whether the `glob` filter lets the file at `path` be searched. The root
/// itself, when it is a file, always is.
fn accepted(path: &Path, root: &Path, options: &Options) -> bool {
    let Some(filter) = &options.filter else {
        return true;
    };
    let relative = path.strip_prefix(root).unwrap_or(path);
    relative.as_os_str().is_empty() || filter.accepts(relative)
}

/// The path as shown: joined onto `shown` as the walker builds it, or
/// relative to the root (no `./`) when no path was given.
fn display_path(path: &Path, root: &Path, shown: &str) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    let shown_path = if shown.is_empty() {
        path.strip_prefix(root).unwrap_or(path)
    } else {
        path
    };
    String::from_utf8_lossy(shown_path.as_os_str().as_bytes())
        .into_owned()
        .into_bytes()
}

/// Puts results back in order, applies the limit and the output cap.
fn collect(
    results: &mpsc::Receiver<(usize, FileResult)>,
    options: &Options,
    stop: &AtomicBool,
    flow: &(Mutex<Flow>, Condvar),
) -> Output {
    let mut output = Output::default();
    let mut waiting: BTreeMap<usize, FileResult> = BTreeMap::new();
    let mut next = 0;
    let limit = options.limit.unwrap_or(u64::MAX);
    let mut pending = 0usize;
    for (seq, result) in results {
        pending += result.out.len();
        waiting.insert(seq, result);
        while let Some(result) = waiting.remove(&next) {
            next += 1;
            pending -= result.out.len();
            if append(&mut output, result, limit, options) {
                stop.store(true, Ordering::Relaxed);
                return output;
            }
        }
        let (lock, cvar) = flow;
        if let Ok(mut state) = lock.lock() {
            state.next = next;
            state.pending = pending;
            if state.waiting > 0 {
                cvar.notify_all();
            }
        }
    }
    output
}

/// Appends one file's results; returns true when the output is complete
/// (limit or cap reached, with more results left out).
fn append(output: &mut Output, result: FileResult, limit: u64, options: &Options) -> bool {
    if result.out.is_empty() {
        return false;
    }
    let separator: &[u8] = if options.mode == Mode::Content
        && (options.before > 0 || options.after > 0)
        && !output.bytes.is_empty()
    {
        b"--\n"
    } else {
        b""
    };
    let room = options
        .max_output
        .saturating_sub(output.bytes.len() + separator.len());
    let wanted = limit.saturating_sub(output.count);
    // The last line that fits both the limit and the byte cap.
    let mut cut = None;
    for &(end, completes) in &result.marks {
        if end > room || completes > wanted {
            break;
        }
        cut = Some((end, completes));
    }
    let all = result.marks.last().copied();
    match cut {
        Some((end, completes)) if Some((end, completes)) == all => {
            output.bytes.extend_from_slice(separator);
            output.bytes.extend_from_slice(&result.out);
            output.count += completes;
            false
        }
        Some((end, completes)) => {
            output.bytes.extend_from_slice(separator);
            output.bytes.extend_from_slice(&result.out[..end]);
            output.count += completes;
            output.truncated = true;
            true
        }
        None => {
            output.truncated = true;
            true
        }
    }
}
