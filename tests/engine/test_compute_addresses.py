"""A Ray cluster named by address that refuses, stays silent, names no host or wants a token
gets its own sentence within seconds, before Ray is asked to connect (issue 31 item 3: each
case hung for minutes, or said only "check the address"). No Ray is started here: the check
answers these cases itself; a real `ray start --head` cluster reached with and without its
token is in tests/cluster/test_private_ray.py."""

from __future__ import annotations

import socket
import threading
import time
from concurrent import futures

import pytest

import engine.cluster_address as C
from engine.compute import RayExecutor
from engine.data.errors import InputError

# Not a speed limit: Ray 2.60 waited minutes on each of these addresses with no sentence; the
# check's own bounds (name, connection, answer) add up to under 30 s.
HANG_GUARD_S = 120


@pytest.fixture(autouse=True)
def no_token_here(monkeypatch, tmp_path):
    """No token from this computer's environment or home folder reaches these tests."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for name in ("RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "RAY_USE_TLS", "RAY_ADDRESS"):
        monkeypatch.delenv(name, raising=False)


def sentence(cluster: str) -> InputError:
    """The InputError that opening ``cluster`` gives, run in a thread with a hang guard."""
    outcome: dict = {}

    def connect():
        try:
            RayExecutor(cluster).close()
            outcome["error"] = None
        except InputError as exc:
            outcome["error"] = exc

    worker = threading.Thread(target=connect, daemon=True)
    worker.start()
    worker.join(HANG_GUARD_S)
    assert not worker.is_alive(), f"opening {cluster} hung"
    error = outcome["error"]
    assert error is not None, f"{cluster} was reached"
    assert error.key == "compute.cluster" and "\n" not in str(error)
    return error


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_refused_address_says_nothing_listens_there():
    port = closed_port()
    text = str(sentence(f"127.0.0.1:{port}"))
    assert "refused" in text and str(port) in text and "ray start --head" in text


def test_an_unknown_host_says_the_name_is_unknown():
    text = str(sentence("nosuchhost.invalid:6379"))
    assert "'nosuchhost.invalid'" in text and "does not know" in text


def test_a_port_that_accepts_and_stays_silent_says_no_ray_server_answered():
    """A listening socket that never accepts: the connection is made (the system's backlog),
    then nothing answers."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        text = str(sentence(f"127.0.0.1:{silent.getsockname()[1]}"))
    assert "no Ray server answered" in text and f"{C.ANSWER_SECONDS:.0f} s" in text


def test_an_address_whose_connection_times_out_says_it_did_not_answer(monkeypatch):
    """A computer that drops the connection (a firewall, a machine that is off): its connect
    times out."""
    class Dropped(socket.socket):
        def connect(self, address):
            raise TimeoutError("timed out")

    monkeypatch.setattr(C.socket, "socket", Dropped)
    text = str(sentence("127.0.0.1:6379"))
    assert "did not answer within" in text and "firewall" in text


def test_a_name_service_that_does_not_answer_is_given_up_on(monkeypatch):
    monkeypatch.setattr(C, "NAME_SECONDS", 0.2)
    monkeypatch.setattr(C.socket, "getaddrinfo", lambda *a, **k: time.sleep(5))
    text = str(sentence("head.example:6379"))
    assert "name service did not answer" in text


# --------------------------------------------------------------------------- the token

class TokenServer:
    """A gRPC server that answers every question as a Ray 2.60 cluster with token
    authentication does: UNAUTHENTICATED unless the call carries ``Bearer <token>``; else the
    bytes ``answers`` holds for the method (empty: an empty reply). Records each call's method
    and authorization."""

    def __init__(self, token: str | None, answers: dict[str, bytes] | None = None):
        import grpc

        self.calls: list[tuple[str, str | None]] = []
        self.answers = dict(answers or {})
        server_self = self

        class Handler(grpc.GenericRpcHandler):
            def service(self, details):
                method = details.method

                def answer(request, context):
                    given = dict(context.invocation_metadata()).get("authorization")
                    server_self.calls.append((method, given))
                    if token is not None and given != f"Bearer {token}":
                        context.abort(grpc.StatusCode.UNAUTHENTICATED,
                                      "InvalidAuthToken: Authentication token is missing or "
                                      "incorrect")
                    return server_self.answers.get(method, b"")
                return grpc.unary_unary_rpc_method_handler(answer)

        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
        self.server.add_generic_rpc_handlers((Handler(),))
        self.port = self.server.add_insecure_port("127.0.0.1:0")
        self.server.start()

    def stop(self):
        self.server.stop(None)


@pytest.fixture
def token_cluster():
    pytest.importorskip("grpc")
    server = TokenServer("the-clusters-token")
    yield server
    server.stop()


def test_a_missing_token_says_where_it_goes(token_cluster, tmp_path):
    text = str(sentence(f"127.0.0.1:{token_cluster.port}"))
    assert "asks for its authentication token" in text
    assert "RAY_AUTH_TOKEN environment variable" in text and "~/.ray/auth_token" in text
    assert str(tmp_path / "home" / ".ray" / "auth_token") in text     # where it looked


def test_a_wrong_token_names_where_it_came_from(token_cluster, monkeypatch, tmp_path):
    monkeypatch.setenv("RAY_AUTH_TOKEN", "another-clusters-token")
    text = str(sentence(f"ray://127.0.0.1:{token_cluster.port}"))
    assert "rejected the authentication token in the RAY_AUTH_TOKEN environment variable" \
        in text
    token_file = tmp_path / "token"
    token_file.write_text("stale\n")
    monkeypatch.delenv("RAY_AUTH_TOKEN")
    monkeypatch.setenv("RAY_AUTH_TOKEN_PATH", str(token_file))
    text = str(sentence(f"127.0.0.1:{token_cluster.port}"))
    assert f"rejected the authentication token in the file {token_file}" in text


def test_the_right_token_is_sent_only_to_a_cluster_that_asks(token_cluster, monkeypatch,
                                                             tmp_path):
    """The check asks without the token first; a cluster that asks gets it (and Ray is then
    told to send it: an explicit address never turns Ray's token mode on by itself)."""
    home = tmp_path / "home" / ".ray"
    home.mkdir(parents=True)
    (home / "auth_token").write_text("the-clusters-token\n")
    assert C.check_cluster_answers(f"127.0.0.1:{token_cluster.port}").needs_token is True
    assert token_cluster.calls[:2] == [
        ("/ray.rpc.NodeInfoGcsService/GetClusterId", None),
        ("/ray.rpc.NodeInfoGcsService/GetClusterId", "Bearer the-clusters-token")]

    open_server = TokenServer(None)
    try:
        answer = C.check_cluster_answers(f"ray://127.0.0.1:{open_server.port}")
        assert answer.needs_token is False
        assert open_server.calls == [("/ray.rpc.RayletDriver/ClusterInfo", None)]
    finally:
        open_server.stop()


def test_host_port_from_a_computer_that_is_not_a_node_says_use_the_client_form(monkeypatch):
    """'host:port' works only on a node of the cluster: elsewhere Ray waited a minute for a
    node of its own and said "Failed to connect". The check asks the cluster for its nodes.
    (The fake cluster listens on 127.0.0.1; the address is taken as another computer's.)"""
    pytest.importorskip("ray")
    from ray.core.generated.gcs_pb2 import GcsNodeInfo
    from ray.core.generated.gcs_service_pb2 import GetAllNodeInfoReply

    def nodes_at(*addresses):
        return GetAllNodeInfoReply(node_info_list=[
            GcsNodeInfo(node_manager_address=a) for a in addresses]).SerializeToString()

    server = TokenServer(None, answers={
        "/ray.rpc.NodeInfoGcsService/GetAllNodeInfo": nodes_at("10.0.0.7")})
    monkeypatch.setattr(C, "is_loopback", lambda host: False)
    try:
        text = str(sentence(f"127.0.0.1:{server.port}"))
        assert "this computer (127.0.0.1) is not one of its nodes" in text
        assert "'ray://127.0.0.1:10001'" in text
        server.answers["/ray.rpc.NodeInfoGcsService/GetAllNodeInfo"] = nodes_at(
            "10.0.0.7", "127.0.0.1")
        assert C.check_cluster_answers(f"127.0.0.1:{server.port}").nodes == {
            "10.0.0.7", "127.0.0.1"}
    finally:
        server.stop()
