/**
 * `main.js --http --auth-issuer <issuer-url>` against a real authorization server (oidc-provider, started by each
 * test on 127.0.0.1): the built program (dist/main.js, `tsc -b`) protects its whole endpoint with JWT access tokens
 * from that issuer for the URL it prints after `LISTENING`, serves its protected resource metadata, and requires
 * `mcp:write` for `echo`. Checked with our client and with the official SDK clients 1.32 and 2.4, each sending a
 * bearer token in its request headers.
 */
import { McpClient, Transport } from "@effect-mcp/core"
import { McpNodeHttpClient } from "@effect-mcp/http"
import { describe, expect, it } from "@effect/vitest"
import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from "@modelcontextprotocol/client"
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport as V1Http } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { spawnSync } from "node:child_process"
import { env, main, protectedEverything } from "./protectedServer.js"

/** Our client over node:http with a bearer token. */
const ours = (url: string, token: string) =>
  Effect.gen(function*() {
    const transport = yield* Layer.build(McpNodeHttpClient.layer({ url, token: Effect.succeed(token) }))
    return yield* McpClient.make({ name: "auth-test", version: "0.0.0" }).pipe(Effect.provide(transport))
  })

const text = (result: { readonly content: ReadonlyArray<unknown> }) => (result.content[0] as { text: string }).text

const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } })

describe("everything --http --auth-issuer", () => {
  it.scopedLive("serves its protected resource metadata; a request without a token gets 401 naming it", () =>
    Effect.gen(function*() {
      const { auth, url } = yield* protectedEverything("--port 0 after")
      const origin = new URL(url).origin
      const metadataUrl = `${origin}/.well-known/oauth-protected-resource/mcp`
      const metadata = yield* Effect.promise(() => fetch(metadataUrl).then((r) => r.json()))
      expect(metadata).toMatchObject({ resource: url, authorization_servers: [auth.issuer] })
      const none = yield* Effect.promise(() =>
        fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })
      )
      expect(none.status).toBe(401)
      expect(none.headers.get("www-authenticate")).toContain(`resource_metadata="${metadataUrl}"`)
    }))

  it.scopedLive("our client: echo with mcp:write; 403 insufficient_scope without it; 401 for another audience", () =>
    Effect.gen(function*() {
      const { auth, url } = yield* protectedEverything()
      const writer = yield* ours(url, yield* auth.token({ resource: url, scope: "mcp:write" }))
      expect(text(yield* writer.callTool("echo", { text: "hi" }))).toBe("hi")
      const reader = yield* ours(url, yield* auth.token({ resource: url, scope: "mcp:read" }))
      expect((yield* reader.callTool("divide", { a: 6, b: 3 })).structuredContent).toEqual({ quotient: 2 })
      const refused = yield* Effect.flip(reader.callTool("echo", { text: "hi" }))
      expect(refused).toBeInstanceOf(Transport.Forbidden)
      expect((refused as Transport.Forbidden).wwwAuthenticate).toContain("error=\"insufficient_scope\"")
      expect((refused as Transport.Forbidden).wwwAuthenticate).toContain("scope=\"mcp:write\"")
      const foreign = yield* auth.token({ resource: "http://127.0.0.1:1/mcp", scope: "mcp:write" })
      const response = yield* Effect.promise(() =>
        fetch(url, {
          method: "POST",
          headers: {
            authorization: `Bearer ${foreign}`,
            "content-type": "application/json",
            accept: "application/json, text/event-stream"
          },
          body: "{}"
        })
      )
      expect(response.status).toBe(401)
      expect(response.headers.get("www-authenticate")).toContain("The token is not for this resource")
    }))

  it.scopedLive("the SDK 1.32 and 2.4 clients call echo with a bearer token in their headers; without mcp:write, refused", () =>
    Effect.gen(function*() {
      const { auth, url } = yield* protectedEverything()
      const writer = yield* auth.token({ resource: url, scope: "mcp:write" })
      const reader = yield* auth.token({ resource: url, scope: "mcp:read" })
      /** An SDK client with a bearer token in its request headers, as the three calls the test makes. */
      interface SdkClient {
        readonly connect: () => Promise<void>
        readonly echo: () => Promise<unknown>
        readonly close: () => Promise<void>
      }
      const clients: ReadonlyArray<{ readonly refusal: RegExp; readonly make: (token: string) => SdkClient }> = [
        {
          // SDK 1.32 surfaces the 403's JSON-RPC error (-32001), which names the missing scope.
          refusal: /-32001.*The token lacks the scope mcp:write/,
          make: (token) => {
            const client = new V1Client({ name: "sdk1-auth", version: "1.32.2" })
            return {
              connect: () => client.connect(new V1Http(new URL(url), { requestInit: bearer(token) })),
              echo: () => client.callTool({ name: "echo", arguments: { text: "sdk" } }).then((r) => r.content),
              close: () => client.close()
            }
          }
        },
        {
          // SDK 2.4 reads the challenge itself: its typed InsufficientScopeError.
          refusal: /^InsufficientScopeError/,
          make: (token) => {
            const client = new V2Client({ name: "sdk2-auth", version: "2.4.0" })
            return {
              connect: () => client.connect(new V2Http(new URL(url), { requestInit: bearer(token) })),
              echo: () => client.callTool({ name: "echo", arguments: { text: "sdk" } }).then((r) => r.content),
              close: () => client.close()
            }
          }
        }
      ]
      for (const { make, refusal } of clients) {
        const ok = make(writer)
        yield* Effect.promise(ok.connect)
        expect(yield* Effect.promise(ok.echo)).toEqual([{ type: "text", text: "sdk" }])
        yield* Effect.promise(ok.close)
        const limited = make(reader)
        yield* Effect.promise(limited.connect)
        const refused = yield* Effect.promise(() =>
          limited.echo().then(
            () => "succeeded",
            (e: unknown) => String(e)
          )
        )
        expect(refused).toMatch(refusal)
        yield* Effect.promise(limited.close)
      }
    }))

  it("refuses an --auth-issuer that is not an http(s) URL, and keeps the other flags", () => {
    for (
      const args of [["--http", "--auth-issuer", "not a url"], ["--http", "--auth-issuer"], ["--http", "--port", "x"]]
    ) {
      const run = spawnSync(process.execPath, [main, ...args], { env, encoding: "utf8" })
      expect(run.status).toBe(2)
      expect(run.stderr).toContain("usage: main.js --stdio | --http [--port N] [--auth-issuer <issuer-url>]")
    }
  })
})
