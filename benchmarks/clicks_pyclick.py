"""Click models under PyClick's conventions and cranfield's, on a log of the shape of
PyClick's sample log (docs/clicks.md, "Comparing with PyClick").

    PYTHONPATH=src python benchmarks/clicks_pyclick.py [--sessions 46752] [--queries 4000]
        [--models dctr,pbm,sdbn,dcm,ubm,cm] [--pyclick /path/to/PyClick] [--seed 7]

The log: ``--sessions`` sessions of 10 results, queries with Zipf frequencies (exponent
1.1), each with a pool of 10-25 documents shown in random orders (many rare (query,
document) pairs, as in PyClick's sample), clicks drawn from a DBN (gamma 0.9, random
attractiveness and satisfaction). PyClick's example split: the first 75 % train, the
test sessions are the rest whose query occurs in training. Prints one markdown row per
model and setting: held-out log-likelihood (PyClick's normalisation) and perplexity.

Settings: ``ML, tol 1e-6`` is cranfield before the (1, 2) prior (k / n, EM stopped at a
relative gain of 1e-6 or 100 iterations); ``ML, 50 it.`` plain maximum likelihood with
PyClick's 50 iterations; ``(1, 2), tol 1e-6`` the prior with EM run on to a relative
gain of 1e-6 (or 100 iterations); ``default`` cranfield's defaults, which are PyClick's
conventions (one click in two impressions, 50 EM iterations, EM values capped at
1 - 1e-6). With ``--pyclick`` (a checkout of github.com/markovi/PyClick; slow: pure
Python, about a minute per EM model and 5,000 sessions) PyClick itself is run on the
same split.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from cranfield.clicks import evaluate, fit
from cranfield.clicks.fitted import FittedClickModel
from cranfield.clicks.models import Params
from cranfield.clicks.simulate import shuffled_sessions, simulate

SETTINGS = {
    "ML, tol 1e-6": {"prior": (0, 0), "tol": 1e-6, "max_iter": 100},
    "ML, 50 it.": {"prior": (0, 0), "tol": 0, "max_iter": 50},
    "(1, 2), tol 1e-6": {"tol": 1e-6, "max_iter": 100},
    "default": {},
}


def make_log(n_sessions: int, n_queries: int, seed: int):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(10, 25, n_queries, endpoint=True)
    lists = {f"q{i}": [f"d{i}.{j}" for j in range(k)] for i, k in enumerate(sizes)}
    zipf = 1.0 / np.arange(1, n_queries + 1) ** 1.1
    template = shuffled_sessions(lists, n_sessions, 10, seed=seed, weights=zipf)
    pair_query = np.repeat(np.array(list(lists), dtype=object), sizes)
    pair_doc = np.array([d for docs in lists.values() for d in docs], dtype=object)
    n = len(pair_doc)
    pair = {"attractiveness": rng.beta(0.6, 1.4, n), "satisfaction": rng.beta(1.0, 1.5, n)}
    zeros = np.zeros(n, np.int64)
    truth = FittedClickModel(
        "dbn", Params(pair, {}, {"gamma": 0.9}), pair_query, pair_doc, zeros, zeros,
        frozenset(lists),
    )  # fmt: skip
    return simulate(truth, template, seed=seed + 1)


def pyclick_scores(path: str, name: str, train, test):
    """PyClick's own log-likelihood and perplexity on the same split."""
    sys.path.insert(0, path)
    from pyclick.click_models.CM import CM
    from pyclick.click_models.CTR import DCTR
    from pyclick.click_models.DCM import DCM
    from pyclick.click_models.Evaluation import LogLikelihood, Perplexity
    from pyclick.click_models.PBM import PBM
    from pyclick.click_models.SDBN import SDBN
    from pyclick.click_models.UBM import UBM
    from pyclick.search_session import SearchResult, SearchSession

    def sessions(log):
        out = []
        for i in range(log.n_sessions):
            s = SearchSession(log.query_names[log.query[i]])
            docs, clicks = log.doc_names[log.docs[i]], log.clicks[i]
            s.web_results = [SearchResult(d, int(c)) for d, c in zip(docs, clicks, strict=True)]
            out.append(s)
        return out

    tr = sessions(train)
    known = {s.query for s in tr}
    te = [s for s in sessions(test) if s.query in known]
    model = {"dctr": DCTR, "pbm": PBM, "sdbn": SDBN, "dcm": DCM, "ubm": UBM, "cm": CM}[name]()
    model.train(tr)
    ppl, at = Perplexity().evaluate(model, te)
    return LogLikelihood().evaluate(model, te), ppl, at


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=46752)  # 35,064 train, as PyClick's sample
    ap.add_argument("--queries", type=int, default=4000)
    ap.add_argument("--models", default="dctr,pbm,sdbn,dcm,ubm,cm")
    ap.add_argument("--pyclick", metavar="DIR", help="also run PyClick from this checkout")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    log = make_log(args.sessions, args.queries, args.seed)
    cut = int(log.n_sessions * 0.75)
    train, test = log.subset(np.arange(cut)), log.subset(np.arange(cut, log.n_sessions))
    print(f"{train.n_sessions} training sessions, {test.n_sessions} test sessions\n")
    print("| model | setting | log-likelihood | perplexity | max \\|ppl@r - PyClick's\\| | s |")
    print("|---|---|---|---|---|---|")
    for name in args.models.split(","):
        reference = None
        if args.pyclick:
            t0 = time.perf_counter()
            reference = pyclick_scores(args.pyclick, name, train, test)
            took = time.perf_counter() - t0
            print(f"| {name} | PyClick | {reference[0]:.6f} | {reference[1]:.6f} | | {took:.1f} |")
        for label, options in SETTINGS.items():
            t0 = time.perf_counter()
            e = evaluate(fit(train, name, **options), test)
            took = time.perf_counter() - t0
            diff = ""
            if reference is not None:
                diff = f"{max(abs(a - b) for a, b in zip(e.perplexity_at, reference[2], strict=True)):.1e}"
            print(
                f"| {name} | {label} | {e.log_likelihood:.6f} | {e.perplexity:.6f} | {diff} "
                f"| {took:.1f} |"
            )


if __name__ == "__main__":
    main()
