/**
 * The `call` command: calls a tool with `--args` (a JSON object), draws its progress on stderr, and prints its
 * result for people or as JSON. An error result is printed as an error, on stderr, and exits with status 1.
 */
import { Json, type Mcp } from "@effect-mcp/schema"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { ProtocolFailure, ToolFailed, UsageError } from "../../CliError.js"
import { json, print } from "../output.js"
import * as Render from "../render.js"
import { against, urlAndName, urlAndNameArgs } from "../server.js"

const parseObject = (text: string, what: string): Effect.Effect<Record<string, unknown>, UsageError> =>
  Either.try(() => JSON.parse(text) as unknown).pipe(
    Either.filterOrLeft(Json.isRecord, () => undefined),
    Either.match({
      onLeft: () => Effect.fail(new UsageError({ message: `${what} must be a JSON object, got: ${text}` })),
      onRight: (o) => Effect.succeed(o)
    })
  )

// Before 0.2 the arguments were `--json '{...}'`; that JSON now lands among the words: say where it goes instead.
const misplacedArguments = (words: ReadonlyArray<string>) =>
  words.some((w) => w.trimStart().startsWith("{"))
    ? Effect.fail(
      new UsageError({ message: "a tool's arguments go in --args (-a) '{...}'; --json prints the result as JSON" })
    )
    : Effect.void

/** A result's content for people: its blocks, or its structured content when it has no blocks. */
const text = (result: Mcp.CallToolResult) =>
  result.structuredContent !== undefined && result.content.length === 0
    ? JSON.stringify(result.structuredContent, null, 2)
    : result.content.map(Render.block).join("\n")

/** Prints a result: a success on stdout; an error result on stderr, marked (as JSON: the result on stdout, the mark on stderr). */
const printResult = (tool: string, result: Mcp.CallToolResult, asJson: boolean) =>
  result.isError === true
    ? Effect.zipRight(
      asJson
        ? Effect.zipRight(
          print(result),
          Console.error(Render.errorMark(`${tool} answered an error: its result is on stdout`))
        )
        : Console.error(`${Render.errorMark(`${tool} answered an error:`)}\n${text(result)}`),
      new ToolFailed({ message: `${tool} answered an error result` })
    )
    : asJson
    ? print(result)
    : Console.log(text(result))

/** `call`: calls a tool and prints its result. */
export const call = (server: ReadonlyArray<string>) =>
  Command.make(
    "call",
    {
      words: urlAndNameArgs("tool", "the tool's name"),
      args: Options.text("args").pipe(
        Options.withAlias("a"),
        Options.withDescription("the tool's arguments, a JSON object (default {})"),
        Options.optional
      ),
      json
    },
    ({ args, json, words }) =>
      Effect.gen(function*() {
        yield* misplacedArguments(words)
        const { name: tool, url } = urlAndName(words)
        const input = Option.isSome(args) ? yield* parseObject(args.value, "--args") : {}
        yield* against(server, url, (client) =>
          Effect.gen(function*() {
            let drawn = false
            const result = yield* client.callToolStream(tool, input).pipe(
              Stream.runFoldEffect(undefined as Mcp.CallToolResult | undefined, (_, event) =>
                event._tag === "Progress"
                  ? Effect.sync(() => {
                    drawn = true
                    Render.drawProgress(
                      Render.progressBar(event.progress.progress, event.progress.total, event.progress.message)
                    )
                    return undefined
                  })
                  : Effect.succeed(event.result)),
              Effect.ensuring(Effect.sync(() => Render.endProgress(drawn)))
            )
            if (result === undefined) return yield* new ProtocolFailure({ message: "the call ended without a result" })
            yield* printResult(tool, result, json)
          }))
      })
  ).pipe(
    Command.withDescription(
      "call a tool and print its result (progress on stderr; an error result on stderr, exit 1; Ctrl-C cancels the call). Stdio servers: `call <tool> --args '{...}' -- <command> [args...]`"
    )
  )
