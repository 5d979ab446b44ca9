/**
 * Target: the server a command talks to: a URL (Streamable HTTP, falling back to HTTP+SSE; OAuth when the server asks
 * for it, see `internal/loginSettings.ts`), or the command line after `--` (a stdio server, started as a child and
 * stopped with the command; the bin starts it ahead, while the command loads: `internal/prespawn.ts`).
 */
import { McpClient, Transport } from "@effect-mcp/core"
import { McpHttpClient, McpNodeHttpClient } from "@effect-mcp/http"
import { StdioClientTransport } from "@effect-mcp/node"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Unreachable, UsageError } from "./CliError.js"
import * as LoginSettings from "./internal/loginSettings.js"
import * as Prespawn from "./internal/prespawn.js"

/** Where the server is. */
export type Target =
  | { readonly _tag: "Url"; readonly url: string }
  | { readonly _tag: "Stdio"; readonly command: string; readonly args: ReadonlyArray<string> }

/** Splits a command line at its first `--`: what the CLI parses, and the stdio server's command line. */
export const splitArgv: (argv: ReadonlyArray<string>) => {
  readonly cli: ReadonlyArray<string>
  readonly server: ReadonlyArray<string>
} = Prespawn.splitArgv

/** Whether a word is an http(s) URL. */
export const isUrl = (word: string): boolean => /^https?:\/\//i.test(word) && URL.canParse(word)

/** The target from an optional URL argument and the command line after `--` (exactly one of them). */
export const resolve = (url: string | undefined, server: ReadonlyArray<string>): Effect.Effect<Target, UsageError> => {
  if (url !== undefined && server.length > 0) {
    return Effect.fail(new UsageError({ message: "give either a URL or `-- <command> [args...]`, not both" }))
  }
  if (url !== undefined) {
    return isUrl(url)
      ? Effect.succeed({ _tag: "Url", url })
      : Effect.fail(new UsageError({ message: `not an http(s) URL: ${url}` }))
  }
  const [command, ...args] = server
  return command === undefined
    ? Effect.fail(new UsageError({ message: "no server: give a URL, or `-- <command> [args...]` at the end" }))
    : Effect.succeed({ _tag: "Stdio", command, args })
}

/** Describes a target for people. */
export const describe = (target: Target): string =>
  target._tag === "Url" ? target.url : [target.command, ...target.args].join(" ")

/** The transport to a stdio server: the one the bin started ahead for this command line, else one started now. */
const stdio = (command: string, args: ReadonlyArray<string>) =>
  Effect.suspend(() => {
    const ahead = Prespawn.take(command, args)
    return ahead === undefined
      ? StdioClientTransport.make(Prespawn.serverOptions(command, args))
      : StdioClientTransport.adopt(ahead)
  })

/** A connected client of the target (stdio children are stopped, HTTP sessions ended, with the scope). */
export const client = (target: Target): Layer.Layer<McpClient.McpClient, Unreachable> => {
  const transport = target._tag === "Url"
    ? Layer.scoped(
      Transport.Transport,
      Effect.gen(function*() {
        const pools = yield* McpNodeHttpClient.agents
        const execute = yield* LoginSettings.withLogin(McpNodeHttpClient.execute(pools), LoginSettings.fromEnv())
        return yield* McpHttpClient.makeWith({ url: target.url }, execute)
      })
    )
    : Layer.scoped(Transport.Transport, stdio(target.command, target.args))
  return McpClient.layer({ name: "effect-mcp-cli", version: "0.1.0" }).pipe(
    Layer.provide(transport),
    Layer.mapError((e) => new Unreachable({ message: `cannot connect to ${describe(target)}: ${reasonOf(e)}` }))
  )
}

/** The reason a failure gives, without its stack; a refusal of our credentials says how the server wants them. */
export const reasonOf = (e: unknown): string => {
  const reason = typeof e === "object" && e !== null && "reason" in e && typeof e.reason === "string"
    ? e.reason
    : e instanceof Error
    ? e.message
    : String(e)
  // A refused handshake carries the refusal as its cause.
  const refusal = typeof e === "object" && e !== null && "cause" in e && e.cause !== undefined ? e.cause : e
  if (!(refusal instanceof Transport.Unauthorized || refusal instanceof Transport.Forbidden)) return reason
  const asked = refusal.wwwAuthenticate
  return asked === undefined ? reason : `${reason}; WWW-Authenticate: ${asked.slice(0, 300)}`
}

/** Runs an effect with the target's client. */
export const withClient = <A, E, R>(
  target: Target,
  effect: Effect.Effect<A, E, R | McpClient.McpClient>
): Effect.Effect<A, E | Unreachable, Exclude<R, McpClient.McpClient>> => Effect.provide(effect, client(target))
