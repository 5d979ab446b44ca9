/**
 * `effect-mcp` against a protected server: examples/everything `--http --auth-issuer` with a real authorization
 * server (examples/oauth-server, oidc-provider) on 127.0.0.1, the bundled bin as a child process, its logins in a
 * file of the test's own (`EFFECT_MCP_AUTH_FILE`) and the headless interactive step (`EFFECT_MCP_AUTH_HEADLESS=1`).
 * `inspect` logs in once on its own (asking for the `mcp:write` scope the server's metadata lists) and the next
 * commands reuse the login; `logout` forgets it and `login` makes a fresh one, which `call echo` (it needs
 * `mcp:write`) then uses. Step-up is tested in packages/auth/test/login.test.ts. A host entry's `auth` settings
 * (client credentials) connect the host to the same server.
 */
import * as AuthServer from "@effect-mcp-examples/oauth-server"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const bin = fileURLToPath(new URL("../dist/effect-mcp.mjs", import.meta.url))
const everything = fileURLToPath(new URL("../../../examples/everything/dist/main.js", import.meta.url))

/** Runs `everything --http --auth-issuer <issuer>` until the scope closes; its URL. */
const protectedEverything = (issuer: string) =>
  Effect.acquireRelease(
    Effect.async<{ readonly url: string; readonly stop: () => void }, Error>((resume) => {
      const child = spawn(process.execPath, [everything, "--http", "--auth-issuer", issuer], {
        stdio: ["ignore", "pipe", "ignore"]
      })
      let out = ""
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString()
        const match = /LISTENING (\S+)/.exec(out)
        if (match) resume(Effect.succeed({ url: match[1]!, stop: () => child.kill("SIGKILL") }))
      })
      child.once("exit", (code) => resume(Effect.fail(new Error(`everything exited ${code}`))))
    }),
    ({ stop }) => Effect.sync(stop)
  ).pipe(Effect.map(({ url }) => url))

/** Runs the bin until `ready` matches its stdout, then interrupts it; its output. */
const untilReady = (file: string, ready: RegExp, ...args: Array<string>) =>
  Effect.async<{ readonly stdout: string; readonly stderr: string }>((resume) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { ...process.env, NO_COLOR: "1", EFFECT_MCP_AUTH_FILE: file }
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString()
      if (ready.test(stdout)) child.kill("SIGINT")
    })
    child.stderr.on("data", (c: Buffer) => void (stderr += c.toString()))
    child.on("exit", () => resume(Effect.succeed({ stdout, stderr })))
    return Effect.sync(() => child.kill("SIGKILL"))
  })

/** Runs the bin (without blocking this process, whose authorization server must answer it). */
const cli = (file: string, ...args: Array<string>) =>
  Effect.async<{ readonly status: number | null; readonly stdout: string; readonly stderr: string }>((resume) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { ...process.env, NO_COLOR: "1", EFFECT_MCP_AUTH_FILE: file, EFFECT_MCP_AUTH_HEADLESS: "1" }
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (c: Buffer) => void (stdout += c.toString()))
    child.stderr.on("data", (c: Buffer) => void (stderr += c.toString()))
    child.on("exit", (status) => resume(Effect.succeed({ status, stdout, stderr })))
    return Effect.sync(() => child.kill("SIGKILL"))
  })

const tokensOf = (file: string) =>
  JSON.parse(readFileSync(file, "utf8")) as { tokens: Record<string, { accessToken: string; scope?: string }> }

describe("effect-mcp with OAuth", () => {
  it.scopedLive("inspect logs in once; logout, login; call reuses the login", () =>
    Effect.gen(function*() {
      const auth = yield* AuthServer.start
      const url = yield* protectedEverything(auth.issuer)
      const dir = yield* Effect.acquireRelease(
        Effect.sync(() => mkdtempSync(join(tmpdir(), "effect-mcp-cli-auth-"))),
        (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
      )
      const file = join(dir, "auth.json")

      const inspected = yield* cli(file, "inspect", url)
      expect(inspected.status, inspected.stderr).toBe(0)
      expect(inspected.stdout).toContain("echo")
      expect(statSync(file).mode & 0o777).toBe(0o600)
      const first = tokensOf(file).tokens[url]!.accessToken
      expect(inspected.stdout + inspected.stderr).not.toContain(first)

      const again = yield* cli(file, "inspect", url)
      expect(again.status, again.stderr).toBe(0)
      expect(tokensOf(file).tokens[url]!.accessToken).toBe(first)

      expect((yield* cli(file, "logout", url)).stdout).toContain(`logged out of ${url}`)
      expect(tokensOf(file).tokens[url]).toBeUndefined()
      expect((yield* cli(file, "logout", url)).stdout).toContain(`no login was kept for ${url}`)

      const login = yield* cli(file, "login", url)
      expect(login.status, login.stderr).toBe(0)
      expect(login.stdout).toContain(`logged in to ${url}`)
      const fresh = tokensOf(file).tokens[url]!
      expect(fresh.accessToken).not.toBe(first)
      expect(fresh.scope).toContain("mcp:write")

      const called = yield* cli(file, "call", url, "echo", "--args", JSON.stringify({ text: "hi there" }))
      expect(called.status, called.stderr).toBe(0)
      expect(called.stdout).toContain("hi there")
      expect(tokensOf(file).tokens[url]!.accessToken).toBe(fresh.accessToken)
    }))

  it.scopedLive("a host entry with client credentials connects to the protected server", () =>
    Effect.gen(function*() {
      const auth = yield* AuthServer.start
      const url = yield* protectedEverything(auth.issuer)
      const dir = yield* Effect.acquireRelease(
        Effect.sync(() => mkdtempSync(join(tmpdir(), "effect-mcp-cli-host-auth-"))),
        (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
      )
      const file = join(dir, "auth.json")
      const config = join(dir, "host.json")
      writeFileSync(
        config,
        JSON.stringify({
          mcpServers: {
            secured: {
              url,
              auth: {
                clientId: AuthServer.clients.machine.id,
                clientSecret: AuthServer.clients.machine.secret,
                grant: "client_credentials"
              }
            }
          }
        })
      )
      const run = yield* untilReady(file, /"ServerUp"/, "host", config, "--json")
      const up = run.stdout.trim().split("\n").map((l) => JSON.parse(l) as { _tag: string; server?: string })
        .filter((e) => e._tag === "ServerUp")
      expect(up.map((e) => e.server), run.stderr).toEqual(["secured"])
      expect(tokensOf(file).tokens[url]).toMatchObject({ clientId: AuthServer.clients.machine.id })
    }))
})
