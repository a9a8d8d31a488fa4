"""A Ray cluster named by its address, checked before Ray connects (moved out of
engine/compute.py, issue 33 item 2; issue 31 item 3): the name, the port, the server's answer
with and without the cluster's token, and whether this computer is one of its nodes, each
step bounded so a wrong address gets its sentence in under 30 s. The questions are gRPC
requests encoded by hand, so the check needs no Ray.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.data.errors import InputError


def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


# Each step of the check before Ray connects to an address is bounded, so an address that
# names no host, refuses or stays silent gets its sentence in under 30 s (issue 31 item 3):
# Ray 2.60 itself waited minutes with no sentence. At most 8 + 5 + 3 × 5 = 28 s: the name,
# the connection, then up to three questions (without the token, with it, the nodes).
NAME_SECONDS = 8.0          # the name service's answer
CONNECT_SECONDS = 5.0       # a TCP connection to the port
ANSWER_SECONDS = 5.0        # a Ray server's answer to each question once connected
# What the check asks (gRPC, the protocol of both ports; the requests are hand-encoded so the
# check needs no Ray): the GCS of "host:port" for its cluster id, the client server of
# "ray://host:port" for a ping (ClusterInfoRequest, type PING = 6).
_GCS_QUESTION = ("/ray.rpc.NodeInfoGcsService/GetClusterId", b"")
_CLIENT_QUESTION = ("/ray.rpc.RayletDriver/ClusterInfo", b"\x08\x06")
# Where Ray 2.60 reads a cluster's token, first found first (ray.exceptions
# .AuthenticationError's help): the RAY_AUTH_TOKEN variable, the file RAY_AUTH_TOKEN_PATH
# names, ~/.ray/auth_token.
TOKEN_HELP = ("put the cluster's token (on its head node: `ray get-auth-token`) in the "
              "RAY_AUTH_TOKEN environment variable or in the file ~/.ray/auth_token (or the "
              "file RAY_AUTH_TOKEN_PATH names), readable by you alone, and run again")


def host_of(cluster: str) -> str:
    return cluster.removeprefix("ray://").rpartition(":")[0].strip("[]")


def cluster_token() -> tuple[str | None, str]:
    """The token Ray would send to a cluster, and where it is, in words (or where it was
    looked for, when there is none)."""
    token = os.environ.get("RAY_AUTH_TOKEN", "").strip()
    if token:
        return token, "the RAY_AUTH_TOKEN environment variable"
    named = os.environ.get("RAY_AUTH_TOKEN_PATH", "").strip()
    path = Path(named).expanduser() if named else Path.home() / ".ray" / "auth_token"
    where = f"the file {path}" + (" (RAY_AUTH_TOKEN_PATH)" if named else "")
    try:
        token = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None, where
    return (token or None), where


def _resolve(host: str, port: int, cluster: str) -> list:
    """The addresses of ``host``, asked of the name service in a thread that is given up on
    after NAME_SECONDS (a lookup cannot be cancelled)."""
    answer: dict[str, Any] = {}

    def lookup() -> None:
        try:
            answer["infos"] = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError as exc:
            answer["error"] = exc

    thread = threading.Thread(target=lookup, daemon=True)
    thread.start()
    thread.join(NAME_SECONDS)
    if thread.is_alive():
        raise InputError(f"The Ray cluster address '{cluster}' names the computer '{host}', "
                         f"and the name service did not answer about it within "
                         f"{NAME_SECONDS:.0f} s; check the network, or write the cluster's IP "
                         "address instead of its name.", key="compute.cluster")
    if "error" in answer:
        raise InputError(f"The Ray cluster address '{cluster}' names the computer '{host}', "
                         "which the name service does not know; check the spelling of the "
                         "name, or leave the cluster setting empty to run on this computer.",
                         key="compute.cluster")
    return answer["infos"]


def _reach(infos: list, host: str, port: int, cluster: str) -> str:
    """Open (and close) a TCP connection to the first address of ``host`` that accepts one,
    all of them within CONNECT_SECONDS; returns this computer's address on that connection
    (the one Ray's driver would take as its node's)."""
    refused = silent = None
    deadline = time.monotonic() + CONNECT_SECONDS
    for family, kind, proto, _, address in infos:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        try:
            with socket.socket(family, kind, proto) as sock:
                sock.settimeout(left)
                sock.connect(address)
                return str(sock.getsockname()[0])
        except ConnectionRefusedError as exc:
            refused = exc
        except TimeoutError as exc:
            silent = exc
        except OSError as exc:   # no route, network down: nothing answers either
            silent = silent or exc
    if refused is not None:
        raise InputError(f"The computer at '{host}' refused the connection to port {port} "
                         f"(the Ray cluster address '{cluster}'): no Ray cluster listens "
                         "there. Start the cluster (`ray start --head`) or correct the port — "
                         "'host:6379' for the cluster itself, 'ray://host:10001' for its "
                         "client server.", key="compute.cluster")
    reason = ("" if isinstance(silent, TimeoutError) or silent is None
              else f" ({silent.strerror or silent})")
    raise InputError(f"The Ray cluster address '{cluster}' did not answer within "
                     f"{CONNECT_SECONDS:.0f} s{reason}: the computer is off or unreachable "
                     "from here, or a firewall drops the connection; check the address and "
                     "the network, or leave the cluster setting empty to run on this "
                     "computer.", key="compute.cluster")


def _ask(target: str, question: tuple[str, bytes], token: str | None) -> Any:
    """Ask a Ray server one question over gRPC; returns the answer's status code."""
    import grpc  # Ray's own dependency, loaded only when a cluster is named

    metadata = (("authorization", f"Bearer {token}"),) if token else ()
    channel = grpc.insecure_channel(target)
    try:
        call = channel.unary_unary(question[0])
        call(question[1], timeout=ANSWER_SECONDS, metadata=metadata)
        return grpc.StatusCode.OK
    except grpc.RpcError as exc:
        return exc.code()
    finally:
        channel.close()


def _node_addresses(target: str, token: str | None) -> frozenset[str] | None:
    """The addresses of the cluster's live nodes, as its GCS lists them (None when it does
    not say)."""
    import grpc  # see _ask
    from ray.core.generated.gcs_service_pb2 import GetAllNodeInfoReply

    metadata = (("authorization", f"Bearer {token}"),) if token else ()
    channel = grpc.insecure_channel(target)
    try:
        ask = channel.unary_unary("/ray.rpc.NodeInfoGcsService/GetAllNodeInfo",
                                  response_deserializer=GetAllNodeInfoReply.FromString)
        reply = ask(b"", timeout=ANSWER_SECONDS, metadata=metadata)
    except grpc.RpcError:
        return None
    finally:
        channel.close()
    return frozenset(node.node_manager_address for node in reply.node_info_list
                     if node.state == 0)          # GcsNodeInfo.ALIVE


@dataclass(frozen=True)
class ClusterAnswer:
    """What :func:`check_cluster_answers` learnt: whether the cluster asked for the token (Ray
    must then be told to send it) and, for "host:port", the addresses of its live nodes."""

    needs_token: bool
    nodes: frozenset[str] | None = None


def check_cluster_answers(cluster: str) -> ClusterAnswer:
    """Check, in under 30 s, that a Ray cluster answers at ``cluster`` ("host:port" or
    "ray://host:port"): the host is known, the port accepts a connection, a Ray server answers
    there and accepts this computer's token if it asks for one, and, for "host:port", this
    computer is one of the cluster's nodes (Ray's driver needs a node of its own there and
    waited a minute for one). Each failure is its own InputError sentence (issue 31 item 3)."""
    client = cluster.startswith("ray://")
    address = cluster.removeprefix("ray://")
    host, _, port_text = address.rpartition(":")
    host, port = host.strip("[]"), int(port_text)
    here = _reach(_resolve(host, port, cluster), host, port, cluster)
    if os.environ.get("RAY_USE_TLS", "").strip().lower() in ("1", "true"):
        # The question would go unencrypted to a TLS server: Ray's own connection checks it.
        return ClusterAnswer(needs_token=cluster_token()[0] is not None)
    question = _CLIENT_QUESTION if client else _GCS_QUESTION
    import grpc  # see _ask

    target = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    token = None
    code = _ask(target, question, None)
    if code == grpc.StatusCode.UNAUTHENTICATED:
        token, where = cluster_token()
        if token is None:
            raise InputError(f"The Ray cluster at '{cluster}' asks for its authentication "
                             f"token, and this computer has none (looked in the "
                             f"token's environment variable and {where}): "
                             f"{TOKEN_HELP}.", key="compute.cluster")
        code = _ask(target, question, token)
        if code == grpc.StatusCode.UNAUTHENTICATED:
            raise InputError(f"The Ray cluster at '{cluster}' rejected the authentication "
                             f"token in {where}: it is not this cluster's token; "
                             f"{TOKEN_HELP}.", key="compute.cluster")
    if code == grpc.StatusCode.DEADLINE_EXCEEDED:
        raise InputError(f"The Ray cluster address '{cluster}' accepts connections but no Ray "
                         f"server answered there within {ANSWER_SECONDS:.0f} s: the port "
                         "belongs to another program, or the cluster is stuck; check the "
                         "port ('host:6379' for the cluster itself, 'ray://host:10001' for "
                         "its client server).", key="compute.cluster")
    if code != grpc.StatusCode.OK:
        other = ("'host:6379' (the cluster itself)" if client
                 else "'ray://host:10001' (its client server)")
        raise InputError(f"The Ray cluster address '{cluster}' answers, but not as a Ray "
                         f"{'client server' if client else 'cluster'} ({code.name}): the port "
                         f"belongs to another program, or the address needs the other form, "
                         f"{other}.", key="compute.cluster")
    if client:
        return ClusterAnswer(needs_token=token is not None)
    nodes = _node_addresses(target, token)
    if nodes is not None and not is_loopback(host) and here not in nodes:
        raise InputError(f"'{cluster}' reaches the Ray cluster, but this computer ({here}) is "
                         "not one of its nodes, and the 'host:port' form works only on a "
                         f"node; from here, use its client server: 'ray://{target.rpartition(':')[0]}"
                         ":10001' (started by `ray start --head`).", key="compute.cluster")
    return ClusterAnswer(needs_token=token is not None, nodes=nodes)
