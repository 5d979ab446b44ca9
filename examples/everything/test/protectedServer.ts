/**
 * The built everything program (dist/main.js, `tsc -b`) as a child process for the auth tests: `--http
 * --auth-issuer <issuer>` against a real authorization server (oidc-provider on 127.0.0.1), both stopped with the
 * test's scope.
 */
import * as AuthServer from "@effect-mcp-examples/oauth-server"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"

/** The built program. */
export const main = fileURLToPath(new URL("../dist/main.js", import.meta.url))

/** The environment it runs in: no inherited variables but PATH. */
export const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", NODE_ENV: "test" }

/** Runs `main.js ...args` until the scope closes; succeeds with the URL it printed after `LISTENING`. */
export const everything = (args: ReadonlyArray<string>): Effect.Effect<string, Error, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<{ readonly url: string; readonly stop: () => void }, Error>((resume) => {
      const child = spawn(process.execPath, [main, ...args], { env, stdio: ["ignore", "pipe", "pipe"] })
      let out = ""
      let err = ""
      const onExit = (code: number | null) => resume(Effect.fail(new Error(`exited (${code}): ${err}`)))
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err = (err + chunk).slice(-4000)))
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        out += chunk
        const match = /^LISTENING (\S+)$/m.exec(out)
        if (match === null) return
        child.off("exit", onExit)
        resume(Effect.succeed({ url: match[1]!, stop: () => child.kill("SIGKILL") }))
      })
      child.once("exit", onExit)
      return Effect.sync(() => child.kill("SIGKILL"))
    }),
    ({ stop }) => Effect.sync(stop)
  ).pipe(Effect.map(({ url }) => url))

/**
 * An authorization server (set up by `options`) and the everything server it protects (`--port 0` given explicitly
 * when asked).
 */
export const protectedEverything = (port?: "--port 0 after", options?: AuthServer.Options) =>
  Effect.gen(function*() {
    const auth = yield* AuthServer.startWith(options)
    const url = yield* everything([
      "--http",
      "--auth-issuer",
      auth.issuer,
      ...(port === undefined ? [] : ["--port", "0"])
    ])
    return { auth, url }
  })
