//! Bytes read, counted for a progress bar.
//!
//! A long evaluation is one call into the engine; the caller (Python's
//! `cranfield.progress.Progress.watch`) polls a shared counter from another thread
//! while the engine reads. When [`super::Reading::progress`] holds a counter, every
//! file, pipe or standard input the engine opens for a run or qrels is read through
//! [`Counted`], which adds the bytes it reads (as stored: compressed for gzip) to it.

use std::io::{self, Read};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A reader adding the bytes it reads to a counter shared with the caller.
pub struct Counted<R> {
    inner: R,
    bytes: Arc<AtomicU64>,
}

impl<R> Counted<R> {
    pub fn new(inner: R, bytes: Arc<AtomicU64>) -> Self {
        Counted { inner, bytes }
    }
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bytes.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_read_is_counted_once() {
        let text: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        let bytes = Arc::new(AtomicU64::new(0));
        let mut counted = Counted::new(&text[..], bytes.clone());
        let mut head = [0u8; 7];
        counted.read_exact(&mut head).unwrap();
        assert_eq!(bytes.load(Ordering::Relaxed), 7);
        let mut rest = Vec::new();
        counted.read_to_end(&mut rest).unwrap();
        assert_eq!([&head[..], &rest[..]].concat(), text);
        assert_eq!(bytes.load(Ordering::Relaxed), text.len() as u64);
    }
}
