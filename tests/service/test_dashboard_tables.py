"""The dashboard's keyset-paged tables of pairs and judgments (no browser): each page
holds at most 25 rows, walking the "next" links sends every row of the API's lists
exactly once, names are escaped, and a cursor that is not one starts over."""

from __future__ import annotations

import html
import re

import pytest

from service.web_fixtures import EVIL_TOPIC, build_site


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    return build_site(tmp_path_factory.mktemp("tables"))


def _rows(page: str, table: str) -> list[list[str]]:
    body = page.split(f'id="{table}-table"')[1].split("</table>")[0]
    rows = re.findall(r"<tr><td>(.*?)</td></tr>", body, flags=re.S)
    return [[html.unescape(c) for c in re.split(r"</td><td[^>]*>", r)] for r in rows]


def _walk(client, table: str) -> list[list[str]]:
    url, seen, pages = "/c/c/dashboard", [], 0
    while url:
        page = client.get(url).text
        rows = _rows(page, table)
        assert 1 <= len(rows) <= 25
        seen += rows
        pages += 1
        found = re.search(rf'id="{table}-pager">.*?class="pager-next"', page, flags=re.S)
        nxt = (
            re.search(r'href="([^"]+)" rel="next" class="pager-next"', found.group(0))
            if found
            else None
        )
        url = html.unescape(nxt.group(1)) if nxt else None
        assert pages < 100
    return seen


def test_pairs_pages_send_every_pair_once_with_its_assessors(site):
    boss = site.client("boss", cookie=True)
    api = site.client("boss").get("/api/campaigns/c/pairs", params={"limit": 1000}).json()
    assert len(api) > 25  # more than one page
    shown = _walk(boss, "pairs")
    assert [(r[0], r[1]) for r in shown] == [(p["topic"], p["document"]) for p in api]
    judged = [r[3] for r in shown]
    assert judged == [str(p["judgments"]) if p["judgments"] else "no" for p in api]
    assert any(r[2] for r in shown)  # assessors are named
    assert EVIL_TOPIC not in boss.get("/c/c/dashboard").text  # escaped


def test_judgments_section_lists_the_current_judgments(site):
    boss = site.client("boss", cookie=True)
    api = site.client("boss").get("/api/campaigns/c/judgments.json").json()
    shown = _walk(boss, "judgments")
    assert shown == [
        [j["topic"], j["document"], j["assessor"], str(j["label"]), j["updated"]] for j in api
    ]


def test_a_bad_cursor_starts_over_and_other_tables_keep_their_page(site):
    boss = site.client("boss", cookie=True)
    first = _rows(boss.get("/c/c/dashboard").text, "pairs")
    for bad in ("x", "IjEi", "A" * 2000):
        r = boss.get("/c/c/dashboard", params={"pairs_after": bad})
        assert r.status_code == 200 and _rows(r.text, "pairs") == first
    page = boss.get("/c/c/dashboard?audit=2").text
    nxt = re.search(
        r'href="([^"]+)" rel="next" class="pager-next"', page.split('id="pairs-pager"')[1]
    )
    assert "audit=2" in html.unescape(nxt.group(1))
