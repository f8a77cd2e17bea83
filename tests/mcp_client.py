"""Drive synapse-mcp with the official MCP Python SDK (run by tests/mcp.rs).

    python tests/mcp_client.py MODE SERVER PROJECT ID EXPECTED

MODE is the SDK's connection mode: "legacy" (the initialize handshake) or "auto" (its default:
server/discover first, then initialize if the server does not speak it). The script lists the
tools, recalls memory ID, pages it with readmemory from offset 0 until `next` is null and checks
the pages joined are the text of the file EXPECTED as a model is shown it: no control character
raw, each as its escape (`\\u{0}`), line endings aside. It prints what it found; any mismatch
raises.
"""

import asyncio
import os
import re
import sys


def hidden(c: str) -> bool:
    """A character Synapse never shows raw (`text::hidden`)."""
    n = ord(c)
    return (
        (n < 0x20 and c not in "\t\n")
        or 0x7F <= n <= 0x9F
        or 0x202A <= n <= 0x202E
        or 0x2066 <= n <= 0x2069
        or 0xE0000 <= n <= 0xE007F
    )


def unescaped(shown: str) -> str:
    """The text behind its escapes, with Windows line endings made plain ones."""
    text = re.sub(r"\\u\{([0-9a-f]+)\}", lambda m: chr(int(m.group(1), 16)), shown)
    return text.replace("\r\n", "\n")

from mcp import Client, StdioServerParameters


async def main(mode: str, server: str, project: str, memory: int, expected_path: str) -> None:
    with open(expected_path, "rb") as f:
        expected = f.read()
    params = StdioServerParameters(command=server, cwd=project, env=dict(os.environ))
    async with Client(params, mode=mode) as client:
        listed = await client.list_tools()
        names = sorted(tool.name for tool in listed.tools)
        print("tools:", " ".join(names))

        found = await client.call_tool("recall", {"query": "payment retry runbook"})
        assert not found.is_error, found
        results = found.structured_content["results"]
        hit = next(r for r in results if r["id"] == memory)
        assert hit["abridged"] is True, hit
        assert "advisory" in found.structured_content["about"], found.structured_content

        pages, offset, joined = 0, 0, ""
        while offset is not None:
            page = await client.call_tool("readmemory", {"id": memory, "offset": offset})
            assert not page.is_error, page
            content = page.structured_content
            assert content["offset"] == offset, content
            assert content["total"] == len(expected), content
            raw = [c for c in content["body"] if hidden(c)]
            assert not raw, f"page at {offset} shows {raw[:3]} raw"
            joined += content["body"]
            offset = content["next"]
            pages += 1
        if unescaped(joined).encode("utf-8") != expected.replace(b"\r\n", b"\n"):
            raise SystemExit(f"the pages joined differ from the {len(expected)} bytes expected")
        print(f"paged {len(expected)} bytes of memory {memory} as text, in {pages} pages ({mode})")

        inside = expected.index("é".encode("utf-8")) + 1
        bad = await client.call_tool("readmemory", {"id": memory, "offset": inside})
        assert bad.is_error and "inside a character" in bad.content[0].text, bad
        print("error result:", bad.content[0].text)


if __name__ == "__main__":
    mode, server, project, memory, expected = sys.argv[1:6]
    asyncio.run(main(mode, server, project, int(memory), expected))
