// The local runner's price feeds: point PRICE_PYTH_URL, PRICE_COINBASE_URL and PRICE_KRAKEN_URL
// at it, and move prices with its control API (see README.md).
import { loadConfigOrExit, logLevel, port } from "@gateway/config";
import { createLogger } from "@gateway/logging";
import { onShutdown } from "@gateway/service-runtime";
import { z } from "zod";
import { createPriceServer } from "./price-server.js";

const decimal = z.string().regex(/^\d{1,12}(\.\d{1,12})?$/, "a plain decimal such as 151.25");
const config = loadConfigOrExit(
  "price-server",
  z.object({
    PRICE_SERVER_PORT: port(8090),
    PRICE_SERVER_HOST: z.string().default("127.0.0.1"),
    PRICE_SERVER_SOL_USD: decimal.default("150.00"),
    PRICE_SERVER_SUI_USD: decimal.default("3.50"),
    LOG_LEVEL: logLevel,
  }),
);
const log = createLogger({ name: "price-server", level: config.LOG_LEVEL });
const server = await createPriceServer({
  host: config.PRICE_SERVER_HOST,
  port: config.PRICE_SERVER_PORT,
  prices: { SOL: config.PRICE_SERVER_SOL_USD, SUI: config.PRICE_SERVER_SUI_USD },
});
log.info({ url: server.url, sources: server.sourceUrls }, "price server listening");
onShutdown(log, [() => server.close()]);
