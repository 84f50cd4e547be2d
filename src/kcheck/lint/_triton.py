"""Static checks of Triton kernels (Python ``ast``): program-id offsets computed in int32, unmasked accesses whose
offsets grow with the program id (or with a loop over a runtime bound), module-level values that only the
interpreter lets a kernel read.

Each ``@triton.jit`` function is walked once in source order (loops twice, so that loop-carried values settle),
keeping for every local name a few facts about its value: does it depend on ``tl.program_id``, is it int64, does it
hold a runtime size or stride, which ``tl.arange`` vectors it holds and which of them are shifted by a base that
grows with the program id or a loop, and which suspect int32 products flowed into it. The checks fire where a
value reaches the pointer of ``tl.load``/``tl.store``/``tl.atomic_*``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace

from .._findings import Finding

_TL = "triton.language."
_ACCESSES = frozenset({"load", "store", "atomic_add", "atomic_max", "atomic_min", "atomic_and", "atomic_or",
                       "atomic_xor", "atomic_xchg", "atomic_cas"})
_PASSTHROUGH = frozenset({"broadcast_to", "reshape", "view", "expand_dims", "multiple_of", "max_contiguous",
                          "max_constancy", "trans", "permute", "ravel", "broadcast", "flip"})
_BOUNDING = frozenset({"minimum", "maximum", "clamp"})
_INT64 = frozenset({_TL + "int64", _TL + "uint64"})
_INT32 = frozenset({_TL + "int32", _TL + "uint32", _TL + "int16", _TL + "int8"})


@dataclass(frozen=True)
class _Val:
    """What the walk knows about a value."""

    pid: bool = False  # depends on tl.program_id
    i64: bool = False  # int64 (a cast, or arithmetic with an int64 operand)
    rt: bool = False  # holds a runtime (non-constexpr) size or stride: an element count, not a program count
    const: bool = False  # compile-time: literals, tl.constexpr parameters, globals
    gs: bool = False  # a scalar that grows with the program id or a loop over a runtime bound, in index units (not
    #                   yet scaled by a runtime stride): added to a tl.arange, it shifts that vector's lanes
    vec: frozenset[str] = frozenset()  # tl.arange vectors it holds, by their arguments ("0, BLOCK_N")
    grow: frozenset[str] = frozenset()  # those of vec shifted by a growing base
    prods: frozenset[int] = frozenset()  # program id x runtime stride products, in int32, that flowed in
    cprods: frozenset[int] = frozenset()  # program id x constexpr products, in int32, not cast to int64 since
    sprods: frozenset[int] = frozenset()  # products of two runtime int32 arguments (M * N), that flowed in
    bptr: tuple[bool, ...] | None = None  # a block pointer: which dimensions' offsets grow with the program id


_CONST = _Val(const=True)
_NONE = _Val()


def _join(*vals: _Val) -> _Val:
    if not vals:
        return _NONE
    bptr = next((v.bptr for v in vals if v.bptr is not None), None)
    return _Val(pid=any(v.pid for v in vals), i64=any(v.i64 for v in vals), rt=any(v.rt for v in vals),
                const=all(v.const for v in vals), gs=any(v.gs for v in vals),
                vec=frozenset().union(*(v.vec for v in vals)), grow=frozenset().union(*(v.grow for v in vals)),
                prods=frozenset().union(*(v.prods for v in vals)), cprods=frozenset().union(*(v.cprods for v in vals)),
                sprods=frozenset().union(*(v.sprods for v in vals)), bptr=bptr)


class _Module:
    """Import aliases, to resolve ``tl.load``, ``triton.language.load``, ``from triton import jit`` alike."""

    def __init__(self, tree: ast.Module):
        self.alias: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        self.alias[a.asname] = a.name
                    else:
                        root = a.name.split(".")[0]
                        self.alias[root] = root
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for a in node.names:
                    self.alias[a.asname or a.name] = f"{node.module}.{a.name}"
        self.alias.setdefault("tl", "triton.language")
        self.alias.setdefault("triton", "triton")

    def qual(self, e: ast.AST | None) -> str | None:
        parts: list[str] = []
        while isinstance(e, ast.Attribute):
            parts.append(e.attr)
            e = e.value
        if not isinstance(e, ast.Name) or e.id not in self.alias:
            return None
        return ".".join([self.alias[e.id], *reversed(parts)])

    def is_jit(self, fn: ast.FunctionDef) -> bool:
        for d in fn.decorator_list:
            q = self.qual(d.func if isinstance(d, ast.Call) else d)
            if q and q.startswith("triton") and q.split(".")[-1] == "jit":
                return True
        return False

    def tl(self, e: ast.AST | None) -> str | None:
        """``load`` for tl.load / triton.language.load / triton.language.core.load, else None."""
        q = self.qual(e)
        if q is None or not q.startswith(_TL):
            return None
        return q.rsplit(".", 1)[-1]


@dataclass
class _Product:
    node: ast.BinOp
    pid_side: ast.expr
    other: ast.expr
    stride: bool  # True: times a runtime stride (error); False: times a constexpr (warning)
    sink: int | None = None  # line of the first access whose pointer it reached


@dataclass
class _SizeProduct:
    node: ast.BinOp
    sink: int | None = None  # line of the first mask, pointer or branch it reached


@dataclass
class _Kernel:
    fn: ast.FunctionDef
    mod: _Module
    path: str
    env: dict[str, _Val] = field(default_factory=dict)
    constexpr: set[str] = field(default_factory=set)
    products: dict[int, _Product] = field(default_factory=dict)
    sizes: dict[int, _SizeProduct] = field(default_factory=dict)  # M * N products, by key
    params: set[str] = field(default_factory=set)  # the runtime arguments not annotated int64
    keys: dict[tuple[int, int, int], int] = field(default_factory=dict)
    findings: dict[tuple[str, int], Finding] = field(default_factory=dict)
    atomics: dict[str, int] = field(default_factory=dict)  # pointer expression -> line of its first atomic update
    runtime_loops: int = 0
    exempt: int = 0  # inside a constexpr branch whose sibling holds the checked version of the access
    masks: bool = False  # the kernel masks (or bounds-checks) some access: it knows about tails

    def run(self) -> list[Finding]:
        args = self.fn.args
        for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
            ann = a.annotation
            name = ann.value if isinstance(ann, ast.Constant) and isinstance(ann.value, str) else \
                (self.mod.qual(ann) or (ast.unparse(ann) if ann is not None else ""))
            if name.split(".")[-1] == "constexpr":
                self.constexpr.add(a.arg)
                self.env[a.arg] = _CONST
            else:  # a runtime argument; annotated int64 ("i64", tl.int64) it is 64-bit
                self.env[a.arg] = _Val(rt=True, i64=name in _INT64 or name in ("i64", "u64", "tl.int64"))
                if not self.env[a.arg].i64:
                    self.params.add(a.arg)
        self.masks = self.checked(self.fn.body)
        self.block(self.fn.body)
        for p in self.products.values():
            if p.sink is not None:
                self.product_finding(p)
        for q in self.sizes.values():
            if q.sink is not None:
                self.size_finding(q)
        return sorted(self.findings.values(), key=lambda f: (f.line or 0, f.kind))

    # statements -----------------------------------------------------------------------------------------------

    def block(self, body: list[ast.stmt]) -> None:
        for s in body:
            self.stmt(s)

    def assign(self, target: ast.expr, value: _Val, node: ast.expr | None = None) -> None:
        if isinstance(target, ast.Name):
            self.env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            elts = node.elts if isinstance(node, (ast.Tuple, ast.List)) and len(node.elts) == len(target.elts) \
                else None
            for i, t in enumerate(target.elts):
                self.assign(t, self.ev(elts[i]) if elts is not None else value)

    def stmt(self, s: ast.stmt) -> None:
        if isinstance(s, ast.Assign):
            if len(s.targets) == 1 and isinstance(s.targets[0], (ast.Tuple, ast.List)) \
                    and isinstance(s.value, (ast.Tuple, ast.List)):
                self.assign(s.targets[0], _NONE, s.value)
                return
            v = self.ev(s.value)
            for t in s.targets:
                self.assign(t, v)
        elif isinstance(s, ast.AnnAssign):
            if s.value is not None:
                self.assign(s.target, self.ev(s.value))
        elif isinstance(s, ast.AugAssign):
            right = self.ev(s.value)
            if isinstance(s.target, ast.Name):
                left = self.env.get(s.target.id, _NONE)
                v = self.binop(ast.BinOp(s.target, s.op, s.value, lineno=s.lineno, col_offset=s.col_offset), left,
                               right)
                self.env[s.target.id] = v
        elif isinstance(s, ast.For):
            self.loop(s)
        elif isinstance(s, ast.While):
            runtime = not self.ev(s.test).const
            self.runtime_loops += runtime
            for _ in range(2):
                self.block(s.body)
            self.runtime_loops -= runtime
            self.block(s.orelse)
        elif isinstance(s, ast.If):
            self.branch(s)
        elif isinstance(s, (ast.Expr, ast.Return)):
            if s.value is not None:
                self.ev(s.value)
        elif isinstance(s, ast.With):
            self.block(s.body)
        elif isinstance(s, ast.Try):
            for b in (s.body, *(h.body for h in s.handlers), s.orelse, s.finalbody):
                self.block(b)

    def loop(self, s: ast.For) -> None:
        it = s.iter
        bounds = it.args if isinstance(it, ast.Call) else [it]
        fname = it.func.id if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) else self.mod.tl(
            it.func if isinstance(it, ast.Call) else None)
        vals = [self.ev(b) for b in bounds]
        runtime = fname != "static_range" and not all(v.const for v in vals)
        self.assign(s.target, replace(_join(*vals), vec=frozenset(), grow=frozenset(), gs=runtime, const=not runtime,
                                      rt=False, bptr=None))
        self.runtime_loops += runtime
        for _ in range(2):
            self.block(s.body)
        self.runtime_loops -= runtime
        self.block(s.orelse)

    def branch(self, s: ast.If) -> None:
        self.reach_size(self.ev(s.test), s.lineno)
        const = self.const_test(s.test)
        body_checked, else_checked = self.checked(s.body), self.checked(s.orelse)
        before = dict(self.env)
        self.exempt += const and else_checked
        self.block(s.body)
        self.exempt -= const and else_checked
        after_body, self.env = self.env, dict(before)
        self.exempt += const and body_checked
        self.block(s.orelse)
        self.exempt -= const and body_checked
        for k, v in after_body.items():
            self.env[k] = _join(v, self.env[k]) if k in self.env else v

    def const_test(self, test: ast.expr) -> bool:
        return all(isinstance(n, ast.Name) and (n.id in self.constexpr or n.id not in self.env)
                   for n in ast.walk(test) if isinstance(n, ast.Name))

    def checked(self, body: list[ast.stmt]) -> bool:
        """Whether body holds a masked or bounds-checked access (the checked twin of an EVEN_K fast path)."""
        for s in body:
            for n in ast.walk(s):
                if isinstance(n, ast.Call) and self.mod.tl(n.func) in _ACCESSES:
                    op = self.mod.tl(n.func)
                    if any(k.arg in ("mask", "boundary_check") for k in n.keywords) or \
                            len(n.args) > (1 if op == "load" else 2):
                        return True
        return False

    # expressions ----------------------------------------------------------------------------------------------

    def ev(self, e: ast.expr | None) -> _Val:
        if e is None:
            return _NONE
        if isinstance(e, ast.Constant):
            return _CONST
        if isinstance(e, ast.Name):
            return self.env.get(e.id, _CONST)  # not a local nor a parameter: a global, a constexpr to Triton
        if isinstance(e, ast.BinOp):
            return self.binop(e, self.ev(e.left), self.ev(e.right))
        if isinstance(e, ast.UnaryOp):
            return self.ev(e.operand)
        if isinstance(e, ast.BoolOp):
            return _join(*(self.ev(v) for v in e.values))
        if isinstance(e, ast.Compare):
            return _join(self.ev(e.left), *(self.ev(c) for c in e.comparators))
        if isinstance(e, ast.IfExp):
            self.ev(e.test)
            const = self.const_test(e.test)
            body_checked = self.checked([ast.Expr(e.body)])
            else_checked = self.checked([ast.Expr(e.orelse)])
            self.exempt += const and else_checked
            a = self.ev(e.body)
            self.exempt -= const and else_checked
            self.exempt += const and body_checked
            b = self.ev(e.orelse)
            self.exempt -= const and body_checked
            return _join(a, b)
        if isinstance(e, ast.Subscript):
            self.ev(e.slice)
            return self.ev(e.value)
        if isinstance(e, ast.Attribute):
            if e.attr in ("dtype", "element_ty", "shape", "type"):
                return _NONE
            return self.ev(e.value)
        if isinstance(e, ast.Call):
            return self.call(e)
        if isinstance(e, (ast.Tuple, ast.List)):
            return _join(*(self.ev(x) for x in e.elts))
        for child in ast.iter_child_nodes(e):
            if isinstance(child, ast.expr):
                self.ev(child)
        return _NONE

    def binop(self, e: ast.BinOp, left: _Val, right: _Val) -> _Val:
        v = _join(left, right)
        op = e.op
        if isinstance(op, (ast.Add, ast.Sub)):
            grow = v.grow | (left.vec if right.gs else frozenset()) | (right.vec if left.gs else frozenset())
            return replace(v, grow=grow, gs=v.gs and not v.vec)  # a growing base added to a vector: absorbed
        if isinstance(op, ast.Mult):
            # two runtime integer arguments multiplied: Triton passes each as int32 when it fits, so M * N is an
            # int32 product that wraps past 2**31 (a mask offs < M * N then turns false everywhere)
            names = [x.id for x in (e.left, e.right) if isinstance(x, ast.Name)]
            if len(names) == 2 and all(n in self.params for n in names) and not (left.i64 or right.i64):
                key = self.keys.setdefault((e.lineno, e.col_offset, getattr(e, "end_col_offset", 0)), len(self.keys))
                self.sizes.setdefault(key, _SizeProduct(e))
                v = replace(v, sprods=v.sprods | {key})
            if left.rt or right.rt:  # pid * stride: the offset of a slab (batch, row), not a shift of the lanes
                v = replace(v, gs=False)
            for a, b, pa, pb in ((left, right, e.left, e.right), (right, left, e.right, e.left)):
                # times a runtime stride, or a named constexpr (BLOCK: element-scale); pid * 2 stays program-scale
                named = any(isinstance(x, ast.Name) for x in ast.walk(pb))
                if a.pid and not a.i64 and not a.prods and not b.i64 and (b.rt or (b.const and named)):
                    key = self.keys.setdefault((e.lineno, e.col_offset, getattr(e, "end_col_offset", 0)),
                                               len(self.keys))
                    self.products.setdefault(key, _Product(e, pa, pb, stride=b.rt))
                    if b.rt:  # the stride product is the one that overflows: it stands for the pid x BLOCK inside
                        return replace(v, prods=v.prods | {key}, cprods=frozenset())
                    return replace(v, cprods=frozenset({key}))
            return v
        if isinstance(op, ast.Mod):  # (pid * BLOCK + arange) % M: the lanes wrap inside the tensor
            if right.const:  # pid % GROUP: bounded by a compile-time constant, no longer grows with the grid
                return replace(v, pid=False, grow=frozenset(), gs=False, prods=frozenset(), cprods=frozenset())
            return replace(v, grow=frozenset(), gs=v.gs and not v.vec)
        if isinstance(op, ast.FloorDiv):
            return replace(v, rt=False)
        if isinstance(op, ast.Div):
            return replace(_NONE, const=v.const)
        return v

    def cast(self, v: _Val, dtype: ast.expr | None) -> _Val:
        q = self.mod.qual(dtype)
        if q in _INT64:
            return replace(v, i64=True, cprods=frozenset())
        if q in _INT32:
            return replace(v, i64=False)
        return v

    def call(self, c: ast.Call) -> _Val:
        kw = {k.arg: k.value for k in c.keywords if k.arg}
        func = c.func
        op = self.mod.tl(func)
        if op is None and isinstance(func, ast.Attribute) and func.attr == "to":
            v = self.ev(func.value)
            for a in c.args[1:]:
                self.ev(a)
            return self.cast(v, c.args[0] if c.args else kw.get("dtype"))
        if op is None:
            for a in (*c.args, *kw.values()):
                self.ev(a)
            return _NONE
        if op in _ACCESSES:
            self.access(c, op, kw)
            return _NONE
        if op == "program_id":
            return _Val(pid=True, gs=True)
        if op == "arange":
            return _Val(vec=frozenset({", ".join(ast.unparse(a) for a in c.args)}))
        if op == "cast":
            return self.cast(self.ev(c.args[0]) if c.args else _NONE, c.args[1] if len(c.args) > 1 else
                             kw.get("dtype"))
        if op == "make_block_ptr":
            return self.block_ptr(c, kw)
        if op == "advance":
            v = self.ev(c.args[0]) if c.args else _NONE
            offs = c.args[1] if len(c.args) > 1 else kw.get("offsets")
            self.ev(offs)
            if v.bptr is not None and self.runtime_loops and isinstance(offs, (ast.Tuple, ast.List)):
                v = replace(v, bptr=tuple(g or not (isinstance(o, ast.Constant) and o.value == 0)
                                          for g, o in zip(v.bptr, offs.elts, strict=False)))
            return v
        vals = [self.ev(a) for a in c.args] + [self.ev(a) for a in kw.values()]
        if op in _PASSTHROUGH:
            return vals[0] if vals else _NONE
        if op == "where":
            return replace(_join(*vals[1:3]), grow=frozenset(), gs=False, const=False)
        if op in _BOUNDING:
            return replace(_join(*vals), grow=frozenset(), gs=False, const=False)
        if op == "cdiv":
            return replace(_join(*vals), rt=False, grow=frozenset())
        return _NONE

    def block_ptr(self, c: ast.Call, kw: dict[str, ast.expr]) -> _Val:
        names = ("base", "shape", "strides", "offsets", "block_shape", "order")
        args = dict(zip(names, c.args, strict=False))
        args.update({k: v for k, v in kw.items() if k in names})
        base = self.ev(args.get("base"))
        self.reach(base, c.lineno)
        for k in ("shape", "strides", "block_shape", "order"):
            self.ev(args.get(k))
        offs = args.get("offsets")
        if isinstance(offs, (ast.Tuple, ast.List)):
            dims = tuple(self.ev(o).gs for o in offs.elts)
        else:
            self.ev(offs)
            dims = ()
        return _Val(bptr=dims)

    # the checks -----------------------------------------------------------------------------------------------

    def reach(self, ptr: _Val, line: int) -> None:
        for key in ptr.prods | ptr.cprods:
            p = self.products[key]
            if p.sink is None:
                p.sink = line
        self.reach_size(ptr, line)

    def reach_size(self, v: _Val, line: int) -> None:
        for key in v.sprods:
            q = self.sizes[key]
            if q.sink is None:
                q.sink = line

    def access(self, c: ast.Call, op: str, kw: dict[str, ast.expr]) -> None:
        pos = list(c.args)
        ptr_node = pos[0] if pos else kw.get("pointer")
        ptr = self.ev(ptr_node)
        mask_pos = 1 if op == "load" else 2
        mask = kw.get("mask", pos[mask_pos] if len(pos) > mask_pos else None)
        for a in [*pos[1:], *(a for k, a in kw.items() if k != "pointer")]:
            if a is not mask:
                self.ev(a)
        m = self.ev(mask)  # once: the size check here and the mask checks below read it
        self.reach(ptr, c.lineno)
        if mask is not None:
            self.reach_size(m, c.lineno)
        self.readback(c, op, ptr_node, kw)
        if self.exempt or op == "atomic_cas":
            return
        if isinstance(mask, ast.Constant) and mask.value is None:
            mask = None
        what = "tl." + op
        if ptr.bptr is not None:
            bc = kw.get("boundary_check", pos[3] if len(pos) > 3 else None)
            checked: set[int] = set()
            if isinstance(bc, (ast.Tuple, ast.List)):
                if not all(isinstance(x, ast.Constant) and isinstance(x.value, int) for x in bc.elts):
                    return
                checked = {x.value for x in bc.elts}  # type: ignore[attr-defined]
            elif isinstance(bc, ast.Constant) and isinstance(bc.value, int):
                checked = {bc.value}
            elif bc is not None:
                return
            missing = [d for d, g in enumerate(ptr.bptr) if g and d not in checked]
            if missing:
                dims = ", ".join(map(str, missing))
                fix = f"boundary_check=({', '.join(str(d) for d in range(len(ptr.bptr)))},)" + \
                    (" and padding_option='zero'" if op == "load" else "")
                if self.masks:
                    self.add(c, "triton-unmasked-access", "error",
                             f"{what} through a block pointer whose offsets grow with the program id in dimension(s) "
                             f"{dims}, with no boundary check there while other accesses of this kernel are checked: "
                             f"the last programs reach past the tensor's end; add {fix}")
                else:
                    self.add(c, "triton-unmasked-access", "warning",
                             f"{what} through a block pointer whose offsets grow with the program id in dimension(s) "
                             f"{dims}, with no boundary check (and no access of this kernel is checked): right only "
                             f"when that extent is a multiple of the block, which the launcher must guarantee; "
                             f"otherwise add {fix}")
            return
        if not ptr.grow:
            return
        if mask is None:
            axis = f"tl.arange({sorted(ptr.grow)[0]})"
            fix = "add mask=offs < n" + (", other=0" if op == "load" else "")
            if self.masks:
                self.add(c, "triton-unmasked-access", "error",
                         f"{what} with no mask while other accesses of this kernel are masked; its offsets over {axis} "
                         "grow with the program id (or a loop over a runtime bound), so the last block reaches past "
                         f"the end unless the size is a multiple of the block; {fix}")
            else:
                self.add(c, "triton-unmasked-access", "warning",
                         f"{what} with no mask (and no access of this kernel is masked): its offsets over {axis} grow "
                         "with the program id (or a loop over a runtime bound), so it is right only when the size is a "
                         f"multiple of the block, which the launcher must guarantee; otherwise {fix}")
            return
        uncovered = sorted(ptr.grow - m.vec)
        if m.vec and uncovered:
            self.add(c, "triton-unmasked-access", "error",
                     f"{what}'s mask `{ast.unparse(mask)}` does not cover the axis of tl.arange({uncovered[0]}), whose "
                     "offsets grow with the program id or a loop over a runtime bound: the tail block of that axis "
                     "reaches past the end; add that axis's bound to the mask (e.g. & (cols < N)[None, :])")

    def readback(self, c: ast.Call, op: str, ptr_node: ast.expr | None, kw: dict[str, ast.expr]) -> None:
        """A plain ``tl.load`` of the very pointer expression this kernel updated atomically before: it reads the
        total the programs are still adding into, which holds only the adds that happened to land first (no program
        waits for the others; a second kernel, launched after, reads it whole). A volatile load is left alone: a
        program spinning on a counter the others raise (a grid barrier) reads it that way on purpose."""
        if ptr_node is None:
            return
        text = ast.unparse(ptr_node)
        if op.startswith("atomic_") and op != "atomic_cas":
            self.atomics.setdefault(text, c.lineno)
            return
        volatile = kw.get("volatile")
        if op != "load" or text not in self.atomics or (isinstance(volatile, ast.Constant) and volatile.value):
            return
        self.add(c, "triton-atomic-readback", "warning",
                 f"tl.load({text}) reads what this kernel adds into atomically at line {self.atomics[text]}: other "
                 "programs may not have added theirs yet (programs do not wait for one another), so the value holds "
                 "only the adds that landed first; read the total in a second kernel launched after this one")

    def add(self, node: ast.AST, kind: str, severity: str, message: str) -> None:
        line = getattr(node, "lineno", None) or 0
        self.findings.setdefault((kind, line), Finding(tool="lint", kind=kind, severity=severity, message=message,
                                                       kernel=self.fn.name, file=self.path, line=line))

    def size_finding(self, q: _SizeProduct) -> None:
        text = ast.unparse(q.node)
        assert isinstance(q.node.left, ast.Name)
        fix = f"{q.node.left.id}.to(tl.int64) * {ast.unparse(q.node.right)}"
        self.add(q.node, "triton-size-product-int32", "warning",
                 f"`{text}` multiplies two runtime integer arguments, which Triton passes as int32 when each fits: "
                 f"the product wraps once it passes 2^31 (it reaches the mask, pointer or branch at line {q.sink}; a "
                 f"mask compared with it turns false everywhere and nothing is stored); cast first: `{fix}`")

    def product_finding(self, p: _Product) -> None:
        text, pid, other = ast.unparse(p.node), ast.unparse(p.pid_side), ast.unparse(p.other)
        simple = isinstance(p.pid_side, (ast.Name, ast.Call, ast.Attribute, ast.Subscript))
        fix = f"{pid}.to(tl.int64) * {other}" if simple else f"({pid}).to(tl.int64) * {other}"
        if p.stride:
            self.add(p.node, "triton-pid-stride-int32", "error",
                     f"`{text}` multiplies the program id by the runtime size/stride `{other}` in int32 and wraps once "
                     f"the offset passes 2^31 (it reaches a pointer at line {p.sink}); cast first: `{fix}`")
        else:
            self.add(p.node, "triton-pid-stride-int32", "warning",
                     f"`{text}` is computed in int32 and wraps once the offset passes 2^31 elements (it reaches a "
                     f"pointer at line {p.sink} with no int64 cast); cast first: `{fix}`, or take "
                     "tl.program_id(...).to(tl.int64) once")


def lint_triton(tree: ast.Module, path: str) -> list[Finding]:
    """Findings of rules 2 (triton-pid-stride-int32), 3 (triton-unmasked-access), 5 (triton-size-product-int32),
    triton-atomic-readback and triton-global-not-constexpr in a parsed Python module."""
    mod = _Module(tree)
    plain = _plain_globals(tree, mod)
    found: list[Finding] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and mod.is_jit(node):
            found += _global_reads(node, plain, path)
            try:
                found += _Kernel(node, mod, path).run()
            except RecursionError:
                continue
    return found


def _is_value(e: ast.AST) -> bool:
    """A literal number, string or bool, or arithmetic and tuples of them: a plain Python value, not a constexpr."""
    if isinstance(e, ast.Constant):
        return isinstance(e.value, (int, float, str, bool)) and e.value is not None
    if isinstance(e, ast.UnaryOp):
        return _is_value(e.operand)
    if isinstance(e, ast.BinOp):
        return _is_value(e.left) and _is_value(e.right)
    if isinstance(e, ast.Tuple):
        return bool(e.elts) and all(_is_value(x) for x in e.elts)
    return False


def _plain_globals(tree: ast.Module, mod: _Module) -> dict[str, int]:
    """Module-level names bound to a plain value (``EPS = 1e-8``, or annotated, ``HALF: tl.constexpr = 0.5``) and
    never to a ``tl.constexpr`` instance (``tl.constexpr(0.5)``): name -> line of the binding. Triton's compiler
    (3.2 on) refuses the annotated form too: its error says that annotating a global as constexpr "is not
    supported"; a held-out control written so raised a CompilationError on every case of an H100 (triton 3.6)."""
    plain: dict[str, int] = {}
    constexpr: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign):
            wrapped = isinstance(node.value, ast.Call) and mod.tl(node.value.func) == "constexpr"
            for t in node.targets:
                if isinstance(t, ast.Name):
                    if wrapped:
                        constexpr.add(t.id)
                    elif _is_value(node.value):
                        plain.setdefault(t.id, node.lineno)
                    else:
                        constexpr.add(t.id)  # a value the walk cannot tell: left alone
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            if isinstance(node.value, ast.Call) and mod.tl(node.value.func) == "constexpr":
                constexpr.add(node.target.id)
            elif _is_value(node.value):  # ``X: tl.constexpr = 2.0`` is a plain float to the compiler
                plain.setdefault(node.target.id, node.lineno)
            else:
                constexpr.add(node.target.id)
    return {k: v for k, v in plain.items() if k not in constexpr}


def _global_reads(fn: ast.FunctionDef, plain: dict[str, int], path: str) -> list[Finding]:
    """``triton-global-not-constexpr``: the kernel reads a module-level plain value. Triton's compiler refuses it
    ("Cannot access global variable ... from within @jit'ed function": only ``tl.constexpr`` globals may be read),
    while Triton's interpreter takes it: a kernel that passes on a CPU and raises on every case on a GPU."""
    local = {a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            local.add(node.id)
    found: list[Finding] = []
    seen: set[str] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in plain \
                and node.id not in local and node.id not in seen:
            seen.add(node.id)
            found.append(Finding(
                tool="lint", kind="triton-global-not-constexpr", severity="error", kernel=fn.name, file=path,
                line=node.lineno,
                message=f"`{node.id}` (line {plain[node.id]}) is a module-level Python value read inside a @triton.jit "
                        "kernel: Triton's compiler refuses globals that are not tl.constexpr, so every launch raises "
                        f"on a GPU, though Triton's interpreter runs it; declare `{node.id} = tl.constexpr(...)` or "
                        "pass it as an argument (an annotation, `X: tl.constexpr = ...`, is not enough)"))
    return found
