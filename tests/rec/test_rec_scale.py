"""The interned (integer-coded) evaluation path against a straightforward per-user
computation written here: generated logs whose lists come in every layout the path
treats apart (one block per user in rank order, users interleaved, rows shuffled), with
tied scores (ties: item id descending, as trec_eval), a ``rank`` column, training items
in the lists, users and items the training log never saw, ids that look like numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cranfield.rec import evaluate_recommendations, read_interactions, read_recommendations
from cranfield.rec.codes import in_pairs, rank

K = 5
LAYOUTS = ("blocks", "interleaved", "shuffled")


def generated(seed: int, tmp_path):
    rng = np.random.default_rng(seed)
    n_users, n_items = int(rng.integers(4, 30)), int(rng.integers(8, 40))
    ids = [f"{i:03d}" if seed % 2 else f"i{i}" for i in range(n_items)]  # "007": text
    train, test = set(), set()
    for u in range(n_users):
        for _ in range(int(rng.integers(0, 9))):
            train.add((f"u{u}", ids[int(rng.zipf(1.4)) % n_items]))
        for _ in range(int(rng.integers(0, 3))):
            test.add((f"u{u}", ids[int(rng.integers(0, n_items))]))
    train.add(("u0", ids[0]))  # (never an empty log)
    test.add(("u1", ids[1]))
    lists = {}
    for u in range(n_users + 2):  # two users outside the logs
        chosen = rng.permutation(n_items)[: int(rng.integers(0, 15))]
        levels = int(rng.integers(1, 6))  # few distinct scores: ties
        lists[f"u{u}"] = [(ids[i], float(rng.integers(0, levels))) for i in chosen]
    layout = LAYOUTS[seed % 3]
    rows = [(u, i, s) for u, items in lists.items() for i, s in sorted(items, key=_trec)]
    if layout == "interleaved":  # each list in rank order, users round-robin
        order = {u: sorted(items, key=_trec) for u, items in lists.items()}
        rows = [(u, *order[u][r]) for r in range(15) for u in order if r < len(order[u])]
    elif layout == "shuffled":
        rows = [rows[j] for j in rng.permutation(len(rows))]
    by_rank = seed % 4 == 3
    with open(tmp_path / "recs.csv", "w") as f:
        f.write("user,item,rank\n" if by_rank else "user,item,score\n")
        for u, i, s in rows:
            f.write(f"{u},{i},{int(10 - s) if by_rank else s}\n")
    for name, pairs in (("train", train), ("test", test)):
        with open(tmp_path / f"{name}.csv", "w") as f:
            f.write("user,item\n" + "".join(f"{u},{i}\n" for u, i in sorted(pairs)))
    return train, test, lists


def _trec(entry):
    """trec_eval's order of (item, score): score descending, then item id descending."""
    item, score = entry
    return (-score, [-b for b in item.encode()] + [1])


def per_user(train, test, lists):
    """Every measure, user by user, from its definition."""
    relevant: dict[str, set] = {}
    for u, i in test:
        relevant.setdefault(u, set()).add(i)
    seen = set(train)
    popularity: dict[str, int] = {}
    for _, i in train:
        popularity[i] = popularity.get(i, 0) + 1
    removed = sum((u, i) in seen for u, items in lists.items() for i, _ in items)
    values: dict[str, list] = {m: [] for m in ("HR", "P", "R", "nDCG", "AP", "RR", "arp")}
    top_items: list[str] = []
    for u in sorted(relevant):
        ranked = [i for i, _ in sorted(lists.get(u, []), key=_trec) if (u, i) not in seen]
        if not ranked:
            continue
        rel, top = relevant[u], ranked[:K]
        top_items += top
        hits = [r for r, i in enumerate(top) if i in rel]
        values["HR"].append(float(bool(hits)))
        values["P"].append(len(hits) / K)
        values["R"].append(len(hits) / len(rel))
        ideal = sum(1 / math.log2(r + 2) for r in range(min(K, len(rel))))
        values["nDCG"].append(sum(1 / math.log2(r + 2) for r in hits) / ideal)
        values["AP"].append(sum((n + 1) / (r + 1) for n, r in enumerate(hits)) / len(rel))
        first = next((r for r, i in enumerate(ranked) if i in rel), None)
        values["RR"].append(0.0 if first is None else 1 / (first + 1))
        values["arp"].append(sum(popularity.get(i, 0) for i in top) / len(top))
    out = {m: sum(v) / len(v) for m, v in values.items() if v}
    n_train = len(train)
    if popularity and top_items:
        out["coverage"] = len(set(top_items) & set(popularity)) / len(popularity)
        info = [-math.log2(popularity[i] / n_train) if i in popularity else 0 for i in top_items]
        out["novelty"] = sum(info) / len(info)
    return out, removed


NAMES = {
    "HR": f"HR@{K}",
    "P": f"P@{K}",
    "R": f"Recall@{K}",
    "nDCG": f"nDCG@{K}",
    "AP": f"MAP@{K}",
    "RR": "MRR",
    "arp": f"arp@{K}",
    "coverage": f"coverage@{K}",
    "novelty": f"novelty@{K}",
}
CANONICAL = {"HR": f"Success@{K}", "R": f"R@{K}", "AP": f"AP@{K}", "RR": "RR"}


@pytest.mark.parametrize("seed", range(36))
def test_interned_path_equals_a_per_user_computation(seed, tmp_path):
    train_pairs, test_pairs, lists = generated(seed, tmp_path)
    expected, removed = per_user(train_pairs, test_pairs, lists)
    test = read_interactions(tmp_path / "test.csv")
    train = read_interactions(tmp_path / "train.csv")
    recs = read_recommendations(tmp_path / "recs.csv")
    names = [NAMES[m] for m in expected]
    result = evaluate_recommendations(test, recs, names, train=train)
    got = result.table()
    for m, want in expected.items():
        name = CANONICAL.get(m, NAMES[m])
        assert got[name] == pytest.approx(want, rel=1e-12, abs=1e-15), (m, LAYOUTS[seed % 3])
    assert any(f"{removed} recommended" in n for n in result.notes) == bool(removed)
    # the accuracy measures cut to the deepest cutoff give what the whole lists give
    whole = evaluate_recommendations(test, recs, [*names, "num_ret"], train=train).table()
    assert {n: whole[n] for n in got} == got


def test_every_layout_is_generated():
    assert len({LAYOUTS[s % 3] for s in range(36)}) == 3
    assert any(s % 4 == 3 for s in range(36))  # a rank column


@pytest.mark.parametrize("seed", range(5))
def test_training_pairs_found_as_a_set_finds_them(seed):
    rng = np.random.default_rng(seed)
    n_items = 300
    # one user with more than 64 items (a full signature), others with a few
    set_users = np.r_[np.zeros(200, np.int64), rng.integers(1, 50, 400)]
    set_items = np.r_[rng.integers(0, n_items, 200), rng.integers(0, n_items, 400)]
    users = rng.integers(-1, 60, 5000).astype(np.int32)
    items = rng.integers(-1, n_items, 5000).astype(np.int32)
    pairs = set(zip(set_users.tolist(), set_items.tolist(), strict=True))
    want = [
        u >= 0 and i >= 0 and (u, i) in pairs
        for u, i in zip(users.tolist(), items.tolist(), strict=True)
    ]
    assert in_pairs(users, items, set_users, set_items, n_items).tolist() == want


@pytest.mark.parametrize("seed", range(8))
def test_rank_orders_as_a_sort_in_python(seed):
    """``rank`` against ``sorted``: lists in blocks with their ties in either order,
    users interleaved, rows shuffled; ties of score by item id descending."""
    rng = np.random.default_rng(seed)
    n_users, n = 6, 60
    user = np.sort(rng.integers(0, n_users, n)).astype(np.int32)
    score = rng.integers(0, 3, n).astype(np.float64)
    item = rng.permutation(100)[:n].astype(np.int32)
    item_order = rng.permutation(100)  # each item's place among the ids
    # blocks in score order, ties in the wrong (ascending) or right order
    order = np.lexsort((item_order[item] * (1 if seed % 2 else -1), -score, user))
    if seed % 4 >= 2:
        order = order[rng.permutation(n)] if seed % 4 == 3 else order[np.argsort(order % 3)]
    u, s, i = user[order], score[order], item[order]
    got = rank(u, i, s, item_order, np.arange(n, dtype=np.int32), n_users)
    for code in range(n_users):
        rows = [r for r in range(n) if u[r] == code]
        want = sorted(rows, key=lambda r: (-s[r], -item_order[i[r]]))
        mine = got.row[got.user == code].tolist()
        assert mine == want
        assert got.position[got.user == code].tolist() == list(range(len(rows)))
