"""``cranfield serve``: the campaign service (run submission, pooling, blind judging,
qrels and results in the browser) over a database: a file (SQLite in WAL mode, the
default) or ``--database postgresql://...``. ``--demo`` starts a ready campaign built
from the sample collection and prints one-time passwords. See docs/service.md.
"""

from __future__ import annotations

from ._args import Parser

#: Seconds an idle HTTP connection stays open (a judge reads a document between requests).
KEEP_ALIVE_SECONDS = 120
#: the environment variable carrying the settings to each worker process
ENVIRONMENT = "CRANFIELD_SERVE_SETTINGS"


def add_arguments(parser: Parser) -> None:
    parser.add_argument(
        "database",
        metavar="DB",
        nargs="?",
        help="the database file (SQLite; created if missing)",
    )
    parser.add_argument(
        "--database", dest="url", metavar="URL", help="a postgresql:// URL instead of DB"
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)"
    )
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument(
        "--demo",
        action="store_true",
        help="add a ready campaign from the sample collection; print one-time passwords",
    )
    parser.add_argument(
        "--data-dir",
        help="where uploaded runs are kept (default: DB's name with .data, beside it)",
    )
    parser.add_argument(
        "--max-upload",
        type=float,
        default=200,
        metavar="MB",
        help="largest upload accepted, in megabytes (default 200)",
    )
    parser.add_argument(
        "--secure-cookies",
        action="store_true",
        help="mark the session cookie Secure (behind an HTTPS proxy)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="worker processes sharing the database (default 1; throttling and sessions "
        "live in the database)",
    )
    parser.add_argument(
        "--trusted-proxy",
        action="append",
        default=[],
        metavar="ADDRESS",
        help="a reverse proxy whose X-Forwarded-For names the client (repeatable; "
        "default: none, the client is the connection's address)",
    )


def run(args) -> int:
    import os
    import tempfile

    from ..errors import InputError, ParameterError
    from ..service import require_serve

    require_serve()
    if args.database and args.url:
        raise InputError("give either DB or --database URL, not both")
    if not 0 < args.port < 65536:
        raise ParameterError("--port", "an integer from 1 to 65535", args.port)
    for address in args.trusted_proxy:
        _check_address(address)
    if not 1 <= args.workers <= 64:
        raise ParameterError("--workers", "an integer from 1 to 64", args.workers)
    if not 0 < args.max_upload <= 1e6:
        raise ParameterError(
            "--max-upload", "a number of megabytes in (0, 1000000]", args.max_upload
        )
    target = args.url or args.database
    if target is None:
        if not args.demo:
            raise InputError("give the database: cranfield serve campaign.db (or --demo)")
        target = os.path.join(tempfile.mkdtemp(prefix="cranfield-demo-"), "demo.db")
    from ..service.app import Config, create_app
    from ..service.db import open_database

    db = open_database(target, data_dir=args.data_dir)
    if args.demo:
        from ..service.demo import demo

        passwords = demo(db)
        print(f"demo campaign in {target}; one-time passwords:")
        for user, password in passwords.items():
            print(f"  {user:<12} {password}")
    config = Config(max_upload=int(args.max_upload * 1e6), secure_cookies=args.secure_cookies)
    import uvicorn

    if args.workers > 1:  # each worker opens the database (migrated here, once) itself
        import json

        db.close()
        os.environ[ENVIRONMENT] = json.dumps(
            {
                "target": target,
                "data_dir": str(db.data_dir),
                "max_upload": config.max_upload,
                "secure_cookies": config.secure_cookies,
            }
        )
        app = "cranfield.service.app:from_environment"
    else:
        app = create_app(db, config)

    print(f"serving on http://{args.host}:{args.port}/", flush=True)
    # assessors read a document for longer than uvicorn's default 5 s keep-alive: keep
    # their connection open between pairs instead of reconnecting for each one
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        log_level="warning",
        access_log=False,
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
        # X-Forwarded-For only from the proxies named: anyone else could choose the
        # address the login throttle counts against (uvicorn trusts 127.0.0.1 by default)
        proxy_headers=bool(args.trusted_proxy),
        forwarded_allow_ips=list(args.trusted_proxy) or None,
        workers=args.workers if args.workers > 1 else None,
        factory=args.workers > 1,
    )
    db.close()
    return 0


def _check_address(address: str) -> None:
    """An IP address or network (``10.0.0.0/8``), as uvicorn's ``forwarded_allow_ips``
    takes them."""
    import ipaddress

    from ..errors import ParameterError

    try:
        ipaddress.ip_network(address, strict=False)
    except ValueError:
        raise ParameterError(
            "--trusted-proxy", "an IP address or network such as 10.0.0.0/8", address
        ) from None
