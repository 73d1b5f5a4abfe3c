"""The embedded model server's process: llama.cpp's own HTTP server, from the prebuilt
`xllamacpp` wheel, serving one GGUF on loopback until it is told to stop.

    python -m ops_eval.models.llama_server --model FILE.gguf --alias NAME [--template FILE]
        [--parallel N] [--context-per-slot N] [--threads N]

It binds a free port itself (port 0) and prints one JSON line on stdout once the model is loaded
and the server listens -- `{"listening": "http://127.0.0.1:PORT"}` -- or `{"error": "..."}` and
exit code 2 when llama.cpp cannot load the model. SIGTERM or SIGINT stop it, and so does the end
of its stdin: the parent holds that pipe open, so when the parent dies in any way the server
stops too (on every OS; a parent-death signal would be Linux's only). Everything llama.cpp logs
goes to stderr, which the parent keeps in a log file.

It runs in a process of its own so that the harness never shares its threads or memory with the
model, and so that a crash of either side cannot leave the other in a bad state.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import threading
from pathlib import Path


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m ops_eval.models.llama_server")
    parser.add_argument("--model", required=True, type=Path)
    parser.add_argument("--alias", required=True)
    parser.add_argument("--template", type=Path, help="a chat template for the GGUF's")
    parser.add_argument("--parallel", type=int, default=1, help="slots: conversations at once")
    parser.add_argument("--context-per-slot", type=int, default=8192)
    parser.add_argument("--threads", type=int, default=max(1, os.cpu_count() or 1))
    return parser


def _say(**line: str) -> None:
    print(json.dumps(line), flush=True)


def _until_stdin_ends(stop: threading.Event) -> None:
    with contextlib.suppress(OSError, ValueError):
        sys.stdin.buffer.read()
    stop.set()


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    import xllamacpp

    from .gguf import training_context

    params = xllamacpp.CommonParams()
    params.model.path = str(args.model)
    params.model_alias = args.alias
    # Each slot's context, at most the model's training context: the KV cache is sized by it.
    trained = training_context(args.model)
    per_slot = min(args.context_per_slot, trained) if trained else args.context_per_slot
    params.n_ctx = per_slot * args.parallel
    params.n_parallel = args.parallel
    params.cont_batching = True
    params.use_jinja = True  # the chat template renders tools and parses the model's tool calls
    if args.template is not None:
        params.chat_template = args.template.read_text(encoding="utf-8")
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    params.n_threads_http = args.parallel + 2  # a probe or /props answered while slots are busy
    params.hostnames = ["127.0.0.1"]
    params.port = 0  # a free port, chosen by the server when it binds (no race with others)
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    threading.Thread(target=_until_stdin_ends, args=(stop,), daemon=True).start()
    try:
        server = xllamacpp.Server(params)
    except RuntimeError as exc:  # the model did not load (llama.cpp's log says why)
        _say(error=str(exc))
        return 2
    _say(listening=server.listening_address)
    while not stop.wait(1.0):
        pass
    del server  # llama.cpp stops its slots and its listener
    return 0


if __name__ == "__main__":
    sys.exit(main())
