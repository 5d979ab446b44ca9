// The floor of an HTTP server built on @effect/platform: a POST route that reads a JSON body and answers JSON, with no
// MCP at all, driven by fetch calls (CONC=n in flight, default 1). Prints requests/s and client/server CPU µs per request. MODE=router
// (default: HttpRouter + HttpServer.serve), MODE=app (a bare HttpApp, no router; app-notrace and
// router-notrace without the tracer middleware's span), MODE=node (node:http, no Effect),
// MODE=effect (node:http, a fiber per request that reads the body and answers).
import { fork } from "node:child_process"
if (process.argv[2] === "server") {
  const mode = process.env.MODE ?? "router"
  const port = await (async () => {
    if (mode === "node") {
      const { createServer } = await import("node:http")
      const srv = createServer((req, res) => {
        const chunks = []
        req.on("data", (c) => chunks.push(c))
        req.on("end", () => {
          const msg = JSON.parse(Buffer.concat(chunks).toString())
          const body = JSON.stringify({ jsonrpc: "2.0", id: msg.id, result: { content: [{ type: "text", text: "hello" }] } })
          res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
          res.end(body)
        })
      })
      await new Promise((ok) => srv.listen(0, "127.0.0.1", ok))
      return srv.address().port
    }
    if (mode === "effect") {
      const { createServer } = await import("node:http")
      const { Effect, Runtime } = await import("effect")
      const runFork = Runtime.runFork(Runtime.defaultRuntime)
      const readBody = (req) => Effect.async((resume) => {
        const chunks = []
        req.on("data", (c) => chunks.push(c))
        req.on("end", () => resume(Effect.succeed(Buffer.concat(chunks).toString())))
      })
      const handle = (req, res) => Effect.map(readBody(req), (text) => {
        const msg = JSON.parse(text)
        const body = JSON.stringify({ jsonrpc: "2.0", id: msg.id, result: { content: [{ type: "text", text: "hello" }] } })
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
        res.end(body)
      })
      const srv = createServer((req, res) => { runFork(handle(req, res)) })
      await new Promise((ok) => srv.listen(0, "127.0.0.1", ok))
      return srv.address().port
    }
    const { createServer } = await import("node:http")
    const NodeHttpServer = await import("@effect/platform-node/NodeHttpServer")
    const HttpServer = await import("@effect/platform/HttpServer")
    const HttpRouter = await import("@effect/platform/HttpRouter")
    const HttpServerRequest = await import("@effect/platform/HttpServerRequest")
    const HttpServerResponse = await import("@effect/platform/HttpServerResponse")
    const { Effect, Layer, Context, Scope } = await import("effect")
    const handler = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      Effect.map(request.text, (text) => {
        const msg = JSON.parse(text)
        return HttpServerResponse.unsafeJson({ jsonrpc: "2.0", id: msg.id, result: { content: [{ type: "text", text: "hello" }] } })
      }))
    const HttpMiddleware = await import("@effect/platform/HttpMiddleware")
    const app = mode.startsWith("app") ? handler : HttpRouter.empty.pipe(HttpRouter.post("/mcp", handler))
    const served = HttpServer.serve(app)
    const layer = (mode.endsWith("-notrace") ? HttpMiddleware.withTracerDisabledWhen(served, () => true) : served).pipe(Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })))
    const scope = Effect.runSync(Scope.make())
    const context = await Effect.runPromise(Layer.buildWithScope(layer, scope))
    return Context.get(context, HttpServer.HttpServer).address.port
  })()
  process.on("SIGINT", () => process.exit(0))
  process.on("message", (m) => { if (m === "cpu") process.send({ cpu: process.cpuUsage() }) })
  process.send(port)
} else {
  const child = fork(new URL(import.meta.url).pathname, ["server"], { execArgv: process.env.NODE_ARGS ? process.env.NODE_ARGS.split(" ") : [] })
  const port = await new Promise((ok) => child.once("message", ok))
  const url = `http://127.0.0.1:${port}/mcp`
  const body = (i) => JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "echo", arguments: { text: "hello" } } })
  const call = (i) => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: body(i) }).then((r) => r.text())
  for (let i = 0; i < 2000; i++) await call(i)
  const cpu = () => new Promise((ok) => { child.once("message", (m) => ok(m.cpu)); child.send("cpu") })
  const N = Number(process.env.N ?? 3000)
  const s0 = await cpu(); const c0 = process.cpuUsage(); const t0 = performance.now()
  const C = Number(process.env.CONC ?? 1)
  let next = 0
  await Promise.all(Array.from({ length: C }, async () => { while (next < N) await call(next++) }))
  const t = performance.now() - t0; const c1 = process.cpuUsage(c0); const s1 = await cpu()
  const per = (a, b) => ((b.user + b.system - a.user - a.system) / N).toFixed(0)
  console.log(`${process.env.MODE ?? "router"}: ${(N / t * 1000).toFixed(0)}/s, CPU µs client ${((c1.user + c1.system) / N).toFixed(0)} server ${per(s0, s1)}`)
  child.kill("SIGINT")
}
