// A bundle's `import.meta.url` is the bundle's own address, so a module that finds files beside
// itself (migrations, the front-end pages' sources) would look in dist/. This esbuild plugin
// rewrites `import.meta.{url,dirname,filename}` in our own modules to the module's original
// address, written relative to the bundle and through the package's node_modules, so it holds
// wherever the package folder is copied with its dependencies (the repository, a Docker image).
import { existsSync, readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import type { Plugin } from "esbuild";

const IMPORT_META = /\bimport\.meta\.(url|dirname|filename)\b/g;
const USES_IMPORT_META = /\bimport\.meta\.(url|dirname|filename)\b/;

/** The folder of the nearest package.json above `file`, and that package's name. */
function owningPackage(file: string): { dir: string; name: string } {
  let dir = path.dirname(file);
  while (dir !== path.dirname(dir)) {
    const manifest = path.join(dir, "package.json");
    if (existsSync(manifest)) return { dir, name: JSON.parse(readFileSync(manifest, "utf8")).name };
    dir = path.dirname(dir);
  }
  throw new Error(`${file} is in no package`);
}

/**
 * Where `file` is as seen from the package being built: in its own folder, or under its
 * node_modules when the package depends on the file's package (so the address holds in an image
 * made by `pnpm deploy`). Otherwise the file's place in the repository: a module bundled only
 * through another package (the migrations' folder, named by every user of @gateway/db) is
 * found there when it is read at all.
 */
export function addressFromPackage(packageDir: string, file: string): string {
  if (!path.relative(packageDir, file).startsWith("..")) return file;
  const owner = owningPackage(file);
  const seen = path.join(packageDir, "node_modules", owner.name, path.relative(owner.dir, file));
  return existsSync(seen) && realpathSync(seen) === realpathSync(file) ? seen : file;
}

export function importMetaPlugin(packageDir: string, outDir: string): Plugin {
  return {
    name: "import-meta-at-source",
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, (args) => {
        if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
        const source = readFileSync(args.path, "utf8");
        if (!USES_IMPORT_META.test(source)) return undefined;
        const relative = path
          .relative(outDir, addressFromPackage(packageDir, args.path))
          .split(path.sep)
          .join("/");
        const url = `new URL(${JSON.stringify(relative)}, import.meta.url)`;
        const contents = source.replace(IMPORT_META, (_match, field: string) => {
          if (field === "url") return `${url}.href`;
          if (field === "filename") return `__gwFileURLToPath(${url})`;
          return `__gwDirname(__gwFileURLToPath(${url}))`;
        });
        const helpers =
          'import { fileURLToPath as __gwFileURLToPath } from "node:url";\nimport { dirname as __gwDirname } from "node:path";\n';
        return { contents: helpers + contents, loader: "ts" };
      });
    },
  };
}
