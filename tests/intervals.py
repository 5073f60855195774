"""Interval arithmetic in plain Python (and a numpy nanosecond grid), the independent computation tests check
unions, overlaps and idle time against."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np


def union(intervals: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Disjoint sorted pieces covering the intervals."""
    merged: list[list[int]] = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(s, e) for s, e in merged]


def length(pieces: list[tuple[int, int]]) -> int:
    """Total length of disjoint pieces."""
    return sum(end - start for start, end in pieces)


def intersection_length(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> int:
    """Length of the intersection of two unions of disjoint sorted pieces (two pointers)."""
    total, i, j = 0, 0, 0
    while i < len(a) and j < len(b):
        total += max(0, min(a[i][1], b[j][1]) - max(a[i][0], b[j][0]))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


def subtract(pieces: list[tuple[int, int]], others: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The parts of disjoint sorted `pieces` outside the disjoint sorted `others`."""
    result = []
    for start, end in pieces:
        for other_start, other_end in others:
            if other_end <= start or other_start >= end:
                continue
            if other_start > start:
                result.append((start, other_start))
            start = max(start, other_end)
        if start < end:
            result.append((start, end))
    return result


def grid(intervals: list[tuple[int, int]], low: int, high: int) -> np.ndarray:
    """A boolean array over [low, high): True where one of the intervals runs (the brute-force union)."""
    running = np.zeros(high - low, dtype=bool)
    for start, end in intervals:
        running[max(start, low) - low:max(min(end, high), low) - low] = True
    return running


def read_csv(path: Path) -> list[dict[str, str]]:
    """The rows of a CSV export, as text."""
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))
