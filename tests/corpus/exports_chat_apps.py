"""The Open WebUI, LibreChat, SillyTavern and claude.ai exports of the corpus, as each
product lays its export out (see tests/corpus/exports/README.md for what each exercises)."""

from __future__ import annotations

import base64
import json
from typing import Any

from tests.corpus.exports_chatgpt import png

ZERO = "00000000-0000-0000-0000-000000000000"


# -- Open WebUI: ``JSON.stringify`` of the chats, one line ---------------------------------

def _owui_message(key: str, parent: str | None, children: list[str], role: str,
                  content: str, ts: int, **extra: Any) -> dict[str, Any]:
    return {"id": key, "parentId": parent, "childrenIds": children, "role": role,
            "content": content, "timestamp": ts, **extra}


def _owui_chat(chat_id: str, title: str, models: list[str], messages: list[dict[str, Any]],
               current: str, created: int, updated: int, **extra: Any) -> dict[str, Any]:
    by_id = {m["id"]: m for m in messages}
    path, key = [], current
    while key:
        path.append(by_id[key])
        key = by_id[key]["parentId"]
    return {
        "id": chat_id, "user_id": "7d1f0c2e-user", "title": title,
        "chat": {"id": "", "title": title, "models": models, "params": {},
                 "history": {"messages": by_id, "currentId": current},
                 "messages": path[::-1], "tags": [], "timestamp": created * 1000, "files": []},
        "updated_at": updated, "created_at": created, "share_id": None, "archived": False,
        "pinned": False, "meta": {"tags": []}, "folder_id": None, **extra,
    }


def _reasoning_chat() -> dict[str, Any]:
    thought = "23 * 19 = 23 * 20 - 23 = 460 - 23 = 437"
    content = ('<details type="reasoning" done="true" duration="4">\n<summary>Thought for 4 '
               f'seconds</summary>\n&gt; {thought}\n</details>\n437')
    output = [
        {"type": "reasoning", "id": "rs_81f2", "status": "completed", "start_tag": "<think>",
         "end_tag": "</think>", "attributes": {"type": "reasoning_content"},
         "content": [{"type": "output_text", "text": thought}], "summary": None,
         "started_at": 1716800006.0, "ended_at": 1716800010.0, "duration": 4},
        {"type": "message", "id": "msg_81f3", "role": "assistant", "status": "completed",
         "content": [{"type": "output_text", "text": "437"}]},
    ]
    return _owui_chat("5e0b9c44-reasoning", "Kopfrechnen", ["qwen3:8b"], [
        _owui_message("k1", None, ["k2"], "user", "Wie viel ist 23 * 19?", 1716800000,
                      models=["qwen3:8b"]),
        _owui_message("k2", "k1", [], "assistant", content, 1716800010, model="qwen3:8b",
                      modelName="qwen3:8b", modelIdx=0, done=True, output=output,
                      usage={"prompt_tokens": 18, "completion_tokens": 61}),
    ], "k2", 1716800000, 1716800010)


def _tool_details(call_id: str, name: str, arguments: str, result: str) -> str:
    def attr(text: str) -> str:
        return text.replace("&", "&amp;").replace('"', "&quot;")
    return (f'<details type="tool_calls" done="true" id="{call_id}" name="{name}" '
            f'arguments="{attr(arguments)}" result="{attr(result)}" files="" embeds="">\n'
            f"<summary>Tool Executed</summary>\n</details>\n")


def _tools_answer(key: str, call_id: str, name: str, arguments: str, result: str,
                  reply: str, ts: int, **extra: Any) -> dict[str, Any]:
    output = [
        {"type": "function_call", "id": call_id, "call_id": call_id, "name": name,
         "arguments": arguments, "status": "completed"},
        {"type": "function_call_output", "id": f"fco_{call_id}", "call_id": call_id,
         "output": [{"type": "input_text", "text": result}], "status": "completed"},
        {"type": "message", "id": f"msg_{call_id}", "role": "assistant",
         "status": "completed", "content": [{"type": "output_text", "text": reply}]},
    ]
    content = _tool_details(call_id, name, arguments, json.dumps(result)) + reply
    return _owui_message(key, "t1", [], "assistant", content, ts, model="gpt-4.1-mini",
                         modelName="gpt-4.1-mini", modelIdx=0, done=True, output=output,
                         **extra)


def _tools_chat() -> dict[str, Any]:
    first = _tools_answer(
        "t2", "call_read_7Qx", "read_file", '{"path":"notes.txt"}', "milk\neggs\nflour",
        "The file lists three things to buy: milk, eggs and flour.", 1716801012,
        usage={"prompt_tokens": 140, "completion_tokens": 35})
    again = _tools_answer(
        "t3", "call_bash_9Kd", "run_bash", '{"command":"wc -l notes.txt"}', "3 notes.txt",
        "notes.txt has 3 lines: a short shopping list.", 1716801090000,
        usage={"input_tokens": 152, "output_tokens": 29})
    return _owui_chat("9a3e51d0-tools", "Reading notes.txt", ["gpt-4.1-mini"], [
        _owui_message("t1", None, ["t2", "t3"], "user",
                      "what is in notes.txt? count its lines too", 1716801000,
                      models=["gpt-4.1-mini"]),
        first, again,
    ], "t3", 1716801000, 1716801090)


def _photo_chat() -> dict[str, Any]:
    data_url = "data:image/png;base64," + base64.b64encode(png()).decode()
    files = [{"type": "image", "url": data_url},
             {"type": "file", "name": "menu.pdf", "id": "f-2c9e", "url": "/api/v1/files/f-2c9e",
              "size": 20480}]
    return _owui_chat("c41d7a88-photo", "写真について", ["llava:13b"], [
        _owui_message("p1", None, ["p2"], "user", "この写真に何が写っていますか？", 1716802000,
                      files=files, models=["llava:13b"]),
        _owui_message("p2", "p1", ["p3"], "assistant",
                      "オレンジ色の四角形が二つ並んでいます。", 1716802004, model="llava:13b",
                      done=True),
        _owui_message("p3", "p2", ["p4"], "user", "ありがとう！", 1716802030),
        _owui_message("p4", "p3", [], "assistant", "どういたしまして", 1716802031,
                      model="llava:13b", done=False),
    ], "p4", 1716802000, 1716802031, pinned=True)


def openwebui() -> list[dict[str, Any]]:
    """All chats, newest first, as Settings → Chats → Export All Chats writes them."""
    return [_photo_chat(), _tools_chat(), _reasoning_chat()]


# -- LibreChat: a nested export (Export → JSON, branches and recursive on) -----------------

CONVERSATION = "3f9d8a62-5b1e-4c77-9e0a-2d6c81f4b0aa"


def _lc(mid: str, parent: str, user: bool, text: str, children: list[dict[str, Any]],
        **extra: Any) -> dict[str, Any]:
    sender = "User" if user else "Git Helper"
    out: dict[str, Any] = {"messageId": mid, "parentMessageId": parent,
                           "conversationId": CONVERSATION, "sender": sender, "text": text,
                           "isCreatedByUser": user}
    if not user:
        out.update({"model": "gpt-4o", "endpoint": "openAI", "finish_reason": "stop"})
    out.update(extra)
    out["children"] = children
    return out


UNDO = ("It sounds like you want to take back the commit but keep your work. That is what "
        "a soft reset does:\n\n```bash\ngit reset --soft HEAD~1\n```\n\nYour changes stay "
        "staged, so you can fix them and commit again. If you also want them unstaged, use "
        "`git reset HEAD~1` instead.")
SAFE = ("Almost never, if the work was committed once. A few reasons:\n\n1. **The reflog**: "
        "Git records where HEAD has been, so `git reflog` finds commits a reset left "
        "behind.\n\n2. **Objects stay for a while**: unreachable commits are only pruned "
        "after weeks.\n\n3. **Remotes are copies**: what you pushed also lives elsewhere.\n\n"
        "Work that was never committed or stashed, though, Git cannot bring back.")


def librechat() -> dict[str, Any]:
    """One conversation: a question, its answer, and under it two follow-ups (one with a
    regenerated reply whose branch goes on). The export names no branch; leaves carry no
    dates, so the last leaf is the one LibreChat shows."""
    ids = {name: f"{n:08x}-6c1d-4e2f-9a3b-{n * 7919:012x}" for n, name in enumerate(
        ("ask", "undo", "cheers", "enjoy", "happy", "lose", "safe", "head", "head-a"), 1)}
    tree = [_lc(ids["ask"], ZERO, True,
                "How do I undo my last commit but keep the changes?\nI ran git commit too "
                "early.", [
                    _lc(ids["undo"], ids["ask"], False, UNDO, [
                        _lc(ids["cheers"], ids["undo"], True, "cheers, that worked", [
                            _lc(ids["enjoy"], ids["cheers"], False,
                                "Glad it worked! If Git gives you any more trouble, just "
                                "ask. Enjoy the rest of your day!", [], promptTokens=212),
                            _lc(ids["happy"], ids["cheers"], False,
                                "Glad it worked! If Git gives you any more trouble, just "
                                "ask. Happy committing!", [
                                    _lc(ids["lose"], ids["happy"], True,
                                        "does git ever lose work?", [
                                            _lc(ids["safe"], ids["lose"], False, SAFE, [],
                                                promptTokens=240),
                                        ], tokenCount=6),
                                ], promptTokens=212),
                        ], tokenCount=5),
                        _lc(ids["head"], ids["undo"], True, "why is it called HEAD?", [
                            _lc(ids["head-a"], ids["head"], False,
                                "HEAD is Git's name for the commit you have checked out: "
                                "the head of the branch you are on.", [], promptTokens=205),
                        ], tokenCount=7),
                    ], createdAt="2024-09-03T08:15:41.204Z",
                        updatedAt="2024-09-03T08:15:52.377Z", tokenCount=96,
                        unfinished=False, error=False),
                ], createdAt="2024-09-03T08:15:39.861Z", updatedAt="2024-09-03T08:15:52.380Z",
                tokenCount=23, unfinished=False, error=False, model=None)]
    return {
        "conversationId": CONVERSATION, "endpoint": "openAI",
        "title": "Undoing a Git commit", "exportAt": "10:16:02 GMT+0200 (Central European "
                                                     "Summer Time)",
        "branches": True, "recursive": True,
        "options": {"presetId": None, "model": "gpt-4o", "chatGptLabel": "Git Helper",
                    "promptPrefix": "You explain Git plainly.", "temperature": 0.7,
                    "top_p": 1, "resendFiles": True, "imageDetail": "auto",
                    "endpoint": "openAI", "title": "Undoing a Git commit"},
        "messagesTree": tree,
    }


# -- SillyTavern: one JSON object a line, a header first ------------------------------------

def sillytavern_greeting() -> list[dict[str, Any]]:
    """A chat just opened: the header and the character's greeting, epoch-ms dates (as
    older versions wrote), no newline after the last line."""
    return [
        {"user_name": "You", "character_name": "Ferro", "create_date": 1699999990000},
        {"name": "Ferro", "is_user": False, "is_name": True, "send_date": 1700000000000,
         "mes": "*The lighthouse keeper looks up from his logbook.* Another storm tonight. "
                "You had better come inside before the tide turns."},
    ]


def sillytavern_swipes() -> list[dict[str, Any]]:
    """A chat in Italian with swipes (the second of three chosen), a narrator's system
    message, and each date form newer versions write."""
    return [
        {"user_name": "Giulia", "character_name": "Nonna Rosa",
         "create_date": "2024-05-05@22h11m35s",
         "chat_metadata": {"note_prompt": "", "note_interval": 1, "note_position": 1}},
        {"name": "Nonna Rosa", "is_user": False, "is_system": False,
         "send_date": "May 5, 2024 10:11pm", "mes": "Ciao tesoro! Hai già mangiato?"},
        {"name": "Giulia", "is_user": True, "is_system": False,
         "send_date": "May 5, 2024 10:12pm", "mes": "No nonna, cosa cucini stasera?"},
        {"name": "Nonna Rosa", "is_user": False, "is_system": False,
         "send_date": 1714947180000, "mes": "Lasagne, come ogni domenica!",
         "swipes": ["Pasta e fagioli, è pronta tra dieci minuti.",
                    "Lasagne, come ogni domenica!", "Risotto ai funghi, il tuo preferito."],
         "swipe_id": 1,
         "swipe_info": [{"send_date": 1714947150000, "extra": {}},
                        {"send_date": 1714947180000, "gen_started": "2024-05-05T22:12:58.101Z",
                         "gen_finished": "2024-05-05T22:13:00.442Z", "extra": {}},
                        {"send_date": 1714947200000, "extra": {}}],
         "gen_started": "2024-05-05T22:12:58.101Z", "gen_finished": "2024-05-05T22:13:00.442Z",
         "extra": {"api": "openai", "model": "gpt-4o-mini"}},
        {"name": "Narratore", "is_user": False, "is_system": True,
         "send_date": "2024-05-05T22:14:00Z", "mes": "*Il profumo riempie la cucina.*",
         "extra": {"type": "narrator"}},
        {"name": "Giulia", "is_user": True, "is_system": False,
         "send_date": "2024-05-05@22h15m02s", "mes": "Arrivo subito!"},
    ]


# -- claude.ai: Settings → Privacy → Export data, conversations.json -----------------------

def claude_ai() -> list[dict[str, Any]]:
    """A chat with thinking, a web search and its result, an attachment and a file; a
    nameless chat in Portuguese; a chat that was opened and never written in."""
    search = {"type": "tool_use", "name": "web_search",
              "input": {"query": "tide table Brest 12 October"}}
    found = {"type": "tool_result", "name": "web_search", "is_error": False,
             "content": [{"type": "text", "text": "High tide 06:41 and 19:02, low tide 00:37 "
                                                  "and 12:55."}]}
    return [
        {"uuid": "b6a0d5f2-1c3e-4e8a-9f4b-7a2c9d1e3f50", "name": "Tides in Brest",
         "created_at": "2024-10-11T18:02:11.412947Z", "updated_at": "2024-10-11T18:03:40Z",
         "account": {"uuid": "acc-0001"},
         "chat_messages": [
             {"uuid": "b6a0d5f2-0001", "sender": "human",
              "text": "When is high tide in Brest tomorrow? My plan is attached.",
              "content": [{"type": "text",
                           "text": "When is high tide in Brest tomorrow? My plan is attached."}],
              "created_at": "2024-10-11T18:02:11.981Z",
              "attachments": [{"file_name": "plan.txt", "file_size": 58, "file_type": "txt",
                               "extracted_content": "Walk to the Pointe Saint-Mathieu at "
                                                    "low tide."}],
              "files": [{"file_name": "map.png"}]},
             {"uuid": "b6a0d5f2-0002", "sender": "assistant", "text": "",
              "content": [
                  {"type": "thinking", "thinking": "They need tomorrow's times; search."},
                  search, found,
                  {"type": "text", "text": "Tomorrow high tide is at 06:41 and 19:02. Your "
                                           "walk fits best around 12:55, at low tide."}],
              "created_at": "2024-10-11T18:02:19.030Z"},
             {"uuid": "b6a0d5f2-0003", "sender": "human", "text": "merci !", "content": [],
              "created_at": "2024-10-11T18:03:40.5Z"},
         ]},
        {"uuid": "e3c7a9b1-8d2f-4a6e-b5c4-1f0e9d8c7b6a", "name": "",
         "created_at": "2024-10-12T07:30:00Z", "updated_at": "2024-10-12T07:30:09Z",
         "chat_messages": [
             {"uuid": "e3c7a9b1-0001", "sender": "human",
              "text": "Qual é a capital da Austrália?", "content": [],
              "created_at": "2024-10-12T07:30:00Z"},
             {"uuid": "e3c7a9b1-0002", "sender": "assistant",
              "text": "A capital da Austrália é Camberra.",
              "content": [{"type": "text", "text": "A capital da Austrália é Camberra."}],
              "created_at": "2024-10-12T07:30:09Z"},
         ]},
        {"uuid": "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9", "name": "Untitled draft",
         "created_at": "2024-10-13T09:00:00Z", "updated_at": "2024-10-13T09:00:00Z",
         "chat_messages": []},
    ]
