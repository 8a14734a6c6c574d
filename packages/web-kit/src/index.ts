export { BASE_STYLE, type PageFiles } from "./page-files.js";
export { type AssetLinks, escapeHtml, pageHead } from "./page-head.js";
