"""The tests' Argon2id costs (one pass over 1 MiB, one lane): the tests' own process
(tests/service/conftest.py, tests/adversarial/test_service.py) and every process of a
test server (sitecustomize.py beside this file) hash with them. The algorithm is the
deployed one; the deployed costs (64 MiB, three passes) take about 0.2 s of a core a
password here."""

COSTS = {"time_cost": 1, "memory_cost": 1024, "parallelism": 1}
