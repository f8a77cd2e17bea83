"""Drive synapse-mcp with the official MCP Python SDK (run by tests/mcp.rs).

    python tests/mcp_client.py MODE SERVER PROJECT ID EXPECTED

MODE is the SDK's connection mode: "legacy" (the initialize handshake) or "auto" (its default:
server/discover first, then initialize if the server does not speak it). The script lists the
tools, recalls memory ID, pages it with readmemory from offset 0 until `next` is null and checks
the pages joined are the bytes of the file EXPECTED. It prints what it found; any mismatch
raises.
"""

import asyncio
import os
import sys

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

        pages, offset, joined = 0, 0, b""
        while offset is not None:
            page = await client.call_tool("readmemory", {"id": memory, "offset": offset})
            assert not page.is_error, page
            content = page.structured_content
            assert content["offset"] == offset, content
            assert content["total"] == len(expected), content
            joined += content["body"].encode("utf-8")
            offset = content["next"]
            pages += 1
        if joined != expected:
            raise SystemExit(f"the pages joined differ: {len(joined)} bytes, expected {len(expected)}")
        print(f"paged {len(joined)} bytes of memory {memory} exactly, in {pages} pages ({mode})")

        inside = expected.index("é".encode("utf-8")) + 1
        bad = await client.call_tool("readmemory", {"id": memory, "offset": inside})
        assert bad.is_error and "inside a character" in bad.content[0].text, bad
        print("error result:", bad.content[0].text)


if __name__ == "__main__":
    mode, server, project, memory, expected = sys.argv[1:6]
    asyncio.run(main(mode, server, project, int(memory), expected))
