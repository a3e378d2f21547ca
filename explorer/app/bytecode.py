"""The app's own bytecode cache, for when Python would compile every module at each start.

With ``PYTHONDONTWRITEBYTECODE`` set, or an installation whose folders are not writable
(a system package, an editable checkout owned by someone else), Python caches nothing:
every start compiles again the few hundred modules the window imports, about 0.4 s of
CPU before the first frame. The app then keeps compiled modules in the user's cache
folder (``sys.pycache_prefix``) and leaves the installation untouched.
``CONVO_NO_BYTECODE_CACHE=1`` turns this off; an explicit ``PYTHONPYCACHEPREFIX`` wins.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

import platformdirs

import explorer
from explorer.app.locations import APP_NAME

OPT_OUT = "CONVO_NO_BYTECODE_CACHE"


def cache_dir() -> Path:
    """Where compiled modules go: ``pycache`` in the user's cache folder."""
    return Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False)) / "pycache"


def installation_caches(package: Path) -> bool:
    """Whether Python itself keeps compiled modules for ``package`` (allowed and able to)."""
    if sys.dont_write_bytecode:
        return False
    where = package / "__pycache__"
    return os.access(where if where.exists() else package, os.W_OK)


def use_user_cache(env: Mapping[str, str] | None = None) -> Path | None:
    """Point Python's bytecode cache at the user's cache folder when it would keep none.

    Returns the folder used, or None when nothing changed (already cached by the
    installation, a prefix chosen by the user, a frozen bundle, opted out, or no
    writable cache folder)."""
    env = os.environ if env is None else env
    if sys.pycache_prefix is not None or env.get(OPT_OUT) or getattr(sys, "frozen", False):
        return None
    if installation_caches(Path(explorer.__file__).parent):
        return None
    target = cache_dir()
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    if not os.access(target, os.W_OK):
        return None
    sys.pycache_prefix = str(target)
    sys.dont_write_bytecode = False
    return target
