/**
 * The stdio server started while the command loads (src/internal/prespawn.ts), through the bundled bin as people run
 * it: started once and adopted, never left behind, and failures reported as before.
 */
import { describe, expect, it } from "@effect/vitest"
import { spawn, spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { serverToStartAhead } from "../src/internal/prespawn.js"

const bin = fileURLToPath(new URL("../dist/effect-mcp.mjs", import.meta.url))
const everything = fileURLToPath(new URL("../../../examples/everything/dist/main.js", import.meta.url))
const counted = fileURLToPath(new URL("./fixtures/countedServer.mjs", import.meta.url))
// Ignores stdin's end and SIGTERM, and starts a grandchild in its group: only SIGKILL of the group ends them.
const stubborn = fileURLToPath(new URL("../../node/test/fixtures/stubborn.mjs", import.meta.url))

const cli = (...args: Array<string>) => {
  const run = spawnSync(process.execPath, [bin, ...args], {
    encoding: "utf8",
    timeout: 30_000,
    env: { ...process.env, NO_COLOR: "1" }
  })
  return { status: run.status, stdout: run.stdout, stderr: run.stderr }
}

/** A fresh folder; its path marks the processes a test starts (it is in their command lines). */
const folder = () => mkdtempSync(join(tmpdir(), "effect-mcp-prespawn-"))

const pids = (file: string): ReadonlyArray<number> =>
  existsSync(file) ? readFileSync(file, "utf8").split("\n").filter((l) => l !== "").map(Number) : []

/** The live processes whose command line mentions `marker` (Linux: from /proc; zombies have none). */
const processesMentioning = (marker: string): ReadonlyArray<number> =>
  readdirSync("/proc").filter((entry) => /^\d+$/.test(entry)).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker)
    } catch {
      return false
    }
  }).map(Number)

/** Resolves once no process mentions `marker`; rejects after 10 s with the ones left. */
const noneLeft = async (marker: string) => {
  for (let i = 0; i < 500; i++) {
    if (processesMentioning(marker).length === 0) return
    await new Promise((r) => setTimeout(r, 20))
  }
  throw new Error(`left behind: ${processesMentioning(marker).join(", ")}`)
}

describe("effect-mcp starts a stdio server while it loads", () => {
  it("call: the server is started once, answers, and is gone when the command is", async () => {
    const dir = folder()
    const file = join(dir, "pids.txt")
    const run = cli(
      "call",
      "echo",
      "--args",
      "{\"text\":\"hi\"}",
      "--",
      process.execPath,
      counted,
      file,
      everything,
      "--stdio"
    )
    expect(run).toMatchObject({ status: 0, stdout: "hi\n" })
    expect(pids(file)).toHaveLength(1)
    await noneLeft(dir)
  })

  it("every command that connects adopts it: inspect, read, prompt", async () => {
    const dir = folder()
    const file = join(dir, "pids.txt")
    const server = ["--", process.execPath, counted, file, everything, "--stdio"]
    expect(cli("inspect", "--json", ...server).status).toBe(0)
    expect(cli("read", "test://static-text", ...server).status).toBe(0)
    expect(cli("prompt", "test_simple_prompt", ...server).status).toBe(0)
    expect(pids(file)).toHaveLength(3)
    await noneLeft(dir)
  })

  it.skipIf(!existsSync("/proc/self/cmdline"))(
    "a usage error, or a failure before connecting, leaves no server behind (nor what it started)",
    async () => {
      const dir = folder()
      const server = ["--", process.execPath, stubborn, join(dir, "pids.txt")]
      // Found by @effect/cli: a word too many.
      const extra = cli("call", "a", "b", "c", ...server)
      expect(extra.status).toBe(2)
      expect(extra.stderr).toMatch(/unknown argument: 'c'/)
      // No tool named (the bin sees it and starts nothing).
      expect(cli("call", ...server).status).toBe(2)
      // Found by the command, after it has loaded: arguments that are not an object.
      expect(cli("call", "echo", "--args", "[1]", ...server).status).toBe(2)
      // A URL as well as a server.
      expect(cli("inspect", "http://127.0.0.1:1/mcp", ...server).status).toBe(2)
      await noneLeft(dir)
    }
  )

  it.skipIf(!existsSync("/proc/self/cmdline"))("Ctrl-C once the server has started leaves none behind", async () => {
    const dir = folder()
    const file = join(dir, "pids.txt")
    // The stubborn server never answers: the command waits for its handshake until interrupted.
    const child = spawn(process.execPath, [bin, "inspect", "--", process.execPath, stubborn, file], { stdio: "ignore" })
    // Interrupted, the command ends by SIGINT (130, as shells report it).
    const exited = new Promise<number | null>((ok) =>
      child.on("exit", (status, signal) => ok(signal === "SIGINT" ? 130 : status))
    )
    while (pids(file).length < 2) await new Promise((r) => setTimeout(r, 20))
    child.kill("SIGINT")
    expect(await exited).toBe(130)
    await noneLeft(dir)
  }, 30_000)

  it("a missing command: could not start it, exit 3, as before", () => {
    expect(cli("call", "echo", "--", "effect-mcp-no-such-command-xyz", "--flag")).toEqual({
      status: 3,
      stdout: "",
      stderr: "effect-mcp: cannot connect to effect-mcp-no-such-command-xyz --flag: could not start " +
        "effect-mcp-no-such-command-xyz --flag: spawn effect-mcp-no-such-command-xyz ENOENT\n"
    })
  })

  it("a server that exits at once: its exit code and stderr, as before (never a broken pipe)", () => {
    const run = cli("inspect", "--", process.execPath, "-e", "process.stderr.write('bad config\\n'); process.exit(5)")
    expect(run.status).toBe(3)
    expect(run.stderr).toMatch(
      /server\/discover failed: the transport failed: the server process \(pid \d+\) exited with code 5; the last lines of its stderr:\nbad config\n$/
    )
  })

  it("the server's command line is passed verbatim, never through a shell", () => {
    const dir = folder()
    const printed = join(dir, "argv.json")
    const words = ["$HOME", "a b", "'quoted'", "--", "*", "--help"]
    const script = `require("fs").writeFileSync(${JSON.stringify(printed)}, JSON.stringify(process.argv.slice(1)))`
    // The "server" records its words and exits: the command reports it unreachable (3).
    expect(cli("inspect", "--", process.execPath, "-e", script, ...words).status).toBe(3)
    expect(JSON.parse(readFileSync(printed, "utf8"))).toEqual(words)
  })

  it("the bin that starts it stays small and loads no Effect (the command does, after)", () => {
    const binText = readFileSync(bin, "utf8")
    const command = readFileSync(fileURLToPath(new URL("../dist/effect-mcp.cjs", import.meta.url)), "utf8")
    // Effect's type ids (`Symbol.for("effect/Effect")`, ...) survive minifying: the command has them, the bin none.
    expect(command).toContain("effect/Effect")
    expect(binText).not.toContain("effect/")
    expect(binText).toContain("@effect-mcp/node/PrespawnedChild/controls")
    expect(binText.length).toBeLessThan(16_000)
  })

  describe("which command lines start a server ahead", () => {
    const argv = (...words: Array<string>) => ["node", "effect-mcp.mjs", ...words]
    const server = ["--", "node", "server.js", "--stdio"]

    it("the commands that connect to the server after `--`, with their options", () => {
      expect(serverToStartAhead(argv("inspect", ...server))).toEqual({
        command: "node",
        args: ["server.js", "--stdio"]
      })
      expect(serverToStartAhead(argv("call", "-a", "{}", "echo", "--json", ...server))).toBeDefined()
      expect(serverToStartAhead(argv("prompt", "--arg", "a=b", "greet", ...server))).toBeDefined()
      for (const command of ["inspect", "call", "read", "prompt"]) {
        expect(serverToStartAhead(argv(command, "x", ...server))).toEqual({
          command: "node",
          args: ["server.js", "--stdio"]
        })
      }
    })

    it("never the others, nor help, version, completions or the wizard, nor a URL, nor no server", () => {
      for (const command of ["serve", "host", "login", "logout", "frobnicate"]) {
        expect(serverToStartAhead(argv(command, "x", ...server))).toBeUndefined()
      }
      for (const builtIn of [["--help"], ["-h"], ["--version"], ["--wizard"], ["--completions", "bash"]]) {
        expect(serverToStartAhead(argv("call", "echo", ...builtIn, ...server))).toBeUndefined()
      }
      expect(serverToStartAhead(argv("--log-level", "debug", "call", "echo", ...server))).toBeUndefined()
      expect(serverToStartAhead(argv("inspect", "https://example.com/mcp", ...server))).toBeUndefined()
      expect(serverToStartAhead(argv("call", "echo"))).toBeUndefined()
      // No tool, resource or prompt named: a usage error.
      for (const command of ["call", "read", "prompt"]) {
        expect(serverToStartAhead(argv(command, ...server))).toBeUndefined()
      }
      expect(serverToStartAhead(argv("call", "--args", "{}", "--json", ...server))).toBeUndefined()
      expect(serverToStartAhead(argv("prompt", "--arg", "a=b", ...server))).toBeUndefined()
      expect(serverToStartAhead(argv("call", "echo", "--"))).toBeUndefined()
      // Words after `--` are the server's, `--help` among them.
      expect(serverToStartAhead(argv("call", "echo", "--", "node", "--help"))).toEqual({
        command: "node",
        args: ["--help"]
      })
    })
  })
})
