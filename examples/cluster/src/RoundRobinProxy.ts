/**
 * A round-robin HTTP proxy on 127.0.0.1, in front of several servers, with no stickiness at all: each request goes to
 * the next backend, whatever session or stream it belongs to. A backend that refuses the connection (its process is
 * gone) is skipped for that request, as a load balancer's health check would; responses (SSE too) are streamed back,
 * and a backend that dies mid-response cuts the client's connection.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { createServer, type IncomingMessage, request, type ServerResponse } from "node:http"

/** A running proxy. */
export interface Proxy {
  /** The proxy's origin (`http://127.0.0.1:<port>`). */
  readonly origin: string
  /** How many requests each backend got, by its origin. */
  readonly counts: ReadonlyMap<string, number>
}

/** Sends the buffered request to one backend; false when the backend refused the connection. */
const forward = (
  backend: string,
  incoming: IncomingMessage,
  body: Buffer,
  outgoing: ServerResponse
): Promise<boolean> =>
  new Promise((resolve) => {
    const target = new URL(incoming.url ?? "/", backend)
    const upstream = request(target, { method: incoming.method, headers: { ...incoming.headers, host: target.host } })
    upstream.once("response", (response) => {
      outgoing.writeHead(response.statusCode ?? 502, response.headers)
      response.pipe(outgoing)
      outgoing.once("close", () => response.destroy())
      // A backend that dies mid-answer cuts the client's connection too (an open SSE stream ends), as a balancer does.
      response.once("error", () => outgoing.destroy())
      response.once("aborted", () => outgoing.destroy())
      resolve(true)
    })
    upstream.once("error", () => {
      if (outgoing.headersSent) outgoing.destroy()
      resolve(false)
    })
    upstream.end(body)
  })

/** Starts the proxy for the scope; `backends` are origins, tried in turn. */
export const roundRobinProxy = (backends: ReadonlyArray<string>): Effect.Effect<Proxy, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<Proxy & { readonly close: () => void }>((resume) => {
      let next = 0
      const counts = new Map<string, number>()
      const server = createServer((incoming, outgoing) => {
        const chunks: Array<Buffer> = []
        incoming.on("data", (chunk: Buffer) => chunks.push(chunk))
        incoming.once("end", async () => {
          const body = Buffer.concat(chunks)
          for (let tried = 0; tried < backends.length; tried++) {
            const backend = backends[next++ % backends.length]!
            if (await forward(backend, incoming, body, outgoing)) {
              counts.set(backend, (counts.get(backend) ?? 0) + 1)
              return
            }
          }
          outgoing.writeHead(502).end()
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        const port = typeof address === "object" && address !== null ? address.port : 0
        resume(Effect.succeed({
          origin: `http://127.0.0.1:${port}`,
          counts,
          close: () => {
            server.close()
            server.closeAllConnections()
          }
        }))
      })
    }),
    (proxy) => Effect.sync(proxy.close)
  )
