"""``cranfield judge``: label a pool with a machine assessor (a language model)."""

from __future__ import annotations

import argparse
import os

from ._args import add_format, add_output, add_seed, number, seed_value
from ._output import print_notes

FORMATS = ("qrels", "judgments")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("pool", help="the pairs to judge: 'qid docid' or 'qid 0 docid grade' lines")
    parser.add_argument("topics", help="the topic statements (TREC <top>, JSON Lines or CSV)")
    parser.add_argument(
        "documents",
        help="the documents (JSON Lines, TREC <DOC>, Parquet or a directory), or a collection's "
        "by its ir_datasets id (irds:ID: looked up by id in its document store)",
    )
    parser.add_argument(
        "--base-url",
        help="an OpenAI-compatible chat-completions API, e.g. http://127.0.0.1:8000/v1 "
        "(default: $OPENAI_BASE_URL)",
    )
    parser.add_argument("--model", help="the model to ask (required with --base-url)")
    parser.add_argument(
        "--api-key", help="the API key (default: $OPENAI_API_KEY; none for a local server)"
    )
    parser.add_argument(
        "--command",
        help="instead of an API: a local command, given the prompt on standard input, "
        "that writes its answer on standard output (split like a shell line)",
    )
    parser.add_argument(
        "--scale",
        default="0,1,2,3",
        help="the campaign's labels, e.g. 0,1,2 or 0=non,1=rel,2=high (default 0,1,2,3, "
        "with UMBRELA's meanings)",
    )
    parser.add_argument(
        "--prompt",
        metavar="FILE",
        help="a user prompt template with {title} {description} {narrative} {document} "
        "{scale} {lowest} {highest} (default: the UMBRELA prompt, docs/machine-assessors.md)",
    )
    parser.add_argument(
        "--cache",
        default="cranfield-labels.sqlite",
        help="SQLite file of the labels paid for, written as they arrive; a rerun asks "
        "only for the others (default cranfield-labels.sqlite)",
    )
    parser.add_argument("--no-cache", action="store_true", help="keep no cache")
    parser.add_argument(
        "--samples", default="1", help="labels per pair, for self-consistency (default 1)"
    )
    parser.add_argument("--concurrency", default="4", help="requests in flight (default 4)")
    parser.add_argument(
        "--retries",
        default="5",
        help="retries of a rate limit, server error, timeout or malformed answer (default 5)",
    )
    parser.add_argument(
        "--timeout", default="60", help="seconds to wait for an answer (default 60)"
    )
    parser.add_argument(
        "--max-chars",
        default="4000",
        help="characters of a document's text put in the prompt (default 4000)",
    )
    parser.add_argument(
        "--temperature",
        default="0",
        help="sampling temperature sent to the server (default 0; above 0 for repeated "
        "samples that can differ)",
    )
    parser.add_argument("--max-tokens", default="64", help="most tokens of an answer (default 64)")
    parser.add_argument(
        "--price-input", default="0", help="price per million prompt tokens (default 0)"
    )
    parser.add_argument(
        "--price-output", default="0", help="price per million completion tokens (default 0)"
    )
    add_seed(parser, "back-off jitter and of the model (sent as its seed)", without="none sent")
    add_format(
        parser,
        FORMATS,
        what="qrels: 'qid 0 docid label' (first sample); judgments: topic, document, "
        "assessor, label (TSV, every sample)",
    )
    add_output(parser, via_stdout=True)


def run(args) -> int:
    import numpy as np

    from ..collection import read_topics
    from ..collection.documents import documents_by_id
    from ..errors import ParameterError
    from ..judgments.data import Scale
    from ..judgments.machine import ChatCompletions, LocalCommand, judge_pairs
    from ..judgments.prompts import DEFAULT_TEMPLATE, read_template
    from ..pooling.assign import read_pool_pairs
    from ._output import emit

    samples = number(args.samples, "--samples", int, 1, 100)
    concurrency = number(args.concurrency, "--concurrency", int, 1, 256)
    retries = number(args.retries, "--retries", int, 0, 100)
    timeout = number(args.timeout, "--timeout", float, 0, 86400, open_=True)
    max_chars = number(args.max_chars, "--max-chars", int, 1, 10**9)
    price_in = number(args.price_input, "--price-input", float, 0, 1e9)
    price_out = number(args.price_output, "--price-output", float, 0, 1e9)
    temperature = number(args.temperature, "--temperature", float, 0, 2)
    max_tokens = number(args.max_tokens, "--max-tokens", int, 1, 1_000_000)
    seed = seed_value(args)
    scale = Scale.parse(args.scale)
    base_url = args.base_url or os.environ.get("OPENAI_BASE_URL")
    if args.command is not None:
        import shlex

        if args.base_url:
            raise ParameterError("--command", "no --base-url with it (one assessor)", args.command)
        backend = LocalCommand(shlex.split(args.command), timeout=timeout, name=args.model)
    elif base_url:
        if not args.model:
            raise ParameterError("--model", "a model name with --base-url", None)
        key = args.api_key or os.environ.get("OPENAI_API_KEY")
        backend = ChatCompletions(
            base_url,
            args.model,
            key,
            timeout=timeout,
            temperature=temperature,
            max_tokens=max_tokens,
            seed=seed,
        )
    else:
        raise ParameterError(
            "assessor", "--base-url URL --model NAME ($OPENAI_BASE_URL) or --command", None
        )
    template = read_template(args.prompt) if args.prompt else DEFAULT_TEMPLATE
    pool = read_pool_pairs(args.pool)
    topics = np.asarray(pool["query_id"].to_pylist(), dtype=object)
    docs = np.asarray(pool["doc_id"].to_pylist(), dtype=object)
    topic_of = {t.id: t for t in read_topics(args.topics)}
    text_of = {
        d.id: ((d.title + "\n\n" if d.title else "") + d.text)[:max_chars]
        for d in documents_by_id(args.documents, dict.fromkeys(docs.tolist())).values()
    }
    labels = judge_pairs(
        topics,
        docs,
        topic_of,
        text_of,
        scale,
        backend,
        cache=None if args.no_cache else args.cache,
        template=template,
        samples=samples,
        concurrency=concurrency,
        retries=retries,
        price_input=price_in,
        price_output=price_out,
        seed=seed,
    )
    if args.format == "qrels":
        first = labels.sample == 0
        rows = zip(labels.topic[first], labels.document[first], labels.label[first], strict=True)
        emit("\n".join(f"{t} 0 {d} {g}" for t, d, g in rows))
    else:
        from ..output import delimited

        names = [
            labels.assessor if s == 0 else f"{labels.assessor}#{s}" for s in labels.sample.tolist()
        ]
        body = list(
            zip(
                labels.topic.tolist(),
                labels.document.tolist(),
                names,
                map(str, labels.label.tolist()),
                strict=True,
            )
        )
        emit(delimited(["topic", "document", "assessor", "label"], body, "\t").rstrip("\n"))
    print_notes(
        "judge",
        [
            f"assessor {labels.assessor}: {len(labels.label)} labels ({labels.cached} from "
            f"the cache, {labels.requested} asked for, {labels.retries} retries); tokens "
            f"{labels.prompt_tokens} in, {labels.completion_tokens} out; cost "
            f"{labels.cost:.4f}"
        ],
    )
    return 0
