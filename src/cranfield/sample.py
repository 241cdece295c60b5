"""A small, deterministic sample test collection.

Forty TREC-style topics (``"301"`` to ``"340"``), each with 150 to 400 judged documents
graded 0-3 — a handful relevant per topic, and two topics (``"312"`` and ``"329"``)
without any relevant document — and four runs of clearly different quality, 100
documents per topic each:

========  =================================================================
``hybrid``  the best: score = 2.0 * grade + noise
``bm25``    good: score = 1.2 * grade + noise, rounded to 0.1 (many ties)
``dense``   weaker: score = 0.7 * grade + noise; topic ``"317"`` is missing
``random``  scores unrelated to relevance, rounded to 0.01 (some ties)
========  =================================================================

Every run also retrieves documents that were never judged. Everything is drawn from
``numpy.random.default_rng(SEED)`` in a fixed order, so the collection is identical on
every machine and in every session.

The collection behind them is generated too (nothing is stored): :func:`topics` gives
the forty topic statements (title, description, narrative) and :func:`documents` a
title and text for every document judged or retrieved, where more relevant documents
carry more of their topic's query terms, as in a real collection.

Examples
--------
>>> from cranfield import sample
>>> qrels, runs = sample.load()
>>> sorted(runs), len(qrels.query_ids())
(['bm25', 'dense', 'hybrid', 'random'], 40)
>>> sample.topics()[0].title
'coral reef bleaching'
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pyarrow as pa

from .collection.records import Document, Topic
from .collection.terms import query_terms
from .core.qrels import Qrels
from .core.run import Run

SEED = 20240501
QUERY_IDS = [str(q) for q in range(301, 341)]
NO_RELEVANT = ("312", "329")
MISSING = ("dense", "317")
DEPTH = 100
COLLECTION = 50_000

# name -> (weight of the grade in the score, noise sd, rounding decimals)
SYSTEMS: dict[str, tuple[float, float, int]] = {
    "bm25": (1.2, 1.0, 1),
    "dense": (0.7, 1.0, 4),
    "hybrid": (2.0, 0.8, 3),
    "random": (0.0, 1.0, 2),
}


def _doc_ids(numbers: np.ndarray) -> list[str]:
    return [f"FBIS4-{n:05d}" for n in numbers]


def _draws():
    """Per topic, in order: ``(qid, judged, unjudged, grades, perm, noise)`` -- document
    numbers, grades of the judged ones, the order they are listed in the qrels, and each
    system's score noise over ``judged + unjudged`` (``None`` for the missing topic).

    The one sequence of draws from ``default_rng(SEED)``: the qrels, the runs and the
    documents' texts all derive from it.
    """
    rng = np.random.default_rng(SEED)
    for qid in QUERY_IDS:
        n_judged = int(rng.integers(150, 401))
        n_unjudged = 80
        docs = rng.choice(COLLECTION, size=n_judged + n_unjudged, replace=False)
        judged, unjudged = docs[:n_judged], docs[n_judged:]
        grades = np.zeros(n_judged, dtype=np.int64)
        if qid not in NO_RELEVANT:
            n_rel = int(rng.integers(3, 16))
            grades[:n_rel] = rng.choice([1, 2, 3], size=n_rel, p=[0.5, 0.3, 0.2])
        perm = rng.permutation(n_judged)  # judged docs appear in no particular order
        noise = {}
        for name, (_weight, sd, _decimals) in SYSTEMS.items():
            drawn = rng.normal(0.0, sd, size=n_judged + n_unjudged)
            noise[name] = None if (name, qid) == MISSING else drawn
        yield qid, judged, unjudged, grades, perm, noise


def _numbers() -> tuple[dict[str, np.ndarray], dict[str, dict[str, np.ndarray]]]:
    """The qrels and runs with document numbers and topic indexes as integer arrays:
    ``{"topic", "doc", "relevance"}`` and, per run, ``{"topic", "doc", "score"}``, in
    the files' row order."""
    q_parts: dict[str, list] = {"topic": [], "doc": [], "relevance": []}
    r_parts = {name: {"topic": [], "doc": [], "score": []} for name in SYSTEMS}
    for t, (_qid, judged, unjudged, grades, perm, noise) in enumerate(_draws()):
        q_parts["topic"].append(np.full(len(judged), t))
        q_parts["doc"].append(judged[perm])
        q_parts["relevance"].append(grades[perm])
        candidates = np.concatenate([judged, unjudged])
        truth = np.concatenate([grades, np.zeros(len(unjudged), dtype=np.int64)])
        for name, (weight, _sd, decimals) in SYSTEMS.items():
            if noise[name] is None:
                continue
            score = np.round(10.0 + weight * truth + noise[name], decimals)
            # trec_eval order: score descending, doc id descending (the ids are
            # zero-padded numbers below 10**5, so their numbers sort as the strings do)
            order = np.lexsort((candidates, score))[::-1][:DEPTH]
            r_parts[name]["topic"].append(np.full(len(order), t))
            r_parts[name]["doc"].append(candidates[order])
            r_parts[name]["score"].append(score[order])
    qrels = {k: np.concatenate(v) for k, v in q_parts.items()}
    runs = {name: {k: np.concatenate(v) for k, v in c.items()} for name, c in r_parts.items()}
    return qrels, runs


def _generate() -> tuple[pa.Table, dict[str, pa.Table]]:
    numbers, run_numbers = _numbers()
    topic_ids = np.array(QUERY_IDS, dtype=object)
    qrels = pa.table(
        {
            "query_id": pa.array(topic_ids[numbers["topic"]].tolist(), pa.string()),
            "doc_id": pa.array(_doc_ids(numbers["doc"]), pa.string()),
            "relevance": pa.array(numbers["relevance"].astype(np.int64), pa.int64()),
        }
    )
    runs = {
        name: pa.table(
            {
                "query_id": pa.array(topic_ids[c["topic"]].tolist(), pa.string()),
                "doc_id": pa.array(_doc_ids(c["doc"]), pa.string()),
                "score": pa.array(c["score"].astype(np.float64), pa.float64()),
            }
        )
        for name, c in run_numbers.items()
    }
    return qrels, runs


# --- the collection behind the qrels: topic statements and document texts -------------

# One topic statement per query id, in QUERY_IDS order: (title, description, narrative).
TOPIC_TEXTS: tuple[tuple[str, str, str], ...] = (
    (
        "coral reef bleaching",
        "What is known about the causes and the extent of coral reef bleaching?",
        "Relevant documents report observed bleaching of coral reefs or explain its causes, such as warmer sea water. Documents about reef tourism without bleaching are not relevant.",
    ),
    (
        "offshore wind farms",
        "Find reports on the construction or operation of offshore wind farms.",
        "A relevant document describes a specific offshore wind farm, its turbines, capacity or cost. Onshore wind projects alone are not relevant.",
    ),
    (
        "antibiotic resistance in hospitals",
        "How widespread is antibiotic resistance among infections acquired in hospitals?",
        "Relevant documents give figures or cases of resistant bacteria in hospitals. Documents about new antibiotics without resistance are not relevant.",
    ),
    (
        "high speed rail funding",
        "Which high speed rail lines received public funding, and how much?",
        "A relevant document names a high speed rail project and its funding. General rail timetables are not relevant.",
    ),
    (
        "volcanic ash and air travel",
        "What disruption has volcanic ash caused to air travel?",
        "Relevant documents describe flights cancelled or rerouted because of volcanic ash clouds. Eruptions with no effect on aviation are not relevant.",
    ),
    (
        "child literacy programmes",
        "Find evaluations of programmes that improve reading skills of young children.",
        "A relevant document reports how a literacy programme for children worked, with results. Adult education is not relevant.",
    ),
    (
        "counterfeit medicines",
        "What is being done against the trade in counterfeit medicines?",
        "Relevant documents describe seizures, prosecutions or controls of counterfeit drugs. Patent disputes between manufacturers are not relevant.",
    ),
    (
        "glacier retreat in the Alps",
        "Measurements of the retreat of Alpine glaciers.",
        "A relevant document gives measurements or observations of a glacier in the Alps shrinking. Glaciers elsewhere are relevant only when compared with the Alps.",
    ),
    (
        "electric vehicle batteries",
        "Developments in the batteries used by electric vehicles.",
        "Relevant documents discuss battery range, cost, charging or recycling for electric cars or buses. Phone batteries are not relevant.",
    ),
    (
        "microfinance and poverty",
        "Does microfinance lending reduce poverty?",
        "A relevant document reports evidence on whether small loans reduce poverty. Descriptions of banks without any evidence are not relevant.",
    ),
    (
        "space debris collisions",
        "Incidents and risks of collisions with space debris.",
        "Relevant documents report a collision or near miss with orbital debris, or estimates of the risk. Meteorites are not relevant.",
    ),
    (
        "drought and crop yields",
        "How have droughts affected crop yields?",
        "A relevant document links a drought to a change in the harvest of a crop. Weather forecasts alone are not relevant.",
    ),
    (
        "ransomware attacks on cities",
        "Ransomware attacks against city governments and their public services.",
        "Relevant documents describe a ransomware attack on a city or municipal service and its consequences. Attacks on private firms only are not relevant.",
    ),
    (
        "honey bee colony losses",
        "What explains the losses of honey bee colonies?",
        "A relevant document reports colony losses of honey bees or studies their causes, such as mites or pesticides. Wild insects in general are not relevant.",
    ),
    (
        "minimum wage increases",
        "Effects of raising the minimum wage on employment.",
        "Relevant documents report an increase of a minimum wage and its effect on jobs or prices. Wage negotiations of single companies are not relevant.",
    ),
    (
        "plastic pollution in oceans",
        "The amount and the effects of plastic waste in the oceans.",
        "A relevant document measures plastic pollution at sea or its harm to marine life. Recycling at home is not relevant.",
    ),
    (
        "telemedicine in rural areas",
        "Use of telemedicine to reach patients in rural areas.",
        "Relevant documents describe doctors consulting rural patients remotely, by video or telephone. Urban clinics are not relevant.",
    ),
    (
        "desalination plants",
        "Construction and cost of seawater desalination plants.",
        "A relevant document names a desalination plant, its capacity, energy use or price of water. Water rationing without desalination is not relevant.",
    ),
    (
        "endangered languages",
        "Efforts to document or revive endangered languages.",
        "Relevant documents describe a language with few speakers and work to record or teach it. Foreign language teaching in schools is not relevant.",
    ),
    (
        "urban heat islands",
        "Why are cities warmer than their surroundings, and what can be done?",
        "A relevant document explains or measures the urban heat island effect or describes measures such as trees or cool roofs. Heat waves in general are not relevant.",
    ),
    (
        "food waste in supermarkets",
        "How much food do supermarkets throw away?",
        "Relevant documents give figures on supermarket food waste or on schemes to donate unsold food. Household waste alone is not relevant.",
    ),
    (
        "deep sea mining",
        "Plans and concerns about mining minerals from the deep sea floor.",
        "A relevant document discusses a deep sea mining licence, technique or environmental concern. Coastal sand extraction is not relevant.",
    ),
    (
        "vaccine cold chain",
        "Keeping vaccines cold during transport and storage.",
        "Relevant documents describe refrigeration, freezers or logistics for vaccine distribution. Vaccine trials are not relevant.",
    ),
    (
        "public library closures",
        "Closures of public libraries and reactions to them.",
        "A relevant document reports that public libraries closed or were threatened with closure. University libraries are not relevant.",
    ),
    (
        "avalanche warning systems",
        "How do avalanche warning systems work and how reliable are they?",
        "Relevant documents describe forecasting or warning of avalanches. Ski resort prices are not relevant.",
    ),
    (
        "invasive species in lakes",
        "Invasive species spreading in freshwater lakes.",
        "A relevant document names an invasive species in a lake and its effects, such as mussels or fish. Marine species are not relevant.",
    ),
    (
        "solar panel recycling",
        "What happens to solar panels at the end of their life?",
        "Relevant documents discuss recycling or disposal of old solar panels. Installing new panels is not relevant.",
    ),
    (
        "sleep and adolescent health",
        "How does lack of sleep affect the health of adolescents?",
        "A relevant document reports research on sleep of teenagers and health or school results. Sleep disorders of adults are not relevant.",
    ),
    (
        "river flood defences",
        "Building and failure of flood defences along rivers.",
        "Relevant documents describe dikes, barriers or embankments against river floods, and whether they held. Coastal storm surges are not relevant.",
    ),
    (
        "cryptocurrency exchange failures",
        "Collapses and thefts at cryptocurrency exchanges.",
        "A relevant document reports an exchange for digital currencies failing, being hacked or losing customer funds. Price movements alone are not relevant.",
    ),
    (
        "noise pollution from airports",
        "Complaints and measures about aircraft noise near airports.",
        "Relevant documents describe noise from airports affecting residents, or rules such as night flight bans. Airport expansion without noise is not relevant.",
    ),
    (
        "seed banks and crop diversity",
        "Collections that preserve crop diversity for the future.",
        "A relevant document describes a seed bank or gene bank storing plant varieties. Commercial seed sales are not relevant.",
    ),
    (
        "autonomous vehicle accidents",
        "Accidents involving self-driving or autonomous vehicles.",
        "Relevant documents report a crash of an autonomous vehicle or its investigation. Driver assistance features without an accident are not relevant.",
    ),
    (
        "wildfire smoke and health",
        "Health effects of smoke from wildfires.",
        "A relevant document links wildfire smoke to breathing problems, hospital visits or air quality warnings. Fire fighting tactics are not relevant.",
    ),
    (
        "fish stock collapse",
        "Collapses of commercial fish stocks and fishing quotas.",
        "Relevant documents report a fish stock falling sharply or quotas cut to protect it. Fish farming is not relevant.",
    ),
    (
        "lead in drinking water",
        "Contamination of drinking water with lead.",
        "A relevant document reports lead found in tap water, pipes being replaced or health effects. Bottled water marketing is not relevant.",
    ),
    (
        "museum repatriation of artefacts",
        "Museums returning artefacts to their countries of origin.",
        "Relevant documents describe a museum returning or being asked to return cultural objects. Museum exhibitions without any claim are not relevant.",
    ),
    (
        "ride hailing regulation",
        "How do cities regulate ride hailing services?",
        "A relevant document describes licences, caps, bans or labour rules for ride hailing drivers. Taxi fares alone are not relevant.",
    ),
    (
        "permafrost thaw",
        "Thawing permafrost and its consequences.",
        "Relevant documents report permafrost thawing, damage to buildings or roads, or release of methane. Sea ice is not relevant.",
    ),
    (
        "school meal nutrition",
        "Nutrition standards and quality of school meals.",
        "A relevant document discusses what pupils are served at school, its nutrition or rules for school lunches. Restaurant menus are not relevant.",
    ),
)

_STRONG = (
    "A new report on {a} was published on Tuesday and drew wide attention.",
    "The debate over {a} went on this week as officials questioned the evidence.",
    "Figures released by the ministry put {a} at its highest level in five years.",
    "Local groups who have followed {a} for a decade called the findings a warning.",
    "According to researchers, {a} needs far more attention than it receives.",
    "{A} was the subject of a conference where several new studies were presented.",
    "A parliamentary committee will hear evidence on {a} next month.",
    "Critics argue that the official figures on {a} understate the problem.",
    "A study of {a} followed hundreds of cases and was reviewed by independent experts.",
    "Experts interviewed this week agreed that {a} will shape policy for years.",
)
_WEAK = (
    'The term "{t}" came up only briefly in the minister\'s speech.',
    'An unrelated item in the same issue used the word "{t}".',
    'Readers\' letters this week used the word "{t}" in another sense.',
)
_FILLER = (
    "The council met on Monday to discuss the budget for the coming year.",
    "Shares closed slightly higher after a quiet day of trading.",
    "The weather service expects rain in the north and sunshine in the south.",
    "A spokeswoman said the decision would be announced after the holidays.",
    "The opposition called for an independent inquiry.",
    "Negotiations between the unions and employers are expected to resume next week.",
    "The museum will stay open late on Thursdays during the summer.",
    "Tickets for the final sold out within an hour.",
    "The new bridge is due to open to traffic in the spring.",
    "Officials declined to give a date for the next meeting.",
    "Several schools in the region were closed because of a power cut.",
    "The report will be presented to the board in October.",
    "Prices of fresh vegetables rose for the third month in a row.",
    "A festival of music and film opened in the old town on Friday.",
    "The regional airport recorded more passengers than last year.",
    "Volunteers spent the weekend cleaning the riverbanks.",
    "The mayor thanked residents for their patience during the road works.",
    "A survey of small businesses found cautious optimism about the autumn.",
    "The company announced a new chief executive on Wednesday.",
    "Police asked witnesses to come forward after the incident.",
)
_HEADLINES = (
    "Council approves new budget", "Markets end the week quietly", "Rain expected in the north",
    "Talks to resume next week", "Museum extends opening hours", "Final sells out in an hour",
    "New bridge opens in spring", "Schools closed by power cut", "Vegetable prices rise again",
    "Festival opens in the old town", "Airport passenger numbers grow", "Volunteers clean riverbanks",
)  # fmt: skip
_ANGLES = ("new figures", "what the evidence shows", "officials respond", "a closer look",
           "experts divided", "the latest findings", "questions remain", "a report")  # fmt: skip
_SENTENCES_PER_GRADE = {3: 4, 2: 3, 1: 2}
"""Sentences carrying the whole title, by grade: more query terms in better documents."""


def topics() -> list[Topic]:
    """The forty topic statements of the sample collection (ids ``"301"`` to ``"340"``)."""
    return [
        Topic(qid, title, description, narrative)
        for qid, (title, description, narrative) in zip(QUERY_IDS, TOPIC_TEXTS, strict=True)
    ]


def documents() -> list[Document]:
    """A text for every document of the sample qrels and runs, sorted by id.

    A document's text is made of sentences about the topics it is judged or retrieved
    for: the higher its grade, the more sentences carrying the topic's title (2 to 4
    for grades 1 to 3, and a headline made from it); a judged non-relevant document
    mentions one query term at most in passing, a retrieved unjudged one sometimes; the
    rest is general news. Deterministic: drawn from ``default_rng(SEED + 1)`` in
    document order.
    """
    numbers, run_numbers = _numbers()
    # every (topic, doc) pair once: its grade, or -1 when retrieved but never judged
    topic = np.concatenate([numbers["topic"]] + [c["topic"] for c in run_numbers.values()])
    doc = np.concatenate([numbers["doc"]] + [c["doc"] for c in run_numbers.values()])
    grade = np.concatenate(
        [numbers["relevance"]] + [np.full(len(c["doc"]), -1) for c in run_numbers.values()]
    )
    order = np.lexsort((-grade, topic, doc))  # by doc, topic; the judged row first
    topic, doc, grade = topic[order], doc[order], grade[order]
    first = np.ones(len(doc), dtype=bool)
    first[1:] = (doc[1:] != doc[:-1]) | (topic[1:] != topic[:-1])
    topic, doc, grade = topic[first], doc[first], grade[first]
    starts = np.flatnonzero(np.r_[True, doc[1:] != doc[:-1]])
    n_docs = len(starts)

    # one block of text per (topic, doc) pair, chosen by whole-array arithmetic
    rng = np.random.default_rng(SEED + 1)
    pick = rng.integers(0, 1 << 30, size=len(doc))
    per_doc = rng.integers(0, 1 << 30, size=(4, n_docs))
    blocks: list[str] = [""]  # block 0: nothing
    strong_at = np.zeros((len(TOPIC_TEXTS), len(_STRONG), 4), dtype=np.int64)
    weak_at, weak_n, headline = [], [], []
    for t, (title, _description, _narrative) in enumerate(TOPIC_TEXTS):
        cap = title[0].upper() + title[1:]
        sentences = [s.format(a=title, A=cap) for s in _STRONG]
        for start in range(len(_STRONG)):
            for n in (1, 2, 3):  # grades 1-3; steps of 3 through 10 never repeat within 4
                strong_at[t, start, n] = len(blocks)
                count = _SENTENCES_PER_GRADE[n]
                blocks.append(
                    " ".join(sentences[(start + 3 * j) % len(_STRONG)] for j in range(count))
                )
        weak_at.append(len(blocks))
        weak = [w.format(t=term) for term in query_terms(title) for w in _WEAK]
        blocks += weak
        weak_n.append(len(weak))
        headline.append([f"{cap}: {angle}" for angle in _ANGLES])
    weak_at, weak_n = np.array(weak_at), np.array(weak_n)
    passing = (pick >> 8) % 10 < np.where(grade == 0, 6, 3)  # a term mentioned in passing
    block = np.where(
        grade > 0,
        strong_at[topic, pick % len(_STRONG), np.clip(grade, 0, 3)],
        np.where(passing, weak_at[topic] + (pick >> 12) % weak_n[topic], 0),
    )
    # the headline comes from the topic the document is most relevant to
    best = np.maximum.reduceat(np.where(grade > 0, grade * 64 + topic, -1), starts)
    fill = _FILLER
    f0, f1, f2 = (per_doc[i] % len(fill) for i in range(3))
    ends = np.r_[starts[1:], len(doc)].tolist()
    block_list, names = block.tolist(), _doc_ids(doc[starts])
    docs = []
    for i, (s0, e0) in enumerate(zip(starts.tolist(), ends, strict=True)):
        # three distinct fillers: offsets 1-6 and 7-12 from the first
        parts = [fill[f0[i]]]
        parts += [blocks[b] for b in block_list[s0:e0] if b]
        parts.append(fill[(f0[i] + 1 + f1[i] % 6) % len(fill)])
        if f2[i] % 2:
            parts.insert(1, fill[(f0[i] + 7 + f2[i] % 6) % len(fill)])
        b = int(best[i])
        title = (
            headline[b % 64][per_doc[3, i] % len(_ANGLES)]
            if b >= 0
            else _HEADLINES[per_doc[3, i] % len(_HEADLINES)]
        )
        docs.append(Document(names[i], title, " ".join(parts)))
    return docs


def load() -> tuple[Qrels, dict[str, Run]]:
    """The sample qrels and the four runs, keyed by run name."""
    qrels, runs = _generate()
    return (
        Qrels(qrels, source="sample qrels"),
        {name: Run(t, source=f"sample run {name}", name=name) for name, t in runs.items()},
    )


def write(directory: str | os.PathLike, *, overwrite: bool = False) -> list[Path]:
    """Write ``qrels.txt`` and one ``<run>.txt`` per run (TREC format) into ``directory``.

    Returns the paths written, qrels first. The directory is created if needed. A file
    that is already there with other contents (an edited collection) is an
    :class:`~cranfield.errors.InputError` and nothing is written, unless ``overwrite``;
    files equal to the sample's are left as they are.
    """
    import io

    from .core.io.atomic import write_bytes
    from .errors import InputError

    out = Path(directory)
    qrels, runs = load()
    contents: dict[Path, bytes] = {}
    for name, obj in [("qrels", qrels), *runs.items()]:
        sink = io.BytesIO()
        obj.to_trec(sink)
        contents[out / f"{name}.txt"] = sink.getvalue()
    if not overwrite:
        for path, data in contents.items():
            if path.exists() and (not path.is_file() or path.read_bytes() != data):
                raise InputError(
                    "differs from the sample collection (edited?): not overwritten without "
                    "--force (Python: overwrite=True), or choose another --dir",
                    source=str(path),
                )
    out.mkdir(parents=True, exist_ok=True)
    for path, data in contents.items():
        if not (path.is_file() and path.read_bytes() == data):
            write_bytes(path, data)
    return list(contents)
