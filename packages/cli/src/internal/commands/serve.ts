/** The `serve` command: runs one of the example servers this repository bundles. */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { Unreachable, UsageError } from "../../CliError.js"

/** The example servers this repository bundles, by name. */
export const examples: Record<string, string> = {
  everything: "everything",
  scenarios: "scenarios"
}

/**
 * An example's built server: `examples/<name>/dist/main.js` of the checkout this command runs from, looked for in
 * the folders above this module (it runs from `dist/internal/commands/` unbundled, from `dist/` bundled).
 */
const exampleMain = (name: string) => {
  const relative = `examples/${examples[name]}/dist/main.js`
  for (let up = "../"; up.length <= 24; up += "../") {
    const candidate = fileURLToPath(new URL(`${up}${relative}`, import.meta.url))
    if (existsSync(candidate)) return candidate
  }
  return fileURLToPath(new URL(`../../../${relative}`, import.meta.url))
}

/** `serve`: a bundled example server, on stdio or Streamable HTTP. */
export const serve = Command.make(
  "serve",
  {
    example: Args.choice(Object.keys(examples).map((k) => [k, k] as const), { name: "example" }).pipe(
      Args.withDescription("the bundled example server to run")
    ),
    http: Options.boolean("http").pipe(Options.withDescription("serve Streamable HTTP on 127.0.0.1 (default: stdio)")),
    port: Options.integer("port").pipe(
      Options.withDescription("the HTTP port (default 0: any free port)"),
      Options.optional
    )
  },
  ({ example, http, port }) =>
    Effect.gen(function*() {
      const main = exampleMain(example)
      if (!existsSync(main)) {
        return yield* new UsageError({ message: `${example} is not built (${main}): run \`tsc -b\` first` })
      }
      const args = http ? ["--http", ...(Option.isSome(port) ? ["--port", String(port.value)] : [])] : ["--stdio"]
      const code = yield* Effect.async<number>((resume) => {
        const child = spawn(process.execPath, [main, ...args], { stdio: "inherit" })
        const forward = (signal: NodeJS.Signals) => () => child.kill(signal)
        const onInt = forward("SIGINT")
        const onTerm = forward("SIGTERM")
        process.on("SIGINT", onInt)
        process.on("SIGTERM", onTerm)
        child.on("exit", (code) => {
          process.off("SIGINT", onInt)
          process.off("SIGTERM", onTerm)
          resume(Effect.succeed(code ?? 0))
        })
        return Effect.sync(() => child.kill("SIGTERM"))
      })
      if (code !== 0) return yield* new Unreachable({ message: `${example} exited with code ${code}` })
    })
).pipe(Command.withDescription("run a bundled example server on stdio, or on Streamable HTTP with --http"))
