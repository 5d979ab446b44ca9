/**
 * The everything server as a program. `--stdio` serves on stdin/stdout; `--http [--port N]` serves
 * Streamable HTTP on 127.0.0.1 (port 0, any free one, unless given) and prints one line
 * `LISTENING <url>` on stdout once it accepts connections. Logs go to stderr.
 */
import { StdioServerTransport } from "@effect-mcp/node"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import * as Everything from "./Everything.js"

const usage = "usage: main.js --stdio | --http [--port N]"

/** What the command line asks for. */
type Mode = { readonly _tag: "Stdio" } | { readonly _tag: "Http"; readonly port: number } | {
  readonly _tag: "Usage"
  readonly problem: string
}

const parse = (args: ReadonlyArray<string>): Mode => {
  if (args.length === 1 && args[0] === "--stdio") return { _tag: "Stdio" }
  if (args[0] !== "--http") return { _tag: "Usage", problem: "expected --stdio or --http" }
  if (args.length === 1) return { _tag: "Http", port: 0 }
  const port = Number(args[2])
  if (args.length === 3 && args[1] === "--port" && Number.isInteger(port) && port >= 0 && port < 65536) {
    return { _tag: "Http", port }
  }
  return { _tag: "Usage", problem: "--http takes only --port N (0 to 65535)" }
}

const mode = parse(process.argv.slice(2))
switch (mode._tag) {
  case "Stdio":
    StdioServerTransport.runServer(Everything.layer)
    break
  case "Http":
    // Loaded only here: a server on stdio does not load the HTTP stack (about a tenth of its start-up).
    Effect.promise(() => import("./ServeHttp.js")).pipe(
      Effect.flatMap(({ serveHttp }) => serveHttp(mode.port)),
      NodeRuntime.runMain({ disablePrettyLogger: true })
    )
    break
  case "Usage":
    process.stderr.write(`${mode.problem}\n${usage}\n`)
    process.exitCode = 2
}
