// What each public price feed answers, in its own format. Prices are decimal strings as the
// control API received them; nothing here goes through a float.

/** Pyth's SOL/USD and SUI/USD price feed ids (mainnet, without the 0x Hermes drops). */
export const PYTH_FEED_IDS = {
  SOL: "ef0d8b6fda2ceba41da15d4095d1da392a0d2f8ed0c6c7bc0f4cfac8c280b56d",
  SUI: "23d7315113f5b1d3ba7a83604c44b94d79f4fd69af77f804fc7f920a6dc65744",
} as const;

export type FeedCoin = keyof typeof PYTH_FEED_IDS;
export const FEED_COINS = Object.keys(PYTH_FEED_IDS) as FeedCoin[];

/** Kraken's pair names; its answer keys the result by the same name for these pairs. */
export const KRAKEN_PAIRS: Record<FeedCoin, string> = { SOL: "SOLUSD", SUI: "SUIUSD" };

const PYTH_EXPO = -8;

/**
 * "150.12" as Pyth's integer mantissa at expo -8 ("15012000000"). A value that is not a plain
 * decimal (a test's "garbage" price) is passed through, so the client sees it as sent.
 */
export function pythMantissa(usd: string): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(usd);
  if (!match) return usd;
  const fraction = (match[3] ?? "").padEnd(-PYTH_EXPO, "0").slice(0, -PYTH_EXPO);
  const digits = `${match[2]}${fraction}`.replace(/^0+(?=\d)/, "");
  return `${match[1]}${digits}`;
}

/** Hermes `GET /v2/updates/price/latest?ids[]=…`: one parsed entry per known id asked for. */
export function hermesLatest(entries: { id: string; usd: string; publishTime: number }[]) {
  const parsed = entries.map(({ id, usd, publishTime }) => {
    const price = pythMantissa(usd);
    // Confidence of 0.05% of the price, as liquid feeds usually show.
    const conf = /^\d+$/.test(price) ? (BigInt(price) / 2000n).toString() : "0";
    const body = { price, conf, expo: PYTH_EXPO, publish_time: publishTime };
    return {
      id,
      price: body,
      ema_price: body,
      metadata: {
        slot: publishTime * 2,
        proof_available_time: publishTime + 1,
        prev_publish_time: publishTime - 1,
      },
    };
  });
  // Hermes also returns the signed update for on-chain use; this server has no Wormhole
  // signatures, so the blob is the parsed prices in hex (clients that verify it must not use us).
  const data = Buffer.from(JSON.stringify(parsed)).toString("hex");
  return { binary: { encoding: "hex", data: [data] }, parsed };
}

/** Coinbase `GET /v2/prices/SOL-USD/spot`. */
export function coinbaseSpot(coin: FeedCoin, usd: string) {
  return { data: { amount: usd, base: coin, currency: "USD" } };
}

/** Kraken `GET /0/public/Ticker?pair=SOLUSD`. */
export function krakenTicker(pair: string, usd: string) {
  const volume = ["12345.67890123", "23456.78901234"];
  return {
    error: [],
    result: {
      [pair]: {
        a: [usd, "12", "12.000"],
        b: [usd, "7", "7.000"],
        c: [usd, "0.50000000"],
        v: volume,
        p: [usd, usd],
        t: [4821, 9377],
        l: [usd, usd],
        h: [usd, usd],
        o: usd,
      },
    },
  };
}
