/**
 * Type errors where the mistake is: tsc compiles the fixture test/types/tools.ts on its own and must report exactly
 * the errors its `// error:` comments pin, each on the line after its comment (the handler's Effect), with the
 * message that names the cause, and nothing else.
 */
import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const fixture = fileURLToPath(new URL("./types/tools.ts", import.meta.url))
const project = fileURLToPath(new URL("./types/tsconfig.json", import.meta.url))
// The compiler's own entry (its package exports no `bin/tsc`): next to its package.json.
const tsc = join(dirname(createRequire(import.meta.url).resolve("typescript/package.json")), "bin", "tsc")

/** The `// error:` expectations of the fixture: the line (1-based) that must fail, and the text its message holds. */
const expected = readFileSync(fixture, "utf8").split("\n").flatMap((line, index) => {
  const pinned = /^\s*\/\/ error: (.*)$/.exec(line)
  return pinned === null ? [] : [{ line: index + 2, message: pinned[1]! }]
})

/** tsc's diagnostics for the fixture project: the file, the line and the whole message of each. */
const diagnostics = () =>
  new Promise<Array<{ readonly file: string; readonly line: number; readonly message: string }>>((resolve) => {
    execFile(process.execPath, [tsc, "-p", project, "--pretty", "false"], { maxBuffer: 16 << 20 }, (_e, stdout) => {
      const found: Array<{ file: string; line: number; message: string }> = []
      for (const line of stdout.split("\n")) {
        const head = /^(.+?)\((\d+),\d+\): error TS\d+: (.*)$/.exec(line)
        if (head !== null) found.push({ file: head[1]!, line: Number(head[2]), message: head[3]! })
        else if (found.length > 0 && line.startsWith(" ")) found[found.length - 1]!.message += `\n${line.trim()}`
      }
      resolve(found)
    })
  })

describe("McpServer.tool and Tool.define report a handler that does not fit on the handler, in words", () => {
  it("the fixture pins four mistakes", () => {
    expect(expected.length).toBe(4)
  })

  it("tsc reports each pinned mistake on its handler line with its message, and nothing else", async () => {
    const found = await diagnostics()
    expect(found.every((d) => d.file.endsWith("tools.ts")), JSON.stringify(found, null, 2)).toBe(true)
    expect(found.map((d) => d.line)).toEqual(expected.map((e) => e.line))
    for (const [i, e] of expected.entries()) expect(found[i]!.message).toContain(e.message)
  }, 300_000)
})
