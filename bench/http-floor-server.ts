// One of the servers http-floor.ts measures: `node:http` alone, or Express 5 with express.json(),
// each reading a JSON body and answering 201 with a payment-sized JSON body. Nothing else: no
// database, no validation, no auth. Usage: http-floor-server.ts <node-http|express> <port>
import http from "node:http";
import express from "express";

const [variant, port] = [process.argv[2], Number(process.argv[3])];
// About the size of a real payment resource.
const answer = {
  id: "0b7f4c3e-6a0e-4c3e-9a57-3c6f0b1e2d4a",
  amount: "12.50",
  currency: "USD",
  status: "pending",
  is_test: true,
  description: "bench",
  fee: "0.13",
  redirect_url: null,
  checkout_url: "http://localhost:3000/gateway?payment_id=0b7f4c3e-6a0e-4c3e-9a57-3c6f0b1e2d4a",
  expires_at: "2026-11-22T06:00:00.000Z",
  created_at: "2026-11-22T05:30:00.000Z",
};

if (variant === "node-http") {
  http
    .createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        JSON.parse(Buffer.concat(chunks).toString("utf8"));
        const body = JSON.stringify(answer);
        res.writeHead(201, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
        res.end(body);
      });
    })
    .listen(port);
} else if (variant === "express") {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.use(express.json({ limit: "64kb" }));
  app.post("/payments", (_req, res) => {
    res.status(201).json(answer);
  });
  app.listen(port);
} else {
  throw new Error(`unknown variant ${variant}`);
}
