// The package is its one module: everything signature.ts exports is public.
export * from "./signature.js";
