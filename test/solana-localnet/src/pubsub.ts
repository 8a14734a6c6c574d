// The validator's WebSocket PubSub for what web3.js subscribes to: signatures (which
// `confirmTransaction` waits on), slots and accounts. Signature subscriptions end after
// their one notification, as on a validator.

import { type WebSocket, WebSocketServer } from "ws";
import type { Chain, Commitment, TransactionRecord } from "./chain.js";
import { getOrCreate } from "./collections.js";
import { type AccountEncoding, accountEncoding, encodeAccount } from "./encoding.js";
import { invalidParams, RpcCode, RpcError } from "./errors.js";
import { SYSTEM_PROGRAM_ID } from "./token.js";

type Kind = "signature" | "slot" | "account" | "logs";

/** Key of logs subscriptions that want every transaction (`"all"`). */
const ALL_LOGS = "*";

interface Subscription {
  readonly id: number;
  readonly kind: Kind;
  readonly socket: WebSocket;
  readonly key: string;
  readonly commitment: Commitment;
  readonly encoding: AccountEncoding;
}

export interface PubSub {
  readonly port: number;
  subscriptionCount(): number;
  close(): Promise<void>;
}

const rank: Record<Commitment, number> = { processed: 0, confirmed: 1, finalized: 2 };

function commitmentParam(value: unknown): Commitment {
  if (value === "processed" || value === "recent") return "processed";
  if (value === "confirmed" || value === "single" || value === "singleGossip") return "confirmed";
  if (value === undefined || value === null || value === "finalized" || value === "max" || value === "root") {
    return "finalized";
  }
  throw invalidParams(`Invalid params: unknown commitment ${JSON.stringify(value)}`);
}

export async function createPubSub(options: { chain: Chain; host: string; port: number }): Promise<PubSub> {
  const { chain } = options;
  const wss = new WebSocketServer({ host: options.host, port: options.port });
  await new Promise<void>((resolve, reject) => {
    wss.once("listening", resolve);
    wss.once("error", reject);
  });
  const address = wss.address();
  const port = typeof address === "object" && address !== null ? address.port : options.port;

  let nextId = 0;
  const byId = new Map<number, Subscription>();
  const byKey: Record<Kind, Map<string, Set<Subscription>>> = {
    signature: new Map(),
    slot: new Map(),
    account: new Map(),
    logs: new Map(),
  };

  const send = (socket: WebSocket, message: object) => {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
  };
  const notify = (sub: Subscription, method: string, result: unknown) =>
    send(sub.socket, { jsonrpc: "2.0", method, params: { result, subscription: sub.id } });

  function add(sub: Subscription): void {
    byId.set(sub.id, sub);
    getOrCreate(byKey[sub.kind], sub.key, () => new Set<Subscription>()).add(sub);
  }

  function remove(sub: Subscription): void {
    byId.delete(sub.id);
    const set = byKey[sub.kind].get(sub.key);
    set?.delete(sub);
    if (set?.size === 0) byKey[sub.kind].delete(sub.key);
  }

  function notifySignature(sub: Subscription, record: TransactionRecord): void {
    notify(sub, "signatureNotification", {
      context: { slot: chain.slotAt(sub.commitment) },
      value: { err: record.err },
    });
    remove(sub);
  }

  function accountValue(sub: Subscription, state: ReturnType<Chain["getAccount"]>) {
    const account = state ?? {
      lamports: 0n,
      data: new Uint8Array(),
      owner: SYSTEM_PROGRAM_ID,
      executable: false,
    };
    return encodeAccount(account, sub.encoding, (mint) => chain.mintDecimals(mint));
  }

  function notifyLogs(record: TransactionRecord, finalized: boolean): void {
    const subs = new Set<Subscription>(byKey.logs.get(ALL_LOGS) ?? []);
    for (const key of record.accountKeys) for (const sub of byKey.logs.get(key) ?? []) subs.add(sub);
    for (const sub of subs) {
      if ((sub.commitment === "finalized") !== finalized) continue;
      notify(sub, "logsNotification", {
        context: { slot: record.slot },
        value: { err: record.err, logs: record.logs, signature: record.signature },
      });
    }
  }

  const offTransaction = chain.on("transaction", (record) => {
    notifyLogs(record, false);
    for (const sub of byKey.signature.get(record.signature) ?? []) {
      if (sub.commitment !== "finalized") notifySignature(sub, record);
    }
    for (const [key, state] of record.writableAfter) {
      for (const sub of byKey.account.get(key) ?? []) {
        if (sub.commitment === "finalized") continue;
        notify(sub, "accountNotification", {
          context: { slot: record.slot },
          value: accountValue(sub, state),
        });
      }
    }
  });
  const offFinalized = chain.on("finalized", (records, finalizedSlot) => {
    const touched = new Set<string>();
    for (const record of records) {
      notifyLogs(record, true);
      for (const sub of byKey.signature.get(record.signature) ?? []) notifySignature(sub, record);
      for (const key of record.writableAfter.keys()) touched.add(key);
    }
    for (const key of touched) {
      const subs = [...(byKey.account.get(key) ?? [])].filter((sub) => sub.commitment === "finalized");
      if (subs.length === 0) continue;
      const state = chain.getAccount(key, "finalized");
      for (const sub of subs) {
        notify(sub, "accountNotification", {
          context: { slot: finalizedSlot },
          value: accountValue(sub, state),
        });
      }
    }
  });
  const offSlot = chain.on("slot", (slot, finalizedSlot) => {
    for (const sub of byKey.slot.get("") ?? []) {
      notify(sub, "slotNotification", { parent: slot - 1, root: finalizedSlot, slot });
    }
  });

  function subscribe(
    socket: WebSocket,
    method: string,
    params: unknown[],
  ): { id: number; after?: () => void } {
    const cfg = (params[1] ?? {}) as Record<string, unknown>;
    const base = { id: nextId++, socket };
    switch (method) {
      case "signatureSubscribe": {
        if (typeof params[0] !== "string") throw invalidParams("Invalid params: expected a signature");
        const sub: Subscription = {
          ...base,
          kind: "signature",
          key: params[0],
          commitment: commitmentParam(cfg["commitment"]),
          encoding: "base64",
        };
        add(sub);
        const record = chain.getTransaction(sub.key);
        const reached = record && rank[chain.commitmentOf(record)] >= rank[sub.commitment];
        return { id: sub.id, after: reached ? () => notifySignature(sub, record) : undefined };
      }
      case "slotSubscribe":
        add({ ...base, kind: "slot", key: "", commitment: "processed", encoding: "base64" });
        return { id: base.id };
      case "accountSubscribe": {
        if (typeof params[0] !== "string") throw invalidParams("Invalid params: expected a public key");
        add({
          ...base,
          kind: "account",
          key: params[0],
          commitment: commitmentParam(cfg["commitment"]),
          encoding: accountEncoding(cfg["encoding"], "base58"),
        });
        return { id: base.id };
      }
      case "logsSubscribe": {
        const filter = params[0];
        let key: string;
        if (filter === "all" || filter === "allWithVotes") key = ALL_LOGS;
        else if (
          typeof filter === "object" &&
          filter !== null &&
          "mentions" in filter &&
          Array.isArray(filter.mentions) &&
          filter.mentions.length === 1 &&
          typeof filter.mentions[0] === "string"
        ) {
          key = filter.mentions[0];
        } else {
          throw invalidParams('Invalid params: expected "all" or { "mentions": [<one address>] }');
        }
        add({
          ...base,
          kind: "logs",
          key,
          commitment: commitmentParam(cfg["commitment"]),
          encoding: "base64",
        });
        return { id: base.id };
      }
      default:
        throw new RpcError(RpcCode.methodNotFound, "Method not found");
    }
  }

  wss.on("connection", (socket) => {
    const mine = new Set<number>();
    socket.on("message", (raw) => {
      let request: { id?: unknown; method?: unknown; params?: unknown };
      try {
        request = JSON.parse(raw.toString());
      } catch {
        send(socket, {
          error: { code: RpcCode.parseError, message: "Parse error" },
          id: null,
          jsonrpc: "2.0",
        });
        return;
      }
      const id = request.id;
      // web3.js sends a `ping` notification (no id) every few seconds to keep the socket open.
      if (id === undefined) return;
      const method = typeof request.method === "string" ? request.method : "";
      const params = Array.isArray(request.params) ? request.params : [];
      try {
        if (method.endsWith("Unsubscribe")) {
          const subId = params[0];
          const sub = typeof subId === "number" ? byId.get(subId) : undefined;
          if (!sub || sub.socket !== socket) throw invalidParams("Invalid subscription id.");
          remove(sub);
          mine.delete(sub.id);
          send(socket, { id, jsonrpc: "2.0", result: true });
          return;
        }
        const { id: subId, after } = subscribe(socket, method, params);
        mine.add(subId);
        send(socket, { id, jsonrpc: "2.0", result: subId });
        after?.();
      } catch (error) {
        const err = error instanceof RpcError ? error : new RpcError(RpcCode.internalError, String(error));
        send(socket, { error: { code: err.code, message: err.message }, id, jsonrpc: "2.0" });
      }
    });
    socket.on("close", () => {
      for (const subId of mine) {
        const sub = byId.get(subId);
        if (sub) remove(sub);
      }
    });
  });

  return {
    port,
    subscriptionCount: () => byId.size,
    close: async () => {
      offTransaction();
      offFinalized();
      offSlot();
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
