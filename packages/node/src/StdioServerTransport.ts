/**
 * The stdio server transport: newline-delimited JSON on stdin and stdout, as a Layer providing
 * core's Transport. Chunks may split anywhere (even inside a UTF-8 character) and may hold several
 * messages; a line that is not JSON reaches the engine as malformed (it answers -32700 and carries
 * on); blank lines are skipped; stdin EOF ends receiving, so `McpServer.serve` returns.
 *
 * stdout belongs to the transport alone: `loggerLayer` sends Effect's logs to stderr, and
 * `runServer` serves a server Layer over stdio as a whole program (exit code 0 on stdin EOF or
 * SIGTERM/SIGINT, after every finalizer has run).
 */
import { McpServer, Transport } from "@effect-mcp/core"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import type * as PlatformRuntime from "@effect/platform/Runtime"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import type { Readable, Writable } from "node:stream"
import * as LineReader from "./internal/readable.js"
import * as Writer from "./internal/writer.js"

/** Settings of the stdio server transport. */
export interface Options {
  /** The longest line accepted, in bytes (default 64 MiB); a longer one is answered with -32700. */
  readonly maxLineBytes?: number
}

/** A Transport over any pair of Node streams (stdin and stdout, or PassThroughs in tests). */
export const make = (
  input: Readable | NodeJS.ReadableStream,
  output: Writable | NodeJS.WritableStream,
  options: Options = {}
): Transport.TransportService => {
  const writer = Writer.make(output, "stdout")
  return {
    receive: LineReader.receive(input, "stdin", options),
    send: (message) => writer.send(message),
    describe: () => pipe
  }
}

// What telemetry records of a stdio connection.
const pipe: Transport.Description = { networkTransport: "pipe" }

/** The Transport over this process's stdin and stdout. */
export const layer = (options: Options = {}): Layer.Layer<Transport.Transport> =>
  Layer.sync(Transport.Transport, () => make(process.stdin, process.stdout, options))

/** Effect's logfmt logger, writing each line to stderr. */
export const stderrLogger: Logger.Logger<unknown, void> = Logger.map(Logger.logfmtLogger, (line) => {
  process.stderr.write(`${line}\n`)
})

/** Replaces Effect's default logger (which writes to stdout) with `stderrLogger`. */
export const loggerLayer: Layer.Layer<never> = Logger.replace(Logger.defaultLogger, stderrLogger)

const serveUnlogged = <E, R>(
  server: Layer.Layer<McpServer.McpServer, E, R>,
  options: Options
): Effect.Effect<void, E, R> => McpServer.serve.pipe(Effect.scoped, Effect.provide(Layer.merge(server, layer(options))))

/** Serves the server a Layer builds over stdio until stdin ends; its logs go to stderr. */
export const serve = <E, R>(
  server: Layer.Layer<McpServer.McpServer, E, R>,
  options: Options = {}
): Effect.Effect<void, E, R> => serveUnlogged(server, options).pipe(Effect.provide(loggerLayer))

const flushThenExit = (code: number) => {
  process.exitCode = code
  // Whatever the transport queued on stdout goes out before the process ends.
  process.stdout.write("", () => process.exit(code))
}

const teardown: PlatformRuntime.Teardown = (exit) =>
  flushThenExit(Exit.isFailure(exit) && !Cause.isInterruptedOnly(exit.cause) ? 1 : 0)

/**
 * Runs the server a Layer builds as this process's main program over stdio: exit code 0 when
 * stdin ends or on SIGTERM/SIGINT (finalizers run first), 1 when building the server fails.
 */
export const runServer = <E>(server: Layer.Layer<McpServer.McpServer, E>, options: Options = {}): void =>
  serveUnlogged(server, options).pipe(
    Effect.tapErrorCause((cause) =>
      Cause.isInterruptedOnly(cause) ? Effect.void : Effect.logError("effect-mcp: the stdio server failed", cause)
    ),
    Effect.provide(loggerLayer),
    NodeRuntime.runMain({ disableErrorReporting: true, disablePrettyLogger: true, teardown })
  )
