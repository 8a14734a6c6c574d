// The lean write path of issue 45, on paper: the statements a test payment would send once each
// fact is written once, in a schema of its own (`lean`) beside today's, measured by
// bench/pg-floor.ts with the same stages and yardstick as today's statements (pg-floor-today.ts).
// The decisions use the real domain (`decide`, the state codec, the Payment resource); the SQL is
// the design's, and docs/write-path.md gives the reasons for each table.
import { randomUUID } from "node:crypto";
import type { TransactionSql } from "../packages/db/src/client.js";
import { newId } from "../packages/db/src/ids.js";
import {
  type Decision,
  decide,
  initialPaymentState,
  type PaymentEffect,
  serializePaymentState,
} from "../packages/domain/src/index.js";
import { toPaymentResource } from "../packages/payments/src/payment-resource.js";
import { type PaymentRow, stateOf } from "../packages/payments/src/payment-row.js";
import { type FloorContext, type FloorFlow, floorWallet, type Stage } from "./pg-floor-stages.js";

/** The lean tables. Today's merchants, webhook endpoints and ledger accounts are reused as they are. */
export const LEAN_SCHEMA = `
create schema lean;

-- Today's columns, checks and indexes. No foreign key to merchants: every payment of a merchant
-- would take a share lock on that one row, and a merchant is never deleted.
create table lean.payments (like public.payments including defaults including constraints including indexes);
create table lean.deposit_wallets (like public.deposit_wallets including all,
  foreign key (payment_id) references lean.payments (id));

-- Events are the outbox: a relay follows (xid, seq) below the oldest running transaction, so a
-- row committed late by a transaction that started early is never skipped (docs/write-path.md).
create table lean.events (
  id text primary key,
  merchant_id text not null,
  mode text not null check (mode in ('test', 'live')),
  type text not null,
  payment_id uuid,
  payout_id text,
  data jsonb not null,
  created_at timestamptz not null default now(),
  seq bigint generated always as identity,
  xid xid8 not null default pg_current_xact_id()
);
create index on lean.events (payment_id, seq) where payment_id is not null;
create index on lean.events (merchant_id, mode, seq desc);
create index on lean.events (merchant_id, mode, type, seq desc);
create index on lean.events (xid, seq);

-- Commands are appended and followed the same way; the actor's state de-duplicates them.
create table lean.commands (
  seq bigint generated always as identity,
  xid xid8 not null default pg_current_xact_id(),
  id text not null,
  subject text not null,
  payload jsonb not null,
  created_at timestamptz not null default now(),
  primary key (xid, seq)
);

-- Where each relay has published up to: one update a batch.
create table lean.relay_cursors (relay text primary key, xid xid8 not null, seq bigint not null);
insert into lean.relay_cursors values ('commands', '0', 0), ('events', '0', 0);

-- Two-legged transfers: balanced by construction, so no per-row trigger and no deferred sum.
-- A fee is a transfer of its own, linked to the movement it is taken from.
create table lean.ledger_transfers (
  id text primary key,
  reference text not null unique,
  kind text not null,
  mode text not null,
  chain text not null,
  coin text not null,
  merchant_id text,
  payment_id uuid,
  payout_id text,
  debit_account bigint not null,
  credit_account bigint not null check (credit_account <> debit_account),
  amount bigint not null check (amount > 0),
  linked_to text,
  usd_value_micros bigint,
  usd_rate_micros bigint,
  created_at timestamptz not null default now()
);
create index on lean.ledger_transfers (payment_id) where payment_id is not null;
create index on lean.ledger_transfers (debit_account, created_at);
create index on lean.ledger_transfers (credit_account, created_at);

-- An account's balance is the sum of its shards, each on the account's normal side; one upsert
-- per account and batch.
create table lean.ledger_balances (
  account_id bigint not null,
  shard smallint not null,
  amount bigint not null,
  primary key (account_id, shard)
);

-- A delivery names its event instead of copying it: the bytes POSTed are the event's row, encoded
-- the same way at every attempt. The first attempt's outcome is written with the delivery.
create table lean.webhook_deliveries (
  id text primary key,
  endpoint_id text not null,
  event_id text not null,
  status text not null check (status in ('pending', 'succeeded', 'failed', 'canceled')),
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  retry_until timestamptz not null,
  claim_token text,
  last_attempt_at timestamptz,
  last_status_code integer,
  created_at timestamptz not null default now(),
  unique (event_id, endpoint_id)
);
create index on lean.webhook_deliveries (next_attempt_at) where status = 'pending';
create index on lean.webhook_deliveries (endpoint_id, created_at desc, id desc);
create table lean.webhook_delivery_attempts (like public.webhook_delivery_attempts including all,
  foreign key (delivery_id) references lean.webhook_deliveries (id));
`;

interface Followed {
  xid: string;
  seq: string;
}
type CommandRow = Followed & { payload: { payment_id: string } };
type EventRow = Followed & { id: string; type: string; merchant_id: string; data: unknown; created_at: Date };

export async function leanFlow({
  sql,
  topology,
  merchantId,
  endpointId,
  batch,
}: FloorContext): Promise<FloorFlow> {
  await sql.unsafe(LEAN_SCHEMA);
  const book = { mode: "test", chain: "solana", coin: "USDC" } as const;
  const accounts = await sql<{ id: string; kind: string; normal_side: string }[]>`
    insert into ledger_accounts (kind, merchant_id, mode, chain, coin, normal_side)
    values ('platform_vault', null, ${book.mode}, ${book.chain}, ${book.coin}, 'debit'),
           ('merchant_available', ${merchantId}, ${book.mode}, ${book.chain}, ${book.coin}, 'credit'),
           ('platform_fees', null, ${book.mode}, ${book.chain}, ${book.coin}, 'credit')
    returning id, kind, normal_side`;
  const account = (kind: string) => String(accounts.find((a) => a.kind === kind)!.id);
  // A relay per stream, as one process leads each in the cluster: a follower is never run twice at once.
  const relays = { commands: Promise.resolve(), events: Promise.resolve() };
  let derivation = 0;

  /** The checkout's read of a batch of payments with their current wallets. */
  function checkoutLoad(ids: string[]) {
    return sql<PaymentRow[]>`
      select p.*, m.business_name as merchant_business_name, w.address as wallet_address
      from lean.payments p left join merchants m on m.id = p.merchant_id
      left join lateral (
        select address from lean.deposit_wallets d
        where d.payment_id = p.id and d.address = p.state->'wallet'->>'address') w on true
      where p.id = any(${ids}::uuid[])`;
  }

  async function create(): Promise<string[]> {
    const states = Array.from({ length: batch }, () =>
      initialPaymentState({
        id: randomUUID(),
        mode: "test",
        currency: "USD",
        amount: 1000n,
        fee: 10n,
        usdRate: null,
        expiresAt: Date.now() + 3_600_000,
      }),
    );
    await sql`
      insert into lean.payments (id, merchant_id, mode, amount, currency, fee, status, state, expires_at)
      select p.id, ${merchantId}, p.mode, p.amount, p.currency, p.fee, p.status, p.state::jsonb, p.expires_at
      from unnest(${states.map((s) => s.id)}::uuid[], ${states.map((s) => s.mode)}::text[],
        ${states.map((s) => s.amount.toString())}::bigint[], ${states.map((s) => s.currency)}::text[],
        ${states.map((s) => s.fee.toString())}::bigint[], ${states.map((s) => s.status)}::text[],
        ${states.map((s) => JSON.stringify(serializePaymentState(s)))}::text[],
        ${states.map((s) => new Date(s.expiresAt).toISOString())}::timestamptz[])
        as p(id, mode, amount, currency, fee, status, state, expires_at)
      on conflict (id) do nothing`;
    return states.map((s) => s.id);
  }

  /** Generate-wallet for the batch: one read, then the wallets and the states in one statement. */
  async function generateWallets(ids: string[]) {
    const rows = await checkoutLoad(ids);
    const wallets = rows.map((row) => {
      const address = `floor${randomUUID().replaceAll("-", "")}`;
      const decision = decide(stateOf(row), floorWallet(address));
      return { row, address, index: derivation++, state: decision.state };
    });
    await sql`
      with wallet as (
        insert into lean.deposit_wallets (id, payment_id, mode, chain, coin, derivation_index, address, amount_due)
        select w.id, w.payment_id, 'test', 'solana', 'USDC', w.index, w.address, 10000000
        from unnest(${wallets.map(() => newId("dw"))}::text[], ${wallets.map((w) => w.row.id)}::uuid[],
          ${wallets.map((w) => w.index)}::bigint[], ${wallets.map((w) => w.address)}::text[])
          as w(id, payment_id, index, address)
        on conflict (payment_id, chain, coin) do nothing
        returning payment_id)
      update lean.payments p set state = v.state::jsonb, status = v.status, chain = 'solana', coin = 'USDC',
        version = p.version + 1, updated_at = now()
      from unnest(${wallets.map((w) => w.row.id)}::uuid[],
        ${wallets.map((w) => JSON.stringify(serializePaymentState(w.state)))}::text[],
        ${wallets.map((w) => w.state.status)}::text[], ${wallets.map((w) => w.row.version)}::int[])
        as v(id, state, status, version)
      where p.id = v.id and p.version = v.version and p.id in (select payment_id from wallet)`;
  }

  /** The simulate route for the batch: its read folds into the command's append. */
  function simulate(ids: string[]) {
    return sql`
      insert into lean.commands (id, subject, payload)
      select c.id, ${topology.subjects.paymentCommand("simulate")},
        jsonb_build_object('payment_id', p.id, 'message', '{"type":"simulate","outcome":"paid"}'::jsonb)
      from unnest(${ids.map(() => newId("cmd"))}::text[], ${ids}::uuid[]) as c(id, payment_id)
      join lean.payments p on p.id = c.payment_id
      where p.mode = 'test' and p.status = 'pending' and jsonb_typeof(p.state->'wallet') = 'object'`;
  }

  /** A relay's next batch past its cursor, below the oldest running transaction; the cursor moves once. */
  function follow<T extends Followed>(relay: "commands" | "events", columns: string): Promise<T[]> {
    const next = relays[relay].then(async () => {
      const [cursor] = await sql<Followed[]>`select xid, seq from lean.relay_cursors where relay = ${relay}`;
      const rows = await sql.unsafe<T[]>(
        `select xid, seq, ${columns} from lean.${relay}
         where (xid, seq) > ($1::xid8, $2::bigint) and xid < pg_snapshot_xmin(pg_current_snapshot())
         order by xid, seq limit 256`,
        [cursor!.xid, cursor!.seq],
      );
      const last = rows.at(-1);
      if (last)
        await sql`update lean.relay_cursors set xid = ${last.xid}::xid8, seq = ${last.seq} where relay = ${relay}`;
      return rows;
    });
    relays[relay] = next.then(
      () => undefined,
      () => undefined,
    );
    return next;
  }

  /** Settlement's step for a batch of commands: one statement per table, in one transaction. */
  async function settle(commands: CommandRow[]) {
    if (commands.length === 0) return;
    await sql.begin(async (tx) => {
      const ids = commands.map((c) => c.payload.payment_id);
      const rows = await tx<
        PaymentRow[]
      >`select * from lean.payments where id = any(${ids}::uuid[]) order by id for update`;
      const decided = rows
        .map((row) => ({ row, decision: decide(stateOf(row), { type: "simulate", outcome: "paid" }) }))
        .filter(({ decision }) => !decision.rejected);
      if (decided.length === 0) return;
      const shard = Math.floor(Math.random() * 16);
      await Promise.all([
        tx`update lean.payments p set state = v.state::jsonb, status = v.status, version = p.version + 1, updated_at = now()
          from unnest(${decided.map((d) => d.row.id)}::uuid[],
            ${decided.map((d) => JSON.stringify(serializePaymentState(d.decision.state)))}::text[],
            ${decided.map((d) => d.decision.state.status)}::text[]) as v(id, state, status)
          where p.id = v.id`,
        postTransfers(tx, transfersOf(decided), shard),
        insertEvents(tx, eventsOf(decided)),
      ]);
    });
  }

  type Transfer = {
    id: string;
    reference: string;
    payment: string;
    debit: string;
    credit: string;
    amount: bigint;
    linked: string | null;
  };
  function transfersOf(decided: { row: PaymentRow; decision: Decision }[]): Transfer[] {
    return decided.flatMap(({ row, decision }) =>
      decision.effects.filter(isCredit).flatMap((credit) => {
        const gross: Transfer = {
          id: newId("ltr"),
          reference: `payment:${row.id}:credit`,
          payment: row.id,
          debit: account("platform_vault"),
          credit: account("merchant_available"),
          amount: credit.gross,
          linked: null,
        };
        if (credit.fee === 0n) return [gross];
        const fee = {
          ...gross,
          id: newId("ltr"),
          reference: `payment:${row.id}:fee`,
          debit: account("merchant_available"),
          credit: account("platform_fees"),
          amount: credit.fee,
          linked: gross.id,
        };
        return [gross, fee];
      }),
    );
  }

  /** The transfers, and from what was posted (a replayed reference posts nothing), one upsert per account. */
  function postTransfers(tx: TransactionSql, transfers: Transfer[], shard: number) {
    return tx`
      with posted as (
        insert into lean.ledger_transfers (id, reference, kind, mode, chain, coin, merchant_id, payment_id,
          debit_account, credit_account, amount, linked_to)
        select t.id, t.reference, 'payment_credited', ${book.mode}, ${book.chain}, ${book.coin}, ${merchantId},
          t.payment_id, t.debit, t.credit, t.amount, t.linked
        from unnest(${transfers.map((t) => t.id)}::text[], ${transfers.map((t) => t.reference)}::text[],
          ${transfers.map((t) => t.payment)}::uuid[], ${transfers.map((t) => t.debit)}::bigint[],
          ${transfers.map((t) => t.credit)}::bigint[], ${transfers.map((t) => t.amount.toString())}::bigint[],
          ${transfers.map((t) => t.linked) as string[]}::text[])
          as t(id, reference, payment_id, debit, credit, amount, linked)
        on conflict (reference) do nothing
        returning debit_account, credit_account, amount),
      moves as (
        select a.id, sum(case when a.id = p.debit_account then p.amount else -p.amount end
                         * case when a.normal_side = 'debit' then 1 else -1 end) as movement
        from posted p join ledger_accounts a on a.id = p.debit_account or a.id = p.credit_account
        group by a.id)
      insert into lean.ledger_balances as b (account_id, shard, amount)
      select id, ${shard}, movement from moves
      on conflict (account_id, shard) do update set amount = b.amount + excluded.amount`;
  }

  type NewEvent = { id: string; type: string; payment: string; data: string; createdAt: string };
  function eventsOf(decided: { row: PaymentRow; decision: Decision }[]): NewEvent[] {
    return decided.flatMap(({ row, decision }) => {
      const after = {
        ...row,
        status: decision.state.status,
        state: serializePaymentState(decision.state),
        version: row.version + 1,
      };
      const data = JSON.stringify({ payment: toPaymentResource(after, "http://127.0.0.1") });
      const createdAt = new Date().toISOString();
      return decision.effects
        .filter((e): e is Extract<PaymentEffect, { type: "event" }> => e.type === "event")
        .map((e) => ({ id: newId("evt"), type: e.event, payment: row.id, data, createdAt }));
    });
  }

  function insertEvents(tx: TransactionSql, events: NewEvent[]) {
    return tx`
      insert into lean.events (id, merchant_id, mode, type, payment_id, data, created_at)
      select e.id, ${merchantId}, 'test', e.type, e.payment_id, e.data::jsonb, e.created_at
      from unnest(${events.map((e) => e.id)}::text[], ${events.map((e) => e.type)}::text[],
        ${events.map((e) => e.payment)}::uuid[], ${events.map((e) => e.data)}::text[],
        ${events.map((e) => e.createdAt)}::timestamptz[]) with ordinality as e(id, type, payment_id, data, created_at, ord)
      order by e.ord`;
  }

  /** The notifier: each event delivered, then its delivery and first attempt in one statement. */
  async function notify(events: EventRow[]) {
    if (events.length === 0) return;
    await sql`select id, merchant_id, mode, events from webhook_endpoints
      where merchant_id = any(${[merchantId]}::text[]) and deleted_at is null`;
    const started = new Date().toISOString();
    await sql`
      with delivered as (
        insert into lean.webhook_deliveries (id, endpoint_id, event_id, status, attempts, retry_until,
          last_attempt_at, last_status_code)
        select d.id, ${endpointId}, d.event_id, 'succeeded', 1, now() + interval '3 days', ${started}, 200
        from unnest(${events.map(() => newId("whd"))}::text[], ${events.map((e) => e.id)}::text[]) as d(id, event_id)
        on conflict (event_id, endpoint_id) do nothing
        returning id)
      insert into lean.webhook_delivery_attempts (delivery_id, attempt, started_at, status_code, latency_ms, response_excerpt)
      select id, 1, ${started}, 200, 3, 'ok' from delivered`;
  }

  const followCommands = () => follow<CommandRow>("commands", "payload");
  const followEvents = () => follow<EventRow>("events", "id, type, merchant_id, data, created_at");

  async function onwards(stage: Stage): Promise<number> {
    const commands = await followCommands();
    await settle(commands);
    const events = await followEvents();
    if (stage === "notifier") await notify(events);
    return commands.length + events.length;
  }

  return {
    async payments(stage) {
      const ids = await create();
      await generateWallets(ids);
      await simulate(ids);
      if (stage !== "api") await onwards(stage);
      return ids.length;
    },
    async drain(stage) {
      if (stage === "api") return;
      while ((await onwards(stage)) > 0) {}
    },
    async unfinished() {
      // The books too: each balance is the sum of its account's transfers, each payment credited once.
      const [books] = await sql<{ unbalanced: number; credited: number; completed: number }[]>`
        select
          (select count(*)::int from ledger_accounts a
           where (select coalesce(sum(amount), 0) from lean.ledger_balances b where b.account_id = a.id)
              <> (select coalesce(sum(case when t.debit_account = a.id then t.amount else -t.amount end), 0)
                  * case when a.normal_side = 'debit' then 1 else -1 end
                  from lean.ledger_transfers t where t.debit_account = a.id or t.credit_account = a.id)) as unbalanced,
          (select count(*)::int from lean.ledger_transfers where linked_to is null) as credited,
          (select count(*)::int from lean.payments where status = 'completed') as completed`;
      if (books!.unbalanced !== 0 || books!.credited !== books!.completed) {
        throw new Error(`lean books: ${JSON.stringify(books)}`);
      }
      const [open] = await sql<
        { n: number }[]
      >`select count(*)::int as n from lean.payments where status <> 'completed'`;
      return open!.n;
    },
  };
}

function isCredit(effect: PaymentEffect): effect is Extract<PaymentEffect, { type: "credit" }> {
  return effect.type === "credit";
}
