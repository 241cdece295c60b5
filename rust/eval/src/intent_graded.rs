//! Intent-aware measures on per-intent graded relevance, over the subtopic judgments
//! of [`crate::diversity::Intents`]:
//! * Sakai & Song's D-nDCG@k, I-rec@k and D#-nDCG@k (SIGIR 2011), with NTCIREVAL's
//!   conventions: the global gain of a document is `GG(d) = sum_i P(i|q) g_i(d)`
//!   (`g_i(d)` its grade for intent `i`, `P(i|q)` the intent probabilities, 1/S each
//!   when none are given), the ideal list ranks the judged documents by global gain,
//!   D-nDCG@k is the nDCG@k (discount log2(r + 1)) of the global gains, I-rec@k the
//!   fraction of the intents covered by the top k, and
//!   D#-nDCG@k = gamma I-rec@k + (1 - gamma) D-nDCG@k;
//! * Agrawal et al.'s intent-aware nDCG (WSDM 2009): `nDCG-IA@k = sum_i P(i|q)
//!   nDCG_i@k`, `nDCG_i@k` trec_eval's `ndcg_cut.k` against the judgments of intent `i`
//!   alone (gain = grade, discount log2(r + 1), the ideal from that intent's grades).
//!
//! The intents of a topic are its actual subtopics (those with a relevant document,
//! as in ndeval); a topic without one scores 0.

use crate::diversity::Intents;
use crate::measures::common::{log2_discount, safe_div};

/// The values at one rank cut of one ranking.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Graded {
    pub d_ndcg: f64,
    pub i_rec: f64,
    pub ndcg_ia: f64,
}

/// DCG@k (gains already in rank order, zeros skipped as trec_eval's sum does).
fn dcg(gains: impl Iterator<Item = f64>, k: usize) -> f64 {
    let mut sum = 0.0;
    for (i, g) in gains.take(k).enumerate() {
        if g != 0.0 {
            sum += g / log2_discount(i + 1);
        }
    }
    sum
}

/// The measures of a ranking of topic `t` at rank cut `k` (>= 1): `ranked` holds the
/// number of each document among the judged ones, negative for one not judged.
pub fn graded(intents: &Intents, t: usize, ranked: &[i64], k: usize) -> Graded {
    let actual = intents.actual(t);
    if actual == 0 {
        return Graded::default();
    }
    let p = intents.probabilities(t);
    let global = |d: usize| {
        let (subs, grades) = intents.graded(d);
        let mut gg = 0.0;
        for (&j, &g) in subs.iter().zip(grades) {
            gg += p[j as usize] * g as f64;
        }
        gg
    };
    // the run: global gains, per-intent DCG, covered intents
    let mut run_gg = Vec::with_capacity(k.min(ranked.len()));
    let mut intent_dcg = vec![0.0f64; actual];
    let mut covered = vec![false; actual];
    for (i, &x) in ranked.iter().take(k).enumerate() {
        if x < 0 {
            run_gg.push(0.0);
            continue;
        }
        let d = x as usize;
        run_gg.push(global(d));
        let (subs, grades) = intents.graded(d);
        for (&j, &g) in subs.iter().zip(grades) {
            intent_dcg[j as usize] += g as f64 / log2_discount(i + 1);
            covered[j as usize] = true;
        }
    }
    // the ideals: all judged documents by global gain; each intent's grades
    let docs = intents.topic_docs[t]..intents.topic_docs[t + 1];
    let mut ideal_gg: Vec<f64> = docs.clone().map(global).filter(|&g| g > 0.0).collect();
    ideal_gg.sort_unstable_by(|a, b| b.total_cmp(a));
    let mut per_intent: Vec<Vec<i64>> = vec![Vec::new(); actual];
    for d in docs {
        let (subs, grades) = intents.graded(d);
        for (&j, &g) in subs.iter().zip(grades) {
            per_intent[j as usize].push(g);
        }
    }
    let mut ndcg_ia = 0.0;
    for (j, mut grades) in per_intent.into_iter().enumerate() {
        grades.sort_unstable_by(|a, b| b.cmp(a));
        let ideal = dcg(grades.iter().map(|&g| g as f64), k);
        ndcg_ia += p[j] * safe_div(intent_dcg[j], ideal);
    }
    let d_ndcg = safe_div(dcg(run_gg.into_iter(), k), dcg(ideal_gg.into_iter(), k));
    let i_rec = covered.iter().filter(|&&c| c).count() as f64 / actual as f64;
    Graded { d_ndcg, i_rec, ndcg_ia }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diversity::Line;

    /// One topic: d0 grade 2 for intent 1 and 1 for intent 2, d1 grade 3 for intent 2,
    /// d2 judged 0.
    fn one_topic() -> Intents {
        let line = |doc, subtopic, grade| Line { topic: 0, doc, subtopic, grade };
        Intents::build(&[line(0, 1, 2), line(0, 2, 1), line(1, 2, 3), line(2, 1, 0)], vec![0, 3])
    }

    #[test]
    fn hand_computed_d_ndcg_and_i_rec() {
        let i = one_topic();
        // uniform P = 1/2: GG(d0) = 1.5, GG(d1) = 1.5; run d2, d1 at k = 2
        let g = graded(&i, 0, &[2, 1], 2);
        let l3 = 3f64.log2();
        assert_eq!(g.d_ndcg, (1.5 / l3) / (1.5 + 1.5 / l3));
        assert_eq!(g.i_rec, 0.5);
        // intent 1: nothing found; intent 2: d1 (3) at rank 2, ideal d1 then d0
        assert_eq!(g.ndcg_ia, 0.5 * ((3.0 / l3) / (3.0 + 1.0 / l3)));
    }

    #[test]
    fn unjudged_documents_and_empty_topics_score_zero() {
        let i = one_topic();
        assert_eq!(graded(&i, 0, &[-1, -1], 5), Graded::default());
        let empty = Intents::build(&[Line { topic: 0, doc: 0, subtopic: 0, grade: 0 }], vec![0, 1]);
        assert_eq!(graded(&empty, 0, &[0], 1), Graded::default());
    }
}
