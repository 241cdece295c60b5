//! The checks made while a file is read into memory, before it is parsed.
//!
//! Text read from a file is taken in pieces of [`PIECE`] bytes, and the reading stops
//! at the first NUL byte (binary data) or the first line that grows past the longest
//! allowed, each reported by its line (counted by `\n`). The length check sees the
//! line that a piece starts in (the others are shorter than a piece unless the limit
//! is below it); the parser measures every line.

use crate::{Error, Problem};

/// The size of the pieces a file is read in.
pub const PIECE: usize = 1 << 20;

/// Check `data` as it would be checked while read in pieces of [`PIECE`] bytes.
pub fn check_text(data: &[u8], max_line: usize) -> Result<(), Error> {
    let mut checker = Checker::new(max_line);
    data.chunks(PIECE).try_for_each(|piece| checker.feed(piece))
}

/// The checks, fed piece by piece as the input is read.
#[derive(Clone, Debug)]
pub struct Checker {
    max_line: usize,
    lines: u64,   // line ends before the current piece
    since: usize, // bytes since the last line end
}

impl Checker {
    pub fn new(max_line: usize) -> Self {
        Checker { max_line, lines: 0, since: 0 }
    }

    /// Check the next piece (each of [`PIECE`] bytes but the last).
    pub fn feed(&mut self, piece: &[u8]) -> Result<(), Error> {
        if let Some(nul) = memchr::memchr(0, piece) {
            let line = self.lines + memchr::memchr_iter(b'\n', &piece[..nul]).count() as u64 + 1;
            return Err(Error { problem: Problem::Nul, line: Some(line) });
        }
        let max_line = self.max_line;
        match memchr::memchr2(b'\n', b'\r', piece) {
            None => self.since = self.since.saturating_add(piece.len()),
            Some(first) if self.since.saturating_add(first) > max_line => {
                self.since = max_line.saturating_add(1)
            }
            Some(_) => {
                let last = memchr::memrchr2(b'\n', b'\r', piece).unwrap_or(0);
                self.since = piece.len() - last - 1;
            }
        }
        if self.since > max_line {
            return Err(Error { problem: Problem::LongLine, line: Some(self.lines + 1) });
        }
        self.lines += memchr::memchr_iter(b'\n', piece).count() as u64;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nul_is_found_by_its_line() {
        let err = check_text(b"a\nb\r\nc\0", 100).unwrap_err();
        assert_eq!(err, Error { problem: Problem::Nul, line: Some(3) });
        let mut data = vec![b'x'; PIECE + 10];
        data[PIECE - 1] = b'\n';
        data[PIECE + 5] = 0;
        assert_eq!(check_text(&data, 1 << 26).unwrap_err().line, Some(2));
    }

    #[test]
    fn long_lines_are_seen_where_they_cross_a_piece() {
        let data = vec![b'x'; 3 * PIECE];
        let err = check_text(&data, 2 * PIECE).unwrap_err();
        assert_eq!(err, Error { problem: Problem::LongLine, line: Some(1) });
        let first = [b"x".repeat(200), b"\n".to_vec()].concat();
        assert_eq!(check_text(&first, 100).unwrap_err().line, Some(1));
        // a long line after the first of a piece is the parser's to find
        assert!(check_text(&[b"short\n".to_vec(), first].concat(), 100).is_ok());
        assert!(check_text(b"short\nlines\n", 100).is_ok());
    }
}
