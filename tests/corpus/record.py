"""Re-record the corpus with the agents' real clients: ``python -m tests.corpus.record``.

``--agent NAME`` (repeatable) records only those; ``--list`` names the recipes. Needs node
and npm (or a Python for PyPI clients) and the package registries; it is not part of the
test run. Each agent's files replace ``tests/corpus/<agent>/``, with ``manifest.json``
there saying which client version wrote them, the prompts sent and what they exercise; the
client's own output is kept in ``/tmp/convo-corpus/<agent>.log``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys

from tests.corpus import CORPUS
from tests.corpus.agents import RECIPES
from tests.corpus.fake_model.server import FakeModel
from tests.corpus.recipe import SCRATCH, Recipe


def record(recipe: Recipe) -> dict[str, object]:
    exe = recipe.install()
    SCRATCH.mkdir(parents=True, exist_ok=True)
    with FakeModel(SCRATCH / f"{recipe.name}.requests.jsonl") as fake:
        run = recipe.fresh_run(exe, fake.url)
        try:
            recipe.drive(run)
        finally:
            (SCRATCH / f"{recipe.name}.log").write_text("\n".join(run.log))
        requests = len(fake.requests)
    dest = CORPUS / recipe.name
    files = recipe.harvest(run, dest)
    manifest = {"client": recipe.package, "version": recipe.version, "tool": recipe.tool,
            "format": recipe.format, "prompts": run.prompts,
            "recorded": dt.date.today().isoformat(), "requests": requests,
            "exercises": recipe.exercises,
            "files": [str(f.relative_to(dest)) for f in files]}
    (dest / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.corpus.record")
    parser.add_argument("--agent", action="append", choices=sorted(RECIPES))
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args(argv)
    if args.list:
        for name, r in sorted(RECIPES.items()):
            print(f"{name:14} {r.package}@{r.version}  {r.exercises}")
        return 0
    failed = []
    for name in args.agent or sorted(RECIPES):
        print(f"recording {name} …", flush=True)
        try:
            files = record(RECIPES[name])["files"]
        except Exception as exc:  # one agent failing never loses the others' recordings
            failed.append(name)
            print(f"  {name} failed: {exc}", file=sys.stderr)
            continue
        print(f"  {len(files)} files")  # type: ignore[arg-type]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
