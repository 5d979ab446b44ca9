/**
 * `CodeCache.run` runs a CommonJS program as Node would, saving V8's compiled code on its first run and starting from
 * it afterwards; a cache it cannot trust (rejected by V8, or in a folder others can write) is never used. Each run is a
 * real child process: a launcher that imports the built module, as a bundled server's launcher does.
 */
import { describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const codeCache = pathToFileURL(fileURLToPath(new URL("../dist/CodeCache.js", import.meta.url))).href

/** A folder with a launcher and a program (which requires a file beside it and a builtin, and answers a tick later). */
const workspace = (program = "") => {
  const dir = mkdtempSync(join(tmpdir(), "effect-mcp-code-cache-test-"))
  writeFileSync(
    join(dir, "launch.mjs"),
    `import * as CodeCache from ${JSON.stringify(codeCache)}\n` +
      `process.stdout.write(CodeCache.run(new URL("./program.cjs", import.meta.url)) + "\\n")\n`
  )
  writeFileSync(join(dir, "helper.cjs"), `module.exports = { twice: (n) => 2 * n }\n`)
  writeFileSync(
    join(dir, "program.cjs"),
    `const path = require("node:path")\nconst { twice } = require("./helper.cjs")\n${program}\n` +
      `setImmediate(() => process.stdout.write(JSON.stringify({ twice: twice(21), ` +
      `folder: path.basename(__dirname) === path.basename(${
        JSON.stringify(dir)
      }), eol: require("node:os").EOL }) + "\\n"))\n`
  )
  return dir
}

/** Runs the launcher; its stdout lines (the outcome, then the program's answer), stderr and exit status. */
const launch = (dir: string, env: Record<string, string> = {}, flags: ReadonlyArray<string> = []) => {
  const { status, stdout, stderr } = spawnSync(process.execPath, [...flags, join(dir, "launch.mjs")], {
    env: { ...process.env, EFFECT_MCP_CODE_CACHE: join(dir, "cache"), ...env },
    encoding: "utf8"
  })
  return { status, lines: stdout.split("\n").filter((line) => line !== ""), stderr }
}

const answer = JSON.stringify({ twice: 42, folder: true, eol: "\n" })
const cacheFiles = (dir: string) => readdirSync(join(dir, "cache")).filter((file) => file.startsWith("program.cjs-"))

describe("CodeCache", () => {
  it("saves the compiled code on the first run and starts from it on the next", () => {
    const dir = workspace()
    try {
      expect(launch(dir).lines).toEqual(["saving", answer])
      expect(cacheFiles(dir)).toHaveLength(1)
      expect(launch(dir).lines).toEqual(["cached", answer])
      expect(launch(dir).lines).toEqual(["cached", answer])
      // A changed program is a new cache entry, compiled afresh.
      writeFileSync(join(dir, "program.cjs"), `${readFileSync(join(dir, "program.cjs"), "utf8")}// changed\n`)
      expect(launch(dir).lines).toEqual(["saving", answer])
      expect(launch(dir).lines).toEqual(["cached", answer])
      expect(cacheFiles(dir)).toHaveLength(2)
      // Node's flags change V8's: a run under other flags keeps a cache of its own instead of replacing this one.
      expect(launch(dir, {}, ["--expose-gc"]).lines).toEqual(["saving", answer])
      expect(launch(dir, {}, ["--expose-gc"]).lines).toEqual(["cached", answer])
      expect(launch(dir).lines).toEqual(["cached", answer])
      expect(cacheFiles(dir)).toHaveLength(3)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("compiles afresh over a cache V8 rejects, and replaces it", () => {
    const dir = workspace()
    try {
      expect(launch(dir).lines).toEqual(["saving", answer])
      const [file] = cacheFiles(dir)
      const garbage = Buffer.alloc(4096, 7)
      writeFileSync(join(dir, "cache", file!), garbage)
      expect(launch(dir).lines).toEqual(["saving", answer])
      expect(readFileSync(join(dir, "cache", file!)).equals(garbage)).toBe(false)
      expect(launch(dir).lines).toEqual(["cached", answer])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("runs uncached from a folder that others can write or a link, or when disabled, and writes nothing", () => {
    const dir = workspace()
    try {
      mkdirSync(join(dir, "cache"))
      chmodSync(join(dir, "cache"), 0o777)
      expect(launch(dir).lines).toEqual(["uncached", answer])
      expect(cacheFiles(dir)).toEqual([])
      chmodSync(join(dir, "cache"), 0o700)
      expect(launch(dir, { EFFECT_MCP_DISABLE_CODE_CACHE: "1" }).lines).toEqual(["uncached", answer])
      expect(cacheFiles(dir)).toEqual([])
      // A link to a folder (someone may have planted one in a shared temp folder) is not the user's own folder.
      symlinkSync(join(dir, "cache"), join(dir, "linked"))
      expect(launch(dir, { EFFECT_MCP_CODE_CACHE: join(dir, "linked") }).lines).toEqual(["uncached", answer])
      expect(cacheFiles(dir)).toEqual([])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("loads a program with a dynamic import() as Node loads CommonJS, uncached (V8 drops its loader from cached code)", () => {
    const dir = workspace(
      `import("node:os").then((os) => process.stdout.write(os.EOL === "\\n" ? "imported\\n" : "?\\n"))`
    )
    try {
      expect(launch(dir).lines.sort()).toEqual(["imported", "uncached", answer].sort())
      expect(launch(dir).lines.sort()).toEqual(["imported", "uncached", answer].sort())
      expect(existsSync(join(dir, "cache"))).toBe(false)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("lets the program's own error end the process as Node would", () => {
    const dir = workspace(`throw new Error("the program's own failure")`)
    try {
      const { lines, status, stderr } = launch(dir)
      expect(status).toBe(1)
      expect(lines).toEqual([])
      expect(stderr).toContain("the program's own failure")
      expect(stderr).toContain("program.cjs")
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
