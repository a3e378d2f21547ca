"""The loopback server: routes each request to its wire format and logs every body.

``python -m tests.corpus.fake_model.server PORTFILE [LOG]`` writes the port it listens on
to PORTFILE (and each request, one JSON line, to LOG); :class:`FakeModel` does the same
in-process for tests and the recorder.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.corpus.fake_model import anthropic, gemini, openai
from tests.corpus.fake_model.wire import send_json


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self.server.record({"method": "GET", "path": self.path})
        path = self.path.split("?")[0].rstrip("/")
        if path.endswith("/models"):
            send_json(self, 200, {"object": "list", "models": [],
                                  "data": [{"id": "fake-model", "object": "model"}]})
        else:
            send_json(self, 404, {"error": {"message": f"not found: {self.path}"}})

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        try:
            body: dict[str, Any] = json.loads(raw or b"{}")
        except ValueError:
            body = {"_raw": raw[:2000].decode("utf-8", "replace")}
        self.server.record({"method": "POST", "path": self.path,
                            "agent": self.headers.get("user-agent"), "body": body})
        path = self.path.split("?")[0].rstrip("/")
        if path.endswith("/count_tokens"):
            send_json(self, 200, {"input_tokens": 1000})
        elif path.endswith("/messages"):
            anthropic.answer(self, body)
        elif path.endswith("/chat/completions"):
            openai.chat(self, body)
        elif path.endswith("/responses"):
            openai.responses(self, body)
        elif ":streamGenerateContent" in path or ":generateContent" in path:
            gemini.answer(self, body, ":streamGenerateContent" in path)
        elif ":countTokens" in path:
            send_json(self, 200, {"totalTokens": 1000})
        else:
            send_json(self, 404, {"error": {"type": "not_found_error",
                                            "message": f"not found: {self.path}"}})


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, log: Path | None) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.log = log
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def record(self, entry: dict[str, Any]) -> None:
        entry = {"t": time.time(), **entry}
        with self.lock:
            self.requests.append(entry)
            if self.log is not None:
                with self.log.open("a", encoding="utf-8") as f:
                    f.write(json.dumps(entry) + "\n")


class FakeModel:
    """``with FakeModel() as fake: fake.url`` — a model on 127.0.0.1 for as long as needed."""

    def __init__(self, log: Path | None = None) -> None:
        self._server = _Server(log)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def requests(self) -> list[dict[str, Any]]:
        with self._server.lock:
            return list(self._server.requests)

    def __enter__(self) -> FakeModel:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def main(argv: list[str]) -> None:
    portfile = Path(argv[0])
    log = Path(argv[1]) if len(argv) > 1 else None
    with FakeModel(log) as fake:
        portfile.write_text(str(fake.port))
        threading.Event().wait()


if __name__ == "__main__":
    main(sys.argv[1:])
