"""Secret redaction (R1) over a long session, and the context at a node (X1).

Every request, page and shared export passes through the redactor, so its cost per
megabyte of text matters on a long path. CPU time is reported beside wall time, since wall
time on a shared machine mostly measures the neighbours.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from explorer.app.context.at import context_at
from explorer.app.sharing import image_ocr
from explorer.app.sharing.redaction import redact_export
from explorer.compaction.target import Target
from explorer.store import Store
from explorer.tree.image_secrets import redact_image
from explorer.tree.model import Message, Part
from explorer.tree.secrets import SecretRedactor, redact_messages
from tests.benchmarks.harness import Result

AREA = "what the model saw"
MESSAGES = 2_000
LINE = ("def load(path: str) -> list[Row]:  # reads src/jobs/import_orders.py, token count 1204 "
        "and the commit 3f9a1c2e; max_tokens=4096 password: str\n")
SECRET = "export OPENAI_API_KEY=sk-proj-Zq8vN3xW7yT2uK9pL4mR6sJ1hG5fD0aBcE3iO8nQ\n"


def _messages() -> list[Message]:
    out = []
    for i in range(MESSAGES):
        text = LINE * 16 + (SECRET if i % 100 == 7 else "")
        out.append(Message(i, i - 1 if i else None, "user" if i % 2 == 0 else "assistant",
                           [Part("text", text)]))
    return out


def _measure(fn: Callable[[], object]) -> tuple[float, float]:
    w0, c0 = time.perf_counter(), time.process_time()
    fn()
    return (time.perf_counter() - w0) * 1000, (time.process_time() - c0) * 1000


def run() -> list[Result]:
    messages = _messages()
    megabytes = sum(len(p.text) for m in messages for p in m.parts) / 1e6
    found: list[int] = []
    wall, cpu = _measure(lambda: found.append(len(redact_messages(messages)[1])))
    results = [
        Result(AREA, f"redact {MESSAGES:,} messages ({megabytes:.1f} MB), CPU", cpu, "ms"),
        Result(AREA, f"redact {MESSAGES:,} messages, wall (loaded machine)", wall, "ms"),
        Result(AREA, "redaction throughput (CPU)", megabytes / (cpu / 1000), "MB/s", "≥ 5 MB/s",
               megabytes / (cpu / 1000) >= 5),
        Result(AREA, "planted secrets found", float(found[0]), "", f"= {MESSAGES // 100}",
               found[0] == MESSAGES // 100),
    ]
    results += _export_and_images(messages)
    with tempfile.TemporaryDirectory() as d, Store(Path(d) / "bench.db") as s:
        conv = s.create_conversation("bench")
        for _ in range(200):
            s.append_turn(conv, [Message(None, None, "user", [Part("text", LINE * 8)]),
                                 Message(None, None, "assistant", [Part("text", LINE * 8)])])
        tip = s.conversation(conv).tip_id or 0
        target = Target.default("anthropic", window=60_000, output_reserve=2000,
                                redactor=SecretRedactor())
        wall, cpu = _measure(lambda: context_at(s, conv, tip, target))
        results.append(Result(AREA, "context at the tip of 400 messages, pages drawn (CPU)",
                              cpu, "ms"))
        results.append(Result(AREA, "context at the tip of 400 messages, wall", wall, "ms"))
    return results


def _screenshot(width: int, height: int, fmt: str) -> bytes:
    """A noisy picture (so it does not compress to nothing) with a comment chunk or EXIF."""
    import io
    import random

    from PIL import Image, ImageDraw
    from PIL.PngImagePlugin import PngInfo

    rnd = random.Random(7)
    im = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(im)
    for _ in range(4000):
        x, y = rnd.randrange(width), rnd.randrange(height)
        draw.rectangle((x, y, x + 6, y + 3), fill=(rnd.randrange(256), 40, 90))
    draw.text((20, 20), SECRET.strip(), fill="black")
    buf = io.BytesIO()
    if fmt == "PNG":
        info = PngInfo()
        info.add_text("Comment", "shot of the console " + SECRET)
        im.save(buf, "PNG", pnginfo=info)
    else:
        exif = Image.Exif()
        exif[0x010E] = "shot of the console " + SECRET
        im.save(buf, "JPEG", exif=exif.tobytes(), quality=90)
    return buf.getvalue()


def _export_and_images(messages: list[Message]) -> list[Result]:
    """What scanning the fields beside the text and the images' metadata adds."""
    tagged = [Message(m.id, m.parent_id, m.role, m.parts, model="claude-sonnet-4-5",
                      source_meta={"cwd": "/srv/app", "api": "anthropic-messages",
                                   "usage": {"input": 1204, "output": 96}})
              for m in messages]
    header = {"title": "bench", "meta": {"cwd": "/srv/app"}, "checkpoints": {"v1": 3}}
    _, text_cpu = _measure(lambda: redact_messages(tagged))
    _, all_cpu = _measure(lambda: redact_export(tagged, dict(header)))
    out = [Result(AREA, f"export redaction of {MESSAGES:,} messages with their fields, CPU",
                  all_cpu, "ms"),
           Result(AREA, "of which the fields beside the text (model, source, header), CPU",
                  max(0.0, all_cpu - text_cpu), "ms")]
    for fmt in ("PNG", "JPEG"):
        data = _screenshot(1600, 1000, fmt)
        found: list[list[str]] = []
        _, cpu = _measure(lambda data=data, found=found: [
            found.append(redact_image(data)[1]) for _ in range(10)])
        out.append(Result(AREA, f"image metadata scan, {fmt} {len(data) / 1e6:.2f} MB, CPU "
                          "per image", cpu / 10, "ms", "key found",
                          found[0] in (["openai-key"], ["openai-key"] * 2)))
    program = image_ocr.tesseract()
    if program is not None:  # optional: OCR costs a subprocess per new image
        data = _screenshot(1600, 1000, "PNG")
        reader = image_ocr.OcrReader(program)
        t0 = _children_cpu()
        wall, cpu = _measure(lambda: reader(data))
        ocr_cpu = cpu + (_children_cpu() - t0) * 1000
        out.append(Result(AREA, "OCR of one 1600×1000 screenshot (tesseract, CPU incl. child)",
                          ocr_cpu, "ms"))
        out.append(Result(AREA, "OCR of one screenshot, wall (loaded machine)", wall, "ms"))
        _, cached = _measure(lambda: reader(data))
        out.append(Result(AREA, "OCR of the same screenshot again (cached), CPU", cached, "ms"))
    return out


def _children_cpu() -> float:
    import os

    t = os.times()
    return t.children_user + t.children_system
