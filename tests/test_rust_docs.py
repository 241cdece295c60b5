"""The Rust crates' doc comments hold no code block: `make rust-check` runs the unit
tests with `cargo test --tests`, which leaves doctests out (building them would compile
each library a second time), so a doctest would never run. A formula or an example in a
doc comment is a fenced block marked `text`; rustdoc would test a fenced block without
that mark, and an indented one (four spaces after a blank doc line)."""

from __future__ import annotations

import re
from pathlib import Path

RUST = Path(__file__).resolve().parents[1] / "rust"
FENCE = re.compile(r"^\s*//[/!]\s*(```+|~~~+)(.*)$")
BLANK = re.compile(r"^\s*//[/!]\s*$")
INDENTED = re.compile(r"^\s*//[/!]( {5,}|\t)\S")  # the space after /// and four more


def rust_sources() -> list[Path]:
    return sorted(p for p in RUST.rglob("*.rs") if "target" not in p.relative_to(RUST).parts)


def doctest_lines(text: str) -> list[int]:
    """Line numbers of doc-comment blocks rustdoc would test: fences and indented
    blocks."""
    found, inside, after_blank = [], False, False
    for number, line in enumerate(text.splitlines(), 1):
        if not inside and after_blank and INDENTED.match(line):
            found.append(number)
        after_blank = bool(BLANK.match(line))
        m = FENCE.match(line)
        if not m:
            continue
        if not inside:
            info = {w.strip() for w in m.group(2).split(",") if w.strip()}
            if not info & {"text", "ignore", "compile_fail"}:
                found.append(number)
        inside = not inside
    return found


def test_no_doc_comment_holds_a_doctest():
    sources = rust_sources()
    assert len(sources) > 20  # the crates were found
    bad = {
        str(p.relative_to(RUST)): lines
        for p in sources
        if (lines := doctest_lines(p.read_text(encoding="utf-8")))
    }
    assert not bad, (
        f"doctests would not run (make rust-check: cargo test --tests): {bad}; "
        "mark the block `text`, or make it a unit test"
    )


def test_the_check_sees_a_doctest():
    assert doctest_lines("/// ```\n/// let x = 1;\n/// ```\n") == [1]
    assert doctest_lines("//! ```rust\n//! f();\n//! ```\n") == [1]
    assert doctest_lines("/// ```text\n/// a = b\n/// ```\n") == []
    assert doctest_lines("// ```\n") == []  # a plain comment is not documentation
    assert doctest_lines("/// A sum:\n///\n///     let s = a + b;\n") == [3]
    assert doctest_lines("/// - a point\n///   continued\n") == []
