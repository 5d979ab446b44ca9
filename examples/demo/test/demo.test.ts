/** The demo as its users run it: the built program as a child process, read top to bottom. */
import { expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"

const main = fileURLToPath(new URL("../dist/main.js", import.meta.url))

it("runs every step, ends by itself with exit code 0 and leaves no child process", () => {
  const run = spawnSync(process.execPath, [main], { encoding: "utf8", timeout: 90_000 })
  expect(run.status).toBe(0)
  const out = run.stdout
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
  expect(out).toMatch(/no child process is left/)
  expect(out).toMatch(/event host: stopped/)
}, 120_000)
