//! A plain regular file read by the threads that parse it.
//!
//! [`crate::read`] has one thread read the text (and check it for NUL bytes and long
//! lines) while the others parse: on a machine of few cores that reader is a thread
//! more than there are cores, and its copying and checking is work done once, in
//! order. Here every worker takes the next piece itself: it finds where the piece ends
//! (the first `\n` at or after the piece's target size, looked for in small windows
//! read with `pread`), lets the next worker go on from there, reads its piece with
//! `pread` into a buffer of its own (reused for its next pieces) and parses it, NUL
//! bytes and long lines included ([`Piece::parse`] checks every line).
//!
//! The pieces are smaller than [`CHUNK`] when the file is small or its end is near
//! ([`target`]), so that every thread has work to the end. The result is
//! [`crate::read`]'s for the same file whatever the pieces (columns are per piece; the
//! rows, their lines and every value are the same). A file in which any piece has a
//! problem (or that shrinks while it is read, or for whose buffers memory is lacking)
//! is read again from its start by [`crate::read`], whose checks give the problem that
//! is reported: the same error as ever, only later.

use std::fs::File;
use std::io::{Seek, SeekFrom};
use std::os::unix::fs::FileExt;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

use crate::{assemble, room, Options, Parsed, Piece, ReadError, BOM, CHUNK};

/// The smallest piece target: smaller pieces cost more in columns than they save.
pub const MIN_PIECE: u64 = 1 << 20;

/// The bytes read at a time while the end of a piece is looked for.
const WINDOW: usize = 1 << 16;

/// The smallest and the largest piece targets.
#[derive(Clone, Copy, Debug)]
pub struct Sizes {
    pub min: u64,
    pub max: u64,
}

/// [`MIN_PIECE`] and [`CHUNK`].
pub const SIZES: Sizes = Sizes { min: MIN_PIECE, max: CHUNK as u64 };

/// The size a piece starting with `remaining` bytes of the file left should have,
/// with `threads` threads parsing: `sizes.max`, or less near the end of the file (half
/// of what is left for each thread), never below `sizes.min`.
pub fn target(remaining: u64, threads: usize, sizes: Sizes) -> u64 {
    let share = remaining / (2 * threads.max(1) as u64);
    share.clamp(sizes.min, sizes.max.max(sizes.min))
}

/// Where the next piece starts and its number.
struct Next {
    start: u64,
    index: usize,
}

/// What the workers share.
struct Shared<'a> {
    file: &'a File,
    len: u64,
    options: &'a Options,
    counter: Option<&'a AtomicU64>,
    sizes: Sizes,
    next: Mutex<Next>,
    /// Set when the file must be read again by [`crate::read`] (see the module's
    /// documentation); the workers stop.
    again: AtomicBool,
    pieces: Mutex<Vec<(usize, Piece)>>,
    panicked: Mutex<Option<Box<dyn std::any::Any + Send>>>,
}

impl Shared<'_> {
    /// The next piece to parse (its number, start and end), or None at the end.
    fn claim(&self) -> Option<(usize, u64, u64)> {
        let mut next = self.next.lock().unwrap_or_else(|e| e.into_inner());
        if next.start >= self.len || self.again.load(Ordering::Relaxed) {
            return None;
        }
        let start = next.start;
        let threads = self.options.threads.max(1);
        let Some(end) = self.end_of_piece(start + target(self.len - start, threads, self.sizes))
        else {
            self.again.store(true, Ordering::Relaxed);
            return None;
        };
        let index = next.index;
        *next = Next { start: end, index: index + 1 };
        Some((index, start, end))
    }

    /// The end of the piece whose target end is `from`: just after the first `\n` at
    /// or after `from`, or the end of the file; None when the file cannot be read.
    fn end_of_piece(&self, mut from: u64) -> Option<u64> {
        let mut window = [0u8; WINDOW];
        while from < self.len {
            let part = &mut window[..WINDOW.min((self.len - from) as usize)];
            self.file.read_exact_at(part, from).ok()?;
            if let Some(at) = memchr::memchr(b'\n', part) {
                return Some(from + at as u64 + 1);
            }
            from += part.len() as u64;
        }
        Some(self.len)
    }

    /// Claim, read and parse pieces until there are none left (or one has a problem).
    fn work(&self) {
        let mut buffer: Vec<u8> = Vec::new();
        while let Some((index, start, end)) = self.claim() {
            let Some(piece) = self.piece(&mut buffer, index, start, end) else {
                self.again.store(true, Ordering::Relaxed);
                return;
            };
            self.pieces.lock().unwrap_or_else(|e| e.into_inner()).push((index, piece));
        }
    }

    /// Piece `index` (bytes `start..end`) read into `buffer` and parsed; None when it
    /// cannot be read or has a problem that is found early.
    fn piece(&self, buffer: &mut Vec<u8>, index: usize, start: u64, end: u64) -> Option<Piece> {
        let size = usize::try_from(end - start).ok()?;
        if buffer.len() < size {
            buffer.clear(); // (nothing to copy when it grows)
            room::reserve_exact(buffer, size).ok()?;
            crate::buffer::advise_spare(buffer, size);
            buffer.resize(size, 0);
        }
        let text = &mut buffer[..size];
        self.file.read_exact_at(text, start).ok()?;
        if let Some(counter) = self.counter {
            counter.fetch_add(size as u64, Ordering::Relaxed);
        }
        let text = if index == 0 && !self.options.latin1 {
            text.strip_prefix(BOM).unwrap_or(text)
        } else {
            text
        };
        let piece = Piece::parse(text, self.options, false);
        piece.early.is_none().then_some(piece)
    }
}

/// Read and parse the plain regular file `file` (from its start) as [`crate::read`]
/// does, each piece read by the thread that parses it (see the module's
/// documentation). `counter`, when given, gets the bytes read added as they are read.
pub fn read_file(
    file: &File,
    options: &Options,
    counter: Option<&AtomicU64>,
) -> Result<Parsed, ReadError> {
    read_file_in(file, options, counter, SIZES)
}

/// [`read_file`] with piece targets between `sizes.min` and `sizes.max` bytes.
pub fn read_file_in(
    file: &File,
    options: &Options,
    counter: Option<&AtomicU64>,
    sizes: Sizes,
) -> Result<Parsed, ReadError> {
    let len = file.metadata().map_err(ReadError::io)?.len();
    let shared = Shared {
        file,
        len,
        options,
        counter,
        sizes,
        next: Mutex::new(Next { start: 0, index: 0 }),
        again: AtomicBool::new(false),
        pieces: Mutex::new(Vec::new()),
        panicked: Mutex::new(None),
    };
    let work = || {
        if let Err(payload) = catch_unwind(AssertUnwindSafe(|| shared.work())) {
            shared.again.store(true, Ordering::Relaxed);
            shared.panicked.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(payload);
        }
    };
    let gate = room::Gate::default();
    std::thread::scope(|scope| {
        // this thread is one of the workers
        room::spawn_workers(scope, options.threads.max(1) - 1, &gate, &work);
        work();
    });
    if let Some(payload) = shared.panicked.into_inner().unwrap_or_else(|e| e.into_inner()) {
        resume_unwind(payload);
    }
    if shared.again.into_inner() {
        let mut file = file;
        file.seek(SeekFrom::Start(0)).map_err(ReadError::io)?;
        return crate::read(file, options);
    }
    let mut pieces = shared.pieces.into_inner().unwrap_or_else(|e| e.into_inner());
    pieces.sort_unstable_by_key(|(i, _)| *i);
    assemble(pieces.into_iter().map(|(_, piece)| piece).collect()).map_err(ReadError::Input)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::Random;
    use crate::{Error, Kind, Problem, Values};
    use std::io::Write;
    use std::sync::atomic::AtomicUsize;

    /// A file holding `data` in the temporary directory, removed when dropped.
    struct Temp(std::path::PathBuf);

    impl Temp {
        fn new(data: &[u8]) -> Temp {
            static NEXT: AtomicUsize = AtomicUsize::new(0);
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let path = std::env::temp_dir()
                .join(format!("cranfield-positioned-{}-{n}", std::process::id()));
            std::fs::File::create(&path).unwrap().write_all(data).unwrap();
            Temp(path)
        }

        fn file(&self) -> File {
            File::open(&self.0).unwrap()
        }
    }

    impl Drop for Temp {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    /// Every row's query id, doc id and value (bits), the lines, the query starts, the
    /// tag: what a parsed input says, whatever its pieces.
    type Flat = (Vec<(Vec<u8>, Vec<u8>, u64)>, Option<Vec<i64>>, Vec<i64>, Option<Vec<u8>>);

    fn flat(parsed: &Parsed) -> Flat {
        let mut rows = Vec::new();
        for c in &parsed.columns {
            for row in 0..c.query_id.len() {
                let value = match &c.values {
                    Values::Scores(v) | Values::Reals(v) => v[row].to_bits(),
                    Values::Grades(v) => v[row] as u64,
                };
                rows.push((c.query_id.get(row).to_vec(), c.doc_id.get(row).to_vec(), value));
            }
        }
        assert_eq!(rows.len(), parsed.rows);
        (rows, parsed.lines.clone(), parsed.query_starts.clone(), parsed.tag.clone())
    }

    fn outcome(result: Result<Parsed, ReadError>) -> Result<Flat, Error> {
        match result {
            Ok(parsed) => Ok(flat(&parsed)),
            Err(ReadError::Input(err)) => Err(err),
            Err(ReadError::Io(err)) => panic!("{err}"),
        }
    }

    /// A random run or qrels text: line ends of every kind, comments, blank lines, no
    /// last line end at times, and with `bad` one of the problems a reader reports.
    fn random_text(random: &mut Random, kind: Kind, bad: bool) -> Vec<u8> {
        let mut text = Vec::new();
        if random.below(5) == 0 {
            text.extend_from_slice(BOM);
        }
        let lines = random.below(60);
        for row in 0..lines {
            let q = random.below(4);
            match random.below(12) {
                0 => text.extend_from_slice(b"# comment\n"),
                1 => text.extend_from_slice(b" \t\n"),
                _ => {}
            }
            let line = match kind {
                Kind::Run => format!("{q} Q0 d{row} {row} {}.{} run", random.below(9), row),
                _ => format!("{q} 0 d{row} {}", random.below(3)),
            };
            text.extend_from_slice(line.as_bytes());
            let end: &[u8] = [&b"\n"[..], b"\r\n", b"\r", b"\n"][random.below(4) as usize];
            text.extend_from_slice(end);
        }
        if bad && !text.is_empty() {
            let at = random.below(text.len() as u64) as usize;
            match random.below(5) {
                0 => text[at] = 0,                              // a NUL byte
                1 => text.insert(at, b' '),                     // (harmless or a split field)
                2 => drop(text.splice(at..at, *b" x y")),       // too many fields (qrels)
                3 => drop(text.splice(at..at, vec![b'z'; 90])), // a long line
                _ => drop(text.splice(at..at, *b"\n1 Q0 d\n")), // too few fields
            };
        }
        if random.below(4) == 0 {
            while text.last().is_some_and(|b| b"\r\n".contains(b)) {
                text.pop();
            }
        }
        text
    }

    #[test]
    fn the_same_as_the_reader_with_one_reading_thread() {
        let mut random = Random(0x5851_f42d_4c95_7f2d);
        for case in 0..1500 {
            let kind = [Kind::Run, Kind::Qrels, Kind::FractionalQrels][case % 3];
            let text = random_text(&mut random, kind, case % 2 == 1);
            let temp = Temp::new(&text);
            let min = 1 + random.below(40);
            let sizes = Sizes { min, max: min + random.below(100) };
            for threads in 1..=3 {
                let options = Options { kind, latin1: case % 7 == 0, max_line: 80, threads };
                let want = outcome(crate::read(&text[..], &options));
                let counter = AtomicU64::new(0);
                let got = outcome(read_file_in(&temp.file(), &options, Some(&counter), sizes));
                assert_eq!(got, want, "case {case}, {threads} threads, {sizes:?}");
                if want.is_ok() {
                    assert_eq!(counter.load(Ordering::Relaxed), text.len() as u64);
                }
            }
        }
    }

    #[test]
    fn pieces_shrink_near_the_end_and_never_below_the_least() {
        let sizes = Sizes { min: 10, max: 100 };
        assert_eq!(target(10_000, 2, sizes), 100);
        assert_eq!(target(200, 2, sizes), 50);
        assert_eq!(target(12, 2, sizes), 10);
        assert_eq!(target(0, 1, SIZES), MIN_PIECE);
        assert_eq!(target(u64::MAX, 4, SIZES), CHUNK as u64);
    }

    #[test]
    fn a_file_of_several_default_pieces_and_an_empty_file() {
        let mut text = Vec::new();
        let mut row = 0u64;
        while text.len() < 3 * CHUNK {
            text.extend_from_slice(format!("{} Q0 d{row} 1 {row} t\n", row / 1000).as_bytes());
            row += 1;
        }
        let temp = Temp::new(&text);
        for threads in [1, 2, 4] {
            let options = Options { kind: Kind::Run, latin1: false, max_line: 1 << 20, threads };
            let got = read_file(&temp.file(), &options, None).unwrap();
            assert!(got.columns.len() > 3);
            assert_eq!(flat(&got), flat(&crate::read(&text[..], &options).unwrap()));
        }
        let empty = Temp::new(b"");
        let options = Options { kind: Kind::Run, latin1: false, max_line: 80, threads: 2 };
        assert_eq!(read_file(&empty.file(), &options, None).unwrap().rows, 0);
        // a NUL byte at the very end: reported by its line, as the reader reports it
        let mut nul = text.clone();
        nul.push(0);
        let temp = Temp::new(&nul);
        let lines = Some(row + 1);
        match read_file(&temp.file(), &options, None) {
            Err(ReadError::Input(err)) => {
                assert_eq!(err, Error { problem: Problem::Nul, line: lines })
            }
            other => panic!("{:?}", other.map(|p| p.rows)),
        }
    }
}
