/**
 * A cluster: a real redis-server, processes of the everything server started with `--http --redis`, and the
 * round-robin proxy in front of them, all stopped with the scope.
 */
import { type RedisServer, startRedis } from "@effect-mcp-examples/redis-server"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { type ChildProcess, spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { type Proxy, roundRobinProxy } from "./RoundRobinProxy.js"

/** The everything server, built (`tsc -b`). */
const main = fileURLToPath(new URL("../../everything/dist/main.js", import.meta.url))

/** One process of the cluster. */
export interface Member {
  readonly origin: string
  readonly child: ChildProcess
  /** SIGKILL: the process ends with no goodbye; resolves once it has exited. */
  readonly kill: Effect.Effect<void>
}

/** The running cluster. */
export interface Cluster {
  readonly redis: RedisServer
  readonly members: ReadonlyArray<Member>
  readonly proxy: Proxy
  /** The MCP endpoint behind the proxy. */
  readonly url: string
}

const exited = (child: ChildProcess) =>
  Effect.async<void>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
    child.once("exit", () => resume(Effect.void))
  })

/** Starts one everything process over HTTP (with `--redis` when given a URL) and waits for its `LISTENING <url>` line. */
export const member = (redis: string | undefined): Effect.Effect<Member, Error, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<Member, Error>((resume) => {
      const child = spawn(process.execPath, [main, "--http", ...(redis === undefined ? [] : ["--redis", redis])], {
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
        stdio: ["ignore", "pipe", "pipe"]
      })
      let out = ""
      let err = ""
      const onExit = (code: number | null) =>
        resume(Effect.fail(new Error(`everything --http exited (${code}) before listening:\n${err}`)))
      child.stderr.setEncoding("utf8")
      child.stderr.on("data", (chunk: string) => {
        err = (err + chunk).slice(-4000)
      })
      child.stdout.setEncoding("utf8")
      child.stdout.on("data", (chunk: string) => {
        out += chunk
        const match = /^LISTENING (\S+)$/m.exec(out)
        if (match === null) return
        child.off("exit", onExit)
        child.stdout.removeAllListeners("data")
        child.stdout.resume()
        resume(Effect.succeed({
          origin: new URL(match[1]!).origin,
          child,
          kill: Effect.suspend(() => {
            child.kill("SIGKILL")
            return exited(child)
          })
        }))
      })
      child.once("exit", onExit)
      return Effect.sync(() => void child.kill("SIGKILL"))
    }),
    ({ child }) =>
      Effect.suspend(() => {
        child.kill("SIGTERM")
        return exited(child).pipe(
          Effect.timeoutTo({
            duration: "3 seconds",
            onSuccess: () => Effect.void,
            onTimeout: () => Effect.sync(() => child.kill("SIGKILL"))
          }),
          Effect.flatten
        )
      })
  )

/** Starts redis-server, `size` processes and the proxy. */
export const startCluster = (size = 3): Effect.Effect<Cluster, Error, Scope.Scope> =>
  Effect.gen(function*() {
    const redis = yield* startRedis
    const members = yield* Effect.forEach(Array.from({ length: size }), () => member(redis.url), {
      concurrency: "unbounded"
    })
    const proxy = yield* roundRobinProxy(members.map((m) => m.origin))
    return { redis, members, proxy, url: `${proxy.origin}/mcp` }
  })
