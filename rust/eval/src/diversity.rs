//! Intent-aware (diversity) measures exactly as ndeval computes them (ndeval.c 4.5,
//! the TREC Web track's evaluator): alpha-DCG and alpha-nDCG (Clarke et al. 2008),
//! ERR-IA and nERR-IA (Chapelle et al. 2009, with ndeval's novelty-discounted gain),
//! NRBP and nNRBP (Clarke et al. 2009), MAP-IA and P-IA (Agrawal et al. 2009) and
//! subtopic recall (Zhai et al. 2003).
//!
//! ndeval's conventions, reproduced to the bit (the arithmetic is done in ndeval's
//! order):
//! * a judgment is binary: a grade above 1 counts as 1; a document's relevance to a
//!   subtopic is the last judgment of that (topic, subtopic, document) in file order,
//!   while the number of relevant documents of a subtopic adds every line's judgment;
//! * a subtopic counts for a topic when some document is judged relevant to it
//!   ("actual subtopics"); a topic with none scores 0 on every measure (ndeval: nNRBP
//!   is then 0/0);
//! * the gain of a document at rank `i` (from 0) is the sum, over the subtopics it is
//!   relevant to in increasing subtopic order, of `(1 - alpha)^c`, `c` the number of
//!   documents ranked above it relevant to that subtopic;
//! * alpha-DCG@k and ERR-IA@k are divided by their "ideal ideal" value (every actual
//!   subtopic covered at every rank), except at k = 1, which ndeval leaves undivided;
//!   alpha-nDCG@k and nERR-IA@k divide those by the same values of the ideal ranking,
//!   and are 0 where alpha-DCG@k is 0;
//! * the ideal ranking (finding it is NP-hard) is ndeval's greedy one: at each rank the
//!   judged document of largest gain given the documents already placed, ties going
//!   to the larger document id in byte order. The greedy choice is made here with a
//!   lazily updated priority queue, which picks the same document at every rank
//!   (gains only decrease, so a stale gain bounds the fresh one).

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::hash::Hash;

use rustc_hash::FxHashMap;

use crate::intent_graded::Graded;

/// The subtopic judgments of every topic, as the measures read them.
///
/// Topics are numbered `0..num_topics`; the judged documents of topic `t` are
/// `topic_docs[t]..topic_docs[t + 1]`, in increasing document id (byte order); the
/// subtopics document `d` is relevant to are `subs[doc_subs[d]..doc_subs[d + 1]]`
/// (local numbers of its topic, increasing with the subtopic's number); topic `t`'s
/// actual subtopics are `topic_subs[t]..topic_subs[t + 1]`, with `nrel` the number of
/// relevant documents of each.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Intents {
    pub topic_docs: Vec<usize>,
    pub doc_subs: Vec<usize>,
    pub subs: Vec<u32>,
    /// the grade (> 0, the last judgment's) of each entry of `subs`
    pub grades: Vec<i64>,
    pub topic_subs: Vec<usize>,
    pub nrel: Vec<i64>,
    /// the number of each actual subtopic (as `nrel`)
    pub sub_number: Vec<i64>,
    /// intent probabilities: each actual subtopic's (as `nrel`), and whether topic `t`
    /// has them (else its subtopics weigh 1/S each, as in ndeval)
    pub weight: Vec<f64>,
    pub weighted: Vec<bool>,
}

/// One line of subtopic qrels, numbered: its topic `topic` (topics numbered in their
/// order), its judged document `doc` (numbered in (topic, document id) order, so that
/// the documents of a topic are contiguous), its subtopic number and grade (>= 0).
#[derive(Clone, Copy, Debug)]
pub struct Line {
    pub topic: u32,
    pub doc: u32,
    pub subtopic: i64,
    pub grade: i64,
}

/// Judgment lines numbered: topics in increasing key order, the judged documents of
/// each in byte order (every document sorted once, not once a line: a document is
/// judged on many subtopics).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Numbering<T, D> {
    /// each topic's key, in order
    pub topics: Vec<T>,
    /// CSR offsets of each topic's documents in `docs`
    pub topic_docs: Vec<usize>,
    pub docs: Vec<D>,
    /// each line's topic and document numbers
    pub line_topic: Vec<u32>,
    pub line_doc: Vec<u32>,
}

/// Number the `(topic, document)` of each line (see [`Numbering`]).
pub fn number<T, D>(lines: &[(T, D)]) -> Numbering<T, D>
where
    T: Ord + Hash + Copy,
    D: Ord + Hash + Copy,
{
    number_with(lines.len(), |i| lines[i])
}

/// [`number`] of the `n` lines whose `(topic, document)` `key` gives.
pub fn number_with<T, D>(n: usize, key: impl Fn(usize) -> (T, D)) -> Numbering<T, D>
where
    T: Ord + Hash + Copy,
    D: Ord + Hash + Copy,
{
    let mut seen = FirstSeen::default();
    for i in 0..n {
        let (t, d) = key(i);
        seen.push(t, d);
    }
    let parts = number_parts(&[&seen]);
    let line_doc: Vec<u32> =
        seen.line_pair.iter().map(|&p| parts.part_docs[0][p as usize]).collect();
    let line_topic = line_doc.iter().map(|&d| parts.doc_topic[d as usize]).collect();
    Numbering {
        topics: parts.topics,
        topic_docs: parts.topic_docs,
        docs: parts.docs,
        line_topic,
        line_doc,
    }
}

/// The distinct `(topic, document)` pairs of lines pushed in file order, in order of
/// first appearance, and each line's pair among them: a line repeating the previous
/// line's pair, as judgments grouped by document do, skips the hash.
#[derive(Clone, Debug)]
pub struct FirstSeen<T, D> {
    pub pairs: Vec<(T, D)>,
    pub line_pair: Vec<u32>,
    ids: FxHashMap<(T, D), u32>,
}

impl<T, D> Default for FirstSeen<T, D> {
    fn default() -> Self {
        FirstSeen { pairs: Vec::new(), line_pair: Vec::new(), ids: FxHashMap::default() }
    }
}

impl<T: Hash + Eq + Copy, D: Hash + Eq + Copy> FirstSeen<T, D> {
    /// The next line's pair.
    pub fn push(&mut self, topic: T, doc: D) {
        let id = match (self.line_pair.last(), self.pairs.last()) {
            (Some(&last), Some(_)) if self.pairs[last as usize] == (topic, doc) => last,
            _ => *self.ids.entry((topic, doc)).or_insert_with(|| {
                self.pairs.push((topic, doc));
                self.pairs.len() as u32 - 1
            }),
        };
        self.line_pair.push(id);
    }
}

impl<'a, T: Hash + Eq + Copy> FirstSeen<T, &'a [u8]> {
    /// [`FirstSeen::push`] of a docno that lives shorter than the pairs: `keep` makes
    /// the copy that a new pair holds.
    pub fn push_kept(&mut self, topic: T, doc: &[u8], keep: impl FnOnce(&[u8]) -> &'a [u8]) {
        let last = self.line_pair.last().copied();
        let id = match last.map(|id| (id, self.pairs[id as usize])) {
            Some((id, (t, d))) if t == topic && d == doc => id,
            _ => {
                // (a map holding longer-lived docnos is looked up with a shorter one)
                let ids: &FxHashMap<(T, &[u8]), u32> = &self.ids;
                match ids.get(&(topic, doc)) {
                    Some(&id) => id,
                    None => {
                        let kept = keep(doc);
                        let id = self.pairs.len() as u32;
                        self.pairs.push((topic, kept));
                        self.ids.insert((topic, kept), id);
                        id
                    }
                }
            }
        };
        self.line_pair.push(id);
    }
}

/// The pairs of consecutive parts of a file numbered as [`Numbering`] numbers them:
/// each part's pairs (as [`FirstSeen`] lists them) mapped to their document number.
#[derive(Clone, Debug)]
pub struct NumberedParts<T, D> {
    pub topics: Vec<T>,
    pub topic_docs: Vec<usize>,
    pub docs: Vec<D>,
    /// the topic number of each document
    pub doc_topic: Vec<u32>,
    /// `part_docs[p][i]`: the document number of pair `i` of part `p`
    pub part_docs: Vec<Vec<u32>>,
}

/// Number the pairs of `parts` (see [`NumberedParts`]): only the distinct pairs are
/// sorted, by topic key then document, never the lines.
pub fn number_parts<T, D>(parts: &[&FirstSeen<T, D>]) -> NumberedParts<T, D>
where
    T: Ord + Hash + Copy,
    D: Ord + Hash + Copy,
{
    let mut order: Vec<(u32, u32)> = parts
        .iter()
        .enumerate()
        .flat_map(|(p, part)| (0..part.pairs.len() as u32).map(move |i| (p as u32, i)))
        .collect();
    let pair = |&(p, i): &(u32, u32)| parts[p as usize].pairs[i as usize];
    order.sort_unstable_by_key(pair);
    let mut part_docs: Vec<Vec<u32>> = parts.iter().map(|p| vec![0; p.pairs.len()]).collect();
    let (mut topics, mut topic_docs, mut docs, mut doc_topic) =
        (Vec::new(), vec![0usize], Vec::new(), Vec::new());
    for (k, at) in order.iter().enumerate() {
        let (t, d) = pair(at);
        if k == 0 || pair(&order[k - 1]) != (t, d) {
            if topics.last() != Some(&t) {
                if !topics.is_empty() {
                    topic_docs.push(docs.len());
                }
                topics.push(t);
            }
            docs.push(d);
            doc_topic.push(topics.len() as u32 - 1);
        }
        part_docs[at.0 as usize][at.1 as usize] = docs.len() as u32 - 1;
    }
    if !topics.is_empty() {
        topic_docs.push(docs.len());
    }
    NumberedParts { topics, topic_docs, docs, doc_topic, part_docs }
}

/// The runs of consecutive items of `items` that `same` puts together (the slice
/// method `chunk_by` of Rust 1.77, above this crate's minimum version).
pub(crate) fn runs<'a, T>(
    items: &'a [T],
    same: impl Fn(&T, &T) -> bool + 'a,
) -> impl Iterator<Item = &'a [T]> + 'a {
    let mut rest = items;
    std::iter::from_fn(move || {
        let first = rest.first()?;
        let len = 1 + rest[1..].iter().take_while(|x| same(first, x)).count();
        let (run, tail) = rest.split_at(len);
        rest = tail;
        Some(run)
    })
}

/// Subtopic numbers below this many times a topic's lines (plus a little) are counted
/// in a dense table, larger ones through a sort.
const DENSE_FACTOR: usize = 4;

/// The subtopics of one topic's `(subtopic, grade)` judgments with a relevant
/// document, increasing, and their number of relevant documents (every line's
/// judgment, a grade above 1 counting 1).
fn actual_subtopics(of_topic: &[(i64, i64)], dense: &mut Vec<i64>) -> Vec<(i64, i64)> {
    let (low, high) =
        of_topic.iter().fold((i64::MAX, i64::MIN), |(lo, hi), &(s, _)| (lo.min(s), hi.max(s)));
    let mut out = Vec::new();
    if of_topic.is_empty() {
        return out;
    }
    if low >= 0 && (high as usize) < DENSE_FACTOR * of_topic.len() + 64 {
        dense.clear();
        dense.resize(high as usize + 1, 0);
        for &(s, grade) in of_topic {
            dense[s as usize] += grade.min(1);
        }
        out.extend(dense.iter().enumerate().filter(|(_, &c)| c > 0).map(|(s, &c)| (s as i64, c)));
    } else {
        let mut by_sub: Vec<(i64, i64)> =
            of_topic.iter().map(|&(s, grade)| (s, grade.min(1))).collect();
        by_sub.sort_unstable_by_key(|&(s, _)| s);
        for group in runs(&by_sub, |a, b| a.0 == b.0) {
            let count: i64 = group.iter().map(|&(_, g)| g).sum();
            if count > 0 {
                out.push((group[0].0, count));
            }
        }
    }
    out
}

impl Intents {
    /// The judgments of `lines` (in file order) for `num_topics` topics whose judged
    /// documents are numbered by `topic_docs` (CSR offsets, `num_topics + 1`).
    pub fn build(lines: &[Line], topic_docs: Vec<usize>) -> Intents {
        let judgment = |i: usize| (lines[i].doc, lines[i].subtopic, lines[i].grade);
        Intents::build_with(lines.len(), judgment, topic_docs)
    }

    /// [`Intents::build`] of the `n` lines whose `judgment` gives their `(document,
    /// subtopic, grade)` (called twice a line, in file order).
    pub fn build_with(
        n: usize,
        judgment: impl Fn(usize) -> (u32, i64, i64),
        topic_docs: Vec<usize>,
    ) -> Intents {
        let num_topics = topic_docs.len().saturating_sub(1);
        let num_docs = topic_docs.last().copied().unwrap_or(0);
        // the judgments grouped by document, file order kept within each (a counting
        // sort); the documents of a topic are contiguous, so the lines of a topic are too
        let mut line_start = vec![0usize; num_docs + 1];
        for i in 0..n {
            line_start[judgment(i).0 as usize + 1] += 1;
        }
        for d in 0..num_docs {
            line_start[d + 1] += line_start[d];
        }
        let mut by_doc = vec![0u32; n];
        let mut next = line_start.clone();
        for i in 0..n {
            let doc = judgment(i).0 as usize;
            by_doc[next[doc]] = i as u32;
            next[doc] += 1;
        }
        drop(next);
        let mut topic_subs = vec![0usize; num_topics + 1];
        let mut nrel: Vec<i64> = Vec::new();
        let mut sub_number: Vec<i64> = Vec::new();
        let mut doc_subs = vec![0usize; num_docs + 1];
        let mut subs: Vec<u32> = Vec::new();
        let mut grades: Vec<i64> = Vec::new();
        let mut dense: Vec<i64> = Vec::new();
        let mut of_topic: Vec<(i64, i64)> = Vec::new();
        for t in 0..num_topics {
            let (first, last) = (topic_docs[t], topic_docs[t + 1]);
            let base = line_start[first];
            // the topic's (subtopic, grade) judgments, document by document
            of_topic.clear();
            of_topic.extend(by_doc[base..line_start[last]].iter().map(|&i| {
                let (_, subtopic, grade) = judgment(i as usize);
                (subtopic, grade)
            }));
            let actual = actual_subtopics(&of_topic, &mut dense);
            let numbers: Vec<i64> = actual.iter().map(|&(s, _)| s).collect();
            for d in first..last {
                // by subtopic, file order kept (a stable sort): the last judgment of a
                // (document, subtopic) decides its relevance
                let of_doc = &mut of_topic[line_start[d] - base..line_start[d + 1] - base];
                of_doc.sort_by_key(|&(subtopic, _)| subtopic);
                for group in runs(of_doc, |a, b| a.0 == b.0) {
                    let &(subtopic, grade) = group.last().expect("a group has a line");
                    if grade > 0 {
                        let at = numbers
                            .binary_search(&subtopic)
                            .expect("a relevant judgment's subtopic is an actual one");
                        subs.push(at as u32);
                        grades.push(grade);
                    }
                }
                doc_subs[d + 1] = subs.len();
            }
            topic_subs[t + 1] = topic_subs[t] + actual.len();
            nrel.extend(actual.iter().map(|&(_, c)| c));
            sub_number.extend(numbers);
        }
        let weight = vec![0.0; nrel.len()];
        let weighted = vec![false; num_topics];
        Intents {
            topic_docs,
            doc_subs,
            subs,
            grades,
            topic_subs,
            nrel,
            sub_number,
            weight,
            weighted,
        }
    }

    /// Give topics intent probabilities: `(topic, subtopic number, probability)`; a
    /// topic named gets them (an actual subtopic it leaves out weighs 0), the others
    /// keep ndeval's 1/S.
    pub fn set_weights(&mut self, weights: &[(u32, i64, f64)]) {
        for &(t, s, w) in weights {
            let t = t as usize;
            self.weighted[t] = true;
            let range = self.topic_subs[t]..self.topic_subs[t + 1];
            if let Ok(at) = self.sub_number[range.clone()].binary_search(&s) {
                self.weight[range.start + at] = w;
            }
        }
    }

    /// The multiplier of each actual subtopic's gain in topic `t`: S w_s when the
    /// topic has intent probabilities, None for ndeval's uniform weights.
    fn multipliers(&self, t: usize) -> Option<Vec<f64>> {
        if !self.weighted.get(t).copied().unwrap_or(false) {
            return None;
        }
        let s = self.actual(t) as f64;
        Some(
            self.weight[self.topic_subs[t]..self.topic_subs[t + 1]].iter().map(|w| s * w).collect(),
        )
    }

    pub fn num_topics(&self) -> usize {
        self.topic_docs.len().saturating_sub(1)
    }

    /// The number of actual subtopics of topic `t`.
    pub fn actual(&self, t: usize) -> usize {
        self.topic_subs[t + 1] - self.topic_subs[t]
    }

    /// The subtopics judged document `d` is relevant to (local numbers).
    fn rel(&self, d: usize) -> &[u32] {
        &self.subs[self.doc_subs[d]..self.doc_subs[d + 1]]
    }

    /// The subtopics judged document `d` is relevant to and its grade for each.
    pub fn graded(&self, d: usize) -> (&[u32], &[i64]) {
        let range = self.doc_subs[d]..self.doc_subs[d + 1];
        (&self.subs[range.clone()], &self.grades[range])
    }

    /// The intent probability P(s | q) of each actual subtopic of topic `t`: the given
    /// ones, else 1/S each.
    pub fn probabilities(&self, t: usize) -> Vec<f64> {
        let range = self.topic_subs[t]..self.topic_subs[t + 1];
        if self.weighted.get(t).copied().unwrap_or(false) {
            self.weight[range].to_vec()
        } else {
            vec![1.0 / range.len() as f64; range.len()]
        }
    }
}

/// The parameters of ndeval's measures: `alpha` (redundancy intolerance), `beta`
/// (patience of NRBP), `depth`, the number of ranks the rank-cut measures are computed to.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    pub alpha: f64,
    pub beta: f64,
    pub depth: usize,
}

/// ndeval's discount at rank `i` (from 0): 1, then log(2) / log(i + 2).
fn discount(i: usize) -> f64 {
    if i == 0 {
        1.0
    } else {
        2f64.ln() / (i as f64 + 2.0).ln()
    }
}

/// The values of the cumulative measures of one ranking, before the ideal's normalisation.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Walk {
    /// alpha-DCG and ERR-IA at each rank cut 1..=depth, divided by their "ideal ideal"
    pub dcg: Vec<f64>,
    pub err: Vec<f64>,
    pub nrbp: f64,
}

/// Every value ndeval reports for one ranking of one topic.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Values {
    pub dcg: Vec<f64>,
    pub ndcg: Vec<f64>,
    pub err: Vec<f64>,
    pub nerr: Vec<f64>,
    pub nrbp: f64,
    pub nnrbp: f64,
    pub map_ia: f64,
    pub precision: Vec<f64>,
    pub strec: Vec<f64>,
}

/// The gains of a ranking (`None`: a document judged for no subtopic of the topic),
/// ndeval's `computeDCG`, `computeERR` and `computeNRBP` in one pass.
fn walk<'a>(
    intents: &'a Intents,
    t: usize,
    ranked: impl Iterator<Item = Option<&'a [u32]>>,
    p: &Params,
) -> Walk {
    let depth = p.depth;
    let actual = intents.actual(t);
    let mut out = Walk { dcg: vec![0.0; depth], err: vec![0.0; depth], nrbp: 0.0 };
    if actual == 0 {
        return out;
    }
    let mut gain = vec![1.0f64; actual];
    let mult = intents.multipliers(t);
    let mut decay = 1.0;
    for (i, rel) in ranked.enumerate() {
        let mut score = 0.0;
        for &j in rel.unwrap_or(&[]) {
            match &mult {
                None => score += gain[j as usize],
                Some(m) => score += m[j as usize] * gain[j as usize],
            }
            gain[j as usize] *= 1.0 - p.alpha;
        }
        if i < depth {
            out.dcg[i] = score * discount(i);
            out.err[i] = score / ((i + 1) as f64);
        }
        out.nrbp += score * decay;
        decay *= p.beta;
    }
    out.nrbp *= (1.0 - (1.0 - p.alpha) * p.beta) / actual as f64;
    let mut ideal_dcg = vec![0.0; depth];
    let mut ideal_err = vec![0.0; depth];
    let mut ideal_gain = actual as f64;
    for i in 0..depth {
        ideal_dcg[i] = ideal_gain * discount(i);
        ideal_err[i] = ideal_gain / ((i + 1) as f64);
        ideal_gain *= 1.0 - p.alpha;
    }
    for i in 1..depth {
        out.dcg[i] += out.dcg[i - 1];
        ideal_dcg[i] += ideal_dcg[i - 1];
        out.err[i] += out.err[i - 1];
        ideal_err[i] += ideal_err[i - 1];
    }
    for i in 1..depth {
        out.dcg[i] /= ideal_dcg[i];
        out.err[i] /= ideal_err[i];
    }
    out
}

/// A judged document in the greedy queue: its gain when last computed, its number.
#[derive(PartialEq)]
struct Candidate(f64, usize);

impl Eq for Candidate {}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Candidate {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0).then(self.1.cmp(&other.1))
    }
}

/// ndeval's greedy ideal ranking of topic `t`: its judged documents, by number.
pub fn ideal_ranking(intents: &Intents, t: usize, alpha: f64) -> Vec<usize> {
    let docs = intents.topic_docs[t]..intents.topic_docs[t + 1];
    let mut gain = vec![1.0f64; intents.actual(t)];
    let mult = intents.multipliers(t);
    let score = |gain: &[f64], d: usize| {
        let mut s = 0.0;
        for &j in intents.rel(d) {
            match &mult {
                None => s += gain[j as usize],
                Some(m) => s += m[j as usize] * gain[j as usize],
            }
        }
        s
    };
    let mut heap: BinaryHeap<Candidate> = docs.map(|d| Candidate(score(&gain, d), d)).collect();
    let mut out = Vec::with_capacity(heap.len());
    while let Some(Candidate(stale, d)) = heap.pop() {
        let fresh = score(&gain, d);
        if fresh != stale {
            heap.push(Candidate(fresh, d));
            continue;
        }
        for &j in intents.rel(d) {
            gain[j as usize] *= 1.0 - alpha;
        }
        out.push(d);
    }
    out
}

/// The values of the ideal ranking of topic `t` (what the run's are normalised by).
pub fn ideal(intents: &Intents, t: usize, p: &Params) -> Walk {
    let order = ideal_ranking(intents, t, p.alpha);
    walk(intents, t, order.iter().map(|&d| Some(intents.rel(d))), p)
}

/// Every measure of a ranking of topic `t`: `ranked` holds, in rank order, the number
/// of each document among the judged ones (see [`Intents`]), or a negative number for
/// a document the topic's judgments do not list; `ideal` is [`ideal`]'s walk.
pub fn values(intents: &Intents, t: usize, ideal: &Walk, ranked: &[i64], p: &Params) -> Values {
    let depth = p.depth;
    let rel = |x: i64| (x >= 0).then(|| intents.rel(x as usize));
    let w = walk(intents, t, ranked.iter().map(|&x| rel(x)), p);
    let actual = intents.actual(t);
    let mut v = Values {
        ndcg: vec![0.0; depth],
        nerr: vec![0.0; depth],
        precision: vec![0.0; depth],
        strec: vec![0.0; depth],
        ..Values::default()
    };
    for i in 0..depth {
        if w.dcg[i] != 0.0 {
            v.ndcg[i] = w.dcg[i] / ideal.dcg[i];
            v.nerr[i] = w.err[i] / ideal.err[i];
        }
    }
    v.nrbp = w.nrbp;
    v.nnrbp = w.nrbp / ideal.nrbp;
    v.dcg = w.dcg;
    v.err = w.err;
    if actual == 0 {
        return v;
    }
    // subtopic recall and P-IA to the depth, MAP-IA over the whole ranking
    let weights = intents.multipliers(t).map(|m| {
        let w = &intents.weight[intents.topic_subs[t]..intents.topic_subs[t + 1]];
        (m, w.to_vec())
    });
    let mut seen = vec![false; actual];
    let mut covered = 0usize;
    let mut covered_weight = 0.0f64;
    let mut count = 0usize;
    let mut weighted_count = 0.0f64;
    let mut sub_count = vec![0i64; actual];
    let mut sub_total = vec![0.0f64; actual];
    let recall = |covered: usize, covered_weight: f64| match &weights {
        None => covered as f64 / actual as f64,
        Some(_) => covered_weight,
    };
    let precision = |i: usize, count: usize, weighted_count: f64| match &weights {
        None => count as f64 / (((i + 1) * actual) as f64),
        Some(_) => weighted_count / (((i + 1) * actual) as f64),
    };
    for (i, &x) in ranked.iter().enumerate() {
        let subs = rel(x).unwrap_or(&[]);
        for &j in subs {
            let j = j as usize;
            sub_count[j] += 1;
            sub_total[j] += sub_count[j] as f64 / ((i + 1) as f64);
            if i < depth && !seen[j] {
                seen[j] = true;
                covered += 1;
                if let Some((_, w)) = &weights {
                    covered_weight += w[j];
                }
            }
            if let (true, Some((m, _))) = (i < depth, &weights) {
                weighted_count += m[j];
            }
        }
        if i < depth {
            count += subs.len();
            v.strec[i] = recall(covered, covered_weight);
            v.precision[i] = precision(i, count, weighted_count);
        }
    }
    for i in ranked.len().min(depth)..depth {
        v.strec[i] = recall(covered, covered_weight);
        v.precision[i] = precision(i, count, weighted_count);
    }
    let nrel = &intents.nrel[intents.topic_subs[t]..intents.topic_subs[t + 1]];
    match &weights {
        None => {
            let mut map_ia = 0.0;
            for (total, &n) in sub_total.iter().zip(nrel) {
                map_ia += total / n as f64;
            }
            v.map_ia = map_ia / actual as f64;
        }
        Some((_, w)) => {
            let mut map_ia = 0.0;
            for ((total, &n), &wj) in sub_total.iter().zip(nrel).zip(w) {
                map_ia += wj * (total / n as f64);
            }
            v.map_ia = map_ia;
        }
    }
    v
}

/// The measures the measure language names, each one value per topic.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Measure {
    AlphaDcg,
    AlphaNdcg,
    ErrIa,
    NerrIa,
    Nrbp,
    Nnrbp,
    MapIa,
    PIa,
    StRecall,
    /// Sakai & Song's measures and nDCG-IA ([`crate::intent_graded`])
    DNdcg,
    DsharpNdcg,
    IRec,
    NdcgIa,
}

impl Measure {
    /// The measure family called `name` in cranfield's registry.
    pub fn of(name: &str) -> Option<Measure> {
        Some(match name {
            "alpha_DCG" => Measure::AlphaDcg,
            "alpha_nDCG" => Measure::AlphaNdcg,
            "ERR_IA" => Measure::ErrIa,
            "nERR_IA" => Measure::NerrIa,
            "NRBP" => Measure::Nrbp,
            "nNRBP" => Measure::Nnrbp,
            "MAP_IA" => Measure::MapIa,
            "P_IA" => Measure::PIa,
            "StRecall" => Measure::StRecall,
            "D_nDCG" => Measure::DNdcg,
            "Dsharp_nDCG" => Measure::DsharpNdcg,
            "I_rec" => Measure::IRec,
            "nDCG_IA" => Measure::NdcgIa,
            _ => return None,
        })
    }

    /// Its value at rank cut `k` (>= 1; ignored by the measures without one); 0 on a
    /// topic without an actual subtopic (where ndeval's nNRBP is 0/0).
    pub fn value(self, v: &Values, k: usize, actual: usize) -> f64 {
        if actual == 0 {
            return 0.0;
        }
        let at = |a: &[f64]| a[k - 1];
        match self {
            Measure::AlphaDcg => at(&v.dcg),
            Measure::AlphaNdcg => at(&v.ndcg),
            Measure::ErrIa => at(&v.err),
            Measure::NerrIa => at(&v.nerr),
            Measure::Nrbp => v.nrbp,
            Measure::Nnrbp => v.nnrbp,
            Measure::MapIa => v.map_ia,
            Measure::PIa => at(&v.precision),
            Measure::StRecall => at(&v.strec),
            Measure::DNdcg | Measure::DsharpNdcg | Measure::IRec | Measure::NdcgIa => {
                unreachable!("computed by intent_graded")
            }
        }
    }
}

/// The names of the families [`Measure::of`] knows.
pub const FAMILIES: &[&str] = &[
    "alpha_DCG",
    "alpha_nDCG",
    "ERR_IA",
    "nERR_IA",
    "NRBP",
    "nNRBP",
    "MAP_IA",
    "P_IA",
    "StRecall",
    "D_nDCG",
    "Dsharp_nDCG",
    "I_rec",
    "nDCG_IA",
];

/// One measure asked of [`evaluate`]: its family, rank cut (1 for those without one),
/// alpha, beta and gamma (D#-nDCG's weight of I-rec).
#[derive(Clone, Copy, Debug)]
pub struct Asked {
    pub measure: Measure,
    pub cutoff: usize,
    pub alpha: f64,
    pub beta: f64,
    pub gamma: f64,
}

impl Measure {
    /// Whether it is one of [`crate::intent_graded`]'s (per-intent graded relevance).
    fn is_graded(self) -> bool {
        matches!(self, Measure::DNdcg | Measure::DsharpNdcg | Measure::IRec | Measure::NdcgIa)
    }
}

/// The values of several measures on several rankings: ranking `q` (`offsets`, CSR over
/// `ranked`, numbers as in [`values`]) is of topic `topics[q]` (negative: a topic
/// without judgments, which scores 0). One column per measure, one value per ranking.
pub fn evaluate(
    intents: &Intents,
    asked: &[Asked],
    topics: &[i64],
    offsets: &[i64],
    ranked: &[i64],
) -> Vec<Vec<f64>> {
    let mut out = vec![Vec::with_capacity(topics.len()); asked.len()];
    // the measures sharing (alpha, beta) share one computation to their deepest cut
    let mut groups: Vec<(f64, f64, usize)> = Vec::new();
    for a in asked.iter().filter(|a| !a.measure.is_graded()) {
        match groups.iter_mut().find(|g| g.0 == a.alpha && g.1 == a.beta) {
            Some(g) => g.2 = g.2.max(a.cutoff),
            None => groups.push((a.alpha, a.beta, a.cutoff.max(1))),
        }
    }
    for (q, &t) in topics.iter().enumerate() {
        let docs = &ranked[offsets[q] as usize..offsets[q + 1] as usize];
        let computed: Vec<Option<Values>> = groups
            .iter()
            .map(|&(alpha, beta, depth)| {
                (t >= 0).then(|| {
                    let p = Params { alpha, beta, depth };
                    let best = ideal(intents, t as usize, &p);
                    values(intents, t as usize, &best, docs, &p)
                })
            })
            .collect();
        // the graded measures at one cut share one computation
        let mut graded: Vec<(usize, Graded)> = Vec::new();
        for (column, a) in out.iter_mut().zip(asked) {
            if a.measure.is_graded() {
                column.push(graded_value(intents, t, docs, a, &mut graded));
                continue;
            }
            let g = groups.iter().position(|g| g.0 == a.alpha && g.1 == a.beta).unwrap_or(0);
            column.push(match &computed[g] {
                Some(v) => a.measure.value(v, a.cutoff.max(1), intents.actual(t as usize)),
                None => 0.0,
            });
        }
    }
    out
}

/// A measure of [`crate::intent_graded`] on one ranking of topic `t` (negative: none).
/// `done` holds the values already computed for this ranking, by rank cut.
fn graded_value(
    intents: &Intents,
    t: i64,
    docs: &[i64],
    a: &Asked,
    done: &mut Vec<(usize, Graded)>,
) -> f64 {
    if t < 0 {
        return 0.0;
    }
    let k = a.cutoff.max(1);
    let g = match done.iter().find(|(cut, _)| *cut == k) {
        Some(&(_, g)) => g,
        None => {
            let g = crate::intent_graded::graded(intents, t as usize, docs, k);
            done.push((k, g));
            g
        }
    };
    match a.measure {
        Measure::DNdcg => g.d_ndcg,
        Measure::IRec => g.i_rec,
        Measure::NdcgIa => g.ndcg_ia,
        _ => a.gamma * g.i_rec + (1.0 - a.gamma) * g.d_ndcg,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One topic, documents 0..3: d0 relevant to subtopics 0 and 1, d1 to 1, d2 to none.
    fn one_topic() -> Intents {
        let line = |doc, subtopic, grade| Line { topic: 0, doc, subtopic, grade };
        Intents::build(&[line(0, 1, 1), line(0, 2, 3), line(1, 2, 1), line(2, 1, 0)], vec![0, 3])
    }

    #[test]
    fn judgments_are_binary_and_numbered_per_topic() {
        let i = one_topic();
        assert_eq!(i.actual(0), 2);
        assert_eq!(i.nrel, vec![1, 2]);
        assert_eq!(i.rel(0), &[0, 1]);
        assert_eq!(i.rel(1), &[1]);
        assert!(i.rel(2).is_empty());
    }

    #[test]
    fn the_last_judgment_decides_but_every_line_counts() {
        let line = |subtopic, grade| Line { topic: 0, doc: 0, subtopic, grade };
        let i = Intents::build(&[line(4, 1), line(4, 0), line(5, 1), line(5, 1)], vec![0, 1]);
        assert_eq!(i.nrel, vec![1, 2]);
        assert_eq!(i.rel(0), &[1]);
    }

    #[test]
    fn greedy_ideal_breaks_ties_by_the_larger_document() {
        let line = |doc, subtopic| Line { topic: 0, doc, subtopic, grade: 1 };
        // all three tie at first: d2 (the largest id); then d0 (a new subtopic) beats
        // d1 (d2's subtopic, covered)
        let i = Intents::build(&[line(0, 0), line(1, 1), line(2, 1)], vec![0, 3]);
        assert_eq!(ideal_ranking(&i, 0, 0.5), vec![2, 0, 1]);
    }

    #[test]
    fn hand_computed_alpha_ndcg() {
        let i = one_topic();
        let p = Params { alpha: 0.5, beta: 0.5, depth: 2 };
        let best = ideal(&i, 0, &p);
        // the run: d1 then d0; gains 1, then 1 + 0.5; the ideal: d0 (2) then d1 (0.5)
        let v = values(&i, 0, &best, &[1, 0], &p);
        let d1 = 2f64.ln() / 3f64.ln();
        let run = (1.0 + 1.5 * d1) / (2.0 + d1);
        let best2 = (2.0 + 0.5 * d1) / (2.0 + d1);
        assert_eq!(v.dcg[1], run);
        assert_eq!(v.ndcg[1], run / best2);
        assert_eq!(v.strec[1], 1.0);
        assert_eq!(v.precision[1], 3.0 / 4.0);
    }

    #[test]
    fn a_topic_without_relevant_subtopics_scores_zero() {
        let i = Intents::build(&[Line { topic: 0, doc: 0, subtopic: 0, grade: 0 }], vec![0, 1]);
        let asked =
            [Asked { measure: Measure::Nnrbp, cutoff: 1, alpha: 0.5, beta: 0.5, gamma: 0.5 }];
        assert_eq!(evaluate(&i, &asked, &[0, -1], &[0, 1, 1], &[0]), vec![vec![0.0, 0.0]]);
    }

    /// A small deterministic generator (no dependency) for the randomised checks.
    fn lcg(state: &mut u64) -> u64 {
        *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        *state >> 33
    }

    #[test]
    fn numbering_and_intents_equal_a_direct_computation_on_shuffled_lines() {
        use std::collections::{BTreeMap, BTreeSet};
        let mut state = 7;
        for case in 0..300 {
            let n = (lcg(&mut state) % 60) as usize + 1;
            let wide = case % 3 == 0; // subtopic numbers far apart: the sorted path
            let keys: Vec<(i64, u64)> =
                (0..n).map(|_| ((lcg(&mut state) % 4) as i64 * 7, lcg(&mut state) % 6)).collect();
            let n_out = number(&keys);
            let topics: BTreeSet<i64> = keys.iter().map(|k| k.0).collect();
            assert_eq!(n_out.topics, topics.iter().copied().collect::<Vec<_>>());
            let pairs: BTreeSet<(i64, u64)> = keys.iter().copied().collect();
            assert_eq!(n_out.docs, pairs.iter().map(|p| p.1).collect::<Vec<_>>());
            for (r, k) in keys.iter().enumerate() {
                let doc = pairs.iter().position(|p| p == k).unwrap();
                assert_eq!(n_out.line_doc[r] as usize, doc);
                assert_eq!(
                    n_out.line_topic[r] as usize,
                    topics.iter().position(|t| *t == k.0).unwrap()
                );
            }
            let lines: Vec<Line> = (0..n)
                .map(|r| {
                    let s = lcg(&mut state) % 5;
                    Line {
                        topic: n_out.line_topic[r],
                        doc: n_out.line_doc[r],
                        subtopic: if wide { s as i64 * 1_000_003 } else { s as i64 },
                        grade: (lcg(&mut state) % 4) as i64,
                    }
                })
                .collect();
            let got = Intents::build(&lines, n_out.topic_docs.clone());
            // direct: per (topic, subtopic) every line's judgment; per (doc, subtopic)
            // the last line's
            let mut count: BTreeMap<(u32, i64), i64> = BTreeMap::new();
            let mut last: BTreeMap<(u32, i64), i64> = BTreeMap::new();
            for l in &lines {
                *count.entry((l.topic, l.subtopic)).or_default() += l.grade.min(1);
                last.insert((l.doc, l.subtopic), l.grade);
            }
            let actual: Vec<(u32, i64)> =
                count.iter().filter(|(_, &c)| c > 0).map(|(&k, _)| k).collect();
            assert_eq!(got.nrel, count.values().copied().filter(|&c| c > 0).collect::<Vec<_>>());
            assert_eq!(got.sub_number, actual.iter().map(|a| a.1).collect::<Vec<_>>());
            for d in 0..n_out.docs.len() {
                let t = lines.iter().find(|l| l.doc as usize == d).unwrap().topic;
                let of_topic: Vec<i64> = actual.iter().filter(|a| a.0 == t).map(|a| a.1).collect();
                let want: Vec<(u32, i64)> = last
                    .iter()
                    .filter(|(k, &g)| k.0 as usize == d && g > 0)
                    .map(|(k, &g)| (of_topic.iter().position(|&s| s == k.1).unwrap() as u32, g))
                    .collect();
                let (subs, grades) = got.graded(d);
                let have: Vec<(u32, i64)> =
                    subs.iter().copied().zip(grades.iter().copied()).collect();
                assert_eq!(have, want, "case {case}, document {d}");
            }
        }
    }
}
