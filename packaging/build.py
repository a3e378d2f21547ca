"""Build the bundle for this OS and prove it starts: ``python packaging/build.py``.

Steps: make sure PyInstaller is in the project's ``.venv``; run it on the spec; run the built
executable with ``--smoke-test`` headless (``QT_QPA_PLATFORM=offscreen``), failing unless it exits
0; then package it — a ``.tar.gz`` with install and uninstall scripts on Linux, the Inno Setup
installer on Windows when ``ISCC`` is available (the version comes from ``pyproject.toml`` and is
passed with ``/DAppVersion=``). Outputs go to ``dist/`` (work files to ``build/``).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGING = ROOT / "packaging"
SPEC = PACKAGING / "conversation-explorer.spec"
DIST = ROOT / "dist"
WORK = ROOT / "build" / "pyinstaller"
APP_NAME = "conversation-explorer"
APP_ID = "io.github.conversation_explorer.ConversationExplorer"
PYINSTALLER = "pyinstaller>=6.10"
SMOKE_TIMEOUT_S = 300
LINUX_EXTRAS = ("install.sh", "uninstall.sh", f"{APP_ID}.desktop", f"{APP_ID}.metainfo.xml")
ISCC_PLACES = (
    Path(os.environ.get("PROGRAMFILES(X86)", r"C:\Program Files (x86)")) / "Inno Setup 6",
    Path(os.environ.get("PROGRAMFILES", r"C:\Program Files")) / "Inno Setup 6",
    Path(os.environ.get("LOCALAPPDATA", r"C:\Users\Default\AppData\Local")) / "Programs"
    / "Inno Setup 6",
)


class BuildError(Exception):
    """A step failed; the message says which and why."""


def project_version(pyproject: Path = ROOT / "pyproject.toml") -> str:
    """The version in ``pyproject.toml``: the one source for the bundle and the installer."""
    with pyproject.open("rb") as f:
        return str(tomllib.load(f)["project"]["version"])


def venv_python(root: Path = ROOT) -> Path:
    """The interpreter of the project's ``.venv`` (the one with the app's dependencies)."""
    bindir = "Scripts" if os.name == "nt" else "bin"
    exe = root / ".venv" / bindir / ("python.exe" if os.name == "nt" else "python")
    if not exe.exists():
        raise BuildError(f"no virtualenv at {exe.parent.parent}; create it as the README says "
                         "(python3 -m venv .venv && .venv/bin/pip install -e .)")
    return exe


def ensure_pyinstaller(python: Path) -> None:
    probe = subprocess.run([str(python), "-c", "import PyInstaller"], capture_output=True)
    if probe.returncode == 0:
        return
    print(f"installing {PYINSTALLER} into {python.parent.parent}", flush=True)
    _run([str(python), "-m", "pip", "install", "-q", PYINSTALLER], "installing PyInstaller")


def run_pyinstaller(python: Path) -> Path:
    """Build the one-folder bundle; returns its folder under ``dist/``."""
    _run([str(python), "-m", "PyInstaller", "--noconfirm", "--clean", "--log-level", "WARN",
          "--distpath", str(DIST), "--workpath", str(WORK), str(SPEC)], "PyInstaller")
    bundle = DIST / APP_NAME
    if not executable(bundle).exists():
        raise BuildError(f"PyInstaller finished but {executable(bundle)} is missing")
    return bundle


def executable(bundle: Path) -> Path:
    return bundle / ("convo.exe" if os.name == "nt" else "convo")


def smoke_test(bundle: Path) -> str:
    """Run ``convo --smoke-test`` from the bundle, headless, away from the checkout."""
    with tempfile.TemporaryDirectory(prefix="convo-smoke-run-") as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
        env.update(QT_QPA_PLATFORM="offscreen", CONVO_DB=str(Path(tmp) / "unused.db"))
        try:
            res = subprocess.run([str(executable(bundle)), "--smoke-test"], cwd=tmp, env=env,
                                 capture_output=True, text=True, timeout=SMOKE_TIMEOUT_S)
        except subprocess.TimeoutExpired as e:
            raise BuildError(f"smoke test still running after {SMOKE_TIMEOUT_S} s") from e
    report = res.stdout.strip()
    if res.returncode != 0:
        raise BuildError(f"smoke test exited {res.returncode}:\n{report}\n{res.stderr.strip()}")
    return report


def folder_size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def linux_archive(bundle: Path, version: str) -> Path:
    """``dist/conversation-explorer-<version>-linux-<arch>.tar.gz``: bundle plus install scripts."""
    name = f"{APP_NAME}-{version}-linux-{platform.machine() or 'unknown'}"
    archive = DIST / f"{name}.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(bundle, arcname=f"{name}/{APP_NAME}")
        for extra in LINUX_EXTRAS:
            tar.add(PACKAGING / "linux" / extra, arcname=f"{name}/{extra}")
    return archive


def find_iscc() -> Path | None:
    found = shutil.which("ISCC") or shutil.which("iscc")
    if found:
        return Path(found)
    return next((p / "ISCC.exe" for p in ISCC_PLACES if (p / "ISCC.exe").exists()), None)


def windows_installer(version: str) -> Path | None:
    """Compile ``installer.iss`` with the bundle in ``dist/``; None if Inno Setup is missing."""
    iscc = find_iscc()
    if iscc is None:
        print("Inno Setup (ISCC.exe) not found: the bundle is built, the installer is not. "
              "Install Inno Setup 6 and run this again.", flush=True)
        return None
    _run([str(iscc), f"/DAppVersion={version}", str(ROOT / "installer.iss")], "Inno Setup")
    setup = DIST / f"{APP_NAME}-{version}-setup.exe"
    if not setup.exists():
        raise BuildError(f"ISCC finished but {setup} is missing")
    return setup


def _run(cmd: list[str], what: str) -> None:
    res = subprocess.run(cmd, cwd=ROOT)
    if res.returncode != 0:
        raise BuildError(f"{what} failed (exit {res.returncode}): {' '.join(cmd)}")


def build(skip_package: bool = False) -> int:
    start = time.monotonic()
    version = project_version()
    python = venv_python()
    ensure_pyinstaller(python)
    bundle = run_pyinstaller(python)
    built = time.monotonic() - start
    print(smoke_test(bundle), flush=True)
    outputs = [bundle]
    if not skip_package:
        if sys.platform.startswith("linux"):
            outputs.append(linux_archive(bundle, version))
        elif os.name == "nt":
            setup = windows_installer(version)
            outputs += [setup] if setup else []
    size = folder_size(bundle)
    print(f"built {APP_NAME} {version} in {built:.0f} s; bundle {size / 1e6:.0f} MB "
          f"({sum(1 for _ in bundle.rglob('*'))} files); smoke test passed on the executable")
    for out in outputs:
        print(f"  {out.relative_to(ROOT)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--no-package", action="store_true",
                        help="build and smoke-test the bundle only (no archive or installer)")
    args = parser.parse_args(argv)
    try:
        return build(skip_package=args.no_package)
    except BuildError as e:
        print(f"build failed: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
