"""The choices of ``cranfield fuse``'s options, importable without NumPy (its --help)."""

MISSING = ("zero", "min")  # how a document a run did not retrieve is scored
SEARCHES = ("grid", "mga", "coordinate-ascent")  # the weight searches of --optimise
TOPIC_POLICIES = ("same", "union")  # runs' topic sets: all the same, or their union
