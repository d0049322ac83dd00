"""Median latency of tools/call reading a small file, through the official
MCP Python SDK, against several servers started the same way.

argv: N, then one or more NAME=TOOL=ARGS_JSON=COMMAND... groups separated
by "--". Prints one JSON object: {name: {median_ms, p90_ms, mean_ms}}.
"""

import json
import statistics
import sys
import time

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client


async def measure(command, tool, args, n):
    params = StdioServerParameters(command=command[0], args=command[1:])
    async with stdio_client(params, errlog=open("/dev/null", "w")) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            await session.list_tools()
            for _ in range(50):
                result = await session.call_tool(tool, args)
                assert not result.is_error, result
            times = []
            for _ in range(n):
                start = time.perf_counter()
                result = await session.call_tool(tool, args)
                times.append(time.perf_counter() - start)
                assert not result.is_error, result
    times.sort()
    return {
        "median_ms": statistics.median(times) * 1e3,
        "p90_ms": times[int(len(times) * 0.9)] * 1e3,
        "mean_ms": statistics.mean(times) * 1e3,
    }


def measure_raw(command, tool, args, n):
    """The same calls as raw JSON-RPC lines, without the SDK: the servers'
    own latency, free of client-side work such as output-schema checks."""
    import subprocess
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def rpc(i, method, params):
        proc.stdin.write((json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n").encode())
        proc.stdin.flush()
        while True:
            reply = json.loads(proc.stdout.readline())
            if reply.get("id") == i:
                return reply

    rpc(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                          "clientInfo": {"name": "bench", "version": "1"}})
    proc.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
    times = []
    for i in range(1, 50 + n + 1):
        start = time.perf_counter()
        reply = rpc(i, "tools/call", {"name": tool, "arguments": args})
        elapsed = time.perf_counter() - start
        assert not reply["result"].get("isError"), reply
        if i > 50:
            times.append(elapsed)
    proc.stdin.close()
    proc.wait()
    times.sort()
    return {"median_ms": statistics.median(times) * 1e3, "p90_ms": times[int(len(times) * 0.9)] * 1e3,
            "mean_ms": statistics.mean(times) * 1e3}


async def main():
    n = int(sys.argv[1])
    groups, current = [], []
    for arg in sys.argv[2:]:
        if arg == "--":
            groups.append(current)
            current = []
        else:
            current.append(arg)
    if current:
        groups.append(current)
    results = {}
    # Interleave the servers in rounds so drift hits them alike.
    rounds = 4
    per_round = n // rounds
    samples = {}
    for _ in range(rounds):
        for name, tool, args, *command in groups:
            r = await measure(command, tool, json.loads(args), per_round)
            samples.setdefault(name, []).append(r)
            r = measure_raw(command, tool, json.loads(args), per_round)
            samples.setdefault(name + "_raw", []).append(r)
    for name, rs in samples.items():
        results[name] = {k: statistics.median(r[k] for r in rs) for k in rs[0]}
    print(json.dumps(results))


anyio.run(main)
