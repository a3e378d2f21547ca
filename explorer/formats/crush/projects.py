"""Where Crush keeps its databases: one ``crush.db`` in each project's data folder.

Crush registers every project it runs in, in ``projects.json`` in its global data folder
(``internal/projects``): ``{"projects": [{"path", "data_dir", "last_accessed"}]}``, where
``data_dir`` is the project's ``.crush`` folder unless its configuration moved it. Its
server mode keeps a ``crush.db`` in the global data folder itself.
"""

from __future__ import annotations

import json
from pathlib import Path

REGISTRY = "projects.json"
DATABASE = "crush.db"


def databases(data: Path, problems: list[str]) -> list[Path]:
    """Every ``crush.db`` the registry in ``data`` names, and the one in ``data`` itself;
    a registry that cannot be read is named in ``problems``."""
    found = [data / DATABASE]
    registry = data / REGISTRY
    if registry.is_file():
        try:
            listed = json.loads(registry.read_bytes()).get("projects")
        except (OSError, ValueError, RecursionError, AttributeError) as exc:
            problems.append(f"{registry}: cannot be read ({type(exc).__name__}); skipped")
            listed = []
        for entry in listed if isinstance(listed, list) else []:
            if not isinstance(entry, dict):
                continue
            folder = entry.get("data_dir") or (
                str(Path(entry["path"]) / ".crush") if isinstance(entry.get("path"), str) else None)
            if isinstance(folder, str) and folder:
                found.append(Path(folder).expanduser() / DATABASE)
    unique: dict[str, Path] = {}
    for db in found:
        unique.setdefault(str(db.resolve()) if db.exists() else str(db), db)
    return [db for db in unique.values() if db.is_file()]
