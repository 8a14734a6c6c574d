// The merchant dashboard, for the API that serves it: its HTML shell, and where the browser files
// are that the API bundles (client/, assets/).
import type { PageFiles } from "@gateway/web-kit";

export { dashboardShell } from "./shell.js";

export const DASHBOARD_FILES: PageFiles = {
  script: new URL("./client/main.ts", import.meta.url),
  style: new URL("./assets/dashboard.css", import.meta.url),
  favicon: new URL("./assets/favicon.svg", import.meta.url),
};
