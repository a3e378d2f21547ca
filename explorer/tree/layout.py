"""Tidy tree layout (Buchheim, Jünger and Leipert's linear-time version of Walker's algorithm).

Both walks run over explicit orders instead of recursion: conversation paths are
thousands of messages deep, far past Python's recursion limit. Nodes are indices
0..n-1; children keep the order in which they appear in the input, so the picture
of a tree is stable from one run to the next. Several roots are laid side by side
as children of one virtual root, which packs them as tightly as siblings.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass

SEPARATION = 1.0


@dataclass(frozen=True)
class TreeLayout:
    """Column (``xs``, the leftmost node at 0) and depth (roots at 0) of every node."""

    xs: array[float]
    depths: array[int]

    @property
    def width(self) -> float:
        return max(self.xs, default=-1.0) + 1.0

    @property
    def height(self) -> int:
        return max(self.depths, default=-1) + 1


def tidy_layout(parents: Sequence[int]) -> TreeLayout:
    """Lay out the forest given by parent indices (-1, or any index out of range, for a root).

    Cycles are cut where they are found, so malformed input still gets a picture.
    """
    n = len(parents)
    if n == 0:
        return TreeLayout(array("d"), array("i"))
    par = _rooted_parents(parents)  # virtual root n is the parent of every root
    kids = _children(par, n + 1)
    post = _post_order(kids, n)
    prelim, mod = _first_walk(par, kids, post, n + 1)
    xs = array("d", [0.0]) * n
    depths = array("i", [0]) * n
    modsum = [0.0] * (n + 1)
    depth = [-1] * (n + 1)
    for v in reversed(post):  # parents before children
        p = par[v]
        if p < 0:
            continue
        modsum[v] = modsum[p] + mod[p]
        depth[v] = depth[p] + 1
        xs[v] = prelim[v] + modsum[v]
        depths[v] = depth[v]
    left = min(xs)
    if left:
        for i in range(n):
            xs[i] -= left
    return TreeLayout(xs, depths)


def layout_ids(ids: Sequence[int], parent_ids: Sequence[int | None]) -> TreeLayout:
    """``tidy_layout`` keyed by ids: a parent id that is not among ``ids`` makes a root."""
    index = {mid: i for i, mid in enumerate(ids)}
    return tidy_layout([-1 if p is None else index.get(p, -1) for p in parent_ids])


def _rooted_parents(parents: Sequence[int]) -> list[int]:
    """Parents with roots (and one node of every cycle) attached to the virtual root ``n``."""
    n = len(parents)
    par = [p if 0 <= p < n and p != i else n for i, p in enumerate(parents)]
    par.append(-1)
    state = [0] * n  # 0 unknown, 1 on the walk being traced, 2 reaches the virtual root
    for start in range(n):
        walk = []
        v = start
        while v != n and state[v] == 0:
            state[v] = 1
            walk.append(v)
            v = par[v]
        if v != n and state[v] == 1:  # the walk closed a cycle at v: cut it there
            par[v] = n
        for w in walk:
            state[w] = 2
    return par


def _children(par: list[int], size: int) -> list[list[int]]:
    kids: list[list[int]] = [[] for _ in range(size)]
    for v, p in enumerate(par):
        if p >= 0:
            kids[p].append(v)
    return kids


def _post_order(kids: list[list[int]], root: int) -> list[int]:
    """Children left to right, each subtree before its parent."""
    order: list[int] = []
    stack = [root]
    while stack:
        v = stack.pop()
        order.append(v)
        stack.extend(kids[v])  # popped right to left, so the reversal runs left to right
    order.reverse()
    return order


def _first_walk(
    par: list[int], kids: list[list[int]], post: list[int], size: int
) -> tuple[list[float], list[float]]:
    """Preliminary x and modifier of every node (Buchheim et al., FIRSTWALK).

    APPORTION and EXECUTESHIFTS are written inline: this loop runs once per node
    and a call per node would cost a third of the layout time.
    """
    prelim = [0.0] * size
    mod = [0.0] * size
    shift = [0.0] * size
    change = [0.0] * size
    thread = [-1] * size
    ancestor = list(range(size))
    number = [0] * size  # position among siblings
    for k in kids:
        for i, c in enumerate(k):
            number[c] = i
    default_anc = [k[0] if k else -1 for k in kids]
    sep = SEPARATION
    for v in post:
        k = kids[v]
        p = par[v]
        nv = number[v]
        left = kids[p][nv - 1] if nv > 0 else -1
        if k:
            total = ch = 0.0  # EXECUTESHIFTS
            for w in reversed(k):
                prelim[w] += total
                mod[w] += total
                ch += change[w]
                total += shift[w] + ch
            mid = (prelim[k[0]] + prelim[k[-1]]) / 2.0
            if left >= 0:
                prelim[v] = prelim[left] + sep
                mod[v] = prelim[v] - mid
            else:
                prelim[v] = mid
        elif left >= 0:
            prelim[v] = prelim[left] + sep
        if left < 0:
            continue
        # APPORTION: push v's subtree right until its left contour clears its left siblings.
        vip = vop = v
        vim, vom = left, kids[p][0]
        sip, sop, sim, som = mod[vip], mod[vop], mod[vim], mod[vom]
        while True:
            k = kids[vim]
            nr_im = k[-1] if k else thread[vim]
            k = kids[vip]
            nl_ip = k[0] if k else thread[vip]
            if nr_im < 0 or nl_ip < 0:
                break
            vim, vip = nr_im, nl_ip
            k = kids[vom]
            vom = k[0] if k else thread[vom]
            k = kids[vop]
            vop = k[-1] if k else thread[vop]
            ancestor[vop] = v
            gap = (prelim[vim] + sim) - (prelim[vip] + sip) + sep
            if gap > 0:  # MOVESUBTREE
                a = ancestor[vim]
                wl = a if par[a] == p else default_anc[p]
                per = gap / (nv - number[wl])
                change[v] -= per
                shift[v] += gap
                change[wl] += per
                prelim[v] += gap
                mod[v] += gap
                sip += gap
                sop += gap
            sim += mod[vim]
            sip += mod[vip]
            som += mod[vom]
            sop += mod[vop]
        if nr_im >= 0 and not kids[vop] and thread[vop] < 0:
            thread[vop] = nr_im
            mod[vop] += sim - sop
        if nl_ip >= 0 and not kids[vom] and thread[vom] < 0:
            thread[vom] = nl_ip
            mod[vom] += sip - som
            default_anc[p] = v
    return prelim, mod
