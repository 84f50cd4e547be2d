"""One kernel launch under check: the memory its arguments may reach, bounds checks of every access (vectorized over
the lanes of a block), and the addresses each program read and wrote, for race detection at the end of the launch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._findings import Access, Finding

TOOL = "interpreter"


@dataclass(frozen=True)
class Region:
    """The bytes one tensor argument may reach: [lo, hi), from its data pointer, shape, strides and item size."""

    name: str
    lo: int
    hi: int
    shape: tuple[int, ...]
    dtype: str

    @property
    def size(self) -> int:
        return self.hi - self.lo


@dataclass
class Record:
    """One finding with what kcheck knows beside it: the tensor argument it concerns (for out-of-bounds accesses,
    the one the access's other lanes reach, else the nearest one) and, for out-of-bounds accesses, the first bad
    lane (index within the block)."""

    finding: Finding
    tensor: str | None = None
    lane: tuple[int, ...] | None = None


def tensor_region(name: str, t: Any) -> Region | None:
    """The byte range a tensor (or view) may reach: data_ptr + min offset .. data_ptr + max offset + itemsize."""
    base = getattr(t, "base", t) if type(t).__name__ == "TensorWrapper" else t
    if not (hasattr(base, "data_ptr") and hasattr(base, "stride") and hasattr(base, "element_size")):
        return None
    ptr = int(base.data_ptr())
    item = int(base.element_size())
    shape = tuple(int(s) for s in base.shape)
    if any(s == 0 for s in shape):
        return Region(name, ptr, ptr, shape, str(base.dtype).removeprefix("torch."))
    lo_off = hi_off = 0
    for st, sz in zip(base.stride(), shape, strict=True):
        if st < 0:
            lo_off += st * (sz - 1)
        else:
            hi_off += st * (sz - 1)
    return Region(name, ptr + lo_off * item, ptr + (hi_off + 1) * item, shape,
                  str(base.dtype).removeprefix("torch."))


def regions_of(named: Iterable[tuple[str, Any]], descriptor: type | None) -> Iterator[Region]:
    """Regions of every tensor among launch arguments, looking into tuples and tensor descriptors."""
    for name, value in named:
        if isinstance(value, (tuple, list)):
            yield from regions_of(((f"{name}[{i}]", v) for i, v in enumerate(value)), descriptor)
        elif descriptor is not None and isinstance(value, descriptor):
            yield from regions_of([(f"{name}.base", getattr(value, "base", None))], descriptor)
        else:
            r = tensor_region(name, value)
            if r is not None:
                yield r


class _Accesses:
    """Addresses one kind of access touched: arrays appended per (program, site), concatenated at the end."""

    __slots__ = ("addrs", "meta")

    def __init__(self) -> None:
        self.addrs: list[np.ndarray] = []
        self.meta: list[tuple[int, int, int, int]] = []  # (program, site, epoch, count)

    def add(self, addrs: np.ndarray, prog: int, site: int, epoch: int) -> None:
        if addrs.size:
            self.addrs.append(addrs)
            self.meta.append((prog, site, epoch, addrs.size))

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(address, program, site, epoch), one entry per address touched."""
        if not self.addrs:
            e = np.empty(0, np.int64)
            return e, e, e, e
        addr = np.concatenate([a.reshape(-1) for a in self.addrs])
        meta = np.asarray(self.meta, dtype=np.int64)
        n = meta[:, 3]
        return addr, np.repeat(meta[:, 0], n), np.repeat(meta[:, 1], n), np.repeat(meta[:, 2], n)


class Launch:
    """State of one GridExecutor call while it runs under check."""

    def __init__(self, kernel: str, order: str, rng: np.random.Generator, races: bool) -> None:
        self.kernel = kernel
        self.order_kind = order
        self.rng = rng
        self.races = races
        self.regions: list[Region] = []
        self._lo = np.empty(0, np.int64)  # merged, sorted [lo, hi) intervals: where accesses are valid
        self._hi = np.empty(0, np.int64)
        self._homes: dict[int, tuple[np.ndarray, np.ndarray, Region] | None] = {}
        self.grid = (1, 1, 1)
        self.order = np.zeros(1, np.int64)  # program (linear index) run at each step
        self.step = 0
        self.pid = (0, 0, 0)
        self.prog = 0  # linear program index (x * ny + y) * nz + z
        self.epoch = 0  # atomics the current program has executed so far
        self.sites: list[tuple[str | None, int | None, str, int]] = []  # (file, line, direction, size)
        self._site_ids: dict[tuple[str | None, int | None, str, int], int] = {}
        self.reads = _Accesses()
        self.writes = _Accesses()
        self.atomics = _Accesses()
        self.sync_atomics: dict[int, list[tuple[int, np.ndarray]]] = {}  # program -> [(step, addresses)]
        self.records: list[Record] = []

    # -- set-up -----------------------------------------------------------------------------------------------------
    def set_regions(self, regions: list[Region]) -> None:
        self.regions = regions
        self._lo, self._hi = _merged(regions)
        self._homes = {}

    def home(self, root: int | None) -> tuple[np.ndarray, np.ndarray, Region] | None:
        """Where an access through a pointer derived from the address ``root`` (a tensor argument's data pointer) may
        land: the tensor holding ``root`` and every tensor overlapping it (views of one storage, an output aliased
        to an input), as merged spans, with the smallest tensor holding ``root``. None when no tensor holds it (the
        check then falls back to every tensor of the launch, as compute-sanitizer's does)."""
        if root is None or root < 0:
            return None
        if root in self._homes:
            return self._homes[root]
        holding = [r for r in self.regions if r.lo <= root < r.hi]
        found: tuple[np.ndarray, np.ndarray, Region] | None = None
        if holding:
            group = list(holding)
            grew = True
            while grew:
                grew = False
                for r in self.regions:
                    if r not in group and r.hi > r.lo and any(r.lo < g.hi and g.lo < r.hi for g in group):
                        group.append(r)
                        grew = True
            lo, hi = _merged(group)
            found = (lo, hi, min(holding, key=lambda r: r.size))
        self._homes[root] = found
        return found

    def set_grid(self, grid: tuple[int, int, int]) -> None:
        self.grid = grid
        n = grid[0] * grid[1] * grid[2]
        if self.order_kind == "reversed":
            self.order = np.arange(n - 1, -1, -1, dtype=np.int64)
        elif self.order_kind == "random":
            self.order = self.rng.permutation(n).astype(np.int64)
        else:
            self.order = np.arange(n, dtype=np.int64)
        self.step = 0

    def unravel(self, prog: int) -> tuple[int, int, int]:
        _, ny, nz = self.grid
        return (prog // (ny * nz), (prog // nz) % ny, prog % nz)

    def next_program(self, x: int, y: int, z: int) -> tuple[int, int, int] | None:
        """The program to run instead of (x, y, z), which the interpreter's loop asks for; None if the loop does not
        go through the grid as kcheck expects (x outermost, z innermost, each program once)."""
        _, ny, nz = self.grid
        if self.step >= self.order.size or (x * ny + y) * nz + z != self.step:
            return None
        self.prog = int(self.order[self.step])
        self.step += 1
        self.pid = self.unravel(self.prog)
        self.epoch = 0
        return self.pid

    def site(self, file: str | None, line: int | None, direction: str, size: int) -> int:
        key = (file, line, direction, size)
        sid = self._site_ids.get(key)
        if sid is None:
            sid = self._site_ids[key] = len(self.sites)
            self.sites.append(key)
        return sid

    # -- the check of one access ------------------------------------------------------------------------------------
    def access(self, ptrs: np.ndarray, mask: np.ndarray | None, size: int, direction: str,
               where: Callable[[], tuple[str | None, int | None]], sync: bool = False,
               root: int | None = None) -> np.ndarray | None:
        """Check the addresses of one load/store/atomic under its mask; record out-of-bounds lanes and (for races)
        the addresses touched. Returns the mask with out-of-bounds lanes off, or None when every lane was in bounds.

        ``root``: the address of the tensor argument the pointers were computed from, when known. Their lanes must
        then land in that tensor (or one overlapping it): a read past the end of one tensor that happens to land
        inside the next allocation is still out of bounds, although compute-sanitizer cannot see it. Without it,
        any tensor of the launch counts.
        """
        a = ptrs.view(np.int64) if ptrs.dtype.itemsize == 8 else ptrs.astype(np.int64)
        if mask is not None:  # a scalar mask (``b < B``) may come as another integer type: index by lanes, not values
            mask = np.broadcast_to(np.asarray(mask, dtype=bool), a.shape)
        home = self.home(root)
        lo, hi = (self._lo, self._hi) if home is None else home[:2]
        if lo.size == 1:
            ok = (a >= lo[0]) & (a <= hi[0] - size)
        elif lo.size == 0:
            ok = np.zeros(a.shape, dtype=bool)
        else:
            i = np.searchsorted(lo, a, side="right") - 1
            ok = (i >= 0) & (a <= hi[i] - size)
        bad = ~ok if mask is None else mask & ~ok
        new_mask: np.ndarray | None = None
        file = line = None
        if bad.any():
            file, line = where()
            good = ok if mask is None else mask & ok
            self._out_of_bounds(a, bad, a[good], size, direction, file, line, home[2] if home else None)
            new_mask = ok if mask is None else mask & ok
        if self.races:
            live = new_mask if new_mask is not None else mask
            touched = a.reshape(-1).copy() if live is None else a[live]
            if touched.size:
                if file is None:
                    file, line = where()
                sid = self.site(file, line, direction, size)
                if direction == "read":
                    self.reads.add(touched, self.prog, sid, self.epoch)
                elif direction == "write":
                    self.writes.add(touched, self.prog, sid, self.epoch)
                else:
                    self.atomics.add(touched, self.prog, sid, self.epoch)
                    if sync:
                        self.sync_atomics.setdefault(self.prog, []).append((self.epoch, np.unique(touched)))
        if direction == "atomic":
            self.epoch += 1
        return new_mask

    def nearest(self, addr: int, size: int) -> tuple[Region | None, int | None]:
        """The region nearest an address and the distance, memcheck's way: ``d`` bytes after its end (the first byte
        past the end is 1 byte after), or ``-d`` bytes before its start."""
        best: tuple[Region | None, int | None] = (None, None)
        for r in self.regions:
            d = _distance(r, addr, size)
            if best[1] is None or abs(d) < abs(best[1]):
                best = (r, d)
        return best

    def owner(self, addr: int, size: int, in_bounds: np.ndarray) -> tuple[Region | None, int | None]:
        """The tensor an out-of-bounds address was meant for. One load or store reaches one tensor, so when the
        same access's in-bounds lanes all lie in one tensor, that is the one (a gather index past the end of its
        table belongs to the table, even when another allocation happens to start nearer). Without such lanes,
        or when they span several tensors, the nearest tensor, as compute-sanitizer reports it."""
        if in_bounds.size:
            lo, hi = int(in_bounds.min()), int(in_bounds.max())
            holding = [r for r in self.regions if r.lo <= lo and hi + size <= r.hi]
            if holding:
                r = min(holding, key=lambda r: r.size)
                return r, _distance(r, addr, size)
        return self.nearest(addr, size)

    def _out_of_bounds(self, a: np.ndarray, bad: np.ndarray, in_bounds: np.ndarray, size: int, direction: str,
                       file: str | None, line: int | None, home: Region | None = None) -> None:
        flat = np.flatnonzero(bad)
        lane = tuple(int(v) for v in np.unravel_index(int(flat[0]), bad.shape))
        addr = int(a[lane]) & (2**64 - 1)
        signed = addr if addr < 2**63 else addr - 2**64
        region, dist = (home, _distance(home, signed, size)) if home is not None else self.owner(signed, size,
                                                                                                 in_bounds)
        pid = self.pid
        msg = (f"out-of-bounds {direction} of {size} bytes at 0x{addr:x} in lane {lane} of program "
               f"({pid[0]},{pid[1]},{pid[2]})")
        if region is not None and dist is not None:
            side = "after" if dist >= 0 else "before"
            msg += (f": {abs(dist)} bytes {side} tensor '{region.name}' ({region.size} bytes, "
                    f"{region.dtype}{list(region.shape)})")
            if addr >= region.hi:
                # compute-sanitizer's count, kept for one vocabulary: "1 bytes after" is the first byte past the end
                msg += (", the access starting right at its end" if addr == region.hi
                        else f", the access starting {addr - region.hi} bytes past its end")
        if home is not None:
            inside = self._region_of(signed)
            if inside is not None and inside is not home:
                msg += f", inside tensor '{inside.name}' (an allocation it was not computed from)"
        if flat.size > 1:
            msg += f"; {flat.size} of {bad.size} lanes out of bounds"
        finding = Finding(tool=TOOL, kind="out-of-bounds", severity="error", message=msg, kernel=self.kernel,
                          file=file, line=line, thread=None, block=pid, lane=lane,
                          tensor=region.name if region is not None else None, address=addr, size=size,
                          direction=direction, space="global", distance=dist,
                          allocation_size=region.size if region is not None else None, count=int(flat.size))
        self.records.append(Record(finding, region.name if region is not None else None, lane))

    # -- races, at the end of the launch ----------------------------------------------------------------------------
    def races_found(self) -> list[Record]:
        """race-WW: an address written without atomics by one program and written (or updated atomically) by
        another; race-RW: an address read by one program and written without atomics by another. Accesses that
        atomics order (a release after one, an acquire before the other, on a common address) are not races."""
        wa, wp, ws, we = self.writes.arrays()
        if wa.size == 0:
            return []
        o = np.lexsort((wp, wa))
        wa, wp, ws, we = wa[o], wp[o], ws[o], we[o]
        starts = np.flatnonzero(np.r_[True, wa[1:] != wa[:-1]])
        ends = np.r_[starts[1:], wa.size] - 1
        ua = wa[starts]  # addresses written, each once; first writer (lowest program) at starts, last at ends
        pairs: list[tuple[str, np.ndarray, np.ndarray, np.ndarray]] = []  # (kind, addr, source idx, dest idx)

        # write-write: every write or atomic to an address by another program than its first non-atomic writer
        ra, rp, rs, re_ = self.atomics.arrays()
        for ca, cp, cs, ce in ((wa, wp, ws, we), (ra, rp, rs, re_)):
            if ca.size == 0:
                continue
            i = np.minimum(np.searchsorted(ua, ca), ua.size - 1)
            hit = ua[i] == ca
            conflict = hit & (wp[starts[i]] != cp)
            if conflict.any():
                src = starts[i[conflict]]
                pairs.append(("race-WW", ca[conflict], np.stack([wp[src], ws[src], we[src]]),
                              np.stack([cp[conflict], cs[conflict], ce[conflict]])))
        # read-write: a read of an address another program writes without atomics
        ra, rp, rs, re_ = self.reads.arrays()
        if ra.size:
            i = np.minimum(np.searchsorted(ua, ra), ua.size - 1)
            hit = ua[i] == ra
            first, last = wp[starts[i]], wp[ends[i]]
            conflict = hit & ((first != rp) | (last != rp))
            if conflict.any():
                j = np.where(first != rp, starts[i], ends[i])[conflict]
                pairs.append(("race-RW", ra[conflict], np.stack([wp[j], ws[j], we[j]]),
                              np.stack([rp[conflict], rs[conflict], re_[conflict]])))
        out: list[Record] = []
        for kind, addr, src, dst in pairs:
            keep = self._unordered(src, dst)
            if keep.any():
                out.extend(self._race_records(kind, addr[keep], src[:, keep], dst[:, keep]))
        return out

    def _unordered(self, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
        """Which (program, site, epoch) pairs no atomics order (True: a race)."""
        keep = np.ones(src.shape[1], dtype=bool)
        if not self.sync_atomics:
            return keep
        pos = np.empty(self.order.size, dtype=np.int64)
        pos[self.order] = np.arange(self.order.size)
        rows = np.stack([src[0], src[2], dst[0], dst[2]], axis=1)
        uniq, inverse = np.unique(rows, axis=0, return_inverse=True)
        ordered = np.zeros(uniq.shape[0], dtype=bool)
        for k, (p1, e1, p2, e2) in enumerate(uniq.tolist()):
            if pos[p1] > pos[p2]:  # p1 ran first
                p1, e1, p2, e2 = p2, e2, p1, e1
            # a release by the first program after its access, an acquire by the second before its access
            after = [s for step, s in self.sync_atomics.get(p1, []) if step >= e1]
            before = [s for step, s in self.sync_atomics.get(p2, []) if step < e2]
            if after and before:
                ordered[k] = np.intersect1d(np.concatenate(after), np.concatenate(before)).size > 0
        return keep & ~ordered[inverse.reshape(-1)]

    def _race_records(self, kind: str, addr: np.ndarray, src: np.ndarray, dst: np.ndarray) -> list[Record]:
        """One record per (source site, destination site), shown by one of its pairs: one whose source ran before
        its destination if there is one, then the one whose destination ran first."""
        pos = np.empty(self.order.size, dtype=np.int64)
        pos[self.order] = np.arange(self.order.size)
        keys = src[1] * len(self.sites) + dst[1]
        out: list[Record] = []
        for key in np.unique(keys):
            sel = np.flatnonzero(keys == key)
            src_later = pos[src[0, sel]] > pos[dst[0, sel]]
            best = sel[np.lexsort((addr[sel], pos[dst[0, sel]], src_later))[0]]
            s_file, s_line, s_dir, _ = self.sites[int(src[1, best])]
            d_file, d_line, d_dir, d_size = self.sites[int(dst[1, best])]
            s_pid, d_pid = self.unravel(int(src[0, best])), self.unravel(int(dst[0, best]))
            a = int(addr[best])
            region = self._region_of(a)
            programs = np.unique(np.concatenate([src[0, sel], dst[0, sel]])).size
            n_addr = np.unique(addr[sel]).size
            what = "written by two programs without atomics" if kind == "race-WW" else \
                "read by one program and written by another without atomics"
            msg = (f"{kind}: address 0x{a:x} ({_tensor_text(region, a)}) {what}: {s_dir} by program "
                   f"({s_pid[0]},{s_pid[1]},{s_pid[2]}) at {_loc(s_file, s_line)}, {d_dir} by program "
                   f"({d_pid[0]},{d_pid[1]},{d_pid[2]}) at {_loc(d_file, d_line)}; {n_addr} addresses, "
                   f"{programs} programs")
            finding = Finding(tool=TOOL, kind=kind, severity="error", message=msg, kernel=self.kernel, file=d_file,
                              line=d_line, thread=None, block=d_pid, address=a, size=d_size, direction=d_dir,
                              space="global", allocation_size=region.size if region is not None else None,
                              tensor=region.name if region is not None else None,
                              source=Access(block=s_pid, file=s_file, line=s_line, direction=s_dir),
                              destination=Access(block=d_pid, file=d_file, line=d_line, direction=d_dir),
                              hazards=int(sel.size))
            out.append(Record(finding, region.name if region is not None else None, None))
        return out

    def _region_of(self, addr: int) -> Region | None:
        inside = [r for r in self.regions if r.lo <= addr < r.hi]
        return min(inside, key=lambda r: r.size) if inside else None


def _merged(regions: Iterable[Region]) -> tuple[np.ndarray, np.ndarray]:
    """The regions' bytes as sorted, disjoint [lo, hi) spans."""
    merged: list[list[int]] = []
    for lo, hi in sorted((r.lo, r.hi) for r in regions if r.hi > r.lo):
        if merged and lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    return (np.array([m[0] for m in merged], dtype=np.int64), np.array([m[1] for m in merged], dtype=np.int64))


def _distance(r: Region, addr: int, size: int) -> int:
    """memcheck's distance: ``d`` bytes after the end (the first byte past the end is 1 byte after), ``-d`` bytes
    before the start, or, for an access that starts inside and ends past the end, the bytes it overhangs."""
    if addr < r.lo:
        return addr - r.lo
    if addr >= r.hi:
        return addr - r.hi + 1
    return addr + size - r.hi


def _loc(file: str | None, line: int | None) -> str:
    return f"{file}:{line}" if file else "unknown location"


def _tensor_text(region: Region | None, addr: int) -> str:
    if region is None:
        return "no tensor argument"
    return f"byte {addr - region.lo} of tensor '{region.name}'"
