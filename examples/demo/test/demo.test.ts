/**
 * The demo as its users run it: the built program as a child process, read top to bottom. Whether it leaves a
 * process behind is read from the OS's process table (/proc), not from what the demo says.
 */
import { expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

const main = fileURLToPath(new URL("../dist/main.js", import.meta.url))

/** A process as /proc/<pid>/stat describes it: its parent, its state and its start time (which tells reused pids apart). */
interface Proc {
  readonly pid: number
  readonly ppid: number
  readonly state: string
  readonly start: string
}

/** /proc/<pid>/stat of one process, or undefined when it is gone. */
const stat = (pid: number): Proc | undefined => {
  const path = `/proc/${pid}/stat`
  if (!existsSync(path)) return undefined
  let text: string
  try {
    text = readFileSync(path, "utf8")
  } catch {
    return undefined // it exited between the two calls
  }
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so fields are counted after the last ")".
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ")
  return { pid, state: fields[0]!, ppid: Number(fields[1]), start: fields[19]! }
}

/** Every process below `root` in the process table now (children, their children, …). */
const descendants = (root: number): ReadonlyArray<Proc> => {
  const table = readdirSync("/proc").flatMap((name) => (/^\d+$/.test(name) ? [stat(Number(name))] : []))
  const all = table.filter((p): p is Proc => p !== undefined)
  const found: Array<Proc> = []
  let parents = new Set([root])
  while (parents.size > 0) {
    const next = all.filter((p) => parents.has(p.ppid))
    found.push(...next)
    parents = new Set(next.map((p) => p.pid))
  }
  return found
}

/** Whether the very process `p` (not one that reused its pid) still runs: exited and zombie ones do not. */
const running = (p: Proc) => {
  const now = stat(p.pid)
  return now !== undefined && now.start === p.start && now.state !== "Z"
}

/**
 * Runs the demo; each time it prints, the process table is read for its descendants. Resolves once it exited (or was
 * killed, with everything seen under it, after `limitMs`), with its output, its exit code and every descendant seen.
 */
const runDemo = (limitMs: number) =>
  new Promise<{ readonly out: string; readonly code: number | null; readonly seen: ReadonlyArray<Proc> }>(
    (resolve, reject) => {
      const child = spawn(process.execPath, [main], { stdio: ["ignore", "pipe", "ignore"] })
      const seen = new Map<string, Proc>()
      let out = ""
      child.stdout.setEncoding("utf8")
      child.stdout.on("data", (chunk: string) => {
        out += chunk
        for (const p of descendants(child.pid!)) seen.set(`${p.pid}/${p.start}`, p)
      })
      const limit = setTimeout(() => {
        for (const p of seen.values()) if (running(p)) process.kill(p.pid, "SIGKILL")
        child.kill("SIGKILL")
      }, limitMs)
      child.on("error", reject)
      child.on("close", (code) => {
        clearTimeout(limit)
        resolve({ out, code, seen: [...seen.values()] })
      })
    }
  )

it.skipIf(process.platform !== "linux")(
  "runs every step, ends by itself with exit code 0 and leaves no process behind",
  async () => {
    const { code, out, seen } = await runDemo(90_000)
    const left = seen.filter(running)
    // Never leave a stray process behind this test, whatever it finds.
    for (const p of left) process.kill(p.pid, "SIGKILL")
    expect(code).toBe(0)
    // The HTTP server, the two stdio servers and the one restarted after SIGKILL, at least, were seen running.
    expect(seen.length).toBeGreaterThanOrEqual(4)
    expect(left.map((p) => p.pid)).toEqual([])
    const steps = [
      "1. Start a host with three servers",
      "2. One catalogue",
      "3. Call a tool that reports progress",
      "4. Cancel a slow call",
      "5. Kill a server with SIGKILL",
      "6. A server asks the host",
      "7. Shut down"
    ]
    const at = steps.map((s) => out.indexOf(s))
    expect(at.every((i) => i >= 0)).toBe(true)
    expect([...at].sort((a, b) => a - b)).toEqual(at)
    expect(out).toMatch(/tools\s+Up\s+revision 2026-07-28, pid \d+/)
    expect(out).toMatch(/remote\s+Up\s+revision 2026-07-28 \(HTTP\)/)
    expect(out).toMatch(/tools__echo/)
    expect(out).toMatch(/everything__test_simple_text/)
    expect(out).toMatch(/\[#{30}\] 10\/10/)
    expect(out).toMatch(/result: "counted to 10" after 10 progress updates/)
    expect(out).toMatch(/the server saw the cancellation: it has cancelled 1 call\(s\)/)
    expect(out).toMatch(/failed, typed: ServerUnavailable: .*killed by SIGKILL/)
    expect(out).toMatch(/event tools: down: .*killed by SIGKILL/)
    expect(out).toMatch(/"tools" is up again as pid \d+; tools__echo says "I'm back"/)
    expect(out).toMatch(/the other servers never noticed: everything Up, remote Up/)
    expect(out).toMatch(/tools__ask_name answered: "hello Ada"/)
    expect(out).toMatch(/remote__summarize answered: "model demo-model said:/)
    expect(out).toMatch(/event host: stopped/)
    // Every pid the demo printed was one the process table showed under it.
    const printed = [...out.matchAll(/pid (\d+)/g)].map((m) => Number(m[1]))
    expect(printed.filter((pid) => !seen.some((p) => p.pid === pid))).toEqual([])
  },
  120_000
)
