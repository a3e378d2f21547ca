"""Operations: every action declared once (O1), and what lists them."""

from explorer.app.ops.catalog import BY_ID, OPERATIONS, op
from explorer.app.ops.spec import OpSpec

__all__ = ["BY_ID", "OPERATIONS", "OpSpec", "op"]
