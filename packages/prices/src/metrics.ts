// Prometheus view of the price service: each source's age per coin, the spread between fresh
// sources, whether a price is available, and how often each source failed.
import { prom, type Registry } from "@gateway/metrics";
import { median, spreadBps } from "./aggregate.js";
import type { PriceService } from "./price-service.js";

export function priceMetrics(registry: Registry, prices: PriceService, maxAgeSeconds: number): void {
  new prom.Gauge({
    name: "gateway_price_source_age_seconds",
    help: "Age of each source's last good reading, per coin",
    labelNames: ["source", "coin"],
    registers: [registry],
    collect() {
      this.reset();
      const now = prices.now();
      for (const status of prices.status()) {
        for (const reading of status.readings) {
          this.set({ source: status.source, coin: reading.coin }, (now - reading.at) / 1000);
        }
      }
    },
  });
  new prom.Gauge({
    name: "gateway_price_spread_bps",
    help: "Spread (max - min) / median of the fresh sources, in basis points",
    labelNames: ["coin"],
    registers: [registry],
    collect() {
      this.reset();
      const now = prices.now();
      for (const coin of prices.coins) {
        const fresh = prices
          .status()
          .flatMap((s) => s.readings)
          .filter((r) => r.coin === coin && now - r.at <= maxAgeSeconds * 1000)
          .map((r) => r.micros)
          .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        if (fresh.length >= 2) this.set({ coin }, Number(spreadBps(fresh, median(fresh))));
      }
    },
  });
  new prom.Gauge({
    name: "gateway_price_available",
    help: "1 when live requests can be priced in the coin, 0 when they get price_unavailable",
    labelNames: ["coin"],
    registers: [registry],
    collect() {
      for (const coin of prices.coins) this.set({ coin }, prices.price(coin).ok ? 1 : 0);
    },
  });
  new prom.Gauge({
    name: "gateway_price_usd",
    help: "The price in use (median of fresh sources), USD per coin; absent while unavailable",
    labelNames: ["coin"],
    registers: [registry],
    collect() {
      this.reset();
      for (const coin of prices.coins) {
        const verdict = prices.price(coin);
        // A float only for the dashboard: money never reads this.
        if (verdict.ok) this.set({ coin }, Number(verdict.price.micros) / 1e6);
      }
    },
  });
  new prom.Gauge({
    name: "gateway_price_source_failures",
    help: "Refresh rounds in which a source failed or refused a coin, since start",
    labelNames: ["source"],
    registers: [registry],
    collect() {
      for (const status of prices.status())
        this.set({ source: status.source }, prices.failures(status.source));
    },
  });
}
