// Resets connections while examples/everything --http answers them (JSON answers), then asks the server (run under
// fiber-dump-wrapper.mjs) which handler fibers are left.
import { spawn } from "node:child_process"
import net from "node:net"
import { createInterface } from "node:readline"
const child = spawn(process.execPath, ["scratchpad/fiber-dump-wrapper.mjs", "--http"], { stdio: ["ignore", "pipe", "pipe"] })
createInterface({ input: child.stderr }).on("line", (l) => (l.startsWith("ROOTS") || /^x\d+ /.test(l)) && console.log(l.slice(0, 220)))
const url = new URL(await new Promise((ok) => createInterface({ input: child.stdout }).on("line", (l) => l.startsWith("LISTENING ") && ok(l.slice(10)))))
const init = await fetch(url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "r", version: "1" } } }) })
const sid = init.headers.get("mcp-session-id"); await init.text()
const raw = (body) => `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: ${sid}\r\nMcp-Protocol-Version: 2025-11-25\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
for (let i = 0; i < Number(process.env.N ?? 2000); i++) {
  await new Promise((done) => {
    const s = net.connect(Number(url.port), url.hostname, () => {
      s.write(raw(JSON.stringify({ jsonrpc: "2.0", id: i + 1, method: "tools/call", params: { name: "echo", arguments: { text: "x" } } })))
      const wait = Math.random() * 1.5
      setTimeout(() => { s.resetAndDestroy(); done() }, wait)
    })
    s.on("error", () => {})
  })
}
await new Promise((r) => setTimeout(r, 1000))
child.kill("SIGUSR2"); await new Promise((r) => setTimeout(r, 1500)); child.kill("SIGKILL"); process.exit(0)
