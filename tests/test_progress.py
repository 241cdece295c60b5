"""The progress bar's counter-watching mode (for work inside one engine call)."""

import io
import threading

from cranfield.progress import Progress


class Terminal(io.StringIO):
    def __init__(self, tty: bool):
        super().__init__()
        self.tty = tty

    def isatty(self):
        return self.tty


def test_progress_draws_on_a_terminal_only():
    for tty in (True, False):
        stream = Terminal(tty)
        with Progress(4, "work", stream=stream) as bar:
            for _ in range(4):
                bar.step("x")
        out = stream.getvalue()
        if tty:
            assert "work [" in out and "4/4" in out and "#" * 30 in out
        else:
            assert out == ""


def test_watch_redraws_from_the_counter_until_the_block_ends():
    total = 100_000_000
    calls = []
    polled = threading.Event()

    def count():
        calls.append(None)
        if len(calls) >= 3:
            polled.set()
        return min(len(calls) * 30_000_000, total)

    stream = Terminal(True)
    bar = Progress(total, "reading", stream=stream, unit="bytes")
    with bar.watch(count, interval=0.001):
        assert polled.wait(30)  # the thread polls while the block runs
    n = len(calls)
    assert bar.done == total
    out = stream.getvalue()
    assert "reading [" in out and "30/100 MB" in out and "100/100 MB" in out
    assert out.endswith("\r" + " " * 120 + "\r")  # the line is cleared at the end
    assert not any(t.name == "cranfield-progress" for t in threading.enumerate())
    assert len(calls) == n  # stopped: no poll after the block


def test_watch_does_nothing_off_a_terminal():
    stream = Terminal(False)
    bar = Progress(10, "reading", stream=stream)
    before = threading.active_count()
    with bar.watch(lambda: 1 / 0, interval=0.001):  # never called
        assert threading.active_count() == before
    assert stream.getvalue() == ""


def test_set_clamps_to_the_total():
    stream = Terminal(True)
    bar = Progress(4, "x", stream=stream)
    bar.set(9)
    assert bar.done == 4 and "4/4" in stream.getvalue()
    bar.set(-3)
    assert bar.done == 0


def test_work_done_within_the_delay_draws_nothing():
    stream = Terminal(True)
    bar = Progress(10, "reading", stream=stream)
    calls = []
    with bar.watch(lambda: calls.append(None) or 1, interval=0.001, delay=60):
        pass
    assert stream.getvalue() == "" and calls == []
