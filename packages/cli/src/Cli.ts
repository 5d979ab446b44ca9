/**
 * Cli: the effect-mcp command. `inspect`, `call`, `read` and `prompt` talk to one server (a URL, or a stdio
 * server given after `--`); `serve` runs a bundled example server; `host` runs a supervised host of a
 * configuration file and prints its events. Output is for people, or JSON with `--json` (`--output json` on
 * `call`, whose `--json` takes the tool's arguments).
 */
import { McpClient } from "@effect-mcp/core"
import { HostConfig, HostEvent, McpHost } from "@effect-mcp/host"
import type { Mcp } from "@effect-mcp/schema"
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { type CliError, ProtocolFailure, ToolFailed, Unreachable, UsageError } from "./CliError.js"
import * as Render from "./internal/render.js"
import * as Target from "./Target.js"

const json = Options.boolean("json").pipe(Options.withDescription("print JSON instead of text for people"))
const url = Args.text({ name: "url" }).pipe(
  Args.withDescription("the server's Streamable HTTP URL (or give a stdio server after `--`)"),
  Args.optional
)

const print = (value: unknown) => Console.log(JSON.stringify(value, null, 2))

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
const against = <A>(
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

// ---------- inspect ----------

const inspectCommand = (server: ReadonlyArray<string>) =>
  Command.make("inspect", { url, json }, ({ json, url }) =>
    against(server, url, (client) =>
      Effect.gen(function*() {
        const caps = client.serverCapabilities
        const none = <A>() => Effect.succeed<ReadonlyArray<A>>([])
        const tools = caps.tools ? yield* client.listTools() : yield* none<Mcp.Tool>()
        const resources = caps.resources ? yield* client.listResources() : yield* none<Mcp.Resource>()
        const templates = caps.resources ? yield* client.listResourceTemplates() : yield* none<Mcp.ResourceTemplate>()
        const prompts = caps.prompts ? yield* client.listPrompts() : yield* none<Mcp.Prompt>()
        if (json) {
          return yield* print({
            revision: client.revision,
            serverInfo: client.serverInfo,
            capabilities: caps,
            instructions: client.instructions,
            tools,
            resources,
            resourceTemplates: templates,
            prompts
          })
        }
        const out = [
          `${Render.bold(`${client.serverInfo.name} ${client.serverInfo.version}`)}  ${
            Render.dim(`revision ${client.revision}${client.stateless ? " (stateless)" : ""}`)
          }`,
          ...(client.instructions ? [client.instructions] : []),
          "",
          Render.section("Capabilities", [Object.keys(caps).join(", ") || "(none)"]),
          Render.section(
            `Tools (${tools.length})`,
            tools.flatMap((t) => [
              `${Render.bold(t.name)} ${Render.signature(t.inputSchema)}`,
              ...(t.description ? [`  ${Render.dim(t.description)}`] : [])
            ])
          ),
          Render.section(
            `Resources (${resources.length})`,
            Render.columns(resources.map((r) => [r.uri, r.mimeType ?? "", r.name]))
          ),
          Render.section(
            `Resource templates (${templates.length})`,
            Render.columns(templates.map((t) => [t.uriTemplate, t.mimeType ?? "", t.name]))
          ),
          Render.section(
            `Prompts (${prompts.length})`,
            prompts.map((p) =>
              `${Render.bold(p.name)} (${
                (p.arguments ?? []).map((a) => `${a.name}${a.required ? "" : "?"}`).join(", ")
              })${p.description ? `  ${Render.dim(p.description)}` : ""}`
            )
          )
        ]
        yield* Console.log(out.join("\n").trimEnd())
      }))).pipe(
      Command.withDescription("list a server's revision, capabilities, tools, resources, templates and prompts")
    )

// ---------- call ----------

const parseObject = (text: string, what: string): Effect.Effect<Record<string, unknown>, UsageError> =>
  Either.try(() => JSON.parse(text) as unknown).pipe(
    Either.filterOrLeft(
      (u): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u),
      () => undefined
    ),
    Either.match({
      onLeft: () => Effect.fail(new UsageError({ message: `${what} must be a JSON object, got: ${text}` })),
      onRight: (o) => Effect.succeed(o)
    })
  )

const callCommand = (server: ReadonlyArray<string>) =>
  Command.make(
    "call",
    {
      words: Args.text({ name: "url> <tool" }).pipe(
        Args.withDescription("[url] tool: the server's URL (unless given after `--`), then the tool's name"),
        Args.between(1, 2)
      ),
      args: Options.text("json").pipe(
        Options.withAlias("a"),
        Options.withDescription("the tool's arguments, a JSON object (default {})"),
        Options.optional
      ),
      output: Options.choice("output", ["text", "json"]).pipe(
        Options.withAlias("o"),
        Options.withDefault("text"),
        Options.withDescription("print the result for people (text) or as JSON")
      )
    },
    ({ args, output, words }) =>
      Effect.gen(function*() {
        const [first, second] = words
        const url = second === undefined ? Option.none<string>() : Option.some(first!)
        const tool = second ?? first!
        const input = Option.isSome(args) ? yield* parseObject(args.value, "--json") : {}
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
            if (output === "json") yield* print(result)
            else {
              const text = result.content.map(Render.block).join("\n")
              yield* Console.log(
                result.structuredContent !== undefined && result.content.length === 0
                  ? JSON.stringify(result.structuredContent, null, 2)
                  : text
              )
            }
            if (result.isError === true) {
              return yield* new ToolFailed({ message: `${tool} answered an error result` })
            }
          }))
      })
  ).pipe(
    Command.withDescription(
      "call a tool and print its result (progress on stderr; Ctrl-C cancels the call). Stdio servers: `call <tool> --json '{...}' -- <command> [args...]`"
    )
  )

// ---------- read ----------

const readCommand = (server: ReadonlyArray<string>) =>
  Command.make(
    "read",
    {
      words: Args.text({ name: "url> <uri" }).pipe(
        Args.withDescription("[url] uri: the server's URL (unless given after `--`), then the resource's URI"),
        Args.between(1, 2)
      ),
      json
    },
    ({ json, words }) => {
      const [first, second] = words
      const uri = second ?? first!
      return against(server, second === undefined ? Option.none() : Option.some(first!), (client) =>
        Effect.flatMap(client.readResource(uri), (result) =>
          json
            ? print(result)
            : Console.log(
              result.contents.map((c) =>
                "text" in c
                  ? c.text
                  : Render.dim(`[${c.mimeType ?? "binary"}, ${Math.round((c.blob.length * 3) / 4)} bytes]`)
              ).join("\n")
            )))
    }
  ).pipe(Command.withDescription("read a resource and print its contents"))

// ---------- prompt ----------

const promptCommand = (server: ReadonlyArray<string>) =>
  Command.make(
    "prompt",
    {
      words: Args.text({ name: "url> <name" }).pipe(
        Args.withDescription("[url] name: the server's URL (unless given after `--`), then the prompt's name"),
        Args.between(1, 2)
      ),
      arg: Options.keyValueMap("arg").pipe(
        Options.withDescription("a prompt argument, name=value (repeatable)"),
        Options.optional
      ),
      json
    },
    ({ arg, json, words }) => {
      const [first, second] = words
      const name = second ?? first!
      const args = Option.match(arg, { onNone: () => undefined, onSome: (m) => Object.fromEntries(m) })
      return against(server, second === undefined ? Option.none() : Option.some(first!), (client) =>
        Effect.flatMap(client.getPrompt(name, args), (result) =>
          json
            ? print(result)
            : Console.log([
              ...(result.description ? [Render.dim(result.description), ""] : []),
              ...result.messages.map((m) =>
                `${Render.bold(`${m.role}:`)} ${Render.block(m.content)}`
              )
            ].join("\n"))))
    }
  ).pipe(Command.withDescription("get a prompt and print its messages"))

// ---------- serve ----------

/** The example servers this repository bundles, by name. */
export const examples: Record<string, string> = {
  everything: "everything",
  scenarios: "scenarios"
}

const exampleMain = (name: string) =>
  fileURLToPath(new URL(`../../../examples/${examples[name]}/dist/main.js`, import.meta.url))

const serveCommand = Command.make(
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

// ---------- host ----------

const hostCommand = Command.make(
  "host",
  {
    config: Args.text({ name: "config.json" }).pipe(
      Args.withDescription("a configuration file: {\"mcpServers\": {name: {command, args, env, cwd} | {url, headers}}}")
    ),
    json
  },
  ({ config, json }) =>
    Effect.gen(function*() {
      const parsed = yield* HostConfig.load(config).pipe(
        Effect.mapError((e) => new UsageError({ message: e.message }))
      )
      const scope = yield* Scope.make()
      const host = yield* McpHost.make(McpHost.fromConfig(parsed, { stderr: "ignore" })).pipe(Scope.extend(scope))
      const catalogue = yield* host.catalogue
      if (!json) {
        yield* Console.log(
          `${Render.bold("host")} ${host.servers.length} servers, ${catalogue.tools.length} tools; Ctrl-C stops it\n`
        )
      }
      // The printer outlives the interruption that stops the host, so the shutdown's events are printed too.
      const printer = yield* Effect.forkDaemon(host.events.pipe(
        Stream.runForEach((event) =>
          json
            ? Console.log(JSON.stringify(event))
            : Console.log(`${Render.dim(new Date().toISOString().slice(11, 23))} ${HostEvent.describe(event)}`)
        )
      ))
      yield* Effect.never.pipe(
        Effect.onInterrupt(() => Scope.close(scope, Exit.void).pipe(Effect.zipRight(Fiber.join(printer))))
      )
    })
).pipe(Command.withDescription("run a supervised host of a configuration file and print its events"))

/** The whole command, given the stdio server's command line (what followed `--`). */
export const command = (server: ReadonlyArray<string>) =>
  Command.make("effect-mcp").pipe(
    Command.withDescription(
      "Talk to MCP servers. A server is a URL, or a stdio command given last, after `--`. Output is for people; " +
        "--json (--output json for call) prints JSON. Exit status: 0 ok, 1 the tool answered an error, 2 usage, " +
        "3 unreachable server, 4 protocol error; Ctrl-C cancels and ends by SIGINT (130 in a shell)."
    ),
    Command.withSubcommands([
      inspectCommand(server),
      callCommand(server),
      readCommand(server),
      promptCommand(server),
      serveCommand,
      hostCommand
    ])
  )

/** Runs the command on a full `process.argv`. */
export const run = (argv: ReadonlyArray<string>) => {
  const { cli, server } = Target.splitArgv(argv)
  return Command.run(command(server), { name: "effect-mcp", version: "0.1.0" })(cli)
}
