//! The rows of a parsed TREC file or of an Arrow table (columns cut into pieces,
//! borrowed) by global row number, and its topics (blocks of adjacent rows with one
//! query id) grouped by query id.

use std::borrow::Cow;

use cranfield_trec::{Columns, Parsed, QueryIds, Strings, Values};

use super::hash;

/// A string column of one piece, borrowed: string `i` is `data[offsets[i]..offsets[i
/// + 1]]` (offsets non-decreasing, within `data`: checked where the view is made).
#[derive(Clone, Copy, Debug)]
pub struct StrView<'a> {
    pub offsets: &'a [i32],
    pub data: &'a [u8],
}

impl<'a> StrView<'a> {
    pub fn of(strings: &'a Strings) -> Self {
        StrView { offsets: &strings.offsets, data: &strings.data }
    }

    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// The bytes of string `i`.
    #[inline]
    pub fn get(&self, i: usize) -> &'a [u8] {
        &self.data[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }
}

/// The query ids of one piece, borrowed: one per row (an Arrow table's column), or one
/// per block of adjacent rows with that id (the TREC reader's [`QueryIds`], which does
/// not copy an id for every row).
#[derive(Clone, Copy, Debug)]
pub enum QueryView<'a> {
    Rows(StrView<'a>),
    /// `ids.get(b)` is the id of rows `starts[b]..starts[b + 1]` (the last block ends
    /// at `rows`); `starts` increasing from 0, one per id (checked where it is made).
    Blocks {
        ids: StrView<'a>,
        starts: &'a [usize],
        rows: usize,
    },
}

impl<'a> QueryView<'a> {
    pub fn of(ids: &'a QueryIds) -> Self {
        QueryView::Blocks { ids: StrView::of(&ids.ids), starts: &ids.starts, rows: ids.rows }
    }

    /// The number of rows.
    pub fn len(&self) -> usize {
        match self {
            QueryView::Rows(ids) => ids.len(),
            QueryView::Blocks { rows, .. } => *rows,
        }
    }

    /// The id of row `row` (< [`QueryView::len`]).
    #[inline]
    pub fn get(&self, row: usize) -> &'a [u8] {
        match self {
            QueryView::Rows(ids) => ids.get(row),
            QueryView::Blocks { ids, starts, .. } => {
                ids.get(starts.partition_point(|&start| start <= row) - 1)
            }
        }
    }

    /// Calls `f(start, id)` for each block of adjacent rows with one id (a block of a
    /// per-row column may follow one with the same id; `f` compares if it matters).
    fn each_block(&self, mut f: impl FnMut(usize, &'a [u8])) {
        match *self {
            QueryView::Rows(ids) => (0..ids.len()).for_each(|row| f(row, ids.get(row))),
            QueryView::Blocks { ids, starts, .. } => {
                starts.iter().enumerate().for_each(|(b, &start)| f(start, ids.get(b)))
            }
        }
    }
}

/// A value column of one piece, borrowed: a run's scores, qrels' grades or gains.
#[derive(Clone, Copy, Debug)]
pub enum ValuesView<'a> {
    Scores(&'a [f64]),
    Grades(&'a [i64]),
    Reals(&'a [f64]),
}

impl<'a> ValuesView<'a> {
    pub fn of(values: &'a Values) -> Self {
        match values {
            Values::Scores(v) => ValuesView::Scores(v),
            Values::Grades(v) => ValuesView::Grades(v),
            Values::Reals(v) => ValuesView::Reals(v),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            ValuesView::Scores(v) | ValuesView::Reals(v) => v.len(),
            ValuesView::Grades(v) => v.len(),
        }
    }
}

/// Whether two ids are equal: short ones compared inline (most query ids are a few
/// bytes, and a call to `memcmp` per row costs more than the comparison).
#[inline]
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && if a.len() <= 8 { a.iter().zip(b).all(|(x, y)| x == y) } else { a == b }
}

/// One piece's rows, borrowed.
#[derive(Clone, Copy, Debug)]
pub struct Piece<'a> {
    pub query_id: QueryView<'a>,
    pub doc_id: StrView<'a>,
    pub values: ValuesView<'a>,
}

impl<'a> Piece<'a> {
    pub fn of(columns: &'a Columns) -> Self {
        Piece {
            query_id: QueryView::of(&columns.query_id),
            doc_id: StrView::of(&columns.doc_id),
            values: ValuesView::of(&columns.values),
        }
    }
}

/// An input's pieces, addressed by global row.
pub struct Table<'a> {
    pieces: Vec<Piece<'a>>,
    /// The global row of each piece's first row, then the number of rows.
    bases: Vec<usize>,
    /// The physical line of every row, or `None` when row `i` is line `i + 1`.
    lines: Option<&'a [i64]>,
    /// Row numbers where the query id differs from the row before (0 first), then the
    /// number of rows.
    query_starts: Cow<'a, [i64]>,
}

impl<'a> Table<'a> {
    pub fn new(parsed: &'a Parsed) -> Self {
        let pieces = parsed.columns.iter().map(Piece::of).collect();
        let mut table = Table::of_pieces(pieces, Cow::Borrowed(&parsed.query_starts));
        table.lines = parsed.lines.as_deref();
        table
    }

    /// A table of `pieces` (row `i` is line `i + 1`), with its `query_starts` or, when
    /// `None`, those found by comparing adjacent query ids.
    pub fn of_pieces(pieces: Vec<Piece<'a>>, query_starts: Cow<'a, [i64]>) -> Self {
        let mut bases = Vec::with_capacity(pieces.len() + 1);
        let mut rows = 0;
        for p in &pieces {
            bases.push(rows);
            rows += p.query_id.len();
        }
        bases.push(rows);
        Table { pieces, bases, lines: None, query_starts }
    }

    /// The rows where the query id differs from the row before (0 first), then the
    /// number of rows, found by comparing adjacent ids (of blocks, where a piece has
    /// them).
    pub fn find_query_starts(pieces: &[Piece<'_>]) -> Vec<i64> {
        let mut starts = Vec::new();
        let mut prev: Option<&[u8]> = None;
        let mut row = 0i64;
        for p in pieces {
            p.query_id.each_block(|start, id| {
                if !prev.is_some_and(|before| same(before, id)) {
                    starts.push(row + start as i64);
                }
                prev = Some(id);
            });
            row += p.query_id.len() as i64;
        }
        if starts.is_empty() {
            starts.push(0);
        }
        starts.push(row);
        starts
    }

    pub fn rows(&self) -> usize {
        *self.bases.last().unwrap_or(&0)
    }

    /// The number of blocks of adjacent rows with one query id (an upper bound).
    pub fn num_blocks(&self) -> usize {
        self.query_starts.len().saturating_sub(1)
    }

    /// The piece holding global row `row` (< rows) and the row within it.
    fn locate(&self, row: usize) -> (usize, usize) {
        let piece = self.bases.partition_point(|&b| b <= row) - 1;
        (piece, row - self.bases[piece])
    }

    pub fn query_id(&self, row: usize) -> &'a [u8] {
        let (piece, local) = self.locate(row);
        self.pieces[piece].query_id.get(local)
    }

    /// The physical line of a row (1-based).
    pub fn line(&self, row: usize) -> u64 {
        match self.lines {
            Some(lines) => lines.get(row).map_or(row as u64 + 1, |&l| l as u64),
            None => row as u64 + 1,
        }
    }

    /// Calls `f(global row, piece, row in piece)` for every row of `start..end`.
    #[inline]
    pub fn each(&self, start: usize, end: usize, mut f: impl FnMut(usize, &Piece<'a>, usize)) {
        if start >= end {
            return;
        }
        let (mut piece, mut local) = self.locate(start);
        let mut row = start;
        while row < end {
            let columns = &self.pieces[piece];
            let stop = (self.bases[piece + 1]).min(end);
            while row < stop {
                f(row, columns, local);
                row += 1;
                local += 1;
            }
            piece += 1;
            local = 0;
        }
    }

    /// The blocks of adjacent rows with one query id: `(start, end)` rows.
    pub fn blocks(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        let rows = self.rows();
        self.query_starts.windows(2).filter_map(move |w| {
            let (a, b) = ((w[0].max(0) as usize).min(rows), (w[1].max(0) as usize).min(rows));
            (a < b).then_some((a, b))
        })
    }
}

/// The topics of a qrels file: every distinct query id, in order of first appearance,
/// with the blocks of rows the file has for it.
pub struct QrelsTopics<'a> {
    pub ids: Vec<&'a [u8]>,
    /// Each id's topic.
    code: hash::Map<&'a [u8], u32>,
    pub blocks: Grouped,
}

impl<'a> QrelsTopics<'a> {
    pub fn new(qrels: &Table<'a>) -> QrelsTopics<'a> {
        // room for every block's id (each block may start a new topic), within reason
        let mut code = hash::map(qrels.num_blocks().min(1 << 20));
        let mut ids = Vec::new();
        let blocks: Vec<(usize, usize)> = qrels.blocks().collect();
        let topic: Vec<u32> =
            blocks.iter().map(|&(a, _)| intern(&mut code, &mut ids, qrels.query_id(a))).collect();
        let grouped = Grouped::new(ids.len(), blocks, &topic);
        QrelsTopics { ids, code, blocks: grouped }
    }
}

/// `id`'s topic, a new one if it has none yet.
fn intern<'a>(code: &mut hash::Map<&'a [u8], u32>, ids: &mut Vec<&'a [u8]>, id: &'a [u8]) -> u32 {
    *code.entry(id).or_insert_with(|| {
        ids.push(id);
        (ids.len() - 1) as u32
    })
}

/// The topics of a run against qrels: topics `0..qrels_topics` are the qrels' (as
/// [`QrelsTopics`] numbers them); the run's other query ids follow. `run_blocks` holds
/// the blocks of rows the run has for each.
pub struct Topics<'a> {
    pub ids: Vec<&'a [u8]>,
    pub qrels_topics: usize,
    pub run_blocks: Grouped,
}

impl<'a> Topics<'a> {
    pub fn new(qrels: &QrelsTopics<'a>, run: &Table<'a>) -> Topics<'a> {
        let mut code = qrels.code.clone();
        let mut ids = qrels.ids.clone();
        let blocks: Vec<(usize, usize)> = run.blocks().collect();
        let topic: Vec<u32> =
            blocks.iter().map(|&(a, _)| intern(&mut code, &mut ids, run.query_id(a))).collect();
        let n = ids.len();
        Topics { ids, qrels_topics: qrels.ids.len(), run_blocks: Grouped::new(n, blocks, &topic) }
    }
}

/// Blocks grouped by topic (CSR): `blocks[offsets[t]..offsets[t + 1]]` are topic
/// `t`'s, in row order.
pub struct Grouped {
    pub offsets: Vec<usize>,
    pub blocks: Vec<(usize, usize)>,
}

impl Grouped {
    fn new(topics: usize, blocks: Vec<(usize, usize)>, topic: &[u32]) -> Grouped {
        let mut offsets = vec![0usize; topics + 1];
        for &t in topic {
            offsets[t as usize + 1] += 1;
        }
        for t in 0..topics {
            offsets[t + 1] += offsets[t];
        }
        let mut fill = offsets.clone();
        let mut grouped = vec![(0, 0); blocks.len()];
        for (block, &t) in blocks.into_iter().zip(topic) {
            grouped[fill[t as usize]] = block;
            fill[t as usize] += 1;
        }
        Grouped { offsets, blocks: grouped }
    }

    /// Topic `t`'s blocks.
    pub fn of(&self, t: usize) -> &[(usize, usize)] {
        self.blocks.get(self.offsets[t]..self.offsets[t + 1]).unwrap_or(&[])
    }

    /// The number of rows of topic `t`.
    pub fn rows(&self, t: usize) -> usize {
        self.of(t).iter().map(|(a, b)| b - a).sum()
    }
}

/// The value of a piece's row as a raw 64-bit value (`i64`, or `f64` bits).
#[inline]
pub fn raw_value(piece: &Piece, row: usize) -> u64 {
    match piece.values {
        ValuesView::Grades(v) => v[row] as u64,
        ValuesView::Scores(v) | ValuesView::Reals(v) => v[row].to_bits(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Per-row ids as one string column.
    fn column(ids: &[&[u8]]) -> Strings {
        let mut out = Strings { data: Vec::new(), offsets: vec![0] };
        for id in ids {
            out.data.extend_from_slice(id);
            out.offsets.push(out.data.len() as i32);
        }
        out
    }

    #[test]
    fn ids_by_block_and_by_row_read_the_same() {
        // random ids cut into pieces at every row: the views of one id per row and of
        // one per block give every row the same id and the same starts of blocks
        let mut state = 0x853c_49e6_748f_ea9bu64;
        let alphabet: [&[u8]; 4] = [b"1", b"2", b"q10", b""];
        for case in 0..200 {
            let n = case % 23;
            let ids: Vec<&[u8]> = (0..n)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    alphabet[(state % 4) as usize]
                })
                .collect();
            for cut in 0..=n {
                let parts = [column(&ids[..cut]), column(&ids[cut..])];
                let blocks: Vec<QueryIds> = parts.iter().map(QueryIds::from_rows).collect();
                let docs = column(&vec![&b"d"[..]; n]);
                let view = |query_id| Piece {
                    query_id,
                    doc_id: StrView::of(&docs),
                    values: ValuesView::Scores(&[]),
                };
                let by_row: Vec<Piece> =
                    parts.iter().map(|p| view(QueryView::Rows(StrView::of(p)))).collect();
                let by_block: Vec<Piece> = blocks.iter().map(|b| view(QueryView::of(b))).collect();
                let starts = Table::find_query_starts(&by_row);
                assert_eq!(Table::find_query_starts(&by_block), starts, "{ids:?} cut {cut}");
                let rows = Table::of_pieces(by_row, Cow::Owned(starts.clone()));
                let table = Table::of_pieces(by_block, Cow::Owned(starts));
                assert_eq!(table.rows(), n);
                for (row, id) in ids.iter().enumerate() {
                    assert_eq!((table.query_id(row), rows.query_id(row)), (*id, *id));
                }
            }
        }
    }
}
