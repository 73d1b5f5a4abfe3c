"""Where `ops-eval mlflow` logs -- settled before MLflow is
imported or a model is started, so a configuration mistake costs nothing and changes nothing.

The store is MLFLOW_TRACKING_URI, else a SQLite file in the checkout (`mlflow.db`, git-ignored,
artifacts in `mlruns/` beside it); the experiment is MLFLOW_EXPERIMENT_NAME, else `ops-copilot`.
The same command logs to a team's tracking server when the URI is `http(s)://...`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from opskit.textfiles import resolved

from ...base.inputs import bad_input
from ...base.settings import current

DEFAULT_EXPERIMENT = "ops-copilot"
DB_FILE = "mlflow.db"
UI_TASK = "mise run mlflow:ui"


@dataclass(frozen=True)
class TrackingTarget:
    uri: str
    experiment: str
    artifacts: Path | None
    """Where a new experiment keeps its artifacts, for a local store; None: the server decides."""

    @property
    def sqlite_file(self) -> Path | None:
        """The database file of a SQLite store; None for a tracking server."""
        if not self.uri.startswith("sqlite:///"):
            return None
        return Path(self.uri.removeprefix("sqlite:///"))

    @property
    def shown(self) -> str:
        """The URI as printed: a password in it is masked."""
        return masked(self.uri)

    def lines(self) -> list[str]:
        """What the command prints about the store: always the URI; the local UI only for
        SQLite (a tracking server has its own UI at its own address)."""
        shown = [f"tracking: {self.shown} (experiment {self.experiment})"]
        if self.sqlite_file is not None:
            shown.append(f"open it: {UI_TASK}  (or: mlflow ui --backend-store-uri {self.uri})")
        return shown


def masked(uri: str) -> str:
    """`uri` with the password of its user part replaced by *** -- or the whole user part,
    when it has no password (a token)."""
    parts = urlsplit(uri)
    if parts.username is None:
        return uri
    host = parts.netloc.rsplit("@", 1)[1]
    user = f"{parts.username}:***" if parts.password is not None else "***"
    return urlunsplit(parts._replace(netloc=f"{user}@{host}"))


SQLITE_MAGIC = b"SQLite format 3\x00"


def _sqlite_file_problem(path: Path) -> str | None:
    """Why `path` cannot hold a SQLite store, found before MLflow spends minutes retrying."""
    import os

    if path.is_dir():
        return f"{path} is a folder"
    folder = resolved(path).parent
    while not folder.exists():  # MLflow makes the missing folders: the first existing decides
        folder = folder.parent
    if not folder.is_dir():
        return f"{folder} is not a folder"
    if not path.exists() and not os.access(folder, os.W_OK | os.X_OK):
        return f"{folder} cannot be written"
    if path.is_file() and path.stat().st_size:
        try:
            with path.open("rb") as handle:
                head = handle.read(len(SQLITE_MAGIC))
        except OSError as exc:
            return f"{path} cannot be read ({exc.strerror})"
        if head != SQLITE_MAGIC:
            return f"{path} is not a SQLite database"
    return None


def tracking_target() -> TrackingTarget:
    """The store and experiment from the environment; exit 2 for a URI this command cannot
    use: a SQLite file (`sqlite:///PATH`) or a tracking server (`http(s)://HOST:PORT`)."""
    settings = current()
    experiment = settings.mlflow_experiment or DEFAULT_EXPERIMENT
    uri = settings.mlflow_tracking_uri
    if uri is None:
        folder = settings.source_root or Path.cwd()
        uri = f"sqlite:///{folder / DB_FILE}"
    scheme = uri.split(":", 1)[0].lower() if ":" in uri else ""
    # Prompts, logged models and traces need a database store or a server (not MLflow's file
    # store); the mlflow group ships the SQLite driver only.
    if scheme not in ("sqlite", "http", "https"):
        raise bad_input(
            f"MLFLOW_TRACKING_URI {masked(uri)!r}: expected sqlite:///FILE or "
            "http(s)://HOST:PORT (a tracking server)"
        )
    if scheme != "sqlite":
        return TrackingTarget(uri, experiment, None)
    path = uri.removeprefix("sqlite:///")
    if not uri.startswith("sqlite:///") or path in ("", ":memory:"):
        raise bad_input(f"MLFLOW_TRACKING_URI {uri!r}: expected sqlite:///FILE")
    problem = _sqlite_file_problem(Path(path))
    if problem:
        raise bad_input(f"MLFLOW_TRACKING_URI {uri!r}: {problem}")
    return TrackingTarget(uri, experiment, resolved(path).parent / "mlruns")
