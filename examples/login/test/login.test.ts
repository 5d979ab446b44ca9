/**
 * The login example as a person runs it: the built program (dist/main.js) as a child process. The test plays the
 * person: it reads the authorization URL the program prints on stderr, opens it with a user agent that follows the
 * sign-in (which grants at once) to the program's loopback listener, and then reads the program's steps on stdout,
 * down to echo's answer. Neither output carries a token (no JWT) or the authorization code, and once the program has
 * ended nothing it started still listens.
 */
import * as Browser from "@effect-mcp-examples/oauth-server/Browser"
import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"

const main = fileURLToPath(new URL("../dist/main.js", import.meta.url))

/** The program's outputs as they grow, the URL it asks the person to open, and its exit code. */
interface Run {
  readonly stdout: () => string
  readonly stderr: () => string
  readonly authorizationUrl: Deferred.Deferred<string, Error>
  readonly exit: Deferred.Deferred<number | null>
}

/** Starts the example; it is killed if still running when the test's scope closes. */
const run = Effect.gen(function*() {
  const authorizationUrl = yield* Deferred.make<string, Error>()
  const exit = yield* Deferred.make<number | null>()
  const child = yield* Effect.acquireRelease(
    Effect.sync(() =>
      spawn(process.execPath, [main], {
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
        stdio: ["ignore", "pipe", "pipe"]
      })
    ),
    (child) => Effect.sync(() => child.exitCode === null && child.signalCode === null && child.kill("SIGKILL"))
  )
  let out = ""
  let err = ""
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk))
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    err += chunk
    const match = /^Open this URL in a browser to sign in:\n {2}(\S+)$/m.exec(err)
    if (match !== null) Deferred.unsafeDone(authorizationUrl, Effect.succeed(match[1]!))
  })
  child.once("exit", (code) => {
    Deferred.unsafeDone(authorizationUrl, Effect.fail(new Error(`exited (${code}) before printing a URL: ${err}`)))
    Deferred.unsafeDone(exit, Effect.succeed(code))
  })
  return { stdout: () => out, stderr: () => err, authorizationUrl, exit } satisfies Run
})

describe("examples/login", () => {
  it.scopedLive("prints the URL to open; the person signs in; the redirect reaches the loopback; echo answers", () =>
    Effect.gen(function*() {
      const program = yield* run
      const url = new URL(yield* Deferred.await(program.authorizationUrl))
      // What the client asks for: PKCE S256, a state, the MCP server as the resource, a redirect to 127.0.0.1.
      expect(url.searchParams.get("code_challenge_method")).toBe("S256")
      expect(url.searchParams.get("state")?.length).toBeGreaterThan(16)
      expect(url.searchParams.get("resource")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
      expect(url.searchParams.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/)

      // The person opens the URL; the sign-in sends the browser back to the program's listener, which says so.
      const landing = yield* Browser.browse(url.href)
      expect(landing.status).toBe(200)
      expect(`${landing.url.origin}${landing.url.pathname}`).toBe(url.searchParams.get("redirect_uri"))
      const code = landing.url.searchParams.get("code")
      expect(code).not.toBeNull()

      expect(yield* Deferred.await(program.exit)).toBe(0)
      const lines = program.stdout().trimEnd().split("\n")
      expect(lines).toEqual([
        expect.stringMatching(/^1\. authorization server \(oidc-provider\) at http:\/\/127\.0\.0\.1:\d+$/),
        `2. protected MCP server (everything --http --auth-issuer) at ${url.searchParams.get("resource")}`,
        "3. connecting: the server answers 401, so the client finds its authorization server and registers",
        `4. the client printed the URL to open on stderr, and waits for the redirect on ${
          url.searchParams.get("redirect_uri")
        }`,
        expect.stringMatching(/^5\. signed in and connected to effect-mcp-everything \S+ \(revision \S+\)$/),
        "6. echo (which needs mcp:write) answered: \"hello after a login without a browser\"",
        "7. done: the client, the MCP server and the authorization server are stopped"
      ])
      expect(lines[0]).toContain(url.origin)
      // Nothing it started still listens: the MCP server, the authorization server, the loopback listener.
      for (const gone of [url.searchParams.get("resource")!, url.origin, url.searchParams.get("redirect_uri")!]) {
        expect(yield* Effect.promise(() => fetch(gone).then(() => `${gone} answers`, () => "gone"))).toBe("gone")
      }
      // No token (the access tokens are JWTs) and no code on either output.
      const printed = program.stdout() + program.stderr()
      expect(printed).not.toMatch(/eyJ[\w-]+\.[\w-]+\./)
      expect(printed).not.toContain(code!)
    }))
})
