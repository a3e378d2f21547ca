"""How one agent's client is installed, driven against the fake model, and harvested.

A :class:`Recipe` names the client (package and pinned version), a ``drive`` function that
runs the scripted session through :class:`Run`, and ``collect`` globs (relative to the
fake home) for the files the agent wrote. Everything happens under a fixed scratch folder
(``/tmp/convo-corpus/<agent>``) so paths inside the recordings are the same each time.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

SCRATCH = Path("/tmp/convo-corpus")
CACHE = Path(os.environ.get("CONVO_CORPUS_CACHE") or Path.home() / ".cache" / "convo-corpus")


@dataclass
class Run:
    """One recording in progress: where the agent lives and how to call it."""
    agent: str
    exe: Path
    home: Path
    work: Path
    model_url: str
    env: dict[str, str] = field(default_factory=dict)
    log: list[str] = field(default_factory=list)
    prompts: list[str] = field(default_factory=list)

    def prompt(self, text: str) -> str:
        """``text``, remembered as a prompt the import must show as the person's words."""
        self.prompts.append(text)
        return text

    def call(self, args: list[str], *, stdin: str | None = None, timeout: float = 180,
             env: Mapping[str, str] | None = None, check: bool = True,
             cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        """Run the client once, in the work folder, with the fake home; its output is logged."""
        full_env = {"PATH": os.environ.get("PATH", ""), "HOME": str(self.home),
                    "LANG": "C.UTF-8", "TERM": "dumb", "NO_COLOR": "1", "CI": "1",
                    **self.env, **(env or {})}
        proc = subprocess.run([str(self.exe), *args], cwd=cwd or self.work, env=full_env,
                              input=stdin, text=True, capture_output=True, timeout=timeout)
        self.log.append(f"$ {' '.join(args)}\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
        if check and proc.returncode != 0:
            raise RuntimeError(f"{self.agent} {' '.join(args)} exited {proc.returncode}:\n"
                               f"{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
        return proc


@dataclass
class Recipe:
    name: str  # the folder under tests/corpus
    tool: str  # its name in `convo sources`
    format: str  # the importer that reads it
    package: str  # "npm:@openai/codex" or "pypi:kimi-cli"
    version: str
    bin: str  # the executable the package installs
    drive: Callable[[Run], None]
    collect: tuple[str, ...]  # globs under the fake home
    exercises: str  # what the recording covers, for the manifest
    python: str = sys.executable  # the interpreter a PyPI client is installed with
    env: Callable[[Run], dict[str, str]] = lambda run: {}
    setup: Callable[[Run], None] = lambda run: None

    def install(self) -> Path:
        """The client's executable, installed once per version into the cache."""
        kind, _, pkg = self.package.partition(":")
        where = CACHE / f"{self.name}-{self.version}"
        if kind == "npm":
            exe = where / "node_modules" / ".bin" / self.bin
            if not exe.exists():
                where.mkdir(parents=True, exist_ok=True)
                subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefix",
                                str(where), f"{pkg}@{self.version}"], check=True)
            return exe
        exe = where / "bin" / self.bin
        if not exe.exists():
            subprocess.run([self.python, "-m", "venv", str(where)], check=True)
            subprocess.run([str(where / "bin" / "pip"), "install", "-q",
                            f"{pkg}=={self.version}"], check=True)
        return exe

    def fresh_run(self, exe: Path, model_url: str, scratch: Path = SCRATCH) -> Run:
        base = scratch / self.name
        shutil.rmtree(base, ignore_errors=True)
        run = Run(self.name, exe, base / "home", base / "work", model_url)
        run.home.mkdir(parents=True)
        run.work.mkdir(parents=True)
        (run.work / "notes.txt").write_text("first line of the notes\nsecond line\n")
        run.env = self.env(run)
        self.setup(run)
        return run

    def harvest(self, run: Run, dest: Path) -> list[Path]:
        """Copy what the agent wrote into ``dest/home/…``; returns the copies."""
        shutil.rmtree(dest, ignore_errors=True)
        copied: list[Path] = []
        for pattern in self.collect:
            for src in sorted(run.home.glob(pattern)):
                if src.is_file():
                    target = dest / "home" / src.relative_to(run.home)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(src, target)
                    copied.append(target)
        if not copied:
            raise RuntimeError(f"{self.name}: nothing matched {self.collect} under {run.home}")
        return copied
