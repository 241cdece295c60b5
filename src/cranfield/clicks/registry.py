"""The click-model registry: each model declared once, with its definition and source.

Notation as in :mod:`cranfield.clicks.models`. ``cranfield clicks models`` and
docs/clicks.md print this table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..errors import ParameterError
from . import estimate

BOOK = "Chuklin, Markov & de Rijke (2015), Click Models for Web Search, Morgan & Claypool"


@dataclass(frozen=True)
class ClickModelDef:
    """One click model: name, definition, parameters, estimation and reference."""

    name: str
    title: str
    definition: str
    parameters: dict[str, str]
    estimation: str  # "closed form" or "EM"
    reference: str
    fit: Callable
    aliases: tuple[str, ...] = ()
    from_qrels: bool = False  # clicks.simulate.from_qrels can build it from judgments


_DEFS = [
    ClickModelDef(
        "gctr",
        "global click-through rate",
        "P(C_r = 1) = rho for every rank and document",
        {"ctr": "rho, one probability"},
        "closed form",
        BOOK + ", sec. 3.1",
        estimate.fit_gctr,
    ),
    ClickModelDef(
        "rctr",
        "rank-based click-through rate",
        "P(C_r = 1) = rho_r",
        {"ctr": "rho_r, one per rank"},
        "closed form",
        BOOK + ", sec. 3.1",
        estimate.fit_rctr,
    ),
    ClickModelDef(
        "dctr",
        "document-based click-through rate",
        "P(C_r = 1) = rho_qd",
        {"attractiveness": "rho_qd, one per (query, document)"},
        "closed form",
        BOOK + ", sec. 3.1",
        estimate.fit_dctr,
    ),
    ClickModelDef(
        "pbm",
        "position-based model",
        "P(C_r = 1) = alpha_qd * gamma_r (examination depends on the rank only)",
        {"attractiveness": "alpha_qd", "examination": "gamma_r, one per rank"},
        "EM",
        "Craswell, Zoeter, Taylor & Ramsey (2008), WSDM; " + BOOK + ", sec. 3.2",
        estimate.fit_pbm,
        from_qrels=True,
    ),
    ClickModelDef(
        "cm",
        "cascade model",
        "E_1 = 1; E_{r+1} = 1 iff E_r = 1 and C_r = 0; P(C_r = 1 | E_r = 1) = alpha_qd, so "
        "P(first click at r) = prod_{j<r}(1 - alpha_j) alpha_r",
        {"attractiveness": "alpha_qd"},
        "closed form",
        "Craswell, Zoeter, Taylor & Ramsey (2008), WSDM; " + BOOK + ", sec. 3.3",
        estimate.fit_cm,
        aliases=("cascade",),
        from_qrels=True,
    ),
    ClickModelDef(
        "ubm",
        "user browsing model",
        "P(C_r = 1 | C_<r) = alpha_qd * gamma_{r r'}, r' the rank of the previous click (0 if none)",
        {"attractiveness": "alpha_qd", "examination": "gamma_{r r'}, rank x previous-click rank"},
        "EM",
        "Dupret & Piwowarski (2008), SIGIR; " + BOOK + ", sec. 3.4",
        estimate.fit_ubm,
    ),
    ClickModelDef(
        "dcm",
        "dependent click model",
        "cascade with several clicks: after a click at r the user goes on with lambda_r, "
        "after a skip always: P(E_{r+1}=1 | C_r=1) = lambda_r, P(E_{r+1}=1 | E_r=1, C_r=0) = 1",
        {"attractiveness": "alpha_qd", "continuation": "lambda_r, one per rank"},
        "closed form (approximate MLE)",
        "Guo, Liu & Wang (2009), WSDM; " + BOOK + ", sec. 3.5",
        estimate.fit_dcm,
    ),
    ClickModelDef(
        "ccm",
        "click chain model",
        "after a skip go on with tau1; after a click go on with tau2 (1 - alpha_qd) + tau3 alpha_qd",
        {
            "attractiveness": "alpha_qd",
            "tau1": "after a skip",
            "tau2": "after a click, unattractive part",
            "tau3": "after a click, attractive part",
        },
        "EM",
        "Guo, Liu, Kannan, Minka, Taylor, Wang & Faloutsos (2009), WWW; " + BOOK + ", sec. 3.6",
        estimate.fit_ccm,
    ),
    ClickModelDef(
        "dbn",
        "dynamic Bayesian network model",
        "after a click the user is satisfied with sigma_qd and stops; otherwise goes on with "
        "gamma: P(E_{r+1}=1 | E_r=1) = gamma (1 - C_r sigma_qd)",
        {"attractiveness": "alpha_qd", "satisfaction": "sigma_qd", "gamma": "continuation"},
        "EM",
        "Chapelle & Zhang (2009), WWW; " + BOOK + ", sec. 3.7",
        estimate.fit_dbn,
        from_qrels=True,
    ),
    ClickModelDef(
        "sdbn",
        "simplified dynamic Bayesian network model",
        "DBN with gamma = 1: the user goes on until satisfied",
        {"attractiveness": "alpha_qd", "satisfaction": "sigma_qd"},
        "closed form",
        "Chapelle & Zhang (2009), WWW; " + BOOK + ", sec. 3.7",
        estimate.fit_sdbn,
        from_qrels=True,
    ),
]

REGISTRY: dict[str, ClickModelDef] = {d.name: d for d in _DEFS}
NAMES = tuple(REGISTRY)
_BY_NAME = {n: d for d in _DEFS for n in (d.name, *d.aliases)}


def spellings(defs=_DEFS) -> tuple[str, ...]:
    """Every name and alias of ``defs`` (default: all models), in registry order: the
    choices a command accepts."""
    return tuple(n for d in defs for n in (d.name, *d.aliases))


def get(name: str, among=None) -> ClickModelDef:
    """The model named ``name`` or one of its aliases (case-insensitive), or a
    :class:`ParameterError`; ``among`` restricts the choice to those definitions."""
    among = _DEFS if among is None else among
    d = _BY_NAME.get(str(name).strip().lower())
    if d is None or d not in among:
        raise ParameterError("click model", "one of " + ", ".join(spellings(among)), name)
    return d


QRELS_MODELS = tuple(d for d in _DEFS if d.from_qrels)
"""The models :func:`cranfield.clicks.simulate.from_qrels` builds from judgments."""
