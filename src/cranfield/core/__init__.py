"""The ranked-retrieval evaluation core.

* :mod:`.qrels`, :mod:`.run` — the two inputs (files, DataFrames, dicts, Arrow);
* :mod:`.io` — readers (TREC text through the compiled engine, tabular), atomic output;
* :mod:`.judged` — Run x Qrels -> JudgedRun (join, ordering, -M/-J/-l semantics);
* :mod:`.measures` — the measure registry and its vectorised kernels;
* :mod:`.evaluation` — ``evaluate(qrels, runs, measures)`` -> Results;
* :mod:`.engine_judge`, :mod:`.memory` — TREC runs of any size judged by the compiled
  engine in bounded memory;
* :mod:`.trec_eval` — the drop-in front end with byte-exact output.

Nothing is imported by ``import cranfield.core``; the public names are re-exported
lazily by :mod:`cranfield`.
"""
