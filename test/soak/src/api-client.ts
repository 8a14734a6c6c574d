// The merchant's and the checkout's requests over kept-alive node:http connections. `fetch` costs
// its caller about 0.4 ms of CPU a request, node:http under 0.05 ms (a local server, 16 clients,
// after warm-up), and the soak's driver shares the cores with the cluster it measures.
import http from "node:http";

export interface ApiAnswer {
  status: number;
  text: string;
}

export interface ApiClient {
  request(method: string, path: string, headers: Record<string, string>, body?: string): Promise<ApiAnswer>;
  close(): void;
}

export function createApiClient(baseUrl: string): ApiClient {
  const url = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  return {
    request(method, path, headers, body) {
      return new Promise((resolve, reject) => {
        const req = http.request(
          {
            host: url.hostname,
            port: url.port,
            method,
            path,
            agent,
            headers: body === undefined ? headers : { ...headers, "content-length": Buffer.byteLength(body) },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (chunk: Buffer) => chunks.push(chunk));
            res.on("end", () =>
              resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }),
            );
            res.on("error", reject);
          },
        );
        req.on("error", reject);
        req.end(body);
      });
    },
    close() {
      agent.destroy();
    },
  };
}
