"""Type stub of ``cranfield._engine``, the compiled engine (``rust/engine``, PyO3).

Every function and class the module defines, with its parameters as the module's
``__text_signature__`` gives them; ``tests/engine/test_stub.py`` fails when the two
disagree. The docstrings of the functions are in ``rust/engine/src/*.rs``.
"""

from collections.abc import Iterable, Mapping, Sequence
from os import PathLike
from typing import Any, Literal, final

import numpy as np
import numpy.typing as npt

from cranfield.core.options import JudgeOptions

_Path = str | PathLike[str]
_Labels = npt.NDArray[np.int8] | npt.NDArray[np.int64] | npt.NDArray[np.float64]
_Offsets = npt.NDArray[np.int32] | npt.NDArray[np.int64]
# one Arrow record batch: query id offsets and data, doc id offsets and data, values
_Batch = tuple[
    _Offsets,
    npt.NDArray[np.uint8],
    _Offsets,
    npt.NDArray[np.uint8],
    npt.NDArray[np.float64] | npt.NDArray[np.int64],
]
# a measure: (family, cutoff or None, parameters)
_Spec = tuple[str, int | float | None, dict[str, Any]]
# a piece of a parsed TREC input: query offsets and bytes, doc offsets and bytes, values
_Piece = tuple[
    npt.NDArray[np.int64],
    npt.NDArray[np.uint8],
    npt.NDArray[np.int64],
    npt.NDArray[np.uint8],
    npt.NDArray[np.float64] | npt.NDArray[np.int64],
]
# (pieces, lines or None, query starts, tag or None, rows)
_Parsed = tuple[
    list[_Piece], npt.NDArray[np.int64] | None, npt.NDArray[np.int64], bytes | None, int
]
# (query_ids, offsets, labels, qrels_offsets, qrels_grades, in_run, run name)
_Judged = tuple[
    list[str],
    npt.NDArray[np.int64],
    _Labels,
    npt.NDArray[np.int64],
    npt.NDArray[np.int64] | npt.NDArray[np.float64],
    npt.NDArray[np.bool_],
    str,
]
# a printed trec_eval column: (printed, kind, spec or None, blank, reset, recount)
_Col = tuple[str, str, _Spec | None, bool, bool, bool]
# an LTR measure: (kind, cutoff or 0, level, normalise, zero_if_short, gains, log_continue)
_LtrSpec = tuple[
    str, int, int, str, bool, npt.NDArray[np.float64] | None, npt.NDArray[np.float64] | None
]

# a click log: (query, docs, clicks, times or None, user codes or None, query names,
# doc names, user names, ranks); docs, clicks and times flat, sessions x ranks row-major
_ClickLog = tuple[
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.bool_],
    npt.NDArray[np.float64] | None,
    npt.NDArray[np.int64] | None,
    list[str],
    list[str],
    list[str],
    int,
]
# a click-log column: (name, kind, (list offsets, list validity) or None, offsets, data,
# validity or None)
_ClickColumn = tuple[
    str,
    str,
    tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_] | None] | None,
    npt.NDArray[np.int64],
    npt.NDArray[np.uint8],
    npt.NDArray[np.bool_] | None,
]

#: the package's version, declared once in rust/Cargo.toml
__version__: str
#: how the engine was built: profile, target, Python ABI (``cranfield --version``)
BUILD: str

class ReadError(Exception):
    """A problem with an input: args are (what, line or None, detail or None)."""

class JudgeError(Exception):
    """Judging TREC files failed: args are (what, input, line or None, detail or None)."""

@final
class ReadCounter:
    """The bytes an engine call reads from its inputs, updated while it works."""

    def __new__(cls) -> ReadCounter: ...
    @property
    def bytes(self) -> int: ...

@final
class QrelsIndex:
    """Qrels judged once for any number of runs and calls (``Qrels.index()``)."""

    def __new__(cls, batches: Iterable[_Batch]) -> QrelsIndex: ...
    @property
    def rows(self) -> int: ...
    @property
    def topics(self) -> int: ...

@final
class LtrKernel:
    """The batched learning-to-rank objective (``rust/ltr``)."""

    def __new__(
        cls,
        offsets: npt.NDArray[np.int64],
        labels: npt.NDArray[np.int64],
        discount: npt.NDArray[np.float64],
        measures: list[_LtrSpec],
        features: npt.NDArray[np.float64],
        columns: npt.NDArray[np.int64],
    ) -> LtrKernel: ...
    def evaluate(
        self, scores: npt.NDArray[np.float64], threads: int
    ) -> npt.NDArray[np.float64]: ...
    def evaluate_weights(
        self, weights: npt.NDArray[np.float64], threads: int
    ) -> npt.NDArray[np.float64]: ...
    def objective_weights(
        self, weights: npt.NDArray[np.float64], shares: npt.NDArray[np.float64], threads: int
    ) -> npt.NDArray[np.float64]: ...

def set_out_of_memory_line(line: str) -> None: ...
def diversity_families() -> list[str]: ...
def diversity_measures(
    asked: list[tuple[str, int, float, float]],
    line_topic: npt.NDArray[np.int64],
    line_doc: npt.NDArray[np.int64],
    line_subtopic: npt.NDArray[np.int64],
    line_grade: npt.NDArray[np.int64],
    topic_docs: npt.NDArray[np.int64],
    topics: npt.NDArray[np.int64],
    offsets: npt.NDArray[np.int64],
    ranked: npt.NDArray[np.int64],
    weights: tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float64]]
    | None = None,
) -> list[npt.NDArray[np.float64]]: ...
def ndeval_report(
    qrels: tuple[bytes, str],
    run: tuple[bytes, str],
    baseline: tuple[bytes, str] | None,
    options: Mapping[str, object],
) -> str: ...
def ndeval_report_files(
    qrels: tuple[_Path, str],
    run: tuple[_Path, str],
    baseline: tuple[_Path, str] | None,
    options: Mapping[str, object],
    max_line: int,
    max_bytes: int,
) -> str | None: ...
def number_subtopic_qrels(
    query_offsets: npt.NDArray[np.int64],
    query_data: npt.NDArray[np.uint8],
    doc_offsets: npt.NDArray[np.int64],
    doc_data: npt.NDArray[np.uint8],
) -> tuple[
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
]: ...
def read_subtopic_qrels(
    data: bytes, name: str
) -> tuple[
    npt.NDArray[np.int64],
    npt.NDArray[np.uint8],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.uint8],
    npt.NDArray[np.int64],
]: ...
def read_click_text(data: bytes, format: str) -> _ClickLog: ...
def read_click_table(columns: Sequence[_ClickColumn], rows: int, text: bool) -> _ClickLog: ...

class ClickTextReader:
    def __new__(cls, format: str, parallel_from: int | None = ...) -> ClickTextReader: ...
    def feed(self, piece: bytes) -> None: ...
    def finish(self) -> _ClickLog: ...

class ClickTableReader:
    def __new__(cls) -> ClickTableReader: ...
    def feed(self, columns: Sequence[_ClickColumn], rows: int, text: bool) -> None: ...
    def finish(self) -> _ClickLog: ...

def read_trec_bytes(data: bytes, kind: str, latin1: bool, max_line: int) -> _Parsed: ...
def read_trec_file(
    path: _Path, kind: str, latin1: bool, max_line: int, max_bytes: int | None = None
) -> _Parsed: ...
def read_svmlight(
    data: bytes,
    has_qid: bool,
    max_feature: int,
    budget: int | None = None,
    layout: str = "dense",
) -> tuple[
    npt.NDArray[np.float64],
    list[str] | None,
    npt.NDArray[np.float64]
    | tuple[npt.NDArray[np.int64], npt.NDArray[np.int32], npt.NDArray[np.float64], int],
    list[str] | None,
    npt.NDArray[np.int64],
]: ...
def ltr_scores(
    features: npt.NDArray[np.float64], weights: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]: ...
def ltr_scores_csr(
    indptr: npt.NDArray[np.int64],
    indices: npt.NDArray[np.int32],
    values: npt.NDArray[np.float64],
    weights: npt.NDArray[np.float64],
) -> npt.NDArray[np.float64]: ...
def ltr_weight_lines(
    weights: npt.NDArray[np.float64], per_line: int, indent: bytes, continued: bool
) -> bytes: ...
def ltr_model_weights(text: bytes) -> tuple[int, int, npt.NDArray[np.float64]] | None: ...
def aggregate(
    values: npt.NDArray[np.float64] | Sequence[float], how: str, num_queries: int | None = None
) -> float: ...
def measure_families() -> list[str]: ...
def micro_formulas() -> list[str]: ...
def micro_averages(
    specs: list[_Spec],
    formulas: Sequence[str],
    offsets: npt.NDArray[np.int64],
    labels: _Labels,
    qrels_offsets: npt.NDArray[np.int64],
    qrels_grades: _Labels,
    in_run: npt.NDArray[np.bool_],
    rel_level: int,
    compat: int,
) -> list[float]: ...
def compute_measures(
    specs: list[_Spec],
    offsets: npt.NDArray[np.int64],
    labels: _Labels,
    qrels_offsets: npt.NDArray[np.int64],
    qrels_grades: _Labels,
    in_run: npt.NDArray[np.bool_],
    rel_level: int,
    compat: int,
    threads: int = 1,
) -> list[npt.NDArray[np.float64] | tuple[str, ...]]: ...
def cwl_table(
    specs: list[_Spec],
    offsets: npt.NDArray[np.int64],
    gains: npt.NDArray[np.float64],
    costs: npt.NDArray[np.float64],
    max_depth: int,
    min_gain: float,
    max_gain: float,
    min_cost: float,
    max_cost: float,
    residuals: bool,
) -> npt.NDArray[np.float64]: ...
def libm_unary(
    name: Literal["log", "log2", "log1p", "exp", "exp2"], x: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]: ...
def libm_pow(x: npt.NDArray[np.float64], y: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]: ...
def judge_trec_files(
    run_path: _Path,
    qrels: _Path | QrelsIndex,
    *,
    options: JudgeOptions | None = None,
    latin1: bool = False,
    fractional: bool = False,
    qrels_duplicates: str = "error",
    max_line: int = ...,
    max_bytes: int | None = None,
    piece_bytes: int = ...,
    whole_bytes: int = ...,
    regroup_bytes: int | None = None,
    progress: ReadCounter | None = None,
) -> _Judged: ...
def judge_arrow_runs(
    runs: Iterable[Iterable[_Batch]],
    qrels: QrelsIndex,
    *,
    options: JudgeOptions | None = None,
    doc_rows: bool = True,
) -> list[
    tuple[
        list[str],
        npt.NDArray[np.int64],
        _Labels,
        npt.NDArray[np.int64],
        npt.NDArray[np.int64] | npt.NDArray[np.float64],
        npt.NDArray[np.bool_],
        str,
        npt.NDArray[np.int64] | None,
    ]
]: ...
def repeated_pairs(
    table: Iterable[_Batch], kind: str, policy_name: str
) -> tuple[int, int] | npt.NDArray[np.int64] | None: ...
def join_lines(
    columns: list[bytes | tuple[npt.NDArray[np.int64], npt.NDArray[np.uint8]]],
    separator: bytes,
    rows: int,
) -> bytes: ...
def json_float_items(values: npt.NDArray[np.float64], item_shape: list[int]) -> str: ...
def fusion_rows_arrow(
    runs: Iterable[Iterable[_Batch]],
) -> tuple[
    npt.NDArray[np.int64],  # query offsets
    npt.NDArray[np.uint8],  # query data
    npt.NDArray[np.int64],  # doc offsets
    npt.NDArray[np.uint8],  # doc data
    npt.NDArray[np.int64],  # cand_query
    npt.NDArray[np.int64],  # cand_offsets
    npt.NDArray[np.int64],  # run
    npt.NDArray[np.int64],  # query
    npt.NDArray[np.int64],  # cand
    npt.NDArray[np.int64],  # rank
    npt.NDArray[np.int64],  # length
    npt.NDArray[np.float64],  # score
    npt.NDArray[np.int64],  # counts, run-major
]: ...

# an evaluated run: (name, query ids, one column per spec, relevant or None, micro or None)
_Evaluated = tuple[
    str, list[str], list[list[float] | list[str]], list[bool] | None, list[float] | None
]

def evaluate_trec_files(
    qrels: _Path | QrelsIndex,
    run_paths: Sequence[_Path],
    specs: list[_Spec],
    *,
    options: JudgeOptions | None = None,
    latin1: bool = False,
    fractional: bool = False,
    max_line: int = ...,
    max_bytes: int | None = None,
    judged_only_specs: Sequence[bool] = ...,
    skip_no_relevant: bool = False,
    micro: Sequence[str] | None = None,
    fractional_refusals: Sequence[str | None] = ...,
    piece_bytes: int = ...,
    whole_bytes: int = ...,
    regroup_bytes: int | None = None,
    progress: ReadCounter | None = None,
) -> tuple[int, list[_Evaluated], tuple[int, str] | None]: ...
def evaluate_arrow(
    qrels: QrelsIndex,
    runs: Iterable[Iterable[_Batch]],
    specs: list[_Spec],
    *,
    options: JudgeOptions | None = None,
    judged_only_specs: Sequence[bool] = ...,
    skip_no_relevant: bool = False,
    micro: Sequence[str] | None = None,
    fractional_refusals: Sequence[str | None] = ...,
) -> tuple[int, list[_Evaluated]]: ...
def trec_eval_print(
    columns: list[_Col],
    values: list[npt.NDArray[np.float64] | Sequence[str] | None],
    added: Sequence[bool],
    query_ids: list[bytes],
    run_name: bytes,
    per_query: bool,
    summary: bool,
    complete: bool,
    relevant_in_qrels: float,
    zscores: dict[tuple[bytes, str], tuple[float, float]] | None = None,
) -> tuple[bytes, list[bytes]]: ...
def trec_eval_files(
    columns: list[_Col],
    qrels_path: _Path,
    run_path: _Path,
    options: JudgeOptions,
    per_query: bool,
    summary: bool,
    zscores: dict[tuple[bytes, str], tuple[float, float]] | None = None,
    max_line: int = ...,
    max_bytes: int | None = None,
    piece_bytes: int = ...,
    whole_bytes: int = ...,
    regroup_bytes: int | None = None,
    progress: ReadCounter | None = None,
) -> tuple[bytes, list[str], list[bytes], tuple[int, str] | None] | None: ...
def team_draft_lists(
    sets: npt.NDArray[np.int64],
    shape: tuple[int, int, int],
    which: npt.NDArray[np.int64],
    keys: npt.NDArray[np.float64],
    positions: int,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]: ...
