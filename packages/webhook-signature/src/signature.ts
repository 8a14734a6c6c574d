import { createHmac, timingSafeEqual } from "node:crypto";

/** The header that carries `t=<unix seconds>,v1=<hex HMAC-SHA256>`. */
export const SIGNATURE_HEADER = "X-Gateway-Signature";
/** Receivers refuse a signature whose timestamp is further than this from their clock (replay window). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * `hex(HMAC-SHA256(key = the whole "whsec_…" string as UTF-8, message = "<t>.<raw body>"))`.
 * The raw body is signed byte for byte: a receiver must verify the bytes it received, before any
 * JSON parsing, because re-serialising can reorder keys or change number formatting.
 */
export function signPayload(secret: string, timestamp: number, rawBody: string | Buffer): string {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new TypeError("timestamp must be a non-negative integer of unix seconds");
  }
  return createHmac("sha256", Buffer.from(secret, "utf8"))
    .update(`${timestamp}.`, "utf8")
    .update(typeof rawBody === "string" ? Buffer.from(rawBody, "utf8") : rawBody)
    .digest("hex");
}

/** The value of X-Gateway-Signature for one delivery attempt. */
export function buildSignatureHeader(secret: string, timestamp: number, rawBody: string | Buffer): string {
  return `t=${timestamp},v1=${signPayload(secret, timestamp, rawBody)}`;
}

export type WebhookVerificationErrorCode =
  | "header_missing"
  | "header_malformed"
  | "timestamp_outside_tolerance"
  | "signature_mismatch"
  | "payload_invalid";

/** Why a webhook was refused; `code` is stable, so receivers can log or count it. */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
  readonly code: WebhookVerificationErrorCode;

  constructor(code: WebhookVerificationErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

export interface ParsedSignatureHeader {
  timestamp: number;
  /** Every `v1` value in the header (more than one while a secret is being rotated). */
  signatures: string[];
}

/** Splits `t=…,v1=…[,v1=…]`; unknown schemes are ignored so new ones can be added later. */
export function parseSignatureHeader(header: string): ParsedSignatureHeader {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(",")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === "t") {
      if (!/^\d{1,15}$/.test(value)) throw new WebhookVerificationError("header_malformed", "bad timestamp");
      timestamp = Number(value);
    } else if (key === "v1") {
      signatures.push(value);
    }
  }
  if (timestamp === undefined || signatures.length === 0) {
    throw new WebhookVerificationError("header_malformed", "the header needs t= and at least one v1=");
  }
  return { timestamp, signatures };
}

/** The body Gateway POSTs: an event with a stable id, so a receiver can drop repeats. */
export interface WebhookEvent<TData = Record<string, unknown>> {
  id: string;
  type: string;
  created_at: string;
  is_test: boolean;
  data: TData;
}

export interface VerifyWebhookOptions {
  /** The request body exactly as received (not re-serialised JSON). */
  payload: string | Buffer;
  /** The X-Gateway-Signature header value. */
  header: string | string[] | undefined | null;
  /** The endpoint's `whsec_…` secret. */
  secret: string;
  toleranceSeconds?: number;
  /** The receiver's clock; defaults to now. */
  now?: Date;
}

/**
 * Checks the signature in constant time and the timestamp against the tolerance, then parses the
 * body. Throws WebhookVerificationError when anything is off; never returns an unverified event.
 */
export function verifyWebhook<TData = Record<string, unknown>>(
  options: VerifyWebhookOptions,
): WebhookEvent<TData> {
  const { payload, secret } = options;
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const header = Array.isArray(options.header) ? options.header[0] : options.header;
  if (!header) throw new WebhookVerificationError("header_missing", `no ${SIGNATURE_HEADER} header`);
  const { timestamp, signatures } = parseSignatureHeader(header);

  const expected = Buffer.from(signPayload(secret, timestamp, payload), "hex");
  // Compare against every candidate without stopping early, so timing reveals nothing.
  let matched = false;
  for (const candidate of signatures) {
    const wellFormed = /^[0-9a-f]{64}$/i.test(candidate);
    const given = wellFormed ? Buffer.from(candidate, "hex") : Buffer.alloc(expected.length);
    if (timingSafeEqual(given, expected) && wellFormed) matched = true;
  }
  if (!matched) throw new WebhookVerificationError("signature_mismatch", "no signature matches the payload");

  // Checked after the signature, so an attacker cannot learn the tolerance with forged headers.
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSeconds - timestamp) > tolerance) {
    throw new WebhookVerificationError(
      "timestamp_outside_tolerance",
      `timestamp ${timestamp} is more than ${tolerance} s from now (${nowSeconds})`,
    );
  }

  try {
    const text = typeof payload === "string" ? payload : payload.toString("utf8");
    return JSON.parse(text) as WebhookEvent<TData>;
  } catch {
    throw new WebhookVerificationError("payload_invalid", "the payload is not JSON");
  }
}
