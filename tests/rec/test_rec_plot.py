"""The popularity-bias plot (``cranfield rec plot``): its data against a per-user
computation written here, the figure's points are the data, and the command writes it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from cranfield.rec import read_interactions, read_recommendations, split
from cranfield.rec.evaluate import popularity_bias
from cranfield.report.plots import draw_popularity_bias
from generators import rec_log_files as generated


@pytest.mark.parametrize("seed", range(8))
def test_profile_and_recommended_popularity_per_user(seed, tmp_path):
    log_path, recs_path = generated(seed, tmp_path)
    train, test = split(read_interactions(log_path), "ratio", seed=seed, fraction=0.6)
    data = popularity_bias(test, read_recommendations(recs_path), train, 10, False)
    train_df = train.to_arrow().to_pandas()[["user", "item"]].drop_duplicates()
    share = train_df.groupby("item").user.nunique() / train_df.user.nunique()
    recs = pd.read_csv(recs_path, dtype={"user": str, "item": str})
    recs = recs.sort_values(["user", "score"], ascending=[True, False])
    evaluated = set(test.to_arrow().to_pandas().user)
    want = {}
    for user, group in recs.groupby("user"):
        mine = train_df[train_df.user == user].item
        if user in evaluated and len(mine):
            top = list(group.item)[:10]
            want[user] = (share[mine].mean(), np.mean([share.get(i, 0.0) for i in top]))
    assert sorted(want) == sorted(data["users"])
    by_user = dict(
        zip(data["users"], zip(data["profile"], data["recommended"], strict=True), strict=True)
    )
    for user, (profile, recommended) in want.items():
        assert by_user[user] == pytest.approx((profile, recommended), rel=1e-12)
    fig = draw_popularity_bias(data)
    points = fig.axes[0].collections[0].get_offsets()
    assert np.array_equal(
        np.asarray(points), np.column_stack([data["profile"], data["recommended"]])
    )


def test_the_command_writes_the_figure(tmp_path, cli):
    log_path, recs_path = generated(3, tmp_path)
    out = tmp_path / "bias.svg"
    status, _, err = cli("rec", "plot", log_path, recs_path, "--split", "ratio", "-o", out)
    assert status == 0, err
    assert out.read_text().lstrip().startswith("<?xml") and "Popularity bias" in out.read_text()
    status, _, err = cli("rec", "plot", log_path, recs_path, "-o", tmp_path / "x.png")
    assert status == 2 and err.count("\n") == 1 and "training interactions" in err
