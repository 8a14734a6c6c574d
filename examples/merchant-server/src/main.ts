// GATEWAY_URL=http://localhost:3000 GATEWAY_API_KEY=gw_test_… GATEWAY_WEBHOOK_SECRET=whsec_… pnpm start
import { createShop } from "./shop.js";

const env = (name: string, fallback?: string) => {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(`set ${name}`);
  return value;
};
const port = Number(env("SHOP_PORT", "4000"));
const { app } = createShop({
  gatewayUrl: env("GATEWAY_URL", "http://localhost:3000"),
  apiKey: env("GATEWAY_API_KEY"),
  webhookSecret: () => env("GATEWAY_WEBHOOK_SECRET"),
  shopUrl: env("SHOP_URL", `http://localhost:${port}`),
});
app.listen(port, () => console.log(`shop listening on http://localhost:${port}`));
