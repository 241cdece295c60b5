//! Large text buffers backed by transparent huge pages where the system offers them.
//!
//! Filling a fresh buffer faults its memory in one 4 KiB page at a time; a buffer of
//! several MiB read from a file is thousands of page faults. On Linux, where
//! transparent huge pages are enabled "always" or "madvise", [`huge`] asks for 2 MiB
//! pages on the part of the buffer that is whole 2 MiB blocks (`madvise(MADV_HUGEPAGE)`),
//! so a block is one fault. Only buffers that are filled (nearly) whole should ask:
//! a huge page is resident as soon as one byte of it is touched. Elsewhere, and where
//! the advice is refused, the buffer is an ordinary one.

use crate::room::{self, NoRoom};

/// The size of a transparent huge page on the systems that have them (x86-64, arm64
/// with 4 KiB pages).
pub const HUGE_PAGE: usize = 1 << 21;

/// An empty buffer with room for `capacity` bytes, its memory advised as huge pages
/// (see the module's documentation), or [`NoRoom`] when the memory cannot be had.
pub fn huge<T>(capacity: usize) -> Result<Vec<T>, NoRoom> {
    let mut buffer = room::with_capacity(capacity)?;
    advise_spare(&mut buffer, capacity);
    Ok(buffer)
}

/// Advises the next `items` items of `buffer`'s spare capacity (at most all of it) as
/// huge pages: call it on a buffer about to be filled with that many items.
pub fn advise_spare<T>(buffer: &mut Vec<T>, items: usize) {
    let spare = buffer.spare_capacity_mut();
    let bytes = items.min(spare.len()) * std::mem::size_of::<T>();
    if let Some((start, len)) = huge_blocks(spare.as_mut_ptr() as usize, bytes) {
        advise(start, len);
    }
}

/// The whole [`HUGE_PAGE`] blocks inside `len` bytes at address `at`: their start and
/// length, or `None` when there is none.
pub fn huge_blocks(at: usize, len: usize) -> Option<(usize, usize)> {
    let start = at.checked_add(HUGE_PAGE - 1)? & !(HUGE_PAGE - 1);
    let end = at.checked_add(len)? & !(HUGE_PAGE - 1);
    (end > start).then(|| (start, end - start))
}

#[cfg(target_os = "linux")]
fn advise(start: usize, len: usize) {
    // SAFETY: the range lies inside an allocation this process owns (a Vec's
    // capacity) and is aligned to a page; MADV_HUGEPAGE changes no byte of it, only
    // how the kernel backs it. A refusal (no THP support) leaves ordinary pages.
    unsafe {
        libc::madvise(start as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise(_start: usize, _len: usize) {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn blocks_are_the_aligned_inside() {
        assert_eq!(huge_blocks(0, HUGE_PAGE), Some((0, HUGE_PAGE)));
        assert_eq!(huge_blocks(0, HUGE_PAGE - 1), None);
        assert_eq!(huge_blocks(1, HUGE_PAGE), None);
        assert_eq!(huge_blocks(1, 2 * HUGE_PAGE), Some((HUGE_PAGE, HUGE_PAGE)));
        assert_eq!(huge_blocks(HUGE_PAGE - 4096, 3 * HUGE_PAGE), Some((HUGE_PAGE, 2 * HUGE_PAGE)));
        assert_eq!(huge_blocks(5, 0), None);
        assert_eq!(huge_blocks(usize::MAX - 10, 100), None);
        for at in [0, 4096, 12345 * 4096, HUGE_PAGE * 7 + 8] {
            for len in [0, 4096, HUGE_PAGE, 3 * HUGE_PAGE + 1, 9 << 20] {
                if let Some((start, got)) = huge_blocks(at, len) {
                    assert!(start >= at && start + got <= at + len);
                    assert_eq!((start % HUGE_PAGE, got % HUGE_PAGE), (0, 0));
                    assert!(start - at < HUGE_PAGE && at + len - (start + got) < HUGE_PAGE);
                } else {
                    assert!(len < 2 * HUGE_PAGE || at % HUGE_PAGE == 0 && len < HUGE_PAGE);
                }
            }
        }
    }

    #[test]
    fn a_huge_buffer_is_an_ordinary_empty_vec() {
        for capacity in [0, 1, 4096, HUGE_PAGE, 9 << 20] {
            let buffer: Vec<u8> = huge(capacity).unwrap();
            assert!(buffer.is_empty() && buffer.capacity() >= capacity);
        }
        assert_eq!(huge::<u8>(usize::MAX / 2), Err(NoRoom));
        // filled by a read, longer and shorter than its capacity, it holds the bytes
        let text: Vec<u8> = (0..(5 << 20) + 17).map(|i| (i % 251) as u8).collect();
        for capacity in [0, 100, 3 << 20, text.len(), text.len() + 1, 8 << 20] {
            let mut buffer = huge(capacity).unwrap();
            std::io::Cursor::new(&text).read_to_end(&mut buffer).unwrap();
            assert_eq!(buffer, text);
            // advised again on what is left, it keeps its bytes
            advise_spare(&mut buffer, usize::MAX);
            buffer.reserve(5 << 20);
            advise_spare(&mut buffer, 4 << 20);
            buffer.extend_from_slice(&text[..3]);
            assert_eq!(&buffer[..text.len()], &text[..]);
            assert_eq!(&buffer[text.len()..], &text[..3]);
        }
    }
}
