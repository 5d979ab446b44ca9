import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { generate } from "../scripts/generate.mjs"

const generatedDir = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "src", "generated")

describe("codegen", () => {
  it("the committed generated modules are what the generator makes from ../shared/spec", () => {
    const files = generate()
    expect(Object.keys(files).length).toBeGreaterThanOrEqual(8)
    for (const [name, text] of Object.entries(files)) {
      expect(fs.readFileSync(path.join(generatedDir, name), "utf8"), `${name} is stale: run pnpm codegen`).toBe(text)
    }
    expect(fs.readdirSync(generatedDir).sort()).toEqual(Object.keys(files).sort())
  })
})
