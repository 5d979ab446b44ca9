/**
 * A raw stdio peer for the fuzz tests: spawns a real server child, writes lines to its stdin, and keeps every
 * answer it writes, by id (answers with id null apart). Waits are for events (an answer arrived, the child exited),
 * never sleeps; a wait fails at once when the child exits, with the tail of its stderr.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"

/** A JSON-RPC message as read. */
export type Message = Record<string, unknown>

/** A server child and what it has answered. */
export interface StdioPeer {
  readonly child: ChildProcessWithoutNullStreams
  /** Every answer with an id, by id, in order of arrival. */
  readonly byId: Map<unknown, Array<Message>>
  /** Every answer with id null. */
  readonly nulls: Array<Message>
  /** Lines that were not JSON-RPC answers, requests or notifications. */
  readonly garbage: Array<string>
  /** Writes lines (a newline after each). */
  readonly send: (lines: ReadonlyArray<string>) => void
  /** Resolves when `done` holds; rejects when the child exits first, or after `ms` (saying `what()` is missing). */
  readonly until: (done: () => boolean, what: () => string, ms?: number) => Promise<void>
  /** The last part of what the child wrote to stderr. */
  readonly stderrTail: () => string
  /** Ends stdin and resolves with the exit code (rejects after `ms`). */
  readonly close: (ms?: number) => Promise<number | null>
}

/** Starts `node <args>` and reads its answers. Requests it sends us get -32601 (we offer nothing). */
export const startStdioPeer = (args: ReadonlyArray<string>): StdioPeer => {
  const child = spawn(process.execPath, [...args], { stdio: ["pipe", "pipe", "pipe"] })
  const byId = new Map<unknown, Array<Message>>()
  const nulls: Array<Message> = []
  const garbage: Array<string> = []
  let stderr = ""
  let buffer = ""
  const waiters = new Set<() => void>()
  const wake = () => {
    for (const w of [...waiters]) w()
  }
  child.stdin.on("error", () => {}) // a child that died mid-write: the waits report it
  child.stderr.setEncoding("utf8")
  child.stderr.on("data", (chunk: string) => void (stderr = (stderr + chunk).slice(-4000)))
  child.stdout.setEncoding("utf8")
  child.stdout.on("data", (chunk: string) => {
    buffer += chunk
    let at: number
    while ((at = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, at)
      buffer = buffer.slice(at + 1)
      let message: Message
      try {
        message = JSON.parse(line) as Message
      } catch {
        garbage.push(line.slice(0, 200))
        continue
      }
      if (typeof message.method === "string") {
        if ("id" in message) {
          send([JSON.stringify({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "no" } })])
        }
        continue
      }
      if (message.id === null) nulls.push(message)
      else if ("id" in message) byId.set(message.id, [...(byId.get(message.id) ?? []), message])
      else garbage.push(line.slice(0, 200))
    }
    wake()
  })
  child.on("exit", wake)
  const send = (lines: ReadonlyArray<string>) => {
    if (child.exitCode === null && child.signalCode === null) child.stdin.write(lines.map((l) => `${l}\n`).join(""))
  }
  const until = (done: () => boolean, what: () => string, ms = 30_000) =>
    new Promise<void>((ok, ko) => {
      const finish = (error?: Error) => {
        clearTimeout(timer)
        waiters.delete(check)
        error === undefined ? ok() : ko(error)
      }
      const check = () => {
        if (done()) return finish()
        if (child.exitCode !== null || child.signalCode !== null) {
          finish(
            new Error(`the server exited (${child.exitCode ?? child.signalCode}) with ${what()}\nstderr: ${stderr}`)
          )
        }
      }
      const timer = setTimeout(() => finish(new Error(`no answer within ${ms} ms: ${what()}\nstderr: ${stderr}`)), ms)
      waiters.add(check)
      check()
    })
  const close = (ms = 10_000) =>
    new Promise<number | null>((ok, ko) => {
      const timer = setTimeout(() => ko(new Error(`the server did not exit within ${ms} ms of EOF`)), ms)
      const done = () => {
        clearTimeout(timer)
        ok(child.exitCode)
      }
      if (child.exitCode !== null || child.signalCode !== null) return done()
      child.on("exit", done)
      child.stdin.end()
    })
  return { child, byId, nulls, garbage, send, until, stderrTail: () => stderr, close }
}
