"""A plain reference for click models under PyClick's conventions (test oracle).

Written from the conventions of PyClick (github.com/markovi/PyClick, the companion code
of Chuklin, Markov & de Rijke 2015, *Click Models for Web Search*) as read in its
source, one session and one rank at a time, sharing no code with cranfield:

* every parameter starts as one click in two impressions: a numerator 1 and a
  denominator 2 (``ParamMLE``, ``ParamEM``), so a value is ``(k + 1) / (n + 2)`` and a
  pair or rank never seen is 1/2;
* EM runs a fixed number of iterations (``EMInference.ITERATION_NUM = 50``); each
  iteration starts every parameter afresh at (1, 2) and adds the expected counts of all
  sessions computed with the previous iteration's values; an EM value is capped at
  ``1 - 1e-6`` (``ParamEM.PROB_MIN``);
* UBM's examination is indexed by (rank, rank of the previous click), the previous
  click rank being ``M - 1`` (the last rank of the list) when there is none;
* the log-likelihood is the mean over sessions of the mean over ranks of
  ``log P(C_r = c_r | C_<r)``; the perplexity at rank r is
  ``2 ** (-(1 / |S|) sum_s log2 P(C_r = c_r))`` with the unconditional ``P(C_r = 1)``,
  and the perplexity is the mean of the per-rank values (every session shows 10
  results in PyClick's data);
* the cascade model gives every rank after the first click the probability 1e-6 in
  the log-likelihood (``CM.PROB_MIN``).

A session is ``(query, [doc, ...], [click, ...])`` with clicks 0 or 1.
"""

from __future__ import annotations

import math
from collections import defaultdict

PROB_MIN = 1e-6
ITERATIONS = 50


class Counter:
    """One parameter: a numerator and a denominator starting at one click in two."""

    def __init__(self, capped: bool = False):
        self.num = 1.0
        self.den = 2.0
        self.capped = capped

    def add(self, num: float, den: float = 1.0) -> None:
        self.num += num
        self.den += den

    def value(self) -> float:
        v = self.num / self.den
        return min(v, 1 - PROB_MIN) if self.capped else v


def _table(capped: bool = False):
    return defaultdict(lambda: Counter(capped))


def last_click(clicks) -> int:
    """0-based rank of the last click, ``len(clicks)`` without clicks (PyClick)."""
    ranks = [r for r, c in enumerate(clicks) if c]
    return ranks[-1] if ranks else len(clicks)


def previous_click(clicks, rank: int) -> int:
    ranks = [r for r, c in enumerate(clicks[:rank]) if c]
    return ranks[-1] if ranks else len(clicks) - 1


class DCTR:
    def fit(self, sessions):
        self.ctr = _table()
        for q, docs, clicks in sessions:
            for d, c in zip(docs, clicks, strict=True):
                self.ctr[q, d].add(c)
        return self

    def full(self, q, docs, clicks):
        return [self.ctr[q, d].value() for d in docs]

    def conditional(self, q, docs, clicks):
        return [p if c else 1 - p for p, c in zip(self.full(q, docs, clicks), clicks, strict=True)]


class GCTR(DCTR):
    """One click-through rate for every rank and document."""

    def fit(self, sessions):
        self.ctr = defaultdict(lambda: self.one)
        self.one = Counter()
        for _, _docs, clicks in sessions:
            for c in clicks:
                self.one.add(c)
        return self


class RCTR(DCTR):
    """One click-through rate per rank."""

    def fit(self, sessions):
        self.rank = _table()
        for _, _docs, clicks in sessions:
            for r, c in enumerate(clicks):
                self.rank[r].add(c)
        return self

    def full(self, q, docs, clicks):
        return [self.rank[r].value() for r in range(len(docs))]


class _Cascade:
    """SDBN and DCM: attractiveness counted at and above the last click; the user
    goes on after a click with ``cont`` and always after a skip."""

    def fit(self, sessions):
        self.attr = _table()
        self.cont_table = self.new_cont()
        for q, docs, clicks in sessions:
            last = last_click(clicks)
            for r, (d, c) in enumerate(zip(docs, clicks, strict=True)):
                if r <= last:
                    self.attr[q, d].add(c)
                if c:
                    self.count_cont(q, d, r, r != last)
        return self

    def full(self, q, docs, clicks):
        exam, out = 1.0, []
        for r, d in enumerate(docs):
            a = self.attr[q, d].value()
            out.append(a * exam)
            exam *= self.cont(q, d, r) * a + (1 - a)
        return out

    def conditional(self, q, docs, clicks):
        exam, out = 1.0, []
        for r, (d, c) in enumerate(zip(docs, clicks, strict=True)):
            a = self.attr[q, d].value()
            if c:
                p = a * exam
                exam = self.cont(q, d, r)
            else:
                p = 1 - a * exam
                exam *= (1 - a) / p
            out.append(p)
        return out


class SDBN(_Cascade):
    def new_cont(self):
        return _table()

    def count_cont(self, q, d, r, goes_on):
        self.cont_table[q, d].add(0.0 if goes_on else 1.0)  # satisfaction

    def cont(self, q, d, r):
        return 1 - self.cont_table[q, d].value()


class DCM(_Cascade):
    def new_cont(self):
        return _table()

    def count_cont(self, q, d, r, goes_on):
        self.cont_table[r].add(1.0 if goes_on else 0.0)

    def cont(self, q, d, r):
        return self.cont_table[r].value()


class CM:
    def fit(self, sessions):
        self.attr = _table()
        for q, docs, clicks in sessions:
            for r, (d, c) in enumerate(zip(docs, clicks, strict=True)):
                if not any(clicks[:r]):
                    self.attr[q, d].add(c)
        return self

    def full(self, q, docs, clicks):
        exam, out = 1.0, []
        for d in docs:
            a = self.attr[q, d].value()
            out.append(a * exam)
            exam *= 1 - a
        return out

    def conditional(self, q, docs, clicks):
        first = clicks.index(1) if 1 in clicks else len(clicks)
        full = self.full(q, docs, clicks)
        return [
            (p if c else 1 - p) if r <= first else PROB_MIN
            for r, (p, c) in enumerate(zip(full, clicks, strict=True))
        ]


class _Factored:
    """PBM and UBM: ``P(C = 1) = attr_qd * exam_cell``, fitted by EM."""

    def fit(self, sessions, iterations: int = ITERATIONS):
        self.attr, self.exam = _table(True), _table(True)
        for _ in range(iterations):
            attr, exam = _table(True), _table(True)
            for q, docs, clicks in sessions:
                for r, (d, c) in enumerate(zip(docs, clicks, strict=True)):
                    a = self.attr[q, d].value()
                    e = self.exam[self.cell(clicks, r)].value()
                    if c:
                        attr[q, d].add(1.0)
                        exam[self.cell(clicks, r)].add(1.0)
                    else:
                        attr[q, d].add((1 - e) * a / (1 - e * a))
                        exam[self.cell(clicks, r)].add((1 - a) * e / (1 - e * a))
            self.attr, self.exam = attr, exam
        return self

    def conditional(self, q, docs, clicks):
        out = []
        for r, (d, c) in enumerate(zip(docs, clicks, strict=True)):
            p = self.attr[q, d].value() * self.exam[self.cell(clicks, r)].value()
            out.append(p if c else 1 - p)
        return out


class PBM(_Factored):
    def cell(self, clicks, r):
        return r

    def full(self, q, docs, clicks):
        return [self.attr[q, d].value() * self.exam[r].value() for r, d in enumerate(docs)]


class UBM(_Factored):
    def cell(self, clicks, r):
        return r, previous_click(clicks, r)

    def full(self, q, docs, clicks):
        m = len(docs)

        def p(r, prev):  # prev = -1: no click before r (PyClick's cell M - 1)
            return (
                self.attr[q, docs[r]].value() * self.exam[r, prev if prev >= 0 else m - 1].value()
            )

        out = []
        for r in range(m):
            total = 0.0
            for prev in range(-1, r):
                none_between = 1.0
                for b in range(prev + 1, r):
                    none_between *= 1 - p(b, prev)
                total += (out[prev] if prev >= 0 else 1.0) * none_between * p(r, prev)
            out.append(total)
        return out


MODELS = {
    "gctr": GCTR,
    "rctr": RCTR,
    "dctr": DCTR,
    "sdbn": SDBN,
    "dcm": DCM,
    "cm": CM,
    "pbm": PBM,
    "ubm": UBM,
}


def log_likelihood(model, sessions) -> float:
    total = 0.0
    for q, docs, clicks in sessions:
        logs = [math.log(p) for p in model.conditional(q, docs, clicks)]
        total += sum(logs) / len(logs)
    return total / len(sessions)


def perplexity(model, sessions, ranks: int = 10) -> tuple[float, list[float]]:
    at = [0.0] * ranks
    for q, docs, clicks in sessions:
        for r, (p, c) in enumerate(zip(model.full(q, docs, clicks), clicks, strict=True)):
            at[r] += math.log2(p if c else 1 - p)
    at = [2 ** (-x / len(sessions)) for x in at]
    return sum(at) / len(at), at
