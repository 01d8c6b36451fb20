"""What every request passes first: the limit on its body's size."""

from __future__ import annotations

from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tttlab.web.checking import MAX_UPLOAD

__all__ = ["MAX_BODY", "BodyLimit", "body_limit"]

#: Largest request body accepted, in bytes (an uploaded exercise: ``MAX_UPLOAD``).
MAX_BODY = 16 * 1024


def body_limit(path: str) -> int:
    """The largest body, in bytes, that a request to ``path`` may send.

    Example:
        >>> body_limit("/api/train")
        16384
    """
    return MAX_UPLOAD if path == "/api/check" else MAX_BODY


class BodyLimit:
    """Refuses a request body past its limit with a 413 (:data:`MAX_BODY`, or
    :data:`MAX_UPLOAD` for an uploaded exercise), whether or not it says its length. Plain
    ASGI: the routes still see the client go away (``request.is_disconnected``)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        most = body_limit(scope["path"])
        too_big = JSONResponse(
            {"error": f"request bodies are limited to {most} bytes"}, status_code=413
        )
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > most):
            await too_big(scope, receive, send)
            return
        if scope["method"] in ("POST", "PUT", "PATCH") and length is None:
            body, more = b"", True
            while more:
                message = await receive()
                if message["type"] != "http.request":
                    break
                body += message.get("body", b"")
                more = message.get("more_body", False)
                if len(body) > most:
                    await too_big(scope, receive, send)
                    return
            replayed = False

            async def replay() -> Message:  # the body once, then the client's own messages
                nonlocal replayed
                if not replayed:
                    replayed = True
                    return {"type": "http.request", "body": body, "more_body": False}
                return await receive()

            await self.app(scope, replay, send)
            return
        await self.app(scope, receive, send)
