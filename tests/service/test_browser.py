"""The whole flow in a real browser (headless chromium through selenium), against a real
``cranfield serve``: the coordinator creates a campaign from the sample collection, two
participants upload runs (one with an error, shown with its line number, then fixed),
the pool is built, two assessors judge with the keyboard, the agreement appears on the
dashboard, the qrels are exported, and the published results equal ``cranfield eval``
on the exported qrels. A screenshot of every page is kept (tests/browser.py)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from browser import screenshot
from service.helpers import PASSWORD
from service.server import SRC, Server

MEASURES = ("AP", "nDCG@10", "P@10")


@pytest.fixture
def server(tmp_path):
    from cranfield.service import accounts
    from cranfield.service.db import open_database

    db = open_database(str(tmp_path / "e2e.db"))
    accounts.add_user(db, "boss", PASSWORD, role="coordinator")  # may create campaigns
    for name in ("team1", "team2", "ann", "bob"):
        accounts.add_user(db, name, PASSWORD)
    db.close()
    with Server(tmp_path / "e2e.db", cwd=tmp_path) as s:
        yield s


def _by(css):
    from selenium.webdriver.common.by import By

    return (By.CSS_SELECTOR, css)


def _wait(driver, condition, timeout=60):
    """Until ``condition`` holds; an element replaced while it is read (the page
    reloads after a judgment or a skip) is read again, not an error."""
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    ignored = (NoSuchElementException, StaleElementReferenceException)
    return WebDriverWait(driver, timeout, ignored_exceptions=ignored).until(condition)


def _login(driver, url, user, shot, password=PASSWORD):
    from selenium.webdriver.support import expected_conditions as ec

    driver.delete_all_cookies()
    driver.get(url + "/login")
    driver.find_element(*_by("#username")).send_keys(user)
    driver.find_element(*_by("#password")).send_keys(password)
    if shot:
        screenshot(driver, shot)
    driver.find_element(*_by("#login-button")).click()
    _wait(driver, ec.url_contains("/campaigns"))


def _submit(driver, button_css, url_part):
    from selenium.webdriver.support import expected_conditions as ec

    driver.find_element(*_by(button_css)).click()
    _wait(driver, ec.url_contains(url_part))


def _member(driver, user, role):
    from selenium.webdriver.support.ui import Select

    form = driver.find_element(*_by("#add-member"))
    form.find_element(*_by("input[name=username]")).send_keys(user)
    Select(form.find_element(*_by("select[name=role]"))).select_by_visible_text(role)
    form.find_element(*_by("button")).click()
    _wait(driver, lambda d: f"{user} is now {role}" in d.page_source)


def _upload(driver, path, name):
    driver.find_element(*_by("#run-file")).send_keys(str(path))
    driver.find_element(*_by("#run-name")).send_keys(name)
    driver.find_element(*_by("#upload-button")).click()


def _judge_with_key(driver, key):
    """Press ``key`` on a judging page; wait for the next page (another render: a new
    nonce, or the page saying nothing is left)."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.support.ui import WebDriverWait

    judge = driver.find_element(*_by("#judge"))
    pair, nonce = judge.get_attribute("data-pair"), judge.get_attribute("data-nonce")
    driver.find_element(*_by("body")).send_keys(key)

    def next_page(d):
        found = d.find_elements(*_by("#judge"))
        if not found:
            return bool(d.find_elements(*_by("#done")))
        return found[0].get_attribute("data-nonce") != nonce

    WebDriverWait(driver, 60, ignored_exceptions=(WebDriverException,)).until(next_page)
    return int(pair)


def test_the_whole_campaign_in_a_browser(browser, server, tmp_path):
    from selenium.webdriver.support import expected_conditions as ec

    from cranfield import sample

    driver, url = browser, server.url
    _, runs = sample.load()
    good1, good2 = tmp_path / "team1.txt", tmp_path / "team2.txt"
    runs["bm25"].to_trec(good1)
    runs["hybrid"].to_trec(good2)
    lines = good1.read_text().splitlines()
    bad_line = 7
    fields = lines[bad_line - 1].split()
    fields[2] = "NOT-A-DOC"
    lines[bad_line - 1] = " ".join(fields)
    bad = tmp_path / "team1-bad.txt"
    bad.write_text("\n".join(lines) + "\n")

    # the coordinator creates the campaign and invites the teams and the assessors
    _login(driver, url, "boss", "01-login")
    screenshot(driver, "02-campaigns")
    for box in ("#use-sample", "#use-sample-runs"):  # each checkbox beside its words
        label = driver.find_element(*_by(f"label:has(> {box})"))
        assert label.size["height"] < 1.6 * float(
            driver.execute_script(
                "return parseFloat(getComputedStyle(arguments[0]).lineHeight)", label
            )
        ), label.size
    driver.find_element(*_by("#campaign-name")).send_keys("e2e")
    driver.find_element(*_by("#use-sample")).click()
    driver.find_element(*_by("input[name=per_topic]")).clear()
    driver.find_element(*_by("input[name=per_topic]")).send_keys("2")
    _submit(driver, "#create-button", "/c/e2e/dashboard")
    screenshot(driver, "03-dashboard-new")
    for user, role in (
        ("team1", "participant"),
        ("team2", "participant"),
        ("ann", "assessor"),
        ("bob", "assessor"),
    ):
        _member(driver, user, role)

    # a third team joins by a one-time link the coordinator hands over
    driver.find_element(*_by("#invite select[name=role]")).send_keys("participant")
    _submit(driver, "#invite-button", "/c/e2e/invite")
    link = driver.find_element(*_by("#link-url")).text
    screenshot(driver, "03b-invitation-link")
    # wait for the logout to land: a link opened while the request is in flight is
    # opened by the coordinator still logged in (the race failed one clean-clone run)
    _submit(driver, ".logout button", "/login")
    driver.get(link)
    driver.find_element(*_by("#link-username")).send_keys("cara")
    driver.find_element(*_by("#link-password")).send_keys("cara's long password")
    _submit(driver, "#link-button", "/login")
    _login(driver, url, "cara", None, password="cara's long password")
    driver.get(url + "/c/e2e/submit")
    assert driver.find_elements(*_by("#run-file"))  # a participant of e2e
    _login(driver, url, "boss", None)
    driver.get(url + "/c/e2e/dashboard")

    # team1: an error with its line number, then the fixed run; team2: a valid run
    _login(driver, url, "team1", None)
    driver.get(url + "/c/e2e/submit")
    screenshot(driver, "04-submit")
    _upload(driver, bad, "team1-bm25")
    _wait(driver, ec.presence_of_element_located(_by("#upload-errors")))
    errors = driver.find_element(*_by("#upload-errors")).text
    assert f"line {bad_line}: document 'NOT-A-DOC' is not in the collection" in errors
    screenshot(driver, "05-submit-error")
    _upload(driver, good1, "team1-bm25")
    _wait(driver, lambda d: "run team1-bm25 accepted" in d.page_source)
    screenshot(driver, "06-submit-accepted")
    _login(driver, url, "team2", None)
    driver.get(url + "/c/e2e/submit")
    _upload(driver, good2, "team2-hybrid")
    _wait(driver, lambda d: "run team2-hybrid accepted" in d.page_source)

    # the pool and the assignment
    _login(driver, url, "boss", None)
    driver.get(url + "/c/e2e/dashboard")
    depth = driver.find_element(*_by("#build-pool input[name=depth]"))
    depth.clear()
    depth.send_keys("3")
    driver.find_element(*_by("#pool-button")).click()
    _wait(driver, lambda d: "pool built" in d.page_source)
    driver.find_element(*_by("#assign-button")).click()
    _wait(driver, lambda d: "topics assigned" in d.page_source)
    screenshot(driver, "07-dashboard-assigned")

    # two assessors judge with the keyboard: ann her first pairs, bob the same pairs
    _login(driver, url, "ann", None)
    driver.get(url + "/c/e2e/judge")
    screenshot(driver, "08-judge")
    assert "<mark>" in driver.find_element(*_by("#document")).get_attribute("innerHTML")
    # "come back later" on the first pair, a comment and "unsure" on the next
    skipped = driver.find_element(*_by("#judge")).get_attribute("data-pair")
    driver.find_element(*_by("body")).send_keys("s")
    _wait(driver, lambda d: d.find_element(*_by("#judge")).get_attribute("data-pair") != skipped)
    driver.find_element(*_by("#comment")).send_keys("mentions the topic in passing")
    driver.execute_script("document.activeElement.blur()")
    driver.find_element(*_by("body")).send_keys("u")
    assert driver.find_element(*_by("#flag-unsure")).is_selected()
    noted = _judge_with_key(driver, "1")
    judged = [(noted, 1)]
    for key in "100120":
        judged.append((_judge_with_key(driver, key), int(key)))
    driver.find_element(*_by("body")).send_keys("p")  # previous: the last judged pair
    _wait(
        driver,
        lambda d: d.find_element(*_by("#judge")).get_attribute("data-pair") == str(judged[-1][0]),
    )
    assert driver.find_element(*_by("#label-0")).get_attribute("class").endswith("current")
    screenshot(driver, "09-judge-previous")
    driver.get(f"{url}/api/campaigns/e2e/pairs/{noted}")
    view = json.loads(driver.find_element(*_by("body")).text)
    assert view["comment"] == "mentions the topic in passing" and view["flags"] == ["unsure"]
    driver.get(f"{url}/api/campaigns/e2e/pairs/{skipped}")
    assert json.loads(driver.find_element(*_by("body")).text)["skipped"] is True
    _login(driver, url, "bob", None)
    for i, (pair, label) in enumerate(judged):
        driver.get(f"{url}/c/e2e/judge/{pair}")
        _judge_with_key(driver, str(label if i % 3 else (label + 1) % 3))
    screenshot(driver, "10-judge-bob")

    # the dashboard shows the agreement; the qrels are exported
    _login(driver, url, "boss", None)
    driver.get(url + "/c/e2e/dashboard")
    _wait(driver, ec.presence_of_element_located(_by("#agreement-table")))
    alpha = driver.find_element(*_by('[data-stat="krippendorff_alpha"]')).text
    assert alpha not in ("", "–")
    assert driver.find_element(*_by("#live-judgments")).text == str(2 * len(judged))
    driver.execute_script("arguments[0].scrollIntoView()", driver.find_element(*_by("#agreement")))
    screenshot(driver, "11-dashboard-agreement")
    rows = driver.find_elements(*_by("#progress-assessors tbody tr"))
    assert rows and all(r.size["height"] < 60 for r in rows), [r.size for r in rows]
    current = driver.find_elements(*_by("#steps li.current"))
    assert [li.text.split()[0] for li in current] == ["judging"]
    driver.get(url + "/api/campaigns/e2e/qrels")
    qrels_text = driver.find_element(*_by("body")).text.strip() + "\n"
    assert len(qrels_text.splitlines()) == len(judged)
    qrels = tmp_path / "exported.qrels"
    qrels.write_text(qrels_text)

    # results: computed, published, equal to cranfield eval on the exported qrels
    driver.get(url + "/c/e2e/dashboard")
    _submit(driver, "#compute-button", "/c/e2e/results")
    screenshot(driver, "12-results-coordinator")
    driver.find_element(*_by("#publish-button")).click()
    _wait(driver, lambda d: "results published" in d.page_source)
    shown = {
        (cell.get_attribute("data-run"), cell.get_attribute("data-measure")): cell.text
        for cell in driver.find_elements(*_by("#aggregates td[data-run]"))
    }
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "cranfield",
            "eval",
            str(qrels),
            str(good1),
            str(good2),
            "-m",
            *MEASURES,
            "-f",
            "json",
        ],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": SRC, "PATH": "/usr/bin:/bin"},
        timeout=120,
        check=True,
    )
    expected = {r["name"]: r["aggregate"] for r in json.loads(out.stdout)["runs"]}
    names = {"bm25": "team1-bm25", "hybrid": "team2-hybrid"}
    for tag, run in names.items():
        for m in MEASURES:
            value = expected[tag][m]
            assert shown[(run, m)] == ("–" if value is None else f"{value:.4f}"), (run, m)

    # a participant sees its own run only, with the best, median and worst per topic
    _login(driver, url, "team1", None)
    driver.get(url + "/c/e2e/results")
    screenshot(driver, "13-results-participant")
    page = driver.page_source
    assert "team1-bm25" in page and "team2-hybrid" not in page
    assert "median" in page and "worst" in page
    assert 'id="stale"' not in page and 'id="coverage-warning"' in page

    # judging goes on after publication: the published results are marked stale
    _login(driver, url, "ann", None)
    driver.get(f"{url}/c/e2e/judge")  # her next pair: one more pair in the qrels
    _judge_with_key(driver, "1")
    _login(driver, url, "team1", None)
    driver.get(url + "/c/e2e/results")
    _wait(driver, ec.presence_of_element_located(_by("#stale")))
    screenshot(driver, "14-results-stale")

    # work that moves: a topic from ann to bob, a late run pooled into the queues
    _login(driver, url, "boss", None)
    driver.get(url + "/c/e2e/dashboard")
    form = driver.find_element(*_by("#reassign"))
    topic = driver.find_element(*_by("#progress-topics tbody tr td")).text
    form.find_element(*_by("input[name=topic]")).send_keys(topic)
    form.find_element(*_by("input[name=source]")).send_keys("ann")
    form.find_element(*_by("select[name=target]")).send_keys("bob")
    form.find_element(*_by("#reassign-button")).click()
    _wait(driver, lambda d: f"topic {topic}:" in d.page_source and "from ann" in d.page_source)
    driver.find_element(*_by("#reopen-button")).click()
    _wait(driver, lambda d: "submissions are open again" in d.page_source)
    _login(driver, url, "team1", None)
    driver.get(url + "/c/e2e/submit")
    late = tmp_path / "team1-late.txt"
    runs["dense"].to_trec(late)
    _upload(driver, late, "team1-late")
    _wait(driver, lambda d: "run team1-late accepted" in d.page_source)
    _login(driver, url, "boss", None)
    driver.get(url + "/c/e2e/dashboard")
    driver.find_element(*_by("#extend-button")).click()
    _wait(driver, lambda d: "new pairs pooled" in d.page_source)
    added = int(driver.page_source.split(" new pairs pooled")[0].rsplit(">", 1)[-1].split()[-1])
    assert added > 0
    screenshot(driver, "15-late-run-pooled")


def test_an_assessor_revises_from_the_empty_queue_page(browser, tmp_path):
    """A queue of a few pairs judged to the end: the empty-queue page links to the first
    pair, where the assessor changes a label with the keyboard."""
    from cranfield.service import pooling, submissions
    from cranfield.service.db import open_database
    from service.helpers import make_campaign, run_text, user, write

    db = open_database(str(tmp_path / "small.db"))
    make_campaign(db, n_docs=30)
    user(db, "ann", "assessor")
    owner = user(db, "p1", "participant")
    submissions.submit(
        db, "c", owner, write(tmp_path, "r.txt", run_text("r", topics=("t1",), depth=3))
    )
    pooling.build(db, "c", depth=3)
    pooling.assign(db, "c")
    db.close()
    with Server(tmp_path / "small.db", cwd=tmp_path) as server:
        driver, url = browser, server.url
        _login(driver, url, "ann", None)
        driver.get(url + "/c/c/judge")
        first = driver.find_element(*_by("#judge")).get_attribute("data-pair")
        for _ in range(3):
            _judge_with_key(driver, "1")
        _wait(driver, lambda d: d.find_elements(*_by("#done")))
        screenshot(driver, "16-queue-done")
        driver.find_element(*_by("#revise")).click()
        _wait(driver, lambda d: d.find_elements(*_by("#judge")))
        assert driver.find_element(*_by("#judge")).get_attribute("data-pair") == first
        assert "current" in driver.find_element(*_by("#label-1")).get_attribute("class")
        _judge_with_key(driver, "0")
        driver.get(f"{url}/api/campaigns/c/pairs/{first}")
        assert json.loads(driver.find_element(*_by("body")).text)["label"] == 0


def _click(driver, element):
    """Click ``element`` brought to the middle of the window (not under the sticky bar)."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


def test_the_dashboard_is_one_page_of_sections_with_paged_tables(browser, tmp_path):
    """Every link of the section bar leads to its section on the one page (the overview
    first); the runs table shows 25 at a time and its pages, walked by their links,
    give every run once in order, while another table keeps its own page."""
    import sqlalchemy as sa

    from cranfield.service import submissions
    from cranfield.service.db import open_database
    from cranfield.service.models import AuditEntry, Campaign
    from service.helpers import make_campaign, run_text, user, write

    db = open_database(str(tmp_path / "many.db"))
    make_campaign(db, n_docs=30, max_runs=100)
    user(db, "boss", "coordinator")
    owner = user(db, "p1", "participant")
    names = [f"run{i:02d}" for i in range(53)]
    for name in names:
        text = run_text(name, topics=("t1",), depth=2)
        submissions.submit(db, "c", owner, write(tmp_path, f"{name}.txt", text))
    with db.transaction() as c:
        cid = c.scalar(sa.select(Campaign.id).where(Campaign.name == "c"))
        c.execute(
            sa.insert(AuditEntry), [{"campaign_id": cid, "action": f"x{i}"} for i in range(30)]
        )
    db.close()
    with Server(tmp_path / "many.db", cwd=tmp_path) as server:
        driver, url = browser, server.url
        _login(driver, url, "boss", None)
        driver.get(url + "/c/c/dashboard")
        screenshot(driver, "17-dashboard-overview")
        title = driver.title  # the audit section had slipped into <title>
        assert title.endswith(" — dashboard · cranfield") and len(title) < 100, title
        links = driver.find_elements(*_by("#sections a"))
        anchors = [a.get_attribute("hash") for a in links]
        assert anchors[0] == "#overview" and "#audit" in anchors and len(anchors) >= 10
        for anchor in anchors:  # each section exists once, on this page, and is shown
            assert len(driver.find_elements(*_by(f"section{anchor}"))) == 1, anchor
        driver.find_element(*_by('#sections a[href="#audit"]')).click()
        _wait(driver, lambda d: d.execute_script("return location.hash") == "#audit")
        top = driver.execute_script(
            "return document.getElementById('audit').getBoundingClientRect().top"
        )
        assert 0 <= top < driver.execute_script("return window.innerHeight")
        overview = driver.find_element(*_by("#overview-table")).text
        assert "Runs 53" in overview and "Audit log 30" in overview

        _click(driver, driver.find_element(*_by("#audit-pager .pager-next")))  # audit: page 2
        _wait(driver, lambda d: "audit=2" in d.current_url)
        seen, pages = [], 0
        while True:
            pages += 1
            rows = driver.find_elements(*_by("#runs-table tbody tr"))
            seen += [r.find_element(*_by("td")).text for r in rows]
            assert len(rows) == (25 if pages < 3 else 3)
            assert "audit=2" in driver.current_url  # the other table keeps its page
            pager = driver.find_element(*_by("#runs-pager")).text
            assert f"page {pages} of 3" in pager
            following = driver.find_elements(*_by("#runs-pager .pager-next"))
            if not following:
                break
            _click(driver, following[0])
            _wait(driver, lambda d, k=pages + 1: f"runs={k}" in d.current_url)
            assert driver.execute_script("return location.hash") == "#runs"
        screenshot(driver, "18-dashboard-runs-page-3")
        assert seen == names  # every run once, by name
        _click(driver, driver.find_element(*_by("#runs-pager .pager-previous")))
        _wait(driver, lambda d: "runs=2" in d.current_url)
        first = driver.find_element(*_by("#runs-table tbody tr td")).text
        assert first == names[25]


def test_the_dashboard_pages_the_pool_pairs_and_lists_the_judgments(browser, tmp_path):
    """The pairs section shows 25 pairs and its "next" link the following ones (the
    other tables keep their page); the judgments section lists the saved labels."""
    from service.web_fixtures import build_site

    build_site(tmp_path).db.close()
    with Server(tmp_path / "site.db", cwd=tmp_path) as server:
        driver, url = browser, server.url
        _login(driver, url, "boss", None)
        driver.get(url + "/c/c/dashboard")
        first = [r.text for r in driver.find_elements(*_by("#pairs-table tbody tr"))]
        assert len(first) == 25
        judgments = driver.find_elements(*_by("#judgments-table tbody tr"))
        assert len(judgments) == 8 and all(r.text.count("Z") >= 1 for r in judgments)
        _click(driver, driver.find_element(*_by("#pairs-pager .pager-next")))
        _wait(driver, lambda d: "pairs_after=" in d.current_url)
        second = [r.text for r in driver.find_elements(*_by("#pairs-table tbody tr"))]
        assert second and not set(second) & set(first)
        assert driver.find_element(*_by("#pairs-pager .pager-first"))
        assert len(driver.find_elements(*_by("#judgments-table tbody tr"))) == 8


def test_a_user_forgets_another_device_from_the_account_page(browser, tmp_path):
    """Two logins make two known devices; the account page marks this one and forgets
    the other, which leaves this one known."""
    from cranfield.service import accounts
    from cranfield.service.db import open_database

    db = open_database(str(tmp_path / "devices.db"))
    accounts.add_user(db, "ann", PASSWORD)
    db.close()
    with Server(tmp_path / "devices.db", cwd=tmp_path) as server:
        driver, url = browser, server.url
        _login(driver, url, "ann", None)  # the first device (its cookie is then dropped)
        _login(driver, url, "ann", None)  # this device
        driver.get(url + "/account")
        rows = driver.find_elements(*_by("#devices-table tbody tr"))
        assert len(rows) == 2
        assert ["(this device)" in r.text for r in rows].count(True) == 1
        other = next(r for r in rows if "(this device)" not in r.text)
        _click(driver, other.find_element(*_by(".forget-device")))
        _wait(driver, lambda d: len(d.find_elements(*_by("#devices-table tbody tr"))) == 1)
        screenshot(driver, "30-account-devices")
        (left,) = driver.find_elements(*_by("#devices-table tbody tr"))
        assert "(this device)" in left.text


def test_the_coordinator_samples_imports_machine_labels_and_reads_the_estimates(browser, tmp_path):
    """From the dashboard: choose the human sample, import a machine assessor's labels;
    once the sample is judged, the estimates table lists every run with its interval."""
    from cranfield.service import pooling
    from cranfield.service.db import open_database
    from service.test_machine_sample import judge_queues, label_file, sampled_campaign

    db = open_database(str(tmp_path / "est.db"))
    ids, _ = sampled_campaign(db, tmp_path, fraction=None, assign=False)
    labels = label_file(tmp_path, db)
    with Server(tmp_path / "est.db", cwd=tmp_path) as server:
        driver, url = browser, server.url
        _login(driver, url, "boss", None)
        driver.get(url + "/c/c/dashboard#estimates")
        form = driver.find_element(*_by("#choose-sample"))
        field = form.find_element(*_by("input[name=fraction]"))
        field.clear()
        field.send_keys("0.5")
        _submit(driver, "#sample-button", "msg=")
        assert driver.find_element(*_by("#sample-design")).text.startswith("People judge")
        driver.find_element(*_by("#machine-labels input[type=file]")).send_keys(labels)
        driver.find_element(*_by("#machine-labels input[name=assessor]")).send_keys("m@1")
        _submit(driver, "#machine-labels-button", "machine%20labels")
        pooling.assign(db, "c")
        judge_queues(db, ids)
        driver.get(url + "/c/c/dashboard#estimates")
        rows = driver.find_elements(*_by("#estimates-table tbody tr"))
        shown = [r.text.split()[:2] for r in rows]
        screenshot(driver, "31-dashboard-estimates")
    from cranfield.service import estimates
    from cranfield.service.web import _num

    got = estimates.estimates(db, "c")
    db.close()
    assert shown == [[r["run"], _num(r["estimate"])] for r in got["runs"]]


def test_the_coordinator_asks_an_mtc_question_and_sees_it_decided(browser, tmp_path):
    """From the dashboard: serve the queues in MTC order to decide P@5 between two runs;
    once the assessors have judged what decides it, the dashboard says so and the judging
    page tells the assessor that they may stop."""
    from selenium.webdriver.support.ui import Select

    from cranfield.service import mtc_order
    from cranfield.service.db import open_database
    from service.test_mtc_order import judge, mtc_campaign

    db = open_database(str(tmp_path / "mtc.db"))
    ids, _ = mtc_campaign(db, tmp_path, measure=None)
    with Server(tmp_path / "mtc.db", cwd=tmp_path) as server:
        driver, url = browser, server.url
        _login(driver, url, "boss", None)
        driver.get(url + "/c/c/dashboard#mtc")
        form = driver.find_element(*_by("#choose-mtc"))
        field = form.find_element(*_by("input[name=measure]"))
        field.clear()
        field.send_keys("P@5")
        Select(form.find_element(*_by("select[name=run1]"))).select_by_visible_text("r1")
        Select(form.find_element(*_by("select[name=run2]"))).select_by_visible_text("s1")
        _submit(driver, "#mtc-button", "msg=")
        question = driver.find_element(*_by("#mtc-question")).text
        assert "P@5 between r1 and s1" in question, question
        judge(db, ids)
        driver.get(url + "/c/c/dashboard#mtc")
        decided = driver.find_element(*_by("#mtc-decided")).text
        cell = driver.find_element(*_by("#mtc-table td[data-runs='r1 s1']")).text
        screenshot(driver, "32-dashboard-mtc")
        _login(driver, url, "a1", None)
        driver.get(url + "/c/c/judge")
        note = driver.find_element(*_by("#decided")).text
    from cranfield.service.web import _num

    status = mtc_order.status(db, "c")
    db.close()
    assert status["decided"] and decided.startswith("Decided")
    assert cell == _num(status["pairs"][0]["p_change"])
    assert "you may stop" in note
