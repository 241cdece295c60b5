"""One option, one declaration: ``-f/--format``, ``--digits``, ``--seed``, ``--baseline`` and
the output options are declared by their helpers in ``cli/_args.py`` (one help text, one reading,
one meaning) and never by a command itself. The scan reads every module of the command
line, the parsers built inside functions included."""

from __future__ import annotations

import ast
from pathlib import Path

CLI = Path(__file__).resolve().parents[2] / "src" / "cranfield" / "cli"

#: flag -> the helper of cli/_args.py that declares it
SHARED = {
    "-f": "add_format",
    "--format": "add_format",
    "--digits": "add_digits",
    "--seed": "add_seed",
    "-o": "add_output",
    "--output": "add_output",
    "--baseline": "add_baselines",
    "-m": "add_measures",
    "--duplicates": "add_duplicates",
    "--topic-groups": "add_topic_groups",
    "-l": "add_rel_level",
    "--rel-level": "add_rel_level",
    "--subtopic-qrels": "add_subtopic_qrels",
    "--sampled-qrels": "add_sampled_qrels",
}
#: trec_eval's own option table mirrors trec_eval's flags (its -f is not a format)
EXEMPT = {"trec_eval_cmd.py"}
#: -m is always a measure (add_measures; another meaning is refused with add_refused),
#: except in a drop-in replacement's own flags and where one measure of a table is named
FLAG_EXEMPT = {
    "-m": {
        "cwl_cmd.py": "cwl_eval's -m (its metrics file): a drop-in keeps its flags",
        "correlate_cmd.py": "the one measure of a result table that orders the runs",
    }
}


def declared_by_hand(folder: Path = CLI) -> list[str]:
    found = []
    for path in sorted(folder.glob("*.py")):
        if path.name == "_args.py" or path.name in EXEMPT:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument":
                flags = [a.value for a in node.args if isinstance(a, ast.Constant)]
                for flag in set(flags) & set(SHARED):
                    if path.name in FLAG_EXEMPT.get(flag, {}):
                        continue
                    found.append(f"{path.name}:{node.lineno} {flag} (use _args.{SHARED[flag]})")
    return found


def test_no_command_declares_a_shared_option_itself():
    assert declared_by_hand() == []


def test_the_scan_finds_a_hand_made_declaration(tmp_path):
    """The rule can fail: a module declaring ``--seed`` itself is reported."""
    (tmp_path / "x_cmd.py").write_text(
        "def add_arguments(p):\n    p.add_argument('--seed', default='0')\n"
    )
    assert declared_by_hand(tmp_path) == ["x_cmd.py:2 --seed (use _args.add_seed)"]
