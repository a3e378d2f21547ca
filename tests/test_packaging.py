"""Shipping: the Windows installer script, the PyInstaller spec, the Linux desktop files, icons.

The installer and spec are read as data (sections and keys, the spec's syntax tree), so these
tests run anywhere; the compilers and validators that exist on a machine are run for real.
"""

from __future__ import annotations

import ast
import importlib.util
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType
from typing import cast

import pytest
import system_tools
from PIL import Image, ImageChops

from explorer import __version__
from explorer.ui.app import APP_ID

REPO = Path(__file__).resolve().parents[1]
ISS = REPO / "installer.iss"
SPEC = REPO / "packaging" / "conversation-explorer.spec"
LINUX = REPO / "packaging" / "linux"
DESKTOP = LINUX / f"{APP_ID}.desktop"
METAINFO = LINUX / f"{APP_ID}.metainfo.xml"
ICONS = REPO / "resources" / "icons"
APP_GUID = "F364C838-8D25-48CC-9FBA-9D373236346F"  # changing it breaks every upgrade
GUID = re.compile(r"^\{\{[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}\}$")
USER_DATA_CONSTANTS = ("{localappdata}", "{userappdata}", "{commonappdata}", "{%LOCALAPPDATA",
                       "{%APPDATA", "{userdocs}", "conversation-explorer\\explorer")


def _load(path: Path) -> ModuleType:
    name = f"packaging_{path.stem}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


# -- installer.iss -------------------------------------------------------------------------------
def _iss_sections() -> dict[str, list[str]]:
    sections: dict[str, list[str]] = {"": []}
    current = ""
    for raw in ISS.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith(";"):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = line[1:-1]
            sections.setdefault(current, [])
        else:
            sections[current].append(line)
    return sections


def _setup() -> dict[str, str]:
    pairs = (line.split("=", 1) for line in _iss_sections()["Setup"])
    return {k.strip(): v.strip() for k, v in pairs}


def _entries(section: str) -> list[dict[str, str]]:
    """Inno entries (``Name: "x"; Flags: a b``) as dicts, quotes removed."""
    out = []
    for line in _iss_sections().get(section, []):
        params = re.findall(r'(\w+):\s*("(?:[^"]|"")*"|[^;]*)', line)
        out.append({k: v.strip().strip('"') for k, v in params})
    return out


def test_app_id_is_the_fixed_guid() -> None:
    app_id = _setup()["AppId"]
    assert GUID.match(app_id), app_id
    assert app_id == "{{" + APP_GUID + "}"


def test_version_is_passed_in_and_required() -> None:
    text = ISS.read_text(encoding="utf-8")
    assert _setup()["AppVersion"] == "{#AppVersion}"
    assert "{#AppVersion}" in _setup()["OutputBaseFilename"]
    assert re.search(r"#ifndef AppVersion\s+#error", text)


def test_one_version_everywhere() -> None:
    build = _load(REPO / "packaging" / "build.py")
    with (REPO / "pyproject.toml").open("rb") as f:
        version = tomllib.load(f)["project"]["version"]
    assert build.project_version() == version == __version__
    releases = ET.parse(METAINFO).getroot().findall("./releases/release")
    assert releases[0].get("version") == version


def test_per_user_install_by_default_with_admin_override() -> None:
    setup = _setup()
    assert setup["PrivilegesRequired"] == "lowest"
    assert setup["PrivilegesRequiredOverridesAllowed"] == "dialog"
    assert setup["DefaultDirName"].startswith("{autopf}")


def test_start_menu_and_optional_desktop_shortcuts() -> None:
    tasks = {t["Name"]: t for t in _entries("Tasks")}
    assert "unchecked" in tasks["desktopicon"]["Flags"].split()
    icons = _entries("Icons")
    start_menu = [i for i in icons if i["Name"].startswith("{group}\\")]
    desktop = [i for i in icons if i["Name"].startswith("{autodesktop}\\")]
    assert start_menu and "Tasks" not in start_menu[0]
    assert desktop and desktop[0]["Tasks"] == "desktopicon"
    assert {i["Filename"] for i in icons} == {"{app}\\{#AppExe}"}
    assert re.search(r'#define AppExe "convo\.exe"', ISS.read_text(encoding="utf-8"))


def test_upgrade_replaces_the_internal_folder_whole() -> None:
    deletes = _entries("InstallDelete")
    assert {"Type": "filesandordirs", "Name": "{app}\\_internal"} in deletes
    tree = ast.parse(SPEC.read_text(encoding="utf-8"))
    assert _call_kwargs(tree, "EXE")["contents_directory"] == "_internal"


def test_files_are_the_whole_bundle_folder() -> None:
    files = _entries("Files")
    assert files == [{"Source": "{#BundleDir}\\*", "DestDir": "{app}",
                      "Flags": "ignoreversion recursesubdirs createallsubdirs"}]
    assert '#define BundleDir "dist\\conversation-explorer"' in ISS.read_text(encoding="utf-8")


def test_uninstall_leaves_the_users_database_alone() -> None:
    uninstall = _entries("UninstallDelete")
    assert uninstall and all(e["Name"].startswith("{app}") for e in uninstall)
    for section in ("InstallDelete", "UninstallDelete", "UninstallRun", "Code"):
        body = "\n".join(_iss_sections().get(section, [])).lower()
        assert not any(c.lower() in body for c in USER_DATA_CONSTANTS), section


# -- the PyInstaller spec ------------------------------------------------------------------------
def _call_kwargs(tree: ast.AST, name: str) -> dict[str, object]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name:
            return {k.arg: _constant(k.value) for k in node.keywords if k.arg}
    raise AssertionError(f"no {name}(...) call in the spec")


def _constant(value: ast.expr) -> object:
    return ast.literal_eval(value) if isinstance(value, ast.Constant) else value


def _calls(tree: ast.AST, name: str) -> list[ast.Call]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call)
            and isinstance(n.func, ast.Name) and n.func.id == name]


def test_spec_is_one_folder_windowed_without_upx() -> None:
    tree = ast.parse(SPEC.read_text(encoding="utf-8"))
    exe = _call_kwargs(tree, "EXE")
    assert exe["upx"] is False and exe["console"] is False and exe["exclude_binaries"] is True
    assert _call_kwargs(tree, "COLLECT")["upx"] is False
    assert "resources" in ast.unparse(exe["icon"])  # type: ignore[arg-type]


def test_spec_gives_windows_a_console_twin_for_the_command_line() -> None:
    tree = ast.parse(SPEC.read_text(encoding="utf-8"))
    exes = [{k.arg: k.value for k in c.keywords} for c in _calls(tree, "EXE")]
    consoles = [e for e in exes if isinstance(e.get("console"), ast.Constant)
                and e["console"].value is True]
    assert len(exes) == 2 and len(consoles) == 1
    assert ast.unparse(consoles[0]["name"]) == "CONSOLE_EXECUTABLE"
    assert 'CONSOLE_EXECUTABLE = "convo-cli"' in SPEC.read_text(encoding="utf-8")
    collect = _calls(tree, "COLLECT")[0]
    assert any(isinstance(a, ast.Starred) for a in collect.args)


def test_spec_ships_resources_and_keyring_backends() -> None:
    text = SPEC.read_text(encoding="utf-8")
    tree = ast.parse(text)
    assert 'datas = [(str(ROOT / "resources"), "resources")]' in text
    assert [ast.literal_eval(c.args[0]) for c in _calls(tree, "collect_submodules")] == [
        "explorer", "keyring.backends"]
    groups = [k.value for c in _calls(tree, "entry_points") for k in c.keywords]
    assert [ast.literal_eval(g) for g in groups] == ["keyring.backends"]
    assert _calls(tree, "copy_metadata")
    assert re.search(r'keyring_distributions = .*\| \{"keyring"\}', text)


def test_every_resource_folder_the_app_reads_is_there() -> None:
    for folder in ("fonts", "demo", "icons"):
        assert any((REPO / "resources" / folder).iterdir()), folder


# -- Linux desktop integration -------------------------------------------------------------------
def _desktop_entry() -> dict[str, str]:
    lines = DESKTOP.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "[Desktop Entry]"
    return dict(line.split("=", 1) for line in lines[1:] if "=" in line)


def test_desktop_file_and_metainfo_share_the_app_id() -> None:
    entry = _desktop_entry()
    root = ET.parse(METAINFO).getroot()
    assert APP_ID.count(".") >= 2 and APP_ID.startswith("io.github.")
    assert entry["Icon"] == APP_ID
    assert root.findtext("id") == APP_ID
    assert root.findtext("launchable") == f"{APP_ID}.desktop"
    assert root.find("launchable").get("type") == "desktop-id"  # type: ignore[union-attr]


def test_desktop_file_starts_the_convo_command() -> None:
    with (REPO / "pyproject.toml").open("rb") as f:
        scripts = tomllib.load(f)["project"]["scripts"]
    entry = _desktop_entry()
    assert entry["Exec"] == entry["TryExec"] == "convo" and "convo" in scripts
    assert _call_kwargs(ast.parse(SPEC.read_text(encoding="utf-8")), "EXE")["name"] is not None
    assert 'EXECUTABLE = "convo"' in SPEC.read_text(encoding="utf-8")


def test_metainfo_has_releases_rating_and_description() -> None:
    root = ET.parse(METAINFO).getroot()
    assert root.get("type") == "desktop-application"
    assert root.find("content_rating").get("type") == "oars-1.1"  # type: ignore[union-attr]
    assert root.findall("./releases/release")
    assert len(root.findall("./description/p")) >= 1


def _tool(name: str, package: str) -> str:
    return system_tools.tool(name, package)


def test_desktop_file_validates() -> None:
    res = subprocess.run([_tool("desktop-file-validate", "desktop-file-utils"), str(DESKTOP)],
                         capture_output=True, text=True)
    assert res.returncode == 0 and "error" not in res.stdout, res.stdout + res.stderr


def test_metainfo_validates() -> None:
    res = subprocess.run([_tool("appstreamcli", "appstream"), "validate", "--no-net",
                          str(METAINFO)], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr


# -- icons ---------------------------------------------------------------------------------------
def test_png_icons_are_the_svg_shapes_drawn_at_each_size() -> None:
    icons = _load(REPO / "packaging" / "make_icons.py")
    svg = (ICONS / "app.svg").read_text(encoding="utf-8")
    assert svg == icons.svg_text()
    assert ET.fromstring(svg).get("viewBox") == "0 0 256 256"
    for size in (16, 32, 48, 128, 256):
        with Image.open(ICONS / f"app-{size}.png") as png:
            assert png.size == (size, size)
            diff = ImageChops.difference(png.convert("RGBA"), icons.draw(size))
            bands = cast(tuple[tuple[int, int], ...], diff.getextrema())
            assert max(hi for _, hi in bands) <= 8, size


def test_windows_icon_holds_the_large_and_small_sizes() -> None:
    with Image.open(ICONS / "app.ico") as ico:
        sizes = ico.info["sizes"]
    assert {(16, 16), (32, 32), (48, 48), (256, 256)} <= set(sizes)


# -- the build script and the Linux archive ------------------------------------------------------
def _fake_bundle(folder: Path, exe: str = "convo") -> Path:
    bundle = folder / "conversation-explorer"
    (bundle / "_internal" / "resources").mkdir(parents=True)
    shutil.copytree(ICONS, bundle / "_internal" / "resources" / "icons")
    launcher = bundle / exe
    launcher.write_text("#!/bin/sh\necho fake convo\n", encoding="utf-8")
    launcher.chmod(0o755)
    return bundle


def test_linux_archive_holds_the_bundle_and_the_install_scripts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    build = _load(REPO / "packaging" / "build.py")
    monkeypatch.setattr(build, "DIST", tmp_path)
    archive = build.linux_archive(_fake_bundle(tmp_path / "src"), "9.8.7")
    assert archive.name.startswith("conversation-explorer-9.8.7-linux-")
    with tarfile.open(archive) as tar:
        members = {m.name.split("/", 1)[1]: m for m in tar.getmembers() if "/" in m.name}
    for name in ("install.sh", "uninstall.sh", f"{APP_ID}.desktop", f"{APP_ID}.metainfo.xml",
                 "conversation-explorer/convo", "conversation-explorer/_internal/resources/icons"):
        assert name in members, name
    assert members["install.sh"].mode & 0o111 and members["uninstall.sh"].mode & 0o111


def test_install_then_uninstall_keeps_the_database(tmp_path: Path) -> None:
    release = tmp_path / "release"
    _fake_bundle(release)
    for name in ("install.sh", "uninstall.sh", DESKTOP.name, METAINFO.name):
        shutil.copy2(LINUX / name, release / name)
    prefix, home = tmp_path / "prefix", tmp_path / "home"
    database = home / ".local" / "share" / "conversation-explorer" / "explorer.db"
    database.parent.mkdir(parents=True)
    database.write_bytes(b"SQLite format 3\x00")
    env = {**os.environ, "PREFIX": str(prefix), "HOME": str(home)}
    res = subprocess.run(["sh", str(release / "install.sh")], env=env, capture_output=True,
                         text=True)
    assert res.returncode == 0, res.stderr
    desktop = prefix / "share" / "applications" / DESKTOP.name
    assert f'Exec="{prefix}/lib/conversation-explorer/convo"' in desktop.read_text(encoding="utf-8")
    assert (prefix / "share" / "icons" / "hicolor" / "256x256" / "apps" / f"{APP_ID}.png").exists()
    assert (prefix / "share" / "icons" / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg").exists()
    assert subprocess.run([str(prefix / "bin" / "convo")], capture_output=True,
                          text=True).stdout == "fake convo\n"
    validate = subprocess.run([_tool("desktop-file-validate", "desktop-file-utils"),
                               str(desktop)], capture_output=True, text=True)
    assert validate.returncode == 0, validate.stdout

    res = subprocess.run(["sh", str(release / "uninstall.sh")], env=env, capture_output=True,
                         text=True)
    assert res.returncode == 0, res.stderr
    assert not (prefix / "lib" / "conversation-explorer").exists()
    assert not desktop.exists() and not (prefix / "bin" / "convo").exists()
    assert database.read_bytes() == b"SQLite format 3\x00"


# -- compiling the installer (where Wine and Inno Setup are installed) ---------------------------
def _iscc() -> Path | None:
    env = os.environ.get("ISCC_EXE")
    candidates = [Path(env)] if env else []
    wineprefix = Path(os.environ.get("WINEPREFIX", Path.home() / ".wine"))
    candidates += [wineprefix / "drive_c" / pf / "Inno Setup 6" / "ISCC.exe"
                   for pf in ("Program Files (x86)", "Program Files")]
    return next((c for c in candidates if c.is_file()), None)


def _windows_path(path: Path) -> str:
    return "Z:" + str(path).replace("/", "\\")


def test_installer_compiles_against_a_fake_bundle(tmp_path: Path) -> None:
    wine, iscc = shutil.which("wine"), _iscc()
    if wine is None or iscc is None:
        pytest.skip(f"needs 32-bit Wine and Inno Setup's ISCC.exe (wine: {wine}, ISCC: {iscc})")
    bundle = _fake_bundle(tmp_path, exe="convo.exe")
    (bundle / "_internal" / "base_library.zip").write_bytes(io.BytesIO(b"zip").getvalue())
    out = tmp_path / "out"
    res = subprocess.run(
        [wine, str(iscc), "/Q", "/DAppVersion=9.8.7", f"/DBundleDir={_windows_path(bundle)}",
         f"/DOutputDir={_windows_path(out)}", _windows_path(ISS)],
        cwd=REPO, capture_output=True, text=True, timeout=600,
    )
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    setup = out / "conversation-explorer-9.8.7-setup.exe"
    assert setup.is_file(), ("ISCC exited 0 but wrote no setup: 64-bit-only Wine cannot run it; "
                             "install 32-bit Wine (wine32)")
    assert setup.read_bytes()[:2] == b"MZ"


def _bundle(tmp_path: Path) -> Path:
    """A script that stands in for the frozen executable: the bundle's entry script."""
    bundle = tmp_path / "convo-bundle"
    bundle.write_text(f'#!/bin/sh\nexec "{sys.executable}" '
                      f'"{REPO / "packaging" / "convo_main.py"}" "$@"\n')
    bundle.chmod(0o755)
    return bundle


def _started_as(bundle: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """This process as the bundle's: frozen, ``bundle`` its executable (the command its
    children are started with is the bundle's: ``child_pipe.child_command``)."""
    monkeypatch.setattr(sys, "executable", str(bundle))
    monkeypatch.setattr(sys, "frozen", True, raising=False)


def _two_line_session(path: Path) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in (
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s",
         "timestamp": "2026-01-01T00:00:00Z", "message": {"role": "user", "content": "hi"}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s",
         "timestamp": "2026-01-01T00:00:01Z",
         "message": {"role": "assistant", "content": [{"type": "text", "text": "hello"}]}},
    )) + "\n")
    return path


def test_the_bundles_entry_runs_the_windows_import_reader(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bundle has no ``python -m``: the window's import reader is started as the bundle's
    executable with ``-m explorer.app.importing.child``, which its entry script must run."""
    from explorer.app.importing import process as import_process
    from explorer.store import Store

    bundle = _bundle(tmp_path)
    _started_as(bundle, monkeypatch)
    session = _two_line_session(tmp_path / "s.jsonl")
    with Store(tmp_path / "x.db") as store:
        report = import_process.import_in_child(store, [session])
        assert not report.errors
        assert [c.added for c in report.conversations] == [2]
        conv = store.conversations()[0]
        assert [m.parts[0].text for m in store.path(conv.id)] == ["hi", "hello"]


def test_V2_the_bundles_entry_runs_the_turn_graphs_child(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A big conversation's turn graph is built by ``<bundle> -m explorer.app.graph.turn_child``:
    the entry script must run that module (and answer as ``python -m`` does)."""
    from explorer.app.graph import turn_process
    from explorer.app.graph.turn_text import turn_view
    from explorer.store import Store
    from explorer.tree.model import Message, Part

    bundle = _bundle(tmp_path)
    _started_as(bundle, monkeypatch)
    with Store(tmp_path / "x.db") as store:
        cid = store.create_conversation("t")
        for k in range(3):
            store.append_turn(cid, [Message(None, None, "user", [Part("text", f"ask {k}")]),
                                    Message(None, None, "assistant",
                                            [Part("text", f"answer {k}")])])
        there = turn_process.build_in_child(store.db_path, cid)
        assert there is not None
        here = turn_view(store, cid)
        assert len(there.view.projection) == len(here.projection) > 0
        assert list(there.view.projection.tree.prompts) == ["ask 0", "ask 1", "ask 2"]
        assert len(there.model) == len(here.projection)


def test_S1_the_bundles_entry_runs_a_syncs_reader(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A big first sync starts its readers as ``<bundle> -m
    explorer.app.importing.read_worker``: the entry script must run that module."""
    from explorer.app.importing import read_pool, whole_read
    from explorer.app.importing.units import Unit

    bundle = _bundle(tmp_path)
    _started_as(bundle, monkeypatch)
    session = _two_line_session(tmp_path / "s.jsonl")
    unit = Unit(session, "claude_code", session.stat().st_size, session.stat().st_mtime_ns)
    pool = read_pool.ReadPool([(unit, whole_read.signature(unit))], 1)
    try:
        got = pool.take(unit)
    finally:
        pool.close()
    assert isinstance(got, whole_read.WholeRead)
    conv = got.conversations[0]  # sent light: its parts come back from its rows when read
    assert [m.parts[0].text for chunk in conv.chunks() for m in chunk] == ["hi", "hello"]
