"""Made-up exports in each format we read, with branches, odd times and non-text blocks.

Every abandoned branch holds a word found nowhere else (ABANDONED), so a test can grep the
data folder for it; the shown branch's words are in SHOWN.
"""

from __future__ import annotations

import io
import json
import zipfile

ROOT = "00000000-0000-4000-8000-000000000000"


def claude_conversations() -> list[dict]:
    """Two conversations: one with a regenerated reply, thinking and an artifact; one legacy."""
    return [
        {"uuid": "0b7e6c1a-1111-4a11-9a11-000000000001", "name": "", "summary": "Gear for a wet hike",
         "created_at": "2025-03-02T09:15:00.000000Z", "updated_at": "2025-03-02T09:21:40.000000Z",
         "account": {"uuid": "acc0ffee"},
         "chat_messages": [
             {"uuid": "h1", "sender": "human", "text": "What should I pack for a drizzly day hike?",
              "content": [{"type": "text", "text": "What should I pack for a drizzly day hike?"}],
              "created_at": "2025-03-02T09:15:05.000000Z", "attachments": [], "files": [],
              "parent_message_uuid": ROOT},
             {"uuid": "a1", "sender": "assistant", "text": "A zorbellian umbrella.",
              "content": [{"type": "text", "text": "A zorbellian umbrella."}],
              "created_at": "2025-03-02T09:15:09.000000Z", "parent_message_uuid": "h1"},
             {"uuid": "a2", "sender": "assistant",
              "text": "```\nThis block is not supported on your current device yet.\n```\n\nPack a shell"
                      " jacket, spare socks and a dry bag.",
              "content": [
                  {"type": "thinking", "thinking": "Quillithink waterproof layers first.",
                   "summaries": [{"summary": "Choosing layers"}], "cut_off": False},
                  {"type": "tool_use", "id": "tu_1", "name": "artifacts",
                   "input": {"id": "packing-list", "type": "text/markdown", "title": "Packing list",
                             "command": "create", "content": "- shell jacket\n- wool socks"}},
                  {"type": "tool_result", "tool_use_id": "tu_1", "name": "artifacts",
                   "content": [{"type": "text", "text": "OK"}]},
                  {"type": "text", "text": "Pack a shell jacket, spare socks and a dry bag."}],
              "created_at": "2025-03-02T09:16:00.000000Z", "parent_message_uuid": "h1"},
             {"uuid": "h2", "sender": "human", "text": "",
              "content": [{"type": "text", "text": "Here is my current list, anything missing?"}],
              "created_at": "2025-03-02T09:21:40.000000Z",
              "attachments": [{"file_name": "", "extracted_content": "boots\nmap"}],
              "files": [{"file_name": "trail.png"}], "parent_message_uuid": "a2"},
         ]},
        {"uuid": "5a5a5a5a-5555-4e55-9e55-000000000005", "name": "Tiny timer page",
         "created_at": "2024-06-01T12:00:00.000000Z",
         "chat_messages": [
             {"uuid": "u1", "text": "Make me a one-line countdown in JS", "sender": "human",
              "created_at": "2024-06-01T12:00:10.000000Z"},
             {"uuid": "u2", "sender": "assistant", "created_at": "2024-06-01T12:00:20.000000Z",
              "text": " Sure.<antThinking>Gnarbleplan a small artifact.</antThinking><antArtifact"
                      " identifier=\"countdown\" type=\"application/vnd.ant.code\" title=\"Countdown\">"
                      "let n=3;setInterval(()=>console.log(n--),1000)</antArtifact>That logs 3, 2, 1."},
         ]},
    ]


CLAUDE_MEMORIES = [{"conversations_memory": "# About Robin\n- Lives in Leeds with a whippet"
                                            " named Biscuit\n- Prefers tea over coffee",
                    "project_memories": {"Garden": "Grows chillies on the balcony"},
                    "account_uuid": "acc0ffee"}]


def claude_zip(with_memories: bool = True) -> bytes:
    """The Claude export as the e-mail link gives it: a ZIP with a batch folder."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        base = "data-2025-10-06-00-55-16-batch-0000/"
        zf.writestr(base + "conversations.json", json.dumps(claude_conversations()))
        zf.writestr(base + "users.json", json.dumps([{"uuid": "u", "full_name": "Robin"}]))
        if with_memories:
            zf.writestr(base + "memories.json", json.dumps(CLAUDE_MEMORIES))
    return buf.getvalue()


def openwebui() -> list[dict]:
    """A regenerated first answer (a1a abandoned), reasoning details, a ms timestamp."""
    msgs = {
        "u1": {"id": "u1", "parentId": None, "childrenIds": ["a1a", "a1b"], "role": "user",
               "content": "How long should dough proof at 20 C?", "timestamp": 1740900000},
        "a1a": {"id": "a1a", "parentId": "u1", "childrenIds": [], "role": "assistant",
                "content": "About a frumious hour.", "timestamp": 1740900005},
        "a1b": {"id": "a1b", "parentId": "u1", "childrenIds": ["u2"], "role": "assistant",
                "content": "<details type=\"reasoning\" done=\"true\"><summary>Thought</summary>&gt;"
                           " Snickerthought about kitchens.</details>Plan on 4 to 6 hours for bulk"
                           " fermentation.", "timestamp": 1740900030},
        "u2": {"id": "u2", "parentId": "a1b", "childrenIds": ["a2"], "role": "user",
               "content": "And in the fridge?", "timestamp": 1740900100000},
        "a2": {"id": "a2", "parentId": "u2", "childrenIds": [], "role": "assistant",
               "content": "stale", "timestamp": 1740900110,
               "output": [{"type": "message", "content": [
                   {"type": "output_text", "text": "Overnight, 12 to 16 hours, works well."}]}]},
    }
    return [{"id": "7f3c2e10-6666", "user_id": "user-0001", "title": "Sourdough timing",
             "chat": {"title": "Sourdough timing", "timestamp": 1740900000000,
                      "history": {"currentId": "a2", "messages": msgs}, "messages": []},
             "created_at": 1740900000, "updated_at": 1740900110}]


def librechat() -> dict:
    """Branches exported: the newest sibling is shown (m3, m5 abandoned)."""
    return {
        "conversationId": "c1d2e3f4-7777", "endpoint": "openAI", "title": "Naming a houseplant",
        "exportAt": "10:42:07 GMT+0200 (Central European Summer Time)", "branches": True,
        "recursive": True, "messagesTree": [
            {"messageId": "m1", "parentMessageId": "00000000-0000-0000-0000-000000000000",
             "isCreatedByUser": True, "sender": "User", "text": "Suggest a name for my fern.",
             "createdAt": "2025-05-10T08:40:00.000Z", "children": [
                 {"messageId": "m2", "parentMessageId": "m1", "isCreatedByUser": False,
                  "sender": "User", "text": "How about Fernando?",
                  "createdAt": "2025-05-10T08:40:02.000Z", "children": [
                      {"messageId": "m3", "parentMessageId": "m2", "isCreatedByUser": True,
                       "sender": "User", "text": "Too wibbleton obvious.",
                       "createdAt": "2025-05-10T08:40:30.000Z", "children": []},
                      {"messageId": "m4", "parentMessageId": "m2", "isCreatedByUser": True,
                       "sender": "Assistant", "text": "Something Greek?",
                       "createdAt": "2025-05-10T08:41:00.000Z", "children": [
                           {"messageId": "m5", "parentMessageId": "m4", "isCreatedByUser": False,
                            "text": "Pteris grumbleweed.", "createdAt": "2025-05-10T08:41:02.000Z",
                            "unfinished": True, "children": []},
                           {"messageId": "m6", "parentMessageId": "m4", "isCreatedByUser": False,
                            "text": "", "createdAt": "2025-05-10T08:41:40.000Z",
                            "content": [{"type": "think", "think": "Pteronthink wing."},
                                        {"type": "text", "text": "Try Ptera, from the Greek for wing."}],
                            "children": []}]}]}]}]}


def sillytavern() -> bytes:
    """A header, a swipe (the first one abandoned), a hidden user turn, a narrator note."""
    lines = [
        {"user_name": "Robin", "character_name": "Quill", "create_date": "2025-2-14@19h05m11s",
         "chat_metadata": {"main_chat": ""}},
        {"name": "Quill", "is_user": False, "send_date": "February 14, 2025 7:05pm",
         "mes": "Evening, Robin. What shall we write tonight?", "extra": {}},
        {"name": "Robin", "is_user": True, "send_date": "February 14, 2025 7:06pm",
         "mes": "A short poem about lighthouses.", "extra": {}},
        {"name": "Quill", "is_user": False, "send_date": "2025-2-14 @19h 06m 50s 682ms",
         "mes": "The keeper's lamp turns slow and bright.", "swipe_id": 1,
         "swipes": ["A flumpish lighthouse stands alone.", "The keeper's lamp turns slow and bright."],
         "extra": {"reasoning": "Keep it to one line."}},
        {"name": "Robin", "is_user": True, "is_system": True, "send_date": "1739560020000",
         "mes": "Hidden from the prompt,<br>still mine.", "extra": {}},
        {"name": "System", "is_user": False, "is_system": True, "send_date": "February 14, 2025 7:07pm",
         "mes": "Scene: a stormy coast.", "extra": {"type": "narrator"}},
    ]
    return ("\n".join(json.dumps(line) for line in lines) + "\n").encode()


def gemini() -> list[dict]:
    """Newest first; two drafts on one reply (the first abandoned); an event; a later chat."""
    base = {"header": "Gemini Apps", "products": ["Gemini Apps"],
            "activityControls": ["Gemini Apps Activity"]}
    return [
        dict(base, title="Prompted How tall is the Eiffel Tower?", time="2025-04-07T09:00:00.000Z",
             safeHtmlItem=[{"html": "<p>About 330&nbsp;m.</p>"}]),
        dict(base, title="Prompted and one for a rainy Sunday?", time="2025-04-06T15:12:40.512Z",
             safeHtmlItem=[{"html": "<p>Try a <strong>lentil soup</strong> &amp; fresh bread.</p>"}]),
        dict(base, title="Gave feedback: Good response", time="2025-04-06T15:11:00.000Z"),
        dict(base, title="Prompted Suggest a quick weeknight dinner", time="2025-04-06T15:10:02.101Z",
             safeHtmlItem=[{"html": "<p>Stir-fry the blorptastic peppers.</p>"},
                           {"html": "<ul><li>Pepper omelette</li><li>Rice bowl</li></ul>"}]),
    ]


def openai_jsonl() -> bytes:
    lines = [
        {"messages": [{"role": "system", "content": "You answer in haiku."},
                      {"role": "user", "content": "Describe autumn."},
                      {"role": "assistant", "content": "Red leaves drift and fall", "weight": 1}]},
        {"messages": [{"role": "user", "content": "Weather in Oslo?"},
                      {"role": "assistant", "content": None, "tool_calls": [
                          {"id": "c1", "type": "function",
                           "function": {"name": "get_weather", "arguments": "{}"}}]},
                      {"role": "tool", "tool_call_id": "c1", "content": "{\"temp_c\": 4}"},
                      {"role": "assistant", "content": [{"type": "text", "text": "About 4 C in Oslo."}]}]},
    ]
    return ("\n".join(json.dumps(line) for line in lines)).encode()


def sharegpt() -> list[dict]:
    return [
        {"id": "sg-0001", "system": "Be concise.", "conversations": [
            {"from": "human", "value": "Convert 5 km to miles."},
            {"from": "function_call", "value": "{\"name\": \"convert\"}"},
            {"from": "observation", "value": "{\"miles\": 3.11}"},
            {"from": "gpt", "value": "5 km is about 3.1 miles."}]},
        {"id": "sg-0002", "conversations": [
            {"from": "human", "value": "<p>Name a <b>blue</b> fruit.</p>"},
            {"from": "gpt", "value": "Blueberries."}]},
    ]


OPENMEMORY = {
    "user": {"id": "4c0e", "user_id": "robin"},
    "apps": [{"id": "a0a0", "name": "cursor"}],
    "memories": [
        {"id": "m1", "app_id": "a0a0", "content": "Prefers tabs over spaces", "state": "active",
         "created_at": "2025-01-06T08:30:00+00:00"},
        {"id": "m2", "app_id": "a0a0", "content": "Owns a vorpalmonk typewriter", "state": "deleted",
         "created_at": "2025-01-07T08:30:00+00:00"},
        {"id": "m3", "app_id": "a0a0", "content": "Uses Neovim at work", "state": "archived",
         "created_at": "2025-01-08T08:30:00+00:00"}],
    "export_meta": {"version": "1", "generated_at": "2025-06-01T00:00:00+00:00"},
}

LETTA = {
    "agents": [{"id": "agent-0", "name": "pocket-coach", "block_ids": ["block-0", "block-1"],
                "messages": []}],
    "blocks": [{"id": "block-0", "label": "human", "value": "Goal: 10k race in June."},
               {"id": "block-1", "label": "persona", "value": "Encouraging, brief."}],
    "tools": [], "groups": [], "files": [], "sources": [], "mcp_servers": [],
    "metadata": {}, "created_at": "2025-11-02T07:02:00.000000+00:00",
}
