// The soak's server: examples/everything (same argv), which on SIGUSR2 runs a full garbage collection and writes
// `HEAP <bytes>` (its heap in use and external memory after it) to stderr, so that the soak judges the heap that is still reachable
// rather than the resident memory, which V8 and the allocator grow and keep as they see fit. Run with --expose-gc.
const gc = globalThis.gc
if (typeof gc !== "function") {
  process.stderr.write("soak server: run with --expose-gc\n")
  process.exit(2)
}
process.on("SIGUSR2", () => {
  gc()
  const { external, heapUsed } = process.memoryUsage()
  process.stderr.write(`HEAP ${heapUsed + external}\n`)
})
await import("../../examples/everything/dist/main.js")
