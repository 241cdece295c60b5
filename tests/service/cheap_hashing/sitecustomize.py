"""Run at start-up by every Python process of a test server (``Server`` puts this folder
on ``PYTHONPATH``; uvicorn's worker processes inherit it): Argon2id at the tests' costs
(argon2_costs.py), as in the tests' own process. A hash keeps its own costs, so a
password hashed at the deployed costs is still checked at them."""

from argon2_costs import COSTS

from cranfield.service import security

security.ARGON2_PARAMETERS.update(COSTS)
