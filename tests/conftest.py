"""Settings for the whole suite.

Hypothesis runs derandomised (the same examples on every run, no example database), so a
property test can never pass once and fail the next time: a flaky test is a defect. To
search more widely while developing, run with ``--hypothesis-profile=explore``.
"""

from hypothesis import settings

settings.register_profile("deterministic", derandomize=True, database=None, deadline=None)
settings.register_profile("explore", deadline=None)
settings.load_profile("deterministic")
