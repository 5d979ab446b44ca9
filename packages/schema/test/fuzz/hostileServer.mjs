// A hostile MCP server over stdio, for the fuzz tests of our client, host and CLI: run by node as a real child,
// `node hostileServer.mjs <script.json>`. The script (written by the test from its seed, see answers.ts) says what
// to answer: the handshake, a valid answer per method, and for a request that names case n (`arguments.case` of a
// tools/call, or `_meta["fuzz/case"]`) the lines of case n. `echo` echoes. It imports nothing of this project.
import { readFileSync } from "node:fs"
import { createInterface } from "node:readline"

const script = JSON.parse(readFileSync(process.argv[2], "utf8"))
const placeholder = JSON.stringify("\u0000id\u0000")
const notFound = JSON.stringify({ jsonrpc: "2.0", id: "\u0000id\u0000", error: { code: -32601, message: "Method not found" } })

const write = (lines, id) => {
  for (const line of lines) process.stdout.write(`${line.split(placeholder).join(JSON.stringify(id))}\n`)
}

const answer = (request) => {
  const { id, method } = request
  const params = typeof request.params === "object" && request.params !== null ? request.params : {}
  if (method === "initialize" || method === "server/discover") {
    return write([(method === "server/discover") === script.stateless ? script.handshake : notFound], id)
  }
  const n = params.arguments?.case ?? params._meta?.["fuzz/case"]
  if (typeof n === "number" && script.cases[n] !== undefined) return write(script.cases[n], id)
  if (method === "tools/call" && params.name === "echo") {
    const content = [{ type: "text", text: String(params.arguments?.text) }]
    return write([JSON.stringify({ jsonrpc: "2.0", id, result: { ...script.resultExtra, content } })], id)
  }
  write([script.valid[method] ?? notFound], id)
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity })
lines.on("line", (line) => {
  let message
  try {
    message = JSON.parse(line)
  } catch {
    return
  }
  // Notifications and the client's answers to our stray requests need nothing.
  if (typeof message === "object" && message !== null && typeof message.method === "string" && "id" in message) {
    answer(message)
  }
})
lines.on("close", () => process.exit(0))
