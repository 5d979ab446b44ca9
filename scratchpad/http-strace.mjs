// Counts the system calls of the HTTP server (examples/everything --http) over N sequential echo calls from the SDK
// 1.32 client, with strace -c attached after a warm-up; the table goes to /tmp/http-strace.txt.
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { spawn } from "node:child_process"
import { createInterface } from "node:readline"
const child = spawn(process.execPath, ["examples/everything/dist/main.js", "--http"], { stdio: ["ignore", "pipe", "inherit"] })
const url = await new Promise((ok) => createInterface({ input: child.stdout }).on("line", (l) => l.startsWith("LISTENING ") && ok(l.slice(10))))
const client = new Client({ name: "p", version: "1" })
await client.connect(new StreamableHTTPClientTransport(new URL(url)))
const N = Number(process.env.N ?? 2000)
for (let i = 0; i < 500; i++) await client.callTool({ name: "echo", arguments: { text: "hello" } })
const tracer = spawn("strace", ["-c", "-f", "-o", "/tmp/http-strace.txt", "-p", String(child.pid)], { stdio: "inherit" })
await new Promise((ok) => setTimeout(ok, 500))
const t0 = performance.now()
for (let i = 0; i < N; i++) await client.callTool({ name: "echo", arguments: { text: "hello" } })
console.log(`${(N / (performance.now() - t0) * 1000).toFixed(0)} calls/s (traced)`)
tracer.kill("SIGINT")
await new Promise((ok) => tracer.on("exit", ok))
await client.close()
child.kill("SIGINT")
await new Promise((ok) => child.on("exit", ok))
process.exit(0)
