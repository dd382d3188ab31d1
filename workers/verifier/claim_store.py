"""The session claim store: each checked answer's claims, kept in Redis for the session
conflict check of the answers after it.

Keys (hash-tagged by session, one cluster slot per session):

    <p>:claims:{<session>}:answers   LIST  one JSON entry per answer: response id and claims
                                           (capped to the last `window` answers)
    <p>:claims:{<session>}:ids       SET   response ids stored, so a redelivery stores nothing

`earlier` reads the answers stored *before* the given response (all of them when it is not
stored yet), so a redelivered answer is compared with exactly what its first delivery saw.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import redis.asyncio as aioredis

from hallmon.verification.conflicts import EarlierClaim

_REMEMBER_SCRIPT = """
-- KEYS: answers, ids; ARGV: response_id, entry JSON, window, ttl_s
if redis.call('SADD', KEYS[2], ARGV[1]) == 1 then
  redis.call('RPUSH', KEYS[1], ARGV[2])
  redis.call('LTRIM', KEYS[1], -tonumber(ARGV[3]) - 1, -1)
end
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[4]))
redis.call('EXPIRE', KEYS[2], tonumber(ARGV[4]))
return 1
"""


class ClaimStore:
    """Per-session claims of earlier answers, in Redis."""

    def __init__(
        self, client: aioredis.Redis, *, window: int, ttl_s: int, key_prefix: str = "hallmon"
    ) -> None:
        self.redis = client
        self.window = window
        self.ttl_s = ttl_s
        self.key_prefix = key_prefix
        self._remember = client.register_script(_REMEMBER_SCRIPT)

    def keys(self, session_id: str) -> list[str]:
        base = f"{self.key_prefix}:claims:{{{session_id}}}"
        return [f"{base}:answers", f"{base}:ids"]

    async def earlier(self, session_id: str, response_id: str) -> list[EarlierClaim]:
        """The claims of the last `window` answers stored before `response_id`, oldest first."""
        raw = await self.redis.lrange(self.keys(session_id)[0], 0, -1)
        entries: list[dict[str, Any]] = [json.loads(r) for r in raw]
        mine = next((i for i, e in enumerate(entries) if e["response_id"] == response_id), None)
        if mine is not None:
            entries = entries[:mine]
        out: list[EarlierClaim] = []
        for e in entries[-self.window :]:
            for claim_id, text, start, end in e["claims"]:
                out.append(EarlierClaim(e["response_id"], claim_id, text, start, end))
        return out

    async def remember(
        self, session_id: str, response_id: str, claims: Sequence[EarlierClaim]
    ) -> None:
        """Store the answer's claims once (a redelivery stores nothing)."""
        entry = {
            "response_id": response_id,
            "claims": [[c.claim_id, c.text, c.start, c.end] for c in claims],
        }
        await self._remember(
            keys=self.keys(session_id),
            args=[response_id, json.dumps(entry), self.window, self.ttl_s],
        )


__all__ = ["ClaimStore"]
