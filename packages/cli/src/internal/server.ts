/**
 * The server a command talks to: the URL argument (or the stdio command line given after `--`), a client connected
 * to it for the command's work, and a client failure as the command's error.
 */
import { McpClient } from "@effect-mcp/core"
import * as Args from "@effect/cli/Args"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { type CliError, ProtocolFailure, Unreachable, type UsageError } from "../CliError.js"
import * as Target from "../Target.js"

/** The optional URL argument of a command that talks to one server. */
export const url = Args.text({ name: "url" }).pipe(
  Args.withDescription("the server's Streamable HTTP URL (or give a stdio server after `--`)"),
  Args.optional
)

/** A client failure as the command's error (its exit status follows from its kind). */
const failure = (e: McpClient.McpClientError | Unreachable | UsageError): CliError => {
  switch (e._tag) {
    case "Unreachable":
    case "UsageError":
      return e
    case "ConnectionClosed":
      return new Unreachable({ message: `the connection broke: ${Target.reasonOf(e)}` })
    case "TransportError":
      // With a status the server answered (HTTP 500, ...); without one the connection broke.
      return new Unreachable({ message: e.status === undefined ? `the connection broke: ${e.reason}` : e.reason })
    case "Unauthorized":
    case "Forbidden":
      return new Unreachable({ message: Target.reasonOf(e) })
    case "SessionExpired":
      return new Unreachable({ message: e.message })
    case "CapabilityMissing":
    case "ProtocolViolation":
      return new ProtocolFailure({ message: Target.reasonOf(e) })
    default:
      return new ProtocolFailure({ message: `the server answered error ${e.code}: ${e.message}` })
  }
}

/** Runs a command's work against the target of its URL argument or `--` command line. */
export const against = <A>(
  server: ReadonlyArray<string>,
  url: Option.Option<string>,
  work: (client: McpClient.McpClientService) => Effect.Effect<A, McpClient.McpClientError | CliError>
): Effect.Effect<A, CliError> =>
  Effect.flatMap(
    Target.resolve(Option.getOrUndefined(url), server),
    (target) => Target.withClient(target, Effect.flatMap(McpClient.McpClient, work))
  ).pipe(
    Effect.mapError((e) => (e._tag === "ToolFailed" || e._tag === "ProtocolFailure" ? e : failure(e)))
  )

/** The words `[url] <name>` of a command that acts on one named thing (`what`: how the help names it). */
export const urlAndNameArgs = (name: string, what: string) =>
  Args.text({ name: `url> <${name}` }).pipe(
    Args.withDescription(`[url] ${name}: the server's URL (unless given after \`--\`), then ${what}`),
    Args.between(1, 2)
  )

/** The words `[url] name` of a command: the server's URL when two are given, and the name of what it acts on. */
export const urlAndName = (
  words: ReadonlyArray<string>
): { readonly url: Option.Option<string>; readonly name: string } =>
  words.length > 1 ? { url: Option.some(words[0]!), name: words[1]! } : { url: Option.none(), name: words[0]! }
