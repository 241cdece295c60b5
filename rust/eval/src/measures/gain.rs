//! The families of `cranfield/core/measures/gain.py`: DCG, nDCG and trec_eval's
//! experimental gain measures.
//!
//! A document's gain is its grade (0 without a judgment) unless `gains` names it; the
//! ideal ranking holds every judged document of the query with a positive gain, sorted
//! by gain. Sums run left to right as the NumPy kernels' (see [`seq_sum`]), over the
//! documents with a non-zero gain only (a zero term changes no bit of such a sum).

use super::boxed;
use super::common::{
    c_log2, depth, format_g, log2_discount, no_cutoff, rank_cutoff, safe_div, seq_sum, Gains,
};
use super::Shared;
use crate::EvalError;
use crate::{JudgedView, Kernel, Param, Query, Refusal, Spec};

/// The families this module computes.
pub const FAMILIES: &[&str] = &["nDCG", "DCG", "IDCG", "ndcg_rel", "Rndcg", "G"];

/// The kernel of `spec` when its family is one of [`FAMILIES`].
pub fn kernel(spec: &Spec) -> Option<Result<Box<dyn Kernel>, EvalError>> {
    let made = match spec.family.as_str() {
        "nDCG" => boxed(Dcg::new(spec, Part::Ratio)),
        "DCG" => boxed(Dcg::new(spec, Part::Dcg)),
        "IDCG" => boxed(Dcg::new(spec, Part::Ideal)),
        "ndcg_rel" => boxed(NdcgRel::new(spec)),
        "Rndcg" => boxed(Rndcg::new(spec)),
        "G" => boxed(GMeasure::new(spec)),
        _ => return None,
    };
    Some(made)
}

/// exp-log2 gains are exponentiated: 2^512 summed over any ranking stays finite.
const MAX_EXP_GAIN: f64 = 512.0;

/// The DCG formulation (`dcg` parameter).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Form {
    /// gain / log2(rank + 1) (trec_eval).
    Log2,
    /// (2^gain - 1) / log2(rank + 1) (Burges et al. 2005).
    ExpLog2,
    /// gain / max(1, ln(rank) / ln(b)) (Järvelin & Kekäläinen 2002), holding ln(b).
    Jk(f64),
}

impl Form {
    fn of(spec: &Spec) -> Result<Self, EvalError> {
        let name = match spec.param("dcg") {
            Param::None => "log2",
            Param::Text(t) => t.as_str(),
            other => {
                return Err(EvalError::Spec(format!(
                    "{}: dcg must be a text, got {other:?}",
                    spec.family
                )))
            }
        };
        match name {
            "log2" => Ok(Form::Log2),
            "exp-log2" => Ok(Form::ExpLog2),
            "jk" => match spec.real("b")?.unwrap_or(2.0) {
                b if b > 1.0 && b.is_finite() => Ok(Form::Jk(b.ln())),
                b => Err(EvalError::Spec(format!(
                    "{}: b must be a finite number above 1, got {b}",
                    spec.family
                ))),
            },
            other => Err(EvalError::Spec(format!(
                "{}: dcg must be 'log2', 'exp-log2' or 'jk', got {other:?}",
                spec.family
            ))),
        }
    }

    /// The DCG term of gain `g` at 1-based `rank` (`gain.discounted`).
    #[inline]
    fn term(self, g: f64, rank: usize) -> f64 {
        match self {
            Form::Log2 => g / log2_discount(rank),
            Form::ExpLog2 => (g.exp2() - 1.0) / log2_discount(rank),
            Form::Jk(ln_b) => g / f64::max(1.0, (rank as f64).ln() / ln_b),
        }
    }
}

/// The refusal of exp-log2 gains above [`MAX_EXP_GAIN`] (`gain.discounted`).
fn check_exp(form: Form, largest: Option<f64>) -> Result<(), Refusal> {
    match largest {
        Some(g) if form == Form::ExpLog2 && g > MAX_EXP_GAIN => Err(Refusal::Measure(format!(
            "dcg='exp-log2': a gain of {} is above {MAX_EXP_GAIN} (2^gain would overflow); \
             give smaller gains with gains={{grade: gain, ...}}",
            format_g(g)
        ))),
        _ => Ok(()),
    }
}

fn max_of(acc: Option<f64>, g: f64) -> Option<f64> {
    Some(acc.map_or(g, |m| if g > m { g } else { m }))
}

/// The kernels here compute with the query's [`Shared`] work; alone, with a fresh one.
macro_rules! alone {
    () => {
        fn value(&self, q: &Query) -> f64 {
            self.value_shared(q, &mut Shared::default())
        }
    };
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Part {
    /// nDCG: DCG / IDCG.
    Ratio,
    Dcg,
    Ideal,
}

/// nDCG, DCG and IDCG in the three formulations, with an optional rank cutoff.
struct Dcg {
    part: Part,
    gains: Gains,
    form: Form,
    cutoff: Option<i64>,
}

impl Dcg {
    fn new(spec: &Spec, part: Part) -> Result<Self, EvalError> {
        Ok(Dcg { part, gains: Gains::of(spec)?, form: Form::of(spec)?, cutoff: rank_cutoff(spec)? })
    }

    /// The DCG of the top documents: the terms of the non-zero gains, left to right.
    fn dcg(&self, q: &Query, shared: &mut Shared) -> f64 {
        let n = depth(q.num_ret(), self.cutoff);
        let ranked = shared.gains(q, &self.gains);
        if self.form == Form::Log2 {
            return ranked.dcg_log2_at(n);
        }
        let c = ranked.within(n);
        let terms = ranked.positions[..c].iter().zip(&ranked.values[..c]);
        seq_sum(terms.map(|(&i, &g)| self.form.term(g, i + 1)))
    }

    fn ideal(&self, q: &Query, shared: &mut Shared) -> f64 {
        let ideal = shared.ideal(q, &self.gains);
        let k = depth(ideal.gains.len(), self.cutoff);
        if self.form == Form::Log2 {
            return ideal.dcg_log2_at(k);
        }
        seq_sum(ideal.gains[..k].iter().enumerate().map(|(j, &g)| self.form.term(g, j + 1)))
    }
}

impl Kernel for Dcg {
    fn prepare(&mut self, run: &JudgedView) -> Result<(), Refusal> {
        // the NumPy kernel's order: the ranked gains, then the ideal ones
        if self.part != Part::Ideal {
            self.gains.check(&run.labels)?;
            if self.form == Form::ExpLog2 {
                let mut largest = None;
                for q in 0..run.num_queries() {
                    let q = run.query(q);
                    for i in 0..depth(q.num_ret(), self.cutoff) {
                        let g = self.gains.gain(&q.ranked, i);
                        if g != 0.0 {
                            largest = max_of(largest, g);
                        }
                    }
                }
                check_exp(self.form, largest)?;
            }
        }
        if self.part != Part::Dcg {
            self.gains.check(&run.qrels_grades)?;
            if self.form == Form::ExpLog2 {
                let grades = &run.qrels_grades;
                let largest = (0..grades.len())
                    .map(|i| self.gains.gain(grades, i))
                    .filter(|&g| g > 0.0)
                    .fold(None, max_of);
                check_exp(self.form, largest)?;
            }
        }
        Ok(())
    }

    alone!();

    fn value_shared(&self, q: &Query, shared: &mut Shared) -> f64 {
        match self.part {
            Part::Ratio => safe_div(self.dcg(q, shared), self.ideal(q, shared)),
            Part::Dcg => self.dcg(q, shared),
            Part::Ideal => self.ideal(q, shared),
        }
    }
}

/// trec_eval's ndcg_rel: nDCG averaged over the ranks of the documents with a positive
/// gain, those not retrieved counting the nDCG of the whole ranking.
struct NdcgRel {
    gains: Gains,
}

impl NdcgRel {
    fn new(spec: &Spec) -> Result<Self, EvalError> {
        no_cutoff(spec)?;
        Ok(NdcgRel { gains: Gains::of(spec)? })
    }
}

impl Kernel for NdcgRel {
    fn prepare(&mut self, run: &JudgedView) -> Result<(), Refusal> {
        self.gains.check(&run.qrels_grades)
    }

    alone!();

    fn value_shared(&self, q: &Query, shared: &mut Shared) -> f64 {
        let (ranked, ideal) = shared.ranked_and_ideal(q, &self.gains);
        let l = ideal.gains.len();
        if l == 0 {
            return 0.0;
        }
        let icum = ideal.dcg_log2();
        ranked.dcg_log2();
        let (ranked, running_dcg) = (&*ranked, &ranked.dcg);
        let mut total: Option<f64> = None;
        let mut found = 0usize;
        // the documents with a non-zero gain, with the running DCG at each
        for (k, &i) in ranked.positions.iter().enumerate() {
            let term = if ranked.values[k] > 0.0 {
                found += 1;
                running_dcg[k] / icum[i.min(l - 1)]
            } else {
                0.0
            };
            total = Some(total.map_or(term, |s| s + term));
        }
        let dcg = running_dcg.last().copied();
        let total = total.unwrap_or(0.0)
            + safe_div((l as f64 - found as f64) * dcg.unwrap_or(0.0), icum[l - 1]);
        if total > 0.0 {
            total / l as f64
        } else {
            0.0
        }
    }
}

/// trec_eval's Rndcg: nDCG averaged at the ranks where the ideal gain changes, at the
/// end of the ideal ranking, and at the end of a ranking longer than it.
struct Rndcg {
    gains: Gains,
    rel: Option<i64>,
}

impl Rndcg {
    fn new(spec: &Spec) -> Result<Self, EvalError> {
        no_cutoff(spec)?;
        Ok(Rndcg { gains: Gains::of(spec)?, rel: spec.int("rel")? })
    }
}

impl Kernel for Rndcg {
    fn prepare(&mut self, run: &JudgedView) -> Result<(), Refusal> {
        self.gains.check(&run.qrels_grades)
    }

    alone!();

    fn value_shared(&self, q: &Query, shared: &mut Shared) -> f64 {
        if shared.relevant(q, self.rel.unwrap_or(q.rel_level)).num_rel == 0 {
            return 0.0;
        }
        let (ranked, ideal) = shared.ranked_and_ideal(q, &self.gains);
        let l = ideal.gains.len();
        if l == 0 {
            return 0.0;
        }
        ideal.dcg_log2();
        let (ideal, icum) = (&ideal.gains, &ideal.dcg);
        let n = q.num_ret();
        let mut total = -0.0; // -0.0 + x == x: the first value starts the sum
        let mut count = 0usize;
        let mut add = |v: f64| {
            total += v;
            count += 1;
        };
        for b in 1..l {
            if ideal[b] != ideal[b - 1] {
                add(ranked.dcg_log2_at(b.min(n)) / icum[b - 1]);
            }
        }
        add(ranked.dcg_log2_at(l.min(n)) / icum[l - 1]);
        if n > l + 1 {
            add(ranked.dcg_log2_at(n) / icum[l - 1]);
        }
        total / count as f64
    }
}

/// trec_eval's G: gains over log2 of the cost (ideal gains, at least 1 per rank) not yet
/// recovered, normalised by the total ideal gain.
struct GMeasure {
    gains: Gains,
}

impl GMeasure {
    fn new(spec: &Spec) -> Result<Self, EvalError> {
        no_cutoff(spec)?;
        Ok(GMeasure { gains: Gains::of(spec)? })
    }
}

impl Kernel for GMeasure {
    fn prepare(&mut self, run: &JudgedView) -> Result<(), Refusal> {
        self.gains.check(&run.qrels_grades)
    }

    alone!();

    fn value_shared(&self, q: &Query, shared: &mut Shared) -> f64 {
        let (ranked, ideal) = shared.ranked_and_ideal(q, &self.gains);
        let ideal = &ideal.gains;
        // running sums start at -0.0 (-0.0 + x == x): NumPy's cumsum starts at its first term
        let (mut cost, mut got, mut total) = (-0.0, -0.0, -0.0);
        // the cost of every rank is added; the gains only where non-zero (a zero gain
        // changes the running gain's sign of zero only, which 2 + cost - got ignores)
        let mut costed = 0usize;
        for (&i, &g) in ranked.positions.iter().zip(&ranked.values) {
            while costed <= i {
                cost += match ideal.get(costed) {
                    Some(&g) if g >= 1.0 => g,
                    _ => 1.0,
                };
                costed += 1;
            }
            got += g;
            total += g / c_log2((2.0 + cost) - got);
        }
        // + 0.0: the sum of trec_eval starts at +0.0
        safe_div(total + 0.0, seq_sum(ideal.iter().copied()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::measures::test_spec as spec;

    use crate::measures::test_query as query;

    fn value(family: &str, cutoff: Option<i64>, params: &[(&str, Param)], q: &Query) -> f64 {
        kernel(&spec(family, cutoff, params)).unwrap().unwrap().value(q)
    }

    #[test]
    fn ndcg_at_3_by_hand() {
        // ranking grades 2, 0, 1, 3; judged 3, 2, 1, 0
        let q = query(&[2, 0, 1, 3], &[3, 2, 1, 0]);
        let dcg = 2.0 / 2f64.log2() + 1.0 / 4f64.log2();
        let idcg = 3.0 / 2f64.log2() + 2.0 / 3f64.log2() + 1.0 / 4f64.log2();
        assert_eq!(value("DCG", Some(3), &[], &q), dcg);
        assert_eq!(value("IDCG", Some(3), &[], &q), idcg);
        assert_eq!(value("nDCG", Some(3), &[], &q), dcg / idcg);
        // no cutoff: rank 4 adds 3 / log2 5
        assert_eq!(value("DCG", None, &[], &q), dcg + 3.0 / 5f64.log2());
    }

    #[test]
    fn custom_gains_and_forms() {
        let q = query(&[2, -1, 1], &[2, 1]);
        let gains = Param::Gains(vec![(-1, 0.5), (2, 4.0)]);
        let dcg = 4.0 / 2f64.log2() + 0.5 / 3f64.log2() + 1.0 / 4f64.log2();
        assert_eq!(value("DCG", None, &[("gains", gains)], &q), dcg);
        let exp = (2f64.exp2() - 1.0) / 2f64.log2() + (1f64.exp2() - 1.0) / 4f64.log2();
        assert_eq!(value("DCG", None, &[("dcg", Param::Text("exp-log2".into()))], &q), exp);
        // jk with b = 2: ranks 1 and 2 undiscounted, rank 3 by log2 3
        let jk = 2.0 / 1.0 + 1.0 / (3f64.ln() / 2f64.ln());
        assert_eq!(value("DCG", None, &[("dcg", Param::Text("jk".into()))], &q), jk);
    }

    #[test]
    fn no_positive_gain_and_huge_cutoff() {
        let q = query(&[0, -2], &[0]);
        assert_eq!(value("nDCG", Some(i64::MAX), &[], &q), 0.0);
        let empty = query(&[], &[]);
        for family in FAMILIES {
            assert_eq!(value(family, None, &[], &empty), 0.0, "{family}");
        }
        let extreme = query(&[i64::MAX, i64::MIN], &[i64::MAX]);
        assert!(value("nDCG", Some(i64::MAX), &[], &extreme).is_finite());
    }

    #[test]
    fn bad_parameters_are_errors() {
        assert!(kernel(&spec("nDCG", None, &[("dcg", Param::Text("x".into()))])).unwrap().is_err());
        let jk = [("dcg", Param::Text("jk".into())), ("b", Param::Real(1.0))];
        assert!(kernel(&spec("DCG", None, &jk)).unwrap().is_err());
        assert!(kernel(&spec("G", None, &[("gains", Param::Int(3))])).unwrap().is_err());
        assert!(kernel(&spec("G", Some(3), &[])).unwrap().is_err());
        let mut real = spec("DCG", None, &[]);
        real.cutoff = Some(crate::Cutoff::Real(0.5));
        assert!(kernel(&real).unwrap().is_err());
    }
}

#[cfg(test)]
mod common_tests {
    use super::super::common::*;

    #[test]
    fn sums_start_at_their_first_term() {
        assert_eq!(seq_sum([]).to_bits(), 0f64.to_bits());
        assert_eq!(seq_sum([-0.0]).to_bits(), (-0f64).to_bits());
        assert_eq!(seq_sum([-0.0, 0.0]).to_bits(), 0f64.to_bits());
        assert_eq!(seq_sum([0.1, 0.2, 0.3]), (0.1 + 0.2) + 0.3);
    }

    #[test]
    fn format_g_as_python() {
        for (x, text) in [
            (513.0, "513"),
            (600.5, "600.5"),
            (1e100, "1e+100"),
            (123456789.0, "1.23457e+08"),
            (0.0001, "0.0001"),
            (0.00001234, "1.234e-05"),
            (3.47, "3.47"),
        ] {
            assert_eq!(format_g(x), text);
        }
        assert_eq!(format_int(1e20), "100000000000000000000");
    }

    #[test]
    fn log2_as_the_c_library() {
        assert_eq!(c_log2(0.0), f64::NEG_INFINITY);
        assert_eq!(c_log2(-1.0).to_bits(), 0xfff8_0000_0000_0000);
        assert_eq!(log2_discount(1), 1.0);
        assert_eq!(power(0.5, 3), 0.125);
    }
}
