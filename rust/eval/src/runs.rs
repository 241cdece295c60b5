//! Several runs evaluated at once: one worker per core takes the next run, so a small
//! run (too small for the reader's, the judge's and the kernels' own threads) keeps
//! every core busy; the results come back in input order, or the first failing run's
//! error, exactly as when the runs are evaluated one after the other.

use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use cranfield_trec::room::{spawn_workers, Gate};

/// `work(&mut scratch, i, inner)` for every item `i` in `0..items`: the results in order
/// of `i`, or the error of the first failing item in that order.
///
/// With `parallel`, `threads >= 2` and several items, `min(threads, items)` scoped
/// workers each take the next item (so at most that many are in progress, and in
/// memory, at once), each with its own `scratch` (from `make`) reused from item to item;
/// `work` is then given `inner = 1`, the threads its own work may use (the cores are
/// taken by the workers). Otherwise the items run in turn on the calling thread with
/// `inner = threads` (see [`parallel`]).
///
/// Once an item fails no later item is started; the items already started finish. Every
/// item before a failing one was started before it (items are taken in order), so the
/// error returned is the first failing item's in input order, whatever the timing, and
/// no result is returned with it. A panic in `work` reaches the caller (as from
/// `std::thread::scope`) once every worker has stopped.
pub fn in_order<S, R, E, M, F>(
    items: usize,
    threads: usize,
    parallel: bool,
    make: M,
    work: F,
) -> Result<Vec<R>, E>
where
    R: Send,
    E: Send,
    M: Fn() -> S + Sync,
    F: Fn(&mut S, usize, usize) -> Result<R, E> + Sync,
{
    let threads = threads.max(1);
    if threads == 1 || items <= 1 || !parallel {
        let mut scratch = make();
        return (0..items).map(|i| work(&mut scratch, i, threads)).collect();
    }
    let next = AtomicUsize::new(0);
    // the least item known to have failed (usize::MAX: none)
    let failed = AtomicUsize::new(usize::MAX);
    let done: Mutex<Vec<Option<Result<R, E>>>> = Mutex::new((0..items).map(|_| None).collect());
    let worker = || {
        let mut scratch = make();
        loop {
            let i = next.fetch_add(1, Ordering::SeqCst);
            if i >= items || i > failed.load(Ordering::SeqCst) {
                return;
            }
            let result = work(&mut scratch, i, 1);
            if result.is_err() {
                failed.fetch_min(i, Ordering::SeqCst);
            }
            done.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(result);
        }
    };
    let gate = Gate::default();
    std::thread::scope(|scope| {
        // the calling thread is one of the workers, the others as many as the system
        // starts (see `cranfield_trec::room::spawn`; as `judge::parallel::map`)
        spawn_workers(scope, threads.min(items) - 1, &gate, &worker);
        worker();
    });
    let mut out = Vec::with_capacity(items);
    for result in done.into_inner().unwrap_or_else(|e| e.into_inner()) {
        match result {
            Some(Ok(r)) => out.push(r),
            Some(Err(e)) => return Err(e),
            None => unreachable!("an item is skipped only after an earlier one failed"),
        }
    }
    Ok(out)
}

/// Runs from this size of text on are evaluated one after the other, each on every core:
/// their own work (reading, judging, measuring) then keeps the cores busy, and only
/// one is in memory at a time.
pub const PARALLEL_BELOW: u64 = 64 << 20;

/// How much a gzip file is taken to expand (TREC text compresses about 5 to 8 times).
const GZIP_RATIO: u64 = 8;

/// The size in bytes of the text of a run file: its length, times [`GZIP_RATIO`] for a
/// gzip file; None when it is not a regular file (never opened: a named pipe would
/// wait for a writer) or cannot be read.
pub fn text_size(path: &Path) -> Option<u64> {
    if !std::fs::metadata(path).ok()?.is_file() {
        return None;
    }
    let mut file = std::fs::File::open(path).ok()?;
    let length = file.metadata().ok()?.len();
    let mut head = [0u8; 2];
    let gzip = file.read_exact(&mut head).is_ok() && head == cranfield_trec::gzip::MAGIC;
    Some(if gzip { length.saturating_mul(GZIP_RATIO) } else { length })
}

/// Whether runs of these sizes (bytes of text, [`text_size`]) are worth evaluating in
/// parallel: when each is smaller than [`PARALLEL_BELOW`] (a file that cannot be sized
/// counts as small: its evaluation fails at once).
pub fn parallel(sizes: impl IntoIterator<Item = Option<u64>>) -> bool {
    sizes.into_iter().all(|size| size.map_or(true, |s| s < PARALLEL_BELOW))
}

#[cfg(test)]
mod tests {
    use super::{in_order, parallel, PARALLEL_BELOW};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    #[test]
    fn results_come_in_input_order_whatever_the_threads() {
        for threads in [0, 1, 2, 3, 8] {
            for items in [0, 1, 2, 5, 100] {
                let out: Result<Vec<usize>, ()> = in_order(
                    items,
                    threads,
                    true,
                    || (),
                    |_, i, _| {
                        // later items finish first
                        std::thread::sleep(Duration::from_micros(((items - i) % 7) as u64 * 50));
                        Ok(i * i)
                    },
                );
                assert_eq!(out, Ok((0..items).map(|i| i * i).collect()));
            }
        }
    }

    #[test]
    fn the_inner_threads_are_one_when_items_run_in_parallel() {
        let inner = |items, threads| {
            in_order(items, threads, true, || (), |_, _, inner| Ok::<_, ()>(inner)).unwrap()
        };
        assert_eq!(inner(3, 4), vec![1, 1, 1]);
        assert_eq!(inner(1, 4), vec![4]);
        assert_eq!(inner(3, 1), vec![1, 1, 1]);
        let alone = in_order(3, 4, false, || (), |_, _, inner| Ok::<_, ()>(inner));
        assert_eq!(alone, Ok(vec![4, 4, 4]));
    }

    #[test]
    fn gzip_files_count_as_their_text() {
        let dir = std::env::temp_dir().join(format!("cranfield-runs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (plain, gzip) = (dir.join("plain.txt"), dir.join("run.gz"));
        std::fs::write(&plain, b"q1 Q0 d1 1 1.0 t\n").unwrap();
        std::fs::write(&gzip, [0x1f, 0x8b, 8, 0]).unwrap();
        assert_eq!(super::text_size(&plain), Some(17));
        assert_eq!(super::text_size(&gzip), Some(4 * super::GZIP_RATIO));
        assert_eq!(super::text_size(&dir.join("missing")), None);
        assert_eq!(super::text_size(&dir), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn large_runs_are_not_evaluated_in_parallel() {
        assert!(parallel([Some(0), Some(PARALLEL_BELOW - 1), None]));
        assert!(parallel([]));
        assert!(!parallel([Some(10), Some(PARALLEL_BELOW)]));
    }

    #[test]
    fn the_error_is_the_first_failing_items_in_input_order() {
        for threads in [1, 2, 3, 8] {
            for failing in [vec![0], vec![4], vec![9], vec![2, 3], vec![1, 8], vec![5, 6, 7]] {
                let out: Result<Vec<usize>, usize> = in_order(
                    10,
                    threads,
                    true,
                    || (),
                    |_, i, _| {
                        // a later failure finishes before an earlier one
                        std::thread::sleep(Duration::from_micros((10 - i as u64) * 200));
                        if failing.contains(&i) {
                            Err(i)
                        } else {
                            Ok(i)
                        }
                    },
                );
                assert_eq!(out, Err(failing[0]), "threads {threads}, failing {failing:?}");
            }
        }
    }

    #[test]
    fn no_item_starts_after_a_failure_and_scratch_is_per_worker() {
        let started = AtomicUsize::new(0);
        let made = AtomicUsize::new(0);
        let out: Result<Vec<()>, usize> = in_order(
            1000,
            2,
            true,
            || made.fetch_add(1, Ordering::SeqCst),
            |_, i, _| {
                started.fetch_add(1, Ordering::SeqCst);
                if i == 3 {
                    return Err(i);
                }
                std::thread::sleep(Duration::from_millis(1));
                Ok(())
            },
        );
        assert_eq!(out, Err(3));
        // item 3 fails at once; the other worker, 1 ms per item, stops long before the end
        assert!(started.load(Ordering::SeqCst) < 500);
        assert_eq!(made.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn a_panic_reaches_the_caller() {
        for threads in [1, 2] {
            let caught = std::panic::catch_unwind(|| {
                in_order(
                    20,
                    threads,
                    true,
                    || (),
                    |_, i, _| {
                        assert_ne!(i, 3, "item 3 panics");
                        Ok::<_, ()>(i)
                    },
                )
            });
            assert!(caught.is_err());
        }
    }

    #[test]
    fn each_worker_reuses_its_scratch() {
        let out: Result<Vec<usize>, ()> = in_order(
            50,
            2,
            true,
            || 0usize,
            |count, _, _| {
                *count += 1;
                Ok(*count)
            },
        );
        // each worker counts its own items: the counts sum to the items done per worker
        let counts = out.unwrap();
        let ones = counts.iter().filter(|&&c| c == 1).count();
        assert!((1..=2).contains(&ones));
    }
}
