"""Drives `ikigai mcp` with the official MCP Python SDK over stdio.

Run by tests/mcp.rs (which builds the sandbox and passes it in the
environment); exits non-zero on the first failed check. Environment:
IKIGAI_BIN (the ikigai binary), IKIGAI_LIBEXEC_DIR (the tools), IKIGAI_TEST_DB
(a mail database with agents 0/ and 1/ registered), IKIGAI_TEST_WORK (a
scratch directory, the servers' working directory).
"""

import json
import os
import subprocess
import sys
import time

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

BIN = os.environ["IKIGAI_BIN"]
LIBEXEC = os.environ["IKIGAI_LIBEXEC_DIR"]
DB = os.environ["IKIGAI_TEST_DB"]
WORK = os.environ["IKIGAI_TEST_WORK"]

SPEC_FILE_READ_PARAMETERS = {
    "type": "object",
    "properties": {
        "file_path": {"type": "string", "description": "Absolute or relative path to file"},
        "offset": {"type": "integer", "description": "Line number to start reading from (1-based)"},
        "limit": {"type": "integer", "description": "Number of lines to read"},
    },
    "required": ["file_path"],
}


def check(name, condition, detail=""):
    if not condition:
        print(f"FAIL {name}: {detail}", flush=True)
        sys.exit(1)
    print(f"ok   {name}", flush=True)


def server(agent="0/", *extra):
    return StdioServerParameters(
        command=BIN,
        args=["--agent", agent, "--db", DB, "--cwd", WORK, *extra, "mcp"],
        env={"IKIGAI_LIBEXEC_DIR": LIBEXEC, "HOME": WORK},
        cwd=WORK,
    )


def structured(result):
    return result.structured_content


async def handshake_session_checks():
    async with stdio_client(server()) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            check("initialize negotiates 2025-11-25", init.protocol_version == "2025-11-25", init.protocol_version)
            check("server info", init.server_info.name == "ikigai", init.server_info)

            tools = {t.name: t for t in (await session.list_tools()).tools}
            expected = ["bash", "file_edit", "file_read", "file_write", "glob", "grep", "mail"]
            check("tools/list names", sorted(tools) == expected, sorted(tools))
            check("file_read schema is the spec's", tools["file_read"].input_schema == SPEC_FILE_READ_PARAMETERS,
                  tools["file_read"].input_schema)
            check("mail schema keeps the seed's action enum",
                  tools["mail"].input_schema["properties"]["action"]["enum"][:3] == ["inbox", "read", "send"])
            for name in ["file_read", "glob", "grep"]:
                a = tools[name].annotations
                check(f"{name} is read-only", a.read_only_hint is True and a.destructive_hint is False, a)
            for name in ["file_write", "file_edit", "bash"]:
                a = tools[name].annotations
                check(f"{name} may destroy", a.read_only_hint is False and a.destructive_hint is True, a)

            r = await session.call_tool("bash", {"command": "echo hello; echo err >&2"})
            check("bash", not r.is_error and structured(r) == {"output": "hello\nerr", "exit_code": 0}, structured(r))
            check("text content holds the result JSON", json.loads(r.content[0].text) == structured(r))
            r = await session.call_tool("file_write", {"file_path": "notes.txt", "content": "alpha\nbeta\n"})
            check("file_write", structured(r) == {"output": "Wrote 11 bytes to notes.txt", "bytes": 11}, structured(r))
            r = await session.call_tool("file_read", {"file_path": "notes.txt", "offset": 2})
            check("file_read", structured(r) == {"output": "beta\n"}, structured(r))
            r = await session.call_tool("file_edit", {"file_path": "notes.txt", "old_string": "beta", "new_string": "gamma"})
            check("file_edit", structured(r) == {"output": "Replaced 1 occurrence in notes.txt", "replacements": 1}, structured(r))
            r = await session.call_tool("glob", {"pattern": "*.txt"})
            check("glob", structured(r) == {"output": "notes.txt", "count": 1}, structured(r))
            r = await session.call_tool("grep", {"pattern": "gam+a"})
            check("grep", structured(r) == {"output": "notes.txt:2: gamma", "count": 1}, structured(r))
            r = await session.call_tool("mail", {"action": "inbox"})
            check("mail", not r.is_error and "messages" in structured(r), structured(r))

            r = await session.call_tool("file_read", {"file_path": "missing.txt"})
            check("a failing call is a result with isError", r.is_error is True and structured(r) ==
                  {"error": "File not found: missing.txt", "error_code": "FILE_NOT_FOUND"}, structured(r))
            r = await session.call_tool("file_read", {"bogus": 1})
            check("invalid arguments come back as the tool's error", r.is_error and structured(r)["error_code"] == "INVALID_ARG",
                  structured(r))
            try:
                await session.call_tool("no_such_tool", {})
                check("unknown tool is a protocol error", False, "no error raised")
            except MCPError as e:
                check("unknown tool is a protocol error", e.error.code == -32602 and "no_such_tool" in e.error.message, e.error)

            # Two slow calls at once run concurrently.
            start = time.monotonic()
            results = []

            async def slow():
                results.append(await session.call_tool("bash", {"command": "sleep 1; echo done"}))

            async with anyio.create_task_group() as tg:
                tg.start_soon(slow)
                tg.start_soon(slow)
            elapsed = time.monotonic() - start
            check("concurrent calls", len(results) == 2 and all(structured(r)["output"] == "done" for r in results)
                  and elapsed < 1.9, f"{elapsed:.2f}s")

            # Cancel a long bash call: its process group is killed.
            pidfile = os.path.join(WORK, "long.pid")
            async with anyio.create_task_group() as tg:
                async def long_call():
                    await session.call_tool("bash", {"command": f"echo $$ > {pidfile}; sleep 300"})

                tg.start_soon(long_call)
                with anyio.fail_after(10):
                    while not os.path.exists(pidfile) or not open(pidfile).read().strip():
                        await anyio.sleep(0.05)
                pid = int(open(pidfile).read())
                tg.cancel_scope.cancel()
            gone = False
            for _ in range(100):
                if not process_alive(pid):
                    gone = True
                    break
                await anyio.sleep(0.05)
            check("cancelled bash call is killed", gone, f"pid {pid} still alive")
            await session.send_ping()
            check("server still answers after the cancellation", True)


def process_alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        return state not in ("Z", "X")
    except FileNotFoundError:
        return False


async def modern_session_checks():
    async with stdio_client(server()) as (read, write):
        async with ClientSession(read, write) as session:
            d = await session.discover()
            check("server/discover (2026-07-28)", d.supported_versions == ["2026-07-28"], d.supported_versions)
            tools = await session.list_tools()
            check("tools/list on the 2026-07-28 envelope", len(tools.tools) == 7)
            r = await session.call_tool("file_read", {"file_path": "notes.txt"})
            check("tools/call on the 2026-07-28 envelope", structured(r) == {"output": "alpha\ngamma\n"}, structured(r))


async def timeout_checks():
    async with stdio_client(server("0/", "--timeout", "1")) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            start = time.monotonic()
            r = await session.call_tool("bash", {"command": "sleep 5"})
            s = structured(r)
            check("timeout is a result with isError", r.is_error and s["tool_success"] is False
                  and s["error_code"] == "TOOL_TIMEOUT" and time.monotonic() - start < 3, s)


async def mail_between_two_servers():
    async with stdio_client(server("0/")) as (r0, w0), stdio_client(server("1/")) as (r1, w1):
        async with ClientSession(r0, w0) as zero, ClientSession(r1, w1) as one:
            await zero.initialize()
            await one.initialize()
            sent = structured(await zero.call_tool("mail", {"action": "send", "to": "1/", "body": "Found 3 OAuth patterns"}))
            check("agent 0/ sends", sent["sent"] is True and sent["to"] == "1/", sent)
            inbox = structured(await one.call_tool("mail", {"action": "inbox"}))
            check("agent 1/ sees it from 0/", inbox["unread_count"] >= 1 and any(
                m["id"] == sent["id"] and m["from"] == "0/" for m in inbox["messages"]), inbox)
            reply = structured(await one.call_tool("mail", {"action": "send", "to": "0/", "body": "Thanks", "in_reply_to": sent["id"]}))
            check("agent 1/ replies in the thread", reply["thread_id"] == sent["id"], reply)
            got = structured(await zero.call_tool("mail", {"action": "read", "id": reply["id"]}))
            check("agent 0/ reads the reply", got["from"] == "1/" and got["body"] == "Thanks", got)


def malformed_input_checks():
    proc = subprocess.Popen([BIN, "--db", DB, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            env={**os.environ, "IKIGAI_LIBEXEC_DIR": LIBEXEC}, cwd=WORK)
    lines = [b"this is not json\n", b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}\n',
             b'{"jsonrpc": "2.0", "id": 2, "method": "no/such/method"}\n', b"[]\n",
             b'{"jsonrpc": "2.0", "id": 3, "method": "ping"}\n']
    out, _ = proc.communicate(b"".join(lines), timeout=20)
    replies = [json.loads(l) for l in out.splitlines()]
    check("malformed JSON gets a parse error", replies[0]["error"]["code"] == -32700 and replies[0]["id"] is None, replies[0])
    check("the server keeps running", replies[1] == {"jsonrpc": "2.0", "id": 1, "result": {}}, replies[1])
    check("unknown method", replies[2]["error"]["code"] == -32601, replies[2])
    check("empty batch", replies[3]["error"]["code"] == -32600, replies[3])
    check("still answering", replies[4]["id"] == 3 and proc.returncode == 0, replies[4])


async def main():
    await handshake_session_checks()
    await modern_session_checks()
    await timeout_checks()
    await mail_between_two_servers()
    malformed_input_checks()
    print("all MCP SDK checks passed", flush=True)


anyio.run(main)
