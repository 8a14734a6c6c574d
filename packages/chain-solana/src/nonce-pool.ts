// A pool of the gas wallet's durable nonce accounts, leased one per in-flight intent through
// PostgreSQL so that replicas never hand the same nonce value to two intents (only one of them
// could ever land). Accounts are created on demand through the signer, up to a bound per mode.
import {
  buildSolanaNonceAccount,
  NONCE_ACCOUNT_LAMPORTS,
  solanaNonceAccountAddress,
  solanaWireTransaction,
} from "@gateway/chain-tx";
import type { Sql } from "@gateway/db";
import type { Mode } from "@gateway/domain";
import type { Logger } from "@gateway/logging";
import { type SignerClient, SignerRefusedError } from "@gateway/signer-client";
import { type Commitment, type Connection, NonceAccount, PublicKey } from "@solana/web3.js";

export interface LeasedNonce {
  account: string;
  value: string;
}

export interface NoncePool {
  /** A nonce for this intent and its current value; a retry of the intent gets the same account. */
  lease(intentId: string, mode: Mode): Promise<LeasedNonce>;
  /** The signer had bound the intent to this account before (a lease lost): hold it for the intent. */
  adopt(intentId: string, account: string): Promise<void>;
  /** The signer holds this value for another intent: skip the account until its value moves. */
  block(account: string, value: string): Promise<void>;
  release(intentId: string): Promise<void>;
  /** The account's nonce value at that commitment, or null when it is not a nonce account. */
  value(account: string, commitment: Commitment): Promise<string | null>;
}

export interface NoncePoolOptions {
  sql: Sql;
  connection: Connection;
  signer: SignerClient;
  gasWallet: (mode: Mode) => Promise<string>;
  log: Logger;
  /** Nonce accounts per mode at most; must stay within the signer's SIGNER_SOLANA_MAX_NONCE_ACCOUNTS. */
  maxAccounts?: number;
  pollMs?: number;
  timeoutMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A durable nonce account's current value, or null when there is no such account (yet). */
export async function nonceValue(
  connection: Connection,
  account: string,
  commitment: Commitment,
): Promise<string | null> {
  const info = await connection.getAccountInfo(new PublicKey(account), commitment);
  if (info?.data.length !== 80) return null;
  try {
    return NonceAccount.fromAccountData(info.data).nonce;
  } catch {
    return null;
  }
}

export function createNoncePool(options: NoncePoolOptions): NoncePool {
  return new Pool(options);
}

class Pool implements NoncePool {
  readonly #o: NoncePoolOptions;
  readonly #maxAccounts: number;
  readonly #pollMs: number;
  readonly #timeoutMs: number;

  constructor(options: NoncePoolOptions) {
    this.#o = options;
    this.#maxAccounts = options.maxAccounts ?? 32;
    this.#pollMs = options.pollMs ?? 100;
    this.#timeoutMs = options.timeoutMs ?? 60_000;
  }

  value(account: string, commitment: Commitment): Promise<string | null> {
    return nonceValue(this.#o.connection, account, commitment);
  }

  async lease(intentId: string, mode: Mode): Promise<LeasedNonce> {
    const { sql } = this.#o;
    const deadline = Date.now() + this.#timeoutMs;
    for (;;) {
      const leased = await this.#held(intentId, mode);
      if (leased) {
        const current = await this.value(leased.address, "confirmed");
        const blocked = "blocked_value" in leased ? leased.blocked_value : null;
        if (current !== null && current !== blocked) return { account: leased.address, value: current };
        await sql`update solana_nonce_accounts set intent_id = null, leased_at = now() where address = ${leased.address}`;
      }
      if (Date.now() > deadline)
        throw new Error(`no free ${mode} nonce account within ${this.#timeoutMs} ms`);
      await this.#recover(mode);
      if (!(await this.#grow(mode))) await sleep(this.#pollMs);
    }
  }

  async adopt(intentId: string, account: string): Promise<void> {
    const { sql } = this.#o;
    await sql`update solana_nonce_accounts set intent_id = null where intent_id = ${intentId} and address <> ${account}`;
    await sql`update solana_nonce_accounts set intent_id = ${intentId}, leased_at = now() where address = ${account}`;
  }

  async block(account: string, nonceValue: string): Promise<void> {
    await this.#o
      .sql`update solana_nonce_accounts set blocked_value = ${nonceValue}, intent_id = null, leased_at = now()
        where address = ${account}`;
  }

  async release(intentId: string): Promise<void> {
    await this.#o
      .sql`update solana_nonce_accounts set intent_id = null, leased_at = now() where intent_id = ${intentId}`;
  }

  /** The account the intent holds already, or a free ready one leased to it now. */
  async #held(intentId: string, mode: Mode) {
    const { sql } = this.#o;
    const [held] = await sql<{ address: string }[]>`
          select address from solana_nonce_accounts where intent_id = ${intentId}`;
    return (
      held ??
      (
        await sql<{ address: string; blocked_value: string | null }[]>`
              update solana_nonce_accounts set intent_id = ${intentId}, leased_at = now()
              where (mode, idx) = (
                select mode, idx from solana_nonce_accounts
                where mode = ${mode} and ready and intent_id is null
                order by leased_at nulls first limit 1 for update skip locked)
              returning address, blocked_value`
      )[0]
    );
  }

  /** Adds one account to the mode's pool if it is below its bound; false when it is full. */
  async #grow(mode: Mode): Promise<boolean> {
    const { sql, log } = this.#o;
    const [row] = await sql<{ count: number }[]>`
      select count(*)::int as count from solana_nonce_accounts where mode = ${mode}`;
    const count = row?.count ?? 0;
    if (count >= this.#maxAccounts) return false;
    const address = solanaNonceAccountAddress(await this.#o.gasWallet(mode), count);
    const inserted = await sql`
      insert into solana_nonce_accounts (mode, idx, address, leased_at) values (${mode}, ${count}, ${address}, now())
      on conflict do nothing returning idx`;
    if (inserted.length === 0) return true; // another replica is adding it
    if (await this.#create(mode, count, address)) {
      await sql`update solana_nonce_accounts set ready = true where mode = ${mode} and idx = ${count}`;
      log.info({ mode, idx: count, address }, "nonce account ready");
    }
    return true;
  }

  /** Accounts whose creation a crashed replica left unconfirmed. */
  async #recover(mode: Mode) {
    const { sql } = this.#o;
    const stale = await sql<{ idx: number; address: string }[]>`
      select idx, address from solana_nonce_accounts
      where mode = ${mode} and not ready and leased_at < now() - interval '30 seconds'`;
    for (const row of stale) {
      if ((await this.value(row.address, "confirmed")) !== null)
        await sql`update solana_nonce_accounts set ready = true where mode = ${mode} and idx = ${row.idx}`;
    }
  }

  /** Signs and sends the creation of account `idx`, then waits until it is there. */
  async #create(mode: Mode, idx: number, address: string): Promise<boolean> {
    if ((await this.value(address, "confirmed")) !== null) return true;
    if (!(await this.#sendCreation(mode, idx))) return false;
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      if ((await this.value(address, "confirmed")) !== null) return true;
      await sleep(this.#pollMs);
    }
    // The signed creation expired unlanded; this index is spent, the pool grows past it.
    return (await this.value(address, "confirmed")) !== null;
  }

  /** False when the signer had bound the index to a creation already. */
  async #sendCreation(mode: Mode, idx: number): Promise<boolean> {
    const { sql, connection, signer, log } = this.#o;
    const gas = await this.#o.gasWallet(mode);
    const { blockhash } = await connection.getLatestBlockhash("confirmed");
    const message = buildSolanaNonceAccount({
      gasWallet: gas,
      index: idx,
      lamports: NONCE_ACCOUNT_LAMPORTS,
      recentBlockhash: blockhash,
    });
    try {
      const signed = await signer.sign({
        intent: {
          kind: "nonce_account",
          intentId: `nonce:${mode}:${idx}`,
          chain: "solana",
          mode,
          asset: "SOL",
          amount: NONCE_ACCOUNT_LAMPORTS,
          index: idx,
        },
        unsignedTransaction: message,
      });
      await connection
        .sendRawTransaction(solanaWireTransaction(signed.transaction, signed.signatures), {
          preflightCommitment: "confirmed",
        })
        .catch((error) => log.warn({ err: error, idx, mode }, "nonce account creation not sent"));
      return true;
    } catch (error) {
      // An index the signer already bound to a creation (a pool row lost to a restore) is
      // spent: the pool grows past it. Any other refusal is a misconfiguration to surface.
      if (error instanceof SignerRefusedError && error.refusal.code === "INPUT_IN_USE") return false;
      await sql`delete from solana_nonce_accounts where mode = ${mode} and idx = ${idx} and not ready`;
      throw error;
    }
  }
}
