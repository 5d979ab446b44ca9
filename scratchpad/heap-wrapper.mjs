// Runs examples/everything (same argv) and logs its heap after a full GC every second, to stderr. Needs --expose-gc.
setInterval(() => { globalThis.gc(); process.stderr.write(`HEAP ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(1)}\n`) }, 1000).unref()
await import("../examples/everything/dist/main.js")
