"""EPC, EFD, PopRSP and PopREO against a direct computation written here user by user,
with the conventions of Elliot's implementations (read from its source: rank discount
1/log2(k + 2) from rank 0, normalised by the discounts of the whole list; item novelty
from the training users of each item; users without a relevant item left out of EPC,
EFD and PopREO; population standard deviation over the two groups); the short head is
cranfield's (the most popular items holding 20% of the training interactions), and items
never in training belong to neither group, as Elliot's groups come from training."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from cranfield.rec import evaluate_recommendations, read_interactions, read_recommendations, split
from generators import rec_log_files as generated

K = 10


def oracle(train: pd.DataFrame, test: pd.DataFrame, lists: dict[str, list[str]]) -> dict:
    train = train.drop_duplicates(["user", "item"])
    users_of = train.groupby("item").user.nunique().to_dict()
    n_users = train.user.nunique()
    total = sum(users_of.values())
    max_nov = -math.log2(min(users_of.values()) / total)
    pop = train.item.value_counts()  # the short head: 20% of the interactions
    held, boundary = 0, None
    for count in pop.sort_values(ascending=False, kind="stable"):
        held += count
        if held / len(train) >= 0.2:
            boundary = count
            break
    head = {i for i, c in pop.items() if c >= boundary}
    tail = set(pop.index) - head
    relevant = test.groupby("user").item.apply(set).to_dict()
    seen = train.groupby("user").item.apply(set).to_dict()
    epc, efd = [], []
    rsp_num, rsp_den, reo_num, reo_den = [0, 0], [0, 0], [0, 0], [0, 0]
    for user, items in lists.items():
        rel = relevant.get(user, set())
        mine = seen.get(user, set())
        rsp_num[0] += len(set(items) & head)
        rsp_num[1] += len(set(items) & tail)
        rsp_den[0] += len(head - mine)
        rsp_den[1] += len(tail - mine)
        if not rel:
            continue
        disc = [1 / math.log2(r + 2) for r in range(len(items))]
        hit = [i in rel for i in items]
        epc.append(
            sum(
                d * h * (1 - users_of.get(i, 0) / n_users)
                for d, h, i in zip(disc, hit, items, strict=True)
            )
            / sum(disc)
        )
        efd.append(
            sum(
                d * h * (-math.log2(users_of[i] / total) if i in users_of else max_nov)
                for d, h, i in zip(disc, hit, items, strict=True)
            )
            / sum(disc)
        )
        got = {i for i, h in zip(items, hit, strict=True) if h}
        reo_num[0] += len(got & head)
        reo_num[1] += len(got & tail)
        reo_den[0] += len((head & rel) - mine)
        reo_den[1] += len((tail & rel) - mine)

    def ratio(num, den):
        with np.errstate(divide="ignore", invalid="ignore"):
            p = np.array(num, float) / np.array(den, float)
            return float(np.std(p) / np.mean(p))

    return {
        "epc": float(np.mean(epc)) if epc else float("nan"),
        "efd": float(np.mean(efd)) if efd else float("nan"),
        "poprsp": ratio(rsp_num, rsp_den),
        "popreo": ratio(reo_num, reo_den),
    }


@pytest.mark.parametrize("seed", range(25))
def test_novelty_and_popularity_bias_equal_a_direct_computation(seed, tmp_path):
    log_path, recs_path = generated(seed, tmp_path)
    train, test = split(read_interactions(log_path), "ratio", seed=seed, fraction=0.6)
    spelled = {"epc": "EPC", "efd": "EFD", "poprsp": "PopRSP", "popreo": "PopREO"}
    names = [f"{m}@{K}" for m in spelled.values()]
    run = read_recommendations(recs_path)
    ours = evaluate_recommendations(test, run, names, train=train, exclude_train=False).table()
    train_df = train.to_arrow().to_pandas()
    test_df = test.to_arrow().to_pandas()
    recs = pd.read_csv(recs_path, dtype={"user": str, "item": str})
    recs = recs.sort_values(["user", "score"], ascending=[True, False])
    evaluated = set(test_df.user)
    lists = {u: list(g.item)[:K] for u, g in recs.groupby("user", sort=False) if u in evaluated}
    want = oracle(train_df, test_df, lists)
    for m in ("epc", "efd", "poprsp", "popreo"):
        got = ours[
            f"{ {'epc': 'EPC', 'efd': 'EFD', 'poprsp': 'PopRSP', 'popreo': 'PopREO'}[m] }@{K}"
        ]
        if math.isnan(want[m]):
            assert math.isnan(got), m
        else:
            assert got == pytest.approx(want[m], rel=1e-12, abs=1e-15), m


def test_a_hand_computed_case(tmp_path):
    """Two users, items a (head) and b, c (tail): EPC, EFD worked by hand."""
    (tmp_path / "train.csv").write_text("user,item\nu1,a\nu2,a\nu2,b\nu3,a\nu3,c\n")
    (tmp_path / "test.csv").write_text("user,item\nu1,b\nu2,c\n")
    (tmp_path / "recs.csv").write_text("user,item,score\nu1,b,2\nu1,c,1\nu2,a,2\nu2,c,1\n")
    train, test = (
        read_interactions(tmp_path / "train.csv"),
        read_interactions(tmp_path / "test.csv"),
    )
    run = read_recommendations(tmp_path / "recs.csv")
    ours = evaluate_recommendations(
        test, run, ["EPC@2", "EFD@2"], train=train, exclude_train=False
    ).table()
    d0, d1 = 1.0, 1 / math.log2(3)
    # u1: b relevant at rank 0 (1 of 3 training users: complement 2/3); u2: c at rank 1
    epc = ((d0 * (2 / 3)) / (d0 + d1) + (d1 * (2 / 3)) / (d0 + d1)) / 2
    # 5 training (user, item) pairs; b and c: one user each
    efd = ((d0 * -math.log2(1 / 5)) / (d0 + d1) + (d1 * -math.log2(1 / 5)) / (d0 + d1)) / 2
    assert ours["EPC@2"] == pytest.approx(epc, rel=1e-14)
    assert ours["EFD@2"] == pytest.approx(efd, rel=1e-14)


@pytest.mark.parametrize("seed", range(12))
def test_serendipity_equals_recommenders(seed, tmp_path):
    """recommenders' ``serendipity`` (item co-occurrence similarity) on the same top-k
    lists, with the held-out relevance as its relevance column."""
    from recommenders.evaluation import python_evaluation as pe

    log_path, recs_path = generated(seed, tmp_path)
    train, test = split(read_interactions(log_path), "ratio", seed=seed, fraction=0.6)
    run = read_recommendations(recs_path)
    # recommenders refuses lists holding training items: both remove them (our default)
    ours = evaluate_recommendations(test, run, [f"serendipity@{K}"], train=train).table()[
        f"serendipity@{K}"
    ]
    train_df = train.to_arrow().to_pandas()[["user", "item"]].drop_duplicates()
    test_df = test.to_arrow().to_pandas()
    recs = pd.read_csv(recs_path, dtype={"user": str, "item": str})
    seen = set(zip(train_df.user, train_df.item, strict=True))
    recs = recs[[(u, i) not in seen for u, i in zip(recs.user, recs.item, strict=True)]]
    recs = recs.sort_values(["user", "score"], ascending=[True, False])
    lists = recs.groupby("user").head(K)
    lists = lists[lists.user.isin(set(test_df.user))][["user", "item"]].copy()
    truth = set(zip(test_df.user, test_df.item, strict=True))
    lists["relevance"] = [
        float((u, i) in truth) for u, i in zip(lists.user, lists.item, strict=True)
    ]
    # recommenders' similarity table; its averaging step as its source writes it: under
    # pandas 3 its `fillna(0, inplace=True)` on a column is a no-op (copy-on-write), which
    # would average over the co-occurring training items only
    sim = pe._get_cosine_similarity(train_df, col_user="user", col_item="item", col_sim="sim")
    pairs = lists.merge(train_df.rename(columns={"item": "seen"}), on="user")
    pairs["i1"] = pairs[["item", "seen"]].min(axis=1)
    pairs["i2"] = pairs[["item", "seen"]].max(axis=1)
    pairs = pairs.merge(sim, on=["i1", "i2"], how="left")
    pairs["sim"] = pairs["sim"].fillna(0)
    per_item = pairs.groupby(["user", "item"]).agg(sim=("sim", "mean"), rel=("relevance", "first"))
    per_item["serendipity"] = (1 - per_item["sim"]) * per_item["rel"]
    want = float(per_item.groupby("user")["serendipity"].mean().mean())
    assert ours == pytest.approx(want, rel=1e-12, abs=1e-15)
    assert 0 < want  # some relevant item was recommended: the check above can fail


def elliot_mad(train, test, lists, user_group, item_group) -> tuple[float, float]:
    """UserMADranking and ItemMADranking as Elliot's source computes them (binary
    relevance: the user's held-out items), user by user."""

    def discount(r):
        return 1 / math.log(r + 2) * math.log(2)

    relevant = test.groupby("user").item.apply(set).to_dict()
    by_group, item_count, item_gain = {}, {}, {}
    for user, items in lists.items():
        gains = relevant.get(user, set())
        ideal = sum(discount(r) for r in range(min(len(gains), K)))
        dcg = sum(discount(r) for r, i in enumerate(items[:K]) if i in gains)
        if user in user_group:
            by_group.setdefault(user_group[user], []).append(dcg / ideal if dcg > 0 else 0)
        for i in items[:K]:
            item_count[i] = item_count.get(i, 0) + 1
            item_gain[i] = item_gain.get(i, 0) + (i in gains)
    per_item = {}
    for i, c in item_count.items():
        if i in item_group:
            per_item.setdefault(item_group[i], []).append(item_gain[i] / c)

    def mad(groups):
        avg = [sum(v) / len(v) for v in groups.values()]
        diffs = [abs(a - b) for n, a in enumerate(avg) for b in avg[n + 1 :]]
        return float(np.average(diffs)) if diffs else float("nan")

    return mad(by_group), mad(per_item)


@pytest.mark.parametrize("seed", range(15))
def test_user_and_item_mad_equal_elliots_definitions(seed, tmp_path):
    log_path, recs_path = generated(seed, tmp_path)
    train, test = split(read_interactions(log_path), "ratio", seed=seed, fraction=0.6)
    rng = np.random.default_rng(seed)
    users = sorted(set(pd.read_csv(log_path, dtype=str).user))
    items = sorted(set(pd.read_csv(recs_path, dtype={"item": str}).item))
    user_group = {u: f"g{int(rng.integers(0, 3))}" for u in users if rng.random() < 0.9}
    item_group = {i: f"p{int(rng.integers(0, 4))}" for i in items if rng.random() < 0.9}
    (tmp_path / "ug.csv").write_text(
        "user,group\n" + "".join(f"{u},{g}\n" for u, g in user_group.items())
    )
    (tmp_path / "ig.csv").write_text(
        "item,group\n" + "".join(f"{i},{g}\n" for i, g in item_group.items())
    )
    ours = evaluate_recommendations(
        test,
        read_recommendations(recs_path),
        [f"user_mad@{K}", f"item_mad@{K}"],
        train=train,
        exclude_train=False,
        user_groups=tmp_path / "ug.csv",
        item_groups=tmp_path / "ig.csv",
    ).table()
    test_df = test.to_arrow().to_pandas()
    recs = pd.read_csv(recs_path, dtype={"user": str, "item": str})
    recs = recs.sort_values(["user", "score"], ascending=[True, False])
    evaluated = set(test_df.user)
    lists = {u: list(g.item) for u, g in recs.groupby("user", sort=False) if u in evaluated}
    user_mad, item_mad = elliot_mad(train, test_df, lists, user_group, item_group)
    assert ours[f"user_mad@{K}"] == pytest.approx(user_mad, rel=1e-12, abs=1e-15)
    assert ours[f"item_mad@{K}"] == pytest.approx(item_mad, rel=1e-12, abs=1e-15)
    assert user_mad > 0 and item_mad > 0  # the groups differ: the check above can fail


@pytest.mark.parametrize("seed", range(10))
def test_exposure_mad_equals_a_list_by_list_computation(seed, tmp_path):
    """Exposure 1/log2(1 + rank) summed list by list over the evaluated users' top-K,
    per user with a list; every training or recommended item counts (never shown: 0)."""
    log_path, recs_path = generated(seed, tmp_path)
    train, test = split(read_interactions(log_path), "ratio", seed=seed, fraction=0.6)
    rng = np.random.default_rng(seed + 100)
    recs = pd.read_csv(recs_path, dtype={"user": str, "item": str})
    recs = recs.sort_values(["user", "score"], ascending=[True, False])
    evaluated = set(test.to_arrow().to_pandas().user)
    lists = {u: list(g.item)[:K] for u, g in recs.groupby("user", sort=False) if u in evaluated}
    items = set(train.to_arrow().to_pandas().item) | {i for ls in lists.values() for i in ls}
    item_group = {i: f"p{int(rng.integers(0, 3))}" for i in sorted(items) if rng.random() < 0.9}
    (tmp_path / "ig.csv").write_text(
        "item,group\n" + "".join(f"{i},{g}\n" for i, g in item_group.items())
    )
    ours = evaluate_recommendations(
        test,
        read_recommendations(recs_path),
        [f"exposure_mad@{K}"],
        train=train,
        exclude_train=False,
        item_groups=tmp_path / "ig.csv",
    ).table()[f"exposure_mad@{K}"]
    exposure = dict.fromkeys(items, 0.0)
    for ranked in lists.values():
        for rank, i in enumerate(ranked, 1):
            exposure[i] += 1 / math.log2(1 + rank)
    users = sum(1 for ranked in lists.values() if ranked)
    by_group: dict[str, list[float]] = {}
    for i, g in item_group.items():
        by_group.setdefault(g, []).append(exposure[i] / users)
    means = [sum(v) / len(v) for v in by_group.values()]
    want = float(np.mean([abs(a - b) for n, a in enumerate(means) for b in means[n + 1 :]]))
    assert ours == pytest.approx(want, rel=1e-12, abs=1e-15)
    assert want > 0  # the groups differ: the check above can fail


def test_exposure_mad_by_hand(tmp_path):
    """Provider P's items are shown first, Q's second, R's never."""
    (tmp_path / "train.csv").write_text("user,item\nu1,a\nu2,b\nu3,c\n")
    (tmp_path / "test.csv").write_text("user,item\nu1,b\nu2,a\n")
    (tmp_path / "recs.csv").write_text("user,item,score\nu1,a,2\nu1,b,1\nu2,a,2\nu2,b,1\n")
    (tmp_path / "ig.csv").write_text("item,group\na,P\nb,Q\nc,R\n")
    ours = evaluate_recommendations(
        read_interactions(tmp_path / "test.csv"),
        read_recommendations(tmp_path / "recs.csv"),
        ["exposure_mad@2"],
        train=read_interactions(tmp_path / "train.csv"),
        exclude_train=False,
        item_groups=tmp_path / "ig.csv",
    ).table()["exposure_mad@2"]
    p, q, r = 1.0, 1 / math.log2(3), 0.0  # (2 users x attention) / 2 users
    assert ours == pytest.approx((abs(p - q) + abs(p - r) + abs(q - r)) / 3, rel=1e-14)


def test_a_user_in_two_groups_is_one_line(tmp_path, cli):
    log_path, recs_path = generated(1, tmp_path)
    (tmp_path / "ug.csv").write_text("user,group\nu1,a\nu1,b\n")
    status, out, err = cli(
        "rec", "eval", log_path, recs_path, "--split", "ratio", "-m", "user_mad@10",
        "--user-groups", tmp_path / "ug.csv",
    )  # fmt: skip
    assert status == 2 and out == "" and err.count("\n") == 1 and "in two groups" in err
