//! What some measures see instead of the judged run itself, and the per-run facts the
//! options of `evaluate()` need, for the engine's whole evaluation of TREC files.
//!
//! * The judged-only view (`cranfield.core.judged.judged_view`): every ranking without
//!   its unjudged documents (labels < 0), order kept, as trec_eval `-J` makes it; the
//!   measures with ir_measures' `judged_only=True` parameter are computed on it
//!   (`Measure._prepared`).
//! * Which queries have a relevant document (`JudgedRun.num_rel() > 0`), for
//!   `skip_no_relevant`.

use crate::measures::compute;
use crate::{Column, JudgedView, Kernel, LabelVec, Labels, Refusal};

/// The rankings of a judged run without their unjudged documents (owned arrays).
#[derive(Clone, Debug, PartialEq)]
pub struct JudgedOnly {
    pub offsets: Vec<i64>,
    pub labels: LabelVec,
}

impl JudgedOnly {
    /// The labels >= 0 of each ranking of `run` (NumPy's `labels >= 0`: -0.0 is kept,
    /// NaN is not), with their CSR offsets.
    pub fn of(run: &JudgedView) -> JudgedOnly {
        fn keep<T: Copy>(
            v: &[T],
            offsets: &[i64],
            judged: impl Fn(T) -> bool,
        ) -> (Vec<i64>, Vec<T>) {
            let mut out = Vec::with_capacity(v.len());
            let mut ends = Vec::with_capacity(offsets.len());
            ends.push(0i64);
            for w in offsets.windows(2) {
                out.extend(v[w[0] as usize..w[1] as usize].iter().copied().filter(|&x| judged(x)));
                ends.push(out.len() as i64);
            }
            (ends, out)
        }
        let (offsets, labels) = match run.labels {
            Labels::I8(v) => {
                let (o, l) = keep(v, run.offsets, |x| x >= 0);
                (o, LabelVec::I8(l))
            }
            Labels::I64(v) => {
                let (o, l) = keep(v, run.offsets, |x| x >= 0);
                (o, LabelVec::I64(l))
            }
            Labels::F64(v) => {
                let (o, l) = keep(v, run.offsets, |x| x >= 0.0);
                (o, LabelVec::F64(l))
            }
        };
        JudgedOnly { offsets, labels }
    }

    /// The view the kernels take: these rankings, `run`'s qrels and options.
    pub fn view<'a>(&'a self, run: &JudgedView<'a>) -> JudgedView<'a> {
        JudgedView { offsets: &self.offsets, labels: self.labels.view(), ..*run }
    }
}

/// Whether some judged grade of `run` is not a whole number (`JudgedRun.fractional`).
pub fn is_fractional(run: &JudgedView) -> bool {
    match run.qrels_grades {
        Labels::F64(v) => v.iter().any(|g| *g != g.floor()),
        _ => false,
    }
}

/// [`compute`] with each kernel on the run it sees: `judged_only[i]` puts kernel `i`
/// on the judged-only view of `run` (an empty `judged_only`: every kernel on `run`);
/// `fractional_refusals[i]`, when given, is the refusal of kernel `i`'s family when the
/// run's grades are fractional (`Measure._prepared`). A refusal is the first kernel's,
/// in order, that refuses its run (as Python's `compute_many` reports it).
pub fn compute_seen(
    run: &JudgedView,
    kernels: &mut Vec<Box<dyn Kernel>>,
    judged_only: &[bool],
    fractional_refusals: &[Option<String>],
    threads: usize,
) -> Result<Vec<Column>, Refusal> {
    let refusing = fractional_refusals.iter().any(Option::is_some) && is_fractional(run);
    if !refusing && !judged_only.iter().any(|&j| j) {
        return compute(run, kernels, threads);
    }
    let data = JudgedOnly::of(run);
    let view = data.view(run);
    let on_view = |i: usize| judged_only.get(i).copied().unwrap_or(false);
    for (i, k) in kernels.iter_mut().enumerate() {
        if let (true, Some(Some(message))) = (refusing, fractional_refusals.get(i)) {
            return Err(Refusal::Input(message.clone()));
        }
        k.prepare(if on_view(i) { &view } else { run })?;
    }
    let n = kernels.len();
    let mut slots: Vec<Option<Box<dyn Kernel>>> = kernels.drain(..).map(Some).collect();
    let mut columns: Vec<Option<Column>> = (0..n).map(|_| None).collect();
    let mut refused = None;
    for (wanted, on) in [(false, run), (true, &view)] {
        let index: Vec<usize> = (0..n).filter(|&i| on_view(i) == wanted).collect();
        let mut group: Vec<Box<dyn Kernel>> =
            index.iter().filter_map(|&i| slots[i].take()).collect();
        let done = compute(on, &mut group, threads);
        for (&i, k) in index.iter().zip(group) {
            slots[i] = Some(k);
        }
        match done {
            Ok(got) => index.iter().zip(got).for_each(|(&i, c)| columns[i] = Some(c)),
            Err(r) => refused = refused.or(Some(r)),
        }
    }
    kernels.extend(slots.into_iter().flatten());
    match refused {
        Some(r) => Err(r),
        None => Ok(columns.into_iter().flatten().collect()),
    }
}

/// Whether each query of `run` has a relevant document (R > 0 at the run's level).
pub fn has_relevant(run: &JudgedView) -> Vec<bool> {
    (0..run.num_queries()).map(|q| run.query(q).num_rel(run.rel_level) > 0).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Query;

    struct NumRet;
    impl Kernel for NumRet {
        fn value(&self, q: &Query) -> f64 {
            q.num_ret() as f64
        }
    }

    #[test]
    fn judged_only_view_drops_negative_labels_in_order() {
        let labels = [1i8, -1, 0, -2, 2];
        let run = JudgedView {
            offsets: &[0, 3, 3, 5],
            labels: Labels::I8(&labels),
            qrels_offsets: &[0, 1, 1, 2],
            qrels_grades: Labels::I8(&[1, 2]),
            in_run: &[true, false, true],
            rel_level: 1,
            compat: 10,
        };
        let only = JudgedOnly::of(&run);
        assert_eq!(only.offsets, vec![0, 2, 2, 3]);
        assert_eq!(only.labels, LabelVec::I8(vec![1, 0, 2]));
        let mut kernels: Vec<Box<dyn Kernel>> = vec![Box::new(NumRet), Box::new(NumRet)];
        let got = compute_seen(&run, &mut kernels, &[false, true], &[], 1).unwrap();
        assert_eq!(got[0], Column::Numbers(vec![3.0, 0.0, 2.0]));
        assert_eq!(got[1], Column::Numbers(vec![2.0, 0.0, 1.0]));
        assert_eq!(kernels.len(), 2);
        assert_eq!(has_relevant(&run), vec![true, false, true]);
    }

    #[test]
    fn fractional_labels_keep_negative_zero() {
        let labels = [-0.0, -1.0, 0.5, f64::NAN];
        let run = JudgedView {
            offsets: &[0, 4],
            labels: Labels::F64(&labels),
            qrels_offsets: &[0, 0],
            qrels_grades: Labels::F64(&[]),
            in_run: &[true],
            rel_level: 1,
            compat: 10,
        };
        let only = JudgedOnly::of(&run);
        match only.labels {
            LabelVec::F64(v) => assert_eq!(v.len(), 2),
            other => panic!("{other:?}"),
        }
        assert!(!is_fractional(&run));
        let grades = [2.0, 0.5];
        let soft = JudgedView { qrels_offsets: &[0, 2], qrels_grades: Labels::F64(&grades), ..run };
        assert!(is_fractional(&soft));
        let mut kernels: Vec<Box<dyn Kernel>> = vec![Box::new(NumRet), Box::new(NumRet)];
        let refusals = [None, Some("no fractions".to_string())];
        let got = compute_seen(&soft, &mut kernels, &[], &refusals, 1);
        assert_eq!(got, Err(Refusal::Input("no fractions".into())));
        assert_eq!(compute_seen(&run, &mut kernels, &[], &refusals, 1).map(|c| c.len()), Ok(2));
    }
}
