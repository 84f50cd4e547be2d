"""A pairwise covering design: few cases in which every pair of factor values appears together at least once.

Bugs that need two factors at once (an fp16 running sum that goes wrong only at a long reduction; position indices
held in bf16, wrong only past 256 rows) pass a one-factor-at-a-time matrix, which runs each precision at one or two
shapes only. Every such bug needs some *pair* of values together; a pairwise design covers them all in a number of
cases close to the product of the two largest factors' level counts, not the product of all of them.

The construction is the greedy one of AETG (Cohen, Dalal, Fredman, Patton, "The AETG system", IEEE TSE 1997): each new
row starts from a pair not yet covered, fills the other factors one at a time (in a random order) with the value that
covers the most new pairs, keeps the best of a few such candidates, and stops when every pair is covered or the
budget is spent. A candidate whose ``key`` (what the kernel is compiled for: precision, configuration, layout,
which sizes are 1 or multiples of 16) an earlier case already has is kept over one covering up to twice as many new
pairs: on a GPU each new key costs a compile, which dominates a small case's time. A row the device cannot run
(``feasible`` says no) is never kept; a pair that no feasible row can hold (two real sizes whose product is past the
CPU's budget) is dropped from the goal and counted as infeasible.
Seeded: the same Spec gives the same rows.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Row = dict[str, Any]
Pair = tuple[tuple[str, Any], tuple[str, Any]]

#: Candidate rows built per row kept (AETG uses 50; fewer is enough for the handful of factors a Spec has).
CANDIDATES = 16
#: A candidate whose compile key is already known is kept over one with more new pairs down to this share of them.
KNOWN_KEY_GAIN = 0.5
#: New pairs a kept row may give up to take a known key instead (``_toward_known``): the pair is left for a later
#: row, which covers it at no extra compile when it can. On the shipped Triton examples (an H200's matrix) this
#: takes the compile keys the pairwise cases add from 53 to 31, the pairs covered within the same budget 1492 -> 1473.
KEY_LOSS = 1


@dataclass(frozen=True)
class Covering:
    rows: list[Row]
    pairs: int  # pairs of values the design aimed at
    covered: int  # pairs at least one row holds
    infeasible: int  # pairs no runnable row can hold


def _pairs_of(row: Row, names: Sequence[str]) -> set[Pair]:
    return {((a, row[a]), (b, row[b])) for a, b in itertools.combinations(names, 2)}


def pairwise(factors: Mapping[str, Sequence[Any]], *, seed: int, budget: int,
             feasible: Callable[[Row], bool] = lambda row: True,
             key: Callable[[Row], Hashable] | None = None, seen: set[Hashable] | None = None) -> Covering:
    """Rows over ``factors`` (name -> levels) covering every feasible pair of levels, at most ``budget`` rows.
    ``key(row)`` and ``seen`` (the keys of the cases already planned; updated) break ties in favour of known keys."""
    seen = set() if seen is None else seen
    names = [n for n, levels in factors.items() if levels]
    rng = random.Random(seed)
    goal = {((a, va), (b, vb)) for a, b in itertools.combinations(names, 2) for va in factors[a] for vb in factors[b]}
    todo = set(goal)
    rows: list[Row] = []
    infeasible = 0
    while todo and len(rows) < budget:
        start = rng.choice(sorted(todo, key=repr))
        scored: list[tuple[int, bool, Row]] = []
        for _ in range(CANDIDATES):
            row = _candidate(factors, names, start, todo, rng)
            if feasible(row):
                scored.append((len(_pairs_of(row, names) & todo), key is not None and key(row) in seen, row))
        if not scored:  # no runnable row holds this pair
            todo.discard(start)
            infeasible += 1
            continue
        top = max(s[0] for s in scored)
        known = [s for s in scored if s[1] and s[0] >= KNOWN_KEY_GAIN * top]
        best = max(known or scored, key=lambda s: s[0])[2]
        if key is not None and key(best) not in seen:
            best = _toward_known(best, factors, names, todo, feasible, key, seen, rng)
        rows.append(best)
        todo -= _pairs_of(best, names)
        if key is not None:
            seen.add(key(best))
    return Covering(rows, len(goal), len(goal) - len(todo) - infeasible, infeasible)


def _toward_known(row: Row, factors: Mapping[str, Sequence[Any]], names: Sequence[str], todo: set[Pair],
                  feasible: Callable[[Row], bool], key: Callable[[Row], Hashable], seen: set[Hashable],
                  rng: random.Random) -> Row:
    """``row`` with one or two factors changed so that its key is a known one, where that covers as many new pairs
    (``KEY_LOSS`` fewer at most): a factor whose pairs with the others are covered already (a size of the same
    residue, another pattern) is free to take the value that spares a compile. ``row`` itself when no such change
    exists."""
    gain = len(_pairs_of(row, names) & todo)
    order = list(names)
    rng.shuffle(order)
    for width in (1, 2):
        for chosen in itertools.combinations(order, width):
            for values in itertools.product(*(factors[n] for n in chosen)):
                other = dict(row)
                other.update(zip(chosen, values, strict=True))
                if other == row or key(other) not in seen or not feasible(other):
                    continue
                if len(_pairs_of(other, names) & todo) >= gain - KEY_LOSS:
                    return other
    return row


def _candidate(factors: Mapping[str, Sequence[Any]], names: Sequence[str], start: Pair, todo: set[Pair],
               rng: random.Random) -> Row:
    row: Row = dict(start)
    rest = [n for n in names if n not in row]
    rng.shuffle(rest)
    for name in rest:
        scored = []
        for value in factors[name]:
            gain = sum(((other, row[other]), (name, value)) in todo or ((name, value), (other, row[other])) in todo
                       for other in row)
            scored.append((gain, rng.random(), value))
        row[name] = max(scored, key=lambda s: (s[0], s[1]))[2]
    return row
