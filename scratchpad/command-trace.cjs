// A preload that timestamps a command's stdio server on stderr (ms since this process started): when the command
// spawns it, its 'spawn' event, the first line written to it, its first answer, its stdin's end, its exit, and this
// process's exit. Where a `call`'s time goes, and whether the server was ready when the command was:
// `node -r ./scratchpad/command-trace.cjs packages/cli/dist/effect-mcp.mjs call echo -a '{"text":"hi"}' -- node <server>`
const childProcess = require("node:child_process")
const Module = require("node:module")

const log = (what) => process.stderr.write(`[trace] ${performance.now().toFixed(0).padStart(5)} ms ${what}\n`)
log("preload")
const spawn = childProcess.spawn
childProcess.spawn = function(...args) {
  log(`spawn ${args[0]}`)
  const child = spawn.apply(this, args)
  child.once("spawn", () => log("'spawn' event"))
  child.once("exit", (code, signal) => log(`child exit ${code ?? signal}`))
  child.stdout?.once("data", () => log("first answer"))
  const write = child.stdin.write.bind(child.stdin)
  let first = true
  child.stdin.write = (...w) => {
    if (first) log("first write")
    first = false
    return write(...w)
  }
  const end = child.stdin.end.bind(child.stdin)
  child.stdin.end = (...e) => (log("stdin end"), end(...e))
  return child
}
// The bins import node:child_process as an ES module: give it the patched spawn too.
Module.syncBuiltinESMExports()
process.on("exit", () => log("exit"))
