/**
 * Effect logs to the client: an opt-in Logger that forwards what a handler logs (`Effect.log`, `Effect.logWarning`,
 * …) to the client of its request as `notifications/message`, through the request's `RequestContext.log`. So it
 * honours what that does: the server's `logging` capability, the level the client set with `logging/setLevel`
 * (handshake eras) or the level a 2026-07-28 request names in its `_meta` (none: no messages). Outside a handler it
 * does nothing, and it is added beside the loggers already installed (stderr keeps its lines).
 *
 * Levels: Trace and Debug → `debug`, Info → `info`, Warning → `warning`, Error → `error`, Fatal → `critical`. The
 * logger name is the log's `logger` annotation, else the layer's `logger` option. The data is the message (one value,
 * or the array of several), or `{ message, annotations }` when the log has annotations; a log's Cause stays on the
 * server (it may hold stack traces and internals).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import * as HashMap from "effect/HashMap"
import * as HashSet from "effect/HashSet"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import type * as LogLevel from "effect/LogLevel"
import * as Runtime from "effect/Runtime"
import { type LoggingLevel, RequestContext } from "./RequestContext.js"

/** Options of the forwarding logger. */
export interface Options {
  /** The logger name sent with each message that has no `logger` annotation (default: none). */
  readonly logger?: string
}

/** The annotation that names a message's logger (`Effect.annotateLogs("logger", "db")`); it is not sent as data. */
export const loggerAnnotation = "logger"

/** The MCP level of an Effect log level (`undefined` for `All` and `None`, which no log is written at). */
export const levelOf = (level: LogLevel.LogLevel): LoggingLevel | undefined => {
  switch (level._tag) {
    case "Trace":
    case "Debug":
      return "debug"
    case "Info":
      return "info"
    case "Warning":
      return "warning"
    case "Error":
      return "error"
    case "Fatal":
      return "critical"
    default:
      return undefined
  }
}

/** A Logger that forwards logs written inside a handler to its request's client; elsewhere it does nothing. */
export const make = (options: Options = {}): Logger.Logger<unknown, void> => {
  const forwarder: Logger.Logger<unknown, void> = Logger.make(({ annotations, context, logLevel, message }) => {
    const fiberContext = FiberRefs.getOrDefault(context, FiberRef.currentContext)
    const request = Context.getOption(fiberContext, RequestContext)
    const level = levelOf(logLevel)
    if (request._tag === "None" || level === undefined) return
    const named = HashMap.get(annotations, loggerAnnotation)
    const logger = named._tag === "Some" && typeof named.value === "string" ? named.value : options.logger
    const send = request.value.log(level, dataOf(message, HashMap.remove(annotations, loggerAnnotation)), logger)
    // Sent from a fiber of the handler's runtime (its tracer and span too), without this logger: a failure to send
    // that is logged does not come back here.
    const runtime = Runtime.make({
      context: fiberContext,
      fiberRefs: context,
      runtimeFlags: Runtime.defaultRuntimeFlags
    })
    Runtime.runFork(runtime)(Effect.locallyWith(send, FiberRef.currentLoggers, HashSet.remove(forwarder)))
  })
  return forwarder
}

/** Adds the forwarding logger beside the installed ones. */
export const layer: Layer.Layer<never> = Logger.add(make())

/** Adds the forwarding logger with options beside the installed ones. */
export const layerWith = (options: Options): Layer.Layer<never> => Logger.add(make(options))

/** What a log sends as `data`: its message, with its annotations when it has any. */
const dataOf = (message: unknown, annotations: HashMap.HashMap<string, unknown>): unknown => {
  const text = Array.isArray(message) && message.length === 1 ? message[0] : message
  return HashMap.size(annotations) === 0 ? text : { message: text, annotations: Object.fromEntries(annotations) }
}
