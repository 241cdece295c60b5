//! The runs to fuse as one coded table (`cranfield.fusion.rows.Rows`): every retrieved
//! (run, query, document) row with its rank, its run's list length and the candidate
//! (query, document) it votes for.
//!
//! Query ids are coded by their byte order (the codes of the sorted union of the runs'
//! query ids), document ids by first appearance over the runs' rows in input order (as
//! Arrow's `dictionary_encode` of the concatenated columns codes them). Each run's
//! rows are ordered by query code, then trec_eval's ranking: score descending, ties by
//! document id descending (bytes). The candidates are the distinct (query, document)
//! pairs ordered by query code, then document code, so those of one query are
//! contiguous.
//!
//! Everything is one pass over the rows and hash maps keyed by borrowed ids (no
//! per-row allocation); each run is sorted only where its rows are out of order (the
//! sort detects presorted stretches: a run written ranked costs a linear scan).

use std::cmp::Ordering;

use crate::judge::arrays::Batch;
use crate::judge::arrays::ValuesRef;
use crate::judge::hash;

/// Why the runs cannot be coded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FusionError {
    /// A string column's offsets are not non-decreasing within its data, or the
    /// columns of a batch differ in length.
    Malformed,
    /// A run's values are not float64 scores.
    NotScores,
    /// More rows, queries or documents than 32-bit codes hold.
    TooLarge,
}

/// The coded rows (see the module's documentation). Row arrays are in run order, then
/// query code, then rank.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct FusionRows {
    /// The distinct query ids, sorted (Arrow `large_string` layout).
    pub query_offsets: Vec<i64>,
    pub query_data: Vec<u8>,
    /// The candidates' document ids (Arrow `large_string` layout).
    pub doc_offsets: Vec<i64>,
    pub doc_data: Vec<u8>,
    /// Query code of each candidate; the candidates of query `q` are
    /// `cand_offsets[q]..cand_offsets[q + 1]`.
    pub cand_query: Vec<i64>,
    pub cand_offsets: Vec<i64>,
    pub run: Vec<i64>,
    pub query: Vec<i64>,
    pub cand: Vec<i64>,
    /// 1-based rank in the run's list for the query.
    pub rank: Vec<i64>,
    /// The run's number of documents for the query.
    pub length: Vec<i64>,
    pub score: Vec<f64>,
    /// `counts[r * n_queries + q]`: run `r`'s number of documents for query `q`.
    pub counts: Vec<i64>,
}

/// One row of a run as read: its query (first-appearance code), document code and score.
#[derive(Clone, Copy)]
struct Row {
    query: u32,
    doc: u32,
    score: f64,
}

/// The coded rows of `runs` (each a list of record batches holding its rows).
pub fn fusion_rows(runs: &[&[Batch<'_>]]) -> Result<FusionRows, FusionError> {
    let n_rows: usize = runs
        .iter()
        .flat_map(|b| b.iter())
        .map(|b| b.query_id.rows().ok_or(FusionError::Malformed))
        .sum::<Result<usize, _>>()?;
    if n_rows >= u32::MAX as usize {
        return Err(FusionError::TooLarge);
    }
    let mut queries: hash::Map<&[u8], u32> = hash::map(1024);
    let mut query_names: Vec<&[u8]> = Vec::new();
    let mut docs: hash::Map<&[u8], u32> = hash::map(n_rows / 2 + 16);
    let mut doc_names: Vec<&[u8]> = Vec::new();
    let mut per_run: Vec<Vec<Row>> = Vec::with_capacity(runs.len());
    for batches in runs {
        let mut rows = Vec::with_capacity(batches.iter().filter_map(|b| b.query_id.rows()).sum());
        let mut last: Option<(&[u8], u32)> = None;
        for batch in batches.iter() {
            let n = batch.query_id.rows().ok_or(FusionError::Malformed)?;
            if batch.doc_id.rows() != Some(n) {
                return Err(FusionError::Malformed);
            }
            let scores = match batch.values {
                ValuesRef::Scores(v) if v.len() == n => v,
                ValuesRef::Scores(_) => return Err(FusionError::Malformed),
                _ => return Err(FusionError::NotScores),
            };
            for (i, &score) in scores.iter().enumerate() {
                let q = batch.query_id.row(i);
                let query = match last {
                    Some((name, code)) if name == q => code,
                    _ => {
                        let next = query_names.len() as u32;
                        let code = *queries.entry(q).or_insert(next);
                        if code == next {
                            query_names.push(q);
                        }
                        last = Some((q, code));
                        code
                    }
                };
                let d = batch.doc_id.row(i);
                let next = doc_names.len() as u32;
                let doc = *docs.entry(d).or_insert(next);
                if doc == next {
                    doc_names.push(d);
                }
                rows.push(Row { query, doc, score });
            }
        }
        per_run.push(rows);
    }
    drop(docs);
    drop(queries);

    // query codes in byte order
    let mut by_name: Vec<u32> = (0..query_names.len() as u32).collect();
    by_name.sort_unstable_by(|&a, &b| query_names[a as usize].cmp(query_names[b as usize]));
    let mut query_rank = vec![0u32; query_names.len()];
    for (rank, &code) in by_name.iter().enumerate() {
        query_rank[code as usize] = rank as u32;
    }
    let nq = query_names.len();
    for rows in per_run.iter_mut() {
        for row in rows.iter_mut() {
            row.query = query_rank[row.query as usize];
        }
        // query, then score descending, then document id descending (trec_eval's order)
        rows.sort_by(|a, b| {
            a.query.cmp(&b.query).then_with(|| {
                b.score
                    .partial_cmp(&a.score)
                    .unwrap_or(Ordering::Equal)
                    .then_with(|| doc_names[b.doc as usize].cmp(doc_names[a.doc as usize]))
            })
        });
    }

    let mut out = FusionRows {
        query_offsets: Vec::with_capacity(nq + 1),
        counts: vec![0; runs.len() * nq],
        ..FusionRows::default()
    };
    out.query_offsets.push(0);
    for &code in &by_name {
        out.query_data.extend_from_slice(query_names[code as usize]);
        out.query_offsets.push(out.query_data.len() as i64);
    }
    for v in [&mut out.run, &mut out.query, &mut out.cand, &mut out.rank, &mut out.length] {
        v.reserve_exact(n_rows);
    }
    out.score.reserve_exact(n_rows);
    let n_runs = runs.len();
    let mut block_start = vec![0usize; n_runs * nq];
    let mut row_doc: Vec<u32> = Vec::with_capacity(n_rows);
    for (r, rows) in per_run.iter().enumerate() {
        let mut start = 0;
        while start < rows.len() {
            let q = rows[start].query;
            let end = start + rows[start..].iter().take_while(|row| row.query == q).count();
            let length = (end - start) as i64;
            out.counts[r * nq + q as usize] = length;
            block_start[r * nq + q as usize] = out.run.len();
            for (k, row) in rows[start..end].iter().enumerate() {
                out.run.push(r as i64);
                out.query.push(q as i64);
                out.rank.push(k as i64 + 1);
                out.length.push(length);
                out.score.push(row.score);
                row_doc.push(row.doc);
            }
            start = end;
        }
    }
    drop(per_run);

    // candidates: per query, its distinct documents in code order; then each row of
    // that query (in every run) takes its document's candidate
    out.cand = vec![0; n_rows];
    let mut slot = vec![0i64; doc_names.len()];
    let mut docs: Vec<u32> = Vec::new();
    out.cand_offsets.reserve_exact(nq + 1);
    out.cand_offsets.push(0);
    out.doc_offsets.push(0);
    for q in 0..nq {
        let blocks = (0..n_runs).map(|r| {
            let s = block_start[r * nq + q];
            s..s + out.counts[r * nq + q] as usize
        });
        docs.clear();
        for block in blocks.clone() {
            docs.extend_from_slice(&row_doc[block]);
        }
        docs.sort_unstable();
        docs.dedup();
        let base = out.cand_query.len() as i64;
        for (j, &d) in docs.iter().enumerate() {
            slot[d as usize] = base + j as i64;
            out.cand_query.push(q as i64);
            out.doc_data.extend_from_slice(doc_names[d as usize]);
            out.doc_offsets.push(out.doc_data.len() as i64);
        }
        out.cand_offsets.push(out.cand_query.len() as i64);
        for block in blocks {
            for i in block {
                out.cand[i] = slot[row_doc[i] as usize];
            }
        }
    }
    Ok(out)
}
