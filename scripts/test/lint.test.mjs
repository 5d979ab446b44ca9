// The lint's rules (scripts/lint.mjs): each is fed an import it must refuse and one it must accept.
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { checkExports, importsOf, lintSource, lintTree, mayImport } from "../lint.mjs"

const refused = (file, line) => lintSource(file, `${line}\n`)

describe("imports up the package table", () => {
  it("refuses a package importing one above it", () => {
    expect(refused("packages/core/src/McpServer.ts", `import { McpHttpServer } from "@effect-mcp/http"`)).toEqual([
      expect.stringContaining("packages/core/src/McpServer.ts:1: runs up the package table")
    ])
    expect(refused("packages/schema/src/Codec.ts", `import * as Engine from "@effect-mcp/core"`)).toHaveLength(1)
    expect(refused("packages/http/src/McpHttpServer.ts", `import { StdioClientTransport } from "@effect-mcp/node"`))
      .toHaveLength(1)
    expect(refused("packages/node/src/x.ts", `import { McpHost } from "@effect-mcp/host/McpHost"`)).toHaveLength(1)
  })

  it("holds for a package's tests too", () => {
    expect(refused("packages/core/test/x.test.ts", `import { McpHost } from "@effect-mcp/host"`)).toHaveLength(1)
  })

  it("accepts a package importing itself or one below it, transitively", () => {
    expect(refused("packages/http/src/McpHttpServer.ts", `import { McpServer } from "@effect-mcp/core"`)).toEqual([])
    expect(refused("packages/http/src/McpHttpServer.ts", `import { McpError } from "@effect-mcp/schema"`)).toEqual([])
    expect(refused("packages/node/src/x.ts", `import { McpHttpServer } from "@effect-mcp/http"`)).toEqual([])
    expect(refused("packages/host/src/McpHost.ts", `import { StdioClientTransport } from "@effect-mcp/node"`))
      .toEqual([])
    expect(refused("packages/cli/src/Cli.ts", `import { McpHost } from "@effect-mcp/host"`)).toEqual([])
    expect(refused("packages/core/test/x.test.ts", `import { McpServer } from "@effect-mcp/core"`)).toEqual([])
    expect([...mayImport("host")].sort()).toEqual(["core", "host", "http", "node", "schema"])
  })

  it("lets an example import any public entry", () => {
    expect(refused("examples/demo/src/main.ts", `import { McpHost } from "@effect-mcp/host"`)).toEqual([])
    expect(refused("examples/hello/src/main.ts", `import * as McpServer from "@effect-mcp/core/McpServer"`))
      .toEqual([])
  })

  it("refuses a package the table does not know", () => {
    expect(refused("packages/brand-new/src/x.ts", `import { McpServer } from "@effect-mcp/core"`)).toEqual([
      expect.stringContaining("not in the package table")
    ])
  })
})

describe("imports into another package's internals", () => {
  it("refuses @effect-mcp/x/internal/… from anywhere", () => {
    const line = `import * as Engine from "@effect-mcp/core/internal/engine.js"`
    expect(refused("packages/http/src/McpHttpServer.ts", line)).toEqual([
      expect.stringContaining("reaches into @effect-mcp/core's internals")
    ])
    expect(refused("examples/everything/src/main.ts", line)).toHaveLength(1)
    expect(refused("scratchpad/probe.mjs", line)).toHaveLength(1)
  })

  it("refuses a relative path out of a package's sources", () => {
    expect(refused("packages/http/src/McpHttpServer.ts", `import * as E from "../../core/src/internal/engine.js"`))
      .toEqual([expect.stringContaining("leaves packages/http by a relative path")])
    expect(refused("packages/http/src/McpHttpServer.ts", `import * as F from "../../schema/test/fuzz/frames.js"`))
      .toHaveLength(1)
    expect(refused("packages/http/test/x.test.ts", `import * as M from "../../core/src/McpServer.js"`)).toHaveLength(1)
  })

  it("refuses a path into packages/ from an example or a scratchpad script", () => {
    expect(refused("scratchpad/engine-bench.mjs", `import * as Engine from "../packages/core/dist/internal/engine.js"`))
      .toEqual([expect.stringContaining("reaches into packages/core by a path")])
    const dynamic =
      `const R = await import(new URL("../packages/node/dist/internal/readable.js", import.meta.url).href)`
    expect(refused("scratchpad/client-floor-stdio.mjs", dynamic)).toHaveLength(1)
    expect(refused("examples/demo/src/main.ts", `import { x } from "../../../packages/host/src/McpHost.js"`))
      .toHaveLength(1)
  })

  it("accepts a package's own internals and another package's test fixtures from a test", () => {
    expect(refused("packages/core/src/McpServer.ts", `import * as Engine from "./internal/engine.js"`)).toEqual([])
    expect(refused("packages/core/test/engine.test.ts", `import * as Engine from "../src/internal/engine.js"`))
      .toEqual([])
    expect(refused("packages/http/test/fuzz.test.ts", `import * as Frames from "../../schema/test/fuzz/frames.js"`))
      .toEqual([])
    expect(refused("scratchpad/window.mjs", `import { connect } from "../scripts/bench/transports.mjs"`)).toEqual([])
    expect(refused("packages/core/vitest.config.ts", `import { shared } from "../../vitest.shared.js"`)).toEqual([])
  })

  it("refuses the repository's tooling from a package's sources", () => {
    expect(refused("packages/core/src/McpTest.ts", `import { shared } from "../../../vitest.shared.js"`))
      .toHaveLength(1)
  })
})

describe("imports of Effect's internal modules", () => {
  it("refuses effect/internal/… in packages, examples and scratchpad", () => {
    const line = `import { globalScope } from "effect/internal/fiberScope"`
    expect(refused("packages/core/src/McpTest.ts", line)).toEqual([
      expect.stringContaining("imports Effect's internals")
    ])
    expect(refused("packages/core/test/x.test.ts", line)).toHaveLength(1)
    expect(refused("examples/hello/src/main.ts", line)).toHaveLength(1)
    expect(refused("examples/hello/src/main.ts", `const m = await import("@effect/platform/internal/httpApp")`))
      .toHaveLength(1)
    const byPath =
      `const { globalScope } = await import(new URL("../node_modules/effect/dist/esm/internal/fiberScope.js", import.meta.url).href)`
    expect(refused("scratchpad/roots-probe.mjs", byPath)).toEqual([
      expect.stringContaining("imports Effect's internals")
    ])
  })

  it("accepts Effect's public modules", () => {
    expect(refused("packages/core/src/McpTest.ts", `import * as Effect from "effect/Effect"`)).toEqual([])
    expect(refused("packages/core/src/McpTest.ts", `import { Effect } from "effect"`)).toEqual([])
    expect(refused("examples/hello/src/main.ts", `import * as HttpServer from "@effect/platform/HttpServer"`))
      .toEqual([])
  })
})

describe("finding the imports", () => {
  it("reads every form of import, with its line", () => {
    const source = [
      `import type { A } from "a"`,
      `import {`,
      `  B,`,
      `  C`,
      `} from "b"`,
      `export * as D from "./d.js"`,
      `import "e"`,
      `const f = await import("f")`,
      `const g = require("g")`,
      ` * import { H } from "not-an-import" (a comment)`
    ].join("\n")
    expect(importsOf(source)).toEqual([
      { specifier: "a", line: 1 },
      { specifier: "b", line: 5 },
      { specifier: "./d.js", line: 6 },
      { specifier: "e", line: 7 },
      { specifier: "f", line: 8 },
      { specifier: "g", line: 9 }
    ])
  })
})

describe("console.* in library sources", () => {
  it("refuses it in packages/*/src and accepts it elsewhere", () => {
    expect(refused("packages/core/src/McpServer.ts", `  console.log("hi")`)).toEqual([
      expect.stringContaining("console.*")
    ])
    expect(refused("packages/core/test/x.test.ts", `  console.log("hi")`)).toEqual([])
    expect(refused("scratchpad/probe.mjs", `console.log("hi")`)).toEqual([])
  })
})

describe("package exports", () => {
  const entry = { types: "./dist/index.d.ts", default: "./dist/index.js" }
  const modules = { types: "./dist/*.d.ts", default: "./dist/*.js" }

  it("refuses a wildcard without ./internal/* blocked, or ./internal exposed", () => {
    expect(checkExports("node", { ".": entry, "./*": modules })).toEqual([
      `packages/node: exports has a wildcard but no "./internal/*": null`
    ])
    expect(checkExports("node", { ".": entry, "./internal/engine": entry })).toHaveLength(1)
  })

  it("accepts ./internal/* blocked, or no wildcard", () => {
    expect(checkExports("node", { ".": entry, "./*": modules, "./internal/*": null })).toEqual([])
    expect(checkExports("node", { ".": entry })).toEqual([])
    expect(checkExports("node", "./dist/index.js")).toEqual([])
  })
})

describe("the repository", () => {
  it("passes the lint as it stands", () => {
    expect(lintTree(fileURLToPath(new URL("../..", import.meta.url)))).toEqual([])
  })
})
