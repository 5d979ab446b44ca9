/**
 * The Streamable HTTP client transport straight on `node:http` and `node:https`: the same transport as
 * `McpHttpClient.layer`, over keep-alive agents of its own (closed with the scope) instead of an `@effect/platform`
 * HttpClient, whose per-request span, request and response wrappers and fetch-based exchange cost about four times
 * the client CPU of a plain keep-alive `http.request` (docs/benchmarks.md, "Where the time goes", HTTP).
 */
import { Transport } from "@effect-mcp/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Http from "node:http"
import * as Https from "node:https"
import * as McpHttpClient from "./McpHttpClient.js"

/** The connection pools requests go through. */
export interface Agents {
  readonly http: Http.Agent
  readonly https: Https.Agent
}

/**
 * How long an idle kept-alive socket is kept: below node's own server keep-alive timeout (5 s), so that a request is
 * seldom handed to a socket the server is closing (node 20's agent ignores the server's `Keep-Alive: timeout`).
 */
const idleSocketMs = 4_000

/** Keep-alive agents, destroyed (with their sockets) when the scope closes. */
export const agents: Effect.Effect<Agents, never, Scope.Scope> = Effect.acquireRelease(
  Effect.sync(() => ({
    http: new Http.Agent({ keepAlive: true, timeout: idleSocketMs }),
    https: new Https.Agent({ keepAlive: true, timeout: idleSocketMs })
  })),
  (pools) =>
    Effect.sync(() => {
      pools.http.destroy()
      pools.https.destroy()
    })
)

const failure = (cause: unknown) =>
  new McpHttpClient.ExchangeFailed({ reason: cause instanceof Error ? cause.message : String(cause), cause })

/** Reads a response's body whole. */
const readText = (response: Http.IncomingMessage) =>
  Effect.async<string, McpHttpClient.ExchangeFailed>((resume) => {
    const chunks: Array<Buffer> = []
    let size = 0
    response.on("data", (chunk: Buffer) => {
      chunks.push(chunk)
      size += chunk.length
    })
    response.on("end", () =>
      resume(Effect.succeed(
        chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks, size).toString("utf8")
      )))
    response.on("error", (cause) => resume(Effect.fail(failure(cause))))
    response.on("close", () => {
      if (!response.complete) resume(Effect.fail(failure("the connection closed before the body ended")))
    })
    return Effect.sync(() => response.destroy())
  })

/**
 * A response's body as it arrives: the socket is paused while the stream's buffer is full, and ending the stream
 * early (an interrupted reader) destroys the response at once, however long the server stays silent.
 */
const bodyStream = (response: Http.IncomingMessage) =>
  Stream.async<Uint8Array, McpHttpClient.ExchangeFailed>((emit) => {
    response.on("data", (chunk: Buffer) => {
      response.pause()
      void emit.single(chunk).then(() => response.resume())
    })
    response.on("end", () => void emit.end())
    response.on("error", (cause) => void emit.fail(failure(cause)))
    response.on("close", () => {
      if (!response.complete) void emit.fail(failure("the connection closed before the body ended"))
    })
    return Effect.sync(() => {
      if (!response.complete) response.destroy()
    })
  })

/** The parts of a URL a request needs, parsed once per URL. */
const target = (cache: Map<string, URL>, url: string): URL => {
  let parsed = cache.get(url)
  if (parsed === undefined) {
    parsed = new URL(url)
    if (cache.size > 16) cache.clear()
    cache.set(url, parsed)
  }
  return parsed
}

/**
 * Exchanges over node:http and node:https through the given agents. A request that fails on a reused kept-alive
 * socket before any response (the server closed that socket as the request went out, so it never read it) is sent
 * once more on a new one.
 */
export const execute = (pools: Agents): McpHttpClient.Execute => {
  const urls = new Map<string, URL>()
  const send = (
    request: McpHttpClient.OutgoingRequest,
    retried: boolean
  ): Effect.Effect<McpHttpClient.IncomingResponse, McpHttpClient.ExchangeFailed> =>
    Effect.withFiberRuntime((fiber) =>
      Effect.async<McpHttpClient.IncomingResponse, McpHttpClient.ExchangeFailed>((resume) => {
        const url = target(urls, request.url)
        const secure = url.protocol === "https:"
        const headers: Record<string, string> = request.body === undefined
          ? { ...request.headers }
          : {
            "content-type": "application/json",
            ...request.headers,
            "content-length": String(Buffer.byteLength(request.body))
          }
        const options = {
          method: request.method,
          hostname: url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname,
          port: url.port === "" ? (secure ? 443 : 80) : Number(url.port),
          path: url.pathname + url.search,
          headers
        }
        const outgoing = secure
          ? Https.request({ ...options, agent: pools.https })
          : Http.request({ ...options, agent: pools.http })
        let responded = false
        outgoing.on("response", (response) => {
          responded = true
          // A body nobody reads would hold its socket: it is dropped when the fiber that sent the request ends,
          // unless reading it began (then the reader owns it, and interrupting the reader drops it).
          const drop = () => {
            if (!response.complete) response.destroy()
          }
          const claim = () => fiber.removeObserver(drop)
          fiber.addObserver(drop)
          response.once("close", claim)
          resume(Effect.succeed({
            status: response.statusCode ?? 0,
            headers: response.headers as Readonly<Record<string, string | undefined>>,
            text: Effect.suspend(() => {
              claim()
              return readText(response)
            }),
            stream: Stream.suspend(() => {
              claim()
              return bodyStream(response)
            })
          }))
        })
        outgoing.on("error", (cause) =>
          resume(
            !retried && outgoing.reusedSocket && !responded ? send(request, true) : Effect.fail(failure(cause))
          ))
        outgoing.end(request.body)
        return Effect.sync(() => outgoing.destroy())
      })
    )
  return (request) => send(request, false)
}

/**
 * Makes the transport; it lives (and its session and connections with it) until the scope closes. Its requests go
 * through keep-alive agents of its own, or through the given ones (for TLS settings, a proxy agent, or one pool
 * shared by many transports), which it leaves open.
 */
export const make = (
  options: McpHttpClient.Options,
  through?: Agents
): Effect.Effect<Transport.TransportService, never, Scope.Scope> =>
  Effect.flatMap(
    through === undefined ? agents : Effect.succeed(through),
    (pools) => McpHttpClient.makeWith(options, execute(pools))
  )

/** The Streamable HTTP client transport as a Layer, on node:http and node:https (through `make`'s agents). */
export const layer = (options: McpHttpClient.Options, through?: Agents): Layer.Layer<Transport.Transport> =>
  Layer.scoped(Transport.Transport, make(options, through))
