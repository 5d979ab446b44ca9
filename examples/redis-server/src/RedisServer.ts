/**
 * The one starter of a real redis-server, for the cluster example, its benchmark and every test that needs one
 * (Debian's package; .ci/run installs it): on a free loopback port, with no persistence, in a temporary directory,
 * stopped when the scope closes. `stop` and `restart` take it away and bring it back on the same port (Redis going
 * down mid-run).
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer, Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** A running redis-server. */
export interface RedisServer {
  readonly port: number
  readonly url: string
  /** Stops it (SIGKILL: no goodbye to its clients) and waits for its exit. */
  readonly stop: Effect.Effect<void>
  /** Starts it again on the same port and waits until it accepts connections. */
  readonly restart: Effect.Effect<void>
}

/** A port nothing listens on now. */
export const freePort: Effect.Effect<number> = Effect.async<number>((resume) => {
  const probe = createServer()
  probe.listen(0, "127.0.0.1", () => {
    const address = probe.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    probe.close(() => resume(Effect.succeed(port)))
  })
})

const accepts = (port: number): Effect.Effect<boolean> =>
  Effect.async<boolean>((resume) => {
    const socket = new Socket()
    socket.once("connect", () => {
      socket.destroy()
      resume(Effect.succeed(true))
    })
    socket.once("error", () => resume(Effect.succeed(false)))
    socket.connect(port, "127.0.0.1")
  })

const exited = (child: ChildProcess): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
    child.once("exit", () => resume(Effect.void))
  })

/** Starts a redis-server for the scope. */
export const startRedis: Effect.Effect<RedisServer, never, Scope.Scope> = Effect.gen(function*() {
  const port = yield* freePort
  const dir = mkdtempSync(join(tmpdir(), "effect-mcp-redis-"))
  let child: ChildProcess | undefined
  const start = Effect.gen(function*() {
    const started = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
      { stdio: ["ignore", "ignore", "inherit"] }
    )
    child = started
    for (let i = 0; i < 200; i++) {
      if (yield* accepts(port)) return
      if (started.exitCode !== null) return yield* Effect.dieMessage(`redis-server exited with ${started.exitCode}`)
      yield* Effect.sleep("25 millis")
    }
    return yield* Effect.dieMessage("redis-server did not start within 5 s")
  })
  const stop = Effect.suspend(() => {
    const running = child
    if (running === undefined) return Effect.void
    child = undefined
    running.kill("SIGKILL")
    return exited(running)
  })
  yield* Effect.acquireRelease(
    start,
    () => Effect.zipRight(stop, Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
  )
  return { port, url: `redis://127.0.0.1:${port}`, stop, restart: start }
})
