/** The effect-mcp command as people run it: the bundled bin (dist/effect-mcp.mjs) as a child process, against real servers. */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const bin = fileURLToPath(new URL("../dist/effect-mcp.mjs", import.meta.url))
const everything = fileURLToPath(new URL("../../../examples/everything/dist/main.js", import.meta.url))
const scenarios = fileURLToPath(new URL("../../../examples/scenarios/dist/main.js", import.meta.url))
const stdio = ["--", process.execPath, everything, "--stdio"]

const cli = (...args: Array<string>) => {
  const run = spawnSync(process.execPath, [bin, ...args], {
    encoding: "utf8",
    timeout: 30_000,
    env: { ...process.env, NO_COLOR: "1" }
  })
  return { status: run.status, stdout: run.stdout, stderr: run.stderr }
}

/** Starts a server over HTTP as a child; resolves its URL. */
const httpServer = (main: string) =>
  new Promise<{ readonly url: string; readonly child: ChildProcess }>((ok, ko) => {
    const child = spawn(process.execPath, [main, "--http"], { stdio: ["ignore", "pipe", "ignore"] })
    let out = ""
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const match = /LISTENING (\S+)/.exec(out)
      if (match) ok({ url: match[1]!, child })
    })
    child.on("exit", (code) => ko(new Error(`server exited ${code}`)))
  })

/** Runs the bin until `ready` matches its output (the call is in flight), then sends SIGINT; resolves its exit and output. */
const interrupt = (args: ReadonlyArray<string>, ready: RegExp) =>
  new Promise<{ readonly status: number | null; readonly stdout: string; readonly stderr: string }>((ok) => {
    // Interrupted, the command cancels what it was doing and then ends by SIGINT (130, as shells report it).
    const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, NO_COLOR: "1" } })
    let stdout = ""
    let stderr = ""
    let sent = false
    const check = () => {
      if (!sent && ready.test(stdout + stderr)) {
        sent = true
        child.kill("SIGINT")
      }
    }
    child.stdout.on("data", (c: Buffer) => ((stdout += c.toString()), check()))
    child.stderr.on("data", (c: Buffer) => ((stderr += c.toString()), check()))
    child.on("exit", (status, signal) => ok({ status: signal === "SIGINT" ? 130 : status, stdout, stderr }))
    check()
  })

/** Runs the bin without blocking this process (so that a server in it can answer); resolves its exit and output. */
const cliAsync = (...args: Array<string>) =>
  new Promise<{ readonly status: number | null; readonly stdout: string; readonly stderr: string }>((ok) => {
    const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, NO_COLOR: "1" } })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (c: Buffer) => void (stdout += c.toString()))
    child.stderr.on("data", (c: Buffer) => void (stderr += c.toString()))
    child.on("exit", (status) => ok({ status, stdout, stderr }))
  })

describe("effect-mcp", () => {
  let http: { readonly url: string; readonly child: ChildProcess }
  let scenarioHttp: { readonly url: string; readonly child: ChildProcess }
  beforeAll(async () => {
    http = await httpServer(everything)
    scenarioHttp = await httpServer(scenarios)
  })
  afterAll(() => {
    http.child.kill("SIGTERM")
    scenarioHttp.child.kill("SIGTERM")
  })

  it("--version: the package's version, answered before the command loads; with more words, by @effect/cli", () => {
    const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
      readonly version: string
    }
    expect(cli("--version")).toEqual({ status: 0, stdout: `${version}\n`, stderr: "" })
    const help = cli("--help")
    expect(help.status).toBe(0)
    expect(help.stdout).toContain(`effect-mcp ${version}`)
  })

  it("inspect, for people and as JSON, over stdio and HTTP", () => {
    const human = cli("inspect", ...stdio)
    expect(human.status).toBe(0)
    expect(human.stdout).toMatch(/^effect-mcp-everything 0\.1\.0 {2}revision 2026-07-28/)
    expect(human.stdout).toMatch(/Tools \(18\)\n {2}echo \(text: string\)\n {4}Returns the given text unchanged/)
    expect(human.stdout).toMatch(/test:\/\/static-text\s+text\/plain\s+static-text/)
    expect(human.stdout).toMatch(/Resource templates \(1\)\n {2}test:\/\/template\/\{id\}\/data/)
    expect(human.stdout).toMatch(/test_prompt_with_arguments \(arg1, arg2\)/)
    const machine = cli("inspect", http.url, "--json")
    expect(machine.status).toBe(0)
    const parsed = JSON.parse(machine.stdout)
    expect(parsed.revision).toBe("2026-07-28")
    expect(parsed.tools.find((t: { name: string }) => t.name === "echo").inputSchema.properties.text.type).toBe(
      "string"
    )
    expect(parsed.prompts.map((p: { name: string }) => p.name)).toContain("test_simple_prompt")
  })

  it("call: arguments, result, JSON output, a progress bar on stderr", () => {
    expect(cli("call", "echo", "--args", "{\"text\":\"hi\"}", ...stdio)).toMatchObject({ status: 0, stdout: "hi\n" })
    const json = cli("call", http.url, "echo", "-a", "{\"text\":\"x\"}", "--json")
    expect(json.status).toBe(0)
    expect(JSON.parse(json.stdout).content).toEqual([{ type: "text", text: "x" }])
    const progress = cli("call", "test_tool_with_progress", ...stdio)
    expect(progress.status).toBe(0)
    expect(progress.stdout).toMatch(/^Progress reported for token/)
    expect(progress.stderr).toMatch(/\[\.{30}\] 0\/100[\s\S]*\[#{15}\.{15}\] 50\/100[\s\S]*\[#{30}\] 100\/100/)
  })

  it("exit codes: tool error 1, usage 2, unreachable 3, protocol error 4", () => {
    const toolError = cli("call", "test_error_handling", ...stdio)
    expect(toolError.status).toBe(1)
    // An error result is an error: on stderr, marked, and nothing on stdout.
    expect(toolError.stdout).toBe("")
    expect(toolError.stderr).toMatch(
      /^error: test_error_handling answered an error:\nThis tool intentionally returns an error/
    )
    // As JSON it is the result on stdout (its isError says what it is), the same status, and the mark on stderr.
    const toolErrorJson = cli("call", "test_error_handling", "--json", ...stdio)
    expect(toolErrorJson.status).toBe(1)
    expect(JSON.parse(toolErrorJson.stdout)).toMatchObject({ isError: true })
    expect(toolErrorJson.stderr).toMatch(/^error: test_error_handling answered an error:/)
    expect(cli("call", ...stdio).status).toBe(2)
    expect(cli("frobnicate").status).toBe(2)
    expect(cli("call", "echo", "--args", "[1]", ...stdio).status).toBe(2)
    // The arguments' old place (`--json '{...}'`, now the output switch) is a usage error that says where they go.
    const moved = cli("call", "echo", "--json", "{\"text\":\"hi\"}", ...stdio)
    expect(moved.status).toBe(2)
    expect(moved.stderr).toMatch(/arguments go in --args \(-a\)/)
    expect(cli("inspect", "not-a-url").status).toBe(2)
    const down = cli("inspect", "http://127.0.0.1:1/mcp")
    expect(down.status).toBe(3)
    expect(down.stderr).toMatch(/cannot connect to http:\/\/127\.0\.0\.1:1\/mcp/)
    const crashed = cli(
      "inspect",
      "--",
      process.execPath,
      "-e",
      "process.stderr.write('bad config\\n'); process.exit(5)"
    )
    expect(crashed.status).toBe(3)
    expect(crashed.stderr).toMatch(/exited with code 5/)
    const unknown = cli("call", "no_such_tool", ...stdio)
    expect(unknown.status).toBe(4)
    expect(unknown.stderr).toMatch(/-32602/)
  })

  it("a server that refuses our credentials: unreachable (3), saying why and what the server asks for", async () => {
    const asked = `Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"`
    const refusing = createServer((req, res) => {
      req.resume()
      req.on("end", () =>
        res.writeHead(401, { "content-type": "application/json", "www-authenticate": asked })
          .end(JSON.stringify({ error: "invalid_token", error_description: "no token was given" })))
    })
    await new Promise<void>((ok) => refusing.listen(0, "127.0.0.1", ok))
    try {
      const run = await cliAsync("inspect", `http://127.0.0.1:${(refusing.address() as AddressInfo).port}/mcp`)
      expect(run.status).toBe(3)
      expect(run.stderr).toMatch(/refused the request's credentials \(HTTP 401: no token was given\)/)
      expect(run.stderr).toContain(`WWW-Authenticate: ${asked}`)
    } finally {
      refusing.closeAllConnections()
      refusing.close()
    }
  })

  it("colour only on a terminal: none when piped or with NO_COLOR, help included", () => {
    const escape = "\x1b["
    const piped = (...args: Array<string>) => {
      const { NO_COLOR: _, ...env } = process.env
      return spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", timeout: 30_000, env })
    }
    const help = piped("--help")
    expect(help.status).toBe(0)
    expect(help.stdout).toMatch(/^effect-mcp\n/)
    expect(help.stdout).not.toContain(escape)
    expect(piped("inspect", ...stdio).stdout).not.toContain(escape)
    expect(piped("call", "test_error_handling", ...stdio).stderr).not.toContain(escape)
  })

  // `script` (util-linux) runs the command on a pseudo-terminal, as a person's shell would.
  it.skipIf(spawnSync("script", ["--version"]).status !== 0)("colour on a terminal, unless NO_COLOR is set", () => {
    const onTerminal = (env: NodeJS.ProcessEnv) =>
      spawnSync("script", ["-qec", `"${process.execPath}" "${bin}" --help`, "/dev/null"], {
        encoding: "utf8",
        timeout: 30_000,
        env
      }).stdout
    const { NO_COLOR: _, ...colour } = process.env
    expect(onTerminal(colour)).toContain("\x1b[")
    expect(onTerminal({ ...colour, NO_COLOR: "1" })).not.toContain("\x1b[")
  })

  it("read and prompt", () => {
    expect(cli("read", "test://static-text", ...stdio)).toMatchObject({
      status: 0,
      stdout: "This is the content of the static text resource.\n"
    })
    expect(cli("read", http.url, "test://static-binary").stdout).toMatch(/\[image\/png, \d+ bytes\]/)
    const prompt = cli("prompt", "test_prompt_with_arguments", "--arg", "arg1=a", "--arg", "arg2=b", ...stdio)
    expect(prompt.status).toBe(0)
    expect(prompt.stdout).toMatch(/^user: Prompt with arguments: arg1='a', arg2='b'/)
    expect(JSON.parse(cli("prompt", http.url, "test_simple_prompt", "--json").stdout).messages).toHaveLength(1)
  })

  it("Ctrl-C cancels the call in flight: the server sees notifications/cancelled", async () => {
    const cancelled = () =>
      JSON.parse(cli("call", scenarioHttp.url, "cancellations", "--json").stdout).structuredContent.cancelled
    const before = cancelled()
    const run = await interrupt(["call", scenarioHttp.url, "count", "--args", "{\"to\":100,\"delayMs\":100}"], /1\/100/)
    expect(run.status).toBe(130)
    const wait = await interrupt(["call", scenarioHttp.url, "wait"], /waiting until cancelled/)
    expect(wait.status).toBe(130)
    // The server's count is read again (for 2 s at most): nothing else tells this process that it was cancelled.
    let after = cancelled()
    for (let i = 0; i < 40 && after < before + 1; i++) {
      await new Promise((r) => setTimeout(r, 50))
      after = cancelled()
    }
    expect(after).toBe(before + 1)
  }, 60_000)

  it("serve: a bundled example on stdio answers an initialize", () => {
    const run = spawnSync(process.execPath, [bin, "serve", "everything"], {
      input: `${
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } }
        })
      }\n`,
      encoding: "utf8",
      timeout: 30_000
    })
    expect(run.status).toBe(0)
    const answer = JSON.parse(run.stdout.trim().split("\n")[0]!)
    expect(answer).toMatchObject({
      id: 1,
      result: { protocolVersion: "2025-11-25", serverInfo: { name: "effect-mcp-everything" } }
    })
  })

  it("host: runs a configuration's servers, prints their events, stops them on Ctrl-C", async () => {
    const dir = mkdtempSync(join(tmpdir(), "effect-mcp-cli-"))
    const config = join(dir, "mcp.json")
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          local: { command: process.execPath, args: [scenarios, "--stdio"] },
          remote: { url: http.url }
        }
      })
    )
    const run = await interrupt(["host", config, "--json"], /"ServerUp"[\s\S]*"ServerUp"/)
    expect(run.status).toBe(130)
    const events = run.stdout.trim().split("\n").map((l) =>
      JSON.parse(l) as { _tag: string; server?: string; pid?: number }
    )
    expect(events.filter((e) => e._tag === "ServerUp").map((e) => e.server).sort()).toEqual(["local", "remote"])
    expect(events.at(-1)?._tag).toBe("HostStopped")
    const pid = events.find((e) => e._tag === "ServerUp" && e.server === "local")!.pid!
    expect(() => process.kill(pid, 0)).toThrow()

    writeFileSync(config, JSON.stringify({ mcpServers: { bad: { url: "ftp://x" } } }))
    const invalid = cli("host", config)
    expect(invalid.status).toBe(2)
    expect(invalid.stderr).toMatch(/mcpServers\.bad\.url/)
  }, 60_000)
})
