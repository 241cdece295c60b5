//! trec_eval's output: measure columns printed as trec_eval 10.0 prints them, the
//! counterpart of `cranfield/core/trec_eval.py`'s `run_trec_eval` (which selects the
//! columns and calls [`print`] through `cranfield._engine.trec_eval_print`).
//!
//! The layout (trec_eval's `print_single_eval.c` and `print_final_and_cleanup_eval.c`):
//! with `-q`, one block per query in query order, every printable column in selection
//! order, `%-22s\t%s\t%6.4f` (counts `%ld`, texts quoted); then the `all` block: the
//! means over the `n` evaluated queries, sums for counts, and for the geometric means
//! `exp(sum(log(max(v, 1e-5))) / n)` with the logs summed in query order. Sums run left
//! to right, as the NumPy code (`np.cumsum`) and trec_eval do, so the digits printed are
//! the same.

use std::collections::HashMap;
use std::io::Write;

use crate::{Column, EvalError, JudgedView, Kernel, LabelVec, Labels, Spec, NOT_POOLED};

/// trec_eval's floor of a value before its log is taken for a geometric mean.
pub const MIN_GEO_MEAN: f64 = 1e-5;
/// trec_eval.h: the value of a (query, measure) without a usable mean and stddev (-Z).
pub const MISSING_ZSCORE_VALUE: f64 = -1_000_000.0;

/// How a column is printed (`TrecEval.kind` of the Python registry).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `runid`: the run's name in the summary only.
    RunName,
    /// `num_q`: the number of queries in the summary only.
    QueryCount,
    /// A count: `%ld` per query, summed in the summary.
    Long,
    /// A real value (also the cutoff families): `%6.4f`, averaged in the summary.
    Float,
    /// A geometric mean: in the summary only.
    Gm,
    /// A text per query (relstring): quoted, never in the summary.
    Text,
}

impl Kind {
    /// The kind named as the Python registry names it.
    pub fn parse(name: &str) -> Result<Kind, EvalError> {
        Ok(match name {
            "run_name" => Kind::RunName,
            "query_count" => Kind::QueryCount,
            "long" => Kind::Long,
            "float" | "params" | "cut_long" | "cut_double" => Kind::Float,
            "gm" => Kind::Gm,
            "string" => Kind::Text,
            other => {
                return Err(EvalError::Shape(format!("unknown trec_eval column kind {other:?}")))
            }
        })
    }

    /// Whether the column is printed per query (`-q`).
    fn per_query(self) -> bool {
        matches!(self, Kind::Long | Kind::Float | Kind::Text)
    }
}

/// One printed column: its printed name, its kind, and what trec_eval does with it.
#[derive(Clone, Debug, PartialEq)]
pub struct Col {
    pub printed: String,
    pub kind: Kind,
    /// The measure computing its values (None for `runid` and `num_q`).
    pub spec: Option<Spec>,
    /// A relstring of length <= 0: trec_eval prints `''` for every query.
    pub blank: bool,
    /// The queries `-c` adds get 0 (or `''`) instead of their placeholder value.
    pub reset: bool,
    /// Under `-c` the summary prints the number of relevant qrels lines instead.
    pub recount: bool,
}

/// z-scores (`-Z`): `(query id, printed name) -> (mean, stddev)`.
pub type ZScores = HashMap<(Vec<u8>, String), (f64, f64)>;

/// What is printed besides the values.
#[derive(Clone, Debug)]
pub struct Layout<'a> {
    /// The evaluated queries' ids, in output order.
    pub query_ids: &'a [&'a [u8]],
    pub run_name: &'a [u8],
    /// `-q`: the per-query blocks.
    pub per_query: bool,
    /// Not `-n`: the summary block.
    pub summary: bool,
    /// `-c`: counts marked `recount` print `relevant_in_qrels`.
    pub complete: bool,
    /// The number of qrels lines with a grade > 0 (all queries).
    pub relevant_in_qrels: f64,
    /// `-Z`: every numeric value replaced by its z-score, lines prefixed by `Z`.
    pub zscores: Option<&'a ZScores>,
}

/// The output text and the (query, measure) pairs `-Z` could not score (for a note).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Printed {
    pub text: Vec<u8>,
    pub unusable: Vec<Vec<u8>>,
}

/// `printf("%6.4f", v)` as glibc prints it (NaN as `nan` or `-nan`).
pub fn push_float(out: &mut Vec<u8>, v: f64) {
    if v.is_nan() {
        let text = if v.is_sign_negative() { "-nan" } else { "nan" };
        let _ = write!(out, "{text:>6}");
    } else if let Some(units) = ten_thousandths(v) {
        // |v| < 2^53: at least 6 characters ("0.0000"), so no padding
        if v.is_sign_negative() {
            out.push(b'-');
        }
        let (whole, fraction) = (units / 10_000, units % 10_000);
        let _ = write!(out, "{whole}.");
        let f = fraction as usize;
        let digits = [f / 1000, f / 100 % 10, f / 10 % 10, f % 10];
        out.extend(digits.iter().map(|&d| b'0' + d as u8));
    } else {
        // Rust prints the exact decimal value rounded half to even, as glibc does
        // (checked against C's printf on random, halfway and extreme values in tests).
        let _ = write!(out, "{v:6.4}");
    }
}

/// `|v| * 10^4` rounded to the nearest integer, ties to even, computed exactly (what
/// `%.4f` prints, without its point) for finite `|v| < 2^53`; None for other values.
///
/// `|v| = m * 2^e` exactly, so `|v| * 10^4 = m * 10^4 / 2^-e` (for `e < 0`): an
/// integer quotient and an exact remainder, compared with half the divisor. The
/// formatting machinery of `write!` gives the same digits, about ten times slower.
fn ten_thousandths(v: f64) -> Option<u128> {
    let a = v.abs();
    if a.is_nan() || a >= 9_007_199_254_740_992.0 {
        return None; // 2^53 and above, infinite or NaN
    }
    let bits = a.to_bits();
    let (exponent, fraction) = ((bits >> 52) as i32, bits & ((1u64 << 52) - 1));
    let (m, e) = if exponent == 0 {
        (fraction, -1074) // subnormal
    } else {
        (fraction | (1u64 << 52), exponent - 1075)
    };
    let n = u128::from(m) * 10_000; // < 2^67
    if e >= 0 {
        return Some(n << e); // a < 2^53: n << e < 2^67
    }
    let shift = (-e) as u32;
    if shift >= 100 {
        return Some(0); // n < 2^67, far below half of 2^shift
    }
    let (quotient, remainder) = (n >> shift, n & ((1u128 << shift) - 1));
    let half = 1u128 << (shift - 1);
    let up = remainder > half || (remainder == half && quotient & 1 == 1);
    Some(quotient + u128::from(up))
}

/// `printf("%ld", (long) v)`: truncation toward zero; a value C cannot convert (NaN,
/// infinite, out of range) becomes LONG_MIN, as on x86-64.
pub fn push_long(out: &mut Vec<u8>, v: f64) {
    let limit = 9_223_372_036_854_775_808.0; // 2^63
    let n = if v.is_finite() && (-limit..limit).contains(&v) { v as i64 } else { i64::MIN };
    let _ = write!(out, "{n}");
}

/// NumPy's `np.maximum(v, floor)`: NaN propagates.
fn at_least(v: f64, floor: f64) -> f64 {
    if v.is_nan() || v >= floor {
        v
    } else {
        floor
    }
}

/// Left-to-right sum (`np.cumsum(values)[-1]`).
fn sum(values: &[f64]) -> f64 {
    values.iter().fold(0.0, |acc, &v| acc + v)
}

/// A column's values as printed: numbers (after resets, logs and z-scores) or texts.
enum Prepared {
    None,
    Numbers(Vec<f64>),
    Texts(Vec<String>),
}

/// Print the columns as trec_eval does.
///
/// `values[i]` holds column `i`'s per-query values as computed on the judged run with
/// trec_eval's placeholder ranking for the queries `-c` added (`added[q]`); None for
/// `runid` and `num_q`. Errors name a column whose values do not fit it.
pub fn print(
    cols: &[Col],
    values: Vec<Option<Column>>,
    added: &[bool],
    layout: &Layout,
) -> Result<Printed, EvalError> {
    let n = layout.query_ids.len();
    if values.len() != cols.len() || added.len() != n {
        let m = "one value column per printed column and one flag per query expected";
        return Err(EvalError::Shape(m.into()));
    }
    let mut unusable = Vec::new();
    let mut prepared = Vec::with_capacity(cols.len());
    for (col, column) in cols.iter().zip(values) {
        prepared.push(prepare(col, column, added, layout, &mut unusable)?);
    }
    let z = if layout.zscores.is_some() { "Z" } else { "" };
    let names: Vec<String> = cols.iter().map(|c| format!("{:<22}", c.printed)).collect();
    let mut out = Vec::new();
    if layout.per_query {
        for (q, qid) in layout.query_ids.iter().enumerate() {
            for ((col, name), values) in cols.iter().zip(&names).zip(&prepared) {
                if !col.kind.per_query() {
                    continue;
                }
                match values {
                    Prepared::Texts(t) => {
                        out.extend_from_slice(name.as_bytes());
                        out.push(b'\t');
                        out.extend_from_slice(qid);
                        let _ = write!(out, "\t'{}'", t[q]);
                    }
                    Prepared::Numbers(v) => {
                        out.extend_from_slice(z.as_bytes());
                        out.extend_from_slice(name.as_bytes());
                        out.push(b'\t');
                        out.extend_from_slice(qid);
                        out.push(b'\t');
                        if col.kind == Kind::Long && z.is_empty() {
                            push_long(&mut out, v[q]);
                        } else {
                            push_float(&mut out, v[q]);
                        }
                    }
                    Prepared::None => unreachable!("per-query columns have values"),
                }
                out.push(b'\n');
            }
        }
    }
    if layout.summary {
        let count = |out: &mut Vec<u8>, v: f64| {
            if z.is_empty() {
                push_long(out, v)
            } else {
                push_float(out, v)
            }
        };
        for ((col, name), values) in cols.iter().zip(&names).zip(&prepared) {
            let numbers = match values {
                Prepared::Numbers(v) => v.as_slice(),
                _ => &[],
            };
            if col.kind == Kind::Text {
                continue;
            }
            if col.kind != Kind::RunName {
                out.extend_from_slice(z.as_bytes());
            }
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(b"\tall\t");
            match col.kind {
                Kind::RunName => out.extend_from_slice(layout.run_name),
                Kind::QueryCount => count(&mut out, n as f64),
                Kind::Long => {
                    let total = if col.recount && layout.complete {
                        layout.relevant_in_qrels
                    } else {
                        sum(numbers)
                    };
                    count(&mut out, total)
                }
                // the values are the queries' logs
                Kind::Gm => push_float(&mut out, libm_exp(sum(numbers) / n as f64)),
                Kind::Float => push_float(&mut out, sum(numbers) / n as f64),
                Kind::Text => unreachable!(),
            }
            out.push(b'\n');
        }
    }
    Ok(Printed { text: out, unusable })
}

/// `math.exp` as `cranfield.core.libm.exp` calls it (NaN kept as is).
fn libm_exp(x: f64) -> f64 {
    if x.is_nan() {
        x
    } else {
        x.exp()
    }
}

/// `math.log` of a positive value or NaN (kept as is).
fn libm_log(x: f64) -> f64 {
    if x.is_nan() {
        x
    } else {
        x.ln()
    }
}

fn prepare(
    col: &Col,
    column: Option<Column>,
    added: &[bool],
    layout: &Layout,
    unusable: &mut Vec<Vec<u8>>,
) -> Result<Prepared, EvalError> {
    let n = added.len();
    let wrong = |what: &str| EvalError::Shape(format!("column {:?}: {what}", col.printed));
    match (col.kind, column) {
        (Kind::RunName | Kind::QueryCount, _) => Ok(Prepared::None),
        (Kind::Text, Some(Column::Texts(mut texts))) => {
            if texts.len() != n {
                return Err(wrong("one text per query expected"));
            }
            if col.blank {
                texts.iter_mut().for_each(String::clear);
            } else if col.reset {
                texts.iter_mut().zip(added).filter(|(_, &a)| a).for_each(|(t, _)| t.clear());
            }
            Ok(Prepared::Texts(texts))
        }
        (Kind::Long | Kind::Float | Kind::Gm, Some(Column::Numbers(mut v))) => {
            if v.len() != n {
                return Err(wrong("one value per query expected"));
            }
            if col.reset {
                v.iter_mut().zip(added).filter(|(_, &a)| a).for_each(|(x, _)| *x = 0.0);
            }
            if col.kind == Kind::Gm {
                v.iter_mut().for_each(|x| *x = libm_log(at_least(*x, MIN_GEO_MEAN)));
            }
            if let Some(table) = layout.zscores {
                for (x, qid) in v.iter_mut().zip(layout.query_ids) {
                    *x = zscore(*x, qid, &col.printed, table, unusable);
                }
            }
            Ok(Prepared::Numbers(v))
        }
        (_, Some(_)) => Err(wrong("values of the wrong kind")),
        (_, None) => Err(wrong("no values")),
    }
}

/// trec_eval's `(value - mean) / stddev` (convert_zscores.c); a (query, measure) absent
/// from the table, or with stddev 0 and a value other than the mean, gets
/// [`MISSING_ZSCORE_VALUE`] and is noted in `unusable`.
fn zscore(v: f64, qid: &[u8], printed: &str, table: &ZScores, unusable: &mut Vec<Vec<u8>>) -> f64 {
    let note = |unusable: &mut Vec<Vec<u8>>, extra: &str| {
        let mut text = qid.to_vec();
        text.push(b' ');
        text.extend_from_slice(printed.as_bytes());
        text.extend_from_slice(extra.as_bytes());
        unusable.push(text);
    };
    match table.get(&(qid.to_vec(), printed.to_string())) {
        None => {
            note(unusable, "");
            MISSING_ZSCORE_VALUE
        }
        Some(&(mean, sd)) if sd != 0.0 => (v - mean) / sd,
        Some(&(mean, _)) if v == mean => 0.0,
        Some(_) => {
            note(unusable, " (stddev 0)");
            MISSING_ZSCORE_VALUE
        }
    }
}

/// The rankings with trec_eval's placeholder for the queries `-c` added: one document
/// absent from the qrels (none with `-J`, which drops it); every query then counts as in
/// the run. Returns the offsets, labels and `in_run` flags (the counterpart of
/// `_with_placeholder` in `cranfield/core/trec_eval.py`).
pub fn with_placeholder(run: &JudgedView, judged_only: bool) -> (Vec<i64>, LabelVec, Vec<bool>) {
    let n = run.num_queries();
    let mut offsets = Vec::with_capacity(n + 1);
    offsets.push(0i64);
    let mut added = 0i64;
    for q in 0..n {
        if !run.in_run[q] && !judged_only {
            added += 1;
        }
        offsets.push(run.offsets[q + 1] + added);
    }
    fn fill<T: Copy>(src: &[T], run: &JudgedView, judged_only: bool, code: T) -> Vec<T> {
        let mut out = Vec::with_capacity(src.len() + run.in_run.len());
        for q in 0..run.num_queries() {
            if !run.in_run[q] && !judged_only {
                out.push(code);
            }
            out.extend_from_slice(&src[run.offsets[q] as usize..run.offsets[q + 1] as usize]);
        }
        out
    }
    let labels = match run.labels {
        Labels::I8(v) => LabelVec::I8(fill(v, run, judged_only, NOT_POOLED as i8)),
        Labels::I64(v) => LabelVec::I64(fill(v, run, judged_only, NOT_POOLED)),
        Labels::F64(v) => LabelVec::F64(fill(v, run, judged_only, NOT_POOLED as f64)),
    };
    (offsets, labels, vec![true; n])
}

/// Compute the columns' values on a judged run (with the placeholder rankings of the
/// queries `-c` added) and print them: the whole of trec_eval after judging.
/// `judged_only` is `-J`; `threads` the kernels' threads. A kernel's refusal of the run
/// is [`EvalError::Refused`] (the caller's general path reports it with its message).
pub fn evaluate(
    run: &JudgedView,
    cols: &[Col],
    layout: &Layout,
    judged_only: bool,
    threads: usize,
) -> Result<Printed, EvalError> {
    run.check()?;
    if run.num_queries() != layout.query_ids.len() {
        return Err(EvalError::Shape("one query id per query expected".into()));
    }
    let added: Vec<bool> = run.in_run.iter().map(|&i| !i).collect();
    let (offsets, labels, in_run) = with_placeholder(run, judged_only);
    let full = JudgedView { offsets: &offsets, labels: labels.view(), in_run: &in_run, ..*run };
    let mut kernels: Vec<Box<dyn Kernel>> = Vec::new();
    for spec in cols.iter().filter_map(|c| c.spec.as_ref()) {
        kernels.push(crate::measures::kernel(spec)?);
    }
    let computed = crate::measures::compute(&full, &mut kernels, threads);
    let mut computed = computed?.into_iter();
    let values =
        cols.iter().map(|c| if c.spec.is_some() { computed.next() } else { None }).collect();
    print(cols, values, &added, layout)
}

/// A judged run restricted to some of its queries (owned arrays).
#[derive(Clone, Debug, PartialEq)]
pub struct Subset {
    /// The queries kept, in order.
    pub kept: Vec<usize>,
    pub offsets: Vec<i64>,
    pub labels: LabelVec,
    pub qrels_offsets: Vec<i64>,
    pub qrels_grades: LabelVec,
    pub in_run: Vec<bool>,
}

impl Subset {
    /// The queries of `run` for which `keep(q)` holds.
    pub fn of(run: &JudgedView, keep: impl Fn(usize) -> bool) -> Subset {
        let kept: Vec<usize> = (0..run.num_queries()).filter(|&q| keep(q)).collect();
        let (offsets, labels) = gather(run.offsets, run.labels, &kept);
        let (qrels_offsets, qrels_grades) = gather(run.qrels_offsets, run.qrels_grades, &kept);
        let in_run = kept.iter().map(|&q| run.in_run[q]).collect();
        Subset { kept, offsets, labels, qrels_offsets, qrels_grades, in_run }
    }

    /// The view the kernels take (`rel_level` and `compat` of `run`).
    pub fn view<'a>(&'a self, run: &JudgedView) -> JudgedView<'a> {
        JudgedView {
            offsets: &self.offsets,
            labels: self.labels.view(),
            qrels_offsets: &self.qrels_offsets,
            qrels_grades: self.qrels_grades.view(),
            in_run: &self.in_run,
            rel_level: run.rel_level,
            compat: run.compat,
        }
    }
}

/// The CSR segments `kept` of `values` (split by `offsets`), with their new offsets.
fn gather(offsets: &[i64], values: Labels, kept: &[usize]) -> (Vec<i64>, LabelVec) {
    let mut out_offsets = Vec::with_capacity(kept.len() + 1);
    out_offsets.push(0i64);
    let mut at = 0i64;
    for &q in kept {
        at += offsets[q + 1] - offsets[q];
        out_offsets.push(at);
    }
    fn pick<T: Copy>(v: &[T], offsets: &[i64], kept: &[usize]) -> Vec<T> {
        let mut out = Vec::new();
        for &q in kept {
            out.extend_from_slice(&v[offsets[q] as usize..offsets[q + 1] as usize]);
        }
        out
    }
    let buf = match values {
        Labels::I8(v) => LabelVec::I8(pick(v, offsets, kept)),
        Labels::I64(v) => LabelVec::I64(pick(v, offsets, kept)),
        Labels::F64(v) => LabelVec::F64(pick(v, offsets, kept)),
    };
    (out_offsets, buf)
}

/// The number of judged grades above 0 (of a run judged with every qrels topic: the
/// qrels lines `-c` counts as `num_rel`).
pub fn relevant_grades(grades: Labels) -> f64 {
    (0..grades.len()).filter(|&i| grades.value(i) > 0.0).count() as f64
}

/// The bytes of Latin-1 text held as UTF-8 (how the readers give ids read as Latin-1):
/// every character is one byte again. None when a character is above U+00FF.
pub fn latin1_bytes(utf8: &[u8]) -> Option<Vec<u8>> {
    if utf8.is_ascii() {
        return Some(utf8.to_vec());
    }
    let text = std::str::from_utf8(utf8).ok()?;
    text.chars().map(|c| u8::try_from(u32::from(c)).ok()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn float(v: f64) -> String {
        let mut out = Vec::new();
        push_float(&mut out, v);
        String::from_utf8(out).unwrap()
    }

    fn long(v: f64) -> String {
        let mut out = Vec::new();
        push_long(&mut out, v);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn floats_as_c_prints_them() {
        assert_eq!(float(0.0), "0.0000");
        assert_eq!(float(-0.0), "-0.0000");
        assert_eq!(float(0.5), "0.5000");
        assert_eq!(float(-0.00001), "-0.0000");
        assert_eq!(float(0.03125), "0.0312"); // a tie: to even
        assert_eq!(float(0.03135), "0.0314"); // not a tie in binary
        assert_eq!(float(12345.6), "12345.6000");
        assert_eq!(float(f64::NAN), "   nan");
        assert_eq!(float(-f64::NAN), "  -nan");
        assert_eq!(float(f64::INFINITY), "   inf");
        assert_eq!(float(f64::NEG_INFINITY), "  -inf");
        assert_eq!(float(1e20), "100000000000000000000.0000");
    }

    #[test]
    fn the_exact_path_prints_what_the_formatter_prints() {
        let mut values = vec![0.0, -0.0, 5e-5, -5e-5, 1.5e-4, 2.5e-4, 0.99995, 1.00005];
        values.extend((0..4000).map(|k| k as f64 / 20_000.0)); // decimal ties
        values.extend((0..4000).map(|k| -(k as f64) / 16_384.0)); // binary ties
        values.extend([5e-324, 2.2e-308, 1e-4 / 2.0, 9_007_199_254_740_991.0, 4.5e15 + 0.5]);
        values.extend([9_007_199_254_740_992.0, 1e300, f64::MAX, f64::MIN_POSITIVE]);
        // random bit patterns and random values of every magnitude (a fixed LCG)
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            state
        };
        for _ in 0..40_000 {
            values.push(f64::from_bits(next()));
            let unit = (next() >> 11) as f64 / (1u64 << 53) as f64;
            values.push((unit - 0.5) * 10f64.powi((next() % 40) as i32 - 12));
            values.push((unit * 1e5).round() / 1e5);
        }
        for v in values.into_iter().filter(|v| !v.is_nan()) {
            assert_eq!(float(v), format!("{v:6.4}"), "{v:e}");
        }
    }

    #[test]
    fn longs_as_c_converts_them() {
        assert_eq!(long(3.0), "3");
        assert_eq!(long(-2.9), "-2");
        assert_eq!(long(f64::NAN), "-9223372036854775808");
        assert_eq!(long(1e19), "-9223372036854775808");
        assert_eq!(long(-(2f64.powi(63))), "-9223372036854775808");
        assert_eq!(long(9.223372036854774e18), "9223372036854773760");
    }

    fn col(printed: &str, kind: Kind) -> Col {
        Col {
            printed: printed.into(),
            kind,
            spec: None,
            blank: false,
            reset: false,
            recount: false,
        }
    }

    #[test]
    fn blocks_and_summary() {
        let qids: Vec<&[u8]> = vec![b"q1", b"q2"];
        let layout = Layout {
            query_ids: &qids,
            run_name: b"run",
            per_query: true,
            summary: true,
            complete: false,
            relevant_in_qrels: 0.0,
            zscores: None,
        };
        let cols = vec![
            col("runid", Kind::RunName),
            col("num_ret", Kind::Long),
            col("map", Kind::Float),
            col("gm_map", Kind::Gm),
            col("relstring", Kind::Text),
        ];
        let values = vec![
            None,
            Some(Column::Numbers(vec![3.0, 4.0])),
            Some(Column::Numbers(vec![0.25, 0.5])),
            Some(Column::Numbers(vec![0.25, 0.0])),
            Some(Column::Texts(vec!["10".into(), "-".into()])),
        ];
        let printed = print(&cols, values, &[false, false], &layout).unwrap();
        let gm = (0.25f64.ln() + 1e-5f64.ln()) / 2.0;
        let expected = format!(
            "num_ret               \tq1\t3\nmap                   \tq1\t0.2500\n\
             relstring             \tq1\t'10'\nnum_ret               \tq2\t4\n\
             map                   \tq2\t0.5000\nrelstring             \tq2\t'-'\n\
             runid                 \tall\trun\nnum_ret               \tall\t7\n\
             map                   \tall\t0.3750\ngm_map                \tall\t{:6.4}\n",
            gm.exp()
        );
        assert_eq!(String::from_utf8(printed.text).unwrap(), expected);
    }

    #[test]
    fn zscores_and_resets() {
        let qids: Vec<&[u8]> = vec![b"q1", b"q2"];
        let mut table = ZScores::new();
        table.insert((b"q1".to_vec(), "map".into()), (0.5, 0.25));
        let layout = Layout {
            query_ids: &qids,
            run_name: b"run",
            per_query: true,
            summary: false,
            complete: true,
            relevant_in_qrels: 0.0,
            zscores: Some(&table),
        };
        let mut map = col("map", Kind::Float);
        map.reset = true;
        let values = vec![Some(Column::Numbers(vec![1.0, 0.7]))];
        let printed = print(&[map], values, &[false, true], &layout).unwrap();
        assert_eq!(
            String::from_utf8(printed.text).unwrap(),
            "Zmap                   \tq1\t2.0000\nZmap                   \tq2\t-1000000.0000\n"
        );
        assert_eq!(printed.unusable, vec![b"q2 map".to_vec()]);
    }

    #[test]
    fn mismatched_values_are_errors() {
        let qids: Vec<&[u8]> = vec![b"q1"];
        let layout = Layout {
            query_ids: &qids,
            run_name: b"",
            per_query: false,
            summary: true,
            complete: false,
            relevant_in_qrels: 0.0,
            zscores: None,
        };
        let cols = [col("map", Kind::Float)];
        assert!(print(&cols, vec![Some(Column::Numbers(vec![]))], &[false], &layout).is_err());
        assert!(print(&cols, vec![None], &[false], &layout).is_err());
        assert!(print(&cols, vec![], &[false], &layout).is_err());
    }

    #[test]
    fn latin1_ids() {
        assert_eq!(latin1_bytes("\u{e9}t\u{e9}".as_bytes()), Some(vec![0xe9, b't', 0xe9]));
        assert_eq!(latin1_bytes(b"ab"), Some(b"ab".to_vec()));
        assert_eq!(latin1_bytes("\u{20ac}".as_bytes()), None);
    }

    #[test]
    fn subsets() {
        let offsets = [0i64, 2, 2, 3];
        let labels = [1i8, 0, 2];
        let grades = [3i64, 1, 0, 2];
        let in_run = [true, false, true];
        let run = JudgedView {
            offsets: &offsets,
            labels: Labels::I8(&labels),
            qrels_offsets: &[0, 2, 3, 4],
            qrels_grades: Labels::I64(&grades),
            in_run: &in_run,
            rel_level: 2,
            compat: 9,
        };
        let sub = Subset::of(&run, |q| run.in_run[q]);
        assert_eq!(sub.kept, vec![0, 2]);
        assert_eq!(sub.offsets, vec![0, 2, 3]);
        assert_eq!(sub.labels, LabelVec::I8(vec![1, 0, 2]));
        assert_eq!(sub.qrels_offsets, vec![0, 2, 3]);
        assert_eq!(sub.qrels_grades, LabelVec::I64(vec![3, 1, 2]));
        assert_eq!(sub.in_run, vec![true, true]);
        let view = sub.view(&run);
        assert!(view.check().is_ok());
        assert_eq!((view.rel_level, view.compat), (2, 9));
        assert_eq!(relevant_grades(run.qrels_grades), 3.0);
    }

    #[test]
    fn placeholder_rankings() {
        let offsets = [0i64, 2, 2, 3];
        let labels = [1i8, 0, 2];
        let grades = [1i8];
        let in_run = [true, false, true];
        let run = JudgedView {
            offsets: &offsets,
            labels: Labels::I8(&labels),
            qrels_offsets: &[0, 1, 1, 1],
            qrels_grades: Labels::I8(&grades),
            in_run: &in_run,
            rel_level: 1,
            compat: 10,
        };
        let (o, l, i) = with_placeholder(&run, false);
        assert_eq!(o, vec![0, 2, 3, 4]);
        assert_eq!(l, LabelVec::I8(vec![1, 0, -1, 2]));
        assert_eq!(i, vec![true; 3]);
        let (o, l, _) = with_placeholder(&run, true);
        assert_eq!(o, vec![0, 2, 2, 3]);
        assert_eq!(l, LabelVec::I8(vec![1, 0, 2]));
    }
}
