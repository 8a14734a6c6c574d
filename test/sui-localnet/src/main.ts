// Runs the local Sui network as a process: `pnpm --filter @gateway/sui-localnet start`.
import { loadConfig } from "./config.js";
import { createSuiLocalnet } from "./localnet.js";

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig(process.env);
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}

const net = await createSuiLocalnet(config);
const info = net.info();
console.log(
  JSON.stringify({
    msg: "sui localnet listening",
    url: net.url,
    chainId: info.chainId,
    checkpointIntervalMs: info.checkpointIntervalMs,
    coins: info.coins,
  }),
);

const stop = async () => {
  await net.close();
  process.exit(0);
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
