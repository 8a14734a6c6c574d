#!/usr/bin/env node
// The `gateway` command: runs the TypeScript sources through tsx, as the services run.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/main.ts");
process.exitCode = await main(process.argv.slice(2), process.env);
