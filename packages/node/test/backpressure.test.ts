/**
 * Backpressure over stdio: a real server child whose handler floods progress at a client that stopped
 * reading stdout. The writes wait for the pipe, so the child's memory stays flat instead of holding the
 * 300 MB it was asked to send; stdin is still read, so a cancellation stops the flood, and once the client
 * reads again the server answers the next request and exits cleanly at EOF.
 */
import { expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const fixture = fileURLToPath(new URL("./fixtures/server.mjs", import.meta.url))
const COUNT = 30_000
const SIZE = 10_000

/** The resident memory of a process in bytes (Linux /proc). */
const rss = (pid: number) => {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith("VmRSS:"))!
  return Number(line.split(/\s+/)[1]) * 1024
}

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms))

it.skipIf(process.platform !== "linux")("a client that stops reading holds a flooding handler back", async () => {
  const markers = join(mkdtempSync(join(tmpdir(), "effect-mcp-bp-")), "markers")
  const child = spawn(process.execPath, [fixture], {
    stdio: ["pipe", "pipe", "ignore"],
    env: { ...process.env, MARKER_FILE: markers }
  })
  const answers = new Map<string | number, unknown>()
  let progress = 0
  let buffer = ""
  child.stdout.setEncoding("utf8")
  const onData = (chunk: string) => {
    buffer += chunk
    let at: number
    while ((at = buffer.indexOf("\n")) >= 0) {
      const message = JSON.parse(buffer.slice(0, at))
      buffer = buffer.slice(at + 1)
      if (message.method === "notifications/progress") progress++
      else if ("id" in message) answers.set(message.id, message)
    }
  }
  child.stdout.on("data", onData)
  const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`)
  const until = async (done: () => boolean) => {
    for (let i = 0; i < 3000 && !done(); i++) await sleep(10)
    expect(done()).toBe(true)
  }
  try {
    send({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bp", version: "0" } }
    })
    await until(() => answers.has(0))
    send({ jsonrpc: "2.0", method: "notifications/initialized" })
    await sleep(200)
    const baseline = rss(child.pid!)

    // Stop reading, then ask for 300 MB of progress.
    child.stdout.pause()
    child.stdout.removeListener("data", onData)
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "flood", arguments: { count: COUNT, size: SIZE }, _meta: { progressToken: "p" } }
    })
    await sleep(2000)
    const held = rss(child.pid!)
    expect(held - baseline).toBeLessThan(64 * 1024 * 1024)
    expect(child.exitCode).toBeNull()

    // stdin is still read: the cancellation reaches the stalled handler.
    send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1, reason: "enough" } })
    await until(() => {
      try {
        return readFileSync(markers, "utf8").includes("flood: interrupted")
      } catch {
        return false
      }
    })

    // Reading again: what was already written drains, then the next request is answered.
    child.stdout.on("data", onData)
    child.stdout.resume()
    send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { text: "after" } } })
    await until(() => answers.has(2))
    expect(answers.get(2)).toMatchObject({ result: { content: [{ type: "text", text: "after" }] } })
    expect(answers.has(1)).toBe(false) // a cancelled request gets no response
    expect(progress).toBeGreaterThan(0)
    expect(progress).toBeLessThan(COUNT)
    child.stdin.end()
    await new Promise((ok) => (child.exitCode === null ? child.on("exit", ok) : ok(undefined)))
    expect(child.exitCode).toBe(0)
  } finally {
    child.kill("SIGKILL")
  }
}, 60_000)
