/**
 * Interop test helpers: where the peers live, a child process that serves HTTP and prints
 * `LISTENING <url>` (stopped with the scope), and the recorder that turns each operation's outcome
 * into docs/interop.md.
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Scope from "effect/Scope"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { afterAll } from "vitest"
import * as Report from "../src/Report.js"

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))

/** The Node binary the tests run on (children run on the same one). */
export const node = process.execPath

/** The SDK 1.32 McpServer fixture. */
export const sdk1Server = here("./fixtures/sdk1-server.mjs")

/** The SDK 2.4 (@modelcontextprotocol/server) McpServer fixture. */
export const sdk2Server = here("./fixtures/sdk2-server.mjs")

/** The preload that keeps server-everything's HTTP listener on 127.0.0.1. */
export const loopback = here("./fixtures/loopback.mjs")

/** server-everything's bin. */
export const serverEverything = here("../node_modules/@modelcontextprotocol/server-everything/dist/index.js")

/** Our conformance server, built (`pnpm exec tsc -b`). */
export const ourEverything = here("../../everything/dist/main.js")

/** The environment children get: enough to run, nothing of ours (server-everything has a `get-env` tool). */
export const childEnv: Record<string, string> = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  NODE_ENV: "test"
}

/** The peer libraries' versions, as the tables name them. */
export const versions = {
  sdk: "1.32.2",
  v2: "2.4.0",
  everything: "2026.8.31"
} as const

/** A child process that printed `LISTENING <url>`. */
export interface Listening {
  readonly url: string
  readonly child: ChildProcess
}

const stop = (child: ChildProcess) =>
  Effect.async<void>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
    const kill = setTimeout(() => child.kill("SIGKILL"), 3000)
    child.once("exit", () => {
      clearTimeout(kill)
      resume(Effect.void)
    })
    child.kill("SIGTERM")
  })

/** Spawns `node ...args` and waits for its `LISTENING <url>` line; the child is stopped when the scope closes. */
export const listening = (
  args: ReadonlyArray<string>,
  env: Record<string, string> = childEnv
): Effect.Effect<Listening, Error, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<Listening, Error>((resume) => {
      const child = spawn(node, [...args], { env, stdio: ["ignore", "pipe", "pipe"] })
      let out = ""
      let err = ""
      const onExit = (code: number | null) =>
        resume(Effect.fail(new Error(`${args.join(" ")} exited (${code}) before listening; stderr:\n${err}`)))
      child.stderr.setEncoding("utf8")
      child.stderr.on("data", (chunk: string) => {
        err = (err + chunk).slice(-4000)
      })
      child.stdout.setEncoding("utf8")
      child.stdout.on("data", (chunk: string) => {
        out += chunk
        const match = /^LISTENING (\S+)$/m.exec(out)
        if (match !== null) {
          child.off("exit", onExit)
          child.stdout.removeAllListeners("data")
          child.stdout.resume()
          resume(Effect.succeed({ url: match[1]!, child }))
        }
      })
      child.once("exit", onExit)
      return Effect.sync(() => child.kill("SIGKILL"))
    }),
    ({ child }) => stop(child)
  )

/** An answer to any form: each field's default, else its first choice, else a value of its type. */
export const answerForm = (schema: { readonly properties: Readonly<Record<string, unknown>> }) => {
  const content: Record<string, unknown> = {}
  for (const [key, raw] of Object.entries(schema.properties)) {
    const field = raw as Record<string, any>
    const choice = field.enum?.[0] ?? field.oneOf?.[0]?.const
    if (field.type === "number" || field.type === "integer") {
      content[key] = Math.round(Number(field.default ?? field.minimum ?? 1))
    } else if (field.default !== undefined) content[key] = field.default
    else if (choice !== undefined) content[key] = choice
    else if (field.type === "boolean") content[key] = true
    else if (field.type === "array") content[key] = [field.items?.enum?.[0] ?? field.items?.anyOf?.[0]?.const]
    else if (field.format === "email") content[key] = "ada@example.com"
    else if (field.format === "uri") content[key] = "https://example.com/ada"
    else if (field.format === "date") content[key] = "1815-12-10"
    else content[key] = "Ada"
  }
  return content
}

// ---------- the report ----------

const resultsDir = here("../results/")
const docsPage = here("../../../docs/interop.md")

const preamble = `# Interop with the official MCP SDKs

This page is written by the interop tests (\`pnpm exec vitest run --project interop\`, after \`pnpm exec tsc -b\`):
each cell is one operation of one connection, checked against what the peer must answer. The peers are real
child processes: \`@modelcontextprotocol/sdk\` ${versions.sdk} (McpServer, Client), \`@modelcontextprotocol/server\` and
\`@modelcontextprotocol/client\` ${versions.v2}, and \`@modelcontextprotocol/server-everything\` ${versions.everything}; our side is
\`McpClient\` (over \`StdioClientTransport\` / \`McpHttpClient\`) and \`examples/everything\` (\`--stdio\` / \`--http\`).
"—" means the operation does not apply to that run. How each revision is reached, and what is left out, is in
[the notes](#notes) below the tables.
`

const notes = `## Notes

- **Revisions.** Our client negotiates (no pin: \`server/discover\`, falling back to \`initialize\` with the newest
  handshake revision) and is then pinned to every older handshake revision the server accepts. The SDK 1.32
  \`Client\` has no option to choose its revision (it always offers its \`LATEST_PROTOCOL_VERSION\`, 2025-11-25); it
  is pinned by wrapping its transport so that the \`initialize\` it sends offers the revision under test, which our
  server accepts and the client then uses (its \`setProtocolVersion\` sets the HTTP header). The v2 \`Client\` is
  pinned with its own options: \`supportedProtocolVersions: [rev]\` for a handshake revision, \`versionNegotiation:
  { mode: { pin: "2026-07-28" } }\` for the stateless one.
- **server-everything over HTTP.** Its \`streamableHttp\` mode calls \`app.listen(PORT)\`, which binds every interface,
  and has no host option; the tests run its bin with \`PORT=0\` and a preload
  (\`examples/interop/test/fixtures/loopback.mjs\`) that makes a host-less \`listen\` bind 127.0.0.1 and print the port.
- **Cancel.** Against the fixtures the server counts the cancellations it saw (its \`slow\` tool's abort signal) and
  the test asks it; against server-everything only the client side is checked (the call ends, the connection
  serves the next call). Against our server the SDK clients call \`test_cancellable\` and abort with an
  \`AbortSignal\` on its first progress update; the test checks the call rejects, that the server's handler was
  interrupted (\`test_cancellations\` counts the interruptions, waiting up to 5 s for the one expected), and that the
  connection still works.
`

/** Records each operation's outcome; after the file's tests, writes them out and re-renders docs/interop.md. */
export const recorder = (file: string) => {
  const outcomes: Array<Report.Outcome> = []
  afterAll(() => {
    mkdirSync(resultsDir, { recursive: true })
    const sorted = [...Report.dedupe(outcomes)].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))
    writeFileSync(`${resultsDir}${file}.json`, JSON.stringify(sorted, null, 2) + "\n")
    const all = readdirSync(resultsDir).filter((f) => f.endsWith(".json")).sort().flatMap((f) =>
      JSON.parse(readFileSync(`${resultsDir}${f}`, "utf8")) as Array<Report.Outcome>
    )
    writeFileSync(docsPage, Report.render(all, preamble) + "\n" + notes)
  })
  return {
    /** Runs `effect` as one operation of `run`, recording whether it succeeded. */
    record: <A, E, R>(
      run: Omit<Report.Outcome, "operation" | "passed" | "knownBug">,
      operation: string,
      effect: Effect.Effect<A, E, R>,
      knownBug?: string
    ): Effect.Effect<A, E, R> =>
      Effect.onExit(effect, (exit) =>
        Effect.sync(() => {
          outcomes.push({
            ...run,
            operation,
            passed: Exit.isSuccess(exit),
            ...(knownBug === undefined ? {} : { knownBug })
          })
        }))
  }
}
