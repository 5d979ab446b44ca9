/**
 * A tiny node:http → fetch bridge for the tests: each node request becomes a web `Request` (its body streamed, its
 * `signal` aborted when the client goes away) handed to a fetch handler, and the `Response` is written back as the
 * client reads it (its body cancelled when the client goes away).
 */
import { once } from "node:events"
import type * as Http from "node:http"
import { Readable } from "node:stream"

/** The peer address of each bridged request, for the handler's `remoteAddress` option. */
export const remoteAddresses = new WeakMap<Request, string>()

/** A node request as a web request, aborted when its response closes before it ended. */
const toRequest = (req: Http.IncomingMessage, res: Http.ServerResponse): Request => {
  const abort = new AbortController()
  res.on("close", () => {
    if (!res.writableEnded) abort.abort()
  })
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers.set(name, value)
    else if (Array.isArray(value)) { for (const v of value) headers.append(name, v) }
  }
  const method = req.method ?? "GET"
  const body = method === "GET" || method === "HEAD" ? undefined : Readable.toWeb(req) as ReadableStream<Uint8Array>
  // The URL comes from the socket, not from the (untrusted) Host header, as a runtime's own server builds it.
  const url = new URL(req.url ?? "/", `http://127.0.0.1:${req.socket.localPort}`)
  const request = new Request(url, {
    method,
    headers,
    signal: abort.signal,
    ...(body === undefined ? {} : { body, duplex: "half" })
  } as RequestInit)
  if (req.socket.remoteAddress !== undefined) remoteAddresses.set(request, req.socket.remoteAddress)
  return request
}

/** Writes a web response to a node response, waiting whenever the socket is full. */
const write = async (response: Response, res: Http.ServerResponse) => {
  res.writeHead(response.status, Object.fromEntries(response.headers))
  if (response.body === null) return void res.end()
  const reader = response.body.getReader()
  res.on("close", () => void reader.cancel().catch(() => undefined))
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    if (!res.write(value)) await once(res, "drain")
  }
  res.end()
}

/** A fetch handler (which may answer at once, as Hono's does) as a node:http request listener. */
export const fetchListener =
  (fetch: (request: Request) => Response | Promise<Response>) =>
  (req: Http.IncomingMessage, res: Http.ServerResponse) =>
    void Promise.resolve(fetch(toRequest(req, res))).then((response) => write(response, res)).catch(() => res.destroy())
