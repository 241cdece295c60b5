"""Prompts of a machine assessor: the default relevance prompt, user templates, answers.

The default prompt follows the structure of UMBRELA (Upadhyay et al. 2024, "UMBRELA: UMbrela
is the (Open-Source Reproduction of the) Bing RELevance Assessor"), which reproduces the
prompt of Thomas, Spielman, Craswell & Mitra (2024, "Large language models can accurately
predict searcher preferences"): the assessor is told it rates search results, is given the
topic (title, description, narrative) and the document, the label scale with the meaning of
each grade, is asked to consider the searcher's intent, how well the document matches it
and how trustworthy it is, and answers with one line ``##final score: N``. The wording
here is cranfield's own.

A template is text with placeholders in braces, each replaced by its value:
``{title}``, ``{description}``, ``{narrative}``, ``{document}`` (the document's title
and text), ``{scale}`` (one line per grade: ``N = meaning``), ``{lowest}`` and
``{highest}`` (the scale's ends). Other braces are left as they are, so a template may
hold JSON examples. The prompt's hash (:func:`prompt_hash`) names the assessor together
with the model: a changed template is another assessor.
"""

from __future__ import annotations

import hashlib
import re

from ..errors import InputError
from .data import Scale

SYSTEM = (
    "You are a search quality rater. You judge how relevant a document is to what a "
    "searcher is looking for, and you answer only in the format you are asked for."
)

#: The default user prompt (UMBRELA's structure, after Thomas et al. 2024).
DEFAULT_TEMPLATE = """\
A searcher typed a query into a search engine. Judge how well the document below \
serves what they were looking for, on this scale:
{scale}

Use {lowest} when the document has nothing to do with the query. Give a grade above \
{lowest} when the document is at least on the topic of the query, even if it does not \
fully answer it.

Query: {title}
What the searcher wants: {description}
What makes a document relevant: {narrative}

Document:
{document}

Work in three steps, without writing them out. First, think about what the searcher \
most likely intends with this query. Second, decide how well the content of the \
document matches that intent (M) and how trustworthy the document is (T). Third, \
weighing M and T, choose the final grade O from the scale.

Answer with one line and nothing else:
##final score: O"""

#: Meanings of the grades of a 0-3 scale when the campaign's scale names none (UMBRELA's).
DEFAULT_MEANINGS = {
    0: "the document has nothing to do with the query",
    1: "the document is related to the query but does not answer it",
    2: "the document has some answer for the query, but it is unclear or hidden among "
    "other information",
    3: "the document is dedicated to the query and contains the exact answer",
}

PLACEHOLDERS = ("title", "description", "narrative", "document", "scale", "lowest", "highest")
_PLACEHOLDER = re.compile(r"\{(" + "|".join(PLACEHOLDERS) + r")\}")
_FINAL = re.compile(r"final\s+score\s*[:=]?\s*\**\s*(-?\d+)", re.I)
_ONLY_NUMBER = re.compile(r"\s*\**\s*(-?\d+)\s*\**\s*\.?\s*")


def read_template(path) -> str:
    """A user prompt template from a UTF-8 text file; it must use ``{document}``."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except UnicodeDecodeError:
        raise InputError("the prompt template is not UTF-8 text", str(path)) from None
    except OSError as exc:
        raise InputError(exc.strerror or "cannot be read", str(path)) from None
    if "{document}" not in text:
        raise InputError(
            "the prompt template has no {document} placeholder (placeholders: "
            + ", ".join("{" + p + "}" for p in PLACEHOLDERS)
            + ")",
            str(path),
        )
    return text


def scale_lines(scale: Scale) -> str:
    """One line per grade, ``N = meaning``: the scale's names, else UMBRELA's meanings on
    a 0-3 scale, else the grade alone (higher is more relevant)."""
    lines = []
    for value, name in zip(scale.values, scale.names, strict=True):
        meaning = name or DEFAULT_MEANINGS.get(value, "") if scale.values == (0, 1, 2, 3) else name
        lines.append(f"{value} = {meaning}" if meaning else str(value))
    if not any(scale.names) and scale.values != (0, 1, 2, 3):
        lines.append("(higher grades mean more relevant)")
    return "\n".join(lines)


def render(template: str, scale: Scale, topic, document_text: str) -> str:
    """The template with its placeholders replaced (``topic``: a :class:`Topic`)."""
    values = {
        "title": topic.title,
        "description": topic.description or topic.title,
        "narrative": topic.narrative or "(none given)",
        "document": document_text,
        "scale": scale_lines(scale),
        "lowest": str(scale.values[0]),
        "highest": str(scale.values[-1]),
    }
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], template)


def prompt_hash(system: str, template: str) -> str:
    """The first 12 hex digits of SHA-256 of the system prompt and the template."""
    return hashlib.sha256((system + "\x00" + template).encode("utf-8")).hexdigest()[:12]


def parse_label(answer: str, scale: Scale) -> int | None:
    """The grade an answer gives: the last ``final score: N`` in it, or an answer that is
    only a number; None when there is none or it is not on the scale."""
    found = _FINAL.findall(answer)
    if found:
        value = int(found[-1])
    else:
        only = _ONLY_NUMBER.fullmatch(answer)
        if only is None:
            return None
        value = int(only.group(1))
    return value if value in scale.values else None
