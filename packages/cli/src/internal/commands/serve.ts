/** The `serve` command: runs one of the example servers the command ships (bundled beside it). */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { Unreachable, UsageError } from "../../CliError.js"

/** The example servers the command ships, by name. */
export const examples: ReadonlyArray<string> = ["everything", "scenarios"]

/**
 * An example's bundled server, `serve-<name>.mjs` in the cli's dist/ (scripts/bundle.mjs makes it beside
 * `effect-mcp.mjs`): this module runs from dist/ bundled, from dist/internal/commands/ as tsc built it.
 */
const exampleMain = (name: string) => {
  const candidates = [`./serve-${name}.mjs`, `../../serve-${name}.mjs`].map((path) =>
    fileURLToPath(new URL(path, import.meta.url))
  )
  return candidates.find((candidate) => existsSync(candidate)) ?? candidates[0]!
}

/** `serve`: a bundled example server, on stdio or Streamable HTTP. */
export const serve = Command.make(
  "serve",
  {
    example: Args.choice(examples.map((k) => [k, k] as const), { name: "example" }).pipe(
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
        return yield* new UsageError({ message: `${example} is not bundled (${main}): run \`pnpm build\` first` })
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
