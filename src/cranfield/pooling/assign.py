"""Assessment packages (INEX style): topics assigned to assessors, and the merge back.

At INEX every participant assessed a share of the topics against the pool of all
returned answers (Gövert & Kazai 2002; Kazai, Lalmas & de Vries 2004). Here:

* :func:`assign_topics` gives each topic exactly ``per_topic`` different assessors,
  loads balanced (numbers of topics per assessor differ by at most one), seeded; an
  optional ``proposed`` mapping makes the assessor who proposed a topic one of its
  assessors;
* :func:`write_packages` writes one file per assessor listing its (topic, document)
  pairs as ``qid 0 docid -1`` lines (grade -1: pooled, not yet judged) in a blind order
  — a seeded shuffle or document-id order, never the systems' order and never a run
  name — plus ``assignment.tsv`` (``topic assessor`` lines);
* :func:`merge_packages` reads the judged packages back into one qrels, keeping every
  judgment's provenance (topic, document, assessor, grade).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from ..errors import InputError, ParameterError

MANIFEST = "assignment.tsv"
ORDERS = ("shuffle", "docid")
COMBINE = ("max", "min")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+-]*$")


_INTEGER = re.compile(r"[+-]?\d+")


def check_assessors(names: Sequence[str]) -> list[str]:
    """Assessor names: non-empty, distinct, usable as file names."""
    out = [str(n) for n in names]
    if not out:
        raise ParameterError("assessors", "at least one name", out)
    for n in out:
        if not _NAME.match(n) or n == MANIFEST.split(".")[0]:
            raise ParameterError("assessor name", "letters, digits and . _ @ + - (a file name)", n)
    dup = [n for n in out if out.count(n) > 1]
    if dup:
        raise ParameterError("assessors", "distinct names", dup[0])
    return out


def assign_topics(
    topics: Sequence[str],
    assessors: Sequence[str],
    per_topic: int,
    seed: int = 0,
    proposed: Mapping[str, str] | None = None,
) -> dict[str, list[str]]:
    """``{topic: [assessor, ...]}``: every topic judged by exactly ``per_topic``
    different assessors; an assessor's number of topics differs from any other's by
    at most one.

    Without ``proposed``: the assessors (shuffled with ``numpy.random.default_rng(seed)``)
    take the topics (shuffled too) round-robin, ``per_topic`` consecutive assessors per
    topic — distinct because ``per_topic <= len(assessors)``, balanced by construction.
    With ``proposed`` (``{topic: assessor}``), the proposer is one of the topic's
    assessors, the other places go to the least-loaded assessors (ties in the seeded
    order), and moves of unforced places from the most to the least loaded assessor
    balance the loads; :class:`InputError` if the proposals make that impossible.
    """
    names = check_assessors(assessors)
    topics = list(dict.fromkeys(topics))
    if isinstance(per_topic, bool) or not isinstance(per_topic, (int, np.integer)):
        raise ParameterError("per_topic", f"an integer from 1 to {len(names)}", per_topic)
    if not 1 <= per_topic <= len(names):
        raise ParameterError(
            "per_topic", f"an integer from 1 to {len(names)} (the assessors)", per_topic
        )
    if not topics:
        raise InputError("no topics to assign")
    rng = np.random.default_rng(seed)
    order = [names[i] for i in rng.permutation(len(names))]
    topic_order = [topics[i] for i in rng.permutation(len(topics))]
    r = int(per_topic)
    if not proposed:
        slot = np.arange(len(topics) * r)
        who = np.asarray(order, dtype=object)[slot % len(order)].reshape(len(topics), r)
        out = {t: list(who[i]) for i, t in enumerate(topic_order)}
        return {t: out[t] for t in topics}
    return _assign_with_proposals(topics, topic_order, order, r, proposed)


def _assign_with_proposals(topics, topic_order, order, r, proposed) -> dict[str, list[str]]:
    rank = {a: i for i, a in enumerate(order)}
    for t, a in proposed.items():
        if a not in rank:
            raise InputError(f"topic {t!r} was proposed by {a!r}, who is not an assessor")
    load = dict.fromkeys(order, 0)
    out: dict[str, list[str]] = {}
    forced: dict[str, str] = {}
    for t in topic_order:
        if t in proposed:
            forced[t] = proposed[t]
            out[t] = [proposed[t]]
            load[proposed[t]] += 1
        else:
            out[t] = []
    for t in topic_order:  # assignment is per topic by nature: a few hundred at most
        free = sorted((a for a in order if a not in out[t]), key=lambda a: (load[a], rank[a]))
        for a in free[: r - len(out[t])]:
            out[t].append(a)
            load[a] += 1
    while max(load.values()) - min(load.values()) > 1:
        path = _move_path(order, topic_order, out, forced, load)
        if path is None:
            hi = max(order, key=lambda a: (load[a], -rank[a]))
            lo = min(order, key=lambda a: (load[a], rank[a]))
            raise InputError(
                f"cannot balance the loads: {hi!r} must judge {load[hi]} topics "
                f"(proposed or shared with the others), {lo!r} only {load[lo]}"
            )
        # applied from the end: each move then finds its topic as the search saw it
        for t, src, dst in reversed(path):
            out[t][out[t].index(src)] = dst
        load[path[0][1]] -= 1
        load[path[-1][2]] += 1
    return {t: out[t] for t in topics}


def _move_path(order, topic_order, out, forced, load):
    """Moves ``[(topic, from, to), ...]`` that take one topic from a most-loaded assessor
    and give one to a least-loaded one (every assessor between keeps its load), found by
    breadth-first search over "a can hand a topic to b"; None when there is none.

    A direct move from the most to the least loaded assessor may not exist (all their
    unforced topics are shared) while a chain through others does: the search is the
    augmenting-path step of a balanced assignment, so it fails only when the proposals
    make balanced loads impossible.
    """
    top, bottom = max(load.values()), min(load.values())
    back: dict[str, tuple[str, str] | None] = {a: None for a in order if load[a] == top}
    frontier = list(back)
    while frontier:
        nxt = []
        for a in frontier:
            for t in topic_order:
                if a not in out[t] or forced.get(t) == a:
                    continue
                for b in order:
                    if b in back or b in out[t]:
                        continue
                    back[b] = (t, a)
                    if load[b] == bottom:
                        path = []
                        while back[b] is not None:
                            t_, a_ = back[b]
                            path.append((t_, a_, b))
                            b = a_
                        return path[::-1]
                    nxt.append(b)
        frontier = nxt
    return None


def read_pool_pairs(path: str) -> pa.Table:
    """A pool file: ``qid docid`` lines (``cranfield pool``) or ``qid 0 docid -1``
    lines (``--format qrels``); blank and ``#`` lines skipped."""
    qs, ds = [], []
    seen = set()
    with open(path, encoding="utf-8") as fh:
        for no, line in enumerate(fh, start=1):
            f = line.split()
            if not f or f[0].startswith("#"):
                continue
            if len(f) == 2:
                q, d = f
            elif len(f) == 4:
                q, d = f[0], f[2]
                if not _INTEGER.fullmatch(f[3]):  # a pool in qrels form: qid 0 docid grade
                    raise InputError(
                        f"expected an integer grade in field 4 (qid 0 docid grade), got {f[3]!r}",
                        path,
                        no,
                    )
            else:
                raise InputError(
                    f"expected 2 fields (qid docid) or 4 (qid 0 docid grade), got {len(f)}",
                    path,
                    no,
                )
            if (q, d) in seen:
                raise InputError(f"document {d!r} listed twice for topic {q!r}", path, no)
            seen.add((q, d))
            qs.append(q)
            ds.append(d)
    if not qs:
        raise InputError("the pool is empty", path)
    return pa.table({"query_id": pa.array(qs, pa.string()), "doc_id": pa.array(ds, pa.string())})


def read_assessors(path: str) -> list[str]:
    """One assessor name a line; blank and ``#`` lines skipped."""
    with open(path, encoding="utf-8") as fh:
        names = [ln.strip() for ln in fh if ln.strip() and not ln.lstrip().startswith("#")]
    if not names:
        raise InputError("no assessor names", path)
    return check_assessors(names)


def read_mapping(path: str, what: str) -> dict[str, str]:
    """``key value`` lines (two whitespace-separated fields), e.g. ``topic assessor``."""
    out: dict[str, str] = {}
    with open(path, encoding="utf-8") as fh:
        for no, line in enumerate(fh, start=1):
            f = line.split()
            if not f or f[0].startswith("#"):
                continue
            if len(f) != 2:
                raise InputError(f"expected 2 fields ({what}), got {len(f)}", path, no)
            if f[0] in out and out[f[0]] != f[1]:
                raise InputError(f"{f[0]!r} is given twice", path, no)
            out[f[0]] = f[1]
    return out


@dataclass
class Package:
    """One assessor's work: ``table`` holds its (topic, document) pairs in blind order."""

    assessor: str
    table: pa.Table

    @property
    def lines(self) -> list[tuple[str, str]]:
        return list(
            zip(self.table["query_id"].to_pylist(), self.table["doc_id"].to_pylist(), strict=True)
        )

    def to_bytes(self) -> bytes:
        from .pool import Pool

        return Pool(self.table, "").to_bytes("qrels")


def build_packages(
    pool: pa.Table, assignment: Mapping[str, list[str]], order: str = "shuffle", seed: int = 0
) -> list[Package]:
    """One :class:`Package` per assessor (in the order first met), pairs in a blind
    order: ``"shuffle"`` (``default_rng(seed)``, one permutation per assessor) or
    ``"docid"`` (topic, then document id, byte order)."""
    import pyarrow.compute as pc

    if order not in ORDERS:
        raise ParameterError("order", "one of " + ", ".join(ORDERS), order)
    pool = pool.select(["query_id", "doc_id"])
    if order == "docid":
        pool = pool.sort_by([("query_id", "ascending"), ("doc_id", "ascending")])
    topics = pc.unique(pool["query_id"]).to_pylist()
    missing = sorted(set(topics) - set(assignment), key=str.encode)
    if missing:
        raise InputError(f"topic(s) of the pool without assessors: {', '.join(missing[:5])}")
    people = list(dict.fromkeys(a for t in assignment for a in assignment[t]))
    rng = np.random.default_rng(seed)
    out = []
    for person in people:  # a loop over assessors (few), not over documents
        mine = [t for t, who in assignment.items() if person in who]
        rows = np.flatnonzero(
            np.asarray(pc.is_in(pool["query_id"], value_set=pa.array(mine, pa.string())))
        )
        if order == "shuffle":
            rows = rows[rng.permutation(len(rows))]
        out.append(Package(person, pool.take(pa.array(rows, pa.int64()))))
    return out


def write_packages(directory: str, packages: list[Package], assignment: Mapping[str, list[str]]):
    """Write ``<assessor>.qrels`` files and ``assignment.tsv`` into a new or empty
    directory (judged packages are never overwritten)."""
    from ..core.io.atomic import write_bytes

    if os.path.exists(directory):
        if not os.path.isdir(directory):
            raise InputError("exists and is not a directory", directory)
        if os.listdir(directory):
            raise InputError(
                "directory is not empty (packages already written there are not overwritten)",
                directory,
            )
    os.makedirs(directory, exist_ok=True)
    for p in packages:
        write_bytes(os.path.join(directory, f"{p.assessor}.qrels"), p.to_bytes())
    manifest = "".join(f"{t}\t{a}\n" for t, who in assignment.items() for a in who)
    write_bytes(os.path.join(directory, MANIFEST), manifest.encode("utf-8"))


@dataclass
class Merged:
    """The merged qrels and the provenance of every judgment."""

    qrels: pa.Table  # query_id, doc_id, relevance
    provenance: pa.Table  # query_id, doc_id, assessor, relevance

    def qrels_bytes(self) -> bytes:
        """``qid 0 docid grade`` lines, sorted by topic and document (byte order)."""
        import io

        from ..core.qrels import Qrels

        sink = io.BytesIO()
        Qrels(self.qrels, "merged packages").to_trec(sink)
        return sink.getvalue()

    def provenance_bytes(self) -> bytes:
        """Tab-separated ``query_id doc_id assessor relevance`` with a header line."""
        from ..core.io.trec import delimited_lines

        header = b"query_id\tdoc_id\tassessor\trelevance\n"
        return header + delimited_lines(self.provenance.columns, "\t")


def _check_package_grades(table: pa.Table, path: str) -> None:
    """A package's grades are whole numbers from -1 up: -1 is "not yet judged" (as
    :func:`write_packages` writes it), anything below is refused with its line."""
    from ..core.io.grades import first_fractional_grade

    fractional = first_fractional_grade(path)  # the qrels reader truncates it, as trec_eval
    if fractional is not None:
        raise InputError(
            f"grade {fractional[1]} is not a whole number (-1: not yet judged)", path, fractional[0]
        )
    grades = table["relevance"]
    low = pa.compute.less(grades, -1)
    if not pa.compute.any(low).as_py():
        return
    value = pa.compute.filter(grades, low)[0].as_py()
    with open(path, encoding="utf-8", errors="replace") as fh:
        for no, line in enumerate(fh, start=1):
            f = line.split()
            if len(f) == 4 and _INTEGER.fullmatch(f[3]) and int(f[3]) < -1:
                raise InputError(
                    f"grade {f[3]} below -1: grades are 0 and up, -1 marks a pair not yet judged",
                    path,
                    no,
                )
    raise InputError(f"grade {value} below -1 (-1 marks a pair not yet judged)", path)


def merge_packages(directory: str, combine: str = "max") -> Merged:
    """Read the judged packages of ``directory`` (as written by :func:`write_packages`,
    grades filled in) into one qrels.

    A pair judged by several assessors gets the ``combine`` of their grades (``max``
    or ``min``); grades still negative (not judged) count only when nobody judged the
    pair (it stays -1: pooled, unjudged). A package may only hold pairs of its own
    topics (``assignment.tsv``), each at most once.
    """
    from ..core.qrels import Qrels

    if combine not in COMBINE:
        raise ParameterError("combine", "one of " + ", ".join(COMBINE), combine)
    manifest = os.path.join(directory, MANIFEST)
    if not os.path.isfile(manifest):
        raise InputError(f"no {MANIFEST} (not a directory of assessment packages)", directory)
    topics_of: dict[str, set[str]] = {}
    with open(manifest, encoding="utf-8") as fh:
        for no, line in enumerate(fh, start=1):
            f = line.split()
            if not f:
                continue
            if len(f) != 2:
                raise InputError(f"expected 2 fields (topic assessor), got {len(f)}", manifest, no)
            topics_of.setdefault(f[1], set()).add(f[0])
    cols: dict[str, list] = {"query_id": [], "doc_id": [], "assessor": [], "relevance": []}
    for person in sorted(topics_of):
        path = os.path.join(directory, f"{person}.qrels")
        if not os.path.isfile(path):
            raise InputError(f"the package of {person!r} is missing", path)
        t = Qrels.read(path).table
        _check_package_grades(t, path)
        qs = t["query_id"].to_pylist()
        foreign = sorted(set(qs) - topics_of[person], key=str.encode)
        if foreign:
            raise InputError(f"topic(s) not assigned to {person!r}: {', '.join(foreign[:5])}", path)
        cols["query_id"] += qs
        cols["doc_id"] += t["doc_id"].to_pylist()
        cols["assessor"] += [person] * len(qs)
        cols["relevance"] += t["relevance"].to_pylist()
    prov = pa.table(
        {
            "query_id": pa.array(cols["query_id"], pa.string()),
            "doc_id": pa.array(cols["doc_id"], pa.string()),
            "assessor": pa.array(cols["assessor"], pa.string()),
            "relevance": pa.array(cols["relevance"], pa.int64()),
        }
    )
    if prov.num_rows == 0:
        raise InputError("the packages hold no judgments", directory)
    judged = prov.filter(pa.compute.greater_equal(prov["relevance"], 0))
    how = combine
    grades = (
        judged.group_by(["query_id", "doc_id"], use_threads=False)
        .aggregate([("relevance", how)])
        .rename_columns(["query_id", "doc_id", "relevance"])
    )
    every = prov.group_by(["query_id", "doc_id"], use_threads=False).aggregate([])
    unjudged = every.join(grades, ["query_id", "doc_id"], join_type="left anti")
    unjudged = unjudged.append_column("relevance", pa.array([-1] * unjudged.num_rows, pa.int64()))
    merged = pa.concat_tables(
        [
            grades.select(["query_id", "doc_id", "relevance"]),
            unjudged.select(["query_id", "doc_id", "relevance"]),
        ]
    )
    merged = merged.sort_by([("query_id", "ascending"), ("doc_id", "ascending")])
    prov = prov.sort_by(
        [("query_id", "ascending"), ("doc_id", "ascending"), ("assessor", "ascending")]
    )
    return Merged(merged, prov)
