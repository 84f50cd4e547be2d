"""Static checks of CUDA C/C++ sources: 32-bit index products that can pass 2**31, and barriers under branches that
depend on the thread index.

A light front end, not a compiler: comments, string literals and preprocessor lines are blanked (line numbers
kept), the rest is tokenized, function bodies are found by their braces, statements are split on ``;`` and braces,
and expressions are read by a small precedence parser. What it cannot read it skips: an unreadable construct costs
a missed finding, never a false one, and never an exception.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator

from .._findings import Finding
from ._cuda_parse import (
    _ARITH_CALLS,
    _ARITH_OPS,
    _ASSIGN_OPS,
    _BLOCK_BARRIERS,
    _BUILTINS,
    _COMPARE_OPS,
    _FULL_MASKS,
    _TYPE_WORDS,
    _Body,
    _brackets,
    _classify,
    _Cond,
    _Func,
    _functions,
    _Node,
    _split,
    _Stmt,
    _strip,
    _Tok,
    _tokenize,
    _Var,
)

# --- the checks ----------------------------------------------------------------------------------------------------


def _is_macro(name: str) -> bool:
    """A compile-time constant by naming convention: BLOCK, TILE_DIM, kBlockSize."""
    return bool(re.fullmatch(r"[A-Z][A-Z0-9_]*|k[A-Z]\w*", name.rsplit("::", 1)[-1]))


def _leaves(n: _Node) -> Iterator[_Node]:
    """Leaves reachable through arithmetic (casts, parentheses, + - * / % shifts bit-ops, ternary branches, min/max)."""
    if n.kind in ("paren", "cast") or (n.kind == "unary" and n.op in ("+", "-", "~")) or n.kind == "postfix":
        yield from _leaves(n.kids[0])
    elif n.kind == "binary" and n.op in _ARITH_OPS:
        yield from _leaves(n.kids[0])
        yield from _leaves(n.kids[1])
    elif n.kind == "ternary":
        yield from _leaves(n.kids[1])
        yield from _leaves(n.kids[2])
    elif n.kind == "call" and n.op in _ARITH_CALLS:
        for a in n.kids[1:]:
            yield from _leaves(a)
    else:
        yield n


def _builtin(n: _Node, names: frozenset[str] = _BUILTINS) -> bool:
    return n.kind == "member" and n.kids[0].kind == "name" and n.kids[0].op in names


_BLOCK_INDEX = frozenset({"blockIdx"})


def _display(key: str) -> str:
    return key.split("@", 1)[0]


def _base_name(n: _Node) -> str | None:
    while n.kind in ("index", "paren"):
        n = n.kids[0]
    return n.op if n.kind == "name" else None


class _Checker:
    def __init__(self, fn: _Func, toks: list[_Tok], match: dict[int, int], stripped: str, path: str,
                 line_of: dict[int, int] | None, barrier_calls: frozenset[str] = frozenset()):
        self.fn, self.toks, self.match, self.src, self.path = fn, toks, match, stripped, path
        self.line_of = line_of
        self.barrier_calls = barrier_calls  # the file's functions that reach a block barrier
        body = _Body(toks, match)
        self.params(body, fn)
        body.walk(fn.body[0], fn.body[1], ())
        self.vars, self.stmts, self.assigns, self.key = body.vars, body.stmts, body.assigns, body.key
        self.exits = body.exits
        self.consts = set(fn.consts)
        self.resolve()

    def params(self, body: _Body, fn: _Func) -> None:
        for a, b in _split(self.toks, self.match, fn.params[0], fn.params[1], ","):
            words = [t.text for t in self.toks[a:b]]
            if "=" in words:
                b = a + words.index("=")
                words = words[:b - a]
            ids = [i for i in range(a, b) if self.toks[i].kind == "id" and self.toks[i].text not in _TYPE_WORDS]
            if not ids or len(words) < 2:
                continue
            name = ids[-1]
            array = "[" in words[name - a:]
            base = words[:name - a]
            body.declare(self.toks[name].text, _Var(_classify(base, "*" in base, array), name, " ".join(base),
                                                    const="const" in base, array=array, param=True))

    def line(self, tok: int) -> int:
        ln = self.toks[tok].line
        return self.line_of.get(ln, ln) if self.line_of is not None else ln

    def text(self, lo: int, hi: int) -> str:
        if lo >= hi:
            return ""
        a, z = self.toks[lo].pos, self.toks[hi - 1].pos + len(self.toks[hi - 1].text)
        return " ".join(self.src[a:z].split())

    def ntext(self, n: _Node) -> str:
        return self.text(n.lo, n.hi)

    # facts --------------------------------------------------------------------------------------------------------

    def resolve(self) -> None:
        """Types of ``auto`` variables; compile-time constants; pointers into shared or local arrays; T: 32-bit ints
        derived from blockIdx (a grid-wide index: the thread index alone is bounded by the block size); V: values
        that vary across the threads of a block; L: values that vary across the lanes of a warp."""
        for _ in range(2):
            for a in self.assigns:
                v = self.vars.get(a.name)
                if v is not None and v.type == "auto" and a.rhs is not None:
                    t = self.ty(a.rhs)
                    if t in ("i32", "i64", "float", "ptr"):
                        v.type = t
        steps = ("++", "--")
        stepped = {key for k, key in self.key.items() if (k + 1 < len(self.toks) and self.toks[k + 1].text in steps)
                   or (k > 0 and self.toks[k - 1].text in steps)}
        constant: dict[str, bool] = {}  # locals only ever given compile-time constants: int vec = 4;
        for a in self.assigns:
            ok = a.op == "=" and a.rhs is not None and self.is_const(a.rhs)
            constant[a.name] = constant.get(a.name, True) and ok
        for name, ok in constant.items():
            v = self.vars.get(name)
            if ok and v is not None and not v.param and name not in stepped:
                self.consts.add(name)
        changed = True
        while changed:  # pointers into __shared__ or local arrays: small, never past 2**31
            changed = False
            for a in self.assigns:
                v = self.vars.get(a.name)
                if v is None or v.type != "ptr" or v.param or v.shared or a.rhs is None:
                    continue
                for x in a.rhs.walk():
                    w = self.vars.get(x.op) if x.kind == "name" else None
                    if w is not None and (w.shared or (w.array and not w.param)):
                        v.shared = changed = True
                        break
        self.thread: set[str] = set()
        changed = True
        while changed:
            changed = False
            for a in self.assigns:
                v = self.vars.get(a.name)
                if a.name in self.thread or v is None or v.type != "i32" or v.param:
                    continue
                if a.rhs is not None:
                    hit = any(self.is_block_index(x) for x in _leaves(a.rhs))
                else:
                    hit = any(t.text == "blockIdx" or self.key.get(k) in self.thread for k, t in
                              enumerate(self.toks[a.lo:a.hi], a.lo))
                if hit:
                    self.thread.add(a.name)
                    changed = True
        self.varying = self.fixed_point(lane=False)
        self.lane = self.fixed_point(lane=True)

    def fixed_point(self, lane: bool) -> set[str]:
        out: set[str] = set()
        changed = True
        while changed:
            changed = False
            for a in self.assigns:
                if a.name in out:
                    continue
                if self.depends(a.lo, a.hi, out, lane) or (not lane and any(self.cond_varies(c, out) for c in a.conds)):
                    out.add(a.name)
                    changed = True
        return out

    def depends(self, lo: int, hi: int, names: set[str], lane: bool) -> bool:
        """Whether tokens [lo, hi) depend on the thread index (lane: on threadIdx.x within a warp)."""
        toks = self.toks
        if lo < hi and toks[lo].text in _BLOCK_BARRIERS:  # __syncthreads_or(...) and co. are block-uniform
            return False
        if lane and any(t.text in ("/", ">>", "/=", ">>=") for t in toks[lo:hi]):
            return False
        for k in range(lo, hi):
            if self.key.get(k) in names:
                return True
            if toks[k].text == "threadIdx" and (not lane or (k + 2 < hi and toks[k + 2].text == "x")):
                return True
        return False

    def cond_varies(self, c: _Cond, names: set[str] | None = None, lane: bool = False) -> bool:
        return self.depends(c.lo, c.hi, self.varying if names is None else names, lane)

    def diverges(self, c: _Cond) -> bool:
        """Threads of one block take the branch (or run the loop) differently: its condition depends on the thread
        index, and it is not a block- or grid-stride loop (``strided_loop``)."""
        return self.cond_varies(c) and not (c.kind == "for" and self.strided_loop(c))

    def strided_loop(self, c: _Cond) -> bool:
        """``for (i = threadIdx.x; i < bound; i += stride)`` with bound and stride the same in every thread: a block-
        or grid-stride loop, whose trip count differs by at most one and which authors round up when it holds a
        barrier (``round_up(n, blockDim.x)``). Not flagged: the fewer false alarms."""
        toks = self.toks
        lo, hi = c.step
        induction = {self.key[k] for k in range(lo, hi) if k in self.key and (
            (k + 1 < hi and toks[k + 1].text in _ASSIGN_OPS | {"++", "--"}) or (k > lo and toks[k - 1].text in
                                                                               ("++", "--")))}
        if not induction:
            return False
        others = self.varying - induction
        return not self.depends(c.lo, c.hi, others, False) and not self.depends(lo, hi, others, False)

    def is_block_index(self, x: _Node) -> bool:
        return _builtin(x, _BLOCK_INDEX) or (x.kind == "name" and x.op in self.thread)

    def ty(self, n: _Node) -> str:
        k = n.kind
        if k == "num":
            s = n.op.lower().replace("'", "")
            if s.startswith("0x"):
                return "i64" if "l" in s else "i32"
            if "." in s or "e" in s or s.endswith(("f", "h")):
                return "float"
            return "i64" if "l" in s else "i32"
        if k == "const":
            return "i64"  # sizeof is a size_t
        if k == "name":
            v = self.vars.get(n.op)
            if v is not None:
                return v.type
            return "i32" if n.op in self.consts or _is_macro(n.op) else "?"
        if k == "member":
            return "i32" if _builtin(n) else "?"
        if k == "cast":
            return _classify(list(n.type_words), "*" in n.type_words, False)
        if k in ("paren", "postfix"):
            return self.ty(n.kids[0])
        if k == "unary":
            return {"&": "ptr", "*": "?", "!": "i32"}.get(n.op) or self.ty(n.kids[0])
        if k == "binary":
            if n.op in _COMPARE_OPS:
                return "i32"
            if n.op in _ASSIGN_OPS or n.op in ("<<", ">>"):
                return self.ty(n.kids[0])
            if n.op == ",":
                return self.ty(n.kids[1])
            a, b = self.ty(n.kids[0]), self.ty(n.kids[1])
            if n.op in ("+", "-") and "ptr" in (a, b):
                return "ptr"
            return _combine(a, b)
        if k == "ternary":
            return _combine(self.ty(n.kids[1]), self.ty(n.kids[2]))
        if k == "call" and n.op in _ARITH_CALLS and len(n.kids) > 1:
            t = self.ty(n.kids[1])
            for arg in n.kids[2:]:
                t = _combine(t, self.ty(arg))
            return t
        return "?"

    def is_const(self, n: _Node) -> bool:
        if n.kind in ("num", "const", "str"):
            return True
        if n.kind == "name":
            return n.op in self.consts or (n.op not in self.vars and _is_macro(n.op))
        if n.kind in ("paren", "cast", "unary", "binary", "ternary"):
            return all(self.is_const(k) for k in n.kids)
        return False

    def is_thread(self, n: _Node) -> bool:
        return any(self.is_block_index(x) for x in _leaves(n))

    def dim_leaf(self, n: _Node) -> _Node | None:
        """A runtime 32-bit size in n: a non-constant int variable or parameter not derived from the thread index."""
        for x in _leaves(n):
            v = self.vars.get(x.op) if x.kind == "name" else None
            if v is not None and v.type == "i32" and x.op not in self.thread and x.op not in self.consts \
                    and not _is_macro(x.op):
                return x
        return None

    def local_array(self, n: _Node) -> bool:
        name = _base_name(n)
        v = self.vars.get(name) if name else None
        return v is not None and (v.shared or (v.array and not v.param))

    # rule 1 ------------------------------------------------------------------------------------------------------

    def context(self, n: _Node, index_vars: set[str] | None) -> str | None:
        """Where the arithmetic holding n ends: 'indexes `a`', 'offsets pointer `p`', 'feeds index `off`', or None."""
        path = [n]
        while (p := path[-1].parent) is not None:
            last = path[-1]
            if p.kind in ("paren", "cast", "postfix") or (p.kind == "unary" and p.op in ("+", "-", "~")) \
                    or (p.kind == "binary" and p.op in _ARITH_OPS) or (p.kind == "ternary" and last is not p.kids[0]) \
                    or (p.kind == "call" and p.op in _ARITH_CALLS and last is not p.kids[0]):
                path.append(p)
            else:
                break
        for below, x in itertools.pairwise(path):
            if x.kind == "binary" and x.op in ("+", "-"):
                other = x.kids[0] if x.kids[1] is below else x.kids[1]
                if self.ty(other) == "ptr" and not self.local_array(other):
                    return f"offsets pointer `{self.ntext(other)}`"
        top = path[-1]
        p = top.parent
        if p is None:
            return None
        if p.kind == "index" and p.kids[1] is top:
            if self.local_array(p.kids[0]):
                return None
            return f"indexes `{self.ntext(p.kids[0])}`"
        if p.kind == "binary" and p.op in ("=", "+=", "-=") and p.kids[1] is top and p.kids[0].kind == "name":
            target = p.kids[0].op
            v = self.vars.get(target)
            if v is not None and v.type == "ptr" and not (v.shared or (v.array and not v.param)):
                return f"offsets pointer `{target}`"
            if index_vars is not None and target in index_vars:
                return f"feeds the index `{_display(target)}`"
        return None

    def index_vars(self) -> set[str]:
        out: set[str] = set()
        for s in self.stmts:
            for tree in s.trees:
                for x in tree.walk():
                    v = self.vars.get(x.op) if x.kind == "name" else None
                    if v is not None and v.type in ("i32", "i64") and self.context(x, None) is not None:
                        out.add(x.op)
        changed = True
        while changed:
            changed = False
            for a in self.assigns:
                if a.name not in out or a.rhs is None:
                    continue
                for x in _leaves(a.rhs):
                    v = self.vars.get(x.op) if x.kind == "name" else None
                    if v is not None and v.type in ("i32", "i64") and x.op not in out:
                        out.add(x.op)
                        changed = True
        return out

    def overflow(self) -> list[Finding]:
        index_vars = self.index_vars()
        found: list[Finding] = []
        flagged: set[int] = set()
        for s in self.stmts:
            for tree in s.trees:
                for p in _postorder(tree):
                    if p.kind != "binary" or p.op != "*" or self.ty(p) != "i32":
                        continue
                    if any(id(x) in flagged for x in p.walk()):  # report the innermost product only
                        continue
                    left, right = p.kids
                    dim = self.dim_leaf(right) if self.is_thread(left) else None
                    thread, other = left, right
                    if dim is None and self.is_thread(right):
                        dim, thread, other = self.dim_leaf(left), right, left
                    if dim is None:
                        continue
                    where = self.context(p, index_vars)
                    if where is None:
                        continue
                    flagged.add(id(p))
                    found.append(self.overflow_finding(p, thread, other, where))
        return found

    def overflow_finding(self, p: _Node, thread: _Node, other: _Node, where: str) -> Finding:
        tleaf = next(x for x in _leaves(thread) if self.is_block_index(x))
        if tleaf.kind == "name":
            v = self.vars[tleaf.op]
            who = (f"`{_display(tleaf.op)}` is a 32-bit `{v.words}` derived from blockIdx (declared at line "
                   f"{self.line(v.tok)})")
        else:
            who = f"`{self.ntext(tleaf)}` is a 32-bit unsigned"
        t = self.ntext(thread)
        cast = f"(int64_t){t}" if thread.kind in ("name", "member", "paren") else f"(int64_t)({t})"
        msg = (f"`{self.ntext(p)}` {where} and is computed in 32 bits ({who}): it wraps once the product passes 2^31; "
               f"cast an operand to 64 bits first, e.g. `{cast} * {self.ntext(other)}`, or declare it int64_t/size_t")
        return Finding(tool="lint", kind="int32-index-overflow", severity="error", message=msg, kernel=self.fn.name,
                       file=self.path, line=self.line(p.at))

    # rule 4 ------------------------------------------------------------------------------------------------------

    def barriers(self) -> list[Finding]:
        found: list[Finding] = []
        toks = self.toks
        for s in self.stmts:
            for k in range(s.lo, s.hi):
                name = toks[k].text
                through = name in self.barrier_calls and name not in _BLOCK_BARRIERS  # a helper that reaches one
                barrier = through or name in _BLOCK_BARRIERS or name == "__syncwarp"
                if not barrier or _call_paren(toks, k, s.hi) is None:
                    continue
                if name == "__syncwarp":
                    c = self.match.get(k + 1, -1)
                    mask = "".join(t.text for t in toks[k + 2:c]).lower() if c > 0 else "?"
                    if mask and mask not in _FULL_MASKS:
                        continue
                    bad = [c for c in s.conds if self.cond_varies(c, self.lane, lane=True)]
                else:
                    bad = [c for c in s.conds if self.diverges(c)]
                if bad:
                    found.append(self.barrier_finding(name, k, bad[-1], through=through))
                elif name in _BLOCK_BARRIERS:
                    exit_ = self.exit_before(k, s)
                    if exit_ is not None:
                        found.append(self.exit_finding(name, k, *exit_))
        return found

    def exit_before(self, k: int, s: _Stmt) -> tuple[int, _Cond, int] | None:
        """A ``return`` that a thread-dependent branch takes before the barrier at ``k`` (outside that branch), with a
        store to a shared array between the two: (the return's token, its branch, the store's token)."""
        toks = self.toks
        for ret, conds in self.exits:
            if ret >= k:
                break
            bad = [c for c in conds if c not in s.conds and self.diverges(c)]
            if not bad:
                continue
            for j in range(ret, k - 1):
                v = self.vars.get(self.key.get(j, "")) if toks[j].kind == "id" else None
                if v is None or not v.shared or toks[j + 1].text != "[":
                    continue
                close = self.match.get(j + 1, -1)
                if 0 < close < k - 1 and toks[close + 1].text in _ASSIGN_OPS:
                    return ret, bad[-1], j
        return None

    def exit_finding(self, name: str, k: int, ret: int, c: _Cond, store: int) -> Finding:
        cond = self.text(c.lo, c.hi)
        msg = (f"`return` under `{cond}` (line {self.line(ret)}), which depends on the thread index, comes before "
               f"the store to shared `{self.toks[store].text}` (line {self.line(store)}) and `{name}()`: the threads "
               "that leave never stage their slots of it, which the others may read after the barrier (a halo, a "
               "tail), and before Volta they never arrive at the barrier; keep every thread to the barrier and guard "
               "only its global loads and stores")
        return Finding(tool="lint", kind="divergent-barrier", severity="warning", message=msg, kernel=self.fn.name,
                       file=self.path, line=self.line(ret))

    def barrier_finding(self, name: str, k: int, c: _Cond, through: bool = False) -> Finding:
        cond = self.text(c.lo, c.hi)
        line = self.line_of.get(c.line, c.line) if self.line_of is not None else c.line
        if through:
            where = f"a loop whose condition `{cond}`" if c.kind in ("for", "while", "do") else f"a branch on `{cond}`"
            msg = (f"`{name}()`, which reaches `__syncthreads()`, is called inside {where}"
                   + f" (line {line}), which depends on the thread index: the threads that do not make the call never "
                   "reach its barrier (deadlock or undefined behaviour); call it from every thread of the block and "
                   "keep only the work that differs inside the branch")
        elif name == "__syncwarp":
            msg = (f"`__syncwarp()` with the full mask inside a branch on `{cond}` (line {line}), which differs "
                   "between the lanes of a warp: lanes that skip it never arrive (undefined behaviour); pass the mask "
                   "of the lanes that take the branch (__ballot_sync) or move the call out of the branch")
        elif c.kind in ("for", "while", "do"):
            msg = (f"`{name}()` inside a loop whose condition `{cond}` (line {line}) depends on the thread index: "
                   "threads run different trip counts and reach the barrier a different number of times (deadlock or "
                   "undefined behaviour); loop to a block-uniform bound and guard the work inside instead")
        else:
            msg = (f"`{name}()` inside a branch on `{cond}` (line {line}), which depends on the thread index: the "
                   "threads that skip the branch never reach the barrier (deadlock or undefined behaviour); move the "
                   "barrier out of the branch so every thread of the block reaches it")
        return Finding(tool="lint", kind="divergent-barrier", severity="error", message=msg, kernel=self.fn.name,
                       file=self.path, line=self.line(k))


def _call_paren(toks: list[_Tok], k: int, hi: int) -> int | None:
    """The index of the ``(`` that opens a call of the identifier at ``k`` (``f(`` or ``f<...>(``), else None."""
    if toks[k].kind != "id" or k + 1 >= hi or (k > 0 and toks[k - 1].text in (".", "->")):
        return None
    if toks[k + 1].text == "(":
        return k + 1
    if toks[k + 1].text == "<":  # a template call: the first '>' then '(' within a few tokens
        for j in range(k + 2, min(hi - 1, k + 12)):
            if toks[j].text in (";", "{", "}"):
                return None
            if toks[j].text == ">" and toks[j + 1].text == "(":
                return j + 1
    return None


def _barrier_functions(fns: list[_Func], toks: list[_Tok]) -> frozenset[str]:
    """The functions of the file whose body calls a block barrier, itself or through others of them."""
    calls = {fn.name: {toks[k].text for k in range(fn.body[0], fn.body[1])
                       if _call_paren(toks, k, fn.body[1]) is not None} for fn in fns}
    reach = {name for name, called in calls.items() if called & _BLOCK_BARRIERS}
    while True:
        more = {name for name, called in calls.items() if name not in reach and called & reach}
        if not more:
            return frozenset(reach)
        reach |= more


def _postorder(n: _Node) -> Iterator[_Node]:
    for k in n.kids:
        yield from _postorder(k)
    yield n


def _combine(a: str, b: str) -> str:
    if "i64" in (a, b):
        return "i64"
    if "float" in (a, b):
        return "float"
    return "i32" if a == b == "i32" else "?"


def lint_cuda(text: str, path: str, line_of: dict[int, int] | None = None) -> list[Finding]:
    """Findings of rules 1 (int32-index-overflow) and 4 (divergent-barrier) in CUDA C/C++ source ``text``.

    ``line_of`` maps the text's line numbers to the file's (for CUDA sources embedded in Python strings).
    """
    stripped = _strip(text)
    toks = _tokenize(stripped)
    match = _brackets(toks)
    findings: list[Finding] = []
    seen: set[tuple[str, int | None]] = set()
    fns = list(_functions(toks, match))
    barrier_calls = _barrier_functions(fns, toks)
    for fn in fns:
        try:
            checker = _Checker(fn, toks, match, stripped, path, line_of, barrier_calls)
            found = checker.overflow() + checker.barriers()
        except RecursionError:
            continue
        for f in found:
            if (f.kind, f.line) not in seen:
                seen.add((f.kind, f.line))
                findings.append(f)
    return findings
