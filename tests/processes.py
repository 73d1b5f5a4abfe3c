"""Which llama.cpp servers a test started, and whether any outlived what started it -- told
apart from every other server on the machine (another test on another xdist worker, a developer's
`mise run chat`), so tests that check it can run side by side.

Linux (/proc): a server is the test's when it descends from this process, or when its
environment carries the tag the test handed the command it started (a server that outlived a
child command is no longer anyone's descendant). Elsewhere, every llama.cpp server on the machine
counts (pgrep), as before the tiers ran in parallel."""

from __future__ import annotations

import subprocess
import uuid
from pathlib import Path

TAG = "OPS_TEST_TAG"
SERVER = "ops_eval.models.llama_server"
PROC = Path("/proc")


def cmdline(pid: int) -> list[str]:
    try:
        raw = (PROC / str(pid) / "cmdline").read_bytes()
    except OSError:
        return []
    return [part.decode(errors="replace") for part in raw.split(b"\0") if part]


def descendants(root: int) -> list[int]:
    """Every living descendant of `root`, from /proc (empty where there is no /proc)."""
    parents: dict[int, list[int]] = {}
    for entry in PROC.iterdir() if (PROC / "self").exists() else ():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        parents.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def alive(pid: int) -> bool:
    """Whether `pid` runs and has not ended (a zombie has); False where there is no /proc."""
    try:
        stat = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def new_tag() -> str:
    """A value for `TAG` in the environment of a command a test starts."""
    return uuid.uuid4().hex


def llama_servers(tag: str) -> set[int]:
    """The llama.cpp servers running now whose environment carries `tag` (see the module)."""
    if not (PROC / "self").exists():
        found = subprocess.run(["pgrep", "-f", SERVER], capture_output=True, text=True)
        return {int(pid) for pid in found.stdout.split()}
    mine = f"{TAG}={tag}".encode()
    servers = set()
    for entry in PROC.iterdir():
        if entry.name.isdigit() and SERVER in cmdline(int(entry.name)):
            try:
                environ = (entry / "environ").read_bytes().split(b"\0")
            except OSError:
                continue
            if mine in environ:
                servers.add(int(entry.name))
    return servers
