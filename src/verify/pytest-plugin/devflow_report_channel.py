"""devflow's pytest plugin for the report (ADR 0089), loaded with `-p` into every report run.

pytest's JUnit report (`--junitxml`) used to be written into a directory the run may write, where a
process a test started could rewrite it after pytest wrote it (attack 54e against pytest). This
plugin connects to devflow's report channel when pytest imports it, which is before pytest reads a
conftest.py or imports a test module, and takes the channel's address out of the environment (so
pytest-xdist's workers and the tests' own processes do not inherit it). When the session ends it
takes the XML pytest's junitxml plugin writes instead of letting it reach a file, and sends it over
that one connection. devflow accepts exactly one connection per run: one more is tampering, and a
pytest killed before the end leaves this one without a report.
"""

import io
import os
import socket
import sys

import pytest

_ADDRESS_ENV = "DEVFLOW_REPORT_SOCKET"


def _connect():
    address = os.environ.pop(_ADDRESS_ENV, None)
    if not address:
        return None, _ADDRESS_ENV + " is not set: devflow's hook has nowhere to report"
    try:
        if address.startswith("\\\\.\\pipe\\"):
            return open(address, "wb", buffering=0), None
        if not address.startswith("@"):
            return _connected(address), None
        # `@name`: Linux's abstract socket `\0name` (an environment value cannot hold a NUL).
        # Node (libuv) binds an abstract name padded with NULs to the whole of `sun_path` (108
        # bytes); a name of exact length is tried too, should it ever stop doing so. A refused
        # address makes no connection, so the two tries never count twice.
        name = "\0" + address[1:]
        try:
            return _connected(name.ljust(108, "\0")), None
        except ConnectionRefusedError:
            return _connected(name), None
    except OSError as error:
        return None, str(error)


def _connected(address):
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.connect(address)
    except OSError:
        connection.close()
        raise
    return connection


_connection, _failure = _connect()


class _Captured(io.StringIO):
    """What pytest's junitxml plugin writes, kept in memory instead of a file."""

    def __init__(self, sink):
        super().__init__()
        self._sink = sink

    def close(self):
        if not self.closed:
            self._sink.append(self.getvalue())
        super().close()


def _send(text):
    if _connection is None:
        return _failure
    try:
        data = text.encode("utf-8")
        if isinstance(_connection, socket.socket):
            _connection.sendall(data)
            _connection.shutdown(socket.SHUT_WR)
        else:
            _connection.write(data)
        _connection.close()
        return None
    except OSError as error:
        return str(error)


@pytest.hookimpl(hookwrapper=True)
def pytest_sessionfinish(session):
    # pytest-xdist's workers write no report (junitxml runs in the controller only).
    if hasattr(session.config, "workerinput"):
        yield
        return
    import _pytest.junitxml as junitxml

    captured = []

    def _open(file, mode="r", *args, **kwargs):
        # The junitxml plugin's only open for writing is its report (pytest 5 to 8): a module
        # global named `open` is found before the builtin by the code of that module only.
        if "w" in mode:
            return _Captured(captured)
        return open(file, mode, *args, **kwargs)

    junitxml.open = _open
    try:
        yield
    finally:
        del junitxml.open
    problem = _send("".join(captured)) if captured else "pytest's junitxml plugin wrote no report"
    if problem:
        sys.stderr.write("devflow's report channel: " + problem + "\n")
        session.exitstatus = pytest.ExitCode.INTERNAL_ERROR
