"""The README's examples are true: each ``sh`` block of one ``cranfield`` command that
is followed by an output block is run in the sample collection (``cranfield demo``
writes it) and must print exactly that block (standard output, then standard error's
notes). The blocks are read from README.md, so an edited README is checked too."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from adversarial.harness import run_cli
from cranfield import sample

README = Path(__file__).resolve().parents[1] / "README.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.S | re.M)


def examples(text: str) -> list[tuple[str, str]]:
    """(command, output) of every ``sh`` block holding one ``cranfield`` command and
    followed, after blank lines only, by a block without a language."""
    blocks = [(m.group(1), m.group(2), m.start(), m.end()) for m in FENCE.finditer(text)]
    found = []
    for (lang, body, _, end), (next_lang, output, start, _) in zip(
        blocks, blocks[1:], strict=False
    ):
        commands = [ln for ln in body.splitlines() if ln.strip() and not ln.startswith("#")]
        if (
            lang == "sh"
            and next_lang == ""
            and not text[end:start].strip()
            and len(commands) == 1
            and commands[0].startswith("cranfield ")
        ):
            found.append((commands[0], output))
    return found


EXAMPLES = examples(README.read_text())


def test_the_readme_has_examples_to_check():
    assert len(EXAMPLES) >= 3
    assert any(c.startswith("cranfield eval ") for c, _ in EXAMPLES)
    assert any(c.startswith("cranfield compare ") for c, _ in EXAMPLES)


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    directory = tmp_path_factory.mktemp("sample-collection")
    sample.write(directory)
    return directory


@pytest.mark.parametrize("command, output", EXAMPLES, ids=[c for c, _ in EXAMPLES])
def test_a_readme_example_prints_what_the_readme_shows(collection, command, output):
    argv = shlex.split(command)[1:]
    done = run_cli(*argv, cwd=collection)
    assert done.status == 0, done
    assert done.stdout.decode() + done.stderr == output
