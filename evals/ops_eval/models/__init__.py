"""Models: selection for live runs (`choice`, `selection`), the embedded llama.cpp server and
GGUF files (`embedded`, `gguf`, `llama_server`, `local_deps`, `opening_call`), several servers
behind one router (`router`, `router_file`), and the scripted stand-ins the product plays with --
the red team's attackers, record and replay (`stand_ins`). The LLM judge is `judging`.

May import: `base`, `core`.
"""

from .choice import ModelChoice, ModelUnavailable
from .selection import choose_model

__all__ = ["ModelChoice", "ModelUnavailable", "choose_model"]
