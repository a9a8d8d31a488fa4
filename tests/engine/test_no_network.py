"""Offline guarantee: a full audit and its report open no network connection."""

import socket

import pytest

from engine.audits.mechanism import MechanismConfig, run


class NetworkUsed(AssertionError):
    pass


@pytest.fixture
def no_network(monkeypatch):
    attempts = []

    def refuse(*args, **kwargs):
        attempts.append(args)
        raise NetworkUsed(f"network access attempted: {args!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket.socket, "sendto", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    return attempts


def test_full_audit_and_report_without_network(no_network, tmp_path):
    from engine.report import write_report

    for mech in ("laplace", "gaussian", "discrete_laplace", "discrete_gaussian"):
        result = run(MechanismConfig(mechanism=mech, trials=1000, observations=3))
        write_report(result.to_dict(), tmp_path / f"{mech}.pdf")
    assert no_network == []


def test_the_guard_itself_works(no_network):
    with pytest.raises(NetworkUsed):
        socket.create_connection(("127.0.0.1", 9))
