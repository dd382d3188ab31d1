"""The request size budget: a body over `max_bytes` gets 413 with a JSON error, read no further.

Checked on the declared Content-Length first, then on the bytes actually received (a chunked
body declares none), so an oversized body is never buffered whole.
"""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class _TooLarge(Exception):
    pass


class BodySizeLimit:
    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    def _error(self) -> bytes:
        return json.dumps(
            {
                "error": f"request body over max_request_bytes={self.max_bytes}",
                "detail": "send less context or a shorter answer, or raise "
                "HALLMON_SERVE__MAX_REQUEST_BYTES",
            }
        ).encode()

    async def _reject(self, send: Send) -> None:
        body = self._error()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = 0
                if declared > self.max_bytes:
                    await self._reject(send)
                    return
        received = 0
        too_large = False
        started = False

        async def limited_receive() -> Message:
            nonlocal received, too_large
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    too_large = True
                    raise _TooLarge
            return message

        async def guarded_send(message: Message) -> None:
            # The framework may turn the receive error into its own answer (400): once the
            # budget is blown, the answer is the 413, whatever the app sends.
            nonlocal started
            if too_large:
                if not started:
                    started = True
                    await self._reject(send)
                return
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, guarded_send)
        except _TooLarge:
            if not started:
                await self._reject(send)
