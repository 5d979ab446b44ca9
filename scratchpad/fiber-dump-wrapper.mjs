// Runs examples/everything (same argv); on SIGUSR2 prints, to stderr, every root fiber still running with the
// closures on its stack (a debugging aid for leaks).
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
process.on("SIGUSR2", () => {
  const roots = Effect.runSync(Fiber.roots)
  process.stderr.write(`ROOTS ${roots.length}\n`)
  const sig = new Map()
  for (const f of roots) {
    const frames = (f._stack ?? []).map((op) => String(op?.effect_instruction_i1 ?? op?.effect_instruction_i2 ?? op?._op ?? "?").replace(/\s+/g, " ").slice(0, 600))
    const key = `flags=${f.currentRuntimeFlags} interrupted=${f.isInterrupted()} asyncCb=${f._asyncInterruptor !== null} blockingOn=${f._asyncBlockingOn?._tag ?? f._asyncBlockingOn} ctx=${[...f.currentContext.unsafeMap.keys()].filter(k => !k.startsWith("effect/")).join(",").slice(0,300)} status=${f._exitValue === null ? "running" : "done"} async=${f._asyncBlockingOn?._tag}\n    ` + frames.join("\n    ")
    const req = f.currentContext.unsafeMap.get("@effect/platform/HttpServerRequest")
    const res = req?.resolvedResponse ?? req?.response
    const extra = req === undefined ? "" : ` method=${req.source.method} sent=${res.headersSent} status=${res.statusCode} ended=${res.writableEnded} finished=${res.writableFinished} destroyed=${res.destroyed} sockDestroyed=${res.socket?.destroyed ?? "nosock"} ct=${res.getHeader?.("content-type")}`
    sig.set(extra + " " + key, (sig.get(extra + " " + key) ?? 0) + 1)
  }
  for (const [k, n] of [...sig].sort((a, b) => b[1] - a[1]).slice(0, 4)) process.stderr.write(`x${n} ${k}\n\n`)
})
await import("../examples/everything/dist/main.js")
