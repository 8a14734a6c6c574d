import { writeFileSync } from "node:fs";
import { renderManifests } from "./render.js";

writeFileSync(new URL("./gateway.yaml", import.meta.url), renderManifests());
