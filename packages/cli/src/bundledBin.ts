#!/usr/bin/env node
/**
 * The bundled effect-mcp executable (`dist/effect-mcp.mjs`, its `bin`; `bin.ts` is the unbundled one). `--version`
 * alone is answered here, before anything else loads; everything else runs the command, bundled as one CommonJS file
 * (`dist/effect-mcp.cjs`), through V8's code cache: every run after the first skips compiling it
 * (docs/benchmarks.md, "Start-up, session 22"). A stdio server given after `--` to a command that connects to it is
 * started first, so that it starts while the command loads (`internal/prespawn.ts`).
 */
import * as CodeCache from "@effect-mcp/node/CodeCache"
import * as Prespawn from "./internal/prespawn.js"
import { version } from "./version.js"

if (process.argv.length === 3 && process.argv[2] === "--version") {
  process.stdout.write(`${version}\n`)
} else {
  const loaded = Prespawn.startAhead(process.argv)
  CodeCache.run(new URL("./effect-mcp.cjs", import.meta.url))
  loaded()
}
