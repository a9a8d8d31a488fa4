"""The synthetic city (stand-in for paper 000 §5.1's Milan traces) and its bundled sample."""

from pathlib import Path

import numpy as np
import pytest

from engine.data.city import generate_city, main, write_traces_csv
from engine.data.traces import clip_per_epoch, load_traces_csv
from engine.runtime import CancelToken, JobCancelled, Progress, RecordingProgress, rng

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "resources" / "location" / "sample_city.csv"


@pytest.fixture(scope="module")
def full_city():
    return generate_city(seed=0)


def test_sizes_and_labels():
    t = generate_city(seed=3, n_users=500, grid=(4, 5), n_epochs=48)
    assert (t.n_users, t.n_sites, t.n_epochs) == (500, 20, 48)
    assert t.matrix.shape == (500, 20 * 48)
    assert t.site_labels[:6] == ("r0c0", "r0c1", "r0c2", "r0c3", "r0c4", "r1c0")
    assert t.epoch_labels[0] == "0" and t.epoch_labels[-1] == "47"
    assert t.user_ids[0] == "u000" and t.user_ids[-1] == "u499"
    assert len(set(t.user_ids)) == 500
    assert t.observations_per_user().min() >= 1


def test_full_size_matches_papers_shape_and_spread(full_city):
    t = full_city
    assert (t.n_users, t.n_sites, t.n_epochs) == (16000, 96, 800)
    obs = t.observations_per_user()
    # From a handful to several hundred positive observations, median a few tens.
    assert obs.min() >= 1 and np.percentile(obs, 5) <= 5
    assert 15 <= np.median(obs) <= 60
    assert np.percentile(obs, 99) >= 300 and obs.max() <= 800 * 2


def test_site_popularity_is_heavy_tailed(full_city):
    per_site = np.sort(full_city.aggregate().sum(axis=0))[::-1]
    share_top_tenth = per_site[: len(per_site) // 10].sum() / per_site.sum()
    assert share_top_tenth > 0.25          # uniform sites would give 0.10
    assert per_site[0] / np.median(per_site) > 5
    assert per_site[-1] > 0                # quiet, not dead


def test_mostly_one_site_per_epoch(full_city):
    m = full_city.matrix
    # Ones minus ones left after clipping to C = 1 = the extra sites in shared epochs.
    clipped = clip_per_epoch(full_city, 1, rng(0, "test"))
    extra_share = (m.nnz - clipped.nnz) / m.nnz
    assert 0.005 < extra_share < 0.1


def test_daily_rhythm_and_home_at_night(full_city):
    t = full_city
    agg = t.aggregate()                     # (E, S)
    per_hour = np.bincount(np.arange(t.n_epochs) % 24, weights=agg.sum(axis=1))
    assert per_hour[3] < 0.3 * per_hour[19]  # 3 am is quiet, the evening busy
    # Night-time positions concentrate on each user's most frequent night site (their home),
    # daytime ones on weekdays spread over work and elsewhere.
    m = t.matrix.tocoo()
    epoch, site = np.divmod(m.col, t.n_sites)
    hour, weekday = epoch % 24, (epoch // 24) % 7 < 5
    night = (hour >= 23) | (hour < 6)
    office = weekday & (hour >= 10) & (hour < 16)
    nu, ns = m.row[night], site[night]
    pairs = np.unique(nu * t.n_sites + ns, return_counts=True)
    best = np.zeros(t.n_users, np.int64)
    np.maximum.at(best, pairs[0] // t.n_sites, pairs[1])
    at_home_share = best.sum() / night.sum()
    assert at_home_share > 0.8
    home = np.full(t.n_users, -1)
    order = np.argsort(pairs[1], kind="stable")
    home[pairs[0][order] // t.n_sites] = pairs[0][order] % t.n_sites
    office_home = (home[m.row[office]] == site[office]).mean()
    assert office_home < 0.5


def test_deterministic_per_seed():
    a = generate_city(seed=5, n_users=300, n_epochs=96)
    b = generate_city(seed=5, n_users=300, n_epochs=96)
    c = generate_city(seed=6, n_users=300, n_epochs=96)
    assert (a.matrix != b.matrix).nnz == 0 and a.user_ids == b.user_ids
    assert (a.matrix != c.matrix).nnz > 0


def test_progress_and_cancel():
    rec = RecordingProgress()
    generate_city(seed=1, n_users=20000, n_epochs=400, progress=Progress(rec))
    assert len(rec.calls) >= 2 and rec.calls[-1][0] == pytest.approx(1.0)
    assert all(b[0] >= a[0] for a, b in zip(rec.calls, rec.calls[1:], strict=False))
    token = CancelToken()
    token.cancel()
    with pytest.raises(JobCancelled):
        generate_city(seed=1, n_users=100, n_epochs=10, cancel=token)


def test_csv_round_trip_gives_the_same_matrix(tmp_path):
    t = generate_city(seed=2, n_users=800, n_epochs=120)
    path = write_traces_csv(t, tmp_path / "city.csv")
    back = load_traces_csv(path)
    assert back.user_ids == t.user_ids
    assert back.site_labels == t.site_labels
    assert back.epoch_labels == t.epoch_labels
    assert back.matrix.shape == t.matrix.shape
    assert (back.matrix != t.matrix).nnz == 0


def test_bundled_sample_is_what_the_readme_command_writes(tmp_path):
    assert SAMPLE.stat().st_size < 1_500_000
    readme = (SAMPLE.parent / "README.md").read_text(encoding="utf-8")
    assert "--users 1500 --epochs 168 --seed 0" in readme
    out = tmp_path / "again.csv"
    assert main(["--out", str(out), "--users", "1500", "--epochs", "168", "--seed", "0"]) == 0
    assert out.read_bytes() == SAMPLE.read_bytes()
    t = load_traces_csv(SAMPLE)
    assert (t.n_users, t.n_sites, t.n_epochs) == (1500, 96, 168)


def test_cli_rejects_a_bad_grid(tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        main(["--out", str(tmp_path / "x.csv"), "--grid", "12by8"])
    assert info.value.code == 2
    assert "--grid must look like 12x8" in capsys.readouterr().err
