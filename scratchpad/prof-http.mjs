// Profiles the HTTP server (examples/everything --http) under sequential echo calls from the SDK 1.32 client,
// to /tmp/hprof/*.cpuprofile. STATELESS=1 uses our client at 2026-07-28 instead.
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { spawn } from "node:child_process"
import { createInterface } from "node:readline"
const child = spawn(process.execPath, [...(process.env.TRACE ? ["--trace-warnings"] : ["--cpu-prof", "--cpu-prof-dir=/tmp/hprof"]), "examples/everything/dist/main.js", "--http"], { stdio: ["ignore", "pipe", "inherit"] })
const url = await new Promise((ok) => createInterface({ input: child.stdout }).on("line", (l) => l.startsWith("LISTENING ") && ok(l.slice(10))))
console.log("parent", process.pid, "child", child.pid)
const client = new Client({ name: "p", version: "1" })
await client.connect(new StreamableHTTPClientTransport(new URL(url)))
const N = Number(process.env.N ?? 3000)
const t0 = performance.now()
for (let i = 0; i < N; i++) await client.callTool({ name: "echo", arguments: { text: "hello" } })
console.log(`${(N / (performance.now() - t0) * 1000).toFixed(0)} calls/s`)
await client.close()
child.kill("SIGINT")
await new Promise((ok) => child.on("exit", ok))
process.exit(0)
