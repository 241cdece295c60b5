//! The families of `cranfield/core/measures/cwl.py`: the C/W/L framework (Moffat et al.
//! 2013, 2017) as cwl_eval 1.0.12 computes it (Azzopardi, Thomas & Moffat 2019).
//!
//! A user model is its continuation vector C (the probability of going on from rank i
//! to rank i + 1), or for TBG and U-measure its weight vector W. From it, on a ranking
//! of exactly `depth` items (truncated, or padded with the worst or best gain and cost):
//! W_i = prod_{j<i} C_j / sum_k prod_{j<k} C_j, L_i = prod_{j<i} C_j (1 - C_i), and
//!
//!   EU = sum_i W_i g_i, ETU = sum_i L_i sum_{j<=i} g_j, EC = sum_i W_i c_i,
//!   ETC = sum_i L_i sum_{j<=i} c_j, ED = 1 / W_1.
//!
//! The worst case gives unjudged items the least gain (`min_gain`) and the largest
//! cost (`max_cost`), the best case the opposite; a residual is best minus worst.
//! Every sum runs left to right (the NumPy specification uses `cumsum`: bit for bit);
//! cwl_eval's `np.dot`/`np.sum` sum in BLAS's or NumPy's pairwise order, which differs
//! in the last bits only (its output has four decimals).

use super::boxed;
use super::common::no_cutoff;
use crate::EvalError;
use crate::{JudgedView, Kernel, Param, Query, Refusal, Spec};

/// The families this module computes.
pub const FAMILIES: &[&str] = &[
    "cwl_P",
    "cwl_RR",
    "cwl_AP",
    "SDCG",
    "cwl_RBP",
    "INST",
    "INSQ",
    "cwl_NPV",
    "cwl_SET",
    "BPM",
    "BPM_dynamic",
    "TBG",
    "U_measure",
    "NERR_eq8",
    "NERR_eq9",
    "NERR_eq10",
    "NERR_eq11",
];

/// The kernel of `spec` when its family is one of [`FAMILIES`].
pub fn kernel(spec: &Spec) -> Option<Result<Box<dyn Kernel>, EvalError>> {
    if !FAMILIES.contains(&spec.family.as_str()) {
        return None;
    }
    Some(boxed(CwlKernel::new(spec)))
}

/// A C/W/L user model with cwl_eval's parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum Model {
    /// P@k: continue until rank k.
    Precision {
        k: i64,
    },
    /// RR: continue until the first item with a positive gain.
    Rr,
    /// AP: C_i = sum_{j>i} g_j/j / sum_{j>=i} g_j/j.
    Ap,
    /// Scaled DCG@k: C_i = log(i+1) / log(i+2) for i < k.
    Sdcg {
        k: i64,
    },
    /// RBP: C_i = theta.
    Rbp {
        theta: f64,
    },
    /// INST: C_i = ((i + T + T_i - 1) / (i + T + T_i))^2, T_i = T - sum_{j<=i} g_j.
    Inst {
        t: f64,
    },
    /// INSQ: C_i = ((i + 2T - 1) / (i + 2T))^2.
    Insq {
        t: f64,
    },
    /// NPV: C_i = 1 / (1 + rate).
    Npv {
        rate: f64,
    },
    /// SET: C_i = w(i+1) / w(i) for i < k, w(i) = (i+1)^beta - i^beta.
    Set {
        beta: f64,
        k: i64,
    },
    /// BPM (static): continue while the gain so far is below T and the cost below K.
    Bpm {
        t: f64,
        k: f64,
    },
    /// BPM (dynamic): T moves by hb (g_i - gain_med) after each item.
    BpmDynamic {
        t: f64,
        k: f64,
        hb: f64,
        hc: f64,
        gain_med: f64,
    },
    /// TBG: W_i proportional to the integral decay at the time before item i.
    Tbg {
        halflife: f64,
    },
    /// U-measure: W_i proportional to max(0, 1 - (cost before item i) / L).
    UMeasure {
        l: f64,
    },
    /// NERR (ICTIR 2021), equations 8 to 11.
    Nerr8 {
        k: i64,
    },
    Nerr9 {
        k: i64,
    },
    Nerr10 {
        phi: f64,
    },
    Nerr11 {
        t: f64,
    },
}

/// How a ranking is completed: its length and the gains and costs of unknown items.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    pub depth: usize,
    pub min_gain: f64,
    pub max_gain: f64,
    pub min_cost: f64,
    pub max_cost: f64,
}

/// EU, ETU, EC, ETC and ED of one ranking under one model.
pub type Scores = [f64; 5];

fn real(spec: &Spec, name: &str, default: f64) -> Result<f64, EvalError> {
    Ok(spec.real(name)?.unwrap_or(default))
}

fn int(spec: &Spec, name: &str, default: i64) -> Result<i64, EvalError> {
    Ok(spec.int(name)?.unwrap_or(default))
}

impl Model {
    /// The model of a measure family and its parameters (cwl_eval's defaults).
    pub fn of(spec: &Spec) -> Result<Model, EvalError> {
        let s = spec;
        Ok(match s.family.as_str() {
            "cwl_P" => Model::Precision { k: int(s, "k", 10)? },
            "cwl_RR" => Model::Rr,
            "cwl_AP" => Model::Ap,
            "SDCG" => Model::Sdcg { k: int(s, "k", 10)? },
            "cwl_RBP" => Model::Rbp { theta: real(s, "theta", 0.9)? },
            "INST" => Model::Inst { t: real(s, "T", 1.0)? },
            "INSQ" => Model::Insq { t: real(s, "T", 1.0)? },
            "cwl_NPV" => Model::Npv { rate: real(s, "rate", 0.1)? },
            "cwl_SET" => Model::Set { beta: real(s, "beta", 0.5)?, k: int(s, "k", 10)? },
            "BPM" => Model::Bpm { t: real(s, "T", 1.0)?, k: real(s, "K", 10.0)? },
            "BPM_dynamic" => Model::BpmDynamic {
                t: real(s, "T", 1.0)?,
                k: real(s, "K", 10.0)?,
                hb: real(s, "hb", 1.0)?,
                hc: real(s, "hc", 1.0)?,
                gain_med: real(s, "gain_med", 0.5)?,
            },
            "TBG" => Model::Tbg { halflife: real(s, "halflife", 224.0)? },
            "U_measure" => Model::UMeasure { l: real(s, "L", 1000.0)? },
            "NERR_eq8" => Model::Nerr8 { k: int(s, "k", 10)? },
            "NERR_eq9" => Model::Nerr9 { k: int(s, "k", 10)? },
            "NERR_eq10" => Model::Nerr10 { phi: real(s, "phi", 0.9)? },
            "NERR_eq11" => Model::Nerr11 { t: real(s, "T", 1.0)? },
            other => {
                return Err(EvalError::Spec(format!("no C/W/L model is called {other:?}")));
            }
        })
    }

    /// Whether cwl_eval requires gains in [0, 1] for this model (INST, NERR).
    fn needs_unit_gains(&self) -> bool {
        matches!(
            self,
            Model::Inst { .. }
                | Model::Nerr8 { .. }
                | Model::Nerr9 { .. }
                | Model::Nerr10 { .. }
                | Model::Nerr11 { .. }
        )
    }

    /// The continuation vector C of `g` (gains) and `c` (costs), into `out`.
    fn continuation(&self, g: &[f64], c: &[f64], out: &mut Vec<f64>) {
        let n = g.len();
        out.clear();
        let below = |k: i64, i: usize| (i as i64) < k - 1;
        match *self {
            Model::Precision { k } => out.extend((0..n).map(|i| f64::from(u8::from(below(k, i))))),
            Model::Rr => {
                let first = g.iter().position(|&x| x > 0.0).unwrap_or(n);
                out.extend((0..n).map(|i| if i < first { 1.0 } else { 0.0 }));
            }
            Model::Ap => {
                // rii_i = g_i / i; C_i = (sum_{j>i} rii_j) / (sum_{j>=i} rii_j), 0 when the
                // numerator is 0 (and for the last item); suffix sums from the end
                out.resize(n, 0.0);
                let mut after = 0.0f64; // sum_{j>i} rii_j
                for i in (0..n).rev() {
                    let rii = g[i] / (i + 1) as f64;
                    let from = rii + after;
                    out[i] = if i + 1 < n && after > 0.0 { after / from } else { 0.0 };
                    after = from;
                }
            }
            Model::Sdcg { k } => out.extend((1..=n).map(|i| {
                if (i as i64) < k {
                    let ln2 = 2f64.ln();
                    ((i + 1) as f64).ln() / ln2 / (((i + 2) as f64).ln() / ln2)
                } else {
                    0.0
                }
            })),
            Model::Rbp { theta } => out.resize(n, theta),
            Model::Inst { t } => {
                let mut total = -0.0;
                out.extend(g.iter().enumerate().map(|(i, &x)| {
                    total += x;
                    let ti = t - total;
                    let r = (i + 1) as f64;
                    let q = (r + t + ti - 1.0) / (r + t + ti);
                    q * q
                }));
            }
            Model::Insq { t } => out.extend((0..n).map(|i| insq((i + 1) as f64, t))),
            Model::Npv { rate } => out.resize(n, 1.0 / (1.0 + rate)),
            Model::Set { beta, k } => {
                let w = |i: f64| (i + 1.0).powf(beta) - i.powf(beta);
                out.extend((1..=n).map(|i| {
                    if (i as i64) < k {
                        w((i + 1) as f64) / w(i as f64)
                    } else {
                        0.0
                    }
                }));
            }
            Model::Bpm { t, k } => bpm(g, c, t, k, None, out),
            Model::BpmDynamic { t, k, hb, gain_med, .. } => {
                bpm(g, c, t, k, Some((hb, gain_med)), out)
            }
            Model::Tbg { .. } | Model::UMeasure { .. } => {
                let mut w = Vec::new();
                self.weights(c, &mut w);
                ratios(&w, out);
            }
            Model::Nerr8 { k } => {
                out.extend((0..n).map(|i| if below(k, i) { 1.0 - g[i] } else { 0.0 }))
            }
            Model::Nerr9 { k } => out.extend((0..n).map(|i| {
                if below(k, i) {
                    let r = (i + 1) as f64;
                    r / (r + 1.0) * (1.0 - g[i])
                } else {
                    0.0
                }
            })),
            Model::Nerr10 { phi } => out.extend(g.iter().map(|&x| phi * (1.0 - x))),
            Model::Nerr11 { t } => {
                out.extend(g.iter().enumerate().map(|(i, &x)| insq((i + 1) as f64, t) * (1.0 - x)))
            }
        }
    }

    /// The weight vector W of TBG and U-measure (from the costs), into `out`.
    fn weights(&self, c: &[f64], out: &mut Vec<f64>) {
        let n = c.len();
        out.clear();
        match *self {
            Model::Tbg { halflife: h } => {
                // cwl_eval: h 2^(-x/h) / math.log(2.0, math.e), i.e. log(2) / log(e)
                let ln2 = 2f64.ln() / std::f64::consts::E.ln();
                // 2^y by exp2 (LLVM turns pow(2, y) into exp2 anyway; cwl_eval calls pow: the
                // last bit may differ)
                let decay = |x: f64| h * (-x / h).exp2() / ln2;
                let mut before = -0.0;
                out.push(decay(0.0));
                let mut norm = out[0];
                for &ci in &c[..n.saturating_sub(1)] {
                    before += ci;
                    let w = decay(before);
                    norm += w;
                    out.push(w);
                }
                for w in out.iter_mut() {
                    *w /= norm;
                }
            }
            Model::UMeasure { l } => {
                // start: the cost before the item (the first: 0.0)
                let (mut start, mut spent) = (0.0, -0.0);
                let mut norm = -0.0;
                for &ci in &c[..n.saturating_sub(1)] {
                    let y = 1.0 - start / l;
                    let w = if y > 0.0 { y } else { 0.0 }; // Python's max(0.0, y)
                    spent += ci;
                    start = spent;
                    out.push(w);
                    norm += w;
                }
                if n > 0 {
                    out.push(0.0);
                }
                for w in out.iter_mut() {
                    *w /= norm;
                }
            }
            _ => unreachable!("only TBG and U-measure define their weights"),
        }
    }

    /// EU, ETU, EC, ETC, ED of a ranking (`gains` and `costs` NaN where unknown), in the
    /// worst case or the best; an error when the model needs gains in [0, 1].
    pub fn scores(
        &self,
        gains: &[f64],
        costs: &[f64],
        b: &Bounds,
        worst: bool,
    ) -> Result<Scores, String> {
        let n = b.depth;
        let (fill_gain, fill_cost) =
            if worst { (b.min_gain, b.max_cost) } else { (b.max_gain, b.min_cost) };
        let known = |v: &[f64], i: usize, fill: f64| match v.get(i) {
            Some(x) if !x.is_nan() => *x,
            _ => fill,
        };
        let g: Vec<f64> = (0..n).map(|i| known(gains, i, fill_gain)).collect();
        let c: Vec<f64> = (0..n).map(|i| known(costs, i, fill_cost)).collect();
        if self.needs_unit_gains() {
            if let Some(bad) = g.iter().find(|&&x| !(0.0..=1.0).contains(&x)) {
                return Err(format!("gain {bad} outside [0, 1]"));
            }
        }
        let mut cont = Vec::with_capacity(n);
        self.continuation(&g, &c, &mut cont);
        let mut w = Vec::with_capacity(n);
        if matches!(self, Model::Tbg { .. } | Model::UMeasure { .. }) {
            self.weights(&c, &mut w);
        } else {
            // prod_i = prod_{j<i} C_j; W_i = prod_i / sum_k prod_k
            let mut prod = 1.0;
            let mut total = -0.0; // (sums start at -0.0: -0.0 + x == x, as cumsum)
            for i in 0..n {
                if i > 0 {
                    prod *= cont[i - 1];
                }
                w.push(prod);
                total += prod;
            }
            let w1 = 1.0 / total;
            for (i, wi) in w.iter_mut().enumerate() {
                *wi = if i == 0 { w1 } else { *wi * w1 };
            }
        }
        let (mut eu, mut etu, mut ec, mut etc) = (-0.0, -0.0, -0.0, -0.0);
        let (mut prod, mut sum_g, mut sum_c) = (1.0, -0.0, -0.0);
        for i in 0..n {
            if i > 0 {
                prod *= cont[i - 1];
            }
            let l = prod * (1.0 - cont[i]);
            sum_g += g[i];
            sum_c += c[i];
            eu += w[i] * g[i];
            etu += l * sum_g;
            ec += w[i] * c[i];
            etc += l * sum_c;
        }
        Ok([eu, etu, ec, etc, 1.0 / w.first().copied().unwrap_or(f64::NAN)])
    }

    /// The scores in the worst case, then (with `residuals`) best minus worst.
    pub fn measure(
        &self,
        gains: &[f64],
        costs: &[f64],
        b: &Bounds,
        residuals: bool,
    ) -> Result<[f64; 10], String> {
        let low = self.scores(gains, costs, b, true)?;
        let mut out = [0.0; 10];
        out[..5].copy_from_slice(&low);
        if residuals {
            let high = self.scores(gains, costs, b, false)?;
            for j in 0..5 {
                out[5 + j] = high[j] - low[j];
            }
        }
        Ok(out)
    }
}

/// INSQ's continuation at 1-based rank r: ((r + 2T - 1) / (r + 2T))^2.
fn insq(r: f64, t: f64) -> f64 {
    let q = (r + 2.0 * t - 1.0) / (r + 2.0 * t);
    q * q
}

/// C_i = W_{i+1} / W_i (0 where W_i is 0, and for the last item).
fn ratios(w: &[f64], out: &mut Vec<f64>) {
    out.clear();
    let n = w.len();
    out.extend((0..n).map(|i| if i + 1 < n && w[i] > 0.0 { w[i + 1] / w[i] } else { 0.0 }));
}

/// BPM: C_i = 1 while the gain so far is below T (moving by hb (g_i - gain_med) after
/// each item when dynamic) and the cost so far below K, from the top; else 0.
/// (cwl_eval's dynamic model updates T, not K, in its cost loop: K stays fixed.)
fn bpm(g: &[f64], c: &[f64], t: f64, k: f64, dynamic: Option<(f64, f64)>, out: &mut Vec<f64>) {
    let n = g.len();
    let mut gain_stop = n;
    let (mut total, mut target) = (0.0, t);
    for (i, &x) in g.iter().enumerate() {
        total += x;
        if total >= target {
            gain_stop = i;
            break;
        }
        if let Some((hb, med)) = dynamic {
            target += hb * (x - med);
        }
    }
    let mut cost_stop = n;
    let mut spent = 0.0;
    for (i, &x) in c.iter().enumerate() {
        spent += x;
        if spent >= k {
            cost_stop = i;
            break;
        }
    }
    let stop = gain_stop.min(cost_stop);
    out.clear();
    out.extend((0..n).map(|i| if i < stop { 1.0 } else { 0.0 }));
}

/// The five quantities, by the `of` parameter.
const QUANTITIES: [&str; 5] = ["EU", "ETU", "EC", "ETC", "ED"];

/// A C/W/L measure of the measure language: gains are the grades divided by
/// `max_grade` (unjudged documents unknown), every cost unknown (`max_cost` in the worst
/// case, `min_cost` in the best, as cwl_eval without a cost file).
struct CwlKernel {
    model: Model,
    bounds: Bounds,
    /// The gains' divisor: `max_grade`, or (not `given`) the largest grade in the
    /// qrels, at least 1 (set by prepare).
    max_grade: f64,
    given: bool,
    of: usize,
    residual: bool,
}

impl CwlKernel {
    fn new(spec: &Spec) -> Result<Self, EvalError> {
        no_cutoff(spec)?;
        let bad = |what: &str| EvalError::Spec(format!("{}: {what}", spec.family));
        let of = match spec.param("of") {
            Param::None => 0,
            Param::Text(t) => QUANTITIES
                .iter()
                .position(|q| q == t)
                .ok_or_else(|| bad("of must be one of EU, ETU, EC, ETC, ED"))?,
            _ => return Err(bad("of must be a text")),
        };
        let residual = match spec.param("residual") {
            Param::None => false,
            Param::Bool(b) => *b,
            _ => return Err(bad("residual must be True or False")),
        };
        let depth = int(spec, "depth", 1000)?;
        let given = spec.real("max_grade")?;
        let max_grade = given.unwrap_or(1.0);
        let (min_cost, max_cost) = (real(spec, "min_cost", 1.0)?, real(spec, "max_cost", 1.0)?);
        if depth < 1 || !(max_grade > 0.0 && max_grade.is_finite()) {
            return Err(bad("depth must be at least 1 and max_grade a positive number"));
        }
        let bounds = Bounds {
            depth: usize::try_from(depth).map_err(|_| bad("depth is too large"))?,
            min_gain: 0.0,
            max_gain: 1.0,
            min_cost,
            max_cost,
        };
        let model = Model::of(spec)?;
        Ok(CwlKernel { model, bounds, max_grade, given: given.is_some(), of, residual })
    }

    fn gains(&self, q: &Query) -> Vec<f64> {
        let n = q.num_ret().min(self.bounds.depth);
        let labels = &q.ranked;
        (0..n)
            .map(|i| if labels.judged(i) { labels.value(i) / self.max_grade } else { f64::NAN })
            .collect()
    }
}

impl Kernel for CwlKernel {
    fn prepare(&mut self, run: &JudgedView) -> Result<(), Refusal> {
        if !self.given {
            let grades = &run.qrels_grades;
            self.max_grade = (0..grades.len()).map(|i| grades.value(i)).fold(1.0, f64::max);
            return Ok(());
        }
        for q in 0..run.num_queries() {
            let q = run.query(q);
            let labels = &q.ranked;
            let n = q.num_ret().min(self.bounds.depth);
            if let Some(i) = (0..n).find(|&i| labels.judged(i) && labels.value(i) > self.max_grade)
            {
                return Err(Refusal::Measure(format!(
                    "grade {} exceeds max_grade={} (C/W/L gains are grade / max_grade, at \
                     most 1)",
                    labels.value(i),
                    self.max_grade
                )));
            }
        }
        Ok(())
    }

    fn value(&self, q: &Query) -> f64 {
        let gains = self.gains(q);
        let scores = self.model.measure(&gains, &[], &self.bounds, self.residual);
        // gains lie in [0, 1] (prepare): no model refuses them
        let scores = scores.unwrap_or([f64::NAN; 10]);
        scores[self.of + if self.residual { 5 } else { 0 }]
    }
}

/// cwl_eval's table: for each ranking (between consecutive `offsets`) and each model,
/// the ten numbers of [`Model::measure`] (the last five 0 without `residuals`), ranking
/// by ranking. An error names the model whose gains are out of range.
pub fn table(
    models: &[Model],
    offsets: &[i64],
    gains: &[f64],
    costs: &[f64],
    bounds: &Bounds,
    residuals: bool,
) -> Result<Vec<f64>, (usize, usize, String)> {
    let rankings = offsets.len().saturating_sub(1);
    let mut out = Vec::with_capacity(rankings * models.len() * 10);
    for r in 0..rankings {
        let (s, e) = (offsets[r] as usize, offsets[r + 1] as usize);
        let (g, c) = (&gains[s..e], &costs[s..e]);
        for (m, model) in models.iter().enumerate() {
            let values = model.measure(g, c, bounds, residuals).map_err(|why| (r, m, why))?;
            out.extend_from_slice(&values);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const B: Bounds =
        Bounds { depth: 4, min_gain: 0.0, max_gain: 1.0, min_cost: 1.0, max_cost: 1.0 };

    #[test]
    fn precision_by_hand() {
        // P@2 on gains 1, 0, 1: W = (1/2, 1/2, 0, 0): EU 0.5, ETU 1, EC 1, ETC 2, ED 2
        let s = Model::Precision { k: 2 }.scores(&[1.0, 0.0, 1.0], &[], &B, true).unwrap();
        assert_eq!(s, [0.5, 1.0, 1.0, 2.0, 2.0]);
    }

    #[test]
    fn rbp_residual_by_hand() {
        // theta 0.5, depth 2, unjudged second item: worst W = (2/3, 1/3) gains (1, 0)
        let b = Bounds { depth: 2, ..B };
        let m = Model::Rbp { theta: 0.5 }.measure(&[1.0, f64::NAN], &[], &b, true).unwrap();
        assert_eq!(m[0], 2.0 / 3.0);
        assert!((m[5] - 1.0 / 3.0).abs() < 1e-15);
    }

    #[test]
    fn rr_stops_at_the_first_gain() {
        let s = Model::Rr.scores(&[0.0, 0.5, 1.0], &[], &B, true).unwrap();
        assert_eq!(s[4], 2.0);
        assert_eq!(s[0], 0.25);
    }

    #[test]
    fn inst_refuses_gains_above_one() {
        assert!(Model::Inst { t: 1.0 }.scores(&[2.0], &[], &B, true).is_err());
    }
}
