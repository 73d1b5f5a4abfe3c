"""Fixtures of the embedded model (a pytest plugin: tests/conftest.py loads it): its optional
`local` group installed on first use, or skipped saying why, and for the end-to-end tier one
embedded llama.cpp server per session for the tests that only send it requests."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def local_installed():
    """The embedded model's optional `local` group (its GGUF, llama.cpp's server), installed on
    first use as the commands install it: for a fast test that reads the GGUF (its pin) and
    starts no server, which on a fresh clone no end-to-end test has installed before it."""
    from ops_eval.models import local_deps

    local_deps.ensure(print)


@pytest.fixture(scope="session")
def local_group():
    """The `local` group installed, as `local_installed`; skipped, saying so, where
    OPS_SKIP_EMBEDDED_TEST=1 and it is missing (the end-to-end tests of the embedded model)."""
    from ops_eval.base.settings import current
    from ops_eval.models import local_deps

    if local_deps.missing() and current().skip_embedded_test:
        pytest.skip("OPS_SKIP_EMBEDDED_TEST=1 and the embedded model's `local` group is missing")
    local_deps.ensure(print)


@pytest.fixture(scope="session")
def embedded_server(tmp_path_factory, local_group):
    """The embedded llama.cpp server, started as the product starts it (`embedded_model`), once
    per pytest session (per xdist worker) for every test that only sends it requests: the
    choice (its model and endpoint), the served alias, its log, how long it took to answer,
    and `idle()`, which waits until no request is in progress -- a test counting what the
    server answered starts there, never in the middle of an earlier test's request. Tests that
    check how a command starts or stops its server start their own."""
    import json
    import time
    from types import SimpleNamespace

    from ops_eval.models.choice import probe
    from ops_eval.models.embedded import EMBEDDED_ALIAS, embedded_model

    log_dir = tmp_path_factory.mktemp("embedded")
    started = time.monotonic()
    with embedded_model(print, log_dir, "a test asked for it") as choice:
        startup_s = time.monotonic() - started
        print(f"\nembedded server answered after {startup_s:.1f} s")
        slots = choice.endpoint.removesuffix("/v1") + "/slots"  # llama.cpp's own endpoint

        def idle(wait_s: float = 120.0) -> None:
            """No slot processing, and its log unchanged for half a second (the line saying a
            request finished can come after its answer)."""
            log = log_dir / "embedded-llama-server.log"
            deadline = time.monotonic() + wait_s
            while True:
                ok, body = probe(slots)
                if ok and not any(s.get("is_processing") for s in json.loads(body)):
                    size = log.stat().st_size
                    time.sleep(0.5)
                    if log.stat().st_size == size:
                        return
                assert time.monotonic() < deadline, f"the embedded server stayed busy: {body}"
                time.sleep(0.1)

        yield SimpleNamespace(
            choice=choice,
            endpoint=choice.endpoint,
            alias=EMBEDDED_ALIAS,
            log=log_dir / "embedded-llama-server.log",
            startup_s=startup_s,
            idle=idle,
        )
