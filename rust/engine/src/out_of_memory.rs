//! The extension's global allocator: the system's, with one clear line on a failed
//! allocation that nothing can report.
//!
//! Rust answers an allocation that fails outside a `try_reserve` (a `Vec::push`, a
//! hash map growing, a thread's small vector) by printing "memory allocation of N
//! bytes failed" and aborting the process. Buffers sized by the input are had
//! fallibly and reported as errors of their own (`cranfield_trec::room`), but the
//! many small allocations around them cannot all be, and under an address-space or
//! control-group limit any of them may be the one that fails.
//!
//! So a command line run by the `cranfield` CLI registers the line it prints when
//! Python runs out of memory ([`set_out_of_memory_line`]); an allocation that then
//! fails while its thread is not asking fallibly ([`cranfield_trec::room::is_fallible`])
//! writes that line to stderr and ends the process with status 2 at once (`_exit`: no
//! destructor or handler runs, which could need memory; output files are written
//! atomically, so none is left half-written). Without a registered line (cranfield
//! used as a library) a failure is left to Rust's default, as in any extension.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};

use pyo3::prelude::*;

/// The system allocator, ending the process with the registered line when memory
/// that must be had is not.
pub struct Allocator;

#[global_allocator]
static ALLOCATOR: Allocator = Allocator;

/// The line to print (with its newline), or null. Lines replaced are leaked on
/// purpose: another thread may be printing one as it is replaced.
static LINE: AtomicPtr<Vec<u8>> = AtomicPtr::new(std::ptr::null_mut());

/// Set by the first thread to end the process: the others wait for the end.
static ENDING: AtomicBool = AtomicBool::new(false);

// SAFETY: every call is passed on to `System` unchanged; only a null result (a
// failure) is looked at, and `failed` either returns (the null is passed on) or ends
// the process.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        checked(System.alloc(layout))
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        checked(System.alloc_zeroed(layout))
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        checked(System.realloc(ptr, layout, new_size))
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

#[inline(always)]
fn checked(ptr: *mut u8) -> *mut u8 {
    if ptr.is_null() {
        failed();
    }
    ptr
}

/// A failed allocation: the caller's to report when it asked fallibly or no line is
/// registered; else the line and the end of the process.
#[cold]
#[inline(never)]
fn failed() {
    let line = LINE.load(Ordering::Acquire);
    if line.is_null() || cranfield_trec::room::is_fallible() {
        return;
    }
    // SAFETY: a registered line is never freed; `write`, `_exit` and `pause`
    // allocate nothing
    unsafe {
        if ENDING.swap(true, Ordering::AcqRel) {
            // another thread is printing the line: one line, then the end of all
            loop {
                libc::pause();
            }
        }
        let line = &*line;
        libc::write(2, line.as_ptr().cast(), line.len());
        libc::_exit(2);
    }
}

/// Registers the line (without its newline) printed on stderr, with status 2, when
/// memory the engine must have cannot be had; an empty line unregisters it.
#[pyfunction]
pub fn set_out_of_memory_line(line: &str) {
    let new = if line.is_empty() {
        std::ptr::null_mut()
    } else {
        Box::into_raw(Box::new(format!("{line}\n").into_bytes()))
    };
    LINE.store(new, Ordering::Release);
}
