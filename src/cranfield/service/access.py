"""Who may call what: the one table of access rules, applied to every route.

Each route of the application has a name; :data:`RULES` gives it the set of
principals allowed:

* ``anyone`` — also without logging in (the login page, static files, the OpenAPI
  document);
* ``user`` — any logged-in user;
* ``site-coordinator`` — a user who may create campaigns;
* ``coordinator``, ``assessor``, ``participant`` — a user with that role in the
  campaign named in the path (``{name}``).

:func:`authorize` runs before every endpoint (a dependency of both routers) and fails
closed: a route without a rule answers 500 and is caught by the test that enumerates
all routes × roles. Finer checks stay in the domain layer (an assessor reaches only its
own queue; a participant sees only its own runs, and results only once published).
"""

from __future__ import annotations

ANYONE = frozenset({"anyone"})
USER = frozenset({"user"})
SITE = frozenset({"site-coordinator"})
COORD = frozenset({"coordinator"})
ASSESS = frozenset({"assessor"})
PART = frozenset({"participant"})

RULES: dict[str, frozenset[str]] = {
    # framework routes
    "openapi": ANYONE,
    "static": ANYONE,
    # JSON API
    "api_health": ANYONE,
    "api_login": ANYONE,
    "api_logout": USER,
    "api_me": USER,
    "api_devices": USER,
    "api_forget_device": USER,
    "api_forget_member_devices": COORD,
    "api_campaigns": USER,
    "api_create_campaign": SITE,
    "api_campaign": COORD | ASSESS | PART,
    "api_add_member": COORD,
    "api_upload_run": PART | COORD,
    "api_runs": COORD | PART,
    "api_pairs": COORD,
    "api_judgment_list": COORD,
    "api_members": COORD,
    "api_activity": COORD,
    "api_pool": COORD,
    "api_assign": COORD,
    "api_machine_labels": COORD,
    "api_sample": COORD,
    "api_mtc": COORD,
    "api_mtc_status": COORD,
    "api_estimates": COORD,
    "api_next": ASSESS,
    "api_pair": ASSESS,
    "api_judge": ASSESS,
    "api_history": ASSESS,
    "api_dashboard": COORD,
    "api_adjudicate": COORD,
    "api_qrels": COORD,
    "api_judgments": COORD,
    "api_log": COORD,
    "api_compute_results": COORD,
    "api_publish": COORD,
    "api_results": COORD | PART,
    "api_report": COORD,
    "api_audit": COORD,
    "api_results_csv": COORD | PART,
    "api_topics": COORD | ASSESS | PART,
    "api_topics_trec": COORD | ASSESS | PART,
    "api_guidelines": COORD | ASSESS | PART,
    "api_set_guidelines": COORD,
    "guidelines_page": COORD | ASSESS | PART,
    "guidelines_form": COORD,
    "api_give_topic": COORD,
    "api_take_topic": COORD,
    "api_reassign": COORD,
    "api_extend_pool": COORD,
    "api_reopen": COORD,
    "reassign_form": COORD,
    "extend_form": COORD,
    "reopen_form": COORD,
    "api_invite": COORD,
    "api_reset_link": COORD,
    "api_link": ANYONE,
    "api_use_link": ANYONE,
    "api_change_password": USER,
    "link_page": ANYONE,
    "link_form": ANYONE,
    "account_page": USER,
    "password_form": USER,
    "forget_device_form": USER,
    "forget_devices_form": COORD,
    "invite_form": COORD,
    "reset_form": COORD,
    "api_skip": ASSESS,
    "api_audit_tsv": COORD,
    # HTML pages and forms
    "home": ANYONE,
    "login_page": ANYONE,
    "login_form": ANYONE,
    "logout_form": USER,
    "campaigns_page": USER,
    "create_campaign_form": SITE,
    "campaign_page": COORD | ASSESS | PART,
    "dashboard_page": COORD,
    "members_form": COORD,
    "pool_form": COORD,
    "assign_form": COORD,
    "machine_labels_form": COORD,
    "sample_form": COORD,
    "mtc_form": COORD,
    "adjudicate_form": COORD,
    "results_form": COORD,
    "publish_form": COORD,
    "submit_page": PART,
    "submit_form": PART | COORD,
    "judge_page": ASSESS,
    "judge_pair_page": ASSESS,
    "judge_form": ASSESS,
    "skip_form": ASSESS,
    "results_page": COORD | PART,
}


def allowed(rule: frozenset[str], *, logged_in: bool, site: bool, roles: set[str]) -> bool:
    """Whether a principal passes ``rule``."""
    if "anyone" in rule:
        return True
    if not logged_in:
        return False
    if "user" in rule:
        return True
    if "site-coordinator" in rule and site:
        return True
    return bool(rule & roles)


def refusal(rule: frozenset[str], *, campaign: str | None, roles: set[str]) -> str:
    """Why a logged-in user is refused: who may, and what the user is (the 403 pages and
    the API's errors say it)."""
    if rule == SITE:
        return "this is for site coordinators only: ask one to create the campaign"
    needed = sorted(rule & {"coordinator", "assessor", "participant"})
    who = " or ".join(f"{r}s" for r in needed) or "nobody"
    where = f"campaign {campaign!r}" if campaign else "this campaign"
    if not roles:
        return f"you are not a member of {where}: this is for its {who}"
    return (
        f"this is for the {who} of {where}; you are "
        + " and ".join(f"{'an' if r[0] in 'aeiou' else 'a'} {r}" for r in sorted(roles))
        + " there"
    )
