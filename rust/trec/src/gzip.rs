//! gzip input (RFC 1952): the members of a file decompressed one after another, as the
//! reader reads them, so a compressed run is never held whole in memory.
//!
//! After a member the input may end, hold zero padding to its end (as `tar` and some
//! tape tools leave it), or start another member; anything else is an error, as in
//! cranfield's Python reader of other inputs (`cranfield/core/io/source.py`).

use std::io::{self, BufRead, Read};

use flate2::bufread::GzDecoder;

/// The first two bytes of a gzip member.
pub const MAGIC: [u8; 2] = [0x1f, 0x8b];

/// What can go wrong in gzip input, carried inside an `io::Error` (kind `Other`); see
/// [`GzipError::of`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GzipError {
    /// Bytes after a member that are neither zero padding nor another member.
    Trailing,
    /// The input ends inside a member.
    Truncated,
    /// The compressed data are invalid (the decoder's description).
    Corrupt(String),
    /// More decompressed bytes than the caller's limit.
    TooLarge(u64),
}

impl std::fmt::Display for GzipError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GzipError::Trailing => write!(f, "corrupt gzip data: trailing bytes"),
            GzipError::Truncated => {
                write!(f, "truncated gzip data (the file ends inside the stream)")
            }
            GzipError::Corrupt(why) => write!(f, "corrupt gzip data ({why})"),
            GzipError::TooLarge(limit) => write!(f, "more than {limit} bytes decompressed"),
        }
    }
}

impl std::error::Error for GzipError {}

impl GzipError {
    /// The gzip problem inside an I/O error, if it is one.
    pub fn of(err: &io::Error) -> Option<&GzipError> {
        err.get_ref().and_then(|inner| inner.downcast_ref::<GzipError>())
    }

    fn into_io(self) -> io::Error {
        io::Error::other(self)
    }
}

/// Decompresses every member of `inner` in turn; at most `limit` bytes in all.
pub struct Members<R: Read> {
    state: State<R>,
    limit: u64,
    total: u64,
}

enum State<R: Read> {
    Member(Box<GzDecoder<Peekable<R>>>),
    Done,
}

impl<R: Read> Members<R> {
    /// `inner` must start with a member (check [`MAGIC`] first).
    pub fn new(inner: R, limit: u64) -> Self {
        let decoder = GzDecoder::new(Peekable::new(inner));
        Members { state: State::Member(Box::new(decoder)), limit, total: 0 }
    }
}

/// A buffered reader that can look two bytes ahead across refills.
pub struct Peekable<R> {
    inner: R,
    buf: Box<[u8]>,
    pos: usize,
    end: usize,
}

impl<R: Read> Peekable<R> {
    pub fn new(inner: R) -> Self {
        Peekable { inner, buf: vec![0; 1 << 16].into_boxed_slice(), pos: 0, end: 0 }
    }

    /// At least `n` buffered bytes (fewer only at the end of the input).
    fn peek(&mut self, n: usize) -> io::Result<&[u8]> {
        while self.end - self.pos < n {
            self.buf.copy_within(self.pos..self.end, 0);
            self.end -= self.pos;
            self.pos = 0;
            let got = read_retrying(&mut self.inner, &mut self.buf[self.end..])?;
            if got == 0 {
                break;
            }
            self.end += got;
        }
        Ok(&self.buf[self.pos..self.end])
    }
}

fn read_retrying(reader: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        match reader.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

impl<R: Read> Read for Peekable<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(out.len());
        out[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: Read> BufRead for Peekable<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.pos == self.end {
            self.pos = 0;
            self.end = read_retrying(&mut self.inner, &mut self.buf)?;
        }
        Ok(&self.buf[self.pos..self.end])
    }

    fn consume(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.end);
    }
}

/// What follows a member: another member (true), or the end of the input, possibly
/// after zero padding (false).
fn another_member<R: Read>(inner: &mut Peekable<R>) -> io::Result<bool> {
    let head = inner.peek(2)?;
    if head.is_empty() {
        return Ok(false);
    }
    if head[0] != 0 {
        return if head.starts_with(&MAGIC) {
            Ok(true)
        } else {
            Err(GzipError::Trailing.into_io())
        };
    }
    loop {
        let buf = inner.fill_buf()?;
        if buf.is_empty() {
            return Ok(false);
        }
        if buf.iter().any(|&b| b != 0) {
            return Err(GzipError::Trailing.into_io());
        }
        let n = buf.len();
        inner.consume(n);
    }
}

fn classify(err: io::Error) -> io::Error {
    if GzipError::of(&err).is_some() {
        return err;
    }
    match err.kind() {
        io::ErrorKind::UnexpectedEof => GzipError::Truncated.into_io(),
        io::ErrorKind::InvalidInput | io::ErrorKind::InvalidData => {
            GzipError::Corrupt(err.to_string()).into_io()
        }
        _ => err,
    }
}

impl<R: Read> Read for Members<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let decoder = match &mut self.state {
                State::Done => return Ok(0),
                State::Member(d) => d,
            };
            let n = decoder.read(buf).map_err(classify)?;
            if n > 0 {
                self.total += n as u64;
                if self.total > self.limit {
                    return Err(GzipError::TooLarge(self.limit).into_io());
                }
                return Ok(n);
            }
            if buf.is_empty() {
                return Ok(0);
            }
            // the member ended: what follows it?
            let State::Member(decoder) = std::mem::replace(&mut self.state, State::Done) else {
                unreachable!()
            };
            let mut inner = decoder.into_inner();
            match another_member(&mut inner) {
                Ok(true) => self.state = State::Member(Box::new(GzDecoder::new(inner))),
                Ok(false) => return Ok(0),
                Err(e) => return Err(e),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::write::GzEncoder;
    use flate2::Compression;
    use std::io::Write;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), Compression::fast());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn unzip(input: &[u8], limit: u64) -> Result<Vec<u8>, GzipError> {
        let mut out = Vec::new();
        // a reader that hands out 3 bytes at a time: members end anywhere in a read
        struct Slow<'a>(&'a [u8]);
        impl Read for Slow<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = self.0.len().min(buf.len()).min(3);
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        for slow in [false, true] {
            out.clear();
            let result = if slow {
                Members::new(Slow(input), limit).read_to_end(&mut out)
            } else {
                Members::new(input, limit).read_to_end(&mut out)
            };
            if let Err(e) = result {
                return Err(GzipError::of(&e)
                    .cloned()
                    .unwrap_or(GzipError::Corrupt(e.to_string())));
            }
        }
        Ok(out)
    }

    #[test]
    fn members_padding_and_limits() {
        let one = gz(b"q1 Q0 d1 1 1.0 t\n");
        let two = [gz(b"a\n"), gz(b""), gz(b"b\n")].concat();
        assert_eq!(unzip(&one, u64::MAX).unwrap(), b"q1 Q0 d1 1 1.0 t\n");
        assert_eq!(unzip(&two, u64::MAX).unwrap(), b"a\nb\n");
        let padded = [one.clone(), vec![0; 100_000]].concat();
        assert_eq!(unzip(&padded, u64::MAX).unwrap(), b"q1 Q0 d1 1 1.0 t\n");
        assert_eq!(unzip(&one, 5), Err(GzipError::TooLarge(5)));
        for tail in [&b"x"[..], b"\x1f", b"\x1fx", b"\0\0x"] {
            let bad = [one.clone(), tail.to_vec()].concat();
            assert_eq!(unzip(&bad, u64::MAX), Err(GzipError::Trailing), "tail {tail:?}");
        }
    }

    #[test]
    fn truncated_and_corrupt_input_is_an_error() {
        let data: Vec<u8> =
            (0..20_000u32).flat_map(|i| format!("q{i} Q0 d 1 1 t\n").into_bytes()).collect();
        let whole = gz(&data);
        for cut in [2, 5, 10, 11, whole.len() / 2, whole.len() - 8, whole.len() - 1] {
            assert_eq!(unzip(&whole[..cut], u64::MAX), Err(GzipError::Truncated), "cut at {cut}");
        }
        let mut corrupt = whole.clone();
        corrupt[3] = 0xff; // reserved header flags
        assert!(matches!(unzip(&corrupt, u64::MAX), Err(GzipError::Corrupt(_))));
        let mut crc = whole.clone();
        let n = crc.len();
        crc[n - 6] ^= 1; // the CRC-32 of the data
        assert!(matches!(unzip(&crc, u64::MAX), Err(GzipError::Corrupt(_))));
    }
}
