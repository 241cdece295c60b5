"""Brute-force pure-Python pools: the definitions of docs/pooling.md, written directly.

Rankings follow trec_eval (score descending, then doc id descending in byte order);
topics and documents are compared as UTF-8 bytes. Incremental pooling leaves the judged
documents out but keeps every run's ranks as they are.
"""

from __future__ import annotations

from generators import trec_order


def ranking(run: dict[str, dict[str, float]], qid: str) -> list[str]:
    return trec_order(run.get(qid, {}))


def topics(runs: list[dict]) -> list[str]:
    return sorted({q for run in runs for q in run}, key=str.encode)


def _finish(pool: dict[str, set[str]]) -> list[tuple[str, str]]:
    return [(q, d) for q in sorted(pool, key=str.encode) for d in sorted(pool[q], key=str.encode)]


def depth_pool(runs, k, judged=frozenset()):
    pool: dict[str, set[str]] = {}
    for q in topics(runs):
        for run in runs:
            for d in ranking(run, q)[:k]:
                if (q, d) not in judged:
                    pool.setdefault(q, set()).add(d)
    return _finish(pool)


def take_pool(runs, n, judged=frozenset()):
    pool: dict[str, set[str]] = {}
    for q in topics(runs):
        lists = [ranking(run, q) for run in runs]
        chosen: list[str] = []
        for r in range(max(len(x) for x in lists)):
            for lst in lists:
                if len(chosen) < n and r < len(lst):
                    d = lst[r]
                    if d not in chosen and (q, d) not in judged:
                        chosen.append(d)
        if chosen:
            pool[q] = set(chosen)
    return _finish(pool)


def fused_pool(runs, n, order, p=0.8, rrf_k=60, judged=frozenset()):
    pool: dict[str, set[str]] = {}
    for q in topics(runs):
        weights: dict[str, list[float]] = {}
        for run in runs:
            for r, d in enumerate(ranking(run, q), start=1):
                if (q, d) in judged:
                    continue  # left out, but the run's ranks stay as they are
                if order == "rrf":
                    w = 1.0 / (rrf_k + r)
                else:  # the C library's pow (Python's float **), as the library
                    w = (1.0 - p) * p ** float(r - 1)
                weights.setdefault(d, []).append(w)
        prio = {}
        for d, ws in weights.items():
            if order == "rbp-max":
                prio[d] = max(ws)
            else:
                total = 0.0
                for w in sorted(ws, reverse=True):
                    total += w
                prio[d] = total
        best = sorted(prio, key=lambda d: (-prio[d], d.encode()))[:n]
        if best:
            pool[q] = set(best)
    return _finish(pool)


def move_to_front(runs, qrels, rel_level=1, depth=None):
    """Move-to-front as Cormack, Palmer & Clarke (1998) describe it, one topic at a
    time: the order in which each topic's documents get judged, with the oracle qrels
    answering (documents absent from them are not relevant)."""
    out = {}
    for q in topics(runs):
        lists = [ranking(run, q)[:depth] if depth else ranking(run, q) for run in runs]
        prio = [0] * len(runs)
        ptr = [0] * len(runs)
        judged: list[str] = []
        while True:
            for j, lst in enumerate(lists):
                while ptr[j] < len(lst) and lst[ptr[j]] in judged:
                    ptr[j] += 1
            live = [j for j, lst in enumerate(lists) if ptr[j] < len(lst)]
            if not live:
                break
            j = max(live, key=lambda i: (prio[i], -i))  # highest priority, first run
            d = lists[j][ptr[j]]
            judged.append(d)
            if qrels.get(q, {}).get(d, 0) < rel_level:
                prio[j] -= 1
        out[q] = judged
    return out
