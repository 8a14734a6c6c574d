/** One operation of the OpenAPI document, as the fuzzer needs it. */
export interface Endpoint {
  method: string;
  /** The path template, e.g. `/webhooks/{id}/deliveries`. */
  path: string;
  /** Names of the `{…}` segments in order. */
  params: string[];
  /** How the operation authenticates: by API key, by dashboard JWT, or not at all. */
  auth: "apiKey" | "bearer" | "none";
  hasBody: boolean;
}

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

interface Document {
  security?: Array<Record<string, unknown>>;
  paths: Record<string, Record<string, { security?: Array<Record<string, unknown>>; requestBody?: unknown }>>;
}

/**
 * Every operation of the served OpenAPI document: the fuzzer reads the list from the API itself,
 * so an endpoint added to the document is fuzzed without touching this suite.
 */
export async function loadEndpoints(baseUrl: string): Promise<Endpoint[]> {
  const res = await fetch(`${baseUrl}/openapi.json`);
  if (!res.ok) throw new Error(`GET /openapi.json answered ${res.status}`);
  return endpointsOf((await res.json()) as Document);
}

export function endpointsOf(doc: Document): Endpoint[] {
  const out: Endpoint[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const security = op.security ?? doc.security ?? [];
      const schemes = security.flatMap((s) => Object.keys(s));
      out.push({
        method: method.toUpperCase(),
        path,
        params: [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string),
        auth: schemes.includes("bearer") ? "bearer" : schemes.includes("apiKey") ? "apiKey" : "none",
        hasBody: op.requestBody !== undefined,
      });
    }
  }
  return out;
}

/** Fills a path template with already-encoded segments. */
export function fillPath(template: string, segments: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_m, name: string) => segments[name] ?? "x");
}
