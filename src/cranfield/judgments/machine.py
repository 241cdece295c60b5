"""A machine assessor: relevance labels from a language model, as judgments like any other.

Two ways to reach a model, standard library only (``urllib`` and threads):

* :class:`ChatCompletions` -- any server that speaks the OpenAI chat-completions protocol
  (``POST {base_url}/chat/completions``: vLLM, llama.cpp's server, Ollama, hosted
  services);
* :class:`LocalCommand` -- any local program that reads the prompt on standard input and
  writes its answer on standard output.

:func:`judge_pairs` labels (topic, document) pairs with one of them: at most
``concurrency`` requests in flight; a rate limit (429), a server error (5xx), a timeout,
a refused connection or an answer without a grade is retried up to ``retries`` times
after an exponential back-off with full jitter (``uniform(0, backoff * 2^attempt)``,
Brooker 2015), or after the server's ``Retry-After`` when it sends one; any other 4xx
(a wrong key, model or URL) stops at once. Each label is written to the
:class:`~cranfield.judgments.label_cache.LabelCache` as it arrives, so an interrupted
or failed run loses no label it paid for and a rerun asks only for the rest. Tokens are
counted from the server's ``usage`` and priced per million. Every failure is one
:class:`AssessorError` line.

The assessor is named ``MODEL@HASH`` (:func:`assessor_name`): the model and the hash of
its prompt, so its labels go into ``agreement``, ``assessors`` and ``aggregate`` as any
assessor's do.
"""

from __future__ import annotations

import json
import random
import threading
import time
from dataclasses import dataclass

import numpy as np

from ..errors import CranfieldError, InputError
from .data import Scale
from .label_cache import LabelCache, cache_key
from .prompts import DEFAULT_TEMPLATE, SYSTEM, parse_label, prompt_hash, render

#: The longest wait a ``Retry-After`` may ask for (seconds); longer ones are an error.
MAX_RETRY_AFTER = 600.0


class AssessorError(CranfieldError):
    """The machine assessor failed: one line saying what happened and what to do."""


class _Transient(Exception):
    """A failure worth retrying; ``final`` is the message once the retries are spent."""

    def __init__(self, final: str, retry_after: float | None = None) -> None:
        super().__init__(final)
        self.final = final
        self.retry_after = retry_after


@dataclass(frozen=True)
class Reply:
    """One answer: its text and the tokens it cost (0 when the backend does not say)."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0


class ChatCompletions:
    """An OpenAI-compatible chat-completions endpoint.

    Parameters
    ----------
    base_url
        The API's base, e.g. ``http://127.0.0.1:8000/v1`` (``/chat/completions`` is
        appended unless the URL already ends with it).
    model
        The model name sent with each request.
    api_key
        Sent as ``Authorization: Bearer KEY`` when given.
    timeout
        Seconds to wait for the server (connecting, and each read).
    temperature, max_tokens, seed
        Sent with each request (``seed`` only when given).
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        *,
        timeout: float = 60.0,
        temperature: float = 0.0,
        max_tokens: int = 64,
        seed: int | None = None,
    ) -> None:
        url = base_url.rstrip("/")
        if not url.startswith(("http://", "https://")):
            raise InputError(f"the base URL {base_url!r} is not an http:// or https:// URL")
        self.url = url if url.endswith("/chat/completions") else url + "/chat/completions"
        self.model = model
        self.api_key = api_key
        self.timeout = timeout
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.seed = seed

    @property
    def name(self) -> str:
        return self.model

    def ask(self, system: str, user: str, sample: int = 0) -> Reply:
        """One request; :class:`_Transient` or :class:`AssessorError` on failure."""
        import urllib.error
        import urllib.request

        body = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user},
            ],
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        if self.seed is not None:
            body["seed"] = self.seed + sample
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(
            self.url, data=json.dumps(body).encode("utf-8"), headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                raw = response.read()
        except urllib.error.HTTPError as exc:
            raise _http_failure(self.url, exc) from None
        except TimeoutError:
            raise _Transient(
                f"{self.url}: no answer within {self.timeout:g} s (raise --timeout)"
            ) from None
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, TimeoutError):
                raise _Transient(
                    f"{self.url}: no answer within {self.timeout:g} s (raise --timeout)"
                ) from None
            raise _Transient(f"{self.url}: cannot reach the server ({exc.reason})") from None
        except (ConnectionError, OSError) as exc:
            raise _Transient(f"{self.url}: the connection failed ({exc})") from None
        return _chat_reply(self.url, raw)


def _http_failure(url: str, exc) -> Exception:
    """The exception of an HTTP error status: retried (408, 429, 5xx) or not."""
    code = exc.code
    try:
        text = exc.read(2000).decode("utf-8", "replace")
    except Exception:  # (the body is only for the message)
        text = ""
    detail = _error_detail(text)
    if code == 429:
        return _Transient(
            f"{url}: rate limited (HTTP 429) on every retry; lower --concurrency or try "
            "later" + (f": {detail}" if detail else ""),
            _retry_after(exc.headers.get("Retry-After") if exc.headers else None),
        )
    if code == 408 or code >= 500:
        return _Transient(
            f"{url}: server error HTTP {code} on every retry" + (f": {detail}" if detail else ""),
            _retry_after(exc.headers.get("Retry-After") if exc.headers else None),
        )
    hint = {
        401: " (check the key: --api-key or OPENAI_API_KEY)",
        403: " (check the key: --api-key or OPENAI_API_KEY)",
        404: " (check --base-url and --model)",
    }.get(code, "")
    return AssessorError(
        f"{url}: the server refused the request (HTTP {code}){hint}"
        + (f": {detail}" if detail else "")
    )


def _error_detail(text: str) -> str:
    """The ``error.message`` of an OpenAI-style error body, else its first line."""
    try:
        doc = json.loads(text)
        message = doc["error"]["message"] if isinstance(doc.get("error"), dict) else doc["error"]
        return " ".join(str(message).split())[:200]
    except (ValueError, KeyError, TypeError, AttributeError):
        return " ".join(text.split())[:200]


def _retry_after(value: str | None) -> float | None:
    """Seconds of a ``Retry-After`` header (a number or an HTTP date), None if absent."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        from email.utils import parsedate_to_datetime

        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - time.time()
    return max(0.0, seconds) if seconds == seconds else None


def _chat_reply(url: str, raw: bytes) -> Reply:
    """The answer text and token counts of a chat-completions response body."""
    try:
        doc = json.loads(raw.decode("utf-8"))
        text = doc["choices"][0]["message"]["content"]
        if not isinstance(text, str):
            raise TypeError
    except (ValueError, KeyError, IndexError, TypeError, UnicodeDecodeError):
        snippet = " ".join(raw[:120].decode("utf-8", "replace").split())
        raise _Transient(
            f"{url}: malformed answer on every retry (not a chat-completions response): {snippet!r}"
        ) from None
    usage = doc.get("usage") if isinstance(doc, dict) else None
    usage = usage if isinstance(usage, dict) else {}
    return Reply(text, _count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens")))


def _count(value) -> int:
    return value if isinstance(value, int) and value >= 0 else 0


class LocalCommand:
    """A local program: the prompt (system prompt, blank line, user prompt) on its
    standard input, its answer on standard output; a non-zero status is an error."""

    def __init__(self, argv: list[str], *, timeout: float = 60.0, name: str | None = None):
        if not argv:
            raise InputError("the assessor command is empty")
        self.argv = list(argv)
        self.timeout = timeout
        self._name = name or " ".join(self.argv)

    @property
    def name(self) -> str:
        return self._name

    def ask(self, system: str, user: str, sample: int = 0) -> Reply:
        import subprocess

        try:
            done = subprocess.run(
                self.argv,
                input=(system + "\n\n" + user).encode("utf-8"),
                capture_output=True,
                timeout=self.timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise _Transient(
                f"{self.argv[0]}: no answer within {self.timeout:g} s (raise --timeout)"
            ) from None
        except OSError as exc:
            raise AssessorError(
                f"{self.argv[0]}: cannot run the command ({exc.strerror})"
            ) from None
        if done.returncode != 0:
            err = " ".join(done.stderr[-300:].decode("utf-8", "replace").split())
            raise _Transient(
                f"{self.argv[0]}: the command failed (status {done.returncode}) on every "
                "retry" + (f": {err}" if err else "")
            )
        return Reply(done.stdout.decode("utf-8", "replace"))


def assessor_name(backend, system: str = SYSTEM, template: str = DEFAULT_TEMPLATE) -> str:
    """``MODEL@HASH``: the model (or command) and the hash of the prompt."""
    return f"{backend.name}@{prompt_hash(system, template)}"


@dataclass
class Labels:
    """What :func:`judge_pairs` returns: one entry per (pair, sample), in the order asked.

    ``topic``, ``document`` (object arrays of str), ``sample`` and ``label`` (int64
    values on the scale); ``assessor`` the assessor's name; the accounting: ``cached``
    labels found in the cache, ``requested`` labels asked for now, ``retries`` requests
    repeated, and the tokens and cost of the requests made now.
    """

    topic: np.ndarray
    document: np.ndarray
    sample: np.ndarray
    label: np.ndarray
    assessor: str
    cached: int = 0
    requested: int = 0
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0

    def judgments(self, scale: Scale, *, samples_as_assessors: bool = False):
        """The labels as :class:`~cranfield.judgments.Judgments` (assessor: the model and
        prompt; with ``samples_as_assessors`` each sample ``s > 0`` is ``NAME#s``)."""
        import pyarrow as pa

        from .data import Judgments

        names = np.full(len(self.label), self.assessor, dtype=object)
        if samples_as_assessors:
            later = self.sample > 0
            names[later] = [f"{self.assessor}#{s}" for s in self.sample[later].tolist()]
        table = pa.table(
            {
                "topic": pa.array(self.topic.tolist(), pa.string()),
                "document": pa.array(self.document.tolist(), pa.string()),
                "assessor": pa.array(names.tolist(), pa.string()),
                "label": pa.array(self.label, pa.int64()),
            }
        )
        return Judgments.from_table(table, scale=scale, source=f"assessor {self.assessor}")


def judge_pairs(
    topics: np.ndarray,
    documents: np.ndarray,
    topic_of: dict,
    text_of: dict,
    scale: Scale,
    backend,
    *,
    cache: LabelCache | str | None = None,
    template: str = DEFAULT_TEMPLATE,
    system: str = SYSTEM,
    samples: int = 1,
    concurrency: int = 4,
    retries: int = 5,
    backoff: float = 1.0,
    price_input: float = 0.0,
    price_output: float = 0.0,
    progress: bool = True,
    seed: int | None = None,
) -> Labels:
    """Label every (``topics[i]``, ``documents[i]``) pair ``samples`` times with ``backend``.

    Parameters
    ----------
    topics, documents
        The pairs to judge (ids as str).
    topic_of, text_of
        The :class:`~cranfield.collection.Topic` of each topic id and the text of each
        document id (its title and text); a pair whose topic or document is missing is
        an :class:`InputError`.
    scale
        The campaign's label scale: the prompt shows it and an answer off it is retried.
    backend
        A :class:`ChatCompletions` or :class:`LocalCommand` (anything with ``name`` and
        ``ask(system, user, sample) -> Reply``).
    cache
        A :class:`LabelCache` or the path of its SQLite file; None: no cache.
    samples
        Labels per pair (repeated samples, for self-consistency); sample ``s`` is its own
        cache entry.
    concurrency, retries, backoff
        Requests in flight; retries of a transient failure; the back-off unit (seconds).
    price_input, price_output
        Price per million prompt and completion tokens (the cost reported).
    """
    topics = np.asarray(topics, dtype=object)
    documents = np.asarray(documents, dtype=object)
    missing_topic = [t for t in dict.fromkeys(topics.tolist()) if t not in topic_of]
    if missing_topic:
        raise InputError(
            f"{len(missing_topic)} topic(s) of the pool have no statement in the topics "
            f"file, e.g. {missing_topic[0]!r}"
        )
    missing_doc = [d for d in dict.fromkeys(documents.tolist()) if d not in text_of]
    if missing_doc:
        raise InputError(
            f"{len(missing_doc)} document(s) of the pool have no text in the documents, "
            f"e.g. {missing_doc[0]!r}"
        )
    name = assessor_name(backend, system, template)
    own_cache = isinstance(cache, (str, bytes)) or hasattr(cache, "__fspath__")
    store = LabelCache(cache) if own_cache else cache
    try:
        import queue

        from ..progress import Progress

        n = len(topics)

        def prompt(i: int) -> str:  # rendered when needed: N prompts are never held at once
            return render(template, scale, topic_of[topics[i]], text_of[documents[i]])

        jobs = [(i, s) for s in range(samples) for i in range(n)]
        keys = []
        for i in range(n):
            text = system + "\x00" + prompt(i)
            keys.append(
                [cache_key(backend.name, text, topics[i], documents[i], s) for s in range(samples)]
            )
        keys = [keys[i][s] for i, s in jobs]
        found = store.get(keys) if store is not None else {}
        label = np.full(len(jobs), -1, np.int64)
        out = Labels(
            topic=np.repeat(topics[None, :], samples, axis=0).ravel(),
            document=np.repeat(documents[None, :], samples, axis=0).ravel(),
            sample=np.repeat(np.arange(samples), n),
            label=label,
            assessor=name,
        )
        todo = queue.Queue()
        for j, key in enumerate(keys):
            if key in found:
                label[j] = found[key][0]
            else:
                todo.put(j)
        out.cached = len(jobs) - todo.qsize()
        results: queue.Queue = queue.Queue()
        stop = threading.Event()
        rng = random.Random(seed)
        lock = threading.Lock()

        def wait(seconds: float) -> bool:
            return not stop.wait(seconds)

        def work() -> None:
            while not stop.is_set():
                try:
                    j = todo.get_nowait()
                except queue.Empty:
                    return
                i, s = jobs[j]
                attempt = 0
                while True:
                    try:
                        reply = backend.ask(system, prompt(i), s)
                        grade = parse_label(reply.text, scale)
                        if grade is None:
                            results.put((j, "spent", reply))  # its tokens were paid for
                            snippet = " ".join(reply.text.split())[:120]
                            raise _Transient(
                                f"{backend.name}: the answer gives no grade on the scale "
                                f"{scale.describe()} on every retry, e.g. {snippet!r} (topic "
                                f"{topics[i]}, document {documents[i]})"
                            )
                        results.put((j, grade, reply))
                        break
                    except _Transient as exc:
                        if attempt >= retries:
                            results.put((j, None, AssessorError(exc.final)))
                            return
                        with lock:
                            delay = rng.uniform(0, backoff * 2**attempt)
                        if exc.retry_after is not None:
                            if exc.retry_after > MAX_RETRY_AFTER:
                                results.put(
                                    (
                                        j,
                                        None,
                                        AssessorError(
                                            f"{backend.name}: the server asks to wait "
                                            f"{exc.retry_after:.0f} s (Retry-After); try later"
                                        ),
                                    )
                                )
                                return
                            delay = exc.retry_after + delay / 10
                        attempt += 1
                        results.put((j, "retry", None))
                        if not wait(delay):
                            return
                    except AssessorError as exc:
                        results.put((j, None, exc))
                        return
                    # a bug of a backend: still one line, and no thread dies silently
                    except Exception as exc:
                        results.put((j, None, AssessorError(f"{backend.name}: {exc}")))
                        return

        pending = todo.qsize()
        threads = [
            threading.Thread(target=work, name="cranfield-judge", daemon=True)
            for _ in range(min(max(1, concurrency), pending))
        ]
        for t in threads:
            t.start()
        failure: AssessorError | None = None
        bar = Progress(len(jobs), "judge") if progress else None
        done = out.cached
        try:
            if bar is not None:
                bar.set(done, "labels")
            while any(t.is_alive() for t in threads) or not results.empty():
                try:
                    j, grade, reply = results.get(timeout=0.1)
                except queue.Empty:
                    continue
                if grade == "retry":
                    out.retries += 1
                    continue
                if grade == "spent":
                    out.prompt_tokens += reply.prompt_tokens
                    out.completion_tokens += reply.completion_tokens
                    continue
                if grade is None:
                    if failure is None:
                        failure = reply
                        stop.set()
                    continue
                i, s = jobs[j]
                label[j] = grade
                out.requested += 1
                out.prompt_tokens += reply.prompt_tokens
                out.completion_tokens += reply.completion_tokens
                if store is not None:
                    store.put(
                        keys[j],
                        backend.name,
                        str(topics[i]),
                        str(documents[i]),
                        s,
                        grade,
                        reply.text,
                        reply.prompt_tokens,
                        reply.completion_tokens,
                    )
                done += 1
                if bar is not None:
                    bar.set(done, "labels")
        except BaseException:
            stop.set()
            raise
        finally:
            if bar is not None:
                bar.close()
        out.cost = (out.prompt_tokens * price_input + out.completion_tokens * price_output) / 1e6
        if failure is None and (label < 0).any():  # a worker ended without an answer
            failure = AssessorError(f"{backend.name}: a request ended without an answer")
        if failure is not None:
            kept = f"; {out.requested} new label(s) kept in the cache" if store is not None else ""
            raise AssessorError(f"{failure}{kept}")
        return out
    finally:
        if own_cache:
            store.close()
