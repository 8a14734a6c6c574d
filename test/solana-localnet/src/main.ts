// Starts the local Solana network for the local runner: config → network → stop on signal.
import { ConfigError, loadConfig } from "./config.js";
import { createSolanaLocalnet } from "./localnet.js";

async function main(): Promise<void> {
  const net = await createSolanaLocalnet(loadConfig(process.env));
  const info = net.info();
  console.log(
    JSON.stringify({
      msg: "solana localnet listening",
      rpcUrl: net.rpcUrl,
      wsUrl: net.wsUrl,
      mints: net.mints,
      slotMs: info.slotMs,
      finalitySlots: info.finalitySlots,
      blockhashExpirySlots: info.blockhashExpirySlots,
    }),
  );
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void net.close().then(() => process.exit(0));
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
