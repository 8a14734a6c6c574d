/** Where one page's browser files are, for the server that bundles and serves them. */
export interface PageFiles {
  /** The script's entry point, bundled with everything it imports. */
  script: URL;
  /** The page's own rules, served after BASE_STYLE in one stylesheet. */
  style: URL;
  favicon: URL;
}

/** The rules both pages share, at the head of each page's stylesheet. */
export const BASE_STYLE = new URL("./assets/base.css", import.meta.url);
