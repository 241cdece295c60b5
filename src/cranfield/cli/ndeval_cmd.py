"""``cranfield ndeval``: a drop-in replacement for ndeval (TREC Web track diversity
evaluation, ndeval.c 4.5).

Same options and the same CSV output, byte for byte (docs/diversity.md). Options come
before the two files, as ndeval reads them. Exit status: 0 success, 1 bad option, 2
input error (one line on standard error).
"""

from __future__ import annotations

import sys

from ._output import deliver

OPTIONS_TEXT = """usage: cranfield ndeval [options] qrels run

Novelty and diversity measures of a TREC run exactly as ndeval 4.5 computes them,
written to standard output as ndeval's CSV: one row per run topic, then 'amean'.

  -alpha VALUE        redundancy intolerance of alpha-nDCG, ERR-IA and NRBP (default
                      0.5, in [0, 1])
  -beta VALUE         patience of NRBP (default 0.5, in [0, 1])
  -traditional        rank each topic by score (descending), ties by docno
                      (descending); default: by the rank column
  -baseline RUN       risk-sensitive evaluation relative to this run
  -riskAlpha VALUE    risk sensitivity (>= 0, default 0): a loss against the baseline
                      weighs 1 + VALUE
  -c                  average over every qrels topic (and the baseline's), not only
                      the run's topics that the qrels know
  -M DEPTH            evaluate only the top DEPTH documents of each topic
  -a                  accepted and ignored, as ndeval does
  -version            print the version of ndeval reproduced

Qrels lines are 'topic subtopic docno judgment' (a judgment above 1 counts as 1); run
lines 'topic Q0 docno rank score runid' (the topic may carry a prefix ending in '-',
e.g. wt09-1). Use '-' for one of the files to read standard input. The same measures
in the measure language: cranfield eval --subtopic-qrels (docs/diversity.md)."""

VERSION = "cranfield ndeval: reproduces ndeval version 4.5 (Mon 29 Apr 2013 20:51:02 EDT)"


class _Usage(Exception):
    pass


def _number(text: str, option: str, lo: float, hi: float | None) -> float:
    try:
        value = float(text)
    except ValueError:
        raise _Usage(f"option {option} expects a number, got {text!r}") from None
    if not (lo <= value and (hi is None or value <= hi)):
        span = f"in [{lo:g}, {hi:g}]" if hi is not None else f">= {lo:g}"
        raise _Usage(f"option {option} expects a number {span}, got {text!r}")
    return value


def parse(argv: list[str]) -> dict:
    """ndeval's options, read as ndeval reads them (each before the two files)."""
    args = list(argv)
    o = dict(
        alpha=0.5,
        beta=0.5,
        traditional=False,
        depth=None,
        complete=False,
        baseline=None,
        risk_alpha=0.0,
        risk_alpha_text="0",
    )
    while len(args) != 2:
        head = args[0] if args else None
        if head in ("-version", "--version"):
            return {"version": True}
        if head in ("-help", "-h", "--help"):
            return {"help": True}
        valued = ("-alpha", "-beta", "-M", "-baseline", "-riskAlpha")
        if head in valued and len(args) >= 4:
            value = args[1]
            if head == "-alpha":
                o["alpha"] = _number(value, head, 0.0, 1.0)
            elif head == "-beta":
                o["beta"] = _number(value, head, 0.0, 1.0)
            elif head == "-M":
                if not value.isdigit() or int(value) <= 0:
                    raise _Usage(f"option -M expects a positive integer, got {value!r}")
                o["depth"] = int(value)
            elif head == "-baseline":
                o["baseline"] = value
            else:
                o["risk_alpha"] = _number(value, head, 0.0, None)
                o["risk_alpha_text"] = value
            del args[:2]
        elif head == "-traditional" and len(args) >= 3:
            o["traditional"] = True
            del args[0]
        elif head is not None and len(args) >= 3 and head.startswith("-") and len(head) > 1:
            for flag in head[1:]:
                if flag == "c":
                    o["complete"] = True
                elif flag != "a":
                    raise _Usage(f"unknown option {head!r}")
            del args[0]
        else:
            wanted = "expected [options] qrels run"
            raise _Usage(wanted if len(args) < 2 else f"{wanted}, got {head!r} first")
    o["files"] = args
    return o


def main(argv: list[str]) -> int:
    from ..errors import CranfieldError

    try:
        o = parse(argv)
    except _Usage as exc:
        print(f"cranfield ndeval: error: {exc} (see cranfield ndeval --help)", file=sys.stderr)
        return 1
    if o.get("help"):
        from .main import description

        print(f"{description('ndeval')}\n\n{OPTIONS_TEXT}")
        raise SystemExit(0)
    if o.get("version"):
        print(VERSION)
        return 0
    files = [*o["files"], *([o["baseline"]] if o["baseline"] else [])]
    if files.count("-") > 1:
        print(
            "cranfield ndeval: error: only one of the files can be standard input", file=sys.stderr
        )
        return 1
    try:
        text = report(o)
    except (CranfieldError, OSError) as exc:
        print(f"cranfield ndeval: error: {exc}", file=sys.stderr)
        return 2
    deliver(text, None)  # standard output; a reader gone away (| head) is no error
    return 0


def report(o: dict) -> str:
    """ndeval's output for the parsed options ``o`` (the engine reads and computes)."""
    from .. import _engine
    from ..core.io.source import MAX_LINE, read_bytes, source_name
    from ..core.memory import input_budget

    paths = [o["files"][0], o["files"][1], *([o["baseline"]] if o["baseline"] else [])]
    if "-" not in paths:  # plain regular files are read by the engine itself
        named = [(p, source_name(p)) for p in paths]
        budget = input_budget()
        report = _engine.ndeval_report_files(
            named[0],
            named[1],
            named[2] if len(named) > 2 else None,
            o,
            MAX_LINE,
            (1 << 63) - 1 if budget is None else max(int(budget), 0),
        )
        if report is not None:
            return report

    def data(path: str) -> tuple[bytes, str]:  # (the reader that names any problem)
        name = source_name(path)
        return read_bytes(path, name), name

    baseline = data(o["baseline"]) if o["baseline"] else None
    return _engine.ndeval_report(data(o["files"][0]), data(o["files"][1]), baseline, o)
