//! One piece of an input: its lines split into fields, its rows as columns.

use crate::number::{parse_real_relevance, parse_relevance, parse_score, GradeError};
use crate::room::{self, room, NoRoom};
use crate::{Columns, Kind, Options, Problem, QueryIds, Strings, Values};

/// Whitespace between fields (Python's `bytes.split()`, less the line ends, which never
/// occur inside a line).
#[inline]
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | 0x0b | 0x0c)
}

/// The most fields a line is split into: one more than the six a run needs, so that a
/// qrels line with too many is seen.
const MAX_FIELDS: usize = 7;

/// One line of a piece, split into fields.
struct Split {
    /// Where the line ends (its line end, or the end of the text) and the next begins.
    end: usize,
    next: usize,
    /// The first [`Split::count`] fields, as ranges from the line's start.
    fields: [(usize, usize); MAX_FIELDS],
    count: usize,
}

/// Split the line starting at `start` into fields (maximal runs of bytes other than
/// [`is_space`]; at most [`MAX_FIELDS`] are kept) and find its end: the first `\n`,
/// `\r` or `\r\n`. `specials` must be at `start` (every byte of `text` below `start`
/// returned); it is left after the line end.
///
/// The bytes are visited only where [`Specials`] finds a byte at or below `b' '`:
/// every separator and line end is one, and so are other control characters, which
/// belong to fields and are passed over.
#[inline]
fn split_line(text: &[u8], start: usize, specials: &mut Specials) -> Split {
    let mut fields = [(0usize, 0usize); MAX_FIELDS];
    let mut count = 0;
    let mut field_start = start;
    let mut close = |at: usize, from: usize| {
        if at > from && count < MAX_FIELDS {
            fields[count] = (from - start, at - start);
            count += 1;
        }
    };
    let (end, next) = loop {
        let Some(at) = specials.next() else {
            close(text.len(), field_start);
            break (text.len(), text.len());
        };
        match text[at] {
            b'\n' => {
                close(at, field_start);
                break (at, at + 1);
            }
            b'\r' => {
                close(at, field_start);
                if text.get(at + 1) == Some(&b'\n') {
                    specials.next(); // the `\n` of `\r\n`
                    break (at, at + 2);
                }
                break (at, at + 1);
            }
            b if is_space(b) => {
                close(at, field_start);
                field_start = at + 1;
            }
            _ => {} // another control character: part of a field
        }
    };
    Split { end, next, fields, count }
}

/// `0x01` in every byte of a word.
const ONES: u64 = u64::from_ne_bytes([1; 8]);
/// `0x80` in every byte of a word.
const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
/// The bytes a block of [`Specials`] has.
const BLOCK: usize = 64;

/// The candidates of a block: bit `i` set when byte `i` may be at or below `b' '`.
///
/// In each word `w` of eight bytes, `(w - 0x21…) & !w & 0x80…` sets the high bit of
/// every byte at or below `0x20` (and of a few others just above one, where the
/// subtraction borrows; the caller checks each candidate); multiplying the high bits,
/// shifted to the low bit of each byte, by `0x0102…80` gathers them in the top byte
/// (each pair of bits lands on its own position, so nothing carries).
#[inline]
fn candidates(block: &[u8; BLOCK]) -> u64 {
    let mut bits = 0;
    for (i, word) in block.chunks_exact(8).enumerate() {
        let word = u64::from_le_bytes(word.try_into().expect("eight bytes"));
        let high = word.wrapping_sub(ONES * 0x21) & !word & HIGHS;
        bits |= ((high >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * i);
    }
    bits
}

/// The positions of the bytes at or below `b' '` in a text, in order, found a block
/// of [`BLOCK`] bytes at a time ([`candidates`]) without a branch per byte.
struct Specials<'a> {
    text: &'a [u8],
    /// The position of the block in `bits`.
    base: usize,
    /// The candidates of the block at `base` not yet returned.
    bits: u64,
}

impl<'a> Specials<'a> {
    fn new(text: &'a [u8]) -> Self {
        Specials { text, base: 0, bits: Self::block(text, 0) }
    }

    /// The candidates of the block at `base` (bytes past the end count as `0xff`).
    #[inline]
    fn block(text: &[u8], base: usize) -> u64 {
        match text.get(base..base + BLOCK) {
            Some(block) => candidates(block.try_into().expect("a block")),
            None => {
                let mut block = [0xff; BLOCK];
                let rest = &text[base.min(text.len())..];
                block[..rest.len()].copy_from_slice(rest);
                candidates(&block)
            }
        }
    }
}

impl Iterator for Specials<'_> {
    type Item = usize;

    /// The position of the next byte at or below `b' '`.
    #[inline]
    fn next(&mut self) -> Option<usize> {
        loop {
            while self.bits != 0 {
                let at = self.base + self.bits.trailing_zeros() as usize;
                self.bits &= self.bits - 1;
                if self.text[at] <= b' ' {
                    return Some(at);
                }
            }
            if self.base + BLOCK >= self.text.len() {
                self.base = self.text.len();
                return None;
            }
            self.base += BLOCK;
            self.bits = Self::block(self.text, self.base);
        }
    }
}

/// The result of parsing one piece; line numbers are counted from the piece's start.
#[derive(Debug)]
pub struct Piece {
    pub columns: Columns,
    /// The number of rows.
    pub rows: usize,
    /// The line of each row; None while row `r` is line `r + 1` (no line skipped).
    pub lines: Option<Vec<u32>>,
    /// The tag of the last row (runs).
    pub tag: Option<Vec<u8>>,
    /// Lines in the piece (as `bytes.splitlines` counts them).
    pub line_count: u64,
    /// A problem that stops the reading at this piece, and its line.
    pub early: Option<(Problem, u64)>,
    /// The first row with a problem found after all pieces are read, in the order
    /// they are reported: a NaN score or a grade that is not a number, a grade out of
    /// range, a query id, a doc id.
    pub late: [Option<(usize, Problem)>; 4],
    /// Integer grades: the first row whose grade has a non-zero fractional part
    /// (truncated, as `atol` does), and the grade as written.
    pub fractional: Option<(usize, Vec<u8>)>,
}

/// Whether a grade that [`parse_relevance`] read has a non-zero digit after its point
/// (`2.5`, `.25`; not `2`, `2.0`, `1.`): the part `atol` drops.
#[inline]
fn has_fraction(grade: &[u8]) -> bool {
    match memchr::memchr(b'.', grade) {
        Some(point) => grade[point + 1..].iter().any(|&b| b != b'0'),
        None => false,
    }
}

/// The number of lines `bytes.splitlines()` finds in `text` (`\r\n` is one line end).
fn count_lines(text: &[u8]) -> u64 {
    let mut count = 0u64;
    let mut pos = 0;
    while let Some(i) = memchr::memchr2(b'\n', b'\r', &text[pos..]) {
        let end = pos + i;
        count += 1;
        pos =
            if text[end] == b'\r' && text.get(end + 1) == Some(&b'\n') { end + 2 } else { end + 1 };
    }
    count + u64::from(pos < text.len())
}

/// Append an id; false when it is not valid UTF-8 (in UTF-8 mode); [`NoRoom`] when the
/// column cannot grow.
#[inline]
fn push_id(out: &mut Strings, field: &[u8], latin1: bool) -> Result<bool, NoRoom> {
    room(&mut out.offsets, 1)?;
    let valid = if latin1 {
        if field.is_ascii() {
            room(&mut out.data, field.len())?;
            out.data.extend_from_slice(field);
        } else {
            room(&mut out.data, 2 * field.len())?; // two bytes at most per character
            for &b in field {
                if b < 0x80 {
                    out.data.push(b);
                } else {
                    out.data.extend_from_slice(&[0xC0 | (b >> 6), 0x80 | (b & 0x3F)]);
                }
            }
        }
        true
    } else {
        room(&mut out.data, field.len())?;
        out.data.extend_from_slice(field);
        field.is_ascii() || std::str::from_utf8(field).is_ok()
    };
    // a piece holds at most CHUNK bytes plus one line of at most `max_line` (the
    // binding keeps it under 1 GiB), so twice that fits in an i32 offset
    out.offsets.push(i32::try_from(out.data.len()).expect("piece too large for 32-bit offsets"));
    Ok(valid)
}

impl Piece {
    /// The line of row `row`, counted from the piece's start.
    pub fn line(&self, row: usize) -> u64 {
        self.lines.as_ref().map_or(row as u64 + 1, |lines| u64::from(lines[row]))
    }

    /// Parse the lines of `text`. `nul_free`: the caller has already checked that
    /// `text` holds no NUL byte ([`crate::check::Checker`]), so it is not searched again.
    /// When memory for the columns cannot be had, the piece has no rows and its early
    /// problem is [`Problem::Memory`] (at line 0: it has none).
    pub fn parse(text: &[u8], options: &Options, nul_free: bool) -> Piece {
        Piece::try_parse(text, options, nul_free).unwrap_or_else(|NoRoom| Piece {
            columns: Columns {
                query_id: QueryIds::default(),
                doc_id: Strings { data: Vec::new(), offsets: vec![0] },
                values: Values::Scores(Vec::new()),
            },
            rows: 0,
            lines: None,
            tag: None,
            line_count: 0,
            early: Some((Problem::Memory, 0)),
            late: [None, None, None, None],
            fractional: None,
        })
    }

    fn try_parse(text: &[u8], options: &Options, nul_free: bool) -> Result<Piece, NoRoom> {
        let kind = options.kind;
        let expect = kind.fields();
        // room for rows of 32 bytes (TREC run lines are rarely shorter): the vectors of
        // one value per row seldom grow (growing copies them and touches more memory)
        let estimate = text.len() / 32 + 1;
        let mut piece = Piece {
            columns: Columns {
                // a few query ids (one per block of rows), doc ids taking a third of
                // the text (the vectors grow if not)
                query_id: QueryIds::with_capacity(64, 1024)?,
                doc_id: Strings::with_capacity(estimate, text.len() / 3)?,
                values: match kind {
                    Kind::Run => Values::Scores(room::with_capacity(estimate)?),
                    Kind::Qrels => Values::Grades(room::with_capacity(estimate)?),
                    Kind::FractionalQrels => Values::Reals(room::with_capacity(estimate)?),
                },
            },
            rows: 0,
            lines: None,
            tag: None,
            line_count: 0,
            early: None,
            late: [None, None, None, None],
            fractional: None,
        };
        #[cfg(test)]
        if text.starts_with(b"#panic") {
            panic!("a panic the tests ask for"); // see tests::a_panic_in_a_worker_ends_the_read
        }
        #[cfg(test)]
        if text.starts_with(b"#no room") {
            return Err(NoRoom); // see tests::a_piece_without_memory_is_an_error
        }
        let nul = if nul_free { None } else { memchr::memchr(0, text) };
        if let Some(nul) = nul {
            piece.early = Some((Problem::Nul, count_lines(&text[..=nul])));
            return Ok(piece);
        }
        let mut bad_score: Option<(Problem, u64)> = None;
        let mut last_tag: Option<(usize, usize)> = None;
        let mut previous_query: Option<&[u8]> = None;
        let mut specials = Specials::new(text);
        let mut line_no = 0u64;
        let mut pos = 0;
        while pos < text.len() {
            let Split { end, next, fields, count: k } = split_line(text, pos, &mut specials);
            line_no += 1;
            let line = &text[pos..end];
            let line_start = pos;
            pos = next;
            if line.len() > options.max_line {
                piece.early = Some((Problem::LongLine, line_no));
                return Ok(piece);
            }
            if k == 0 || line[fields[0].0] == b'#' {
                continue;
            }
            if k < expect || (kind.exact() && k > expect) {
                let got = line.split(|&b| is_space(b)).filter(|f| !f.is_empty()).count();
                piece.early = Some((Problem::Fields(got), line_no));
                return Ok(piece);
            }
            let field = |j: usize| &line[fields[j].0..fields[j].1];
            let row = piece.rows;
            let value = field(kind.value_field());
            match &mut piece.columns.values {
                Values::Scores(scores) => {
                    let score = parse_score(value);
                    if score.is_none() && bad_score.is_none() {
                        bad_score = Some((Problem::Score(value.to_vec()), line_no));
                    }
                    let score = score.unwrap_or(0.0);
                    if score.is_nan() && piece.late[0].is_none() {
                        piece.late[0] = Some((row, Problem::NanScore));
                    }
                    room(scores, 1)?;
                    scores.push(score);
                    last_tag = Some((line_start + fields[5].0, line_start + fields[5].1));
                }
                Values::Grades(grades) => {
                    let grade = parse_relevance(value);
                    match grade {
                        Err(why) => {
                            let slot = usize::from(why == GradeError::Range);
                            if piece.late[slot].is_none() {
                                piece.late[slot] = Some((row, Problem::Grade(value.to_vec())));
                            }
                        }
                        Ok(_) if piece.fractional.is_none() && has_fraction(value) => {
                            piece.fractional = Some((row, value.to_vec()));
                        }
                        Ok(_) => {}
                    }
                    room(grades, 1)?;
                    grades.push(grade.unwrap_or(0));
                }
                Values::Reals(reals) => {
                    let real = parse_real_relevance(value);
                    if real.is_none() && piece.late[0].is_none() {
                        piece.late[0] = Some((row, Problem::Grade(value.to_vec())));
                    }
                    room(reals, 1)?;
                    reals.push(real.unwrap_or(0.0));
                }
            }
            // the query id once per block: every row of a block has the same bytes,
            // so the block's first row is the first of them that is not UTF-8
            let qid = field(0);
            if previous_query != Some(qid) {
                let query_ids = &mut piece.columns.query_id;
                room(&mut query_ids.starts, 1)?;
                query_ids.starts.push(row);
                if !push_id(&mut query_ids.ids, qid, options.latin1)? && piece.late[1].is_none() {
                    piece.late[1] = Some((row, Problem::Utf8 { column: 0, value: qid.to_vec() }));
                }
                previous_query = Some(qid);
            }
            let doc = field(2);
            if !push_id(&mut piece.columns.doc_id, doc, options.latin1)? && piece.late[2].is_none()
            {
                piece.late[2] = Some((row, Problem::Utf8 { column: 1, value: doc.to_vec() }));
            }
            let line = u32::try_from(line_no).expect("a piece has fewer than 2^32 lines");
            if let Some(lines) = &mut piece.lines {
                room(lines, 1)?;
                lines.push(line);
            } else if u64::from(line) != row as u64 + 1 {
                let mut lines = room::with_capacity(estimate.max(row + 1))?;
                lines.extend(1..=row as u32);
                lines.push(line);
                piece.lines = Some(lines);
            }
            piece.rows += 1;
            piece.columns.query_id.rows += 1;
        }
        piece.line_count = line_no;
        if let Some(bad) = bad_score {
            piece.early = Some(bad);
        }
        piece.tag = last_tag.map(|(a, b)| text[a..b].to_vec());
        Ok(piece)
    }
}

#[cfg(test)]
mod split_tests {
    use super::*;

    /// The line split byte by byte (the reader's first way): the line end found with
    /// `memchr2`, then at most [`MAX_FIELDS`] runs of non-space bytes.
    fn reference(text: &[u8], start: usize) -> (usize, usize, Vec<(usize, usize)>) {
        let (end, next) = match memchr::memchr2(b'\n', b'\r', &text[start..]) {
            Some(i) => {
                let end = start + i;
                let crlf = text[end] == b'\r' && text.get(end + 1) == Some(&b'\n');
                (end, end + 1 + usize::from(crlf))
            }
            None => (text.len(), text.len()),
        };
        let line = &text[start..end];
        let mut fields = Vec::new();
        let mut i = 0;
        while i < line.len() && fields.len() < MAX_FIELDS {
            while i < line.len() && is_space(line[i]) {
                i += 1;
            }
            if i == line.len() {
                break;
            }
            let from = i;
            while i < line.len() && !is_space(line[i]) {
                i += 1;
            }
            fields.push((from, i));
        }
        (end, next, fields)
    }

    /// Random texts of bytes that matter: separators, line ends, other control
    /// characters, bytes just above a space (where the block test borrows), high bytes.
    fn texts() -> impl Iterator<Item = Vec<u8>> {
        const ALPHABET: &[u8] = b" \t\x0b\x0c\n\r\x01\x1f!\"#a9.\x80\xff";
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        (0..3000).map(move |n| {
            let mut text = Vec::new();
            for _ in 0..n % 300 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let byte = ALPHABET[(state % ALPHABET.len() as u64) as usize];
                // runs of ordinary bytes, as in real lines, half of the time
                let run = if state & (1 << 40) != 0 { 1 } else { (state >> 50) as usize % 12 };
                text.extend(std::iter::repeat_n(byte, run));
            }
            text
        })
    }

    #[test]
    fn specials_are_the_bytes_at_or_below_space() {
        for text in texts() {
            let want: Vec<usize> = (0..text.len()).filter(|&i| text[i] <= b' ').collect();
            assert_eq!(Specials::new(&text).collect::<Vec<_>>(), want, "{text:?}");
        }
    }

    #[test]
    fn lines_split_as_byte_by_byte() {
        for text in texts() {
            let mut specials = Specials::new(&text);
            let mut pos = 0;
            while pos < text.len() {
                let split = split_line(&text, pos, &mut specials);
                let (end, next, fields) = reference(&text, pos);
                assert_eq!((split.end, split.next), (end, next), "{text:?} at {pos}");
                assert_eq!(&split.fields[..split.count], &fields[..], "{text:?} at {pos}");
                pos = split.next;
            }
        }
    }
}
