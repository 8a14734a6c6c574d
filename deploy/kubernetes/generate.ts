import { readFileSync, writeFileSync } from "node:fs";
import { withComposeWatchers } from "../compose-watchers.js";
import { renderManifests } from "./render.js";

writeFileSync(new URL("./gateway.yaml", import.meta.url), renderManifests());
const compose = new URL("../compose.yaml", import.meta.url);
writeFileSync(compose, withComposeWatchers(readFileSync(compose, "utf8")));
