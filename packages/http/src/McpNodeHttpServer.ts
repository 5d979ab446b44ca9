/**
 * The Streamable HTTP endpoint served straight on `node:http`: the same endpoint as `McpHttpServer.layer`, without
 * `@effect/platform`'s per-request machinery (a scope, a span and a response encoder per request), which costs
 * about as much server CPU per request as a whole bare node:http exchange (docs/benchmarks.md, "Where the time goes",
 * HTTP; it wins the "echo over HTTP" rows). Each
 * request runs in a fiber of the server's scope; a client that goes away interrupts it, and closing the scope
 * closes every connection and interrupts every request. It listens on 127.0.0.1 unless told otherwise.
 */
import type { McpServer } from "@effect-mcp/core"
import { McpError } from "@effect-mcp/schema"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Http from "node:http"
import * as BodyLimit from "./internal/bodyLimit.js"
import * as ParsedBody from "./internal/server/parsedBody.js"
import * as Wire from "./internal/wire.js"
import * as McpHttpServer from "./McpHttpServer.js"
import * as SessionDirectory from "./SessionDirectory.js"

/** Where the server listens. */
export interface ListenOptions {
  /** The port (default 0: any free one). */
  readonly port?: number
  /** The address to bind (default `127.0.0.1`, loopback only). */
  readonly host?: string
}

/** The address the server listens on. */
export class Address extends Context.Tag("@effect-mcp/http/McpNodeHttpServer/Address")<Address, {
  readonly host: string
  readonly port: number
  /** The MCP endpoint's absolute URL. */
  readonly url: string
}>() {}

/** The server could not listen (the port is taken, the address is not this machine's, …). */
export class ListenError extends Data.TaggedError("ListenError")<{ readonly cause: unknown }> {}

/**
 * Reads a node request's body whole, refusing one larger than `limit` bytes (the shared body limit, fed node's
 * chunks). When something read the stream before the endpoint (a framework's body parser), its result `parsed` is the
 * body instead. The read has no canceller, which would make it an uninterruptible region (every POST of the "echo
 * over HTTP" rows pays for one): the request's fiber is interrupted only when its connection closed or the server
 * stops, and either way the request stream, with these listeners, goes with it.
 */
const readText = (request: Http.IncomingMessage, parsed: unknown) => (limit: number) =>
  Effect.async<string, McpHttpServer.BodyTooLarge | McpHttpServer.BodyUnreadable>((resume) => {
    if (BodyLimit.declaredTooLarge(request.headers["content-length"], limit)) {
      resume(Effect.fail(new McpHttpServer.BodyTooLarge({ limit })))
      return
    }
    // A consumed stream sends no more events: waiting for its `end` would hang the request.
    if (request.readableEnded) {
      resume(ParsedBody.text(parsed, limit))
      return
    }
    const body = BodyLimit.collector<Buffer>(limit)
    const stop = () => {
      request.off("data", onData)
      request.off("end", onEnd)
      request.off("error", onError)
    }
    const onData = (chunk: Buffer) => {
      if (!BodyLimit.add(body, chunk)) {
        stop()
        resume(Effect.fail(new McpHttpServer.BodyTooLarge({ limit })))
      }
    }
    const onEnd = () => {
      stop()
      if (BodyLimit.overLimit(body)) return resume(Effect.fail(new McpHttpServer.BodyTooLarge({ limit })))
      const { chunks } = body
      resume(
        Effect.succeed(
          chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks, body.size).toString("utf8")
        )
      )
    }
    const onError = (cause: unknown) => {
      stop()
      resume(Effect.fail(new McpHttpServer.BodyUnreadable({ cause })))
    }
    request.on("data", onData)
    request.on("end", onEnd)
    request.on("error", onError)
  })

/** A node request as the endpoint reads it (with the body a framework already read of it, if it did). */
const incoming = (request: Http.IncomingMessage, parsed: unknown): McpHttpServer.Incoming => ({
  method: request.method ?? "GET",
  url: request.url ?? "/",
  // Node joins repeated headers into one value, except `set-cookie`, which a request does not carry.
  headers: request.headers as Readonly<Record<string, string | undefined>>,
  remoteAddress: request.socket.remoteAddress,
  readText: readText(request, parsed)
})

/** Waits until the response can take more (or the client is gone, which interrupts the request). */
const drained = (response: Http.ServerResponse) =>
  Effect.async<void>((resume) => {
    const onDrain = () => resume(Effect.void)
    response.once("drain", onDrain)
    return Effect.sync(() => response.off("drain", onDrain))
  })

/** Writes a reply: a whole body at once, or an SSE stream chunk by chunk, waiting whenever the socket is full. */
const write = (response: Http.ServerResponse, reply: McpHttpServer.Reply): Effect.Effect<void> => {
  const body = reply.body
  const headers: Record<string, string | number> = { ...reply.headers }
  if (reply.contentType !== undefined) headers["content-type"] = reply.contentType
  if (typeof body !== "object") {
    headers["content-length"] = body === undefined ? 0 : Buffer.byteLength(body)
    response.writeHead(reply.status, headers)
    response.end(body)
    return Effect.void
  }
  response.writeHead(reply.status, headers)
  return Stream.runForEach(body, (chunk) => response.write(chunk) ? Effect.void : drained(response)).pipe(
    Effect.andThen(Effect.sync(() => void response.end()))
  )
}

/**
 * What a request that failed leaves on the wire: a generic 500 if nothing was sent yet, else a cut connection; the
 * defect to log, when there is one. It observes the request's fiber from outside (an `Effect.onExit` inside it would
 * make every request, each of the "echo over HTTP" rows' calls, an uninterruptible region).
 */
const failed = (response: Http.ServerResponse, exit: Exit.Exit<void>): Cause.Cause<never> | undefined => {
  if (Exit.isSuccess(exit) || response.writableEnded) return undefined
  if (Cause.isInterruptedOnly(exit.cause) || response.headersSent) {
    response.destroy()
    return undefined
  }
  const text = Wire.errorBody(null, McpError.codes.InternalError, "Internal error")
  response.writeHead(500, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
  response.end(text)
  return exit.cause
}

/**
 * Serves one node:http request. `parsedBody` is what a framework's body parser made of the body when it already
 * read it (Fastify's `request.body`: parsed JSON, text or bytes); it is used only when the request's stream was
 * consumed, which is otherwise read as it comes.
 */
export type Handler = (request: Http.IncomingMessage, response: Http.ServerResponse, parsedBody: unknown) => void

/** A `node:http` request listener; `request.body` is the body when a middleware already read it (`express.json()`). */
export type Listener = (
  request: Http.IncomingMessage & { readonly body?: unknown },
  response: Http.ServerResponse
) => void

/**
 * The endpoint as a function of a node request, its response and the body a framework may already have read of it,
 * for a framework that keeps that body apart from the node request (Fastify: `handle(request.raw, reply.raw,
 * request.body)` after `reply.hijack()`); requests and sessions live in the Scope, and closing it interrupts them.
 */
export const handler = (
  options: McpHttpServer.Options = {}
): Effect.Effect<Handler, never, McpServer.McpServer | Scope.Scope> =>
  Effect.gen(function*() {
    const handle = yield* McpHttpServer.handler(options)
    const runFork = yield* FiberSet.makeRuntime<never, void, never>()
    return (request, response, parsedBody) => {
      const fiber = runFork(Effect.flatMap(handle(incoming(request, parsedBody)), (reply) => write(response, reply)))
      fiber.addObserver((exit) => {
        const defect = failed(response, exit)
        if (defect !== undefined) runFork(Effect.logError("effect-mcp: the HTTP endpoint failed", defect))
      })
      response.on("close", () => {
        if (!response.writableEnded) fiber.unsafeInterruptAsFork(FiberId.none)
      })
    }
  })

/**
 * The endpoint as a `node:http` request listener, for a server of your own (`http.createServer(listener)`) or an
 * Express app (`app.all("/mcp", listener)`, before or after `express.json()`: a body the middleware parsed is read
 * from `request.body`); requests and sessions live in the Scope, and closing it interrupts them.
 */
export const listener = (
  options: McpHttpServer.Options = {}
): Effect.Effect<Listener, never, McpServer.McpServer | Scope.Scope> =>
  Effect.map(handler(options), (handle) => (request, response) => handle(request, response, request.body))

const listen = (server: Http.Server, port: number, host: string) =>
  Effect.async<number, ListenError>((resume) => {
    const onError = (cause: unknown) => resume(Effect.fail(new ListenError({ cause })))
    server.once("error", onError)
    server.listen(port, host, () => {
      server.off("error", onError)
      const address = server.address()
      resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : port))
    })
  })

const close = (server: Http.Server) =>
  Effect.async<void>((resume) => {
    server.close(() => resume(Effect.void))
    // Open SSE streams and idle keep-alive connections would hold `close` forever.
    server.closeAllConnections()
  })

/** Where a server listens, before its endpoint is made: for options that depend on it (an audience, a resource URL). */
export interface Listening {
  readonly host: string
  readonly port: number
  /** `http://host:port`. */
  readonly origin: string
}

/**
 * Serves the MCP endpoint on a new node:http server (127.0.0.1, any free port, unless told), for the McpServer in
 * context. The options may be a function of where it listens (e.g. a token audience that is the endpoint's own URL on
 * a port chosen at start): the endpoint is then made once the server listens, before the layer is built.
 */
export const layer = (
  options: McpHttpServer.Options | ((listening: Listening) => McpHttpServer.Options) = {},
  where: ListenOptions = {}
): Layer.Layer<Address, ListenError, McpServer.McpServer> =>
  Layer.scoped(
    Address,
    Effect.gen(function*() {
      const host = where.host ?? "127.0.0.1"
      const address = typeof options !== "function"
        ? yield* Effect.gen(function*() {
          const onRequest = yield* listener(options)
          const server = Http.createServer(onRequest)
          const port = yield* Effect.acquireRelease(listen(server, where.port ?? 0, host), () => close(server))
          return { ...addressOf(host, port, options), relayOrigin: options.relayOrigin }
        })
        : yield* Effect.gen(function*() {
          const server = Http.createServer()
          const port = yield* Effect.acquireRelease(listen(server, where.port ?? 0, host), () => close(server))
          const resolved = options({ host, port, origin: addressOf(host, port, {}).origin })
          server.on("request", yield* listener(resolved))
          return { ...addressOf(host, port, resolved), relayOrigin: resolved.relayOrigin }
        })
      // A server on several processes tells the others where to relay requests for its sessions.
      const directory = yield* Effect.serviceOption(SessionDirectory.SessionDirectory)
      const { relayOrigin, ...served } = address
      if (Option.isSome(directory)) yield* directory.value.advertise(relayOrigin ?? served.origin)
      return served
    })
  )

const addressOf = (host: string, port: number, options: McpHttpServer.Options) => {
  const origin = `http://${host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`}`
  return { host, port, origin, url: `${origin}${options.path ?? "/mcp"}` }
}
