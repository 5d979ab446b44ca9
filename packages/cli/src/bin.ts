#!/usr/bin/env node
/**
 * The effect-mcp executable. `--version` alone is answered here, before the command's modules load (they are most of
 * its start-up: docs/benchmarks.md, "Start-up of the effect-mcp command"); everything else loads `main.js`. On Node
 * 22.1 and later, compiled code is cached between runs (`module.enableCompileCache`, in the OS's temp folder). A stdio
 * server given after `--` to a command that connects to it is started first, while the command loads
 * (`internal/prespawn.ts`).
 */
import * as Module from "node:module"
import * as Prespawn from "./internal/prespawn.js"
import { version } from "./version.js"

const compileCache = (Module as { readonly enableCompileCache?: () => unknown }).enableCompileCache
compileCache?.()

if (process.argv.length === 3 && process.argv[2] === "--version") {
  process.stdout.write(`${version}\n`)
} else {
  const loaded = Prespawn.startAhead(process.argv)
  await import("./main.js")
  loaded()
}
