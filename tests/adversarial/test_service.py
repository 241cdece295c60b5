"""``cranfield campaign`` and ``cranfield serve`` under hostile conditions: one line on
stderr and status 2, never a traceback, a changed input or a half-written output."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from .harness import SRC, Unchanged, assert_clean_failure, assert_success, run_cli


@pytest.fixture(scope="module")
def campaign_db(tmp_path_factory):
    """A database with campaign ``c`` (three topics, no runs) and a password file."""
    sys.path.insert(0, str(os.path.dirname(os.path.dirname(__file__))))
    from cranfield.service import security
    from cranfield.service.db import open_database
    from service.cheap_hashing.argon2_costs import COSTS
    from service.helpers import make_campaign

    saved = dict(security.ARGON2_PARAMETERS)
    security.ARGON2_PARAMETERS.update(COSTS)
    security._hasher = None
    d = tmp_path_factory.mktemp("campaign")
    db = open_database(str(d / "c.db"))
    make_campaign(db)
    db.close()
    (d / "pw").write_text("a long enough password\n")
    security.ARGON2_PARAMETERS.clear()
    security.ARGON2_PARAMETERS.update(saved)
    security._hasher = None
    return d


@pytest.mark.parametrize(
    ("argv", "mention"),
    [
        (
            [
                "campaign",
                "add-user",
                "{d}/missing.db",
                "u",
                "--role",
                "assessor",
                "--password-file",
                "{d}/pw",
            ],
            "no such database",
        ),
        (
            [
                "campaign",
                "add-user",
                "{d}/c.db",
                "u",
                "--role",
                "assessor",
                "--password-file",
                "{d}/nope",
            ],
            "nope",
        ),
        (
            [
                "campaign",
                "add-user",
                "{d}/c.db",
                "<script>",
                "--role",
                "assessor",
                "--password-file",
                "{d}/pw",
            ],
            "user name",
        ),
        (
            [
                "campaign",
                "add-user",
                "{d}/c.db",
                "u",
                "--role",
                "assessor",
                "--password-file",
                "{d}/pw",
                "--campaign",
                "zz",
            ],
            "no campaign named 'zz'",
        ),
        (["campaign", "pool", "{d}/c.db", "c"], "no runs"),
        (["campaign", "pool", "{d}/c.db", "c", "--depth", "0"], "depth"),
        (["campaign", "assign", "{d}/c.db", "c"], "no pool"),
        (["campaign", "export", "{d}/c.db", "nope"], "no campaign named 'nope'"),
        (["campaign", "sample", "{d}/c.db", "c", "--fraction", "0.5"], "build it first"),
        (["campaign", "sample", "{d}/c.db", "c", "--fraction", "0.5", "--strata", "x"], "--strata"),
        (["campaign", "mtc", "{d}/c.db", "c"], "build it first"),
        (["campaign", "mtc", "{d}/c.db", "c", "--measure", "nDCG@10"], "AP, P@k or DCG@k"),
        (["campaign", "mtc", "{d}/c.db", "c", "--measure", "P@" + "9" * 5000], "P@k"),
        (["campaign", "mtc", "{d}/c.db", "c", "--threshold", "0.7"], "threshold"),
        (["campaign", "mtc", "{d}/c.db", "c", "--threshold", "nan"], "threshold"),
        (["campaign", "mtc", "{d}/c.db", "c", "--runs", "a"], "two different run names"),
        (["campaign", "mtc", "{d}/c.db", "nope"], "no campaign named 'nope'"),
        (
            ["campaign", "machine-labels", "{d}/c.db", "c", "{d}/pw", "--assessor", "m"],
            "not an integer",
        ),
        (["campaign", "machine-labels", "{d}/c.db", "c", "{d}/nope", "--assessor", "m"], "nope"),
        (["campaign", "export", "{d}/c.db", "c", "-o", "{d}/c.db"], "c.db"),
        (
            [
                "campaign",
                "init",
                "{d}/c.db",
                "--name",
                "c",
                "--topics",
                "{d}/pw",
                "--documents",
                "{d}/pw",
            ],
            "",
        ),
        (["campaign", "init", "{d}/c.db", "--name", "new"], "--topics"),
        (["campaign", "init", "{d}", "--name", "x", "--sample"], "directory"),
        (
            ["campaign", "init", "{d}/no/such/dir/x.db", "--name", "x", "--sample"],
            "no such directory",
        ),
        (["serve", "{d}/c.db", "--database", "postgresql://x/y"], "not both"),
        (["serve", "--database", "mysql://x/y"], "unsupported database URL"),
        (["serve", "{d}/c.db", "--port", "0"], "--port"),
        (["serve"], "give the database"),
    ],
)
def test_bad_requests_fail_cleanly(campaign_db, argv, mention):
    d = campaign_db
    args = [a.format(d=d) for a in argv]
    with Unchanged(d / "c.db", d / "pw"):
        out = run_cli(*args, cwd=d)
    prog = "cranfield " + " ".join(argv[:1])
    err = assert_clean_failure(out, prog)
    assert mention in err, out


def test_short_or_empty_password_files(campaign_db, tmp_path):
    (tmp_path / "short").write_text("abc\n")
    (tmp_path / "empty").write_text("\n")
    for name, mention in (("short", "at least 8"), ("empty", "empty")):
        out = run_cli(
            "campaign",
            "add-user",
            campaign_db / "c.db",
            "u",
            "--role",
            "assessor",
            "--password-file",
            tmp_path / name,
        )
        assert mention in assert_clean_failure(out, "cranfield campaign: error:"), out


def test_add_user_reads_the_password_from_stdin_and_export_writes_atomically(campaign_db, tmp_path):
    db = tmp_path / "copy.db"
    db.write_bytes((campaign_db / "c.db").read_bytes())
    out = run_cli(
        "campaign",
        "add-user",
        db,
        "ann",
        "--role",
        "assessor",
        "--password-file",
        "-",
        "--campaign",
        "c",
        stdin=b"a long enough password\n",
    )
    assert_success(out)
    assert b"user ann: assessor in campaign c" in out.stdout
    out = run_cli("campaign", "export", db, "c", "-o", tmp_path / "q.txt")
    assert_success(out, quiet=True)
    assert (tmp_path / "q.txt").read_text() == ""  # nothing judged yet: empty qrels


@pytest.mark.parametrize(
    "argv",
    [
        ["serve", "x.db"],
        ["campaign", "init", "x.db", "--name", "c", "--sample"],
        ["campaign", "export", "x.db", "c"],
    ],
    ids=" ".join,
)
def test_missing_dependencies_give_the_install_hint(tmp_path, argv):
    argv = [str(tmp_path / a) if a == "x.db" else a for a in argv]
    code = (
        "import sys; sys.modules['sqlalchemy'] = None\n"
        "from cranfield.cli.main import main\n"
        f"sys.exit(main({argv!r}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": SRC},
        timeout=60,
    )
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        f"cranfield {argv[0]}: error: sqlalchemy is required for this feature: "
        "pip install 'cranfield[serve]'"
    ]
    assert not (tmp_path / "x.db").exists()


def test_the_core_imports_none_of_the_service_dependencies():
    code = (
        "import sys, cranfield\n"
        "from cranfield import sample, evaluate\n"
        "q, r = sample.load(); evaluate(q, r, ['AP'])\n"
        "import cranfield.cli.main\n"
        "bad = [m for m in ('sqlalchemy', 'alembic', 'fastapi', 'starlette', 'uvicorn', 'jinja2', 'argon2') if m in sys.modules]\n"
        "print(bad)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": SRC},
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
