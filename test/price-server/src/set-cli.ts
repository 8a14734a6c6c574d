// `pnpm --filter @gateway/price-server set SOL 162.40`: moves a price on a running price server
// (PRICE_SERVER_URL, default the local runner's http://127.0.0.1:8090).
const [coin, usd] = process.argv.slice(2);
const base = process.env.PRICE_SERVER_URL ?? "http://127.0.0.1:8090";
if (!coin || !usd) {
  process.stderr.write("usage: set <SOL|SUI> <usd>, e.g. set SOL 162.40\n");
  process.exit(64);
}
const response = await fetch(`${base}/control/prices/${encodeURIComponent(coin)}`, {
  method: "PUT",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ usd }),
});
process.stdout.write(`${response.status} ${await response.text()}\n`);
process.exit(response.ok ? 0 : 1);
