"""Benchmark: the README's quick start on a fresh machine -- `mise run eval` in a new clone with
no mise, no uv and empty package caches -- timed from the first install to the last trial, split
into install and run. Target: 5 minutes on 2 cores, install included.

A fresh machine is emulated in a temporary folder: a clone of the commit checked out here, a new
HOME (so pip, uv and npm start with empty caches and uv is not installed), mise installed as the
README says (`npm install -g @jdxcode/mise`, into a prefix of its own), and a PATH holding only
python3, node, npm and git. Every package comes from the registries, as on a new machine.

    .venv/bin/python evals/benchmarks/fresh_eval.py [--target 300] [--keep]

Prints the time to install mise, the time until the embedded model's server starts (uv, the
project's environment and the `local` group), the time of the run, each trial as it finishes, and
the total; exits 1 when the total misses the target or the eval did not end with a verdict
(exit 0 or 1: the embedded model is far too small to pass the gate).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SERVER_STARTS = "starting llama.cpp's server"
USER_STATE = ("UV_", "XDG_", "VIRTUAL_ENV", "MISE_", "OPS_", "PYTHONPATH", "PYENV", "npm_")


def fresh_path(bin_dir: Path) -> str:
    """A PATH of the machine's own tools, nothing installed for a user: python3, node, npm
    and git linked into `bin_dir`, then the system's folders."""
    bin_dir.mkdir(parents=True)
    python = Path(getattr(sys, "_base_executable", sys.executable)).resolve()
    (bin_dir / "python3").symlink_to(python)
    for tool in ("node", "npm", "npx", "git"):
        found = shutil.which(tool)
        if found is None:
            raise SystemExit(f"fresh_eval: {tool} is not on this machine")
        (bin_dir / tool).symlink_to(Path(found).resolve())
    return f"{bin_dir}:/usr/bin:/bin"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--target", type=float, default=300.0, help="seconds, install included")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="fresh-eval-"))
    try:
        home, clone = root / "home", root / "clone"
        home.mkdir()
        subprocess.run(["git", "clone", "--quiet", str(REPO), str(clone)], check=True)
        commit = subprocess.run(
            ["git", "-C", str(clone), "rev-parse", "--short", "HEAD"],
            check=True, capture_output=True, text=True,
        ).stdout.strip()  # fmt: skip
        # The machine's own settings stay (its certificates, proxies, pip's indexes); whatever a
        # user or this checkout installed or cached does not.
        env = {k: v for k, v in os.environ.items() if not k.startswith(USER_STATE)}
        env.update(
            HOME=str(home),
            PATH=f"{root / 'npm' / 'bin'}:{fresh_path(root / 'bin')}",
            npm_config_prefix=str(root / "npm"),
            OLLAMA_API_BASE="http://127.0.0.1:9",  # an Ollama on this machine is not picked
        )
        print(f"fresh clone of {commit} in {clone}; HOME {home} (empty caches)", flush=True)
        started = time.perf_counter()
        npm = subprocess.run(
            ["npm", "install", "-g", "--no-audit", "--no-fund", "@jdxcode/mise"],
            cwd=clone, env=env, capture_output=True, text=True,
        )  # fmt: skip
        if npm.returncode != 0:
            raise SystemExit(f"fresh_eval: npm install -g @jdxcode/mise failed:\n{npm.stderr}")
        mise_s = time.perf_counter() - started
        print(f"mise installed from npm in {mise_s:.1f} s", flush=True)
        subprocess.run(["mise", "trust", "--yes", "mise.toml"], cwd=clone, env=env, check=True,
                       capture_output=True)  # fmt: skip
        server_at = None
        trials = 0
        with subprocess.Popen(
            ["mise", "run", "eval"], cwd=clone, env=env, text=True, errors="replace",
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        ) as proc:  # fmt: skip
            assert proc.stdout is not None
            for line in proc.stdout:
                now = time.perf_counter() - started
                if server_at is None and SERVER_STARTS in line:
                    server_at = now
                trials += line.startswith("trial ")
                print(f"[{now:6.1f} s] {line}", end="", flush=True)
        total = time.perf_counter() - started
        install = server_at if server_at is not None else total
        print(
            f"\ninstall (mise, uv, .venv, the local group): {install:.0f} s "
            f"(mise {mise_s:.0f} s); run (server start and {trials} trials): "
            f"{total - install:.0f} s; total {total:.0f} s (target {args.target:.0f} s); "
            f"`mise run eval` exit {proc.returncode}"
        )
        verdict = proc.returncode in (0, 1) and trials > 0
        return 0 if verdict and total <= args.target else 1
    finally:
        if args.keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
