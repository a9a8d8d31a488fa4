"""Where an audit's units run (engine.compute, issue 22): the in-process default and the
[compute] setting. The Ray back-end is tested on a real local cluster in tests/cluster."""

from __future__ import annotations

import pytest

import engine.audits.location as L
from engine.compute import IN_PROCESS, InProcessExecutor, check_cluster, run_units
from engine.data.errors import InputError
from engine.runtime import CancelToken, JobCancelled, Progress, RecordingProgress, rng


def draw(index, shared, progress, cancel):
    progress(1.0, "drawn")
    return float(rng(shared, "unit", index).normal())


def test_in_process_units_run_in_order_with_progress_and_say_where():
    recorded = RecordingProgress()
    results, where = run_units(IN_PROCESS, draw, 4, 5, progress=Progress(recorded),
                               message="Drawing")
    assert results == [float(rng(5, "unit", i).normal()) for i in range(4)]
    assert "this computer" in where
    assert recorded.calls[-1] == (1.0, "Drawing (4 of 4)")
    fractions = [f for f, _ in recorded.calls]
    assert fractions == sorted(fractions)


def test_in_process_cancel_stops_before_the_next_unit():
    token = CancelToken()
    ran = []

    def unit(index, shared, progress, cancel):
        ran.append(index)
        if index == 1:
            token.cancel()
        return index

    with pytest.raises(JobCancelled):
        InProcessExecutor().map(unit, 5, None, cancel=token)
    assert ran == [0, 1]


def test_a_bad_cluster_setting_is_one_sentence():
    for bad in ("ray://", "my cluster", "host:99999", 5):
        with pytest.raises(InputError) as info:
            L.LocationConfig.from_dict({"compute": {"cluster": bad}})
        assert "where to run" in str(info.value) and "\n" not in str(info.value)
        assert info.value.setting == "compute.cluster"
    with pytest.raises(InputError):
        L.LocationConfig.from_dict({"compute": {"nodes": 3}})
    assert L.LocationConfig.from_dict(
        {"compute": {"cluster": "ray://head.internal:10001"}}).compute.cluster == \
        "ray://head.internal:10001"



def test_the_cluster_setting_round_trips_and_defaults_to_this_computer():
    assert L.LocationConfig().compute.cluster == IN_PROCESS
    config = L.LocationConfig.from_dict({"compute": {"cluster": "local"}})
    assert L.LocationConfig.from_dict(config.to_dict()).compute.cluster == "local"
    assert check_cluster(None) == IN_PROCESS and check_cluster(" local ") == "local"


# --------------------------------------------------------------------------- one executor per job

class CountingCluster:
    """Stands in for the Ray back-end (engine.compute.RayExecutor): runs the units in this
    process and counts how often a cluster is started and stopped. The real Ray back-end is
    tested in tests/cluster; this counts what a job asks of it."""

    started = 0
    stopped = 0
    cancelled_units = 0               # maps that Cancel stopped
    where = "a counted cluster"

    def __init__(self, cluster, *, cpus=None):
        type(self).started += 1
        self._inner = InProcessExecutor()

    def map(self, unit, count, shared, **kwargs):
        try:
            return self._inner.map(unit, count, shared, **kwargs)
        except JobCancelled:
            type(self).cancelled_units += 1
            raise

    def close(self):
        type(self).stopped += 1


@pytest.fixture
def counting_cluster(monkeypatch):
    import engine.compute as C

    monkeypatch.setattr(CountingCluster, "started", 0)
    monkeypatch.setattr(CountingCluster, "stopped", 0)
    monkeypatch.setattr(CountingCluster, "cancelled_units", 0)
    monkeypatch.setattr(C, "RayExecutor", CountingCluster)
    return CountingCluster


def _count_tables(**more):
    from engine.audits.aggregates import AggregatesConfig
    from engine.compute import ComputeSettings

    return AggregatesConfig(census_records=60, census_auxiliary=400, max_targets=6,
                            fraction=0.0, n_shadow=100, reconstructions=1,
                            attacks=("desia", "cip_rand", "data_only"),
                            mia_attacks=("desia_mia", "cip_rand_mia"), sweep_epsilons=(1.0,),
                            sweep_targets=5, sweep_attacks=("cip_rand", "data_only"), seed=3,
                            compute=ComputeSettings("local"), **more)


def test_a_count_table_job_starts_one_cluster_for_all_its_parts(counting_cluster):
    """Each part (the attribute game, the membership game, each sweep) started its own private
    Ray instance, 20–30 s each; the job now starts one and stops it at the end."""
    import engine.audits.aggregates as A

    result = A.run(_count_tables()).to_dict()
    theory = result["theory"]
    parts = [theory["deterministic"], theory["membership"], theory["sweeps"],
             theory["sweeps"]["noise"]]
    assert [p["computed_on"] for p in parts] == ["a counted cluster"] * 4
    assert (counting_cluster.started, counting_cluster.stopped) == (1, 1)


def test_a_location_job_starts_one_cluster_for_its_repetitions_and_its_sweep(counting_cluster):
    from engine.compute import ComputeSettings

    small = dict(city_users=600, city_epochs=96, aggregate_size=99, test_aggregates=400,
                 shadow_aggregates=200, sweep_targets=2, sweep_test_aggregates=200,
                 attacks=("one_threshold",), target="observations", target_observations=15,
                 seed=3, repetitions=2, compute=ComputeSettings("local"))
    theory = L.run(L.LocationConfig(**small)).to_dict()["theory"]
    assert theory["repetitions"]["computed_on"] == theory["sweep"]["computed_on"] == \
        "a counted cluster"
    assert (counting_cluster.started, counting_cluster.stopped) == (1, 1)


def test_a_cancelled_job_stops_and_stops_its_cluster(counting_cluster):
    """Cancel pressed while the membership game's targets run on the job's cluster: the units
    stop, the job raises JobCancelled (no later part starts) and its cluster is stopped."""
    import engine.audits.aggregates as A

    token = CancelToken()
    seen = []

    def on_progress(fraction, message):
        seen.append(message)
        if message.startswith("Membership game"):
            token.cancel()

    with pytest.raises(JobCancelled):
        A.run(_count_tables(), progress=Progress(on_progress), cancel=token)
    assert not any(m.startswith("Sweep") for m in seen)
    assert counting_cluster.cancelled_units == 1
    assert (counting_cluster.started, counting_cluster.stopped) == (1, 1)


def test_parts_outside_a_job_open_and_close_their_own_executor(counting_cluster):
    from engine.compute import LOCAL, job_executor

    assert run_units(LOCAL, draw, 2, 5)[1] == "a counted cluster"
    assert (counting_cluster.started, counting_cluster.stopped) == (1, 1)
    with job_executor(LOCAL) as job:
        run_units(LOCAL, draw, 2, 5)
        run_units(LOCAL, draw, 2, 5)
        # Another cluster inside the job gets its own executor; this computer needs none.
        assert run_units(IN_PROCESS, draw, 1, 5)[1].startswith("this computer")
        assert job.where == "a counted cluster"
    assert (counting_cluster.started, counting_cluster.stopped) == (2, 2)


def test_the_private_ray_instance_gets_a_short_private_folder(monkeypatch, tmp_path):
    """Ray's local instance keeps Unix sockets under its temp folder (at most 107 bytes a path,
    Ray's own session folder and socket name taking about 62): under a long private temp
    folder the instance failed to start for a 5-digit process id. Its folder is now short,
    readable by the user alone, and removed when the executor closes."""
    import os
    import stat
    import tempfile

    import engine.compute as C

    deep = tmp_path / ("x" * 60)
    deep.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(deep))
    folder = C._short_private_dir()
    try:
        # Ray's folder is a subfolder of it (issue 31 item 2), with a 7-digit process id.
        ray_folder = os.path.join(folder, C.RAY_SUBFOLDER)
        assert len(ray_folder) + 1 + len("session_2026-11-27_10-30-37_826491_1234567/sockets/"
                                         "plasma_store") <= 107, folder
        assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    finally:
        os.rmdir(folder)


def test_a_crashed_sessions_ray_folder_is_removed_on_the_next_start(tmp_path):
    """Ray spills task data (the user's records) into the private instance's folder; a session
    that crashed leaves it behind in /tmp. The next start removes this user's folders whose
    process is gone, and never a live session's, another name's or a link's."""
    import os
    import subprocess
    import sys

    import engine.compute as C

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    crashed = tmp_path / f"pra-ray-{gone}-abcd1234"
    (crashed / "session_x").mkdir(parents=True)
    (crashed / "session_x" / "spilled").write_bytes(b"records")
    live = tmp_path / f"pra-ray-{os.getpid()}-efgh5678"
    live.mkdir()
    other = tmp_path / "pra-ray-notapid"
    other.mkdir()
    target = tmp_path / "elsewhere"
    target.mkdir()
    link = tmp_path / f"pra-ray-{gone}-link0000"
    link.symlink_to(target, target_is_directory=True)

    assert C.remove_stale_ray_dirs(str(tmp_path)) == [str(crashed)]
    assert not crashed.exists()
    assert live.is_dir() and other.is_dir() and link.is_symlink() and target.is_dir()
    assert C.remove_stale_ray_dirs(str(tmp_path / "missing")) == []
