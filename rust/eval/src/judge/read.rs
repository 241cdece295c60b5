//! Reading a TREC run or qrels from a regular file, plain or gzip, for the judge.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use cranfield_trec::gzip;
use cranfield_trec::{Kind, Options, Parsed};

use super::{counted, Input, JudgeError, Reading};

/// Reads TREC qrels from a regular file, plain or gzip: grades, or real-valued gains
/// with `reading.fractional`.
pub fn read_qrels(path: &Path, reading: &Reading) -> Result<Parsed, JudgeError> {
    let kind = if reading.fractional { Kind::FractionalQrels } else { Kind::Qrels };
    read_file(path, Input::Qrels, kind, reading)
}

/// Reads one TREC input of `kind` from a regular file, plain or gzip (decompressed as
/// it is read, to at most `reading.max_bytes`); `input` names it in errors.
pub fn read_file(
    path: &Path,
    input: Input,
    kind: Kind,
    reading: &Reading,
) -> Result<Parsed, JudgeError> {
    let unsupported = |reason| Err(JudgeError::Unsupported { input, reason });
    if path.as_os_str() == "-" {
        return unsupported("standard input");
    }
    let io = |error| JudgeError::Io { input, error };
    // stat first: opening a named pipe would wait for a writer
    if !std::fs::metadata(path).map_err(io)?.is_file() {
        return unsupported("not a regular file");
    }
    let mut file = std::fs::File::open(path).map_err(io)?;
    if !file.metadata().map_err(io)?.is_file() {
        return unsupported("not a regular file");
    }
    let mut head = Vec::with_capacity(2);
    (&mut file).take(2).read_to_end(&mut head).map_err(io)?;
    file.seek(SeekFrom::Start(0)).map_err(io)?;
    let options = Options {
        kind,
        latin1: reading.latin1,
        max_line: reading.max_line,
        threads: reading.threads.max(1),
    };
    let gzipped = head == gzip::MAGIC;
    let max_bytes = reading.max_bytes;
    if !gzipped {
        // each piece read by the thread that parses it
        let counter = reading.progress.as_deref();
        return cranfield_trec::positioned::read_file(&file, &options, counter).map_err(
            |e| match e {
                cranfield_trec::ReadError::Io(error) => JudgeError::Io { input, error },
                cranfield_trec::ReadError::Input(error) => JudgeError::Read { input, error },
            },
        );
    }
    let read = match &reading.progress {
        // (a counted file is read through `Read::read` alone, whose buffers std zeroes
        // first: 2-3% of the time, paid only when a progress bar is drawn)
        Some(bytes) => {
            let file = counted::Counted::new(file, bytes.clone());
            cranfield_trec::read_stored(file, gzipped, max_bytes, &options)
        }
        None => cranfield_trec::read_stored(file, gzipped, max_bytes, &options),
    };
    read.map_err(|e| match e {
        cranfield_trec::ReadError::Io(error) => JudgeError::Io { input, error },
        cranfield_trec::ReadError::Input(error) => JudgeError::Read { input, error },
    })
}
