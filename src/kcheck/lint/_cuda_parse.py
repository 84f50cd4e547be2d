"""Front end of the CUDA C static checks: blank comments, strings and preprocessor lines (line numbers kept),
tokenize, find functions by their braces, split statements, and read expressions with a small precedence parser.
What it cannot read it skips: an unreadable construct costs a missed finding, never a false one or an exception."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

_BUILTINS = frozenset({"threadIdx", "blockIdx", "blockDim", "gridDim"})
_BLOCK_BARRIERS = frozenset({"__syncthreads", "__syncthreads_count", "__syncthreads_and", "__syncthreads_or"})
_I64 = frozenset({"long", "size_t", "ssize_t", "ptrdiff_t", "int64_t", "uint64_t", "intptr_t", "uintptr_t",
                  "__int64", "int_fast64_t", "uint_fast64_t", "int_least64_t", "uint_least64_t", "off_t"})
_I32 = frozenset({"int", "unsigned", "signed", "short", "int32_t", "uint32_t", "int16_t", "uint16_t", "uint",
                  "int8_t", "uint8_t"})
_FLOAT = frozenset({"float", "double", "half", "__half", "half2", "__half2", "__nv_bfloat16", "__nv_bfloat162",
                    "nv_bfloat16", "bfloat16", "float2", "float3", "float4", "double2", "bool", "char", "void"})
_QUALIFIERS = frozenset({"const", "constexpr", "volatile", "static", "extern", "register", "inline", "__shared__",
                         "__device__", "__constant__", "__restrict__", "__restrict", "restrict", "__forceinline__",
                         "__managed__", "mutable", "thread_local", "struct", "class", "typename", "enum", "union",
                         "std", "__host__", "__global__"})
_TYPE_WORDS = _I64 | _I32 | _FLOAT | _QUALIFIERS | {"auto"}
_NOT_FUNCTIONS = frozenset({"if", "for", "while", "switch", "return", "sizeof", "catch", "do", "else", "decltype",
                            "alignof", "static_assert", "defined", "__launch_bounds__", "__attribute__"})
_NOT_DECL = frozenset({"return", "new", "delete", "throw", "goto", "sizeof", "case", "using", "typedef", "else",
                       "co_return", "co_yield", "operator"})
_ARITH_CALLS = frozenset({"min", "max", "umin", "umax", "abs", "__mul24", "__umul24", "std::min", "std::max"})
_ARITH_OPS = frozenset({"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^"})
_ASSIGN_OPS = frozenset({"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^="})
_COMPARE_OPS = frozenset({"<", ">", "<=", ">=", "==", "!=", "&&", "||"})
_BINARY_PREC = {",": 1, **dict.fromkeys(_ASSIGN_OPS, 2), "?": 3, "||": 4, "&&": 5, "|": 6, "^": 7, "&": 8, "==": 9,
                "!=": 9, "<": 10, ">": 10, "<=": 10, ">=": 10, "<<": 11, ">>": 11, "+": 12, "-": 12, "*": 13,
                "/": 13, "%": 13}
_RIGHT_ASSOC = _ASSIGN_OPS | {"?"}
_CASTS = frozenset({"static_cast", "reinterpret_cast", "const_cast", "dynamic_cast"})
_FULL_MASKS = frozenset({"0xffffffff", "0xffffffffu", "-1", "~0", "~0u", "full_mask", "final_mask"})

_TOKEN_RE = re.compile(r"""
    (?P<nl>\n) | (?P<ws>[ \t\r\f\v\\]+)
  | (?P<id>[A-Za-z_$][\w$]*)
  | (?P<num>(?:0[xX][0-9a-fA-F']*|(?:\d[\d']*\.?[\d']*|\.\d[\d']*)(?:[eE][+-]?\d+)?)[uUlLfFhH]*)
  | (?P<str>"[^"\n]*"?|'[^'\n]*'?)
  | (?P<op>\.\.\.|<<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|::|.)
""", re.X)


class _Unreadable(Exception):
    """An expression the parser does not understand: the statement is skipped."""


@dataclass(frozen=True)
class _Tok:
    kind: str  # id | num | str | op
    text: str
    line: int
    pos: int  # offset in the stripped source


def _strip(text: str) -> str:
    """Blank comments, string and character literals (keeping their quotes) and preprocessor lines; keep newlines."""
    out = list(text)
    n = len(text)

    def blank(a: int, b: int) -> None:
        for k in range(a, min(b, n)):
            if out[k] != "\n":
                out[k] = " "

    i, bol = 0, True
    while i < n:
        c = text[i]
        if c == "\n":
            bol, i = True, i + 1
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if bol and c == "#":
            e = i
            while True:
                e = text.find("\n", e)
                if e < 0:
                    e = n
                    break
                if text[e - 1] == "\\" or text[e - 2:e] == "\\\r":
                    e += 1
                    continue
                break
            blank(i, e)
            i = e
            continue
        bol = False
        if text.startswith("//", i):
            e = text.find("\n", i)
            e = n if e < 0 else e
            blank(i, e)
            i = e
        elif text.startswith("/*", i):
            e = text.find("*/", i + 2)
            e = n if e < 0 else e + 2
            blank(i, e)
            i = e
        elif c == '"' or (c == "'" and not (i and (text[i - 1].isalnum() or text[i - 1] == "_"))):
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            blank(i + 1, j)
            i = j + 1
        else:
            i += 1
    return "".join(out)


def _tokenize(stripped: str) -> list[_Tok]:
    toks: list[_Tok] = []
    line = 1
    for m in _TOKEN_RE.finditer(stripped):
        kind = m.lastgroup or "op"
        if kind == "nl":
            line += 1
        elif kind != "ws":
            toks.append(_Tok(kind, m.group(), line, m.start()))
    return toks


def _brackets(toks: list[_Tok]) -> dict[int, int]:
    """Matching (), [] and {} both ways, by token index; unbalanced ones are left out."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack: list[int] = []
    match: dict[int, int] = {}
    for i, t in enumerate(toks):
        if t.text in pairs:
            stack.append(i)
        elif t.text in (")", "]", "}"):
            k = len(stack) - 1
            while k >= 0 and pairs[toks[stack[k]].text] != t.text:
                k -= 1
            if k >= 0:
                o = stack[k]
                del stack[k:]
                match[o], match[i] = i, o
    return match


# --- expressions ---------------------------------------------------------------------------------------------------


@dataclass(eq=False)
class _Node:
    kind: str  # name | num | str | const | member | call | index | cast | paren | unary | postfix | binary | ternary
    op: str  # operator, name, literal text, member field, callee name
    kids: list[_Node] = field(default_factory=list)
    lo: int = 0  # token range [lo, hi)
    hi: int = 0
    at: int = 0  # token of the operator (its line is the finding's line)
    type_words: tuple[str, ...] = ()  # casts: the target type's tokens
    parent: _Node | None = None

    def walk(self) -> Iterator[_Node]:
        yield self
        for k in self.kids:
            yield from k.walk()


class _Parser:
    def __init__(self, toks: list[_Tok], match: dict[int, int], lo: int, hi: int):
        self.t, self.m, self.i, self.hi = toks, match, lo, hi

    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.t[j].text if j < self.hi else ""

    def close(self, i: int) -> int:
        c = self.m.get(i, -1)
        if c < 0 or c >= self.hi:
            raise _Unreadable
        return c

    def sub(self, lo: int, hi: int) -> _Node:
        p = _Parser(self.t, self.m, lo, hi)
        e = p.expr(0)
        if p.i != hi:
            raise _Unreadable
        return e

    def expr(self, min_prec: int) -> _Node:
        left = self.unary()
        while True:
            op = self.peek()
            prec = _BINARY_PREC.get(op)
            if prec is None or prec < min_prec:
                return left
            at = self.i
            self.i += 1
            if op == "?":
                mid = self.expr(0)
                if self.peek() != ":":
                    raise _Unreadable
                self.i += 1
                right = self.expr(prec)
                left = _Node("ternary", "?", [left, mid, right], left.lo, right.hi, at)
                continue
            right = self.expr(prec if op in _RIGHT_ASSOC else prec + 1)
            left = _Node("binary", op, [left, right], left.lo, right.hi, at)

    def is_cast(self, i: int) -> bool:
        c = self.m.get(i, -1)
        if c <= i + 1 or c >= self.hi:
            return False
        inner = self.t[i + 1:c]
        ids = [t.text for t in inner if t.kind == "id"]
        if not ids or any(t.kind not in ("id",) and t.text not in ("*", "&", "::") for t in inner):
            return False
        if all(w in _TYPE_WORDS or w.endswith("_t") for w in ids):
            return True
        nxt = self.t[c + 1] if c + 1 < self.hi else None  # (T) x: a lone unknown name followed by an operand
        return len(ids) == 1 and len(inner) == 1 and nxt is not None and (nxt.kind in ("id", "num") or nxt.text == "(")

    def unary(self) -> _Node:
        if self.i >= self.hi:
            raise _Unreadable
        t, at = self.peek(), self.i
        if t in ("-", "+", "!", "~", "*", "&", "++", "--"):
            self.i += 1
            e = self.unary()
            return _Node("unary", t, [e], at, e.hi, at)
        if t in ("sizeof", "alignof", "__alignof__"):
            self.i += 1
            if self.peek() == "(":
                self.i = self.close(self.i) + 1
            else:
                self.unary()
            return _Node("const", t, [], at, self.i, at)
        if t == "(" and self.is_cast(at):
            c = self.close(at)
            words = tuple(x.text for x in self.t[at + 1:c])
            self.i = c + 1
            e = self.unary()
            return _Node("cast", "", [e], at, e.hi, at, words)
        return self.postfix(self.primary())

    def primary(self) -> _Node:
        tok, at = self.t[self.i], self.i
        if tok.kind in ("num", "str"):
            self.i += 1
            return _Node(tok.kind, tok.text, [], at, self.i, at)
        if tok.kind == "id":
            if tok.text in _NOT_DECL:
                raise _Unreadable
            if tok.text in _CASTS and self.peek(1) == "<":
                j, depth = at + 2, 1
                while j < self.hi:
                    x = self.t[j].text
                    depth += (x == "<") - (x == ">") - 2 * (x == ">>")
                    if depth <= 0:
                        break
                    j += 1
                if j + 1 >= self.hi or self.t[j + 1].text != "(":
                    raise _Unreadable
                c = self.close(j + 1)
                inner = self.sub(j + 2, c)
                self.i = c + 1
                return _Node("cast", tok.text, [inner], at, self.i, at, tuple(x.text for x in self.t[at + 2:j]))
            name = tok.text
            self.i += 1
            while self.peek() == "::" and self.i + 1 < self.hi and self.t[self.i + 1].kind == "id":
                name += "::" + self.t[self.i + 1].text
                self.i += 2
            base = name.rsplit("::", 1)[-1]
            if (base in _I64 or base in _I32 or base in _FLOAT) and self.peek() == "(":  # functional cast: size_t(x)
                c = self.close(self.i)
                inner = self.sub(self.i + 1, c)
                self.i = c + 1
                return _Node("cast", name, [inner], at, self.i, at, (base,))
            return _Node("name", name, [], at, self.i, at)
        if tok.text == "(":
            c = self.close(at)
            inner = self.sub(at + 1, c)
            self.i = c + 1
            return _Node("paren", "(", [inner], at, self.i, at)
        raise _Unreadable

    def postfix(self, e: _Node) -> _Node:
        while True:
            t, at = self.peek(), self.i
            if t == "(":
                c = self.close(at)
                args = [self.sub(a, b) for a, b in _split(self.t, self.m, at + 1, c, ",") if a < b]
                self.i = c + 1
                e = _Node("call", e.op if e.kind == "name" else "", [e, *args], e.lo, self.i, at)
            elif t == "[":
                c = self.close(at)
                e = _Node("index", "[", [e, self.sub(at + 1, c)], e.lo, c + 1, at)
                self.i = c + 1
            elif t in (".", "->"):
                if self.i + 1 >= self.hi or self.t[self.i + 1].kind != "id":
                    raise _Unreadable
                e = _Node("member", self.t[self.i + 1].text, [e], e.lo, self.i + 2, at)
                self.i += 2
            elif t in ("++", "--"):
                self.i += 1
                e = _Node("postfix", t, [e], e.lo, self.i, at)
            else:
                return e


def _split(toks: list[_Tok], match: dict[int, int], lo: int, hi: int, sep: str) -> list[tuple[int, int]]:
    """Ranges of [lo, hi) between top-level ``sep`` tokens (nested brackets skipped)."""
    parts, start, i = [], lo, lo
    while i < hi:
        x = toks[i].text
        if x in ("(", "[", "{") and i in match and match[i] < hi:
            i = match[i] + 1
            continue
        if x == sep:
            parts.append((start, i))
            start = i + 1
        i += 1
    parts.append((start, hi))
    return parts


def _parse(toks: list[_Tok], match: dict[int, int], lo: int, hi: int) -> _Node | None:
    if lo >= hi:
        return None
    try:
        return _Parser(toks, match, lo, hi).sub(lo, hi)
    except (_Unreadable, RecursionError, IndexError):
        return None


def _set_parents(root: _Node) -> None:
    for n in root.walk():
        for k in n.kids:
            k.parent = n


# --- functions and statements --------------------------------------------------------------------------------------


@dataclass
class _Var:
    type: str  # i32 | i64 | float | ptr | auto | other
    tok: int  # token of the declared name
    words: str  # the declared type, as written
    const: bool = False
    array: bool = False  # declared with [...]: a local or __shared__ array (or a parameter like float x[])
    shared: bool = False
    param: bool = False


@dataclass(frozen=True)
class _Cond:
    kind: str  # if | while | for | do | switch | macro
    lo: int  # the condition's tokens [lo, hi)
    hi: int
    line: int
    step: tuple[int, int] = (0, 0)  # for loops: the increment's tokens


@dataclass
class _Assign:
    name: str
    rhs: _Node | None
    lo: int  # rhs token range
    hi: int
    conds: tuple[_Cond, ...]
    op: str = "="


@dataclass
class _Stmt:
    lo: int
    hi: int
    conds: tuple[_Cond, ...]
    trees: list[_Node]


@dataclass
class _Func:
    name: str
    params: tuple[int, int]
    body: tuple[int, int]
    consts: set[str]  # non-type template parameters


def _classify(words: list[str], ptr: bool, array: bool) -> str:
    if ptr or array:
        return "ptr"
    ws = [w for w in words if w not in _QUALIFIERS and w not in ("::", "<", ">", ",")]
    if any(w in _I64 for w in ws):
        return "i64"
    if any(w in _FLOAT for w in ws):
        return "float"
    if "auto" in ws:
        return "auto"
    if ws and all(w in _I32 for w in ws):
        return "i32"
    return "other"


def _functions(toks: list[_Tok], match: dict[int, int]) -> list[_Func]:
    out: list[_Func] = []
    i, n = 0, len(toks)
    while i < n:
        if toks[i].text != "{" or i not in match:
            i += 1
            continue
        close = match[i]
        j = i - 1
        while j >= 0 and toks[j].text in ("const", "noexcept", "override", "final", "volatile", "mutable"):
            j -= 1
        if j >= 0 and toks[j].text == ")" and j in match:
            k = match[j] - 1
            if k >= 0 and toks[k].kind == "id" and toks[k].text not in _NOT_FUNCTIONS:
                out.append(_Func(toks[k].text, (match[j] + 1, j), (i + 1, close), _template_consts(toks, k)))
                i = close + 1
                continue
        if j >= 0 and toks[j].text in ("=", ",", "(", "return"):  # an initializer list
            i = close + 1
            continue
        i += 1
    return out


def _template_consts(toks: list[_Tok], k: int) -> set[str]:
    j = k - 1
    while j >= 0 and toks[j].text not in (";", "}", "{", "template"):
        j -= 1
    if j < 0 or toks[j].text != "template" or j + 1 >= k or toks[j + 1].text != "<":
        return set()
    depth, e = 0, j + 1
    while e < k:
        depth += (toks[e].text == "<") - (toks[e].text == ">") - 2 * (toks[e].text == ">>")
        if depth <= 0:
            break
        e += 1
    names: set[str] = set()
    start = j + 2
    for a in [*range(j + 2, e), e]:
        if a == e or (toks[a].text == "," and a < e):
            part = [t.text for t in toks[start:a]]
            start = a + 1
            if not part or part[0] in ("typename", "class", "template"):
                continue
            if "=" in part:
                part = part[:part.index("=")]
            ids = [w for w in part if re.match(r"[A-Za-z_]\w*$", w)]
            if len(ids) >= 2:
                names.add(ids[-1])
    return names


class _Body:
    """Splits a function body into statements, each with the conditions that enclose it; declares its variables.

    Variables are keyed per declaration (``i``, ``i@1``, ...) by C++ scope, so that a loop counter reused in another
    loop is another variable; ``key`` maps each identifier token to the variable it names there.
    """

    def __init__(self, toks: list[_Tok], match: dict[int, int]):
        self.toks, self.match = toks, match
        self.vars: dict[str, _Var] = {}
        self.stmts: list[_Stmt] = []
        self.assigns: list[_Assign] = []
        self.exits: list[tuple[int, tuple[_Cond, ...]]] = []  # each ``return``: its token, its enclosing conditions
        self.key: dict[int, str] = {}
        self.scopes: list[dict[str, str]] = [{}]
        self.count: dict[str, int] = {}
        self.record = True

    def push(self) -> None:
        self.scopes.append({})

    def pop(self) -> None:
        if len(self.scopes) > 1:
            self.scopes.pop()

    def resolve(self, name: str) -> str:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return name

    def declare(self, name: str, var: _Var) -> str:
        n = self.count.get(name, 0)
        self.count[name] = n + 1
        key = name if n == 0 else f"{name}@{n}"
        self.scopes[-1][name] = key
        self.vars[key] = var
        self.key[var.tok] = key
        return key

    def walk(self, lo: int, hi: int, conds: tuple[_Cond, ...]) -> None:
        i = lo
        while i < hi:
            i = max(self.stmt(i, hi, conds), i + 1)

    def skip(self, i: int, hi: int) -> int:
        record, self.record = self.record, False
        try:
            return self.stmt(i, hi, ())
        finally:
            self.record = record

    def paren(self, i: int, hi: int) -> int:
        """Index of the ``)`` closing the ``(`` at i, or -1."""
        if i < hi and self.toks[i].text == "(" and self.match.get(i, hi) < hi:
            return self.match[i]
        return -1

    def stmt(self, i: int, hi: int, conds: tuple[_Cond, ...]) -> int:
        self.push()
        try:
            return self.statement(i, hi, conds)
        finally:
            self.pop()

    def statement(self, i: int, hi: int, conds: tuple[_Cond, ...]) -> int:
        toks = self.toks
        t = toks[i].text
        if t == "{":
            close = min(self.match.get(i, hi), hi)
            self.walk(i + 1, close, conds)
            return close + 1
        if t == ";":
            return i + 1
        if t in ("if", "while", "switch"):
            j = i + 1 + (t == "if" and i + 1 < hi and toks[i + 1].text == "constexpr")
            c = self.paren(j, hi)
            if c > 0:
                self.simple(j + 1, c, conds)
                inner = (*conds, _Cond(t, j + 1, c, toks[i].line))
                k = self.stmt(c + 1, hi, inner) if c + 1 < hi else c + 1
                if t == "if" and k < hi and toks[k].text == "else":
                    k = self.stmt(k + 1, hi, inner) if k + 1 < hi else k + 1
                return k
        if t == "for":
            c = self.paren(i + 1, hi)
            if c > 0:
                parts = _split(toks, self.match, i + 2, c, ";")
                if len(parts) == 3:
                    (a, b), (cl, ch), (sl, sh) = parts
                    self.simple(a, b, conds)
                    self.simple(cl, ch, conds)
                    inner = (*conds, _Cond("for", cl, ch, toks[i].line, (sl, sh)))
                    self.simple(sl, sh, inner)
                else:  # range-for: the trip count is the range's, unknown here
                    inner = (*conds, _Cond("for", i + 2, i + 2, toks[i].line))
                return self.stmt(c + 1, hi, inner) if c + 1 < hi else c + 1
        if t == "do" and i + 1 < hi:
            end = self.skip(i + 1, hi)
            c = self.paren(end + 1, hi) if end < hi and toks[end].text == "while" else -1
            if c > 0:
                self.stmt(i + 1, hi, (*conds, _Cond("do", end + 2, c, toks[end].line)))
                self.simple(end + 2, c, conds)
                return c + 2 if c + 1 < hi and toks[c + 1].text == ";" else c + 1
            return self.stmt(i + 1, hi, conds)
        if t in ("case", "default"):
            k = i + 1
            while k < hi and toks[k].text != ":":
                k += 1
            return k + 1
        if t == "else":
            return self.stmt(i + 1, hi, conds) if i + 1 < hi else i + 1
        if toks[i].kind == "id" and i + 1 < hi and toks[i + 1].text == ":":  # a label
            return i + 2
        if t in ("return", "co_return") and self.record:
            self.exits.append((i, conds))
        start = i + (t in ("return", "co_return"))  # return x[row * n]: the expression is checked too
        k = i
        while k < hi and toks[k].text != ";":
            x = toks[k].text
            if x == "{" and k in self.match:
                if k > i and toks[k - 1].text == ")":  # MACRO_LOOP(i, n) { ... }: a block of unknown condition
                    self.simple(start, k, conds)
                    close = min(self.match[k], hi)
                    self.push()
                    self.walk(k + 1, close, (*conds, _Cond("macro", k, k, toks[k].line)))
                    self.pop()
                    return close + 1
                k = self.match[k] + 1
            elif x in ("(", "[") and k in self.match:
                k = self.match[k] + 1
            elif x == "}":
                break
            else:
                k += 1
        self.simple(start, min(k, hi), conds)
        return k + 1 if k < hi and toks[k].text == ";" else k

    def simple(self, lo: int, hi: int, conds: tuple[_Cond, ...]) -> None:
        if lo >= hi or not self.record:
            return
        toks = self.toks
        for k in range(lo, hi):
            if toks[k].kind == "id" and (k == 0 or toks[k - 1].text not in (".", "->", "::")):
                self.key[k] = self.resolve(toks[k].text)
        trees = self.declaration(lo, hi, conds)
        if trees is None:
            tree = _parse(toks, self.match, lo, hi)
            trees = [tree] if tree is not None else []
            if tree is None:
                self.fallback_assigns(lo, hi, conds)
        for tree in trees:
            _set_parents(tree)
            for n in tree.walk():
                if n.kind == "name" and n.op == toks[n.at].text:
                    n.op = self.key.get(n.at, n.op)
            for n in tree.walk():
                if n.kind == "binary" and n.op in _ASSIGN_OPS and n.kids[0].kind == "name":
                    rhs = n.kids[1]
                    self.assigns.append(_Assign(n.kids[0].op, rhs, rhs.lo, rhs.hi, conds, n.op))
        self.stmts.append(_Stmt(lo, hi, conds, trees))

    def fallback_assigns(self, lo: int, hi: int, conds: tuple[_Cond, ...]) -> None:
        toks = self.toks
        for k in range(lo + 1, hi):
            if toks[k].text in _ASSIGN_OPS and toks[k - 1].kind == "id" and (k - 1 == lo or toks[k - 2].text != "."):
                end = k + 1
                while end < hi and toks[end].text not in (",", ";"):
                    end = self.match[end] + 1 if toks[end].text in "([{" and end in self.match else end + 1
                name = self.key.get(k - 1, toks[k - 1].text)
                self.assigns.append(_Assign(name, None, k + 1, min(end, hi), conds, toks[k].text))

    def declaration(self, lo: int, hi: int, conds: tuple[_Cond, ...]) -> list[_Node] | None:
        toks = self.toks
        k, ids, last = lo, 0, -1
        while k < hi:
            x = toks[k]
            if x.kind == "id":
                if x.text in _NOT_DECL:
                    return None
                ids, last, k = ids + 1, k, k + 1
            elif x.text in ("::", "*", "&", "&&"):
                k += 1
            elif x.text == "<" and last == k - 1:
                depth, e = 0, k
                while e < hi:
                    depth += (toks[e].text == "<") - (toks[e].text == ">") - 2 * (toks[e].text == ">>")
                    if depth <= 0:
                        break
                    e += 1
                if e >= hi:
                    return None
                k = e + 1
            else:
                break
        stop = toks[k].text if k < hi else ";"
        if ids < 2 or stop not in ("=", ",", "[", "(", "{", ";", ":") or toks[lo].kind != "id":
            return None
        base = [t.text for t in toks[lo:last]]
        lead_ptr = False
        while base and base[-1] in ("*", "&", "&&"):
            lead_ptr |= base[-1] == "*"
            base.pop()
        if not any(re.match(r"[A-Za-z_]", w) for w in base):
            return None
        words = " ".join(w for w in base if w not in ("__restrict__", "__restrict"))
        trees: list[_Node] = []
        for n, (a, b) in enumerate(_split(toks, self.match, last, hi, ",")):
            ptr = lead_ptr if n == 0 else False
            while a < b and toks[a].text in ("*", "&", "&&", "const", "__restrict__"):
                ptr |= toks[a].text == "*"
                a += 1
            if a >= b or toks[a].kind != "id":
                continue
            at = a
            a += 1
            array = False
            while a < b and toks[a].text == "[" and a in self.match:
                array, a = True, self.match[a] + 1
            init: _Node | None = None
            if a < b and toks[a].text == "=":
                init = _parse(toks, self.match, a + 1, b)
                if init is None:
                    self.assigns.append(_Assign("", None, a + 1, b, conds))  # named below
            elif a < b and toks[a].text in ("(", "{") and self.match.get(a) == b - 1:
                init = _parse(toks, self.match, a + 1, b - 1)
            key = self.declare(toks[at].text, _Var(_classify(base, ptr, array), at, words, const="const" in base
                                                   or "constexpr" in base, array=array, shared="__shared__" in base))
            if self.assigns and self.assigns[-1].name == "":
                self.assigns[-1].name = key
            if init is not None:
                target = _Node("name", key, [], at, at + 1, at)
                trees.append(_Node("binary", "=", [target, init], at, init.hi, a))
        return trees


