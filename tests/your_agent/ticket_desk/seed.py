"""The desk's seed: its tickets, read from `seed/tickets.yaml` (or another folder's)."""

from __future__ import annotations

from pathlib import Path

import yaml

SEED = Path(__file__).parent / "seed"


def load_seed(root: Path | None = None) -> dict[str, dict[str, str]]:
    """Ticket id -> its record; a ValueError naming the file when it is not a list of tickets."""
    path = (root or SEED) / "tickets.yaml"
    try:
        tickets = yaml.safe_load(path.read_text(encoding="utf-8"))["tickets"]
        return {t["id"]: {"title": t["title"], "state": t["state"]} for t in tickets}
    except (OSError, KeyError, TypeError, yaml.YAMLError) as exc:
        raise ValueError(f"{path}: not a list of tickets ({exc})") from None


def normalise(kind: str, value: str) -> str:
    """A ticket id as the seed keys it: `t 2` and `t-2` are `T-2`."""
    return "-".join(str(value).upper().split()).replace("--", "-")


def entities(seed: dict[str, dict[str, str]]) -> dict[str, frozenset[str]]:
    return {"ticket": frozenset(seed)}
