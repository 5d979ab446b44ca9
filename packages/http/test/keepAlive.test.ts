/**
 * The node:http client's kept-alive sockets: a server may close an idle socket just as a request goes out on it,
 * and that request, which the server never read, is sent once more on a new socket instead of failing.
 */
import { McpNodeHttpClient } from "@effect-mcp/http"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Http from "node:http"
import { listenOnLoopback } from "./helpers.js"

describe("McpNodeHttpClient's keep-alive sockets", () => {
  it.scopedLive("a request cut on a reused socket before any answer is sent again on a new one; once only", () =>
    Effect.gen(function*() {
      const perSocket = new WeakMap<object, number>()
      let received = 0
      let cutAll = false
      const server = Http.createServer((req, res) => {
        received++
        const seen = (perSocket.get(req.socket) ?? 0) + 1
        perSocket.set(req.socket, seen)
        // The second request on a socket finds it closing: cut without an answer, as a keep-alive timeout does.
        if (seen > 1 || cutAll) return void req.socket.destroy()
        req.resume()
        req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end("{}"))
      })
      const port = yield* listenOnLoopback(server)
      const pools = yield* McpNodeHttpClient.agents
      const execute = McpNodeHttpClient.execute(pools)
      const exchange = execute({ method: "POST", url: `http://127.0.0.1:${port}/mcp`, headers: {}, body: "{}" }).pipe(
        Effect.flatMap((response) => Effect.map(response.text, (text) => ({ status: response.status, text })))
      )
      expect(yield* exchange).toEqual({ status: 200, text: "{}" })
      // The kept-alive socket is reused, cut, and the request goes out again on a new socket.
      expect(yield* exchange).toEqual({ status: 200, text: "{}" })
      expect(received).toBe(3)
      // A server that cuts every request: one retry, then the failure is the caller's.
      cutAll = true
      const failed = yield* Effect.flip(exchange)
      expect(failed._tag).toBe("ExchangeFailed")
      expect(received).toBe(5)
    }))
})
