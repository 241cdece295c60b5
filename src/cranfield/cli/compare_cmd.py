"""``cranfield compare``: significance tests, effect sizes and tables for runs."""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import sys
import warnings

from ..compare.stats import MAX_RESAMPLES
from ..errors import ParameterError
from ._args import add_measures

HELP = "compare runs: significance tests, effect sizes, tables"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ..compare import CORRECTIONS, FORMATS, TESTS

    parser.add_argument("qrels", nargs="?", help="qrels file (omit with --from-per-query)")
    parser.add_argument("runs", nargs="*", metavar="RUN", help="run files")
    add_measures(
        parser,
        "measures to compare (e.g. -m AP -m nDCG@10); with --from-per-query the default is all",
        dest="measure",
    )
    parser.add_argument(
        "--baseline",
        metavar="RUN",
        help="compare every run with this one, given by run name or by the path of one of "
        "the RUN files (default: all pairs)",
    )
    parser.add_argument(
        "--test",
        action="append",
        choices=TESTS,
        metavar="TEST",
        help="t (default), wilcoxon, sign, randomization, bootstrap or tukey; repeatable, "
        "the first decides significance",
    )
    parser.add_argument(
        "--correction",
        choices=CORRECTIONS,
        default="holm",
        help="multiple-comparison correction (default holm)",
    )
    parser.add_argument(
        "--alpha", default="0.05", help="significance level, 0 < ALPHA < 1 (default 0.05)"
    )
    parser.add_argument(
        "--alternative", choices=("two-sided", "greater", "less"), default="two-sided"
    )
    parser.add_argument(
        "--ci", choices=("t", "bootstrap"), default="t", help="interval of the mean difference"
    )
    parser.add_argument(
        "--confidence", default="0.95", help="interval level, 0 < LEVEL < 1 (default 0.95)"
    )
    parser.add_argument(
        "--permutations",
        default="10000",
        help="random permutations / bootstrap resamples, 1 to "
        f"{MAX_RESAMPLES:_} (default 10000)".replace("_", ","),
    )
    parser.add_argument(
        "--seed", default="0", help="seed of the randomised tests, an integer >= 0 (default 0)"
    )
    parser.add_argument(
        "--complete", action="store_true", help="score queries missing from a run as 0"
    )
    parser.add_argument("--format", choices=FORMATS, default="text")
    parser.add_argument(
        "--table", choices=("detail", "summary"), help="layout (default: summary for latex/html)"
    )
    parser.add_argument(
        "--from-per-query",
        nargs="+",
        metavar="FILE",
        help="read per-query scores instead of evaluating QRELS and RUNs: the output of "
        "cranfield eval --per-query (any --format; csv keeps full precision), trec_eval -q "
        "(one or several runs per file) or a run,qid,measure,value table",
    )


def number(text: str, name: str, kind: type, low: float, high: float, *, open_: bool = False):
    """``text`` as an ``int`` or ``float`` within [low, high] (``open_``: (low, high)).

    Fails with :class:`ParameterError` naming the allowed range. Integers may be written
    ``1e4``; non-finite and fractional values are refused for integers.
    """
    if kind is int:
        allowed = f"an integer from {low:,} to {high:,}".replace(",", "")
    elif open_:
        allowed = f"a number strictly between {low:g} and {high:g}"
    else:
        allowed = f"a number from {low:g} to {high:g}"
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise ParameterError(name, allowed, text) from None
    if not math.isfinite(value):
        raise ParameterError(name, allowed, text)
    if kind is int:
        if not value.is_integer():
            raise ParameterError(name, allowed, text)
        try:
            value = int(text)
        except ValueError:
            value = int(value)
    inside = low < value < high if open_ else low <= value <= high
    if not inside:
        raise ParameterError(name, allowed, text)
    return value


def _options(args) -> dict:
    """The numeric options, validated before any file is read."""
    return {
        "alpha": number(args.alpha, "--alpha", float, 0, 1, open_=True),
        "confidence": number(args.confidence, "--confidence", float, 0, 1, open_=True),
        "n_permutations": number(args.permutations, "--permutations", int, 1, MAX_RESAMPLES),
        "seed": number(args.seed, "--seed", int, 0, 2**63 - 1),
    }


@contextlib.contextmanager
def warnings_as_notes(notes: list[str]):
    """Collect the warnings raised inside (NumPy, SciPy) into ``notes``, once each,
    instead of letting Python print them raw with file names and line numbers."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    for text in dict.fromkeys(str(w.message).splitlines()[0] for w in caught if str(w.message)):
        notes.append(text)


def emit(text: str) -> None:
    """Write ``text`` and a newline to standard output; a closed stdout is an error."""
    if sys.stdout is None:  # started with >&-
        from ..errors import CranfieldError

        raise CranfieldError("standard output is closed: nowhere to write the result")
    sys.stdout.write(text + "\n")


def print_notes(command: str, notes: list[str]) -> None:
    """``cranfield COMMAND: note: ...`` lines on stderr (nothing when stderr is closed:
    ``print(file=None)`` would write them into the result on stdout)."""
    if sys.stderr is None:
        return
    try:
        for text in notes:
            print(f"cranfield {command}: note: {text}", file=sys.stderr, flush=True)
    except OSError:  # stderr closed under us: notes are dropped, the result stands
        pass


def rounded_note(source: str) -> str:
    """The note for a score file whose values trec_eval rounded to 4 decimals."""
    return (
        f"{source} holds values rounded to 4 decimals (trec_eval format); statistics are "
        "computed on the rounded values (cranfield eval --per-query --format csv keeps "
        "full precision)"
    )


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _read_runs(args):
    """The RUN files as :class:`~cranfield.Run` objects, named as ``cranfield eval``
    names them (TREC tag, or the file name when two runs share a tag)."""
    from ..run import Run, _default_name

    runs = [Run.read(path) for path in args.runs]
    names = [r.name for r in runs]
    if len(set(names)) != len(names):
        for r in runs:
            r.name = _default_name(r.source)
    return runs


def resolve_baseline(baseline: str | None, names, paths=()) -> str | None:
    """The run name ``baseline`` designates: a run name, or the path of one of the run
    files (``paths[i]`` is the file of run ``names[i]``)."""
    if baseline is None or baseline in names:
        return baseline
    for name, path in zip(names, paths, strict=False):
        if baseline == str(path) or _same_file(baseline, str(path)):
            return name
    allowed = "a run name (" + ", ".join(names) + ")"
    if paths:
        allowed += " or one of the run files"
    raise ParameterError("--baseline", allowed, baseline)


def _scores(args):
    """(per-query scores, baseline run name, notes for stderr), everything validated
    before evaluation."""
    from ..compare.per_query import read_table

    if args.from_per_query:
        if args.qrels or args.runs:
            raise ParameterError(
                "QRELS/RUN", "no positional files with --from-per-query", [args.qrels, *args.runs]
            )
        table = read_table(args.from_per_query)
        notes = [rounded_note(source) for source in table.rounded]
        scores = table.scores
        if not scores:
            raise ParameterError(
                "--from-per-query",
                "per-query scores (cranfield eval --per-query, trec_eval -q)",
                "a table of aggregates only",
            )
        if args.measure:
            missing = [m for m in args.measure if m not in scores]
            if missing:
                raise ParameterError(
                    "--measure", "measures in the file: " + ", ".join(scores), missing
                )
            scores = {m: scores[m] for m in args.measure}
        runs = dict.fromkeys(r for per_run in scores.values() for r in per_run)
        return scores, resolve_baseline(args.baseline, list(runs)), notes
    if not args.qrels or len(args.runs) < 2:
        raise ParameterError(
            "QRELS RUN RUN",
            "a qrels file and at least two runs (or --from-per-query)",
            [args.qrels, *args.runs],
        )
    if not args.measure:
        raise ParameterError("--measure", "at least one measure", None)
    from ..evaluation import as_measures, evaluate

    measures = as_measures(args.measure)  # unknown names fail before any file is read
    from ..io.source import check_path

    for path in [args.qrels, *args.runs]:
        if path != "-":
            check_path(path, path)
    runs = _read_runs(args)
    baseline = resolve_baseline(args.baseline, [r.name for r in runs], args.runs)
    results = evaluate(args.qrels, runs, measures, complete=args.complete)
    return results.per_query_table(), baseline, []


def run(args) -> int:
    from ..compare import compare

    options = _options(args)
    notes: list[str] = []
    with warnings_as_notes(notes):
        scores, baseline, read_notes = _scores(args)
        result = compare(
            scores,
            baseline=baseline,
            tests=tuple(args.test or ("t",)),
            correction=args.correction,
            complete=args.complete,
            ci=args.ci,
            alternative=args.alternative,
            **options,
        )
        text = result.render(args.format, args.table)
    emit(text)
    notes = read_notes + notes
    print_notes("compare", notes)  # after the result: a failure is one line, no notes
    return 0
