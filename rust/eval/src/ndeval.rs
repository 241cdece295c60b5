//! `cranfield ndeval`: ndeval's files read with ndeval's rules and its CSV report
//! printed byte for byte (ndeval.c 4.5, the TREC Web track's diversity evaluator).
//!
//! * qrels lines are `topic subtopic docno judgment` (fields separated by white space,
//!   further fields ignored): topic, subtopic and judgment are natural numbers (digits
//!   only, at most 1000009 as ndeval reads them);
//! * run lines are `topic Q0 docno rank score runid`: the topic may carry a task prefix
//!   ending in `-` (`wt09-1`); rankings follow the rank column, or with `-traditional`
//!   the score (descending, ties by docno descending); a rank or a docno repeated in a
//!   topic is refused (a docno only within the `-M` cut);
//! * one row per run topic (a topic the qrels do not know scores 0), then `amean`, the
//!   mean over the run topics the qrels know (`-c`: over every qrels topic);
//! * with a baseline run, each value is the risk-sensitive difference
//!   `r - b` when `r >= b`, else `(1 + riskAlpha) (r - b)`.

use std::fmt::Write;
use std::hash::Hasher;
use std::ops::Range;

use cranfield_trec::room::spawn;
use rustc_hash::{FxHashMap, FxHashSet, FxHasher};

use crate::diversity::{ideal, number_parts, runs, values, FirstSeen, Intents, Params, Values};

mod source;
pub use source::{Keep, Source, Stop};

/// ndeval's depth: the rank cuts it reports are 5, 10 and 20.
const DEPTH: usize = 20;

/// A problem with an input: the file's name, the line (from 1) when there is one, what.
#[derive(Clone, Debug, PartialEq)]
pub struct NdError {
    pub file: String,
    pub line: Option<usize>,
    pub message: String,
}

fn problem(file: &str, line: Option<usize>, message: impl Into<String>) -> NdError {
    NdError { file: file.to_string(), line, message: message.into() }
}

/// The options of ndeval.
#[derive(Clone, Debug)]
pub struct Options {
    pub alpha: f64,
    pub beta: f64,
    pub traditional: bool,
    pub depth: Option<usize>,
    pub complete: bool,
    /// the risk sensitivity and its text as given (printed in the run's label)
    pub risk_alpha: f64,
    pub risk_alpha_text: String,
}

/// ndeval's `naturalNumber`: digits only, refused once the value passed 100000 before
/// another digit.
fn natural(s: &[u8]) -> Option<i64> {
    if s.is_empty() {
        return None;
    }
    let mut value: i64 = 0;
    for &c in s {
        if !c.is_ascii_digit() || value > 100_000 {
            return None;
        }
        value = 10 * value + (c - b'0') as i64;
    }
    Some(value)
}

/// ndeval's `parseTopic`: a natural number, or one after a task prefix ending in `-`.
fn run_topic(s: &[u8]) -> Option<i64> {
    if s.first().is_some_and(u8::is_ascii_digit) {
        return natural(s);
    }
    let dash = s.iter().position(|&c| c == b'-')?;
    natural(&s[dash + 1..])
}

/// C's `isspace` in the C locale, as a table (a byte's test is one load).
const SPACE: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    while i < 6 {
        table[[b' ', b'\t', b'\n', 0x0b, 0x0c, b'\r'][i] as usize] = true;
        i += 1;
    }
    table
};

fn space(c: u8) -> bool {
    SPACE[c as usize]
}

/// The end of the field that starts at `i` (the next white-space byte, or the end):
/// eight bytes at a time while none of them is at most b' ' (every white-space byte
/// is), then byte by byte.
fn token_end(data: &[u8], mut i: usize) -> usize {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    while let Some(chunk) = data.get(i..i + 8) {
        let x = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        // a byte's high bit: set when the byte is above b' ' (0x21..=0x7f carries
        // into it from +0x5f without reaching the next byte; 0x80.. has it already)
        let above = (((x & !HIGH) + 0x5f5f_5f5f_5f5f_5f5f) | x) & HIGH;
        if above == HIGH {
            i += 8;
            continue;
        }
        let at = i + ((!above & HIGH).trailing_zeros() / 8) as usize;
        if space(data[at]) {
            return at;
        }
        i = at + 1; // a control byte that is not white space belongs to the field
    }
    while data.get(i).is_some_and(|&c| !space(c)) {
        i += 1;
    }
    i
}

/// The lines of a file (the last one without its newline too), each with its number
/// and its first `N` white-space separated fields, and how many it has (at most `N`):
/// one scan finds the fields and the line's end.
fn split_lines<const N: usize>(data: &[u8]) -> impl Iterator<Item = (usize, [&[u8]; N], usize)> {
    let data = data.strip_suffix(b"\n").unwrap_or(data);
    let (mut at, mut number) = (Some(0), 0);
    std::iter::from_fn(move || {
        let mut i = at?;
        number += 1;
        let mut fields: [&[u8]; N] = [&[]; N];
        let mut n = 0;
        loop {
            while data.get(i).is_some_and(|&c| c != b'\n' && space(c)) {
                i += 1;
            }
            if data.get(i).map_or(true, |&c| c == b'\n') {
                break;
            }
            if n == N {
                i = memchr::memchr(b'\n', &data[i..]).map_or(data.len(), |end| i + end);
                break;
            }
            let start = i;
            i = token_end(data, i);
            fields[n] = &data[start..i];
            n += 1;
        }
        at = (i < data.len()).then_some(i + 1);
        Some((number, fields, n))
    })
}

/// The longest prefix of `s` that is a decimal number, as C's `sscanf("%lf")` reads it.
fn score(s: &[u8]) -> Option<f64> {
    let text = std::str::from_utf8(s).ok();
    if let Some(v) = text.and_then(|t| t.parse::<f64>().ok()) {
        return Some(v);
    }
    let mut end = 0;
    let mut digits = false;
    if matches!(s.first(), Some(b'+' | b'-')) {
        end = 1;
    }
    while s.get(end).is_some_and(u8::is_ascii_digit) {
        end += 1;
        digits = true;
    }
    if s.get(end) == Some(&b'.') {
        end += 1;
        while s.get(end).is_some_and(u8::is_ascii_digit) {
            end += 1;
            digits = true;
        }
    }
    if !digits {
        return None;
    }
    if matches!(s.get(end), Some(b'e' | b'E')) {
        let mut e = end + 1;
        if matches!(s.get(e), Some(b'+' | b'-')) {
            e += 1;
        }
        if s.get(e).is_some_and(u8::is_ascii_digit) {
            while s.get(e).is_some_and(u8::is_ascii_digit) {
                e += 1;
            }
            end = e;
        }
    }
    std::str::from_utf8(&s[..end]).ok()?.parse().ok()
}

/// Subtopic qrels read with ndeval's rules: the judgments of each topic (topics in
/// increasing number).
#[derive(Clone, Debug)]
pub struct Qrels<'a> {
    pub topics: Vec<i64>,
    pub intents: Intents,
    /// the judged docnos of each topic, in byte order (`intents.topic_docs`)
    pub docs: Vec<&'a [u8]>,
}

/// Qrels lines read: their (topic, docno) pairs as first seen, and each line's
/// subtopic and grade (natural numbers stop near 10^6, so they fit 32 bits).
type QrelsPart<'a> = (FirstSeen<i64, &'a [u8]>, Vec<(u32, u32)>);

/// The lines of `piece` (after `before` lines of its part) into `part`, the docnos of
/// new pairs copied into `keep`; gives the lines of the piece.
fn qrels_piece<'a>(
    (pairs, judgments): &mut QrelsPart<'a>,
    keep: &mut Keep<'a>,
    piece: &[u8],
    before: usize,
    name: &str,
) -> Result<usize, NdError> {
    judgments.reserve(piece.len() / 16);
    let mut lines = 0;
    for (number, f, n) in split_lines::<4>(piece) {
        lines = number;
        let parsed =
            (n == 4).then(|| Some((natural(f[0])?, natural(f[1])?, natural(f[3])?))).flatten();
        let Some((topic, subtopic, grade)) = parsed else {
            return Err(problem(
                name,
                Some(before + number),
                "syntax error: expected 'topic subtopic docno judgment' with natural numbers",
            ));
        };
        pairs.push_kept(topic, f[2], |doc| keep.copy(doc));
        judgments.push((subtopic as u32, grade as u32));
    }
    Ok(lines)
}

/// What `parse` reads from the lines of `source`, as two parts in file order: a file
/// of at least [`source::SPLIT_BYTES`] is cut in two halves at a line end, each read
/// and parsed piece by piece by a thread of its own, keeping what it copies in its
/// room (the first problem in file order is reported, its line counted in the whole
/// file; a file sent elsewhere by either half is sent elsewhere).
fn in_halves<'a, P: Send + Default>(
    source: &Source,
    [head_room, tail_room]: [&'a mut Vec<Vec<u8>>; 2],
    parse: impl Fn(&mut P, &mut Keep<'a>, &[u8], usize) -> Result<usize, NdError> + Sync,
) -> Result<(P, P), Stop<NdError>> {
    let len = source.len();
    let cut = source.cut()?;
    let half = |range: Range<u64>, room: &'a mut Vec<Vec<u8>>| {
        let bytes = usize::try_from(range.end - range.start).map_err(|_| Stop::Elsewhere)?;
        let mut keep = Keep::new(room, bytes).ok_or(Stop::Elsewhere)?;
        let mut part = P::default();
        let lines =
            source.lines(range, |piece, before| parse(&mut part, &mut keep, piece, before))?;
        if keep.failed() {
            return Err(Stop::Elsewhere);
        }
        Ok((part, lines))
    };
    let Some(cut) = cut else {
        return half(0..len, head_room).map(|(part, _)| (part, P::default()));
    };
    let (first, second) = at_once(|| half(0..cut, head_room), || half(cut..len, tail_room));
    match (first, second) {
        (Err(Stop::Elsewhere), _) | (_, Err(Stop::Elsewhere)) => Err(Stop::Elsewhere),
        (Err(e), _) => Err(e),
        (Ok((_, lines)), Err(Stop::Problem(mut e))) => {
            e.line = e.line.map(|line| line + lines);
            Err(Stop::Problem(e))
        }
        (Ok((head, _)), Ok((tail, _))) => Ok((head, tail)),
    }
}

/// Read subtopic qrels (`name` names the file in errors), in two halves at once, the
/// docnos kept in `rooms`.
pub fn read_qrels<'a>(
    source: &Source,
    rooms: [&'a mut Vec<Vec<u8>>; 2],
    name: &str,
) -> Result<Qrels<'a>, Stop<NdError>> {
    // each half numbers its pairs as it reads them; only the distinct pairs are merged
    let parse = |part: &mut QrelsPart<'a>, keep: &mut Keep<'a>, piece: &[u8], before| {
        qrels_piece(part, keep, piece, before, name)
    };
    let (head, tail) = in_halves(source, rooms, parse)?;
    if head.1.is_empty() && tail.1.is_empty() {
        return Err(Stop::Problem(problem(name, None, "the qrels file is empty")));
    }
    let n = number_parts(&[&head.0, &tail.0]);
    let judgment = |i: usize| {
        let (part, i) = if i < head.1.len() { (0, i) } else { (1, i - head.1.len()) };
        let (pairs, judgments) = if part == 0 { &head } else { &tail };
        let (subtopic, grade) = judgments[i];
        let doc = n.part_docs[part][pairs.line_pair[i] as usize];
        (doc, i64::from(subtopic), i64::from(grade))
    };
    let intents = Intents::build_with(head.1.len() + tail.1.len(), judgment, n.topic_docs.clone());
    Ok(Qrels { topics: n.topics, intents, docs: n.docs })
}

/// A docno's 32-bit key (FxHash), taken where its line is read, while the bytes are
/// in the cache: a topic's sets and lookups compare keys and look at the bytes of a
/// docno only when two keys are equal.
fn doc_key(doc: &[u8]) -> u32 {
    let mut hasher = FxHasher::default();
    hasher.write(doc);
    let h = hasher.finish();
    (h ^ (h >> 32)) as u32
}

/// A topic of a run: its docnos in rank order, and their keys ([`doc_key`]).
#[derive(Clone, Debug, Default)]
pub struct Ranking<'a> {
    pub topic: i64,
    pub docs: Vec<&'a [u8]>,
    keys: Vec<u32>,
}

impl<'a> Ranking<'a> {
    fn new(topic: i64, docs: Vec<&'a [u8]>) -> Self {
        let keys = docs.iter().map(|d| doc_key(d)).collect();
        Ranking { topic, docs, keys }
    }
}

/// Each topic of a run (increasing) with its docnos in rank order.
pub type Ranked<'a> = Vec<Ranking<'a>>;

/// A run read with ndeval's rules: its name and each topic's docnos in rank order.
#[derive(Clone, Debug)]
pub struct Run<'a> {
    pub name: String,
    pub topics: Ranked<'a>,
}

/// A run line read: topic, rank, score (0 unless ranked by score), docno.
type RunRow<'a> = (u32, u32, f64, &'a [u8]);

/// A run line's fields, topic and rank, or the problem of its line.
fn run_line<'p>(
    (number, f, n): (usize, [&'p [u8]; 6], usize),
    name: &str,
) -> Result<([&'p [u8]; 6], u32, u32), NdError> {
    let parsed = (n == 6).then(|| Some((run_topic(f[0])?, natural(f[3])?))).flatten();
    let Some((topic, rank)) = parsed else {
        return Err(problem(
            name,
            Some(number),
            "syntax error: expected 'topic Q0 docno rank score runid' with a natural \
             number as rank",
        ));
    };
    // natural numbers stop near 10^6, so they fit 32 bits
    Ok((f, topic as u32, rank as u32))
}

/// A part of a run read: its rows (blocks, or scored rows with `-traditional`) and the
/// run's name when the part starts the file.
type RunPart<'a, R> = (Vec<R>, Option<String>);

/// The lines of `piece` (after `before` lines of its part) as `row` reads them into
/// `part` (each docno copied into `keep`); gives the lines of the piece.
fn run_piece<'a, R>(
    (rows, run_name): &mut RunPart<'a, R>,
    keep: &mut Keep<'a>,
    (piece, before): (&[u8], usize),
    name: &str,
    row: impl Fn(&mut Vec<R>, [&[u8]; 6], u32, u32, &'a [u8]) -> Result<(), &'static str>,
) -> Result<usize, NdError> {
    let mut lines = 0;
    for (number, f, n) in split_lines::<6>(piece) {
        lines = number;
        let (f, topic, rank) = run_line((before + number, f, n), name)?;
        if before + number == 1 {
            *run_name = Some(String::from_utf8_lossy(f[5]).into_owned());
        }
        let doc = keep.copy(f[2]);
        row(rows, f, topic, rank, doc).map_err(|m| problem(name, Some(before + number), m))?;
    }
    Ok(lines)
}

/// A scored row of a run line (`-traditional`).
fn scored_row<'a>(
    rows: &mut Vec<RunRow<'a>>,
    f: [&[u8]; 6],
    topic: u32,
    rank: u32,
    doc: &'a [u8],
) -> Result<(), &'static str> {
    let value = score(f[4]).filter(|v| !v.is_nan()).ok_or("the score is not a number")?;
    rows.push((topic, rank, value, doc));
    Ok(())
}

/// Consecutive run lines of one topic: their ranks, docnos and docno keys in file
/// order.
#[derive(Debug)]
struct Block<'a> {
    topic: u32,
    ranks: Vec<u32>,
    docs: Vec<&'a [u8]>,
    keys: Vec<u32>,
}

/// A run line into blocks of one topic (ranked by the rank column): a run written
/// topic by topic is its blocks.
fn block_row<'a>(
    blocks: &mut Vec<Block<'a>>,
    f: [&[u8]; 6],
    topic: u32,
    rank: u32,
    doc: &'a [u8],
) -> Result<(), &'static str> {
    let key = doc_key(f[2]);
    match blocks.last_mut() {
        Some(block) if block.topic == topic => {
            block.ranks.push(rank);
            block.docs.push(doc);
            block.keys.push(key);
        }
        _ => {
            // room for as many lines as the previous topic's (runs rank each topic as deep)
            let room = blocks.last().map_or(1, |b| b.docs.len()).max(1);
            let mut block = Block {
                topic,
                ranks: Vec::with_capacity(room),
                docs: Vec::with_capacity(room),
                keys: Vec::with_capacity(room),
            };
            block.ranks.push(rank);
            block.docs.push(doc);
            block.keys.push(key);
            blocks.push(block);
        }
    }
    Ok(())
}

/// Each topic's docnos in rank order from the blocks of a run (a rank repeated within
/// a topic is refused): a topic in one block with increasing ranks is taken as it is.
fn rank_blocks<'a>(mut blocks: Vec<Block<'a>>, name: &str) -> Result<Ranked<'a>, NdError> {
    blocks.sort_by_key(|b| b.topic);
    let mut topics: Ranked<'a> = Vec::new();
    let mut rest = blocks.as_mut_slice();
    while let Some(topic) = rest.first().map(|b| b.topic) {
        let count = rest.iter().take_while(|b| b.topic == topic).count();
        let (group, tail) = rest.split_at_mut(count);
        rest = tail;
        let increasing = |b: &Block| b.ranks.windows(2).all(|w| w[0] < w[1]);
        if let [block] = group {
            if increasing(block) {
                let (docs, keys) =
                    (std::mem::take(&mut block.docs), std::mem::take(&mut block.keys));
                topics.push(Ranking { topic: i64::from(topic), docs, keys });
                continue;
            }
        }
        let mut ranked: Vec<(u32, &'a [u8], u32)> = group
            .iter()
            .flat_map(|b| b.ranks.iter().zip(&b.docs).zip(&b.keys).map(|((&r, &d), &k)| (r, d, k)))
            .collect();
        ranked.sort_unstable_by_key(|&(rank, _, _)| rank);
        if let Some(w) = ranked.windows(2).find(|w| w[0].0 == w[1].0) {
            let message = format!("duplicate rank ({}) for topic {}", w[1].0, topic);
            return Err(problem(name, None, message));
        }
        let docs = ranked.iter().map(|&(_, doc, _)| doc).collect();
        let keys = ranked.iter().map(|&(_, _, key)| key).collect();
        topics.push(Ranking { topic: i64::from(topic), docs, keys });
    }
    Ok(topics)
}

/// Each topic's docnos ranked by score (descending, ties by docno descending) as
/// `-traditional` asks.
fn rank_by_score<'a>(mut rows: Vec<RunRow<'a>>) -> Ranked<'a> {
    rows.sort_by(|a, b| a.0.cmp(&b.0).then(b.2.total_cmp(&a.2)).then(b.3.cmp(a.3)));
    runs(&rows, |a, b| a.0 == b.0)
        .map(|group| Ranking::new(i64::from(group[0].0), group.iter().map(|r| r.3).collect()))
        .collect()
}

/// The first topic of `topics` with a docno ranked twice, and that docno (the first
/// one whose earlier rank a scan in rank order meets).
fn first_repeated<'a>(topics: &[Ranking<'a>]) -> Option<(i64, &'a [u8])> {
    let mut first: FxHashMap<u32, u32> = FxHashMap::default();
    topics.iter().find_map(|t| {
        first.clear();
        first.reserve(t.docs.len());
        for (i, (&doc, &key)) in t.docs.iter().zip(&t.keys).enumerate() {
            let earlier = *first.entry(key).or_insert(i as u32) as usize;
            if earlier == i {
                continue;
            }
            if t.docs[earlier] == doc {
                return Some((t.topic, doc));
            }
            // two docnos with one key (rare): the bytes decide
            let mut seen: FxHashSet<&[u8]> = FxHashSet::default();
            return t.docs.iter().find(|d| !seen.insert(d)).map(|&d| (t.topic, d));
        }
        None
    })
}

/// Read a run (`name` names the file in errors), its docnos kept in `rooms`.
pub fn read_run<'a>(
    source: &Source,
    rooms: [&'a mut Vec<Vec<u8>>; 2],
    name: &str,
    options: &Options,
) -> Result<Run<'a>, Stop<NdError>> {
    let empty = || Stop::Problem(problem(name, None, "the run file is empty"));
    let (mut topics, run_name) = if options.traditional {
        let parse =
            |part: &mut RunPart<'a, RunRow<'a>>, keep: &mut Keep<'a>, piece: &[u8], before| {
                run_piece(part, keep, (piece, before), name, scored_row)
            };
        let ((mut rows, run_name), (tail, _)) = in_halves(source, rooms, parse)?;
        rows.extend(tail);
        (rank_by_score(rows), run_name)
    } else {
        let parse =
            |part: &mut RunPart<'a, Block<'a>>, keep: &mut Keep<'a>, piece: &[u8], before| {
                run_piece(part, keep, (piece, before), name, block_row)
            };
        let ((mut blocks, run_name), (tail, _)) = in_halves(source, rooms, parse)?;
        blocks.extend(tail);
        (rank_blocks(blocks, name).map_err(Stop::Problem)?, run_name)
    };
    // every line is a row (a blank one is a syntax error): the first line names the run
    let run_name = run_name.filter(|_| !topics.is_empty()).ok_or_else(empty)?;
    if let Some(m) = options.depth {
        topics.iter_mut().for_each(|t| {
            t.docs.truncate(m);
            t.keys.truncate(m);
        });
    }
    let [first, second] = on_halves(&topics, first_repeated);
    if let Some((topic, doc)) = first.or(second) {
        let doc = String::from_utf8_lossy(doc);
        let message = format!("duplicate docno ({doc}) for topic {topic}");
        return Err(Stop::Problem(problem(name, None, message)));
    }
    Ok(Run { name: run_name, topics })
}

/// Subtopic qrels as `cranfield eval` reads them (`topic subtopic docno grade`, the
/// columns of a table): ids as UTF-8 text, concatenated with offsets.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub query_offsets: Vec<i64>,
    pub query_data: Vec<u8>,
    pub subtopic: Vec<i64>,
    pub doc_offsets: Vec<i64>,
    pub doc_data: Vec<u8>,
    pub grade: Vec<i64>,
}

/// Read subtopic qrels for the measure language: exactly four fields a line (blank
/// lines and `#` lines skipped), any topic id, subtopic and grade natural numbers as
/// ndeval reads them, ids valid UTF-8.
pub fn read_table(data: &[u8], name: &str) -> Result<Table, NdError> {
    let mut t = Table { query_offsets: vec![0], doc_offsets: vec![0], ..Table::default() };
    for (number, f, n) in split_lines::<5>(data) {
        if n == 0 || f[0].starts_with(b"#") {
            continue;
        }
        let bad = |m: &str| Err(problem(name, Some(number), m));
        if n != 4 {
            return bad(&format!(
                "expected 4 fields 'topic subtopic docno grade', got {}",
                if n > 4 { "more".to_string() } else { n.to_string() }
            ));
        }
        if std::str::from_utf8(f[0]).is_err() || std::str::from_utf8(f[2]).is_err() {
            return bad("an id is not valid UTF-8 text");
        }
        let Some(subtopic) = natural(f[1]) else {
            return bad("the subtopic is not a natural number (digits only, at most 1000009)");
        };
        let Some(grade) = natural(f[3]) else {
            return bad("the grade is not a natural number (digits only, at most 1000009)");
        };
        t.query_data.extend_from_slice(f[0]);
        t.query_offsets.push(t.query_data.len() as i64);
        t.doc_data.extend_from_slice(f[2]);
        t.doc_offsets.push(t.doc_data.len() as i64);
        t.subtopic.push(subtopic);
        t.grade.push(grade);
    }
    if t.grade.is_empty() {
        return Err(problem(name, None, "no subtopic judgments (the file is empty)"));
    }
    Ok(t)
}

/// ndeval's values of each topic of `run` (None: a topic the qrels do not know), the
/// topics shared between two threads.
fn topic_values(qrels: &Qrels, run: &Run, p: &Params) -> Vec<(i64, Option<Values>)> {
    let one = |ranking: &Ranking| {
        let topic = ranking.topic;
        let Ok(t) = qrels.topics.binary_search(&topic) else {
            return (topic, None);
        };
        let range = qrels.intents.topic_docs[t]..qrels.intents.topic_docs[t + 1];
        let numbers = judged_numbers(&qrels.docs[range.clone()], range.start, ranking);
        let best = ideal(&qrels.intents, t, p);
        (topic, Some(values(&qrels.intents, t, &best, &numbers, p)))
    };
    let [mut first, second]: [Vec<_>; 2] =
        on_halves(&run.topics, |part| part.iter().map(one).collect());
    first.extend(second);
    first
}

/// The document number of each docno of `ranking` among a topic's `judged` docnos
/// (numbered from `first`), -1 for one not judged: looked up by key, the bytes compared
/// on a match.
fn judged_numbers(judged: &[&[u8]], first: usize, ranking: &Ranking) -> Vec<i64> {
    let mut by_key: FxHashMap<u32, i64> = FxHashMap::default();
    by_key.reserve(judged.len());
    let distinct = judged
        .iter()
        .enumerate()
        .all(|(i, d)| by_key.insert(doc_key(d), (first + i) as i64).is_none());
    if !distinct {
        // two judged docnos with one key (rare): the bytes are the key
        let by_doc: FxHashMap<&[u8], i64> =
            judged.iter().enumerate().map(|(i, &d)| (d, (first + i) as i64)).collect();
        return ranking.docs.iter().map(|d| *by_doc.get(d).unwrap_or(&-1)).collect();
    }
    let number = |(doc, key): (&&[u8], &u32)| match by_key.get(key) {
        Some(&n) if judged[n as usize - first] == *doc => n,
        _ => -1,
    };
    ranking.docs.iter().zip(&ranking.keys).map(number).collect()
}

/// `work` on the two halves of `items` at once (see [`at_once`]), the results in order.
fn on_halves<'a, T: Sync, R: Send>(items: &'a [T], work: impl Fn(&'a [T]) -> R + Sync) -> [R; 2] {
    let (first, second) = items.split_at(items.len() / 2);
    if first.is_empty() {
        return [work(first), work(second)];
    }
    let (ours, theirs) = at_once(|| work(first), || work(second));
    [ours, theirs]
}

/// `here` on this thread and `there` on a thread of its own at once; when no thread
/// can be had, `there` runs here afterwards.
pub fn at_once<A, B: Send>(here: impl FnOnce() -> A, there: impl FnOnce() -> B + Send) -> (A, B) {
    // `there` waits in the mutex: the thread takes it, or this thread once none started
    let there = std::sync::Mutex::new(Some(there));
    let take = || there.lock().unwrap_or_else(|e| e.into_inner()).take();
    std::thread::scope(|scope| {
        let other = spawn(scope, || take().map(|work| work()));
        let ours = here();
        let theirs = other
            .and_then(|handle| handle.join().expect("a worker thread panicked"))
            .or_else(|| take().map(|work| work()))
            .expect("the other work is done once");
        (ours, theirs)
    })
}

/// The 21 values of a row, in ndeval's column order (a topic the qrels do not know: 0).
fn columns(v: Option<&Values>) -> [f64; 21] {
    let Some(v) = v else { return [0.0; 21] };
    let cuts = |a: &[f64]| [a[4], a[9], a[19]];
    let mut out = [0.0; 21];
    let parts: [&[f64]; 7] = [
        &cuts(&v.err),
        &cuts(&v.nerr),
        &cuts(&v.dcg),
        &cuts(&v.ndcg),
        &[v.nrbp, v.nnrbp, v.map_ia],
        &cuts(&v.precision),
        &cuts(&v.strec),
    ];
    for (slot, x) in out.iter_mut().zip(parts.iter().flat_map(|p| p.iter())) {
        *slot = *x;
    }
    out
}

/// C's `printf("%.6f")`, NaN and infinities included (glibc's spelling).
fn c_fixed(out: &mut String, x: f64) {
    if x.is_nan() {
        out.push_str(if x.is_sign_negative() { "-nan" } else { "nan" });
    } else if x.is_infinite() {
        out.push_str(if x < 0.0 { "-inf" } else { "inf" });
    } else {
        let _ = write!(out, "{x:.6}");
    }
}

const HEADER: &str = "runid,topic,ERR-IA@5,ERR-IA@10,ERR-IA@20,nERR-IA@5,nERR-IA@10,nERR-IA@20,\
alpha-DCG@5,alpha-DCG@10,alpha-DCG@20,alpha-nDCG@5,alpha-nDCG@10,alpha-nDCG@20,NRBP,nNRBP,\
MAP-IA,P-IA@5,P-IA@10,P-IA@20,strec@5,strec@10,strec@20\n";

fn row(out: &mut String, label: &str, topic: &str, values: &[f64; 21]) {
    out.push_str(label);
    out.push(',');
    out.push_str(topic);
    for &x in values {
        out.push(',');
        c_fixed(out, x);
    }
    out.push('\n');
}

/// ndeval's report (standard output) of `run` against `qrels`, with `baseline` when
/// risk-sensitive.
pub fn report(qrels: &Qrels, run: &Run, baseline: Option<&Run>, options: &Options) -> String {
    let p = Params { alpha: options.alpha, beta: options.beta, depth: DEPTH };
    let ours = topic_values(qrels, run, &p);
    let mut actual = ours.iter().filter(|(_, v)| v.is_some()).count();
    if options.complete {
        actual = qrels.topics.len();
    }
    let theirs = baseline.map(|b| topic_values(qrels, b, &p)).unwrap_or_default();
    let label = match baseline {
        None => run.name.clone(),
        Some(b) => {
            format!("{} (rel to. {}; rs=1+a; a={})", run.name, b.name, options.risk_alpha_text)
        }
    };
    let a = options.risk_alpha;
    let risk = |r: f64, b: f64| if r >= b { r - b } else { (a + 1.0) * (r - b) };
    let mut out = String::from(HEADER);
    let mut totals = [0.0f64; 21];
    let mut printed = 0usize;
    let zero = [0.0; 21];
    let (mut i, mut j) = (0, 0);
    // ndeval's merge of the run's and the baseline's topics (both in increasing order)
    while i < ours.len() || (j < theirs.len() && options.complete) {
        let (topic, r, b) = if i >= ours.len() {
            j += 1;
            (theirs[j - 1].0, zero, columns(theirs[j - 1].1.as_ref()))
        } else if j >= theirs.len() {
            i += 1;
            (ours[i - 1].0, columns(ours[i - 1].1.as_ref()), zero)
        } else if ours[i].0 == theirs[j].0 {
            i += 1;
            j += 1;
            (ours[i - 1].0, columns(ours[i - 1].1.as_ref()), columns(theirs[j - 1].1.as_ref()))
        } else if ours[i].0 > theirs[j].0 {
            j += 1;
            if !options.complete {
                continue;
            }
            (theirs[j - 1].0, zero, columns(theirs[j - 1].1.as_ref()))
        } else {
            i += 1;
            (ours[i - 1].0, columns(ours[i - 1].1.as_ref()), zero)
        };
        let mut v = [0.0; 21];
        for k in 0..21 {
            v[k] = risk(r[k], b[k]);
            totals[k] += v[k];
        }
        row(&mut out, &label, &topic.to_string(), &v);
        printed += 1;
    }
    if baseline.is_some() && printed > actual {
        actual = printed;
    }
    let means = totals.map(|t| t / actual as f64);
    row(&mut out, &label, "amean", &means);
    out
}

/// ndeval's whole work on files in memory, named `(data, name)`: see
/// [`evaluate_sources`].
pub fn evaluate_files(
    qrels: (&[u8], &str),
    run: (&[u8], &str),
    baseline: Option<(&[u8], &str)>,
    options: &Options,
) -> Result<String, NdError> {
    let given = |input: Input| match input {
        Input::Qrels => Some(Source::Bytes(qrels.0)),
        Input::Run => Some(Source::Bytes(run.0)),
        Input::Baseline => baseline.map(|(data, _)| Source::Bytes(data)),
    };
    let names = Names { qrels: qrels.1, run: run.1, baseline: baseline.map(|(_, name)| name) };
    evaluate_sources(given, &names, options).expect("bytes in memory are read here")
}

/// The run and the baseline that `open` gives read, the docnos kept in `rooms`; a
/// baseline is read even after a problem in the run, which is reported first (a file
/// sent elsewhere is sent elsewhere whatever the other holds).
fn read_runs<'a, 'd>(
    [run_head, run_tail, base_head, base_tail]: [&'a mut Vec<Vec<u8>>; 4],
    open: &(impl Fn(Input) -> Option<Source<'d>> + Sync),
    names: &Names,
    options: &Options,
) -> Result<(Run<'a>, Option<Run<'a>>), Stop<NdError>> {
    let ours = open(Input::Run).ok_or(Stop::Elsewhere)?;
    let base = match names.baseline {
        Some(name) => Some((open(Input::Baseline).ok_or(Stop::Elsewhere)?, name)),
        None => None,
    };
    let ours = read_run(&ours, [run_head, run_tail], names.run, options);
    let rooms = [base_head, base_tail];
    let base = base.map(|(source, name)| read_run(&source, rooms, name, options)).transpose();
    match (ours, base) {
        (Err(Stop::Elsewhere), _) | (_, Err(Stop::Elsewhere)) => Err(Stop::Elsewhere),
        (Err(e), _) | (_, Err(e)) => Err(e),
        (Ok(ours), Ok(base)) => Ok((ours, base)),
    }
}

/// One of ndeval's input files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    Qrels,
    Run,
    Baseline,
}

/// The names of ndeval's files in its messages (`baseline`: when there is one).
#[derive(Clone, Copy, Debug)]
pub struct Names<'n> {
    pub qrels: &'n str,
    pub run: &'n str,
    pub baseline: Option<&'n str>,
}

/// ndeval's whole work on the files `open` gives: the qrels read here, the run and the
/// baseline on a thread of their own, each half of a large file by a thread of its own
/// as it is read, then the report. A problem in the qrels is reported first, as
/// ndeval reads them first. `None` when `open` gives `None` for one of the files or
/// one is sent elsewhere ([`Stop::Elsewhere`]): the caller reads them then.
pub fn evaluate_sources<'d>(
    open: impl Fn(Input) -> Option<Source<'d>> + Sync,
    names: &Names,
    options: &Options,
) -> Option<Result<String, NdError>> {
    let mut rooms: [Vec<Vec<u8>>; 6] = Default::default();
    let [q_head, q_tail, r_head, r_tail, b_head, b_tail] = &mut rooms;
    let open = &open;
    let (judged, read) = at_once(
        || {
            let source = open(Input::Qrels).ok_or(Stop::Elsewhere)?;
            read_qrels(&source, [q_head, q_tail], names.qrels)
        },
        move || read_runs([r_head, r_tail, b_head, b_tail], open, names, options),
    );
    match (judged, read) {
        (Err(Stop::Elsewhere), _) | (_, Err(Stop::Elsewhere)) => None,
        (Err(Stop::Problem(e)), _) | (_, Err(Stop::Problem(e))) => Some(Err(e)),
        (Ok(judged), Ok((ours, base))) => Some(Ok(report(&judged, &ours, base.as_ref(), options))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> Options {
        Options {
            alpha: 0.5,
            beta: 0.5,
            traditional: false,
            depth: None,
            complete: false,
            risk_alpha: 0.0,
            risk_alpha_text: "0".into(),
        }
    }

    #[test]
    fn fields_end_where_c_isspace_says_on_any_bytes() {
        // every byte value, white space and control bytes among them, at every offset
        // of the eight-byte steps; the expected end is a byte-by-byte scan with isspace
        let mut state = 12345u64;
        for _ in 0..3000 {
            let len = (state % 40) as usize;
            let mut data = Vec::with_capacity(len);
            for _ in 0..len {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let pick = (state >> 33) as usize;
                let byte = match pick % 4 {
                    0 => [b' ', b'\t', b'\n', 0x0b, 0x0c, b'\r', 0x01, 0x1f, 0x20, 0x21][pick % 10],
                    1 => 0x80 + (pick % 128) as u8,
                    _ => (pick % 256) as u8,
                };
                data.push(byte);
            }
            for start in 0..=len {
                let want = (start..len).find(|&i| space(data[i])).unwrap_or(len);
                assert_eq!(token_end(&data, start), want, "{data:?} from {start}");
            }
        }
    }

    #[test]
    fn natural_numbers_as_ndeval_reads_them() {
        assert_eq!(natural(b"007"), Some(7));
        assert_eq!(natural(b"1000009"), Some(1_000_009));
        assert_eq!(natural(b"1000010"), None);
        assert_eq!(natural(b"-1"), None);
        assert_eq!(natural(b""), None);
        assert_eq!(run_topic(b"wt09-12"), Some(12));
        assert_eq!(run_topic(b"wt09"), None);
    }

    #[test]
    fn scores_read_as_sscanf_reads_them() {
        assert_eq!(score(b"1.5abc"), Some(1.5));
        assert_eq!(score(b"-2e3x"), Some(-2000.0));
        assert_eq!(score(b"x"), None);
    }

    #[test]
    fn a_topic_without_relevant_subtopics_prints_ndevals_nan() {
        let mut rooms: [Vec<Vec<u8>>; 4] = Default::default();
        let [a, b, c, d] = &mut rooms;
        let qrels = read_qrels(&Source::Bytes(b"1 1 d1 0\n2 1 d1 1\n"), [a, b], "q").unwrap();
        let run = Source::Bytes(b"1 Q0 d1 1 1.0 r\n2 Q0 d1 1 1.0 r\n");
        let run = read_run(&run, [c, d], "r", &options()).unwrap();
        let text = report(&qrels, &run, None, &options());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4);
        assert!(lines[1].starts_with("r,1,0.000000,"), "{}", lines[1]);
        assert!(lines[1].contains("nan"), "{}", lines[1]);
    }

    #[test]
    fn syntax_errors_name_the_line() {
        let problem = |stop| match stop {
            Stop::Problem(e) => e,
            Stop::Elsewhere => panic!("bytes in memory are read here"),
        };
        let mut rooms: [Vec<Vec<u8>>; 4] = Default::default();
        let [a, b, c, d] = &mut rooms;
        let e =
            problem(read_qrels(&Source::Bytes(b"1 1 d1 1\n1 x d2 1\n"), [a, b], "q").unwrap_err());
        assert_eq!(e.line, Some(2));
        let run = Source::Bytes(b"1 Q0 d 1 1 r\n1 Q0 e 1 1 r\n");
        let e = problem(read_run(&run, [c, d], "r", &options()).unwrap_err());
        assert!(e.message.contains("duplicate rank (1) for topic 1"), "{}", e.message);
    }
}
