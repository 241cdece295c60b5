"""``cranfield campaign``: create and run an evaluation campaign from the command line.

``init`` creates a campaign (topics, documents, the relevance scale; ``--sample``: the
bundled sample collection with its runs, pooled at depth 10), ``add-user`` creates a
user and gives it a role, ``pool`` builds the pool from the submitted runs, ``assign``
gives every topic its assessors and ``export`` writes the qrels (or the judgment
logs, the machine labels, the human sample, the estimates). ``machine-labels`` imports
a machine assessor's labels of the pool (``cranfield judge`` makes them) and ``sample``
chooses the pairs people judge, for the prediction-powered estimates; ``mtc`` serves
the queues in the order of minimal test collections. Every action works on the database ``cranfield serve`` serves (a file: SQLite;
or a ``postgresql://`` URL); see docs/service.md.
"""

from __future__ import annotations

import datetime as dt
import os
import sys

from ._args import Parser, add_output, add_seed, seed_value
from ._output import deliver

ACTIONS = {
    "init": "create a campaign: topics, documents, relevance scale (or --sample)",
    "add-user": "create a user (or reuse one) and give it a role in a campaign",
    "pool": "pool the submitted runs for judging",
    "assign": "give every pooled topic its assessors and fill their queues",
    "machine-labels": "import a machine assessor's labels of the pool (a qrels file)",
    "sample": "choose the pooled pairs people judge (uniform or stratified by rank)",
    "mtc": "serve the assessors' queues in the order of minimal test collections",
    "export": "write the qrels (aggregated by the campaign's rule), the judgment logs, "
    "the machine labels, the human sample or the estimates",
}
EXPORTS = ("qrels", "judgments", "log", "pool", "machine", "sample", "estimates", "mtc")


def add_arguments(parser: Parser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", parser_class=Parser)
    sub.required = True
    p = sub.add_parser("init", help=ACTIONS["init"], description=ACTIONS["init"])
    _db(p)
    p.add_argument("--name", required=True, help="the campaign's name (letters, digits, . _ -)")
    p.add_argument("--title", default="", help="a longer title shown on its pages")
    src = p.add_mutually_exclusive_group()
    src.add_argument(
        "--sample",
        action="store_true",
        help="the bundled sample collection: topics, documents and runs, pooled at depth 10",
    )
    src.add_argument(
        "--topics",
        help="topics: TREC <top> file, JSONL or CSV (id,title,...), or a collection's "
        "ir_datasets id (irds:ID)",
    )
    p.add_argument(
        "--documents",
        help="documents: JSONL {id,title,text}, TREC SGML <DOC>, Parquet, a directory, or "
        "a collection's by its ir_datasets id (irds:ID: only the documents the runs name "
        "are stored, looked up as each run is accepted)",
    )
    p.add_argument(
        "--scale",
        default=None,
        help="relevance labels as VALUE=NAME,... (default 0=not relevant,1=relevant,"
        "2=highly relevant)",
    )
    p.add_argument("--deadline", help="submission deadline, ISO 8601 (UTC), e.g. 2026-06-30T23:59")
    p.add_argument("--max-runs", type=int, default=5, help="runs per participant (default 5)")
    p.add_argument("--per-topic", type=int, default=1, help="assessors per topic (default 1)")
    p.add_argument(
        "--aggregation",
        choices=("majority", "mean", "median", "dawid-skene", "mace"),
        default="majority",
        help="how the labels of several assessors become one (default majority)",
    )
    p.add_argument(
        "--measures",
        default="AP nDCG@10 P@10",
        help="measures of the results (default: AP nDCG@10 P@10)",
    )

    p = sub.add_parser("add-user", help=ACTIONS["add-user"], description=ACTIONS["add-user"])
    _db(p)
    p.add_argument("user", help="user name (letters, digits, . _ @ + -)")
    p.add_argument("--role", required=True, choices=("coordinator", "assessor", "participant"))
    p.add_argument(
        "--password-file",
        required=True,
        help="file whose first line is the password ('-': standard input)",
    )
    p.add_argument("--campaign", help="the campaign the role is in")

    p = sub.add_parser("pool", help=ACTIONS["pool"], description=ACTIONS["pool"])
    _db(p)
    p.add_argument("name", help="the campaign")
    p.add_argument("-k", "--depth", type=int, default=10, help="ranks pooled per run (default 10)")
    p.add_argument("-s", "--strategy", default="depth", help="a pooling strategy (default depth)")
    p.add_argument("--per-group", type=int, help="pool at most N runs per participant")
    p.add_argument("--gold", help="qrels of gold pairs (known labels) mixed into the pool")

    p = sub.add_parser("assign", help=ACTIONS["assign"], description=ACTIONS["assign"])
    _db(p)
    p.add_argument("name", help="the campaign")
    p.add_argument(
        "-r", "--per-topic", type=int, help="assessors per topic (default: the campaign's)"
    )
    add_seed(p, "assignment of topics to assessors")

    p = sub.add_parser(
        "machine-labels", help=ACTIONS["machine-labels"], description=ACTIONS["machine-labels"]
    )
    _db(p)
    p.add_argument("name", help="the campaign")
    p.add_argument(
        "labels", help="the labels: qrels (TREC, or CSV/TSV/Parquet by extension) of pooled pairs"
    )
    p.add_argument(
        "--assessor",
        required=True,
        help="the machine assessor: its model and prompt (MODEL@HASH, as 'cranfield judge' "
        "names it); importing again under one name replaces its labels",
    )

    p = sub.add_parser("sample", help=ACTIONS["sample"], description=ACTIONS["sample"])
    _db(p)
    p.add_argument("name", help="the campaign")
    p.add_argument(
        "--fraction",
        type=float,
        required=True,
        help="the share of each stratum (or of the topics) people judge, in (0, 1]",
    )
    p.add_argument(
        "--units",
        choices=("pairs", "topics"),
        default="pairs",
        help="sample pooled pairs (default; the measure must be P@k or DCG@k) or topics, "
        "each judged over its whole pool (any measure: AP, nDCG@10...)",
    )
    p.add_argument(
        "--strata",
        default="",
        help="increasing rank bounds of the strata, e.g. 10,30 (ranks 1-10, 11-30, beyond; "
        "default: one uniform sample)",
    )
    p.add_argument(
        "--measure",
        default="P@10",
        help="the measure of the estimates: with pairs P@k or DCG@k (linear in the "
        "labels), with topics any measure (default P@10)",
    )
    add_seed(p, "sample")

    p = sub.add_parser("mtc", help=ACTIONS["mtc"], description=ACTIONS["mtc"])
    _db(p)
    p.add_argument("name", help="the campaign")
    p.add_argument(
        "--measure",
        default="AP",
        help="the measure the question is about: AP, P@k or DCG@k (default AP)",
    )
    p.add_argument(
        "--runs",
        default="",
        help="two runs to decide between, e.g. r1,r2 (default: the ranking of all the runs)",
    )
    p.add_argument(
        "--threshold",
        type=float,
        default=0.05,
        help="a decision is taken when the probability that it would change is below this "
        "(default 0.05)",
    )

    p = sub.add_parser("export", help=ACTIONS["export"], description=ACTIONS["export"])
    _db(p)
    p.add_argument("name", help="the campaign")
    p.add_argument(
        "--what",
        choices=EXPORTS,
        default="qrels",
        help="qrels (TREC), judgments (current labels, TSV), log (every label saved, TSV), "
        "pool (the pooled pairs, for 'cranfield judge'), machine (the latest machine assessor's labels, TREC), sample (the pairs people "
        "judge with their inclusion probabilities, TSV), estimates (JSON) or mtc (the MTC "
        "decisions and their probabilities of a change, JSON)",
    )
    add_output(p, help="output file (default: standard output)")


def _db(p: Parser) -> None:
    p.add_argument(
        "database", metavar="DB", help="the database: a file (SQLite) or a postgresql:// URL"
    )


def _open(target: str, *, create: bool = False):
    from ..errors import InputError
    from ..service.db import open_database

    if "://" not in target and not create and not os.path.exists(target):
        raise InputError(
            "no such database file (create it with 'cranfield campaign init')", source=target
        )
    return open_database(target)


def _deadline(text: str | None) -> dt.datetime | None:
    from ..errors import ParameterError

    if text is None:
        return None
    try:
        value = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ParameterError(
            "--deadline", "an ISO 8601 date, e.g. 2026-06-30T23:59", text
        ) from None
    if value.tzinfo is not None:
        value = value.astimezone(dt.timezone.utc).replace(tzinfo=None)
    return value


def _password(path: str) -> str:
    from ..errors import InputError

    if path == "-":
        text = sys.stdin.readline()
    else:
        with open(path, encoding="utf-8") as f:
            text = f.readline()
    password = text.rstrip("\r\n")
    if not password:
        raise InputError("the first line (the password) is empty", source=path)
    return password


def run(args) -> int:
    from ..service import require_serve

    require_serve()  # the one-line install hint, as `serve` gives it, before any import
    return globals()["run_" + args.action.replace("-", "_")](args)


def run_init(args) -> int:
    from ..errors import InputError
    from ..service import campaigns, demo

    settings = campaigns.Settings(
        title=args.title,
        scale=args.scale or campaigns.DEFAULT_SCALE,
        deadline=_deadline(args.deadline),
        max_runs=args.max_runs,
        per_topic=args.per_topic,
        aggregation=args.aggregation,
        measures=args.measures,
    )
    campaigns.check_name(args.name)
    if not args.sample and (not args.topics or not args.documents):
        raise InputError("give --topics and --documents, or --sample")
    from ..service.db import removed_on_failure

    # a failed init (bad documents, an interrupted pooling) leaves no database behind
    with removed_on_failure(args.database):
        if args.sample:
            db = _open(args.database, create=True)
            try:
                info = demo.sample_campaign(db, args.name, settings, progress=True)
            finally:
                db.close()
            print(
                f"campaign {args.name}: {info['topics']} topics, {info['documents']} "
                f"documents, {info['runs']} runs, pool of {info['pairs']} pairs "
                f"({info['strategy']})"
            )
            return 0
        from ..collection import read_documents, read_topics
        from ..core.io.collections import collection_id

        topics = read_topics(args.topics)
        by_id = collection_id(args.documents) is not None  # stored as runs name them
        documents = args.documents if by_id else read_documents(args.documents)
        db = _open(args.database, create=True)
        try:
            campaigns.create_campaign(db, args.name, topics, documents, settings)
        finally:
            db.close()
    more = f"; documents from {args.documents} as runs name them" if by_id else ""
    print(f"campaign {args.name}: {len(topics)} topics{more}")
    return 0


def run_add_user(args) -> int:
    from ..service import accounts

    accounts.check_username(args.user)
    password = _password(args.password_file)
    db = _open(args.database)
    accounts.add_user(
        db, args.user, password, role=args.role, campaign=args.campaign, exist_ok=True
    )
    where = f" in campaign {args.campaign}" if args.campaign else ""
    print(f"user {args.user}: {args.role}{where}")
    return 0


def run_pool(args) -> int:
    from ..service import pooling

    gold = ()
    if args.gold:
        from ..core.qrels import Qrels

        t = Qrels.read(args.gold).table
        gold = list(
            zip(
                t["query_id"].to_pylist(),
                t["doc_id"].to_pylist(),
                t["relevance"].to_pylist(),
                strict=True,
            )
        )
    db = _open(args.database)
    info = pooling.build(
        db, args.name, strategy=args.strategy, depth=args.depth, per_group=args.per_group, gold=gold
    )
    print(f"pool of {args.name}: {info['pairs']} pairs ({info['strategy']}), {info['gold']} gold")
    return 0


def run_assign(args) -> int:
    from ..service import pooling

    db = _open(args.database)
    assignment = pooling.assign(db, args.name, per_topic=args.per_topic, seed=seed_value(args))
    people = sorted({a for names in assignment.values() for a in names})
    print(f"{len(assignment)} topics assigned to {len(people)} assessors")
    return 0


def run_machine_labels(args) -> int:
    from ..service import machine_labels

    assessor = machine_labels.check_assessor(args.assessor)
    qrels = machine_labels.read(args.labels)
    db = _open(args.database)
    info = machine_labels.import_labels(db, args.name, qrels, assessor)
    print(
        f"{info['labels']} labels of {info['pool']} pooled pairs from {info['assessor']}"
        + (f" ({info['missing']} pairs unlabelled)" if info["missing"] else "")
    )
    return 0


def run_sample(args) -> int:
    from ..service import sampling

    bounds = sampling.parse_bounds(args.strata, "--strata")
    db = _open(args.database)
    info = sampling.choose(
        db,
        args.name,
        args.fraction,
        bounds=bounds,
        seed=seed_value(args),
        measure=args.measure,
        units=args.units,
    )
    if args.units == "topics":
        detail = f"{info['sampled_topics']} of {info['topics']} topics, each whole"
    else:
        detail = "; ".join(
            f"ranks {h['ranks']}: {h['sampled']} of {h['pairs']}" for h in info["strata"]
        )
    print(f"{info['sampled']} of {info['pairs']} pooled pairs to judge ({detail})")
    return 0


def run_mtc(args) -> int:
    from ..service import mtc_order

    runs = [r.strip() for r in args.runs.split(",")] if args.runs.strip() else None
    db = _open(args.database)
    info = mtc_order.choose(db, args.name, args.measure, runs=runs, threshold=args.threshold)
    question = " and ".join(info["runs"]) if info["runs"] else "every pair of runs"
    print(
        f"queues served in MTC order: {info['measure']} for {question}, threshold "
        f"{info['threshold']} ({info['topics']} topics, at most {info['documents']} documents each)"
    )
    return 0


def run_export(args) -> int:
    from ..service import estimates, exports, machine_labels, mtc_order, sampling

    db = _open(args.database)
    make = {
        "qrels": exports.qrels_text,
        "judgments": exports.judgments_tsv,
        "log": exports.log_tsv,
        "pool": exports.pool_text,
        "machine": machine_labels.labels_text,
        "sample": sampling.sample_tsv,
        "estimates": estimates.estimates_json,
        "mtc": mtc_order.status_json,
    }
    text = make[args.what](db, args.name)
    deliver(text, args.output)
    return 0
