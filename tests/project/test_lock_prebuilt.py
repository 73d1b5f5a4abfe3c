"""`uv.lock` holds no package that compiles native code on install, so a fresh clone and CI
install in seconds on any machine the wheels cover: every locked package installed here came
as a wheel built for this interpreter and platform, or -- an sdist only -- built into a pure
Python one (its WHEEL says `Root-Is-Purelib: true`, and it installed no compiled extension).
A package the lock holds only as an sdist must be installed here, so that it can be checked."""

from __future__ import annotations

import importlib.metadata as metadata
import tomllib

from packaging.tags import sys_tags
from packaging.utils import parse_wheel_filename

from support import REPO

EXTENSIONS = (".so", ".pyd", ".dylib", ".dll")


def installed(name: str) -> metadata.Distribution | None:
    try:
        return metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return None


def compiled(dist: metadata.Distribution) -> list[str]:
    """Why an installed distribution holds native code, if it does."""
    wheel = dist.read_text("WHEEL") or ""
    why = [] if "Root-Is-Purelib: true" in wheel else ["its WHEEL is not purelib"]
    return why + [str(f) for f in dist.files or [] if str(f).endswith(EXTENSIONS)]


def test_every_locked_package_installs_here_without_a_compiler():
    here = set(sys_tags())
    lock = tomllib.loads((REPO / "uv.lock").read_text())
    problems = []
    for entry in lock["package"]:
        if "registry" not in entry.get("source", {}):
            continue  # the project itself
        name, version = entry["name"], entry["version"]
        wheels = [parse_wheel_filename(w["url"].rsplit("/", 1)[1]) for w in entry.get("wheels", [])]
        prebuilt = any(set(tags) & here for *_, tags in wheels)
        dist = installed(name)
        if dist is not None and dist.version == version:
            if not prebuilt and compiled(dist):
                problems.append(f"{name} {version}: built here from its sdist: {compiled(dist)}")
        elif not wheels:
            problems.append(f"{name} {version}: an sdist only, and not installed here to check")
    assert problems == []


def test_the_check_finds_a_compiled_package():
    """On a distribution that holds an extension (xllamacpp's, when the `local` group is
    installed; else pydantic-core's): what the test above would report."""
    for name in ("xllamacpp", "pydantic-core"):
        dist = installed(name)
        if dist is not None:
            assert compiled(dist), name
            return
    raise AssertionError("no compiled distribution installed to check against")


def test_llama_cpp_python_is_gone():
    lock = tomllib.loads((REPO / "uv.lock").read_text())
    assert "llama-cpp-python" not in {p["name"] for p in lock["package"]}
