/**
 * PromiseClient over stdio, against a real child process: Promise code connects, calls with 64 in flight, cancels a
 * call with an AbortSignal (the server's handler is interrupted), and `close` ends the child.
 */
import { McpClient, PromiseClient } from "@effect-mcp/core"
import { StdioClientTransport } from "@effect-mcp/node"
import { describe, expect, it } from "@effect/vitest"
import * as Layer from "effect/Layer"
import { existsSync, mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { isRunning } from "../src/internal/processGroup.js"

// The fixture imports the built packages: `tsc -b` must have run (the root test:all script does).
const fixture = fileURLToPath(new URL("./fixtures/server.mjs", import.meta.url))
const built = fileURLToPath(new URL("../dist/index.js", import.meta.url))
if (!existsSync(built)) throw new Error(`run \`tsc -b\` first: the stdio fixture imports ${built}`)

const markers = (file: string): ReadonlyArray<string> =>
  existsSync(file) ? readFileSync(file, "utf8").split("\n").filter((line) => line !== "") : []

/** Waits until `done` holds, polling (rejects after 10 s). */
const eventually = async (done: () => boolean, what: string) => {
  for (let waited = 0; !done(); waited += 20) {
    if (waited > 10_000) throw new Error(`timed out waiting until ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

const text = (result: { readonly content: ReadonlyArray<unknown> }) => (result.content[0] as { text: string }).text

describe("PromiseClient over stdio", () => {
  it("calls a real child from Promises, cancels with a signal, and close ends the child", async () => {
    const marker = join(mkdtempSync(join(tmpdir(), "effect-mcp-promise-")), "markers.txt")
    const client = await PromiseClient.connect(
      McpClient.layer({ name: "promise-test", version: "1.0.0" }).pipe(
        Layer.provide(StdioClientTransport.layer({
          command: process.execPath,
          args: [fixture],
          env: { MARKER_FILE: marker },
          stderrLevel: "debug"
        }))
      )
    )
    const { pid } = JSON.parse(text(await client.callTool("pid", {}))) as { pid: number }
    try {
      expect(client.serverInfo.name).toBe("stdio-fixture")
      const texts = Array.from({ length: 1_000 }, (_, i) => `call ${i}`)
      let next = 0
      const results: Array<string> = []
      await Promise.all(Array.from({ length: 64 }, async () => {
        while (next < texts.length) {
          const i = next++
          results[i] = text(await client.callTool("echo", { text: texts[i] }))
        }
      }))
      expect(results).toEqual(texts)

      const controller = new AbortController()
      const slow = client.callTool("slow", { steps: 10_000, delayMs: 50 }, { signal: controller.signal })
        .catch((e: unknown) => e)
      await eventually(() => markers(marker).includes("slow: started"), "the slow handler started")
      controller.abort("enough")
      expect(await slow).toBe("enough")
      await eventually(() => markers(marker).includes("slow: interrupted"), "the server's handler was interrupted")
      expect(text(await client.callTool("echo", { text: "after" }))).toBe("after")
    } finally {
      await client.close()
    }
    await eventually(() => !isRunning(pid), "the child ended")
  })
})
