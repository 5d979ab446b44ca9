// client CPU per request: MODE=fetch | http (node:http keepAlive agent) | platform-undici | platform-node
import { createServer, request, Agent } from "node:http"
import { fork } from "node:child_process"
if (process.argv[2] === "server") {
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
  srv.listen(0, "127.0.0.1", () => process.send(srv.address().port))
} else {
  const child = fork(new URL(import.meta.url).pathname, ["server"])
  const port = await new Promise((ok) => child.once("message", ok))
  const url = `http://127.0.0.1:${port}/mcp`
  const mode = process.env.MODE ?? "fetch"
  const N = Number(process.env.N ?? 5000)
  const body = (i) => JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "echo", arguments: { text: "hello" } } })
  let call
  if (mode === "fetch") call = async (i) => { const r = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: body(i) }); return r.json() }
  if (mode === "http") {
    const agent = new Agent({ keepAlive: true })
    call = (i) => new Promise((ok, ko) => {
      const b = body(i)
      const req = request({ host: "127.0.0.1", port, path: "/mcp", method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(b) } }, (res) => {
        const chunks = []; res.on("data", (c) => chunks.push(c)); res.on("end", () => ok(JSON.parse(Buffer.concat(chunks).toString())))
      })
      req.on("error", ko); req.end(b)
    })
  }
  if (mode.startsWith("platform")) {
    const { Effect, Layer, ManagedRuntime } = await import("effect")
    const HttpClient = await import("@effect/platform/HttpClient")
    const HttpClientRequest = await import("@effect/platform/HttpClientRequest")
    const NodeHttpClient = await import("@effect/platform-node/NodeHttpClient")
    const layer = mode === "platform-undici"
      ? NodeHttpClient.layerUndici
      : mode === "platform-node-keepalive"
      ? NodeHttpClient.layerWithoutAgent.pipe(Layer.provide(NodeHttpClient.makeAgentLayer({ keepAlive: true })))
      : NodeHttpClient.layer
    const rt = ManagedRuntime.make(layer)
    const notrace = process.env.NOTRACE === "1"
    const eff = (i) => Effect.flatMap(HttpClient.HttpClient, (c) => {
      const cc = notrace ? c.pipe(HttpClient.withTracerDisabledWhen(() => true), HttpClient.withTracerPropagation(false)) : c
      return Effect.flatMap(cc.execute(HttpClientRequest.post(url).pipe(HttpClientRequest.bodyText(body(i), "application/json"))), (r) => r.text)
    }).pipe(Effect.scoped)
    call = (i) => rt.runPromise(eff(i))
  }
  for (let i = 0; i < 1000; i++) await call(i)
  const c0 = process.cpuUsage(); const t0 = performance.now()
  for (let i = 0; i < N; i++) await call(i)
  const cpu = process.cpuUsage(c0); const ms = performance.now() - t0
  console.log(mode, process.env.NOTRACE ?? "", `${(N / ms * 1000).toFixed(0)} req/s, client CPU ${((cpu.user + cpu.system) / N).toFixed(0)} µs/req`)
  child.kill(); process.exit(0)
}
