/**
 * Cli: the effect-mcp command. `inspect`, `call`, `read` and `prompt` talk to one server (a URL, or a stdio
 * server given after `--`; a URL that asks for OAuth gets a login once, kept for the next commands); `login` and
 * `logout` make and forget such a login; `serve` runs a bundled example server; `host` runs a supervised host of a
 * configuration file and prints its events. Output is for people, or JSON with `--json` on every command; colour
 * only on a terminal, never with `NO_COLOR`.
 */
import * as Command from "@effect/cli/Command"
import { call } from "./internal/commands/call.js"
import { host } from "./internal/commands/host.js"
import { inspect } from "./internal/commands/inspect.js"
import { login, logout } from "./internal/commands/login.js"
import { prompt } from "./internal/commands/prompt.js"
import { read } from "./internal/commands/read.js"
import { examples, serve } from "./internal/commands/serve.js"
import { withPlainConsole } from "./internal/terminal.js"
import * as Target from "./Target.js"
import { version } from "./version.js"

/** The example servers the command ships, by name (what `serve` runs). */
export { examples }

/** The whole command, given the stdio server's command line (what followed `--`). */
export const command = (server: ReadonlyArray<string>) =>
  Command.make("effect-mcp").pipe(
    Command.withDescription(
      "Talk to MCP servers. A server is a URL, or a stdio command given last, after `--`. Output is for people; " +
        "--json prints JSON. Exit status: 0 ok, 1 the tool answered an error, 2 usage, 3 unreachable server, " +
        "4 protocol error; Ctrl-C cancels and ends by SIGINT (130 in a shell)."
    ),
    Command.withSubcommands([
      inspect(server),
      call(server),
      read(server),
      prompt(server),
      login,
      logout,
      serve,
      host
    ])
  )

/** Runs the command on a full `process.argv`. */
export const run = (argv: ReadonlyArray<string>) => {
  const { cli, server } = Target.splitArgv(argv)
  return withPlainConsole(Command.run(command(server), { name: "effect-mcp", version })(cli))
}
