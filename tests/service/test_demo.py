"""``cranfield serve --demo``: a ready campaign and three one-time passwords that work."""

from __future__ import annotations

import json
import re
import urllib.request

from service.server import Server


def _login(url: str, user: str, password: str) -> int:
    req = urllib.request.Request(
        url + "/api/session",
        data=json.dumps({"username": user, "password": password}).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def test_demo_prints_working_one_time_passwords(tmp_path):
    with Server("--demo", cwd=tmp_path) as server:
        printed = server.log.read_text()
        found = dict(re.findall(r"^  (coordinator|assessor|participant)\s+(\S+)$", printed, re.M))
        assert set(found) == {"coordinator", "assessor", "participant"}
        assert len(set(found.values())) == 3
        for user, password in found.items():
            assert _login(server.url, user, password) == 200
        assert _login(server.url, "assessor", found["assessor"] + "x") == 401
        req = urllib.request.Request(server.url + "/api/campaigns/demo/next")
        token = json.loads(
            urllib.request.urlopen(
                urllib.request.Request(
                    server.url + "/api/session",
                    data=json.dumps(
                        {"username": "assessor", "password": found["assessor"]}
                    ).encode(),
                    headers={"Content-Type": "application/json"},
                ),
                timeout=30,
            ).read()
        )["token"]
        req.add_header("Authorization", "Bearer " + token)
        view = json.loads(urllib.request.urlopen(req, timeout=30).read())
        assert view["topic"]["title"] and view["document"]["text"]


def test_sample_campaign_draws_a_progress_bar_only_on_a_terminal(tmp_path, monkeypatch):
    import io
    import sys

    from cranfield.service import demo
    from cranfield.service.db import open_database

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    for progress, tty, expect in ((True, True, True), (False, True, False)):
        err = Terminal() if tty else io.StringIO()
        monkeypatch.setattr(sys, "stderr", err)
        db = open_database(str(tmp_path / f"{progress}{tty}.db"))
        try:
            info = demo.sample_campaign(db, "c", progress=progress)
        finally:
            db.close()
        assert info["runs"] == 4
        text = err.getvalue()
        if expect:
            assert "cranfield campaign init [" in text
            assert "7/7" in text and "3/7" in text  # the collection, reading, each run, pool
        else:
            assert text == ""
