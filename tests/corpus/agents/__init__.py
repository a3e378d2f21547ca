"""One module per agent, each defining ``RECIPE``; :data:`RECIPES` finds them all."""

from __future__ import annotations

import importlib
import pkgutil

from tests.corpus.recipe import Recipe


def _recipes() -> dict[str, Recipe]:
    found: dict[str, Recipe] = {}
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        recipe = getattr(module, "RECIPE", None)
        if isinstance(recipe, Recipe):
            found[recipe.name] = recipe
    return found


RECIPES = _recipes()
