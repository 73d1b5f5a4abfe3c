"""What tests import by name: the repository's root, and a coroutine runner. (Not in a conftest:
every folder's conftest.py is imported as `conftest`, so a name imported from one could come
from another.)"""

from __future__ import annotations

import asyncio
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run(coro):
    return asyncio.run(coro)
