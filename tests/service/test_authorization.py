"""Every route of the application × every kind of caller: only the allowed get through.

The table below is this test's own statement of who may call what; a route that is not
in it — for instance a new one added without deciding its rule — fails the test, as
does a route whose access differs from the table.
"""

from __future__ import annotations

import pytest

from service.web_fixtures import build_site

C, A, P = "coordinator", "assessor", "participant"
ALL = {C, A, P, "outsider", "anonymous"}
LOGGED_IN = {C, A, P, "outsider"}

# (method, path) -> the callers allowed (the coordinator is also a site coordinator)
EXPECTED: dict[tuple[str, str], set[str]] = {
    ("GET", "/openapi.json"): ALL,
    ("GET", "/static"): ALL,
    ("GET", "/api/health"): ALL,
    ("POST", "/api/session"): ALL,
    ("DELETE", "/api/session"): LOGGED_IN,
    ("GET", "/api/me"): LOGGED_IN,
    ("GET", "/api/campaigns"): LOGGED_IN,
    ("POST", "/api/campaigns"): {C},
    ("GET", "/api/campaigns/{name}"): {C, A, P},
    ("POST", "/api/campaigns/{name}/users"): {C},
    ("POST", "/api/campaigns/{name}/runs"): {C, P},
    ("GET", "/api/campaigns/{name}/runs"): {C, P},
    ("GET", "/api/campaigns/{name}/pairs"): {C},
    ("GET", "/api/campaigns/{name}/judgments.json"): {C},
    ("GET", "/api/campaigns/{name}/members"): {C},
    ("GET", "/api/campaigns/{name}/activity"): {C},
    ("POST", "/api/campaigns/{name}/pool"): {C},
    ("POST", "/api/campaigns/{name}/assignments"): {C},
    ("POST", "/api/campaigns/{name}/machine-labels"): {C},
    ("POST", "/api/campaigns/{name}/sample"): {C},
    ("POST", "/api/campaigns/{name}/mtc"): {C},
    ("GET", "/api/campaigns/{name}/mtc"): {C},
    ("GET", "/api/campaigns/{name}/estimates"): {C},
    ("GET", "/api/campaigns/{name}/next"): {A},
    ("GET", "/api/campaigns/{name}/pairs/{pair}"): {A},
    ("PUT", "/api/campaigns/{name}/judgments/{pair}"): {A},
    ("POST", "/api/campaigns/{name}/skips/{pair}"): {A},
    ("GET", "/api/campaigns/{name}/judgments/{pair}/history"): {A},
    ("GET", "/api/campaigns/{name}/dashboard"): {C},
    ("PUT", "/api/campaigns/{name}/adjudications/{pair}"): {C},
    ("GET", "/api/campaigns/{name}/qrels"): {C},
    ("GET", "/api/campaigns/{name}/judgments"): {C},
    ("GET", "/api/campaigns/{name}/log"): {C},
    ("POST", "/api/campaigns/{name}/results"): {C},
    ("POST", "/api/campaigns/{name}/publish"): {C},
    ("GET", "/api/campaigns/{name}/results"): {C, P},
    ("GET", "/api/campaigns/{name}/report"): {C},
    ("GET", "/api/campaigns/{name}/audit"): {C},
    ("GET", "/api/campaigns/{name}/results.csv"): {C, P},
    ("POST", "/api/campaigns/{name}/invitations"): {C},
    ("POST", "/api/campaigns/{name}/password-resets"): {C},
    ("GET", "/api/links/{token}"): ALL,
    ("POST", "/api/links/{token}"): ALL,
    ("POST", "/api/me/password"): LOGGED_IN,
    ("GET", "/api/me/devices"): LOGGED_IN,
    ("DELETE", "/api/me/devices/{device}"): LOGGED_IN,
    ("POST", "/api/campaigns/{name}/forget-devices"): {C},
    ("GET", "/link/{token}"): ALL,
    ("POST", "/link/{token}"): ALL,
    ("GET", "/account"): LOGGED_IN,
    ("POST", "/account/password"): LOGGED_IN,
    ("POST", "/c/{name}/invite"): {C},
    ("GET", "/api/campaigns/{name}/topics"): {C, A, P},
    ("GET", "/api/campaigns/{name}/topics.txt"): {C, A, P},
    ("GET", "/api/campaigns/{name}/guidelines"): {C, A, P},
    ("PUT", "/api/campaigns/{name}/guidelines"): {C},
    ("GET", "/c/{name}/guidelines"): {C, A, P},
    ("POST", "/c/{name}/guidelines"): {C},
    ("POST", "/api/campaigns/{name}/topics/{topic}/assessors"): {C},
    ("DELETE", "/api/campaigns/{name}/topics/{topic}/assessors/{username}"): {C},
    ("POST", "/api/campaigns/{name}/topics/{topic}/reassign"): {C},
    ("POST", "/api/campaigns/{name}/pool/extend"): {C},
    ("POST", "/api/campaigns/{name}/reopen"): {C},
    ("POST", "/c/{name}/reassign"): {C},
    ("POST", "/c/{name}/pool/extend"): {C},
    ("POST", "/c/{name}/reopen"): {C},
    ("POST", "/c/{name}/reset"): {C},
    ("POST", "/c/{name}/forget-devices"): {C},
    ("POST", "/account/devices/{device}/forget"): LOGGED_IN,
    ("GET", "/api/campaigns/{name}/audit.tsv"): {C},
    ("GET", "/"): ALL,
    ("GET", "/login"): ALL,
    ("POST", "/login"): ALL,
    ("POST", "/logout"): LOGGED_IN,
    ("GET", "/campaigns"): LOGGED_IN,
    ("POST", "/campaigns"): {C},
    ("GET", "/c/{name}"): {C, A, P},
    ("GET", "/c/{name}/dashboard"): {C},
    ("POST", "/c/{name}/members"): {C},
    ("POST", "/c/{name}/pool"): {C},
    ("POST", "/c/{name}/assign"): {C},
    ("POST", "/c/{name}/sample"): {C},
    ("POST", "/c/{name}/mtc"): {C},
    ("POST", "/c/{name}/machine-labels"): {C},
    ("POST", "/c/{name}/adjudicate/{pair}"): {C},
    ("POST", "/c/{name}/skip/{pair}"): {A},
    ("POST", "/c/{name}/results"): {C},
    ("POST", "/c/{name}/publish"): {C},
    ("GET", "/c/{name}/submit"): {P},
    ("POST", "/c/{name}/submit"): {C, P},
    ("GET", "/c/{name}/judge"): {A},
    ("GET", "/c/{name}/judge/{pair}"): {A},
    ("POST", "/c/{name}/judge/{pair}"): {A},
    ("GET", "/c/{name}/results"): {C, P},
}
CALLERS = {C: "boss", A: "ann", P: "alice", "outsider": "eve", "anonymous": None}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    return build_site(tmp_path_factory.mktemp("authz"))


def endpoints(site) -> list[tuple[str, str]]:
    from cranfield.service.app import routes

    out = []
    for _name, path, methods in routes(site.app):
        for m in sorted(methods - {"HEAD"}):
            out.append((m, path))
    return out


def test_every_route_is_in_the_table_and_has_a_rule(site):
    from cranfield.service.access import RULES
    from cranfield.service.app import routes

    found = set(endpoints(site))
    assert found == set(EXPECTED), (found - set(EXPECTED), set(EXPECTED) - found)
    names = {name for name, _, _ in routes(site.app)}
    assert names <= set(RULES), names - set(RULES)


def test_a_route_without_a_rule_is_refused(site, monkeypatch):
    from cranfield.service import access

    monkeypatch.delitem(access.RULES, "api_me")
    r = site.client("boss").get("/api/me")
    assert r.status_code == 500 and "no access rule" in r.json()["error"]


def _request(site, client, method: str, path: str):
    url = path.replace("{name}", "c").replace("{pair}", str(site.pair)).replace("{device}", "1")
    if url == "/static":
        url = "/static/style.css"
    if method in ("POST", "PUT") and url in ("/login",):
        return client.request(method, url, data={})
    if method in ("POST", "PUT"):
        return client.request(method, url, json={}, follow_redirects=False)
    return client.request(method, url, follow_redirects=False)


@pytest.mark.parametrize("caller", sorted(CALLERS))
def test_routes_times_callers(site, caller):
    wrong = []
    for method, path in endpoints(site):
        if (method, path) in (("DELETE", "/api/session"), ("POST", "/logout")):
            continue  # would end the caller's session; checked below
        client = site.client(CALLERS[caller])
        r = _request(site, client, method, path)
        allowed = caller in EXPECTED[(method, path)]
        # refused by the access rule: 401 (HTML: a redirect to the login page) or 403
        # with the rule's message (other 403s are the CSRF check or the domain's own)
        refused = (
            (r.status_code == 401 and "log in first" in r.text)
            or (r.status_code == 403 and "this is for" in r.text)
            or (r.status_code == 303 and r.headers.get("location") == "/login" and path != "/")
        )
        if allowed == refused:
            wrong.append((method, path, r.status_code, r.text[:120]))
    assert not wrong, wrong


def test_logging_out(site):
    from cranfield.service import accounts

    token = accounts.login(site.db, "ann", "correct horse battery")[0]
    c = site.client()
    c.headers["Authorization"] = "Bearer " + token
    assert c.get("/api/me").status_code == 200
    assert c.delete("/api/session").status_code == 200
    assert c.get("/api/me").status_code == 401
    assert site.client().delete("/api/session").status_code == 401
