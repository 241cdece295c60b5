//! Where ndeval's files come from: bytes in memory, or a regular file read piece by
//! piece by the thread that parses it (each half of a large file by a thread of its
//! own). A file is never held whole: a piece of whole lines is parsed while it is in the
//! cache, and what the parse keeps of it (docnos) is copied into a [`Keep`]. Read whole,
//! a 57 MB run and qrels cost 37 ms of page faults and copying before any parsing (a
//! quarter of the work); piece by piece the same bytes cost about 11 ms.

use std::fs::File;
use std::ops::Range;
use std::os::unix::fs::FileExt;

use cranfield_trec::room;

/// Files below this many bytes are read by one thread.
pub const SPLIT_BYTES: u64 = 1 << 20;

/// The bytes of a file read at once (a line longer than this grows the buffer).
const PIECE_BYTES: usize = 1 << 18;

/// The bytes read at a time while looking for the line end after a file's middle.
const CUT_WINDOW: usize = 1 << 16;

/// A file's bytes.
#[derive(Debug)]
pub enum Source<'d> {
    /// in memory (read and checked by the caller)
    Bytes(&'d [u8]),
    /// a regular file of `len` bytes (its length when it was opened), read here: a
    /// line longer than `max_line`, a NUL byte or an error of the system sends it
    /// [`Stop::Elsewhere`]
    File { file: File, len: u64, max_line: usize },
}

/// Why the lines of a file stopped before their end.
#[derive(Debug)]
pub enum Stop<E> {
    /// a problem with the file (the parser's)
    Problem(E),
    /// a file the engine does not read itself (a NUL byte, a line longer than the
    /// longest allowed, the file shorter than when it was opened, a lack of memory or
    /// another error of the system): the caller reads it then, and says what is wrong
    Elsewhere,
}

/// The bytes of a block of a [`Keep`].
const BLOCK_BYTES: usize = 1 << 18;

/// Room for copies of byte strings that live as long as the room: blocks filled one
/// after the other as copies are made (a block never moves), so memory is touched only
/// as far as the copies reach. A lack of memory is remembered ([`Keep::failed`]).
pub struct Keep<'a> {
    blocks: std::slice::IterMut<'a, Vec<u8>>,
    rest: &'a mut [u8],
    failed: bool,
}

impl<'a> Keep<'a> {
    /// Room in `room` (emptied) for copies of at most `bytes` bytes in all, each at
    /// most [`BLOCK_BYTES`] or a block of its own, or `None` for a lack of memory.
    pub fn new(room: &'a mut Vec<Vec<u8>>, bytes: usize) -> Option<Self> {
        // a block left for the next copy holds more than a quarter block, or that copy
        // fills the next one: at most four blocks a block's worth of bytes
        let blocks = bytes / (BLOCK_BYTES / 4) + 2;
        room.clear();
        room::reserve_exact(room, blocks).ok()?;
        room.resize_with(blocks, Vec::new);
        Some(Keep { blocks: room.iter_mut(), rest: Default::default(), failed: false })
    }

    /// A copy of `bytes` that lives as long as the room (empty after a lack of memory,
    /// which [`Keep::failed`] then tells).
    pub fn copy(&mut self, bytes: &[u8]) -> &'a [u8] {
        if self.rest.len() < bytes.len() && !self.next_block(bytes.len()) {
            self.failed = true;
            return &[];
        }
        let (head, tail) = std::mem::take(&mut self.rest).split_at_mut(bytes.len());
        head.copy_from_slice(bytes);
        self.rest = tail;
        head
    }

    /// A fresh block for a copy of `bytes` bytes: false for a lack of memory.
    fn next_block(&mut self, bytes: usize) -> bool {
        let Some(block) = self.blocks.next() else { return false };
        let size = BLOCK_BYTES.max(bytes);
        if room::reserve_exact(block, size).is_err() {
            return false;
        }
        block.resize(size, 0);
        self.rest = block.as_mut_slice();
        true
    }

    /// Whether a copy lacked memory.
    pub fn failed(&self) -> bool {
        self.failed
    }
}

impl Source<'_> {
    /// The bytes of the file.
    pub fn len(&self) -> u64 {
        match self {
            Source::Bytes(data) => data.len() as u64,
            Source::File { len, .. } => *len,
        }
    }

    /// Whether the file has no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `out.len()` bytes of the file from `at`, or `None` when they cannot be had.
    fn read_at(&self, out: &mut [u8], at: u64) -> Option<()> {
        match self {
            Source::Bytes(data) => {
                let at = usize::try_from(at).ok()?;
                out.copy_from_slice(data.get(at..at + out.len())?);
            }
            Source::File { file, .. } => file.read_exact_at(out, at).ok()?,
        }
        Some(())
    }

    /// Where a file of at least [`SPLIT_BYTES`] is cut in two: after the first line
    /// end at or after its middle (`None`: a smaller file, or one whose middle line
    /// runs to the end).
    pub fn cut<E>(&self) -> Result<Option<u64>, Stop<E>> {
        let len = self.len();
        if len < SPLIT_BYTES {
            return Ok(None);
        }
        if let Source::Bytes(data) = self {
            let half = data.len() / 2;
            let cut = memchr::memchr(b'\n', &data[half..]).map(|at| (half + at + 1) as u64);
            return Ok(cut.filter(|&cut| cut < len));
        }
        let mut window = vec![0u8; CUT_WINDOW];
        let mut at = len / 2;
        while at < len {
            let part = &mut window[..CUT_WINDOW.min((len - at) as usize)];
            self.read_at(part, at).ok_or(Stop::Elsewhere)?;
            if let Some(end) = memchr::memchr(b'\n', part) {
                let cut = at + end as u64 + 1;
                return Ok((cut < len).then_some(cut));
            }
            at += part.len() as u64;
        }
        Ok(None)
    }

    /// `take` of the lines of `range` in pieces of whole lines, in order, each with
    /// the number of lines of the range before it; `take` gives the number of lines of
    /// its piece. A piece ends with a line end, but the last (an empty range is one
    /// empty piece). Gives the number of lines of the range.
    ///
    /// After a problem, the rest of a file is still read for what sends it elsewhere
    /// (as when it was checked whole before it was parsed).
    pub fn lines<E>(
        &self,
        range: Range<u64>,
        take: impl FnMut(&[u8], usize) -> Result<usize, E>,
    ) -> Result<usize, Stop<E>> {
        self.lines_by(range, PIECE_BYTES, take)
    }

    /// [`Source::lines`] reading a file at most `piece_bytes` at a time (unless a line
    /// is longer).
    fn lines_by<E>(
        &self,
        range: Range<u64>,
        piece_bytes: usize,
        mut take: impl FnMut(&[u8], usize) -> Result<usize, E>,
    ) -> Result<usize, Stop<E>> {
        let max_line = match self {
            Source::Bytes(data) => {
                let part = &data[range.start as usize..range.end as usize];
                return take(part, 0).map_err(Stop::Problem);
            }
            Source::File { max_line, .. } => *max_line,
        };
        // a line of at most `max_line` bytes and its end fit the buffer
        let size = piece_bytes.min(max_line.saturating_add(1)).max(1);
        let mut buf = room::with_capacity::<u8>(size).map_err(|_| Stop::Elsewhere)?;
        buf.resize(size, 0);
        let (mut at, mut filled, mut before) = (range.start, 0usize, 0usize);
        let mut problem = None;
        loop {
            let want = ((buf.len() - filled) as u64).min(range.end - at) as usize;
            let new = &mut buf[filled..filled + want];
            self.read_at(new, at).ok_or(Stop::Elsewhere)?;
            if memchr::memchr(0, new).is_some() {
                return Err(Stop::Elsewhere);
            }
            at += want as u64;
            filled += want;
            let last = at == range.end;
            let cut = if last {
                filled
            } else {
                memchr::memrchr(b'\n', &buf[..filled]).map_or(0, |end| end + 1)
            };
            let open = if last {
                filled - memchr::memrchr(b'\n', &buf[..filled]).map_or(0, |end| end + 1)
            } else {
                filled - cut
            };
            if open > max_line {
                return Err(Stop::Elsewhere);
            }
            if cut == 0 && !last {
                // no line ends in the buffer: it grows (up to a longest line and its end)
                let more = buf.len().min(max_line.saturating_add(1) - buf.len());
                room::reserve_exact(&mut buf, more).map_err(|_| Stop::Elsewhere)?;
                buf.resize(buf.len() + more, 0);
                continue;
            }
            if problem.is_none() {
                match take(&buf[..cut], before) {
                    Ok(lines) => before += lines,
                    Err(e) => problem = Some(e),
                }
            }
            if last {
                break;
            }
            buf.copy_within(cut..filled, 0);
            filled -= cut;
        }
        match problem {
            Some(e) => Err(Stop::Problem(e)),
            None => Ok(before),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file in a fresh temporary directory, removed with it.
    struct Temp(std::path::PathBuf);

    impl Temp {
        fn new(bytes: &[u8]) -> Temp {
            static COUNT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
            let n = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let name = format!("cranfield-ndeval-source-{}-{n}", std::process::id());
            let path = std::env::temp_dir().join(name);
            std::fs::write(&path, bytes).unwrap();
            Temp(path)
        }

        fn source(&self, max_line: usize) -> Source<'static> {
            let file = File::open(&self.0).unwrap();
            let len = file.metadata().unwrap().len();
            Source::File { file, len, max_line }
        }
    }

    impl Drop for Temp {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    /// Random text: lines of 0-30 bytes (white space, `\r`, letters), with or without
    /// a last line end.
    fn text(state: &mut u64, lines: usize) -> Vec<u8> {
        let mut next = |n: u64| {
            *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (*state >> 33) % n
        };
        let mut out = Vec::new();
        for _ in 0..lines {
            for _ in 0..next(31) {
                out.push(b"ab c\t\rxyz19"[next(11) as usize]);
            }
            out.push(b'\n');
        }
        if next(2) == 0 {
            out.pop();
        }
        out
    }

    /// The lines `split_lines` sees in `piece` (one trailing line end dropped).
    fn count(piece: &[u8]) -> usize {
        piece.strip_suffix(b"\n").unwrap_or(piece).split(|&c| c == b'\n').count()
    }

    /// The pieces of `range` and the lines before each, and the lines in all.
    fn pieces(
        source: &Source,
        range: Range<u64>,
        piece_bytes: usize,
    ) -> (Vec<(Vec<u8>, usize)>, usize) {
        let mut seen = Vec::new();
        let take = |piece: &[u8], before| -> Result<usize, ()> {
            seen.push((piece.to_vec(), before));
            Ok(count(piece))
        };
        let lines = source.lines_by(range, piece_bytes, take).unwrap();
        (seen, lines)
    }

    #[test]
    fn pieces_are_whole_lines_that_join_into_the_range() {
        let mut state = 7u64;
        for case in 0..60 {
            let data = text(&mut state, case % 13);
            let temp = Temp::new(&data);
            let source = temp.source(usize::MAX);
            let len = data.len() as u64;
            // a range from a line start (the halves start at one) to the end
            let starts: Vec<u64> = std::iter::once(0)
                .chain(
                    data.iter().enumerate().filter(|(_, &c)| c == b'\n').map(|(i, _)| i as u64 + 1),
                )
                .filter(|&s| s < len || len == 0)
                .collect();
            for &start in &starts {
                let part = &data[start as usize..];
                for piece_bytes in [1, 2, 3, 5, 8, 64, 1 << 18] {
                    let (seen, lines) = pieces(&source, start..len, piece_bytes);
                    let joined: Vec<u8> = seen.iter().flat_map(|(p, _)| p.clone()).collect();
                    assert_eq!(joined, part, "case {case} from {start} by {piece_bytes}");
                    let mut before = 0;
                    for (k, (piece, at)) in seen.iter().enumerate() {
                        assert!(k + 1 == seen.len() || piece.ends_with(b"\n"), "a cut line");
                        assert_eq!(*at, before);
                        before += count(piece);
                    }
                    assert_eq!(lines, count(part), "case {case} from {start} by {piece_bytes}");
                    assert_eq!(
                        Source::Bytes(&data)
                            .lines_by(start..len, 1, |p, _| Ok::<_, ()>(count(p)))
                            .unwrap(),
                        lines
                    );
                }
            }
        }
    }

    #[test]
    fn a_file_is_cut_where_its_bytes_are() {
        let mut state = 99u64;
        for lines in [40_000, 70_000, 90_000] {
            let data = text(&mut state, lines);
            let temp = Temp::new(&data);
            let from_file = temp.source(usize::MAX).cut::<()>().unwrap();
            let in_memory = Source::Bytes(&data).cut::<()>().unwrap();
            assert_eq!(from_file, in_memory);
            assert_eq!(from_file.is_some(), data.len() as u64 >= SPLIT_BYTES);
        }
        // one line across the middle to the end: no cut
        let mut data = vec![b'x'; SPLIT_BYTES as usize + 10];
        data[10] = b'\n';
        let temp = Temp::new(&data);
        assert_eq!(temp.source(usize::MAX).cut::<()>().unwrap(), None);
    }

    #[test]
    fn what_the_python_reader_must_see_is_sent_elsewhere() {
        let elsewhere = |data: &[u8], max_line: usize, piece_bytes: usize| {
            let temp = Temp::new(data);
            let len = data.len() as u64;
            let got =
                temp.source(max_line).lines_by(0..len, piece_bytes, |p, _| Ok::<_, ()>(count(p)));
            matches!(got, Err(Stop::Elsewhere))
        };
        for piece_bytes in [1, 4, 16, 1 << 18] {
            assert!(elsewhere(b"ab\ncd\0e\nf\n", usize::MAX, piece_bytes), "a NUL byte");
            // the longest line allowed, and one byte longer (also the last, unended)
            assert!(!elsewhere(b"abc\nabcde\nab\n", 5, piece_bytes));
            assert!(elsewhere(b"abc\nabcdef\nab\n", 5, piece_bytes));
            assert!(!elsewhere(b"abc\nabcde", 5, piece_bytes));
            assert!(elsewhere(b"abc\nabcdef", 5, piece_bytes));
        }
        // a problem first, a NUL byte later: the file is still read to its end
        let data = b"bad\nok\nok\0\n";
        let temp = Temp::new(data);
        let take = |p: &[u8], _| if p.starts_with(b"bad") { Err("bad") } else { Ok(count(p)) };
        let got = temp.source(usize::MAX).lines_by(0..data.len() as u64, 4, take);
        assert!(matches!(got, Err(Stop::Elsewhere)));
        let data = b"bad\nok\nok\n";
        let temp = Temp::new(data);
        let got = temp.source(usize::MAX).lines_by(0..data.len() as u64, 4, take);
        assert!(matches!(got, Err(Stop::Problem("bad"))));
        // a file shorter than when it was opened
        let temp = Temp::new(b"ab\ncd\n");
        let source = temp.source(usize::MAX);
        std::fs::write(&temp.0, b"ab\n").unwrap();
        let got = source.lines_by(0..6, 2, |p, _| Ok::<_, ()>(count(p)));
        assert!(matches!(got, Err(Stop::Elsewhere)));
    }

    #[test]
    fn copies_live_as_long_as_the_room() {
        let mut room = Vec::new();
        let mut keep = Keep::new(&mut room, 3 * BLOCK_BYTES).unwrap();
        let big = vec![b'z'; BLOCK_BYTES + 5];
        let mut kept = Vec::new();
        for i in 0..20_000usize {
            let word = format!("doc{i}");
            kept.push((keep.copy(word.as_bytes()), word));
        }
        let whole = keep.copy(&big);
        assert!(!keep.failed());
        assert_eq!(whole, &big[..]);
        assert!(kept.iter().all(|(copy, word)| *copy == word.as_bytes()));
    }
}
