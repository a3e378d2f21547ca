"""Money and token counts in words, the same in the command line, the window and a shared page.

The command line's tables keep four decimals; a chip on the graph keeps three (cents of
cents are noise there); tokens read as 12.3k or 6.1M. A total with no priced answer says
"no price" rather than $0.
"""

from __future__ import annotations

from explorer.app.costs.tally import Tally


def money(usd: float | None, decimals: int = 4) -> str:
    """``$0.1469``, ``$5.0681`` (the tables' exact figure), or ``no price``."""
    return "no price" if usd is None else f"${usd:,.{decimals}f}"


def short_money(usd: float | None, decimals: int = 4) -> str:
    """``$0.1469`` below a dollar, ``$12.30`` above: a figure read in passing."""
    return money(usd, decimals if usd is None or usd < 1 else 2)


def tokens(n: int) -> str:
    return f"{n / 1e6:.1f}M" if n >= 1e6 else f"{n / 1e3:.1f}k" if n >= 1e3 else str(n)


def cost_words(total: Tally) -> str:
    """``$0.1469 · 30.0k tokens · 2 estimated``: the status bar's and a compare column's line."""
    out = f"{short_money(total.usd)} · {tokens(total.tokens)} tokens"
    if total.estimated:
        out += f" · {len(total.estimated)} estimated"
    return out


def short_cost(t: Tally) -> str:
    """``$0.042``, or ``12.3k tok`` when nothing on it has a price: a chip on the graph."""
    usd = t.usd
    if usd is not None and (usd > 0 or t.tokens == 0):
        return short_money(usd, 3)
    return f"{tokens(t.tokens)} tok"
