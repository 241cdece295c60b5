"""The click models of Chuklin, Markov & de Rijke (2015), *Click Models for Web Search*,
ch. 3, each declared once (:class:`~.registry.ClickModel`): its definition, fitted
parameters, source, estimation (:mod:`~.estimate`), click probabilities and draws.

Notation as in :mod:`cranfield.clicks.models`; ``m`` is a model's parameters laid out
over a log (:class:`~.models.Matrices`).
"""

from __future__ import annotations

from .._lazy import lazy
from . import estimate
from .models import DEFAULT, Matrices, Params, chain, previous_click
from .registry import BOOK, CLICK_MODELS, ClickModel, probability

np = lazy("numpy", __name__, "np")

_ATTRACTIVENESS = probability("attractiveness", "alpha_qd, one per (query, document)")
_SATISFACTION = probability("satisfaction", "sigma_qd")

register = CLICK_MODELS.register


# ------------------------------------------------------------------ click-through rates
register(
    ClickModel(
        "gctr",
        estimate.fit_gctr,
        "Global click-through rate: every rank of every session is clicked alike. Closed "
        "form: clicks / impressions.",
        "P(C_r = 1) = rho for every rank and document",
        BOOK + ", sec. 3.1",
        params=(probability("ctr", "rho, one probability"),),
        label="global click-through rate",
        estimation="closed form",
        layout={"ctr": "global"},
        probabilities=lambda m, conditional: m.scalar("ctr"),
    )
)
register(
    ClickModel(
        "rctr",
        estimate.fit_rctr,
        "Rank-based click-through rate: a click depends on the rank only. Closed form per rank.",
        "P(C_r = 1) = rho_r",
        BOOK + ", sec. 3.1",
        params=(probability("ctr", "rho_r, one per rank"),),
        label="rank-based click-through rate",
        estimation="closed form",
        layout={"ctr": "rank"},
        probabilities=lambda m, conditional: m.rank("ctr"),
    )
)
register(
    ClickModel(
        "dctr",
        estimate.fit_dctr,
        "Document-based click-through rate: a click depends on the document only. Closed "
        "form per (q, d).",
        "P(C_r = 1) = rho_qd",
        BOOK + ", sec. 3.1",
        params=(probability("attractiveness", "rho_qd, one per (query, document)"),),
        label="document-based click-through rate",
        estimation="closed form",
        layout={"attractiveness": "pair"},
        probabilities=lambda m, conditional: m.pair["attractiveness"],
    )
)


# ------------------------------------------------------------------ PBM
def _pbm_from_qrels(alpha, position_bias, gamma, max_rank) -> Params:
    """Examination ``1 / r^position_bias`` (a power-law position bias)."""
    examination = 1.0 / np.arange(1, max_rank + 1) ** float(position_bias)
    return Params({"attractiveness": alpha}, {"examination": examination})


register(
    ClickModel(
        "pbm",
        estimate.fit_pbm,
        "Position-based model: a document is clicked if examined and attractive, "
        "examination depending on the rank only. EM.",
        "P(C_r = 1) = alpha_qd * gamma_r (examination depends on the rank only)",
        "Craswell, Zoeter, Taylor & Ramsey (2008), WSDM; " + BOOK + ", sec. 3.2",
        params=(_ATTRACTIVENESS, probability("examination", "gamma_r, one per rank")),
        label="position-based model",
        estimation="EM",
        layout={"attractiveness": "pair", "examination": "rank"},
        probabilities=lambda m, conditional: m.pair["attractiveness"] * m.rank("examination"),
        from_qrels=_pbm_from_qrels,
        em=estimate.PBM_EM,
    )
)


# ------------------------------------------------------------------ cascade
CM_NOTE = (
    "cm allows one click per session: its log-likelihood depends on how later clicks are "
    "scored (PyClick's differs); compare it by perplexity"
)

register(
    ClickModel(
        "cm",
        estimate.fit_cm,
        "Cascade model: the user scans down and stops at the first click. Closed form: "
        "first clicks / impressions at or above the first click.",
        "E_1 = 1; E_{r+1} = 1 iff E_r = 1 and C_r = 0; P(C_r = 1 | E_r = 1) = alpha_qd, so "
        "P(first click at r) = prod_{j<r}(1 - alpha_j) alpha_r",
        "Craswell, Zoeter, Taylor & Ramsey (2008), WSDM; " + BOOK + ", sec. 3.3",
        params=(_ATTRACTIVENESS,),
        aliases=("cascade",),
        label="cascade model",
        estimation="closed form",
        layout={"attractiveness": "pair"},
        **chain(lambda m: (m.pair["attractiveness"], np.zeros((m.n, m.k)), np.ones((m.n, m.k)))),
        from_qrels=lambda alpha, *_: Params({"attractiveness": alpha}),
        note=CM_NOTE,
    )
)


# ------------------------------------------------------------------ UBM
def _ubm_gamma(m: Matrices) -> np.ndarray:
    """UBM's ``gamma_{r r'}`` as a ``K x (K + 1)`` matrix: ranks beyond the fitted ones
    take the last fitted row, previous-click ranks beyond them :data:`~.models.DEFAULT`."""
    g = m.params.rank["examination"]
    if g.shape[0] < m.k:  # extend rows (ranks) with the last row, columns with zeros' row
        extra = np.repeat(g[-1:, :], m.k - g.shape[0], axis=0)
        g = np.concatenate([g, extra], axis=0)
    g = g[: m.k]
    if g.shape[1] < m.k + 1:
        g = np.concatenate([g, np.full((m.k, m.k + 1 - g.shape[1]), DEFAULT)], axis=1)
    return g[:, : m.k + 1]


def _ubm_probabilities(m: Matrices, conditional: bool) -> np.ndarray:
    g = _ubm_gamma(m)
    a = m.pair["attractiveness"]
    if conditional:
        prev = previous_click(m.clicks)
        return a * g[np.arange(m.k)[None, :], prev]
    # the distribution of the previous click rank r' (0..K), rank by rank
    dist = np.zeros((m.n, m.k + 1))
    dist[:, 0] = 1.0
    p = np.zeros((m.n, m.k))
    for r in range(m.k):
        click = a[:, r : r + 1] * g[r][None, :] * dist  # P(r' = j and click)
        p[:, r] = click.sum(axis=1)
        dist = dist - click
        dist[:, r + 1] += p[:, r]
    return p


def _ubm_draw(m: Matrices, rng) -> np.ndarray:
    """Rank by rank, with ``gamma`` indexed by the last click drawn."""
    g = _ubm_gamma(m)
    a = m.pair["attractiveness"]
    clicks = np.zeros((m.n, m.k), dtype=bool)
    prev = np.zeros(m.n, dtype=np.int64)
    for r in range(m.k):
        clicks[:, r] = m.shown[:, r] & (rng.random(m.n) < a[:, r] * g[r, prev])
        prev = np.where(clicks[:, r], r + 1, prev)
    return clicks


register(
    ClickModel(
        "ubm",
        estimate.fit_ubm,
        "User browsing model: examination depends on the rank and on the rank of the "
        "previous click. EM.",
        "P(C_r = 1 | C_<r) = alpha_qd * gamma_{r r'}, r' the rank of the previous click "
        "(0 if none)",
        "Dupret & Piwowarski (2008), SIGIR; " + BOOK + ", sec. 3.4",
        params=(
            _ATTRACTIVENESS,
            probability("examination", "gamma_{r r'}, rank x previous-click rank"),
        ),
        label="user browsing model",
        estimation="EM",
        layout={"attractiveness": "pair", "examination": "rank"},
        probabilities=_ubm_probabilities,
        draw=_ubm_draw,
        em=estimate.UBM_EM,
    )
)


# ------------------------------------------------------------------ DCM
register(
    ClickModel(
        "dcm",
        estimate.fit_dcm,
        "Dependent click model: a cascade with several clicks, going on after a click "
        "with a probability per rank. Closed form, the book's approximate MLE: alpha_qd = "
        "clicks / impressions at or above the last click; lambda_r = (clicks at r that "
        "are not the session's last) / (clicks at r).",
        "cascade with several clicks: after a click at r the user goes on with lambda_r, "
        "after a skip always: P(E_{r+1}=1 | C_r=1) = lambda_r, P(E_{r+1}=1 | E_r=1, C_r=0) = 1",
        "Guo, Liu & Wang (2009), WSDM; " + BOOK + ", sec. 3.5",
        params=(_ATTRACTIVENESS, probability("continuation", "lambda_r, one per rank")),
        label="dependent click model",
        estimation="closed form (approximate MLE)",
        layout={"attractiveness": "pair", "continuation": "rank"},
        **chain(lambda m: (m.pair["attractiveness"], m.rank("continuation"), np.ones((m.n, m.k)))),
    )
)


# ------------------------------------------------------------------ CCM
def _ccm_terms(m: Matrices):
    a = m.pair["attractiveness"]
    t1, t2, t3 = (m.scalar(t) for t in ("tau1", "tau2", "tau3"))
    return a, t2 * (1 - a) + t3 * a, t1


register(
    ClickModel(
        "ccm",
        estimate.fit_ccm,
        "Click chain model: going on after a skip, or after a click depending on the "
        "clicked document's attractiveness. EM.",
        "after a skip go on with tau1; after a click go on with tau2 (1 - alpha_qd) + "
        "tau3 alpha_qd",
        "Guo, Liu, Kannan, Minka, Taylor, Wang & Faloutsos (2009), WWW; " + BOOK + ", sec. 3.6",
        params=(
            _ATTRACTIVENESS,
            probability("tau1", "after a skip"),
            probability("tau2", "after a click, unattractive part"),
            probability("tau3", "after a click, attractive part"),
        ),
        label="click chain model",
        estimation="EM",
        layout={"attractiveness": "pair", "tau1": "global", "tau2": "global", "tau3": "global"},
        **chain(_ccm_terms),
        em=estimate.CCM_EM,
    )
)


# ------------------------------------------------------------------ DBN, SDBN
def _dbn_terms(m: Matrices):
    g = m.scalar("gamma")
    return m.pair["attractiveness"], g * (1 - m.pair["satisfaction"]), g


def _dbn_from_qrels(alpha, position_bias, gamma, max_rank) -> Params:
    """Satisfaction as attractiveness; the user goes on with ``gamma``."""
    return Params(
        {"attractiveness": alpha, "satisfaction": alpha.copy()}, scalar={"gamma": float(gamma)}
    )


register(
    ClickModel(
        "dbn",
        estimate.fit_dbn,
        "Dynamic Bayesian network model: after a click the user may be satisfied and "
        "stop; otherwise goes on with a constant probability. EM.",
        "after a click the user is satisfied with sigma_qd and stops; otherwise goes on "
        "with gamma: P(E_{r+1}=1 | E_r=1) = gamma (1 - C_r sigma_qd)",
        "Chapelle & Zhang (2009), WWW; " + BOOK + ", sec. 3.7",
        params=(_ATTRACTIVENESS, _SATISFACTION, probability("gamma", "continuation")),
        label="dynamic Bayesian network model",
        estimation="EM",
        layout={"attractiveness": "pair", "satisfaction": "pair", "gamma": "global"},
        **chain(_dbn_terms),
        from_qrels=_dbn_from_qrels,
        em=estimate.DBN_EM,
    )
)
register(
    ClickModel(
        "sdbn",
        estimate.fit_sdbn,
        "Simplified dynamic Bayesian network model: DBN whose user goes on until satisfied. "
        "Closed form: alpha_qd as DCM's, sigma_qd = last clicks / clicks.",
        "DBN with gamma = 1: the user goes on until satisfied",
        "Chapelle & Zhang (2009), WWW; " + BOOK + ", sec. 3.7",
        params=(_ATTRACTIVENESS, _SATISFACTION),
        label="simplified dynamic Bayesian network model",
        estimation="closed form",
        layout={"attractiveness": "pair", "satisfaction": "pair"},
        **chain(
            lambda m: (m.pair["attractiveness"], 1 - m.pair["satisfaction"], np.ones((m.n, m.k)))
        ),
        from_qrels=lambda alpha, *_: Params(
            {"attractiveness": alpha, "satisfaction": alpha.copy()}
        ),
    )
)
