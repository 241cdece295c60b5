//! Allocations whose size depends on the input, made so that a lack of memory is an
//! error value instead of the end of the process.
//!
//! Rust's default answer to a failed allocation (`Vec::with_capacity`, `push`,
//! `extend_from_slice` growing a vector) is to abort the process, which under an
//! address-space or control-group limit ends cranfield with a Rust message instead of
//! one clear line. Every buffer and column the readers size from their input is
//! therefore had through these helpers (`Vec::try_reserve*`), and a failure becomes
//! [`NoRoom`], reported as [`crate::Problem::Memory`]. The checks are made once per
//! buffer or column, or per row only as a comparison with the capacity (the growth
//! itself is out of line), so the parser's loop is no slower.
//!
//! The helpers also mark their thread as asking fallibly while they ask
//! ([`fallibly`], [`is_fallible`]): a global allocator that ends the process on a
//! failed allocation (the Python extension's, `rust/engine/src/out_of_memory.rs`)
//! leaves those failures to the caller, which words them.

use std::cell::Cell;

thread_local! {
    static FALLIBLE: Cell<bool> = const { Cell::new(false) };
}

/// Runs `ask` (a `try_reserve`, a `read_to_end` that reports `OutOfMemory`) with its
/// thread marked as asking for memory fallibly: an allocation that fails meanwhile is
/// the caller's to report.
pub fn fallibly<R>(ask: impl FnOnce() -> R) -> R {
    let was = FALLIBLE.with(|f| f.replace(true));
    let out = ask();
    FALLIBLE.with(|f| f.set(was));
    out
}

/// Whether this thread is inside [`fallibly`].
pub fn is_fallible() -> bool {
    FALLIBLE.with(Cell::get)
}

/// Memory could not be had for a buffer or a column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NoRoom;

impl From<NoRoom> for crate::Error {
    fn from(_: NoRoom) -> Self {
        crate::Error { problem: crate::Problem::Memory, line: None }
    }
}

/// An empty vector with room for exactly `capacity` items, or [`NoRoom`].
pub fn with_capacity<T>(capacity: usize) -> Result<Vec<T>, NoRoom> {
    let mut out = Vec::new();
    fallibly(|| out.try_reserve_exact(capacity)).map_err(|_| NoRoom)?;
    Ok(out)
}

/// Room for `more` items in `vec` beyond its length (exactly, if it must grow).
pub fn reserve_exact<T>(vec: &mut Vec<T>, more: usize) -> Result<(), NoRoom> {
    fallibly(|| vec.try_reserve_exact(more)).map_err(|_| NoRoom)
}

/// Room for `more` items in `vec` beyond its length: nothing to do when it has it (the
/// common case, a comparison); else it grows as `push` grows it (at least doubling),
/// or [`NoRoom`]. Call it before `push`/`extend_from_slice` in a loop.
#[inline(always)]
pub fn room<T>(vec: &mut Vec<T>, more: usize) -> Result<(), NoRoom> {
    if vec.capacity() - vec.len() >= more {
        return Ok(());
    }
    grow(vec, more)
}

#[cold]
#[inline(never)]
fn grow<T>(vec: &mut Vec<T>, more: usize) -> Result<(), NoRoom> {
    fallibly(|| vec.try_reserve(more)).map_err(|_| NoRoom)
}

/// Starts `work` on a new scoped thread, or `None` when the system refuses one (its
/// stack is memory too: under an address-space limit it may not be had, where
/// `Scope::spawn` would panic). The caller then makes do with the threads it has, or
/// does the work itself.
pub fn spawn<'scope, T, F>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    work: F,
) -> Option<std::thread::ScopedJoinHandle<'scope, T>>
where
    F: FnOnce() -> T + Send + 'scope,
    T: Send + 'scope,
{
    std::thread::Builder::new().spawn_scoped(scope, work).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asking_fallibly_is_marked_while_it_lasts() {
        assert!(!is_fallible());
        let inner = fallibly(|| (is_fallible(), fallibly(is_fallible), is_fallible()));
        assert_eq!(inner, (true, true, true));
        assert!(!is_fallible());
        let other = std::thread::spawn(|| fallibly(|| std::thread::spawn(is_fallible).join()));
        assert!(!other.join().unwrap().unwrap(), "a thread's own mark");
    }

    #[test]
    fn room_is_had_or_refused_never_aborted() {
        let mut v: Vec<u64> = with_capacity(10).unwrap();
        assert!(v.is_empty() && v.capacity() >= 10);
        for i in 0..1000u64 {
            room(&mut v, 1).unwrap();
            let before = v.capacity();
            v.push(i);
            assert_eq!(v.capacity(), before, "push never grows after room()");
        }
        assert_eq!(v, (0..1000).collect::<Vec<_>>());
        // growth doubles (amortised), as push's does
        let mut w: Vec<u8> = Vec::new();
        let mut grown = 0;
        for _ in 0..100_000 {
            let cap = w.capacity();
            room(&mut w, 3).unwrap();
            grown += usize::from(w.capacity() != cap);
            w.extend_from_slice(b"abc");
        }
        assert!(grown < 30, "grew {grown} times");
        // sizes no allocator can give are refused, and the vector is untouched
        let huge = usize::MAX / 2;
        assert_eq!(with_capacity::<u64>(huge).err(), Some(NoRoom));
        assert_eq!(with_capacity::<u8>(isize::MAX as usize - 7).err(), Some(NoRoom));
        assert_eq!(reserve_exact(&mut v, huge), Err(NoRoom));
        assert_eq!(room(&mut v, huge), Err(NoRoom));
        assert_eq!(room(&mut w, usize::MAX), Err(NoRoom));
        assert_eq!(v.len(), 1000);
        assert_eq!(w.len(), 300_000);
        reserve_exact(&mut v, 5).unwrap();
        assert!(v.capacity() >= 1005);
        let err: crate::Error = NoRoom.into();
        assert_eq!(err, crate::Error { problem: crate::Problem::Memory, line: None });
    }
}
