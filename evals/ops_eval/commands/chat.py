"""`ops-eval chat`: talk to the ops copilot in the terminal -- ADK's own `adk run`, with the
model chosen exactly as for a live eval (`playing.interactive`)."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_parser(subparsers: Any) -> None:
    chat = subparsers.add_parser("chat", help="talk to the ops copilot in the terminal (adk run)")
    chat.add_argument("--model", help="model (else OPS_AGENT_MODEL, Ollama, or the embedded one)")
    chat.add_argument(
        "--agent",
        metavar="PACKAGE",
        help="the agent to talk to: a package whose `port` module declares PORT "
        "(docs/your-agent.md); default ops_copilot",
    )
    chat.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..base import unwind_on_signals
    from ..playing import launch

    unwind_on_signals()
    say = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    return launch("chat", args.model, [], agent=args.agent, say=say)
