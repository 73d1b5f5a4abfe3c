"""Credentials in the tracking URI: the password is masked wherever the URI is shown (an
unreachable server's message too), and the health probe sends the URI's user and password as
Basic authentication."""

from __future__ import annotations

import base64
import http.server
import threading
from collections.abc import Iterator

import pytest
from mlflow_readback import error_lines, free_port

from ops_eval.base.exits import OpsEvalError

SECRET = "s3cret"


def test_a_password_in_the_tracking_uri_is_masked(ops_env):
    """Guards `TrackingTarget.shown`: the URI was printed with its password."""
    from ops_eval.outputs.tracking.config import tracking_target

    ops_env.setenv("MLFLOW_TRACKING_URI", f"http://user:{SECRET}@127.0.0.1:{free_port()}")
    ops_env.delenv("MLFLOW_EXPERIMENT_NAME")
    lines = tracking_target().lines()
    assert lines and all(SECRET not in line for line in lines)
    assert "user:***@127.0.0.1:" in lines[0]
    ops_env.setenv("MLFLOW_TRACKING_URI", f"https://{SECRET}@127.0.0.1:{free_port()}")
    assert SECRET not in tracking_target().lines()[0]  # a token alone as the user part


def test_an_unreachable_server_with_a_password_never_prints_it(mlflow_cli, ops_env, write_record):
    """Guards `store.reachable`'s message: it named the URI with its password."""
    ops_env.setenv("MLFLOW_TRACKING_URI", f"http://user:{SECRET}@127.0.0.1:{free_port()}")
    code, out, err = mlflow_cli(["--from-run", str(write_record())])
    assert code == 3, out + err
    (line,) = error_lines(err)
    assert "user:***@" in line
    assert SECRET not in out + err


class _BasicAuthHealth(http.server.BaseHTTPRequestHandler):
    expected = ""

    def do_GET(self):  # noqa: N802 (http.server's name)
        ok = self.path == "/health" and self.headers.get("Authorization") == self.expected
        self.send_response(200 if ok else 401)
        self.end_headers()
        self.wfile.write(b"OK" if ok else b"unauthorized")

    def log_message(self, *args):
        pass


@pytest.fixture
def auth_server() -> Iterator[int]:
    """A loopback server whose /health answers 200 only to Basic user:s3cret; its port."""
    token = base64.b64encode(f"user:{SECRET}".encode()).decode()
    handler = type("Handler", (_BasicAuthHealth,), {"expected": f"Basic {token}"})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_the_health_probe_sends_the_uris_credentials(ops_env, auth_server):
    """Guards `store.reachable` sending the URI's user and password as Basic authentication (a
    server behind basic auth answered 401, and the command gave up with exit 3)."""
    from ops_eval.outputs.tracking.config import tracking_target
    from ops_eval.outputs.tracking.store import reachable

    ops_env.setenv("MLFLOW_TRACKING_URI", f"http://user:{SECRET}@127.0.0.1:{auth_server}")
    reachable(tracking_target())  # no exception: the server answered 200
    ops_env.setenv("MLFLOW_TRACKING_URI", f"http://user:wrong@127.0.0.1:{auth_server}")
    with pytest.raises(OpsEvalError) as caught:
        reachable(tracking_target())
    assert caught.value.code == 3 and "wrong" not in str(caught.value)
