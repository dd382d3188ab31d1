"""Physical units: a figure the answer converted from one stated in another unit.

"10 ft wide by 15 ft deep … about 3 m by 4.6 m", "a TTL of 14,400 seconds, so up to 4 hours",
"150 sq ft, or roughly 14 square metres": the converted figure is in no source, yet it is the
source's figure. A figure backs another here when, converted to the other's unit, it rounds to
it at the precision the claim states (half its last digit), or within its hedge ("about").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from itertools import islice

from hallmon.verification.numbers import Quantity, distinct_quantities

# (pattern, dimension, factors to the dimension's base unit: several where the unit is
# spelled alike in two systems, the US and the imperial gallon)
_UNITS: tuple[tuple[str, str, tuple[float, ...]], ...] = (
    (r"sq(?:uare)?\.?\s*(?:ft|feet|foot)|sqft|ft²|ft2", "area", (0.09290304,)),
    (r"sq(?:uare)?\.?\s*(?:m|met(?:re|er)s?)|sqm|m²|m2", "area", (1.0,)),
    (r"acres?", "area", (4046.8564224,)),
    (r"hectares?", "area", (10_000.0,)),
    (r"km/h|kph|kmh|kilomet(?:re|er)s?\s+(?:per|an)\s+hour", "speed", (1 / 3.6,)),
    (r"mph|miles?\s+(?:per|an)\s+hour", "speed", (0.44704,)),
    (r"mm|millimet(?:re|er)s?", "length", (0.001,)),
    (r"cm|centimet(?:re|er)s?", "length", (0.01,)),
    (r"km|kilomet(?:re|er)s?", "length", (1000.0,)),
    (r"m|met(?:re|er)s?", "length", (1.0,)),
    (r"inch(?:es)?", "length", (0.0254,)),
    (r"ft|feet|foot", "length", (0.3048,)),
    (r"yd|yards?", "length", (0.9144,)),
    (r"mi|miles?", "length", (1609.344,)),
    (r"kg|kilos?|kilograms?|kgs", "mass", (1.0,)),
    (r"g|grams?", "mass", (0.001,)),
    (r"lbs?", "mass", (0.45359237,)),
    (r"oz|ounces?", "mass", (0.028349523125,)),
    (r"tonnes?", "mass", (1000.0,)),
    (r"ml|millilit(?:re|er)s?", "volume", (0.001,)),
    (r"l|lit(?:re|er)s?", "volume", (1.0,)),
    (r"gal(?:lons?)?", "volume", (3.785411784, 4.54609)),
    (r"s|secs?|seconds?", "time", (1.0,)),
    (r"mins?|minutes?", "time", (60.0,)),
    (r"h|hrs?|hours?", "time", (3600.0,)),
    (r"days?", "time", (86_400.0,)),
    (r"weeks?", "time", (604_800.0,)),
    (r"°\s?c|degrees?\s+(?:c|celsius)|celsius", "temperature", (1.0,)),
    (r"°\s?f|degrees?\s+(?:f|fahrenheit)|fahrenheit", "temperature", (-1.0,)),
)
_AFTER = [
    (re.compile(rf"\s?(?:{p})(?![\w²])", re.I), dim, f) for p, dim, f in _UNITS
]  # fmt: skip
# A unit at the end of a rendered field's key ("Width ft: 10", "Floor area sqft: 150").
_KEY_UNIT = re.compile(r"(?:^|[\s_])([a-z²0-9]+)\s*:\s*$", re.I)
_NUMERAL = re.compile(r"[\d][\d,]*(?:\.\d+)?")


@dataclass(frozen=True)
class Measure:
    value: float
    dimension: str
    factors: tuple[float, ...]
    text: str


def _unit(text: str, dimension_at: int) -> tuple[str, tuple[float, ...]] | None:
    for pattern, dim, factors in _AFTER:
        if pattern.match(text, dimension_at):
            return dim, factors
    return None


def measure_of(q: Quantity, text: str) -> Measure | None:
    """`q` as a physical measure: its value and the unit written after its number in `text`
    (or at the end of the field key before it), or None."""
    if q.kind != "number" or len(q.values) != 1:
        return None
    numeral = _NUMERAL.match(text, q.start)
    if numeral is None:
        return None
    unit = _unit(text, numeral.end())
    if unit is None:
        key = _KEY_UNIT.search(text, max(0, q.start - 40), q.start)
        if key is not None:
            unit = _unit(key.group(1) + " ", 0) if key.group(1) else None
    if unit is None:
        return None
    return Measure(next(iter(q.values)), unit[0], unit[1], q.text)


def _in_base(m: Measure) -> list[float]:
    if m.dimension == "temperature":  # to Celsius; a negative factor marks Fahrenheit
        return [(m.value - 32) * 5 / 9 if m.factors[0] < 0 else m.value]
    return [m.value * f for f in m.factors]


def _half_last_digit(literal: str) -> float:
    digits = _NUMERAL.search(literal)
    if digits is None or "." not in digits.group(0):
        return 0.5
    return 0.5 / 10.0 ** len(digits.group(0).split(".", 1)[1])


MAX_MEASURES = 256
"""Measures of one source text a conversion is compared with (bounds hostile input)."""


@lru_cache(maxsize=256)
def measures_in(text: str) -> tuple[Measure, ...]:
    """The physical measures among a text's figures, read once per text."""
    found = (measure_of(q, text) for q in distinct_quantities(text))
    return tuple(islice((m for m in found if m is not None), MAX_MEASURES))


def converted_from(
    q: Quantity,
    text: str,
    own: Iterable[Quantity],
    texts: Iterable[str] = (),
    elsewhere: Iterable[tuple[Quantity, str]] = (),
) -> str | None:
    """How the claim's figure `q` (in `text`) is a known figure in another unit of the same
    dimension, or None: one of the claim's own grounded figures (`own`, in `text`), of the
    measures in `texts` (the sources), or of `elsewhere` (the answer's grounded figures, each
    with the text it stands in)."""
    target = measure_of(q, text)
    if target is None:
        return None
    slack = max(_half_last_digit(target.text), q.tolerance)
    pool = [m for k in own if k is not q and (m := measure_of(k, text)) is not None]
    pool += [m for k, k_text in elsewhere if (m := measure_of(k, k_text)) is not None]
    for t in texts:
        pool.extend(measures_in(t))
    for source in pool:
        if source.dimension != target.dimension or source.factors == target.factors:
            continue
        for base in _in_base(source):
            if target.dimension == "temperature":
                values = [base if target.factors[0] > 0 else base * 9 / 5 + 32]
            else:
                values = [base / f for f in target.factors]
            if any(abs(v - target.value) <= slack for v in values):
                return f"{q.describe()} is '{source.text}' in other units"
    return None


__all__ = ["Measure", "converted_from", "measure_of"]
