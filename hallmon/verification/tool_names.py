"""What a tool's name says: its words, and whether it only reads.

One reading for every check that looks at a call's name (the action and tool-fact checks,
and the record check, which asks whether a call was to fill a field a lookup left empty)."""

from __future__ import annotations

import re

LOOKUP_VERBS = frozenset(
    {"get", "track", "tracking", "lookup", "status", "search", "list", "find", "fetch", "query",
     "read", "check", "view", "show", "describe", "retrieve", "info", "details"}
)  # fmt: skip

WRITE_VERBS = frozenset(
    {"update", "set", "create", "cancel", "refund", "send", "book", "change", "modify", "delete",
     "add", "remove", "issue", "apply", "upgrade", "extend", "waive", "submit", "post", "put",
     "patch", "reset", "close", "open", "approve", "reject", "schedule", "rebook", "resend",
     "block", "unblock", "freeze", "unfreeze", "lock", "suspend", "pause", "resume"}
)  # fmt: skip


def name_words(name: str) -> list[str]:
    """The words of a tool's name, lower case ("tibench.checkLock": tibench, check, lock)."""
    return [w.lower() for w in re.split(r"[._\-/\s:]+|(?<=[a-z])(?=[A-Z])", name[:200]) if w]


def is_lookup(tool: str) -> bool:
    """Whether a tool's name says it only reads ("orders.get", "getOrder", "status.check"),
    not "orders.update_status"."""
    words = set(name_words(tool))
    return bool(words & LOOKUP_VERBS) and not words & WRITE_VERBS
