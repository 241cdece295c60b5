"""The web layer: sessions, CSRF, the login rate limit, upload limits, blind judging in
JSON and HTML, escaping of every user-supplied string, the API's documented endpoints."""

from __future__ import annotations

import pytest

from cranfield.service.app import Config
from service.helpers import PASSWORD, run_text
from service.test_authorization import EXPECTED
from service.web_fixtures import EVIL_DESCRIPTION, EVIL_TEXT, EVIL_TOPIC, build_site


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    return build_site(tmp_path_factory.mktemp("web"))


# -- sessions and CSRF -----------------------------------------------------------------


def test_login_sets_a_strict_httponly_cookie_and_returns_a_bearer_token(site):
    c = site.client()
    r = c.post("/api/session", json={"username": "ann", "password": PASSWORD})
    assert r.status_code == 200 and set(r.json()) == {"token", "csrf"}
    cookie = r.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie and "path=/" in cookie
    bearer = site.client()
    bearer.headers["Authorization"] = "Bearer " + r.json()["token"]
    assert bearer.get("/api/me").json()["username"] == "ann"
    assert c.get("/api/me").json()["username"] == "ann"  # the cookie
    wrong = site.client()
    wrong.headers["Authorization"] = "Bearer " + r.json()["token"] + "x"
    assert wrong.get("/api/me").status_code == 401


def test_json_login_must_be_json(site):
    r = site.client().post("/api/session", data={"username": "ann", "password": PASSWORD})
    assert r.status_code == 403


# the login routes have their own protection (tests above and below)
UNSAFE = sorted(
    k
    for k in EXPECTED
    if k[0] in ("POST", "PUT", "DELETE", "PATCH")
    and k not in (("POST", "/login"), ("POST", "/api/session"))
)
WHO = {"coordinator": "boss", "assessor": "ann", "participant": "alice"}


@pytest.mark.parametrize(("method", "path"), UNSAFE)
def test_every_state_changing_route_needs_the_csrf_token_with_the_cookie(site, method, path):
    allowed = EXPECTED[(method, path)]
    role = next((r for r in ("coordinator", "assessor", "participant") if r in allowed), "assessor")
    c = site.client(WHO[role], cookie=True)
    url = path.replace("{name}", "c").replace("{pair}", str(site.pair))
    r = c.request(method, url, json={}, follow_redirects=False)
    assert r.status_code == 403 and "CSRF" in r.text, (r.status_code, r.text[:200])
    r = c.request(method, url, data={"csrf": "wrong"}, follow_redirects=False)
    assert r.status_code == 403 and "CSRF" in r.text
    r = c.request(method, url, json={}, headers={"X-CSRF-Token": c.csrf}, follow_redirects=False)
    assert not (r.status_code == 403 and "CSRF" in r.text)


def test_login_form_csrf(site):
    c = site.client()
    r = c.post("/login", data={"username": "ann", "password": PASSWORD}, follow_redirects=False)
    assert r.status_code == 403  # no double-submit cookie
    page = c.get("/login")
    token = page.text.split('name="csrf" value="')[1].split('"')[0]
    r = c.post(
        "/login",
        data={"username": "ann", "password": PASSWORD, "csrf": token},
        follow_redirects=False,
    )
    assert r.status_code == 303 and r.headers["location"] == "/campaigns"
    assert "cranfield_session" in r.headers["set-cookie"]
    assert (
        "Nothing left to judge" in c.get("/c/c/judge").text or "Topic" in c.get("/c/c/judge").text
    )


def test_login_is_rate_limited(tmp_path):
    from cranfield.service.throttle import Limits

    site = build_site(tmp_path, Config(logins=Limits(per_user_address=3, window=600)))
    c = site.client()
    for _ in range(3):
        assert (
            c.post("/api/session", json={"username": "ann", "password": "wrong one"}).status_code
            == 401
        )
    r = c.post("/api/session", json={"username": "ann", "password": PASSWORD})
    assert r.status_code == 429  # even the right password, from this address, for a while
    r = c.post("/api/session", json={"username": "dave", "password": PASSWORD})
    assert r.status_code == 200  # another user from the same address


# -- uploads ---------------------------------------------------------------------------


def test_upload_through_the_api_with_errors_and_line_numbers(site, tmp_path):
    c = site.client("carol")
    bad = run_text("newrun").replace("t2 Q0 D", "t9 Q0 D", 1)
    r = c.post("/api/campaigns/open/runs", files={"file": ("x.txt", bad.encode())})
    assert r.status_code == 422
    problems = r.json()["problems"]
    line = bad.splitlines().index(next(x for x in bad.splitlines() if x.startswith("t9"))) + 1
    assert problems == [{"line": line, "message": "topic 't9' is not a topic of the campaign"}]


def test_upload_page_shows_the_errors_with_line_numbers(site):
    c = site.client("carol", cookie=True)
    r = c.post(
        "/c/open/submit?csrf=" + c.csrf,
        files={"file": ("x.txt", b"t1 Q0 D001 1 2.0 x\nt1 Q0 D002 2\n")},
        data={"name": "later"},
    )
    assert r.status_code == 422
    assert "line 2: expected 6 fields" in r.text


def test_uploads_are_limited_and_streamed_into_the_data_directory(tmp_path):
    site = build_site(tmp_path, Config(max_upload=2000))
    c = site.client("carol")
    big = run_text("big") * 10
    assert len(big) > 2000
    r = c.post("/api/campaigns/open/runs", files={"file": ("big.txt", big.encode())})
    assert r.status_code == 413 and "limit" in r.json()["error"]
    uploads = site.db.data_dir / "uploads"
    assert not uploads.exists() or not list(uploads.rglob("*"))  # nothing left behind
    small = run_text("small", topics=("t1",), depth=3)
    r = c.post("/api/campaigns/open/runs", files={"file": ("../../escape.txt", small.encode())})
    assert r.status_code == 201, r.text
    assert r.json()["name"] == "small"
    assert not (tmp_path / "escape.txt").exists() and not (tmp_path.parent / "escape.txt").exists()
    stored = [p for p in (site.db.data_dir / "runs").rglob("*") if p.is_file()]
    assert stored and all(p.resolve().is_relative_to(site.db.data_dir) for p in stored)


# -- blind judging -----------------------------------------------------------------------

SECRETS = (
    "runalpha",
    "runbeta",
    "runsecret",
    "alice",
    "carol",
    "dave",
    "100.75",
    "rank",
    "score",
    "gold",
)


def _assert_blind(text: str) -> None:
    for secret in SECRETS:
        assert secret not in text, secret


def test_assessors_receive_nothing_that_reveals_runs_ranks_or_other_labels(site):
    c = site.client("ann")
    view = c.get("/api/campaigns/c/next")
    assert view.status_code == 200
    _assert_blind(view.text)
    assert set(view.json()) == {
        "comment",
        "flags",
        "skipped",
        "pair",
        "topic",
        "document",
        "label",
        "position",
        "previous",
        "next",
        "progress",
        "scale",
    }
    _assert_blind(c.get(f"/api/campaigns/c/pairs/{site.pair}").text)
    _assert_blind(c.get(f"/api/campaigns/c/judgments/{site.pair}/history").text)
    _assert_blind(c.get("/api/me").text)
    _assert_blind(c.get("/api/campaigns/c").text)
    html = site.client("ann", cookie=True)
    for url in ("/c/c/judge", f"/c/c/judge/{site.pair}", "/campaigns"):
        page = html.get(url)
        assert page.status_code == 200
        _assert_blind(page.text)
    assert c.get(f"/api/campaigns/c/pairs/{site.other_pair}").status_code == 404


def test_next_is_204_when_the_queue_is_judged_and_put_is_idempotent(site):
    c = site.client("dave")
    seen = []
    while (r := c.get("/api/campaigns/c/next")).status_code == 200:
        pair = r.json()["pair"]
        headers = {"Idempotency-Key": f"k-{pair}"}
        first = c.put(f"/api/campaigns/c/judgments/{pair}", json={"label": 1}, headers=headers)
        again = c.put(f"/api/campaigns/c/judgments/{pair}", json={"label": 1}, headers=headers)
        assert (
            first.status_code == 201 and again.status_code == 201 and first.json() == again.json()
        )
        seen.append(pair)
    assert r.status_code == 204 and r.content == b""
    log = site.client("boss").get("/api/campaigns/c/log").text.splitlines()
    assert sum(1 for line in log if "\tdave\t" in line) == len(seen) + 4  # + the fixture's four
    bad = c.put(f"/api/campaigns/c/judgments/{seen[0]}", json={"label": "1"})
    assert bad.status_code == 422


def test_dashboard_json_is_valid_with_undefined_values(site):
    import json

    r = site.client("boss").get("/api/campaigns/c/dashboard")
    assert r.status_code == 200

    def refuse(constant):
        raise ValueError(f"{constant} is not JSON")

    data = json.loads(r.text, parse_constant=refuse)  # undefined values are null
    assert data["quality"] and all(
        q["gold_accuracy"] is None or 0 <= q["gold_accuracy"] <= 1 for q in data["quality"]
    )
    assert data["progress"]["assessors"] and data["pool"]["gold"] == 1


def test_participants_see_only_their_own_runs(site):
    mine = site.client("alice").get("/api/campaigns/c/results").json()
    assert set(mine["runs"]) == {"runalpha", "runbeta"}
    assert "runsecret" not in site.client("alice").get("/c/c/results").text
    assert set(
        site.client("alice").get("/api/campaigns/c/runs").json()[i]["name"] for i in range(2)
    ) == {"runalpha", "runbeta"}
    assert len(site.client("boss").get("/api/campaigns/c/runs").json()) >= 3
    page = site.client("alice", cookie=True).get("/c/c/results").text
    assert "best" in page and "median" in page and "worst" in page


# -- escaping ----------------------------------------------------------------------------


def test_every_user_string_is_escaped_in_html(site):
    pages = {
        "boss": ["/campaigns", "/c/c/dashboard", "/c/c/results"],
        "alice": ["/c/c/submit", "/c/c/results"],
    }
    # the judging page of the malicious document under the malicious topic
    text = ""
    for assessor in ("ann", "dave"):
        c = site.client(assessor, cookie=True)
        for pair in range(1, 200):
            r = c.get(f"/c/c/judge/{pair}")
            if (
                r.status_code == 200
                and "(&#39;doc&#39;)" in r.text
                and "alert(&#39;topic&#39;)" in r.text
            ):
                text = r.text
                break
    assert text, "the malicious document under the malicious topic is in a queue"
    assert "&lt;script&gt;alert(&#39;topic&#39;)&lt;/script&gt;" in text
    for who, urls in pages.items():
        c = site.client(who, cookie=True)
        for url in urls:
            text += c.get(url).text
    assert "<script>alert" not in text
    assert EVIL_DESCRIPTION.replace("<", "&lt;").replace(">", "&gt;").replace("'", "&#39;") in text
    assert EVIL_TOPIC and EVIL_TEXT  # stored verbatim, shown escaped


def test_script_in_user_and_run_names_is_refused(site):
    boss = site.client("boss")
    r = boss.post(
        "/api/campaigns/c/users",
        json={"username": "<script>x", "role": "assessor", "password": PASSWORD},
    )
    assert r.status_code == 422 and "<script>" in r.json()["error"]  # in JSON, not HTML
    r = site.client("carol").post(
        "/api/campaigns/open/runs",
        files={"file": ("r.txt", run_text("ok").encode())},
        data={"name": "<script>"},
    )
    assert r.status_code == 422
    page = site.client("boss", cookie=True)
    r = page.post(
        "/c/c/members",
        data={
            "csrf": page.csrf,
            "username": "<script>alert(1)</script>",
            "role": "assessor",
            "password": PASSWORD,
        },
    )
    assert r.status_code == 422 and "<script>alert" not in r.text and "&lt;script&gt;" in r.text


def test_campaign_title_with_script(site):
    c = site.client("boss", cookie=True)
    r = c.post(
        "/campaigns?csrf=" + c.csrf,
        files={"topics": ("", b"")},
        data={"name": "evil", "title": "<script>alert('title')</script>", "sample": "1"},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text[:300]
    text = c.get("/campaigns").text + c.get("/c/evil/dashboard").text
    assert "<script>alert" not in text and "&lt;script&gt;alert(&#39;title&#39;)" in text


# -- documentation and headers -------------------------------------------------------------


def test_openapi_documents_the_interface(site):
    spec = site.client().get("/openapi.json").json()
    paths = spec["paths"]
    for path, method in (
        ("/api/session", "post"),
        ("/api/campaigns/{name}/next", "get"),
        ("/api/campaigns/{name}/judgments/{pair}", "put"),
        ("/api/campaigns/{name}/qrels", "get"),
    ):
        assert method in paths[path]
    put = paths["/api/campaigns/{name}/judgments/{pair}"]["put"]
    assert any(p["name"].lower() == "idempotency-key" for p in put["parameters"])


def test_pages_forbid_foreign_scripts(site):
    r = site.client().get("/login")
    csp = r.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert "http" not in r.text.split("<body>")[0].replace("http-equiv", "")  # no CDN
    js = site.client().get("/static/judge.js")
    assert js.status_code == 200 and "fetch(" in js.text


@pytest.mark.parametrize("pair", ["9223372036854775808", "99999999999999999999999", "0", "-1"])
def test_a_pair_id_outside_the_database_integers_is_refused_not_a_server_error(site, pair):
    assessor = site.client("ann")
    coordinator = site.client("boss")
    for client, method, url, body in (
        (assessor, "GET", f"/api/campaigns/c/pairs/{pair}", None),
        (assessor, "GET", f"/api/campaigns/c/judgments/{pair}/history", None),
        (assessor, "PUT", f"/api/campaigns/c/judgments/{pair}", {"label": 1}),
        (coordinator, "PUT", f"/api/campaigns/c/adjudications/{pair}", {"label": 1}),
        (assessor, "GET", f"/c/c/judge/{pair}", None),
    ):
        r = client.request(method, url, json=body, follow_redirects=False)
        assert r.status_code == 422, (url, r.status_code, r.text[:200])
    r = assessor.get(f"/api/campaigns/c/pairs/{2**63 - 1}")
    assert r.status_code == 404


def test_a_coordinator_reaches_only_the_users_of_their_own_campaigns(tmp_path):
    site = build_site(tmp_path)
    eve = site.client("eve")  # coordinates "other" only; not a site coordinator

    def add(client, username, password=None, campaign="other"):
        body = {"username": username, "role": "assessor", "password": password}
        return client.post(f"/api/campaigns/{campaign}/users", json=body)

    absent, present = add(eve, "nobody"), add(eve, "boss")  # boss: the site coordinator
    assert absent.status_code == present.status_code == 422
    assert absent.json()["error"].replace("nobody", "X") == present.json()["error"].replace(
        "boss", "X"
    )  # the same answer: nothing says whether the user exists
    assert add(eve, "ann", PASSWORD).status_code == 409  # a new account cannot take it
    assert add(eve, "ann", PASSWORD).json()["error"].count("ann") == 1
    assert add(eve, "newbie", PASSWORD).status_code == 201
    assert add(eve, "newbie", campaign="other").status_code == 201  # now one of hers
    assert add(site.client("boss"), "eve", campaign="c").status_code == 201  # site: anyone
    with site.db.read() as s:
        from sqlalchemy import select

        from cranfield.service.models import Campaign, Membership, User

        boss_in_other = s.scalar(
            select(Membership.id)
            .join(User, User.id == Membership.user_id)
            .join(Campaign, Campaign.id == Membership.campaign_id)
            .where(User.username == "boss", Campaign.name == "other")
        )
    assert boss_in_other is None


def test_published_results_show_the_judged_fraction_and_turn_stale(tmp_path):
    site = build_site(tmp_path)
    page = site.client("alice", cookie=True).get("/c/c/results").text
    assert 'id="coverage-warning"' in page and "pairs with a label" in page
    assert 'class="num judged"' in page and 'id="stale"' not in page
    api = site.client("alice").get("/api/campaigns/c/results").json()
    assert api["stale"] is False and 0 < api["coverage"]["fraction"] < 1
    ann = site.client("ann")
    pair = ann.get("/api/campaigns/c/next").json()["pair"]
    assert ann.put(f"/api/campaigns/c/judgments/{pair}", json={"label": 2}).status_code == 201
    assert 'id="stale"' in site.client("alice", cookie=True).get("/c/c/results").text
    assert site.client("boss").get("/api/campaigns/c/results").json()["stale"] is True
    computed = site.client("boss").post("/api/campaigns/c/results", json={}).json()
    assert computed["coverage"]["labelled"] == api["coverage"]["labelled"] + 1
    assert site.client("alice").get("/api/campaigns/c/results").json()["stale"] is False


def test_a_refusal_says_who_may_and_what_the_caller_is(site):
    r = site.client("ann").get("/api/campaigns/c/dashboard")
    assert r.status_code == 403
    assert (
        r.json()["error"]
        == "this is for the coordinators of campaign 'c'; you are an assessor there"
    )
    r = site.client("eve", cookie=True).get("/c/c/dashboard")
    assert r.status_code == 403 and "you are not a member of campaign &#39;c&#39;" in r.text
    r = site.client("ann").post("/api/campaigns", files={"name": (None, "x")})
    assert r.status_code == 403 and "site coordinators only" in r.json()["error"]


def test_the_empty_queue_page_links_to_the_start_of_the_queue(tmp_path):
    site = build_site(tmp_path)
    ann = site.client("ann", cookie=True)
    api = site.client("ann")
    while (view := api.get("/api/campaigns/c/next")).status_code == 200 and view.json():
        pair = view.json()["pair"]
        api.put(f"/api/campaigns/c/judgments/{pair}", json={"label": 1})
    page = ann.get("/c/c/judge").text
    assert 'id="done"' in page
    link = page.split('id="revise"')[0].rsplit('href="', 1)[1].split('"')[0]
    assert link.startswith("/c/c/judge/")
    assert ann.get(link).status_code == 200 and 'id="judge"' in ann.get(link).text


def test_topics_download_in_trec_format_and_guidelines_for_every_member(tmp_path):
    from cranfield.collection import read_topics

    site = build_site(tmp_path)
    text = site.client("alice").get("/api/campaigns/c/topics.txt").text
    path = tmp_path / "topics.txt"
    path.write_text(text)
    back = {t.id: t for t in read_topics(str(path))}
    listed = site.client("ann").get("/api/campaigns/c/topics").json()
    assert [t["id"] for t in listed] == sorted(back) == ["t1", "t2", "t3"]
    for t in listed:
        assert back[t["id"]].title == " ".join(t["title"].replace("<", "&lt;").split())
    boss = site.client("boss")
    evil = "Judge the document, not the site.\n\n<script>alert(1)</script> second paragraph"
    assert boss.put("/api/campaigns/c/guidelines", json={"text": evil}).status_code == 200
    assert site.client("ann").get("/api/campaigns/c/guidelines").json()["text"] == evil
    page = site.client("ann", cookie=True).get("/c/c/guidelines").text
    assert page.count("<p>") >= 2 and "<script>alert" not in page and "&lt;script&gt;" in page
    assert 'id="edit-guidelines"' not in page  # coordinators only
    judge = site.client("ann", cookie=True).get("/c/c/judge").text
    assert 'id="guidelines-link"' in judge


def test_results_as_csv_hold_the_shown_numbers_in_full_precision(site):
    import csv
    import io

    shown = site.client("boss").get("/api/campaigns/c/results").json()
    rows = list(
        csv.DictReader(io.StringIO(site.client("boss").get("/api/campaigns/c/results.csv").text))
    )
    assert {r["run"] for r in rows} == set(shown["runs"])
    for r in rows:
        run = shown["runs"][r["run"]]
        for m in shown["measures"]:
            want = (
                run["aggregate"][m] if r["topic"] == "all" else run["per_topic"][m].get(r["topic"])
            )
            assert (r[m] == "") if want is None else float(r[m]) == want
        assert r["stale"] in ("yes", "no")
    mine = site.client("alice").get("/api/campaigns/c/results.csv").text
    assert {r["run"] for r in csv.DictReader(io.StringIO(mine))} < set(shown["runs"])


def test_a_coordinator_uploads_a_run_for_a_participant_after_the_deadline(tmp_path):
    import datetime as dt

    import sqlalchemy as sa

    from cranfield.service.models import Campaign

    site = build_site(tmp_path)
    with site.db.transaction() as c:
        c.execute(
            sa.update(Campaign)
            .where(Campaign.name == "open")
            .values(deadline=dt.datetime(2020, 1, 1))
        )
    run = run_text("latecomer", topics=("t1",), depth=3).encode()
    late = site.client("carol").post("/api/campaigns/open/runs", files={"file": ("r.txt", run)})
    assert late.status_code == 409 and "deadline" in late.json()["error"]
    eve = site.client("eve")  # coordinator of "other", not of "open"
    assert (
        eve.post(
            "/api/campaigns/open/runs", files={"file": ("r.txt", run)}, data={"owner": "carol"}
        ).status_code
        == 403
    )
    from cranfield.service import accounts

    accounts.grant(site.db, "eve", "open", "coordinator")
    r = eve.post("/api/campaigns/open/runs", files={"file": ("r.txt", run)})
    assert r.status_code == 422 and "owner" in r.json()["error"]
    r = eve.post("/api/campaigns/open/runs", files={"file": ("r.txt", run)}, data={"owner": "ann"})
    assert r.status_code == 422 and "not a participant" in r.json()["error"]
    r = eve.post(
        "/api/campaigns/open/runs", files={"file": ("r.txt", run)}, data={"owner": "carol"}
    )
    assert r.status_code == 201, r.text
    mine = [x["name"] for x in site.client("carol").get("/api/campaigns/open/runs").json()]
    assert "latecomer" in mine
    log = eve.get("/api/campaigns/open/audit").json()
    assert log[-1]["action"] == "api_upload_run"
    assert log[-1]["detail"] == {"run": "latecomer", "owner": "carol"}


def test_the_campaign_list_says_how_much_is_left_to_judge(site):
    page = site.client("ann", cookie=True).get("/campaigns").text
    progress = site.client("ann").get("/api/campaigns/c/next").json()["progress"]
    left = progress["total"] - progress["judged"]
    assert f'<td class="num left-to-judge">{left} of {progress["total"]}</td>' in page
