"""Where an audit's independent units of work run: in this process, or on a Ray cluster
(issue 22, "Campaigns on an existing cluster engine").

An audit's heavy work falls into units that do not depend on each other — a repetition of the
location game, a sweep point, a defended setting, a chunk of shadow datasets. Each unit is a
module-level function ``unit(index, shared, progress, cancel) -> result`` that draws every random
number from the config's seed and its own ``index`` (:func:`engine.runtime.rng`), so the unit
gives the same numbers wherever it runs and in whatever order the units finish. An
:class:`Executor` runs the units and returns their results in index order:

* :class:`InProcessExecutor` (the default, and what ran before): one after another in this
  process, each with its share of the progress bar and the job's cancel token. No sockets.
* :class:`RayExecutor`: each unit is a Ray task; the data every unit reads (``shared``) is put
  in Ray's object store once. Progress moves as units finish; Cancel cancels every task still
  queued or running (``ray.cancel(force=True)`` ends a running task's worker) and raises
  :class:`~engine.runtime.JobCancelled`, as in-process. A unit's bad-input sentence
  (:class:`~engine.data.errors.InputError`) reaches the user as it would in-process, without
  the worker's traceback around it.

The cluster is named by the user (``cluster`` in the config's ``[compute]`` table, or the GUI):
``""`` runs in-process; ``"local"`` starts a private Ray instance on this computer (no
dashboard) for the run and stops it afterwards; ``"ray://host:port"`` or ``"host:port"``
connects to an existing cluster, which then receives the audit's data: it must sit on a trusted
network (docs/methods/scale.md says how to turn on Ray's TLS).

Private and local (issue 31 items 2 and 9): the private instance's folders lie in a 0700
folder of this user (Ray makes its own folders 0777, so it gets a subfolder), its token in a
0600 file there (not ~/.ray/auth_token), its node on 127.0.0.1 so every Ray process listens on
the loopback address only, and a watchdog process ends Ray's processes and removes the folder
when the app ends, even by kill -9. A cluster named by address is checked first, each step
bounded (:func:`check_cluster_answers`): an unknown host, a refused or silent port, a missing
or wrong token each get their own sentence within 30 s (issue 31 item 3).

One job, one executor (issue 22 item 6: starting a private Ray instance costs 20–30 s, and it
was paid once per part of a job). An audit's ``run`` is wrapped in :func:`one_executor_per_job`:
the job's executor is opened on first use, every part of the job that asks
:func:`executor_for` / :func:`run_units` for the same cluster borrows it, and it is closed when
the job ends — normally, on bad input or on Cancel.

Ray is imported only when a cluster is named: the in-process default never loads it.
"""

from __future__ import annotations

import functools
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from engine.cluster_address import check_cluster_answers, host_of, is_loopback
from engine.data.errors import InputError, given_value
from engine.private_tmp import remove_stale
from engine.ray_watchdog import start_watchdog, stop_watchdog
from engine.runtime import NEVER, NO_PROGRESS, CancelToken, JobCancelled, Progress

Unit = Callable[[int, Any, Progress, CancelToken], Any]

IN_PROCESS, LOCAL = "", "local"
# How often a Ray run looks at the cancel token while it waits for units (seconds).
POLL_SECONDS = 0.2


class Executor(Protocol):
    """Runs independent units and returns their results in index order."""

    where: str          # in words, for the report: "this computer (in the app's process)"

    def map(self, unit: Unit, count: int, shared: Any, *, progress: Progress = NO_PROGRESS,
            cancel: CancelToken = NEVER, message: str = "",
            weights: Sequence[float] | None = None) -> list: ...


class InProcessExecutor:
    """Runs the units one after another in this process (the default)."""

    where = "this computer (in the app's own process)"

    def map(self, unit: Unit, count: int, shared: Any, *, progress: Progress = NO_PROGRESS,
            cancel: CancelToken = NEVER, message: str = "",
            weights: Sequence[float] | None = None) -> list:
        edges = _edges(count, weights)
        results = []
        for index in range(count):
            cancel.check()
            progress(edges[index], _step(message, index, count))
            results.append(unit(index, shared, progress.span(edges[index], edges[index + 1]),
                                cancel))
        progress(1.0, _step(message, count, count))
        return results

    def close(self) -> None:
        pass


class RayExecutor:
    """Runs each unit as a Ray task (module docstring)."""

    def __init__(self, cluster: str, *, cpus: int | None = None) -> None:
        self._started_here = False
        self._temp_dir: str | None = None
        self._saved_env: dict[str, str | None] | None = None
        self._watchdog: subprocess.Popen | None = None
        # A cluster named by address is checked before Ray is asked to connect: Ray 2.60 waits
        # minutes on an address that refuses, stays silent or names no host (issue 31 item 3).
        answer = None if cluster == LOCAL else check_cluster_answers(cluster)
        try:
            import ray  # heavy and optional: only loaded when the user names a cluster
        except ImportError as exc:   # pragma: no cover - ray is in the lock
            raise InputError("Running on a Ray cluster needs the 'ray' package, which is not "
                             "installed here; install the app's locked requirements again "
                             "(make install), or leave the cluster setting empty.",
                             key="compute.cluster") from exc
        self._ray = ray
        # The workers import this app's engine: ship the package itself with the job, so a
        # cluster needs only Python and the locked libraries, not a copy of the app.
        runtime_env = {"py_modules": [str(Path(__file__).resolve().parent)]}
        if cluster == LOCAL:
            if not ray.is_initialized():
                try:
                    self._start_private(ray, cpus or os.cpu_count() or 1, runtime_env)
                except BaseException:
                    self.close()
                    raise
            self.where = (f"a private Ray instance on this computer "
                          f"({int(ray.cluster_resources().get('CPU', 0))} processors)")
        else:
            # The token goes only to a cluster that asked for it (the check above), and Ray
            # sends it only in token mode: an address never turns that mode on by itself.
            self._saved_env = _set_environment(
                {"RAY_AUTH_MODE": "token"} if answer.needs_token else {})
            _forget_ray_token()
            # A loopback address stays one when the cluster's node is there (Ray would put
            # this computer's network address in its place, where such a cluster is not).
            loopback = is_loopback(host_of(cluster)) and (
                answer.nodes is None or LOOPBACK in answer.nodes)
            try:
                with _loopback_node(loopback):
                    ray.init(address=cluster, log_to_driver=False, logging_level="ERROR",
                             configure_logging=False, runtime_env=runtime_env)
            except Exception as exc:  # noqa: BLE001 - any failure to connect is one sentence
                self.close()
                raise InputError(f"Could not connect to the Ray cluster at '{cluster}' "
                                 f"({exc}). Check the address and that the cluster is "
                                 "running, or leave the cluster setting empty to run on this "
                                 "computer.", key="compute.cluster") from exc
            self._started_here = True
            self.where = (f"the Ray cluster at {cluster} "
                          f"({int(ray.cluster_resources().get('CPU', 0))} processors)")

    @property
    def folder(self) -> str | None:
        """The private instance's folder (0700; Ray's own below it), None for a cluster
        named by address or an instance this executor did not start."""
        return self._temp_dir

    def _start_private(self, ray: Any, cpus: int, runtime_env: dict) -> None:
        """Start the private instance ("local", issue 31 item 2): its folders under a 0700
        folder of this user, its token in a 0600 file there, every process listening on the
        loopback address only, and a watchdog that ends its processes with the app."""
        self._temp_dir = _short_private_dir()
        token_path = os.path.join(self._temp_dir, TOKEN_NAME)
        _write_private(token_path, secrets.token_hex(32))
        # Token mode even where the user turned it off for other clusters: the loopback ports
        # are open to every user of this computer, the token is what keeps them out. The path
        # variable keeps Ray from writing ~/.ray/auth_token (0644, readable by everyone).
        self._saved_env = _set_environment({
            "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": token_path,
            "RAY_AUTH_TOKEN": None, LOOPBACK_VARIABLE: "0"})
        _forget_ray_token()
        self._watchdog = start_watchdog(self._temp_dir)
        with _loopback_node(True):
            ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False,
                     logging_level="ERROR", configure_logging=False,
                     runtime_env=runtime_env,
                     _temp_dir=os.path.join(self._temp_dir, RAY_SUBFOLDER),
                     _node_ip_address=LOOPBACK)
        self._started_here = True
        node = ray.util.get_node_ip_address()
        if not is_loopback(node):
            raise InputError(f"The private Ray instance would listen on {node}, not on this "
                             "computer's loopback address only, so it was not started; leave "
                             "the cluster setting empty to run in the app's own process.",
                             key="compute.cluster")

    def map(self, unit: Unit, count: int, shared: Any, *, progress: Progress = NO_PROGRESS,
            cancel: CancelToken = NEVER, message: str = "",
            weights: Sequence[float] | None = None) -> list:
        ray = self._ray
        edges = _edges(count, weights)
        cancel.check()
        shared_ref = ray.put(shared)
        remote = ray.remote(num_cpus=1, max_retries=0)(_run_unit)
        refs = [remote.remote(unit, index, shared_ref) for index in range(count)]
        position = {ref.hex(): index for index, ref in enumerate(refs)}
        results: list[Any] = [None] * count
        finished_weight = 0.0
        pending = list(refs)
        progress(0.0, _step(message, 0, count))
        try:
            while pending:
                if cancel.cancelled:
                    raise JobCancelled("The job was cancelled.")
                done, pending = ray.wait(pending, num_returns=len(pending),
                                         timeout=POLL_SECONDS, fetch_local=True)
                for ref in done:
                    index = position[ref.hex()]
                    try:
                        results[index] = ray.get(ref)
                    except ray.exceptions.RayTaskError as exc:
                        # A unit's bad-input sentence reaches the user as it would in-process,
                        # not wrapped in the worker's traceback.
                        if isinstance(exc.cause, InputError):
                            raise exc.cause from None
                        raise
                    finished_weight += edges[index + 1] - edges[index]
                finished = count - len(pending)
                progress(finished_weight, _step(message, finished, count))
        except BaseException:
            for ref in pending:
                ray.cancel(ref, force=True)
            raise
        return results

    def close(self) -> None:
        """Shut Ray down (when this executor started or connected it), then the watchdog,
        put the environment back, and remove the private folder (token and spilled data)."""
        if self._started_here and self._ray.is_initialized():
            self._ray.shutdown()
        self._started_here = False
        if self._watchdog is not None:
            stop_watchdog(self._watchdog)
            self._watchdog = None
        if self._saved_env is not None:
            _restore_environment(self._saved_env)
            self._saved_env = None
            _forget_ray_token()
        if self._temp_dir is not None:
            shutil.rmtree(self._temp_dir, ignore_errors=True)
            self._temp_dir = None


# --------------------------------------------------------------------------- the private instance

# Ray's local instance keeps Unix sockets under its temp folder, and a socket's path may not
# exceed 107 bytes: under the session's private folder (engine.private_tmp, in the system's
# temp folder) with Ray's own session_<date>_<time>_<pid>/sockets/plasma_store below it, the
# path passed 107 for a 5-digit process id or a longer user name, and the private instance
# failed to start. So the instance gets its own short private folder in /tmp, and Ray its
# subfolder RAY_SUBFOLDER there: "/r", then at most 64 bytes of Ray's own (a 7-digit process
# id), leave 41 for the folder itself.
_SOCKET_PATH_ROOM = 41
# Ray makes its temp folder and every folder in it readable and writable by everyone (0777,
# issue 31 item 2). It gets a subfolder of the app's 0700 folder, which it never changes: no
# other user can enter the 0700 folder, so none reaches what lies below it.
RAY_SUBFOLDER = "r"
# The private instance's token (Ray 2.60 turns token authentication on for every instance it
# starts), in a 0600 file in the private folder: Ray would write ~/.ray/auth_token, 0644.
TOKEN_NAME = "auth_token"
LOOPBACK = "127.0.0.1"
# Ray reads this variable once, at import, to decide whether a node may take this computer's
# network address (Linux: yes, it rewrites 127.0.0.1 to it); "0" keeps a node on 127.0.0.1,
# and Ray's servers then listen on the loopback address only (ray._private.services
# .get_node_ip_address). Set for the processes the private instance starts.
LOOPBACK_VARIABLE = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


def _short_private_dir() -> str:
    """A new folder, readable by the user alone (mkdtemp: 0700), for the private Ray instance:
    in the session's private temp folder when its path is short enough, else in /tmp (POSIX)
    or the system's temp folder. Its name carries this process's id, so a later start removes
    the folders that a crashed session left (Ray spills task data there: the user's records)."""
    base = tempfile.gettempdir()
    prefix = f"{RAY_DIR_PREFIX}{os.getpid()}-"
    if len(base) + len(f"/{prefix}XXXXXXXX") > _SOCKET_PATH_ROOM and os.name != "nt" \
            and os.path.isdir("/tmp"):
        base = "/tmp"
    remove_stale_ray_dirs(base)
    return tempfile.mkdtemp(prefix=prefix, dir=base)


def _write_private(path: str, text: str) -> None:
    """Write a new file readable by the user alone (0600 from its creation, never looser)."""
    handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(handle, "w", encoding="ascii") as out:
        out.write(text)


def _set_environment(changes: dict[str, str | None]) -> dict[str, str | None]:
    """Set (or, for None, remove) environment variables; returns what they were before."""
    saved = {name: os.environ.get(name) for name in changes}
    for name, value in changes.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    return saved


def _restore_environment(saved: dict[str, str | None]) -> None:
    _set_environment(saved)


def _forget_ray_token() -> None:
    """Make Ray read its authentication settings again: it keeps the first token it read (and
    ray.init leaves RAY_AUTH_MODE=token behind), so a private instance's token would be sent
    to the next cluster named by address, or a cluster's to the next private instance. The
    order is Ray's own (ray._private.authentication_test_utils): settings, then the token."""
    try:
        from ray._raylet import AuthenticationTokenLoader, Config
    except ImportError:      # pragma: no cover - another Ray: it has no token cache to clear
        return
    Config.initialize("")
    AuthenticationTokenLoader.instance().reset_cache()


@contextmanager
def _loopback_node(loopback: bool) -> Iterator[None]:
    """Keep this process's Ray node on 127.0.0.1 while ``ray.init`` runs (see
    LOOPBACK_VARIABLE; Ray read that variable when it was imported, so its value is set here
    too). A private instance then listens on the loopback address only, and a cluster named by
    a loopback address is reached there, not at this computer's network address."""
    constants = sys.modules.get("ray._private.ray_constants")
    before = getattr(constants, "ENABLE_RAY_CLUSTER", None)
    if loopback and constants is not None:
        constants.ENABLE_RAY_CLUSTER = False
    try:
        yield
    finally:
        if loopback and constants is not None:
            constants.ENABLE_RAY_CLUSTER = before


RAY_DIR_PREFIX = "pra-ray-"
# mkdtemp's name: the prefix with the process id, then its own random part.
_RAY_DIR_NAME = re.compile(re.escape(RAY_DIR_PREFIX) + r"(\d+)-.+")


def remove_stale_ray_dirs(base: str) -> list[str]:
    """Remove the private Ray folders in ``base`` that this user's crashed sessions left: named
    ``pra-ray-<pid>-…`` for a process that is gone, owned by this user, not a link (/tmp is
    shared: another user's folder, or a live session's, is never touched). Returns them."""
    return [str(folder) for folder in remove_stale(Path(base), _RAY_DIR_NAME)]


def _run_unit(unit: Unit, index: int, shared: Any) -> Any:
    """A unit on a Ray worker: no progress bar to move and no token to poll there (Cancel ends
    the worker's task from the driver)."""
    return unit(index, shared, NO_PROGRESS, NEVER)


def _edges(count: int, weights: Sequence[float] | None) -> list[float]:
    """Where each unit's share of the progress bar starts (and the last one ends): equal shares,
    or shares in proportion to ``weights`` (a unit's expected cost, e.g. models it trains)."""
    if weights is None:
        weights = [1.0] * count
    if len(weights) != count or any(not w >= 0 for w in weights):
        raise ValueError(f"weights needs one non-negative number per unit ({count})")
    total = float(sum(weights)) or 1.0
    edges, done = [0.0], 0.0
    for w in weights:
        done += float(w)
        edges.append(done / total)
    edges[-1] = 1.0
    return edges


def _step(message: str, done: int, count: int) -> str:
    return f"{message} ({done} of {count})" if message else ""


def check_cluster(value: Any, source: str = "config") -> str:
    """The ``[compute] cluster`` setting, checked: "", "local", "ray://host:port" or
    "host:port"; an InputError sentence otherwise."""
    if value is None:
        return IN_PROCESS
    if not isinstance(value, str):
        raise InputError(f"{source}: where to run must be text: empty (this "
                         "computer), \"local\" or a Ray address such as "
                         "\"ray://host:10001\".", source=source, key="compute.cluster",
                         setting="compute.cluster")
    text = value.strip()
    if text in (IN_PROCESS, LOCAL):
        return text
    address = text.removeprefix("ray://")
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536 or any(
            c.isspace() for c in address):
        raise InputError(f"{source}: where to run is {given_value(text)}, which is not a "
                         "Ray address; write it as \"ray://host:10001\" or \"host:6379\", "
                         "\"local\" for a private one on this computer, or leave it empty.",
                         source=source, key="compute.cluster", setting="compute.cluster")
    return text


@dataclass(frozen=True)
class ComputeSettings:
    """The config's ``[compute]`` table: where the audit's units run (module docstring)."""

    cluster: str = IN_PROCESS

    def to_dict(self) -> dict:
        return {"cluster": self.cluster}

    @classmethod
    def from_dict(cls, d: Any, source: str = "config") -> ComputeSettings:
        if not isinstance(d, dict):
            raise InputError(f"{source}: [compute] must be a table such as "
                             "[compute] cluster = \"local\".", source=source, key="compute")
        unknown = sorted(set(d) - {"cluster"})
        if unknown:
            raise InputError(f"{source}: the compute section has no setting "
                             f"{given_value(unknown[0])}; its one setting is where to run "
                             "(the cluster).", source=source, key=f"compute.{unknown[0]}",
                             setting=f"compute.{unknown[0]}")
        return cls(cluster=check_cluster(d.get("cluster"), source))


def cluster_of(settings: Any) -> str:
    """The cluster an audit's settings name (their ``compute`` field), or in-process when they
    have none (the games read settings from any object with the fields they need)."""
    compute = getattr(settings, "compute", None)
    return compute.cluster if isinstance(compute, ComputeSettings) else IN_PROCESS


class JobExecutor:
    """The executor of one job (module docstring): opened on the first ``map`` — a job whose
    parts never reach a unit never starts Ray — and closed by :func:`job_executor`."""

    def __init__(self, cluster: str) -> None:
        self.cluster = cluster
        self._opened: InProcessExecutor | RayExecutor | None = None

    def _executor(self) -> InProcessExecutor | RayExecutor:
        if self._opened is None:
            self._opened = (InProcessExecutor() if self.cluster == IN_PROCESS
                            else RayExecutor(self.cluster))
        return self._opened

    @property
    def where(self) -> str:
        """Where the units run, in words (read after a ``map``: before one it opens)."""
        return self._executor().where

    def map(self, unit: Unit, count: int, shared: Any, **kwargs: Any) -> list:
        return self._executor().map(unit, count, shared, **kwargs)

    def close(self) -> None:
        if self._opened is not None:
            self._opened.close()
            self._opened = None


class _Borrowed:
    """The job's executor lent to one part of the job: closing it leaves it open for the next
    part (the job closes it)."""

    def __init__(self, executor: JobExecutor) -> None:
        self._executor = executor

    @property
    def where(self) -> str:
        return self._executor.where

    def map(self, unit: Unit, count: int, shared: Any, **kwargs: Any) -> list:
        return self._executor.map(unit, count, shared, **kwargs)

    def close(self) -> None:
        pass


# The open job's executor, per thread of control: each GUI job runs on its own worker thread,
# and a Ray worker running a unit sees none (a unit runs its inner work in its own process).
_JOB: ContextVar[JobExecutor | None] = ContextVar("pra_job_executor", default=None)


@contextmanager
def job_executor(cluster: str) -> Iterator[JobExecutor | _Borrowed]:
    """The executor of the job now running, for ``cluster``: the open one when a job for the
    same cluster is open (borrowed), else a new one that this block opens and closes."""
    current = _JOB.get()
    if current is not None and current.cluster == cluster:
        yield _Borrowed(current)
        return
    executor = JobExecutor(cluster)
    token = _JOB.set(executor)
    try:
        yield executor
    finally:
        _JOB.reset(token)
        executor.close()


def one_executor_per_job(run: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap an audit's ``run(config, ...)`` so the whole job shares one executor for the
    config's cluster (one private Ray instance for ``"local"``), closed when the job ends."""
    @functools.wraps(run)
    def job(config: Any, *args: Any, **kwargs: Any) -> Any:
        with job_executor(cluster_of(config)):
            return run(config, *args, **kwargs)
    return job


def executor_for(cluster: str) -> InProcessExecutor | RayExecutor | _Borrowed:
    """The executor for a checked cluster setting (close it when the part ends): the job's own
    when a job for this cluster is open (closing it then leaves it open), else a new one."""
    current = _JOB.get()
    if current is not None and current.cluster == cluster:
        return _Borrowed(current)
    return InProcessExecutor() if cluster == IN_PROCESS else RayExecutor(cluster)


def run_units(cluster: str, unit: Unit, count: int, shared: Any, *,
              progress: Progress = NO_PROGRESS, cancel: CancelToken = NEVER,
              message: str = "", weights: Sequence[float] | None = None) -> tuple[list, str]:
    """Run ``count`` units where ``cluster`` says; returns (results in index order, where they
    ran in words). ``weights``: each unit's share of the progress bar (default equal)."""
    executor = executor_for(cluster)
    try:
        return (executor.map(unit, count, shared, progress=progress, cancel=cancel,
                             message=message, weights=weights), executor.where)
    finally:
        executor.close()


__all__ = ["ComputeSettings", "Executor", "InProcessExecutor", "JobExecutor", "RayExecutor",
           "check_cluster", "cluster_of", "executor_for", "job_executor",
           "one_executor_per_job", "run_units", "IN_PROCESS", "LOCAL"]
