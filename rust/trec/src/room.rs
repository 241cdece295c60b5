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

use marks::mark;

/// Runs `ask` (a `try_reserve`, a `read_to_end` that reports `OutOfMemory`) with its
/// thread marked as asking for memory fallibly: an allocation that fails meanwhile is
/// the caller's to report.
pub fn fallibly<R>(ask: impl FnOnce() -> R) -> R {
    if is_fallible() {
        return ask(); // (nested)
    }
    let _mark = mark();
    ask()
}

/// Whether this thread is inside [`fallibly`].
pub fn is_fallible() -> bool {
    marks::is_marked()
}

/// The threads inside [`fallibly`], as a table of their `pthread_self` values.
///
/// Not a thread-local: the allocator asks while memory is lacking, and the first use
/// of a thread-local of a library loaded by `dlopen` (the Python extension) allocates
/// (glibc then ends the process: "cannot allocate memory for thread-local data").
#[cfg(target_os = "linux")]
mod marks {
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// More threads than cranfield's engine runs at once; a thread that finds none
    /// free goes unmarked (a failure is then the process's end, with its line).
    const SLOTS: usize = 64;
    static MARKED: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];

    fn this_thread() -> usize {
        // SAFETY: pthread_self has no preconditions and allocates nothing
        unsafe { libc::pthread_self() as usize }
    }

    pub fn is_marked() -> bool {
        let me = this_thread();
        MARKED.iter().any(|slot| slot.load(Ordering::Acquire) == me)
    }

    /// The slot taken for this thread, freed when dropped (also when unwinding).
    pub struct Mark(Option<&'static AtomicUsize>);

    impl Drop for Mark {
        fn drop(&mut self) {
            if let Some(slot) = self.0 {
                slot.store(0, Ordering::Release);
            }
        }
    }

    pub fn mark() -> Mark {
        let me = this_thread();
        let free = |slot: &&AtomicUsize| {
            slot.compare_exchange(0, me, Ordering::AcqRel, Ordering::Relaxed).is_ok()
        };
        Mark(MARKED.iter().find(free))
    }
}

/// Elsewhere a thread-local (no `dlopen` caveat is known there).
#[cfg(not(target_os = "linux"))]
mod marks {
    use std::cell::Cell;

    thread_local! {
        static MARKED: Cell<bool> = const { Cell::new(false) };
    }

    pub fn is_marked() -> bool {
        MARKED.with(Cell::get)
    }

    pub struct Mark;

    impl Drop for Mark {
        fn drop(&mut self) {
            MARKED.with(|m| m.set(false));
        }
    }

    pub fn mark() -> Mark {
        MARKED.with(|m| m.set(true));
        Mark
    }
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

/// Memory that must be free for a new thread to start (see [`spawn`]).
pub const THREAD_HEADROOM: usize = 4 << 20;

/// Starts `work` on a new scoped thread, or `None` when the system refuses one (its
/// stack is memory too: under an address-space limit it may not be had, where
/// `Scope::spawn` would panic) or when less than [`THREAD_HEADROOM`] of memory is
/// free. The caller then makes do with the threads it has, or does the work itself.
///
/// A thread's first use of the thread-locals of a library loaded by `dlopen` (the
/// Python extension; the standard library uses them as the thread starts) allocates
/// inside glibc, which ends the process when that fails. So the headroom is checked
/// just before, and `spawn` returns once the thread has started, before the threads
/// already working can use the memory up meanwhile.
pub fn spawn<'scope, T, F>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    work: F,
) -> Option<std::thread::ScopedJoinHandle<'scope, T>>
where
    F: FnOnce() -> T + Send + 'scope,
    T: Send + 'scope,
{
    with_capacity::<u8>(THREAD_HEADROOM).ok()?;
    let started = std::sync::Arc::new(Gate::default());
    let signal = std::sync::Arc::clone(&started);
    let handle = std::thread::Builder::new()
        .spawn_scoped(scope, move || {
            signal.open();
            drop(signal);
            work()
        })
        .ok()?;
    started.wait();
    Some(handle)
}

/// Drops `value` on a thread of its own when one can be had (with the headroom
/// [`spawn`] asks for), else here: freeing a large input's memory (its pages unmapped
/// one by one) is work its owner need not wait for.
pub fn drop_aside<T: Send + 'static>(value: T) {
    if with_capacity::<u8>(THREAD_HEADROOM).is_err() {
        return drop(value);
    }
    // (when no thread can be started, the closure and `value` with it are dropped here)
    let _ = std::thread::Builder::new().spawn(move || drop(value));
}

/// A one-way signal between threads: [`Gate::wait`] returns once [`Gate::open`] has
/// been called (a mutex and a condition variable: futexes, no thread-local of their
/// own). [`spawn`] waits on one for its thread to start, the threads of
/// [`spawn_workers`] on one for all to have started.
#[derive(Default)]
pub struct Gate {
    open: std::sync::Mutex<bool>,
    opened: std::sync::Condvar,
}

impl Gate {
    fn wait(&self) {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        while !*open {
            open = self.opened.wait(open).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn open(&self) {
        *self.open.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.opened.notify_all();
    }
}

/// Starts up to `threads` copies of `worker` with [`spawn`] (fewer when the system
/// refuses one), none of which begins before every one has started (`gate`, made by
/// the caller outside the scope): the threads' start-up allocations (see [`spawn`])
/// are all made before any work uses memory. Returns how many started; with none,
/// the caller does the work itself.
pub fn spawn_workers<'scope, F>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    threads: usize,
    gate: &'scope Gate,
    worker: &'scope F,
) -> usize
where
    F: Fn() + Sync,
{
    let started = (0..threads)
        .take_while(|_| {
            spawn(scope, move || {
                gate.wait();
                worker()
            })
            .is_some()
        })
        .count();
    gate.open();
    started
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
        let unwound = std::panic::catch_unwind(|| fallibly(|| panic!("in a request")));
        assert!(unwound.is_err() && !is_fallible(), "the mark goes when unwinding");
        // as many threads asking at once as there are marks, and more
        let barrier = std::sync::Barrier::new(80);
        let seen: Vec<bool> = std::thread::scope(|scope| {
            let asks: Vec<_> = (0..80)
                .map(|_| scope.spawn(|| fallibly(|| (barrier.wait(), is_fallible()).1)))
                .collect();
            asks.into_iter().map(|a| a.join().unwrap()).collect()
        });
        // (other tests of this binary may hold a few marks meanwhile)
        let marked = seen.iter().filter(|&&m| m).count();
        assert!((48..=64).contains(&marked), "{marked} of 80 threads marked");
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
