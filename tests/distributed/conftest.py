"""One Dask ``LocalCluster`` of worker processes (2 workers x 1 thread) for the whole
session, so that the distributed tests pay its start-up once."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def dask_client():
    import distributed
    from cranfield.distributed.cluster import local_cluster

    with (
        local_cluster(2, threads_per_worker=1) as cluster,
        distributed.Client(cluster, set_as_default=False) as client,
    ):
        yield client
