/**
 * Starting the stdio server while the command loads. The command line after `--` is the server's, known before
 * anything else: the bin starts it first (`PrespawnedChild`), so that its start and the command's overlap, and the
 * command's stdio transport adopts it (`Target.ts`) instead of starting another (docs/benchmarks.md, "`effect-mcp
 * call`, session 23"). Only a command that connects to that server starts it ahead; one it never adopts is killed
 * with its process group when the command exits (a usage error, a failure before connecting, a signal).
 *
 * Plain Node, not Effect: the bin loads it before the command.
 */
import * as PrespawnedChild from "@effect-mcp/node/PrespawnedChild"

/** The commands that connect to the stdio server given after `--` (each one that calls `against` in `commands/`). */
export const connecting: ReadonlySet<string> = new Set(["inspect", "call", "read", "prompt"])

// @effect/cli's own options: a command line with one answers it (help, a completion script, ...) and connects to
// nothing. `--log-level` is the one that does not stop a command, but a command line that starts with it is left alone
// anyway (the first word is not a command).
const builtIn = /^(?:-h|--help|--version|--wizard|--completions(?:=.*)?)$/

// The commands that act on a named thing (a tool, a resource, a prompt): without a word for it the command line is
// a usage error, found here before anything starts. The options that take a value, whose value is no such word.
const naming: ReadonlySet<string> = new Set(["call", "read", "prompt"])
const valued: ReadonlySet<string> = new Set(["--args", "-a", "--arg", "--log-level", "--completions"])

/** How many words of a command's arguments are neither options nor their values. */
const positionals = (words: ReadonlyArray<string>): number => {
  let count = 0
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!
    if (valued.has(word)) i++
    else if (!word.startsWith("-")) count++
  }
  return count
}

/** Splits a command line at its first `--`: what the CLI parses, and the stdio server's command line. */
export const splitArgv = (argv: ReadonlyArray<string>): {
  readonly cli: ReadonlyArray<string>
  readonly server: ReadonlyArray<string>
} => {
  const at = argv.indexOf("--")
  return at < 0 ? { cli: argv, server: [] } : { cli: argv.slice(0, at), server: argv.slice(at + 1) }
}

/** How the command starts a stdio server: the same options whether it starts it ahead or its transport does. */
export const serverOptions = (command: string, args: ReadonlyArray<string>): PrespawnedChild.SpawnOptions => ({
  command,
  args,
  stderr: "ignore"
})

/**
 * The stdio server to start ahead for a full `process.argv`: one given after `--` to a command that connects to it,
 * on a command line that asks for no help, version or completions, names no URL (a URL with `--` is a usage error)
 * and names what `call`, `read` or `prompt` acts on; `undefined` otherwise (then the command starts its server
 * itself, if it has one). Other usage errors are found by the command: the server started ahead is then killed.
 */
export const serverToStartAhead = (
  argv: ReadonlyArray<string>
): { readonly command: string; readonly args: ReadonlyArray<string> } | undefined => {
  const { cli, server } = splitArgv(argv.slice(2))
  const [command, ...args] = server
  if (command === undefined || cli[0] === undefined || !connecting.has(cli[0])) return undefined
  if (cli.some((word) => builtIn.test(word) || /^https?:\/\//i.test(word))) return undefined
  if (naming.has(cli[0]) && positionals(cli.slice(1)) === 0) return undefined
  return { command, args }
}

// The bin and the command are bundled apart (each with its own copy of this module): the child they share is kept
// on the global object.
const slot = Symbol.for("@effect-mcp/cli/prespawnedServer")
type Slot = { [slot]?: PrespawnedChild.PrespawnedChild | undefined }

/**
 * The server started ahead for the command line `command args`, if there is one: taken, so that it is adopted once;
 * any other is left to be killed when the command exits.
 */
export const take = (command: string, args: ReadonlyArray<string>): PrespawnedChild.PrespawnedChild | undefined => {
  const holder = globalThis as Slot
  const child = holder[slot]
  if (child === undefined) return undefined
  const started = child.options.args ?? []
  if (child.options.command !== command || started.length !== args.length || started.some((a, i) => a !== args[i])) {
    return undefined
  }
  holder[slot] = undefined
  return child
}

/**
 * Starts the stdio server of a full `process.argv` ahead (when `serverToStartAhead` finds one) and offers it to the
 * command. Returns what to call once the command has loaded: until then a SIGINT or SIGTERM kills the child before
 * this process ends by it (a signal unhandled would end the process without its exit hooks); then the command's own
 * handling takes over.
 */
export const startAhead = (argv: ReadonlyArray<string>): () => void => {
  const server = serverToStartAhead(argv)
  if (server === undefined) return () => {}
  let child: PrespawnedChild.PrespawnedChild | undefined
  const stopGuarding = () => {
    process.removeListener("SIGINT", guard)
    process.removeListener("SIGTERM", guard)
  }
  const guard = (signal: NodeJS.Signals) => {
    stopGuarding()
    if (child !== undefined) PrespawnedChild.abandon(child)
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal)
  }
  // Guarded before the child exists: no moment where a signal could end this process and leave it behind.
  process.on("SIGINT", guard)
  process.on("SIGTERM", guard)
  child = PrespawnedChild.spawn(serverOptions(server.command, server.args))
  const holder = globalThis as Slot
  holder[slot] = child
  return stopGuarding
}
