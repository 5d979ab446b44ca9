/**
 * Backpressure over stdio: a real server child whose handler floods progress at a client that stopped
 * reading stdout. The writes wait for the pipe, so the child's memory stays flat instead of holding the
 * 300 MB it was asked to send; stdin is still read, so a cancellation stops the flood, and once the client
 * reads again the server answers the next request and exits cleanly at EOF.
 */
import { expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

const fixture = fileURLToPath(new URL("./fixtures/server.mjs", import.meta.url))
const COUNT = 30_000
const SIZE = 10_000

/** The resident memory of a process in bytes (Linux /proc). */
const rss = (pid: number) => {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith("VmRSS:"))!
  return Number(line.split(/\s+/)[1]) * 1024
}

it.skipIf(process.platform !== "linux")("a client that stops reading holds a flooding handler back", async () => {
  const child = spawn(process.execPath, [fixture], { stdio: ["pipe", "pipe", "pipe"] })
  const answers = new Map<string | number, unknown>()
  /** Resolved when the answer to an id, or a line of the fixture's stderr, arrives: what the test waits for. */
  const awaited = new Map<string | number, () => void>()
  const arrived = (key: string | number) => awaited.get(key)?.()
  const until = (key: string | number) =>
    new Promise<void>((resolve) => {
      if (answers.has(key)) return resolve()
      awaited.set(key, resolve)
    })
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
      else if ("id" in message) {
        answers.set(message.id, message)
        arrived(message.id)
      }
    }
  }
  child.stdout.on("data", onData)
  let errors = ""
  child.stderr.setEncoding("utf8")
  child.stderr.on("data", (chunk: string) => {
    errors += chunk
    for (const line of errors.split("\n")) arrived(line)
    errors = errors.slice(errors.lastIndexOf("\n") + 1)
  })
  const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`)
  try {
    send({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bp", version: "0" } }
    })
    await until(0)
    send({ jsonrpc: "2.0", method: "notifications/initialized" })
    send({ jsonrpc: "2.0", id: "ready", method: "ping" })
    await until("ready")
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
    // Not a wait for an event but the window of the measurement: a server that queued its writes would hold
    // hundreds of MB by its end.
    await new Promise((window) => setTimeout(window, 2000))
    const held = rss(child.pid!)
    expect(held - baseline).toBeLessThan(64 * 1024 * 1024)
    expect(child.exitCode).toBeNull()

    // stdin is still read: the cancellation reaches the stalled handler.
    const interrupted = until("fixture: flood: interrupted")
    send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1, reason: "enough" } })
    await interrupted

    // Reading again: what was already written drains, then the next request is answered.
    child.stdout.on("data", onData)
    child.stdout.resume()
    send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { text: "after" } } })
    await until(2)
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
