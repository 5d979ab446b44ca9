/**
 * The everything server as a program. `--stdio` serves on stdin/stdout; `--http [--port N]` serves
 * Streamable HTTP on 127.0.0.1 (port 0, any free one, unless given), and the deprecated HTTP+SSE transport
 * (2024-11-05) at `/sse`, and prints one line
 * `LISTENING <url>` on stdout once it accepts connections; `--auth-issuer <issuer-url>` protects that
 * endpoint with JWT access tokens from the issuer (audience: the printed URL), and `echo` then needs
 * the scope `mcp:write`. `--redis <url>` keeps the server's shared state in Redis (docs/scale-out.md), so that several
 * processes started with the same URL serve as one server, and adds the `cluster_*` tools. Logs go to stderr.
 */
import { StdioServerTransport } from "@effect-mcp/node"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import * as Everything from "./Everything.js"

const usage = "usage: main.js --stdio | --http [--port N] [--auth-issuer <issuer-url>] [--redis <redis-url>]"

/** What the command line asks for. */
type Mode =
  | { readonly _tag: "Stdio" }
  | {
    readonly _tag: "Http"
    readonly port: number
    readonly authIssuer: string | undefined
    readonly redis: string | undefined
  }
  | { readonly _tag: "Usage"; readonly problem: string }

const isPort = (n: number) => Number.isInteger(n) && n >= 0 && n < 65536

const isHttpUrl = (s: string) => URL.canParse(s) && ["http:", "https:"].includes(new URL(s).protocol)

const isRedisUrl = (s: string) => URL.canParse(s) && ["redis:", "rediss:"].includes(new URL(s).protocol)

const parse = (args: ReadonlyArray<string>): Mode => {
  if (args.length === 1 && args[0] === "--stdio") return { _tag: "Stdio" }
  if (args[0] !== "--http") return { _tag: "Usage", problem: "expected --stdio or --http" }
  let port: number | undefined
  let authIssuer: string | undefined
  let redis: string | undefined
  for (let i = 1; i < args.length; i += 2) {
    const flag = args[i]
    const value = args[i + 1]
    if (flag === "--port" && port === undefined && value !== undefined && isPort(Number(value))) {
      port = Number(value)
    } else if (flag === "--auth-issuer" && authIssuer === undefined && value !== undefined && isHttpUrl(value)) {
      authIssuer = value
    } else if (flag === "--redis" && redis === undefined && value !== undefined && isRedisUrl(value)) {
      redis = value
    } else {
      return {
        _tag: "Usage",
        problem:
          "--http takes only --port N (0 to 65535), --auth-issuer <issuer-url> (an http(s) URL) and --redis <redis-url>"
      }
    }
  }
  return { _tag: "Http", port: port ?? 0, authIssuer, redis }
}

const mode = parse(process.argv.slice(2))
switch (mode._tag) {
  case "Stdio":
    StdioServerTransport.runServer(Everything.layer)
    break
  case "Http":
    // Loaded only here: a server on stdio does not load the HTTP stack (about a tenth of its start-up).
    Effect.promise(() => import("./ServeHttp.js")).pipe(
      Effect.flatMap(({ serveHttp }) => serveHttp(mode.port, mode.authIssuer, mode.redis)),
      NodeRuntime.runMain({ disablePrettyLogger: true })
    )
    break
  case "Usage":
    process.stderr.write(`${mode.problem}\n${usage}\n`)
    process.exitCode = 2
}
