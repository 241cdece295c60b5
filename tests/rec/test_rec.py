"""Recommender evaluation against Microsoft Recommenders' evaluation functions
(``recommenders.evaluation.python_evaluation``, a test-only dependency installed without
its heavy dependencies) on generated logs, and against direct per-user computations for
the measures it lacks (Gini, ARP, APLT, ACLT, ILD)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from recommenders.evaluation import python_evaluation as pe

from cranfield.rec import evaluate_recommendations, read_interactions, read_recommendations, split
from cranfield.rec.evaluate import ItemFeatures

K = 10


def generated(seed: int, tmp_path):
    rng = np.random.default_rng(seed)
    n_users, n_items = int(rng.integers(5, 40)), int(rng.integers(15, 60))
    rows = set()
    for u in range(n_users):
        for _ in range(int(rng.integers(1, 12))):
            rows.add((f"u{u}", f"i{int(rng.zipf(1.3)) % n_items}"))
    log = pd.DataFrame(sorted(rows), columns=["user", "item"])
    log["rating"] = rng.integers(1, 6, len(log))
    log["timestamp"] = rng.permutation(len(log))
    recs = []
    for u in range(n_users - int(rng.integers(0, 3))):  # some users without lists
        items = rng.permutation(n_items)[: int(rng.integers(1, 25))]
        recs += [(f"u{u}", f"i{i}", float(len(items) - r) + 0.5) for r, i in enumerate(items)]
    recs = pd.DataFrame(recs, columns=["user", "item", "prediction"])
    log_path, recs_path = tmp_path / f"log{seed}.csv", tmp_path / f"recs{seed}.csv"
    log.to_csv(log_path, index=False)
    recs.rename(columns={"prediction": "score"}).to_csv(recs_path, index=False)
    return log, recs, log_path, recs_path


def _distributional_coverage(reco: pd.DataFrame) -> float:
    p = reco.groupby("item").size() / len(reco)
    return float(-(p * np.log2(p)).sum())


def _novelty(train: pd.DataFrame, reco: pd.DataFrame) -> float:
    item_novelty = -np.log2(train.groupby("item").size() / len(train))
    counts = reco.groupby("item").size()
    both = counts.index.intersection(item_novelty.index)
    return float((counts[both] * item_novelty[both]).sum() / len(reco))


def top_k(recs: pd.DataFrame) -> pd.DataFrame:
    recs = recs.sort_values(["user", "prediction"], ascending=[True, False])
    return recs.groupby("user").head(K)


@pytest.mark.parametrize("seed", range(15))
def test_accuracy_and_coverage_equal_recommenders(seed, tmp_path):
    log, recs, log_path, recs_path = generated(seed, tmp_path)
    interactions = read_interactions(log_path)
    train, test = split(interactions, "loo-random", seed=seed)
    names = [f"HR@{K}", f"P@{K}", f"R@{K}", f"nDCG@{K}", f"AP@{K}"]
    names += [f"coverage@{K}", f"entropy@{K}", f"novelty@{K}"]
    # each user's training items removed from their list (ours: exclude_train)
    run = read_recommendations(recs_path)
    ours = evaluate_recommendations(test, run, names, train=train).table()
    # recommenders' ndcg_at_k averages over every test user (no list: 0), its precision
    # and recall over the users with a list: cranfield's --complete and its default
    ours[f"nDCG@{K}"] = evaluate_recommendations(
        test, run, [f"nDCG@{K}"], train=train, complete=True
    ).table()[f"nDCG@{K}"]
    truth = test.to_arrow().to_pandas()[["user", "item", "rating"]]
    train_df = train.to_arrow().to_pandas()[["user", "item"]]
    seen = recs.merge(train_df, on=["user", "item"], how="left", indicator=True)
    recs = recs[(seen["_merge"] == "left_only").to_numpy()]
    cols = dict(col_user="user", col_item="item")
    lists = top_k(recs)
    lists = lists[lists.user.isin(set(truth.user))]  # the evaluated users' lists
    kw = dict(
        relevancy_method="top_k", k=K, col_rating="rating", col_prediction="prediction", **cols
    )
    expected = {
        f"P@{K}": pe.precision_at_k(truth, recs, **kw),
        f"R@{K}": pe.recall_at_k(truth, recs, **kw),
        f"nDCG@{K}": pe.ndcg_at_k(truth, recs, score_type="binary", **kw),
        f"AP@{K}": pe.map(truth, recs, **kw),
        # recommenders counts items unseen in training too (coverage > 1 possible);
        # cranfield's catalogue is the training items
        f"coverage@{K}": pe.catalog_coverage(
            train_df, lists[lists.item.isin(set(train_df.item))], **cols
        ),
        # recommenders' distributional_coverage and novelty index a Series by position,
        # which pandas 3 refuses: their formulas, as its source writes them
        f"entropy@{K}": _distributional_coverage(lists),
        f"novelty@{K}": _novelty(train_df, lists),
    }
    # every draw has users with both a list and a held-out item (else nothing is compared)
    assert set(truth.user) & set(recs.user)
    for name, value in expected.items():
        assert ours[name] == pytest.approx(value, rel=1e-9, abs=1e-12), name
    hits = top_k(recs).merge(truth, on=["user", "item"]).user.nunique()
    assert ours[f"Success@{K}"] == pytest.approx(hits / len(set(truth.user) & set(recs.user)))


def per_user_oracle(train: pd.DataFrame, lists: pd.DataFrame, test_users) -> dict:
    """Gini, ARP, APLT, ACLT, user coverage by direct computation, user by user."""
    pop = train.item.value_counts()
    catalogue = set(train.item) | set(lists.item)
    exposure = np.sort([int((lists.item == i).sum()) for i in catalogue])
    n = len(exposure)
    gini = sum((2 * (j + 1) - n - 1) * c for j, c in enumerate(exposure)) / (n * exposure.sum())
    ordered = pop.sort_values(ascending=False, kind="stable")
    held, boundary = 0, None
    for count in ordered:
        held += count
        if held / len(train) >= 0.2:
            boundary = count
            break
    head = {item for item, count in pop.items() if count >= boundary}
    arp, aplt, aclt = [], [], []
    for _, group in lists.groupby("user"):
        items = list(group.item)
        arp.append(np.mean([pop.get(i, 0) for i in items]))
        tail = [i not in head for i in items]
        aplt.append(np.mean(tail))
        aclt.append(sum(tail))
    covered = len(set(lists.user) & set(test_users)) / len(set(test_users))
    return {"gini": gini, "arp": np.mean(arp), "aplt": np.mean(aplt), "aclt": np.mean(aclt),
            "user_coverage": covered}  # fmt: skip


@pytest.mark.parametrize("seed", range(10))
def test_popularity_bias_and_exposure_equal_a_direct_computation(seed, tmp_path):
    log, recs, log_path, recs_path = generated(seed, tmp_path)
    train, test = split(read_interactions(log_path), "ratio", seed=seed, fraction=0.6)
    names = [f"{m}@{K}" for m in ("gini", "arp", "aplt", "aclt", "user_coverage")]
    ours = evaluate_recommendations(
        test, read_recommendations(recs_path), names, train=train, exclude_train=False
    ).table()
    lists = top_k(recs)
    lists = lists[lists.user.isin(set(test.users))]
    expected = per_user_oracle(train.to_arrow().to_pandas(), lists, test.users)
    for m, value in expected.items():
        assert ours[f"{m}@{K}"] == pytest.approx(value, rel=1e-12), m


def test_intra_list_diversity_is_the_mean_pairwise_cosine_distance(tmp_path):
    rng = np.random.default_rng(1)
    log, recs, log_path, recs_path = generated(4, tmp_path)
    items = np.array([f"i{i}" for i in range(60)], dtype=object)
    vectors = rng.normal(size=(60, 5))
    features = ItemFeatures(items, vectors, "<features>")
    test = read_interactions(log_path)
    ours = evaluate_recommendations(
        test, read_recommendations(recs_path), ["ild@5"], features=features
    ).table()
    lists = (
        recs.sort_values(["user", "prediction"], ascending=[True, False]).groupby("user").head(5)
    )
    lists = lists[lists.user.isin(set(test.users))]
    per_user = []
    for _, group in lists.groupby("user"):
        e = vectors[[int(i[1:]) for i in group.item]]
        e = e / np.linalg.norm(e, axis=1, keepdims=True)
        pairs = [1 - e[a] @ e[b] for a in range(len(e)) for b in range(a + 1, len(e))]
        if pairs:
            per_user.append(np.mean(pairs))
    assert ours["ild@5"] == pytest.approx(np.mean(per_user), rel=1e-10)


def test_splits_are_disjoint_complete_and_leak_free(tmp_path):
    log, _, log_path, _ = generated(7, tmp_path)
    interactions = read_interactions(log_path)
    pairs = set(zip(log.user, log.item, strict=True))
    for method, params in [("loo-last", {}), ("loo-random", {}), ("temporal", {"fraction": 0.7}),
                           ("temporal-user", {"fraction": 0.5}), ("ratio", {"fraction": 0.5})]:  # fmt: skip
        train, test = split(interactions, method, seed=3, **params)
        a = set(zip(train.users, train.items, strict=True))
        b = set(zip(test.users, test.items, strict=True))
        assert not a & b and a | b == pairs, method
        assert (
            split(interactions, method, seed=3, **params)[1].items.tolist() == test.items.tolist()
        )
    train, test = split(interactions, "loo-last")
    last = log.sort_values("timestamp").groupby("user").tail(1)
    counts = log.user.value_counts()
    expected = {(u, i) for u, i in zip(last.user, last.item, strict=True) if counts[u] > 1}
    assert set(zip(test.users, test.items, strict=True)) == expected
    train, test = split(interactions, "temporal", fraction=0.7)
    assert test.timestamps.min() >= train.timestamps.max()


def test_cli_eval_split_and_notes(tmp_path, cli):
    log, recs, log_path, recs_path = generated(2, tmp_path)
    status, out, err = cli(
        "rec",
        "eval",
        log_path,
        recs_path,
        "--split",
        "ratio",
        "-m",
        "HR@10",
        "nDCG@10",
        "arp@10",
        "-f",
        "json",
    )
    assert status == 0, err
    doc = json.loads(out)
    assert set(doc["measures"]) == {"Success@10", "nDCG@10", "arp@10"}
    assert "training interactions" in err and "removed" in err
    train, test = tmp_path / "train.csv", tmp_path / "test.csv"
    assert (
        cli(
            "rec",
            "split",
            log_path,
            "--split",
            "loo-last",
            "--train-output",
            train,
            "--test-output",
            test,
        )[0]
        == 0
    )
    assert len(pd.read_csv(train)) + len(pd.read_csv(test)) == len(log)


@pytest.mark.parametrize(
    "log_text, recs_text, extra, mention",
    [
        (
            "user,item\nu1,i1\n",
            "user,item,score\nu1,i1,1\n",
            ["--split", "loo-last"],
            "needs a timestamp column",
        ),
        ("person,item\nu1,i1\n", "user,item,score\nu1,i1,1\n", [], "no column 'user'"),
        (
            "user,item\nu1,i1\n",
            "user,item,score\nu1,i1,1\nu1,i1,2\n",
            [],
            "recommended to user 'u1' twice",
        ),
        ("user,item\nu1,i1\n", "user,item,score\nu1,i1,nan\n", [], "not a finite number"),
        ("user,item,rating\nu1,i1,x\n", "user,item,score\nu1,i1,1\n", [], "rating"),
        (
            "user,item\nu1,i1\n",
            "user,item,score\nu1,i1,1\n",
            ["-m", "arp@10"],
            "needs the training interactions",
        ),
        (
            "user,item\nu1,i1\n",
            "user,item,score\nu1,i1,1\n",
            ["--split", "loo-random", "--fraction", "0.5"],
            "--fraction",
        ),
        ("user,item\nu1,i1\n", "user,item,score\nu1,i1,1\n", ["-m", "bogus@3"], "bogus"),
    ],
)
def test_bad_input_is_one_line(tmp_path, cli, log_text, recs_text, extra, mention):
    log, recs = tmp_path / "log.csv", tmp_path / "recs.csv"
    log.write_text(log_text)
    recs.write_text(recs_text)
    status, out, err = cli("rec", "eval", log, recs, *extra)
    assert status == 2 and out == "" and err.count("\n") == 1 and mention in err, err


def test_docs_reference_is_up_to_date():
    from pathlib import Path

    from cranfield.core.generated import with_section
    from cranfield.rec.measures import reference_markdown

    page = (Path(__file__).resolve().parents[2] / "docs" / "recommenders.md").read_text()
    assert with_section(page, "reference", reference_markdown()) == page, (
        "regenerate: python -m cranfield.rec.measures docs/recommenders.md"
    )
