"""Interleaving: hand-computed lists and credits, properties, statistics (fixed seeds)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from cranfield.errors import ParameterError
from cranfield.online.interleaving import (
    METHODS,
    Interleaved,
    balanced,
    credit,
    impressions_for_power,
    interleave,
    multileave,
    outcome_test,
    power,
    preferences,
    probabilistic,
    team_draft,
)


def rows_of(inter):
    return [
        (tuple(d[d >= 0].tolist()), tuple(t[d >= 0].tolist()))
        for d, t in zip(inter.docs, inter.team, strict=True)
    ]


# ------------------------------------------------------------------ team-draft
def test_team_draft_hand_enumerated_lists_each_one_quarter():
    # A = 1 2 3, B = 2 3 4. Round 1: a coin orders A and B (A takes 1, B takes 2);
    # round 2: if A first it takes 3 and B takes 4; if B first B takes 3 and A, used up,
    # leaves the last pick to B (4).
    expected = {
        ((1, 2, 3, 4), (0, 1, 0, 1)),
        ((1, 2, 3, 4), (0, 1, 1, 1)),
        ((2, 1, 3, 4), (1, 0, 0, 1)),
        ((2, 1, 3, 4), (1, 0, 1, 1)),
    }
    inter = team_draft([[1, 2, 3], [2, 3, 4]], depth=4, impressions=4000, seed=3)
    got = rows_of(inter)
    assert set(got) == expected
    for e in expected:  # each 1/4: within 4 standard deviations
        assert abs(got.count(e) / 4000 - 0.25) < 4 * math.sqrt(0.25 * 0.75 / 4000)


def test_team_draft_credit_by_team():
    inter = team_draft([[1, 2, 3], [2, 3, 4]], depth=4, impressions=200, seed=1)
    clicks = np.zeros(inter.docs.shape, dtype=bool)
    clicks[:, [0, 2]] = True
    cr = credit(inter, clicks)
    for (_docs, team), c, o in zip(rows_of(inter), cr.credits, cr.outcome, strict=True):
        a = (team[0] == 0) + (team[2] == 0)
        assert c.tolist() == [a, 2 - a]
        assert o == np.sign(a - (2 - a))


def test_team_draft_teams_stay_balanced_and_first_pick_is_fair():
    rng = np.random.default_rng(5)
    ranks = np.stack([rng.permutation(30)[:10] for _ in range(400)]).reshape(200, 2, 10)
    inter = team_draft(ranks, depth=10, seed=2)
    counts = np.stack([(inter.team == s).sum(axis=1) for s in range(2)], axis=1)
    assert (np.abs(counts[:, 0] - counts[:, 1]) <= 1).all()
    first_a = (inter.team[:, 0] == 0).mean()
    assert abs(first_a - 0.5) < 4 * math.sqrt(0.25 / 200)
    # a team's documents appear in that ranker's order
    for d, t, (ra, rb) in zip(inter.docs, inter.team, ranks, strict=True):
        for s, r in ((0, ra), (1, rb)):
            pos = [list(r).index(x) for x in d[t == s]]
            assert pos == sorted(pos)


def test_multileave_three_rankers_each_round_a_permutation():
    inter = multileave([[1, 2], [3, 4], [5, 6]], depth=6, impressions=3000, seed=4)
    assert sorted(inter.docs[0].tolist()) == [1, 2, 3, 4, 5, 6]
    first = inter.docs[:, :3]
    assert (np.sort(first, axis=1) == [1, 3, 5]).all()
    assert (np.sort(inter.docs[:, 3:], axis=1) == [2, 4, 6]).all()
    assert (inter.team == (inter.docs - 1) // 2).all()
    share = np.bincount(inter.team[:, 0], minlength=3) / 3000
    assert np.abs(share - 1 / 3).max() < 4 * math.sqrt(2 / 9 / 3000)
    clicks = inter.docs == 1
    cr = credit(inter, clicks)
    assert cr.credits.tolist() == [[1, 0, 0]] * 3000
    pref = preferences(cr.credits)
    assert pref.tolist() == [[0, 1, 1], [0, 0, 0], [0, 0, 0]]


# ------------------------------------------------------------------ balanced
def test_balanced_hand_computed_lists_and_credit():
    # Joachims (2002)'s procedure by hand: A = a b c d, B = b e a f, A first:
    # a (A1), b (B1), A2 = b taken, e (B2), c (A3), B3 = a taken, d (A4), f (B4).
    a, b, c, d, e, f = range(6)
    inter = balanced([[a, b, c, d], [b, e, a, f]], depth=6, impressions=400, seed=0)
    got = set(map(tuple, inter.docs.tolist()))
    # B first: b (B1), a (A1), e (B2), A2 = b taken, B3 = a taken, c (A3), f (B4), d (A4)
    assert got == {(a, b, e, c, d, f), (b, a, e, c, f, d)}
    share = (inter.docs[:, 0] == a).mean()
    assert abs(share - 0.5) < 4 * math.sqrt(0.25 / 400)
    # clicks on b and e: the lowest click is e, rank 2 in B (absent from A): k = 2;
    # h_A = clicked in {a, b} = 1, h_B = clicked in {b, e} = 2: B wins
    clicks = np.isin(inter.docs, [b, e])
    cr = credit(inter, clicks)
    assert cr.credits.tolist() == [[1, 2]] * 400
    assert (cr.outcome == -1).all()
    # a click on a alone: lowest click a, rank 1 in A, 3 in B: k = 1, h_A = 1, h_B = 0
    cr = credit(inter, inter.docs == a)
    assert (cr.outcome == 1).all()


def test_balanced_prefix_covers_both_prefixes():
    rng = np.random.default_rng(7)
    ranks = np.stack([rng.permutation(12)[:8] for _ in range(120)]).reshape(60, 2, 8)
    inter = balanced(ranks, depth=8, seed=9)
    for docs, (ra, rb) in zip(inter.docs, ranks, strict=True):
        for j in range(1, 9):
            top = set(docs[:j].tolist())
            assert any(
                top == set(ra[:ka].tolist()) | set(rb[:kb].tolist())
                for ka in range(9)
                for kb in range(max(0, ka - 1), min(8, ka + 1) + 1)
            )


def test_balanced_shorter_list_lets_the_other_go_on():
    inter = balanced([[1, -1, -1], [2, 3, 4]], depth=4, impressions=50, seed=0)
    assert set(map(tuple, inter.docs.tolist())) == {(1, 2, 3, 4), (2, 1, 3, 4)}


# ------------------------------------------------------------------ probabilistic
def test_probabilistic_hand_computed_posterior_and_marginalised_credit():
    # A = 1 2, B = 2 1; softmax (tau = 3): rank 1 -> 8/9, rank 2 -> 1/9.
    inter = probabilistic([[1, 2], [2, 1]], depth=2, impressions=4000, seed=11)
    first_one = inter.docs[:, 0] == 1
    assert abs(first_one.mean() - 0.5) < 4 * math.sqrt(0.25 / 4000)
    # list 1 2: P(a_1 = A | L) = (8/9) / (8/9 + 1/9); the last document: 1/2
    np.testing.assert_allclose(inter.prob_a[first_one], [[8 / 9, 0.5]] * first_one.sum())
    np.testing.assert_allclose(inter.prob_a[~first_one], [[1 / 9, 0.5]] * (~first_one).sum())
    clicks = np.zeros((4000, 2), dtype=bool)
    clicks[:, 0] = True
    cr = credit(inter, clicks)
    # one click at the top of list 1 2: P(A) = 8/9, P(B) = 1/9
    np.testing.assert_allclose(cr.score[first_one], 7 / 9)
    np.testing.assert_allclose(cr.score[~first_one], -7 / 9)
    # two clicks: c_A = Bern(8/9) + Bern(1/2); A wins iff c_A = 2 (4/9), B iff 0 (1/18)
    cr = credit(inter, np.ones((4000, 2), dtype=bool))
    np.testing.assert_allclose(cr.score[first_one], 4 / 9 - 1 / 18)
    np.testing.assert_allclose(
        cr.credits[first_one], [[8 / 9 + 0.5, 1 / 9 + 0.5]] * first_one.sum()
    )


def _softmax_prob(ranking, doc, removed, tau=3.0):
    w = {d: (i + 1) ** -tau for i, d in enumerate(ranking) if d not in removed}
    return w.get(doc, 0.0) / sum(w.values()) if w else None


def test_probabilistic_marginalisation_matches_brute_force_enumeration():
    # every assignment a in {A, B}^K: P(L | a) from the generative process, P(a) = 2^-K;
    # the expected outcome over the posterior equals the factorised credit
    rng = np.random.default_rng(13)
    ranks = np.stack([rng.permutation(7)[:5] for _ in range(40)]).reshape(20, 2, 5)
    inter = probabilistic(ranks, depth=4, seed=1)
    clicks = rng.random(inter.docs.shape) < 0.5
    cr = credit(inter, clicks)
    for i in range(20):
        docs = inter.docs[i].tolist()
        num = den = 0.0
        for a in itertools.product((0, 1), repeat=4):
            p = 1.0
            for r, s in enumerate(a):
                removed = set(docs[:r])
                ps = _softmax_prob(ranks[i, s], docs[r], removed)
                if ps is None or not any(d not in removed for d in ranks[i, s]):
                    ps = _softmax_prob(ranks[i, 1 - s], docs[r], removed)
                p *= ps
            ca = sum(1 for r in range(4) if clicks[i, r] and a[r] == 0)
            cb = sum(1 for r in range(4) if clicks[i, r] and a[r] == 1)
            num += p * np.sign(ca - cb)
            den += p
        assert cr.score[i] == pytest.approx(num / den, abs=1e-12)


def test_probabilistic_first_document_distribution():
    # P(first = d) = (P_A(d) + P_B(d)) / 2 with the rank^-3 softmax
    inter = probabilistic([[1, 2, 3], [3, 2, 1]], depth=1, impressions=20000, seed=5)
    z = 1 + 1 / 8 + 1 / 27
    want = {1: (1 + 1 / 27) / 2 / z, 2: (1 / 8) / z, 3: (1 + 1 / 27) / 2 / z}
    for d, p in want.items():
        got = (inter.docs[:, 0] == d).mean()
        assert abs(got - p) < 4 * math.sqrt(p * (1 - p) / 20000)


# ------------------------------------------------------------------ all methods
@pytest.mark.parametrize("method", METHODS)
def test_identical_rankers_no_preference(method):
    r = [0, 1, 2, 3, 4, 5, 6, 7]
    inter = interleave(method, [r, r], depth=8, impressions=3000, seed=21)
    if method == "probabilistic":  # a random order, drawn from the one softmax
        assert (np.sort(inter.docs, axis=1) == r).all()
    else:
        assert (inter.docs == r).all()
    clicks = np.random.default_rng(1).random(inter.docs.shape) < 0.3
    cr = credit(inter, clicks)
    if method == "team-draft":  # credit split by the coins: no preference in expectation
        res = outcome_test(cr.outcome)
        assert res["p_value"] > 0.01
        assert res["wins_a"] > 0 and res["wins_b"] > 0
    else:  # balanced: h_A = h_B; probabilistic: every posterior 1/2
        assert (cr.outcome == 0).all()


@pytest.mark.parametrize("method", METHODS)
def test_better_ranker_wins_with_simulated_clicks(method):
    # clicks on relevant documents (0..3) only, examined top-down with decaying probability
    good, bad = [0, 1, 2, 3, 8, 9, 10, 11], [8, 9, 0, 10, 11, 1, 2, 3]
    inter = interleave(method, [good, bad], depth=8, impressions=2000, seed=8)
    rng = np.random.default_rng(2)
    exam = rng.random(inter.docs.shape) < 1 / np.arange(1, 9)
    clicks = exam & (inter.docs < 4) & (inter.docs >= 0)
    res = outcome_test(credit(inter, clicks).outcome)
    assert res["wins_a"] > res["wins_b"]
    assert res["p_value"] < 1e-6
    assert res["ci"][0] > 0.5


@pytest.mark.parametrize("method", METHODS)
def test_seeded_and_deterministic(method):
    r = [[0, 1, 2, 3, 4], [4, 2, 0, 5, 6]]
    one = interleave(method, r, depth=5, impressions=50, seed=123)
    two = interleave(method, r, depth=5, impressions=50, seed=123)
    other = interleave(method, r, depth=5, impressions=50, seed=124)
    assert (one.docs == two.docs).all() and (one.team == two.team).all()
    assert not ((one.docs == other.docs).all() and (one.team == other.team).all())


@pytest.mark.parametrize("method", METHODS)
def test_no_document_twice_and_only_ranked_documents(method):
    rng = np.random.default_rng(3)
    ranks = np.stack([rng.permutation(15)[:6] for _ in range(200)]).reshape(100, 2, 6)
    ranks[::3, 1, 4:] = -1  # some shorter lists
    inter = interleave(method, ranks, depth=10, seed=0)
    for d, (ra, rb) in zip(inter.docs, ranks, strict=True):
        shown = d[d >= 0]
        assert len(set(shown.tolist())) == len(shown)
        assert set(shown.tolist()) <= (set(ra.tolist()) | set(rb.tolist())) - {-1}
        assert (d[len(shown) :] == -1).all()
        union = (set(ra.tolist()) | set(rb.tolist())) - {-1}
        assert len(shown) == min(10, len(union))  # no position left empty while documents remain


def test_bad_parameters():
    with pytest.raises(ParameterError):
        team_draft([[1, 1], [2, 3]])
    with pytest.raises(ParameterError):
        team_draft([[1, -1, 2], [2, 3, 4]])
    with pytest.raises(ParameterError):
        balanced([[1, 2], [2, 3], [3, 4]])
    with pytest.raises(ParameterError):
        interleave("bogus", [[1], [2]])
    with pytest.raises(ParameterError):
        team_draft([[1.5, 2], [2, 3]])
    inter = team_draft([[1], [2]], depth=3, impressions=2, seed=0)
    with pytest.raises(ParameterError):
        credit(inter, np.ones((2, 3), dtype=bool))  # a click on padding


def test_interleaved_exposes_ranks():
    inter = team_draft([[1, 2], [2, 3]], depth=3, impressions=1, seed=0)
    assert isinstance(inter, Interleaved)
    for k, d in enumerate(inter.docs[0]):
        assert inter.ranks[0, 0, k] == ([1, 2].index(d) + 1 if d in (1, 2) else 0)
        assert inter.ranks[0, 1, k] == ([2, 3].index(d) + 1 if d in (2, 3) else 0)


# ------------------------------------------------------------------ outcome test, power
def test_outcome_test_matches_scipy_binomtest():
    rng = np.random.default_rng(0)
    for _ in range(30):
        o = rng.choice([-1, 0, 1], size=int(rng.integers(1, 300)), p=rng.dirichlet([1, 1, 1]))
        res = outcome_test(o, 0.9)
        wa, wb = int((o == 1).sum()), int((o == -1).sum())
        assert (res["wins_a"], res["wins_b"], res["ties"]) == (wa, wb, o.size - wa - wb)
        assert res["delta"] == pytest.approx((wa + res["ties"] / 2) / o.size - 0.5)
        if wa + wb == 0:
            assert res["p_value"] == 1.0 and res["ci"] is None
            continue
        ref = stats.binomtest(wa, wa + wb, 0.5)
        assert res["p_value"] == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-15)
        ci = ref.proportion_ci(0.9, method="exact")
        assert res["ci"] == pytest.approx([ci.low, ci.high], rel=1e-9, abs=1e-12)


def test_impressions_for_power_close_to_normal_approximation():
    pa, pb = 0.3, 0.2
    n = impressions_for_power(pa, pb, 0.8, 0.05, seed=0)
    assert power(pa, pb, n, 0.05, 2000, 0) >= 0.8
    assert power(pa, pb, int(n * 0.8), 0.05, 2000, 0) < 0.8
    # normal approximation: decisive share f, A's share p among them
    f, p = pa + pb, pa / (pa + pb)
    z = stats.norm.ppf(0.975) * 0.5 + stats.norm.ppf(0.8) * math.sqrt(p * (1 - p))
    approx = (z / (p - 0.5)) ** 2 / f
    assert abs(n / approx - 1) < 0.15
    assert impressions_for_power(0.2, 0.2, seed=0, max_impressions=10_000) is None
    assert impressions_for_power(0.0, 0.0) is None


@pytest.mark.parametrize("method", METHODS)
def test_impressions_naming_ranking_sets_equal_repeated_sets(method):
    rng = np.random.default_rng(4)
    sets = np.stack([rng.permutation(9)[:6] for _ in range(6)]).reshape(3, 2, 6)
    which = np.array([2, 0, 0, 1, 2, 2, 1])
    one = interleave(method, sets, 5, which, seed=3)
    two = interleave(method, sets[which], 5, None, seed=3)
    assert (one.docs == two.docs).all() and (one.team == two.team).all()
    assert (one.ranks == two.ranks).all()
    with pytest.raises(ParameterError):
        interleave(method, sets, 5, np.array([0, 3]))


def test_sign_test_from_counts_and_bad_counts():
    from cranfield.online.interleaving import sign_test

    assert sign_test(7, 3, 5) == outcome_test(np.array([1] * 7 + [-1] * 3 + [0] * 5))
    for bad in ((-1, 2, 0), (1.5, 2, 0), (True, 2, 0)):
        with pytest.raises(ParameterError):
            sign_test(*bad)
    with pytest.raises(ParameterError):
        outcome_test(np.array([2, 0]))


def _team_draft_one_by_one(sets, depth, seed):
    """Team-draft (multileaving) impression by impression, as Radlinski, Kurup & Joachims
    (2008) and Schuth et al. (2014) state it: of the rankers with a document left, those
    that contributed fewest pick first, in the order of a fresh random key each; a pick
    is the ranker's highest-ranked document not in the list. The keys are drawn as
    :func:`team_draft` draws them (one ``n x R`` matrix per position, while any list
    grows), so the two must agree exactly."""
    rng = np.random.default_rng(seed)
    n, r, _ = sets.shape
    lists = [[] for _ in range(n)]
    teams = [[] for _ in range(n)]
    counts = np.zeros((n, r), dtype=int)
    for _ in range(depth):
        left = [
            [[d for d in sets[i, k] if d >= 0 and d not in lists[i]] for k in range(r)]
            for i in range(n)
        ]
        if not any(any(row) for row in left):
            break
        keys = rng.random((n, r))
        for i in range(n):
            with_docs = [k for k in range(r) if left[i][k]]
            if not with_docs:
                continue
            fewest = min(counts[i, k] for k in with_docs)
            s = min((k for k in with_docs if counts[i, k] == fewest), key=lambda k: keys[i, k])
            lists[i].append(left[i][s][0])
            teams[i].append(s)
            counts[i, s] += 1
    return lists, teams


@pytest.mark.parametrize("rankers", [2, 3])
def test_team_draft_is_the_one_by_one_algorithm(rankers):
    """The engine's team-draft gives, impression by impression, the lists and teams of
    the algorithm run one impression at a time with the same random keys (overlapping
    rankings, shorter lists, more positions than documents)."""
    rng = np.random.default_rng(39 + rankers)
    sets = np.stack([rng.permutation(12)[:7] for _ in range(150 * rankers)])
    sets = sets.reshape(150, rankers, 7)
    sets[::4, 0, 5:] = -1
    sets[1::5, -1, 2:] = -1
    got = team_draft(sets, depth=9, seed=7)
    lists, teams = _team_draft_one_by_one(sets, 9, 7)
    for i in range(150):
        shown = got.docs[i] >= 0
        assert got.docs[i][shown].tolist() == lists[i]
        assert got.team[i][shown].tolist() == teams[i]
