import numpy as np
import pytest

from engine.runtime import (
    NEVER,
    CancelToken,
    JobCancelled,
    Progress,
    RecordingProgress,
    device,
    rng,
)


def test_progress_span_maps_and_never_goes_back():
    rec = RecordingProgress()
    p = Progress(rec)
    p(0.5, "half")
    child = p.span(0.5, 1.0)
    child(0.5, "three quarters")
    child(0.0, "would go back")
    grandchild = child.span(0.5, 1.0)
    grandchild(1.0, "end")
    assert [round(f, 6) for f, _ in rec.calls] == [0.5, 0.75, 0.75, 1.0]
    with pytest.raises(ValueError):
        p.span(0.6, 0.4)


def test_cancel_token():
    t = CancelToken()
    t.check()
    t.cancel()
    with pytest.raises(JobCancelled):
        t.check()
    NEVER.check()


def test_rng_streams_are_reproducible_and_independent():
    a = rng(7, "game").normal(size=5)
    b = rng(7, "game").normal(size=5)
    c = rng(7, "other").normal(size=5)
    d = rng(8, "game").normal(size=5)
    assert np.array_equal(a, b)
    assert not np.allclose(a, c) and not np.allclose(a, d)


def test_device_forced_cpu(monkeypatch):
    monkeypatch.setenv("PRA_DEVICE", "cpu")
    assert device() == "cpu"
