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
    let mut lines = 0u64; // line ends before the current piece
    let mut since = 0usize; // bytes since the last line end
    for piece in data.chunks(PIECE) {
        if let Some(nul) = memchr::memchr(0, piece) {
            let line = lines + memchr::memchr_iter(b'\n', &piece[..nul]).count() as u64 + 1;
            return Err(Error { problem: Problem::Nul, line: Some(line) });
        }
        match memchr::memchr2(b'\n', b'\r', piece) {
            None => since = since.saturating_add(piece.len()),
            Some(first) if since.saturating_add(first) > max_line => {
                since = max_line.saturating_add(1)
            }
            Some(_) => {
                let last = memchr::memrchr2(b'\n', b'\r', piece).unwrap_or(0);
                since = piece.len() - last - 1;
            }
        }
        if since > max_line {
            return Err(Error { problem: Problem::LongLine, line: Some(lines + 1) });
        }
        lines += memchr::memchr_iter(b'\n', piece).count() as u64;
    }
    Ok(())
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
