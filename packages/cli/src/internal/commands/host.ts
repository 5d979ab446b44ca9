/** The `host` command: a supervised host of a configuration file; its events for people or as JSON lines. */
import { HostConfig, HostEvent, McpHost } from "@effect-mcp/host"
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { UsageError } from "../../CliError.js"
import * as LoginSettings from "../loginSettings.js"
import { json } from "../output.js"
import * as Render from "../render.js"

/** `host`: a supervised host of a configuration file, printing its events until Ctrl-C. */
export const host = Command.make(
  "host",
  {
    config: Args.text({ name: "config.json" }).pipe(
      Args.withDescription(
        "a configuration file: {\"mcpServers\": {name: {command, args, env, cwd} | {url, headers, auth}}}"
      )
    ),
    json
  },
  ({ config, json }) =>
    Effect.gen(function*() {
      const parsed = yield* HostConfig.load(config).pipe(
        Effect.mapError((e) => new UsageError({ message: e.message }))
      )
      const scope = yield* Scope.make()
      const host = yield* McpHost.make(McpHost.fromConfig(parsed, {
        stderr: "ignore",
        // A server that asks for OAuth gets a login, with its entry's `auth` settings.
        httpExchange: ({ config }, execute) => LoginSettings.withLogin(execute, LoginSettings.fromEnv(), config.auth)
      })).pipe(Scope.extend(scope))
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
