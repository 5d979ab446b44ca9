/**
 * The DNS-rebinding guard, as table tests of hostile Host and Origin values sent on raw sockets (so that any Host,
 * or none, reaches the server as written), against the Streamable HTTP endpoint and both legacy HTTP+SSE endpoints.
 * The `http` project runs them on McpNodeHttpServer, the `http-platform` project on McpHttpServer.layer.
 */
import type { McpHttpServer } from "@effect-mcp/http"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { connect as connectSocket } from "node:net"
import { initialize, serve } from "./helpers.js"

/** What a request carries besides its method and path; `host: undefined` sends no Host line at all (HTTP/1.0). */
interface Sent {
  readonly host: string | undefined
  readonly origin?: string
}

/**
 * Sends one request on a raw socket, with the Host and Origin lines exactly as given, and resolves with the status
 * code of the answer (then closes the socket: a stream that stays open does not keep the test waiting).
 */
const statusOf = (url: string, method: "GET" | "POST", sent: Sent): Effect.Effect<number> =>
  Effect.async<number>((resume) => {
    const target = new URL(url)
    const body = method === "POST" ? JSON.stringify(initialize("2025-11-25")) : ""
    const lines = [
      // HTTP/1.1 requires a Host (node answers 400 without one); HTTP/1.0 lets the request reach the guard.
      `${method} ${target.pathname}${target.search} ${sent.host === undefined ? "HTTP/1.0" : "HTTP/1.1"}`,
      ...(sent.host === undefined ? [] : [`Host: ${sent.host}`]),
      ...(sent.origin === undefined ? [] : [`Origin: ${sent.origin}`]),
      "Accept: application/json, text/event-stream",
      "Content-Type: application/json",
      `Content-Length: ${Buffer.byteLength(body)}`,
      "Connection: close"
    ]
    const socket = connectSocket(Number(target.port), "127.0.0.1")
    let head = ""
    socket.setEncoding("latin1")
    socket.on("data", (chunk: string) => {
      head += chunk
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(head)
      if (match !== null) {
        socket.destroy()
        resume(Effect.succeed(Number(match[1])))
      }
    })
    socket.on("error", (e) => resume(Effect.die(e)))
    socket.on("close", () => resume(Effect.dieMessage(`the connection closed before a status line: ${head}`)))
    socket.write(`${lines.join("\r\n")}\r\n\r\n${body}`)
    return Effect.sync(() => socket.destroy())
  })

/** Host values that must be refused with the default allow-list (localhost, 127.0.0.1, [::1], any port). */
const hostileHosts: ReadonlyArray<string | undefined> = [
  undefined,
  "",
  "evil.example",
  "localhost.evil.example",
  "localhost.evil.example:80",
  "LOCALHOST.EVIL.EXAMPLE",
  "evil.localhost",
  "localhost.",
  "127.0.0.1.nip.io",
  "127.0.0.1.evil.example:8080",
  "localhost:80@evil.example",
  "localhost:evil.example",
  "localhost:80:80",
  "127.0.0.1:",
  "127.0.0.1:8080x",
  "127.0.0.1 evil.example",
  "0.0.0.0",
  "127.0.0.2",
  "::1",
  "[::1",
  "[::1]evil.example",
  "[::1].evil.example",
  "[::1]:80@evil.example",
  "[::ffff:127.0.0.1]",
  "[0:0:0:0:0:0:0:1]:8080"
]

/** Host values the default allow-list accepts: its names in any case, with or without a port. */
const localHostValues: ReadonlyArray<string> = [
  "localhost",
  "LOCALHOST",
  "LocalHost:3000",
  "127.0.0.1",
  "127.0.0.1:65535",
  "[::1]",
  "[::1]:8080"
]

/** Origin values that must be refused when no allowedOrigins are configured (only localhost origins pass). */
const hostileOrigins: ReadonlyArray<string> = [
  "",
  "null",
  "evil.example",
  "localhost",
  "http://evil.example",
  "http://localhost.evil.example",
  "http://localhost.evil.example:3000",
  "http://evil.localhost",
  "http://127.0.0.1.nip.io",
  "http://evil.example/?localhost",
  "http://evil.example/#localhost",
  "http://evil.example/localhost",
  "http://localhost@evil.example",
  "http://localhost:80@evil.example",
  "http://evil.example:80@localhost",
  "http://evil.example@localhost:3000",
  "http://localhost/evil",
  "http://localhost:3000/?x=1",
  "file://localhost",
  "ws://localhost:3000",
  "javascript://localhost",
  "http://[::ffff:127.0.0.1]",
  "http://localhost, http://evil.example"
]

/** Origin values of localhost pages, which pass by default. */
const localOrigins: ReadonlyArray<string> = [
  "http://localhost",
  "http://localhost:5173",
  "https://localhost:8443",
  "HTTP://LOCALHOST:3000",
  "http://127.0.0.1:8080",
  "http://[::1]:3000"
]

const name = (value: string | undefined) => (value === undefined ? "(none)" : JSON.stringify(value))

/** The endpoints the guard stands in front of, each with the status a request that passes it gets. */
const endpoints = (running: { readonly url: string; readonly origin: string }, legacy: boolean) => [
  { what: "POST /mcp", url: running.url, method: "POST" as const, passed: 200 },
  ...(legacy
    ? [
      { what: "GET /sse", url: `${running.origin}/sse`, method: "GET" as const, passed: 200 },
      // No such session: a request that passes the guard gets 404.
      { what: "POST /messages", url: `${running.origin}/messages?sessionId=nope`, method: "POST" as const, passed: 404 }
    ]
    : [])
]

/** Sends every case to every endpoint and returns the ones whose status is not the expected one. */
const mismatches = (
  options: McpHttpServer.Options,
  cases: ReadonlyArray<Sent & { readonly refused: boolean }>
) =>
  Effect.gen(function*() {
    const running = yield* serve(options)
    const wrong: Array<string> = []
    for (const endpoint of endpoints(running, options.legacySse === true)) {
      for (const c of cases) {
        const status = yield* statusOf(endpoint.url, endpoint.method, c)
        const expected = c.refused ? 403 : endpoint.passed
        if (status !== expected) {
          wrong.push(`${endpoint.what} Host ${name(c.host)} Origin ${name(c.origin)}: ${status}, expected ${expected}`)
        }
      }
    }
    return wrong
  })

describe("the DNS-rebinding guard", () => {
  for (const legacy of [false, true]) {
    const where = legacy ? "the MCP endpoint and the legacy HTTP+SSE endpoints" : "the MCP endpoint"
    it.scopedLive(`${where}: a hostile Host gets 403, a local one in any case and with any port passes`, () =>
      Effect.gen(function*() {
        const cases = [
          ...hostileHosts.map((host) => ({ host, refused: true })),
          ...localHostValues.map((host) => ({ host, refused: false }))
        ]
        expect(yield* mismatches({ legacySse: legacy }, cases)).toEqual([])
      }))

    it.scopedLive(`${where}: a hostile Origin gets 403, a localhost origin passes`, () =>
      Effect.gen(function*() {
        const cases = [
          ...hostileOrigins.map((origin) => ({ host: "127.0.0.1", origin, refused: true })),
          ...localOrigins.map((origin) => ({ host: "localhost", origin, refused: false }))
        ]
        expect(yield* mismatches({ legacySse: legacy }, cases)).toEqual([])
      }))
  }

  it.scopedLive("allowedHosts and allowedOrigins are matched whole, never by prefix or substring", () =>
    Effect.gen(function*() {
      const host = "mcp.example.com"
      const origin = "https://app.example.com"
      const cases = [
        ...[
          "mcp.example.com.evil.example",
          "evil-mcp.example.com",
          "evil.mcp.example.com",
          "mcp.example.co",
          "localhost",
          "mcp.example.com:443@evil.example"
        ].map((h) => ({ host: h, origin, refused: true })),
        ...[
          "https://app.example.com.evil.example",
          "https://app.example.co",
          "https://evil.example/?https://app.example.com",
          "https://app.example.com:8443",
          "http://app.example.com",
          "https://app.example.com/",
          "http://localhost:3000",
          "null"
        ].map((o) => ({ host, origin: o, refused: true })),
        ...["mcp.example.com", "MCP.Example.COM", "mcp.example.com:8443"].map((h) => ({
          host: h,
          origin,
          refused: false
        })),
        { host, refused: false }
      ]
      expect(yield* mismatches({ allowedHosts: [host], allowedOrigins: [origin], legacySse: true }, cases)).toEqual([])
    }))

  it.scopedLive("dnsRebindingProtection: false lets any Host and Origin through", () =>
    Effect.gen(function*() {
      const cases = [
        { host: "evil.example", origin: "http://evil.example", refused: false },
        { host: undefined, origin: "null", refused: false }
      ]
      expect(yield* mismatches({ dnsRebindingProtection: false }, cases)).toEqual([])
    }))
})
