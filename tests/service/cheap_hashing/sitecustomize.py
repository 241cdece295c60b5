"""Run at start-up by every Python process of a test server (``Server`` puts this folder
on ``PYTHONPATH``; uvicorn's worker processes inherit it): Argon2id with the same small
costs as the tests' own process (tests/service/conftest.py), since each password hashed
or checked at the deployed costs (64 MiB, three passes) takes about 0.2 s of a core
here. The algorithm and the code paths are the same; a hash keeps its own costs, so a
password hashed at the deployed costs is still checked at them."""

from cranfield.service import security

security.ARGON2_PARAMETERS.update(time_cost=1, memory_cost=1024, parallelism=1)
