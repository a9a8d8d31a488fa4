"""Every torch path places its tensors by the one device argument (issue 22 item 8), checked on a
machine without a GPU.

:class:`PretendGpu` runs everything on the CPU but tags each tensor with where it would live:
"gpu" when it was made with ``device="cuda:…"`` or moved there (``.to``, ``.cuda``, a module's
``.to``), "cpu" when made without a device, moved back (``.cpu``) or read from numpy; every
other operation passes its inputs' place on. It fails, as CUDA would, when

* one operation mixes a "gpu" tensor with a "cpu" tensor that is not a single number,
* ``.numpy()`` is called on a "gpu" tensor (CUDA needs ``.cpu()`` first),
* a random draw uses a generator on another device than the tensor it fills.

Tensors it did not see made (autograd's gradients, what backward hooks compute) have no tag and
are not judged, so the check can miss a mistake there but never invents one. ``.device`` of a "gpu"
tensor reads ``cuda:0``, so code that places new tensors "next to" an existing one is followed.
What it cannot show: speed, memory, and numbers on a real GPU (docs/methods/scale.md).
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
import scipy.sparse as sp
import torch
from torch.overrides import TorchFunctionMode
from torch.utils._pytree import tree_flatten, tree_map

import engine.runtime as runtime

GPU = "cuda:0"
_TAG = "_pretend_place"
_FACTORIES = {torch.zeros, torch.ones, torch.empty, torch.full, torch.rand, torch.randn,
              torch.randint, torch.randperm, torch.arange, torch.tensor, torch.as_tensor,
              torch.linspace, torch.eye, torch.normal}
_MOVES = {torch.Tensor.to, torch.Tensor.cuda, torch.Tensor.cpu}
# Property accessors reach the mode as fresh bound wrappers each time: compare with ==, not is.
_DEVICE_GET = torch.Tensor.device.__get__
_IS_CUDA_GET = torch.Tensor.is_cuda.__get__
_DATA_SET = torch.Tensor.data.__set__
_GRAD_GET = torch.Tensor.grad.__get__
# Questions about two tensors that move nothing (a module's .to() asks this one).
_QUERIES = {torch._has_compatible_shallow_copy_type}


class DeviceMistake(AssertionError):
    pass


def _is_gpu(dev) -> bool:
    if dev is None:
        return False
    if isinstance(dev, int):
        return True                       # .to(0) / device=0: a CUDA index
    return torch.device(dev).type == "cuda"


def _device_like(x) -> bool:
    return isinstance(x, (str, torch.device, int)) and not isinstance(x, bool)


class PretendGpu(TorchFunctionMode):
    """Tags tensors "gpu" / "cpu" while running on the CPU (module docstring)."""

    def __init__(self):
        super().__init__()
        self.gpu_generators: set[int] = set()
        self._keep: list = []             # generators stay alive, so their ids stay unique
        self.checked_ops = 0

    # -- generators -------------------------------------------------------------------
    def generator(self, device_name: str, seed: int):
        g = torch.Generator()
        g.manual_seed(seed)
        if _is_gpu(device_name):
            self.gpu_generators.add(id(g))
            self._keep.append(g)
        return g

    # -- tags -------------------------------------------------------------------------
    @staticmethod
    def place(t):
        return getattr(t, _TAG, None) if isinstance(t, torch.Tensor) else None

    @staticmethod
    def tag(out, place):
        def put(x):
            if isinstance(x, torch.Tensor):
                try:
                    setattr(x, _TAG, place)
                except (AttributeError, RuntimeError):  # pragma: no cover - exotic tensor types
                    pass
            return x
        tree_map(put, out)
        return out

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        if func == _DEVICE_GET:
            if self.place(args[0]) == "gpu":
                return torch.device(GPU)
            return func(*args, **kwargs)
        if func == _IS_CUDA_GET:
            return self.place(args[0]) == "gpu"
        if func is torch.Tensor.numpy:
            if self.place(args[0]) == "gpu":
                raise DeviceMistake(".numpy() on a tensor that lives on the GPU (needs .cpu())")
            return func(*args, **kwargs)
        if func == _DATA_SET:
            out = func(*args, **kwargs)
            self.tag(args[0], self.place(args[1]))      # a module's .to(): params move
            return out
        if func == _GRAD_GET:
            grad = func(*args, **kwargs)
            if grad is not None and self.place(args[0]) is not None:
                self.tag(grad, self.place(args[0]))     # a gradient sits beside its tensor
            return grad
        if func in _MOVES:
            return self._move(func, args, kwargs)
        if func in _FACTORIES:
            return self._factory(func, args, kwargs)
        if func is torch.from_numpy:
            return self.tag(func(*args, **kwargs), "cpu")
        flat, _ = tree_flatten((args, kwargs))
        places = {self.place(t) for t in flat
                  if isinstance(t, torch.Tensor) and (t.dim() > 0 or self.place(t) == "gpu")}
        self._check_generator(func, kwargs, "gpu" if "gpu" in places else "cpu")
        if "gpu" in places and "cpu" in places and func not in _QUERIES:
            name = getattr(func, "__name__", str(func))
            raise DeviceMistake(f"{name} mixes a GPU tensor with a CPU tensor")
        self.checked_ops += 1
        out = func(*args, **kwargs)
        if "gpu" in places:
            self.tag(out, "gpu")
        elif "cpu" in places and func is not torch.Tensor.__setitem__:
            self.tag(out, "cpu")
        return out

    def _check_generator(self, func, kwargs, place):
        gen = kwargs.get("generator")
        if gen is None:
            return
        if (id(gen) in self.gpu_generators) != (place == "gpu"):
            name = getattr(func, "__name__", str(func))
            raise DeviceMistake(f"{name} draws for the {place.upper()} with a generator of "
                                "another device")

    def _factory(self, func, args, kwargs):
        dev = kwargs.pop("device", None)
        place = "gpu" if _is_gpu(dev) else "cpu"
        if dev is not None and place == "cpu":
            kwargs["device"] = dev
        # device=<torch.device cpu> may have been read off an untagged tensor (computed in a
        # backward hook, e.g. Opacus's per-sample gradients, where the mode does not reach):
        # where the tensor really goes is then unknown, so it is not judged (no tag).
        if isinstance(dev, torch.device) and place == "cpu":
            return func(*args, **kwargs)
        self._check_generator(func, kwargs, place)
        if func in (torch.tensor, torch.as_tensor) and args and \
                self.place(args[0]) == "gpu" and place == "cpu" and dev is None:
            place = "gpu"                 # as_tensor of a GPU tensor stays where it is
        return self.tag(func(*args, **kwargs), place)

    def _move(self, func, args, kwargs):
        src = args[0]
        if func is torch.Tensor.cpu:
            return self.tag(func(*args, **kwargs), "cpu")
        if func is torch.Tensor.cuda:
            return self.tag(src.clone(), "gpu")
        target = kwargs.pop("device", None)
        rest = []                                 # the positional slots, device left out
        for i, a in enumerate(args[1:]):
            if i == 0 and _device_like(a):
                target, a = a, None
            elif i == 0 and isinstance(a, torch.Tensor):   # .to(other): its device and dtype
                target = GPU if self.place(a) == "gpu" else "cpu"
                rest.append(None)
                a = a.dtype
            rest.append(a)
        out = func(src, *rest, **kwargs)
        if target is None:
            return self.tag(out, self.place(src)) if self.place(src) else out
        place = "gpu" if _is_gpu(target) else "cpu"
        if isinstance(target, torch.device) and place == "cpu":
            place = None                          # maybe read off an untagged tensor (above)
        if out is src and self.place(src) != place:
            out = src.clone()                     # a real move makes a new tensor
        return self.tag(out, place)


@pytest.fixture
def pretend_gpu(monkeypatch):
    """The PretendGpu mode, with every ``torch_generator`` handing out tagged generators."""
    mode = PretendGpu()
    original = runtime.torch_generator

    def fake_torch_generator(seed, *stream, device_name="cpu"):
        seed_value = int(runtime.rng(seed, *stream).integers(0, 2**63 - 1))
        return mode.generator(device_name, seed_value)

    # Modules import the function by name: replace every reference to it.
    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("engine") and \
                getattr(module, "torch_generator", None) is original:
            monkeypatch.setattr(module, "torch_generator", fake_torch_generator)
    # CUDA's random-state API has no CPU stand-in; the forked state is the CPU's here.
    real_fork = torch.random.fork_rng

    def fork_rng(devices=None, **kw):
        return real_fork(devices=[], **kw)

    monkeypatch.setattr(torch.random, "fork_rng", fork_rng)
    monkeypatch.setenv("CUBLAS_WORKSPACE_CONFIG", ":4096:8")   # restored after the test
    was_deterministic = torch.are_deterministic_algorithms_enabled()
    with mode:
        yield mode
    assert torch.are_deterministic_algorithms_enabled() == was_deterministic
    assert mode.checked_ops > 0


# --------------------------------------------------------------------------- the checker

def test_the_checker_catches_a_tensor_left_on_the_cpu(pretend_gpu):
    on_gpu = torch.ones(4, device=GPU)
    with pytest.raises(DeviceMistake, match="mixes"):
        _ = on_gpu + torch.zeros(4)                 # forgot device=
    with pytest.raises(DeviceMistake, match="numpy"):
        on_gpu.numpy()
    with pytest.raises(DeviceMistake, match="generator"):
        torch.rand(3, generator=runtime.torch_generator(0, "x"), device=GPU)
    assert (on_gpu + torch.zeros(4).to(on_gpu.device)).cpu().numpy().tolist() == [1.0] * 4
    assert (on_gpu * torch.tensor(2.0)).cpu().numpy().tolist() == [2.0] * 4  # a number: fine


# --------------------------------------------------------------------------- the paths

def _classification(n=60, d=5, k=3, seed=0):
    g = np.random.default_rng(seed)
    X = g.normal(size=(n, d)).astype(np.float32)
    y = g.integers(0, k, n)
    return X, y, k


def test_batched_training_and_prediction_stay_on_the_device(pretend_gpu):
    from engine.models import TrainingSpec
    from engine.models.batched import train_many_mlps
    from engine.models.train import train_model

    X, y, k = _classification()
    spec = TrainingSpec(family="mlp", hidden=(8,), epochs=2, batch_size=16, seed=3)
    masks = np.zeros((3, len(y)), dtype=bool)
    masks[0, :30], masks[1, 20:], masks[2, ::2] = True, True, True   # uneven: per-model leaves
    many = train_many_mlps(spec, X, y, k, masks, device=GPU, weight_decays=[0.0, 1e-3, 1e-2],
                           snapshot_epochs=(1,))
    p = many.predict_proba(X, models=[0, 2])
    assert p.shape == (2, len(y), k) and np.allclose(p.sum(axis=2), 1.0)
    assert many.confidence_logit(X, y).shape == (3, len(y))
    assert many.at_epoch(1).model(1).predict_proba(X).shape == (len(y), k)
    single = train_model(spec, X, y, k, device=GPU)
    assert single.details["device"] == GPU
    assert single.state_arrays()["W0"].shape == (X.shape[1], 8)


def test_dp_sgd_stays_on_the_device(pretend_gpu):
    from engine.defences.dpsgd import dp_sgd
    from engine.models import TrainingSpec

    X, y, k = _classification(n=80)
    spec = TrainingSpec(family="mlp", hidden=(8,), epochs=1, batch_size=16, seed=1)
    model = dp_sgd(X, y, k, spec, noise_multiplier=1.0, device=GPU, seed=2)
    assert model.predict_proba(X).shape == (len(y), k)


def test_attack_models_stay_on_the_device(pretend_gpu):
    from engine.attacks.model.base import fit_group_mlps, predict_group_mlps

    g = np.random.default_rng(1)
    x = g.normal(size=(2, 40, 4))
    y = (g.random((2, 40)) < 0.5).astype(float)
    model = fit_group_mlps(x, y, np.ones((2, 40)), hidden=(6,), epochs=20, check_every=5,
                           device=GPU)
    out = predict_group_mlps(model, x[:, :7])
    assert out.shape == (2, 7) and np.all((out > 0) & (out < 1))


def _pool(seed=0, people=50, cells=6):
    from engine.games.location import CellPool

    g = np.random.default_rng(seed)
    return CellPool.from_rows(sp.csr_matrix((g.random((people, cells)) < 0.3).astype(np.uint8)))


def test_location_sampling_and_meta_classifier_stay_on_the_device(pretend_gpu, monkeypatch):
    from engine.attacks.location import meta_classifier
    from engine.attacks.location.base import AttackData
    from engine.games.location import play

    monkeypatch.setattr(meta_classifier, "MAX_STEPS", 40)   # every step is checked: keep few

    pool = _pool()
    target = np.ones(6, dtype=np.float32)
    shadow = play(target, pool, 10, 200, "laplace", 1.0, runtime.rng(0, "s"), device=GPU)
    test = play(target, pool, 10, 60, "laplace", 1.0, runtime.rng(0, "t"), device=GPU)
    assert shadow.x.shape == (200, 6)
    data = AttackData(k=6, target=target, shadow=shadow, test=test, mechanism="laplace",
                      scale=1.0)
    out = meta_classifier.attack(data, seed=1, device=GPU)
    assert out.scores.shape == (60,) and out.details["device"] == GPU


def test_rap_stays_on_the_device(pretend_gpu):
    import itertools

    from engine.aggregates.queries import CountingQuery, answers
    from engine.attacks.aggregates import rap

    sizes = (2, 3, 2)
    queries = [CountingQuery(((c, frozenset([v])),)) for c in range(3) for v in range(sizes[c])]
    queries += [CountingQuery(((0, frozenset([a])), (1, frozenset([b]))))
                for a, b in itertools.product(range(2), range(3))]
    g = np.random.default_rng(0)
    data = np.column_stack([g.integers(0, s, 12) for s in sizes]).astype(np.int32)
    for mode in ("rand", "init"):
        recon = rap.reconstruct_rap(sizes, queries, answers(queries, data), 12, k=2,
                                    mode=mode, auxiliary=data, epochs=10, device_name=GPU)
        assert recon.records.shape[0] == 2 and recon.details["device"] == GPU


def test_rap_trains_with_deterministic_kernels_on_a_gpu_only(monkeypatch):
    """On CUDA, index_select's backward sums with atomic additions: RAP must train under
    torch's deterministic kernels there (same seed, same reconstructions on the same GPU) and
    leave the CPU's kernels, and numbers, as they are."""
    from engine.aggregates.queries import CountingQuery, answers
    from engine.attacks.aggregates import rap

    seen: list[bool] = []
    real = rap.relaxed_answers

    def recording(logits, plan):
        seen.append(torch.are_deterministic_algorithms_enabled())
        return real(logits, plan)

    monkeypatch.setattr(rap, "relaxed_answers", recording)
    sizes = (2, 3)
    queries = [CountingQuery(((0, frozenset([a])), (1, frozenset([b]))))
               for a in range(2) for b in range(3)]
    data = np.array([[0, 1], [1, 2], [1, 0], [0, 0]], dtype=np.int32)
    released = answers(queries, data)
    rap.reconstruct_rap(sizes, queries, released, 4, k=2, epochs=5, device_name="cpu")
    assert seen and not any(seen)
    seen.clear()
    with PretendGpu(), monkeypatch.context() as m:
        m.setenv("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
        rap.reconstruct_rap(sizes, queries, released, 4, k=2, epochs=5, device_name=GPU)
    assert len(seen) == 6 and all(seen[:5])          # the 5 training epochs
    assert not torch.are_deterministic_algorithms_enabled()
