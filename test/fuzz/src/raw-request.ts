import http from "node:http";

export interface RawResponse {
  status: number;
  text: string;
}

/**
 * One HTTP request with the path sent byte for byte: fetch would normalise `..` segments and
 * re-encode, hiding exactly what the fuzzer wants the server to see.
 */
export function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string | Buffer,
  /** A kept-alive agent for load (bench/pipeline-bench.ts); none: a connection per request. */
  agent: http.Agent | false = false,
): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: body === undefined ? headers : { ...headers, "content-length": Buffer.byteLength(body) },
        agent,
      },
      (res) => {
        // A change stream (checkout events) stays open for minutes by design: its status and
        // headers are the answer; waiting for its end would hang the fuzzer on a real payment id.
        if (String(res.headers["content-type"] ?? "").startsWith("text/event-stream")) {
          resolve({ status: res.statusCode ?? 0, text: "" });
          res.destroy();
          return;
        }
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }),
        );
        res.on("error", reject);
      },
    );
    // A large body the server refuses early may reset the socket before we finish writing it.
    req.on("error", reject);
    req.end(body);
  });
}
