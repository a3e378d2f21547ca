"""The :class:`Target` built once from the settings file, the app's preferences and the flags.

Flags (or the choices of a dialog) win over the settings; the settings' provider, model,
window, output cap, threshold and snapshot tier are the defaults everywhere: the preview,
``/context``, ``/compact`` and ``send`` therefore aim at the same target unless told
otherwise.
"""

from __future__ import annotations

from explorer.app.preferences import load_app_prefs
from explorer.app.sharing.image_ocr import missing_note, pixel_reader
from explorer.compaction.page_geometry import DEFAULT_MODELS
from explorer.compaction.target import DEFAULT_WINDOWS, ProviderKind, Target
from explorer.providers.settings import load_settings
from explorer.tree.secrets import SecretRedactor


def build_target(
    kind: str | None = None,
    *,
    model: str | None = None,
    window: int | None = None,
    tier: str | None = None,
    max_tokens: int | None = None,
    vision: bool = True,
    redact: bool = True,
) -> Target:
    """The target for these choices over the settings (``None`` keeps the settings' value).

    Secrets are replaced before pages, summaries and bodies are made (SPEC R1) unless
    ``redact`` is False (``--no-redact``: the person asked to send them)."""
    settings = load_settings()
    prefs = load_app_prefs()
    chosen_kind = ProviderKind.parse(kind or settings.provider)
    saved = settings.providers.get(chosen_kind.value)
    if saved is not None:
        default_model, default_window, default_out = (
            saved.model, saved.window, saved.max_output_tokens)
    else:  # a kind the settings file has no section for (priced, not sent to)
        default_model = DEFAULT_MODELS.get(chosen_kind.pricing, "")
        default_window, default_out = DEFAULT_WINDOWS[chosen_kind], 4096
    return Target(
        chosen_kind,
        model=model or default_model,
        window=window or default_window,
        output_reserve=max_tokens or default_out,
        threshold=prefs.threshold,
        tier=tier or prefs.tier(chosen_kind.value),
        vision=vision,
        redactor=SecretRedactor(pixel_reader(prefs.ocr_images)) if redact else None,
        notes=(*settings.notes, *prefs.notes,
               *(missing_note(prefs.ocr_images) if redact else ())),
    )


def default_window(kind: str) -> int:
    """The window the settings name for ``kind`` (or the provider's default)."""
    saved = load_settings().providers.get(ProviderKind.parse(kind).value)
    return saved.window if saved is not None else DEFAULT_WINDOWS[ProviderKind.parse(kind)]
