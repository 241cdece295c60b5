//! The rows of a parsed TREC file (columns cut into pieces) by global row number, and
//! its topics (blocks of adjacent rows with one query id) grouped by query id.

use cranfield_trec::{Columns, Parsed, Values};

use super::hash;

/// A parsed file's pieces, addressed by global row.
pub struct Table<'a> {
    pub parsed: &'a Parsed,
    /// The global row of each piece's first row, then the number of rows.
    bases: Vec<usize>,
}

impl<'a> Table<'a> {
    pub fn new(parsed: &'a Parsed) -> Self {
        let mut bases = Vec::with_capacity(parsed.columns.len() + 1);
        let mut rows = 0;
        for c in &parsed.columns {
            bases.push(rows);
            rows += c.query_id.len();
        }
        bases.push(rows);
        Table { parsed, bases }
    }

    pub fn rows(&self) -> usize {
        *self.bases.last().unwrap_or(&0)
    }

    /// The piece holding global row `row` (< rows) and the row within it.
    fn locate(&self, row: usize) -> (usize, usize) {
        let piece = self.bases.partition_point(|&b| b <= row) - 1;
        (piece, row - self.bases[piece])
    }

    pub fn query_id(&self, row: usize) -> &'a [u8] {
        let (piece, local) = self.locate(row);
        self.parsed.columns[piece].query_id.get(local)
    }

    /// The physical line of a row (1-based).
    pub fn line(&self, row: usize) -> u64 {
        match &self.parsed.lines {
            Some(lines) => lines.get(row).map_or(row as u64 + 1, |&l| l as u64),
            None => row as u64 + 1,
        }
    }

    /// Calls `f(global row, columns, row in piece)` for every row of `start..end`.
    #[inline]
    pub fn each(&self, start: usize, end: usize, mut f: impl FnMut(usize, &'a Columns, usize)) {
        if start >= end {
            return;
        }
        let (mut piece, mut local) = self.locate(start);
        let mut row = start;
        while row < end {
            let columns = &self.parsed.columns[piece];
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
    pub fn blocks(&self) -> impl Iterator<Item = (usize, usize)> + 'a {
        let starts = &self.parsed.query_starts;
        let rows = self.rows();
        starts.windows(2).filter_map(move |w| {
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
        let mut code = hash::map(qrels.parsed.query_starts.len().min(1 << 20));
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

/// The value column of a piece as raw 64-bit values, and whether they are reals.
pub fn raw_value(columns: &Columns, row: usize) -> u64 {
    match &columns.values {
        Values::Grades(v) => v[row] as u64,
        Values::Scores(v) | Values::Reals(v) => v[row].to_bits(),
    }
}
