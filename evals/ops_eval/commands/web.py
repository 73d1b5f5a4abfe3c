"""`ops-eval web`: the ADK dev UI over both agents, eval sets included -- ADK's own `adk web`,
with the model chosen exactly as for a live eval (`playing.interactive`)."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_parser(subparsers: Any) -> None:
    web = subparsers.add_parser("web", help="the ADK dev UI over both agents (adk web)")
    web.add_argument("--model", help="model (else OPS_AGENT_MODEL, Ollama, or the embedded one)")
    web.add_argument(
        "--agent",
        metavar="PACKAGE",
        help="serve this agent alone: a package whose `port` module declares PORT "
        "(docs/your-agent.md); default both of the project's agents",
    )
    web.add_argument("--host", default="127.0.0.1")
    web.add_argument("--port", type=int, default=8000)
    web.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..base import tcp_port, unwind_on_signals
    from ..playing import launch

    unwind_on_signals()
    extra = ["--host", args.host, "--port", str(tcp_port("--port", args.port))]
    say = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    return launch("web", args.model, extra, agent=args.agent, say=say)
