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
