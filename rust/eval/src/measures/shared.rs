//! Work shared by the kernels of one query: [`measures::compute`](super::compute) runs
//! every kernel of a query with one [`Shared`], which computes each piece on first need
//! and keeps it until the next query, so that the many cutoffs of P, recall, map_cut,
//! ndcg_cut, IPrec... read their values instead of rescanning the ranking.
//!
//! Every piece is made with the float operations, in the order, of the kernels that
//! read it (running sums left to right, started at their first term), so a kernel gives
//! the same bits with a fresh `Shared` as with one shared by other kernels.

use super::common::{log2_discount, Gains};
use crate::{Labels, Query, NOT_POOLED};

/// Per-query work shared between kernels (see the module's documentation). Buffers are
/// kept across queries; [`Shared::reset`] forgets the values of the previous query.
#[derive(Debug, Default)]
pub struct Shared {
    relevant: Vec<Relevant>,
    relevant_used: usize,
    gains: Vec<RankedGains>,
    gains_used: usize,
    ideal: Vec<Ideal>,
    ideal_used: usize,
    pooled: Vec<usize>,
    pooled_done: bool,
    /// `p**i` by repeated multiplication for one `p` (kept across queries).
    powers: (u64, Vec<f64>),
}

impl Shared {
    /// Forget the values of the previous query (the buffers are kept).
    pub fn reset(&mut self) {
        self.relevant_used = 0;
        self.gains_used = 0;
        self.ideal_used = 0;
        self.pooled_done = false;
    }

    /// The relevant ranked documents of `q` at threshold `level`.
    pub fn relevant(&mut self, q: &Query, level: i64) -> &mut Relevant {
        let used = self.relevant_used;
        if let Some(i) = self.relevant[..used].iter().position(|r| r.level == level) {
            return &mut self.relevant[i];
        }
        if used == self.relevant.len() {
            self.relevant.push(Relevant::default());
        }
        self.relevant_used += 1;
        let slot = &mut self.relevant[used];
        slot.fill(q, level);
        slot
    }

    /// The ranked documents of `q` with a non-zero gain under `gains`.
    pub fn gains(&mut self, q: &Query, gains: &Gains) -> &mut RankedGains {
        let i = self.gains_index(q, gains);
        &mut self.gains[i]
    }

    /// The ideal gains of `q` under `gains`.
    pub fn ideal(&mut self, q: &Query, gains: &Gains) -> &mut Ideal {
        let i = self.ideal_index(q, gains);
        &mut self.ideal[i]
    }

    /// Both [`Shared::gains`] and [`Shared::ideal`].
    pub fn ranked_and_ideal(&mut self, q: &Query, gains: &Gains) -> (&mut RankedGains, &mut Ideal) {
        let (r, i) = (self.gains_index(q, gains), self.ideal_index(q, gains));
        (&mut self.gains[r], &mut self.ideal[i])
    }

    fn gains_index(&mut self, q: &Query, gains: &Gains) -> usize {
        let used = self.gains_used;
        if let Some(i) = self.gains[..used].iter().position(|g| same_gains(&g.key, gains)) {
            return i;
        }
        if used == self.gains.len() {
            self.gains.push(RankedGains::default());
        }
        self.gains_used += 1;
        self.gains[used].fill(q, gains);
        used
    }

    fn ideal_index(&mut self, q: &Query, gains: &Gains) -> usize {
        let used = self.ideal_used;
        if let Some(i) = self.ideal[..used].iter().position(|g| same_gains(&g.key, gains)) {
            return i;
        }
        if used == self.ideal.len() {
            self.ideal.push(Ideal::default());
        }
        self.ideal_used += 1;
        self.ideal[used].fill(q, gains);
        used
    }

    /// The positions (0-based) of the ranked documents in the qrels (judged or pooled
    /// unjudged: every label but [`NOT_POOLED`]), in rank order.
    pub fn pooled(&mut self, q: &Query) -> &[usize] {
        if !self.pooled_done {
            self.pooled.clear();
            positions(&q.ranked, &mut self.pooled, |l| l != NOT_POOLED, |l| l != NOT_POOLED as f64);
            self.pooled_done = true;
        }
        &self.pooled
    }

    /// Both [`Shared::gains`] and [`Shared::powers`].
    pub fn gains_and_powers(
        &mut self,
        q: &Query,
        gains: &Gains,
        p: f64,
        n: usize,
    ) -> (&mut RankedGains, Powers<'_>) {
        let i = self.gains_index(q, gains);
        let powers = Powers::of(&mut self.powers, p, n);
        (&mut self.gains[i], powers)
    }

    /// `p**i` for i = 0..=n by repeated multiplication (`common::powers`).
    pub fn powers(&mut self, p: f64, n: usize) -> Powers<'_> {
        Powers::of(&mut self.powers, p, n)
    }
}

/// The most powers of `p` kept from one query to the next (512 KiB): past them, a
/// [`Powers`] multiplies on from the last.
const MAX_POWERS: usize = 1 << 16;

/// `p**i` for i = 0, 1, ... by repeated multiplication (`common::powers`), read at any
/// `i` up to [`MAX_POWERS`] from a table, and past it at increasing `i`.
#[derive(Debug)]
pub struct Powers<'a> {
    table: &'a [f64],
    p: f64,
    /// The last power computed past the table, and its exponent.
    beyond: (usize, f64),
}

impl<'a> Powers<'a> {
    fn of(kept: &'a mut (u64, Vec<f64>), p: f64, n: usize) -> Self {
        let (key, table) = kept;
        if *key != p.to_bits() || table.is_empty() {
            *key = p.to_bits();
            table.clear();
            table.push(1.0);
        }
        while table.len() <= n.min(MAX_POWERS - 1) {
            let last = table[table.len() - 1];
            table.push(last * p);
        }
        let last = table.len() - 1;
        Powers { table, p, beyond: (last, table[last]) }
    }

    /// `p**i`; past the table, `i` is never below a previous call's.
    #[inline]
    pub fn at(&mut self, i: usize) -> f64 {
        if let Some(&w) = self.table.get(i) {
            return w;
        }
        debug_assert!(i >= self.beyond.0, "powers past the table are read in order");
        while self.beyond.0 < i {
            self.beyond.1 *= self.p;
            self.beyond.0 += 1;
        }
        self.beyond.1
    }
}

/// Pushes the positions `i` of `labels` whose label passes the test (`int` on integer
/// labels, `real` on fractional ones), in order.
fn positions(
    labels: &Labels,
    out: &mut Vec<usize>,
    int: impl Fn(i64) -> bool,
    real: impl Fn(f64) -> bool,
) {
    match labels {
        Labels::I8(v) => {
            out.extend(v.iter().enumerate().filter(|(_, &l)| int(l as i64)).map(|p| p.0))
        }
        Labels::I64(v) => out.extend(v.iter().enumerate().filter(|(_, &l)| int(l)).map(|p| p.0)),
        Labels::F64(v) => out.extend(v.iter().enumerate().filter(|(_, &l)| real(l)).map(|p| p.0)),
    }
}

fn same_gains(a: &Gains, b: &Gains) -> bool {
    a.0.len() == b.0.len()
        && a.0.iter().zip(&b.0).all(|(x, y)| x.0 == y.0 && x.1.to_bits() == y.1.to_bits())
}

/// The relevant ranked documents of a query at one threshold.
#[derive(Debug, Default)]
pub struct Relevant {
    level: i64,
    /// R: the judged documents at the level.
    pub num_rel: usize,
    /// 1-based ranks of the relevant ranked documents, in rank order.
    pub ranks: Vec<usize>,
    sums: Vec<f64>,
    sums_done: bool,
    interpolated: Vec<f64>,
    interpolated_done: bool,
}

impl Relevant {
    fn fill(&mut self, q: &Query, level: i64) {
        self.level = level;
        self.num_rel = q.num_rel(level);
        self.ranks.clear();
        match q.ranked {
            Labels::I8(v) => match i8::try_from(level) {
                Ok(l) => self
                    .ranks
                    .extend(v.iter().enumerate().filter(|(_, &x)| x >= l).map(|(i, _)| i + 1)),
                Err(_) if level < 0 => self.ranks.extend(1..=v.len()),
                Err(_) => {}
            },
            Labels::I64(v) => self
                .ranks
                .extend(v.iter().enumerate().filter(|(_, &x)| x >= level).map(|(i, _)| i + 1)),
            Labels::F64(v) => {
                let l = level as f64;
                self.ranks.extend(v.iter().enumerate().filter(|(_, &x)| x >= l).map(|(i, _)| i + 1))
            }
        }
        self.sums_done = false;
        self.interpolated_done = false;
    }

    /// The relevant documents within the top `n`.
    #[inline]
    pub fn within(&self, n: usize) -> usize {
        self.ranks.partition_point(|&r| r <= n)
    }

    /// `sums[c]`: the sum, left to right from 0.0, of P@rank of the first `c` relevant
    /// ranked documents (`sums[0] = 0.0`).
    pub fn precision_sums(&mut self) -> &[f64] {
        if !self.sums_done {
            self.sums.clear();
            let mut total = 0.0;
            self.sums.push(total);
            for (i, &rank) in self.ranks.iter().enumerate() {
                total += (i + 1) as f64 / rank as f64;
                self.sums.push(total);
            }
            self.sums_done = true;
        }
        &self.sums
    }

    /// Interpolated precision at each relevant ranked document: the largest P@rank of
    /// it and the relevant documents below it.
    pub fn interpolated(&mut self) -> &[f64] {
        if !self.interpolated_done {
            self.interpolated.clear();
            self.interpolated.extend(
                self.ranks.iter().enumerate().map(|(i, &rank)| (i + 1) as f64 / rank as f64),
            );
            let mut best = f64::NEG_INFINITY;
            for p in self.interpolated.iter_mut().rev() {
                best = best.max(*p);
                *p = best;
            }
            self.interpolated_done = true;
        }
        &self.interpolated
    }
}

/// The ranked documents of a query with a non-zero gain (under one `gains`).
#[derive(Debug, Default)]
pub struct RankedGains {
    key: Gains,
    /// 0-based positions, in rank order.
    pub positions: Vec<usize>,
    /// Their gains.
    pub values: Vec<f64>,
    /// The running DCG, once [`Self::dcg_log2`] has made it.
    pub(super) dcg: Vec<f64>,
    dcg_done: bool,
}

impl RankedGains {
    fn fill(&mut self, q: &Query, gains: &Gains) {
        self.key = gains.clone();
        self.positions.clear();
        self.values.clear();
        if gains.is_empty() {
            // the gain is the label when positive, else 0
            positions(&q.ranked, &mut self.positions, |l| l > 0, |l| l > 0.0);
            self.values.extend(self.positions.iter().map(|&i| q.ranked.value(i)));
        } else {
            for i in 0..q.num_ret() {
                let g = gains.gain(&q.ranked, i);
                if g != 0.0 {
                    self.positions.push(i);
                    self.values.push(g);
                }
            }
        }
        self.dcg_done = false;
    }

    /// The documents with a non-zero gain within the top `n`.
    #[inline]
    pub fn within(&self, n: usize) -> usize {
        self.positions.partition_point(|&i| i < n)
    }

    /// The running DCG (gain / log2(rank + 1)) at each document with a non-zero gain,
    /// summed left to right from the first term.
    pub fn dcg_log2(&mut self) -> &[f64] {
        if !self.dcg_done {
            self.dcg.clear();
            let mut sum = -0.0; // -0.0 + x == x: the first term starts the sum
            for (&i, &g) in self.positions.iter().zip(&self.values) {
                sum += g / log2_discount(i + 1);
                self.dcg.push(sum);
            }
            self.dcg_done = true;
        }
        &self.dcg
    }

    /// DCG (log2) of the top `n` documents: +0.0 without a non-zero gain among them.
    pub fn dcg_log2_at(&mut self, n: usize) -> f64 {
        match self.within(n) {
            0 => 0.0,
            c => self.dcg_log2()[c - 1],
        }
    }
}

/// The ideal ranking of a query: its judged documents' positive gains, sorted descending.
#[derive(Debug, Default)]
pub struct Ideal {
    key: Gains,
    pub gains: Vec<f64>,
    /// The running DCG, once [`Self::dcg_log2`] has made it.
    pub(super) dcg: Vec<f64>,
    dcg_done: bool,
}

impl Ideal {
    fn fill(&mut self, q: &Query, gains: &Gains) {
        self.key = gains.clone();
        self.gains.clear();
        self.gains
            .extend((0..q.judged.len()).map(|i| gains.gain(&q.judged, i)).filter(|&g| g > 0.0));
        if self.gains.windows(2).any(|w| w[0] < w[1]) {
            self.gains.sort_unstable_by(|a, b| b.total_cmp(a));
        }
        self.dcg_done = false;
    }

    /// The running ideal DCG (log2) at every position of the ideal ranking.
    pub fn dcg_log2(&mut self) -> &[f64] {
        if !self.dcg_done {
            self.dcg.clear();
            let mut sum = -0.0; // -0.0 + x == x: the first term starts the sum
            for (j, g) in self.gains.iter().enumerate() {
                sum += g / log2_discount(j + 1);
                self.dcg.push(sum);
            }
            self.dcg_done = true;
        }
        &self.dcg
    }

    /// Ideal DCG (log2) of the top `k`: +0.0 for k = 0 or no positive gain.
    pub fn dcg_log2_at(&mut self, k: usize) -> f64 {
        match k.min(self.gains.len()) {
            0 => 0.0,
            c => self.dcg_log2()[c - 1],
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::measures::{compute, kernel};
    use crate::{Column, Cutoff, JudgedView, Kernel, Labels, Param, Query, Spec};
    use std::collections::BTreeMap;

    use crate::test_rng::Xorshift as Stream;

    fn spec(text: &str) -> Spec {
        // family[@cutoff][;name=value...]; values: int, real (with a dot), text, or
        // gains as g:grade=gain,...
        let mut parts = text.split(';');
        let head = parts.next().unwrap();
        let (family, cutoff) = match head.split_once('@') {
            Some((f, c)) if c.contains('.') => (f, Some(Cutoff::Real(c.parse().unwrap()))),
            Some((f, c)) => (f, Some(Cutoff::Rank(c.parse().unwrap()))),
            None => (head, None),
        };
        let params: BTreeMap<String, Param> = parts
            .map(|p| {
                let (k, v) = p.split_once('=').unwrap();
                let value = if let Some(g) = v.strip_prefix("g:") {
                    Param::Gains(
                        g.split(',')
                            .map(|pair| {
                                let (l, x) = pair.split_once('/').unwrap();
                                (l.parse().unwrap(), x.parse().unwrap())
                            })
                            .collect(),
                    )
                } else if let Ok(i) = v.parse::<i64>() {
                    Param::Int(i)
                } else if let Ok(x) = v.parse::<f64>() {
                    Param::Real(x)
                } else {
                    Param::Text(v.into())
                };
                (k.to_string(), value)
            })
            .collect();
        Spec { family: family.into(), cutoff, params }
    }

    /// Measures reading every piece of [`super::Shared`], at several levels, gains and
    /// cutoffs (with cutoffs beyond the rankings' length).
    const SPECS: &[&str] = &[
        "P@1",
        "P@5",
        "P@50",
        "P@5;rel=2",
        "R@5",
        "R@100;rel=3",
        "Success@1",
        "relative_P@10",
        "Unjudged@5",
        "AP",
        "AP@5",
        "AP@100",
        "AP@5;normalise=min(R,k)",
        "AP@5;normalise=relret@k",
        "AP;rel=2",
        "GMAP",
        "Rprec",
        "Rprec;rel=0",
        "RR",
        "RR@3",
        "Bpref",
        "Bpref;rel=2",
        "GMBpref",
        "infAP",
        "infAP;rel=2",
        "IPrec@0.0",
        "IPrec@0.5",
        "IPrec@1.0",
        "IPrec@0.3;rel=2",
        "11pt_avg",
        "Rprec_mult@0.5",
        "Rprec_mult@2.0",
        "yaap",
        "binG",
        "NumRelRet",
        "NumRelRet@3",
        "NumNonRelJudgedRet",
        "utility",
        "SetP",
        "SetR",
        "set_F",
        "SetAP;rel=2",
        "nDCG",
        "nDCG@3",
        "nDCG@100",
        "nDCG;gains=g:1/3.0,-1/0.5",
        "DCG;dcg=exp-log2",
        "DCG@4;dcg=jk",
        "IDCG@2",
        "IDCG;gains=g:2/0.5",
        "ndcg_rel",
        "ndcg_rel;gains=g:0/1.0,3/-2.0",
        "Rndcg",
        "Rndcg;rel=2",
        "G",
        "G;gains=g:1/-1.5",
        "rbp",
        "rbp;p=0.5",
        "rbp;gains=g:0/-1.0",
        "rbp;gains=g:2/0.0",
        "rbp_resid",
        "rbp_resid;p=0.2",
        "Fallout;collection_size=1000",
        "relstring@7",
    ];

    fn gains_free(s: &&str) -> bool {
        !s.contains("gains")
    }

    /// Every kernel computed with the work shared by all (`compute`) gives the bits it
    /// gives alone, on random rankings of the three label types.
    #[test]
    fn shared_work_changes_no_bit() {
        let mut stream = Stream(0x9e37_79b9_7f4a_7c15);
        for round in 0..40 {
            let queries = 1 + stream.below(12) as usize;
            let (mut offsets, mut qrels_offsets) = (vec![0i64], vec![0i64]);
            let (mut ranked, mut judged, mut in_run) = (Vec::new(), Vec::new(), Vec::new());
            for _ in 0..queries {
                // empty rankings, no relevant, rankings longer than the cutoffs
                let n = [0, 1, 3, 8, 60][stream.below(5) as usize];
                let top = stream.below(5) as i64; // judged grades 0..=top
                                                  // every fourth round as a judged_only view: judged documents only
                let codes = if round % 4 == 3 { 0 } else { 2 };
                for _ in 0..n {
                    ranked.push(stream.below(top as u64 + 1 + codes) as i64 - codes as i64);
                }
                let mut grades: Vec<i64> =
                    (0..stream.below(10)).map(|_| stream.below(top as u64 + 1) as i64).collect();
                grades.sort_unstable_by(|a, b| b.cmp(a));
                judged.extend(grades);
                offsets.push(ranked.len() as i64);
                qrels_offsets.push(judged.len() as i64);
                in_run.push(stream.below(8) != 0);
            }
            let small: Vec<i8> = ranked.iter().map(|&l| l as i8).collect();
            let small_judged: Vec<i8> = judged.iter().map(|&l| l as i8).collect();
            // fractional gains: a half added to some positive labels
            let real: Vec<f64> = ranked
                .iter()
                .map(|&l| l as f64 + if l > 0 && l % 2 == 0 { 0.5 } else { 0.0 })
                .collect();
            let real_judged: Vec<f64> = judged.iter().map(|&l| l as f64).collect();
            let cases = [
                (Labels::I64(&ranked), Labels::I64(&judged), true),
                (Labels::I8(&small), Labels::I8(&small_judged), true),
                (Labels::F64(&real), Labels::F64(&real_judged), false),
            ];
            for (labels, grades, custom_gains) in cases {
                let view = JudgedView {
                    offsets: &offsets,
                    labels,
                    qrels_offsets: &qrels_offsets,
                    qrels_grades: grades,
                    in_run: &in_run,
                    rel_level: 1 + (round % 2),
                    compat: if round % 3 == 0 { 9 } else { 10 },
                };
                view.check().unwrap();
                let specs: Vec<Spec> = SPECS
                    .iter()
                    .filter(|s| custom_gains || gains_free(s))
                    .map(|s| spec(s))
                    .collect();
                let mut kernels: Vec<Box<dyn Kernel>> =
                    specs.iter().map(|s| kernel(s).unwrap()).collect();
                let columns = compute(&view, &mut kernels, 2).unwrap();
                for ((s, k), column) in specs.iter().zip(&kernels).zip(&columns) {
                    for q in 0..view.num_queries() {
                        let query: Query = view.query(q);
                        match column {
                            Column::Numbers(v) => assert_eq!(
                                v[q].to_bits(),
                                k.value(&query).to_bits(),
                                "{s:?} query {q} of round {round}: {query:?}"
                            ),
                            Column::Texts(v) => assert_eq!(v[q], k.text(&query)),
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn pieces_by_hand() {
        let ranked: &[i64] = &[0, 2, -1, 1, -2, 3];
        let judged: &[i64] = &[3, 2, 1, 1, 0];
        let q = crate::measures::test_query(ranked, judged);
        let mut shared = super::Shared::default();
        let r = shared.relevant(&q, 1);
        assert_eq!((r.num_rel, r.ranks.as_slice()), (4, &[2, 4, 6][..]));
        assert_eq!((r.within(0), r.within(4), r.within(100)), (0, 2, 3));
        assert_eq!(r.precision_sums(), &[0.0, 0.5, 1.0, 1.5][..]);
        assert_eq!(r.interpolated(), &[0.5, 0.5, 0.5][..]);
        assert_eq!(shared.relevant(&q, 3).ranks, vec![6]);
        assert_eq!(shared.pooled(&q), &[0, 1, 3, 4, 5][..]);
        let none = super::Gains::default();
        let g = shared.gains(&q, &none);
        assert_eq!(
            (g.positions.as_slice(), g.values.as_slice()),
            (&[1, 3, 5][..], &[2.0, 1.0, 3.0][..])
        );
        assert_eq!(g.dcg_log2_at(1).to_bits(), 0f64.to_bits());
        assert_eq!(g.dcg_log2_at(2), 2.0 / 3f64.log2());
        let ideal = shared.ideal(&q, &none);
        assert_eq!(ideal.gains, vec![3.0, 2.0, 1.0, 1.0]);
        assert_eq!(ideal.dcg_log2_at(0).to_bits(), 0f64.to_bits());
        assert_eq!(ideal.dcg_log2_at(9), ideal.dcg_log2()[3]);
        let mut powers = shared.powers(0.5, 3);
        assert_eq!([0, 1, 2, 3].map(|i| powers.at(i)), [1.0, 0.5, 0.25, 0.125]);
        // past the kept table: multiplied on, as the iterator does
        let mut powers = shared.powers(0.9, 3);
        let mut want = super::super::common::powers(0.9);
        let far = super::MAX_POWERS + 5;
        let got: Vec<f64> = (0..=far).map(|i| powers.at(i)).collect();
        assert!(got.iter().all(|&w| w.to_bits() == want.next().unwrap().to_bits()));
        let mut again = shared.powers(0.9, far);
        assert_eq!(again.at(far).to_bits(), got[far].to_bits());
        // a new query: nothing of the previous one is kept
        shared.reset();
        let empty = crate::measures::test_query(&[], &[]);
        assert!(shared.relevant(&empty, 1).ranks.is_empty());
        assert!(shared.gains(&empty, &none).positions.is_empty());
        assert!(shared.pooled(&empty).is_empty());
    }
}
