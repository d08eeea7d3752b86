// Bundles each card (views/<name>/main.js, its style.css and shared/base.css) into ONE
// self-contained HTML file: inline script and style, nothing loaded from anywhere.
//
//   node build.mjs                      cards -> ../github_mcp/apps/views/<name>.html
//   node build.mjs --out DIR            cards -> DIR (the freshness test compares)
//   node build.mjs --host DIR           the local test host (host/) -> DIR
//   --modules DIR                       resolve packages from DIR (a cache) not ./node_modules
import { readFileSync, readdirSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const option = (name) => {
  const at = args.indexOf(name);
  return at >= 0 ? resolve(args[at + 1]) : null;
};
const modules = option("--modules") ?? join(HERE, "node_modules");
const require = createRequire(join(modules, "noop.js"));
const esbuild = await import(pathToFileURL(require.resolve("esbuild")).href);

// Not cards: shared code, the test host, and npm's own folder.
const NOT_CARDS = new Set(["shared", "host", "node_modules"]);

// zod (the SDK's schema library) re-exports every one of its ~50 locales through a namespace
// that tree-shaking cannot see through: about 260 KB per card. A card never shows zod's
// messages to anyone, so only English (what zod itself configures) is bundled.
const zodEnglishOnly = {
  name: "zod-english-only",
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]/.test(args.importer)
        ? { path: join(dirname(args.importer), "..", "locales", "index.js"), namespace: "zod-en" }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "zod-en" }, (args) => ({
      contents: 'export { default as en } from "./en.js";',
      resolveDir: dirname(args.path),
    }));
  },
};

async function bundle(entry) {
  const result = await esbuild.build({
    plugins: [zodEnglishOnly],
    entryPoints: [entry],
    bundle: true,
    minify: true,
    treeShaking: true,
    format: "iife",
    target: "es2020",
    platform: "browser",
    legalComments: "none",
    nodePaths: [modules],
    define: { "process.env.NODE_ENV": '"production"' },
    write: false,
    logLevel: "error",
  });
  // Inside an inline <script>, "</script" would end it; in the minified code it can only
  // occur within a string, where "<\/" means the same.
  return result.outputFiles[0].text.replace(/<\/(script)/gi, "<\\/$1");
}

function licenceNote() {
  const names = ["@modelcontextprotocol/ext-apps", "@modelcontextprotocol/core", "zod"];
  const parts = names.map((name) => {
    const pkg = JSON.parse(readFileSync(join(modules, name, "package.json"), "utf8"));
    return `${name}@${pkg.version} (${pkg.license})`;
  });
  return `Bundles ${parts.join(", ")}`;
}

function page(name, title, css, js, note) {
  return [
    "<!doctype html>",
    `<html lang="en"><head><meta charset="utf-8">`,
    `<meta name="viewport" content="width=device-width,initial-scale=1">`,
    `<meta name="color-scheme" content="light dark">`,
    `<title>${title}</title>`,
    `<!-- github-mcp-controller card "${name}". ${note}. -->`,
    `<style>${css}</style></head>`,
    `<body><main id="app" aria-live="polite"><p class="muted">Waiting for the tool result…</p></main>`,
    `<script>${js}</script></body></html>`,
    "",
  ].join("\n");
}

async function buildCards(outDir) {
  mkdirSync(outDir, { recursive: true });
  const base = readFileSync(join(HERE, "shared", "base.css"), "utf8");
  const note = licenceNote();
  const built = [];
  for (const name of readdirSync(HERE).sort()) {
    const dir = join(HERE, name);
    if (NOT_CARDS.has(name) || !existsSync(join(dir, "main.js"))) continue;
    const meta = JSON.parse(readFileSync(join(dir, "card.json"), "utf8"));
    const own = existsSync(join(dir, "style.css")) ? readFileSync(join(dir, "style.css"), "utf8") : "";
    const css = (await esbuild.transform(base + own, { loader: "css", minify: true })).code;
    const js = await bundle(join(dir, "main.js"));
    const html = page(name, meta.title, css.trim(), js.trim(), note);
    writeFileSync(join(outDir, `${name}.html`), html);
    built.push(`${name}.html ${(Buffer.byteLength(html) / 1024).toFixed(1)} KB`);
  }
  console.log(built.join("\n"));
}

async function buildHost(outDir) {
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, "host.js"), await bundle(join(HERE, "host", "host.js")));
  for (const file of ["index.html", "sandbox.html"]) {
    writeFileSync(join(outDir, file), readFileSync(join(HERE, "host", file)));
  }
  console.log(`host -> ${outDir}`);
}

const hostDir = option("--host");
if (hostDir) await buildHost(hostDir);
else await buildCards(option("--out") ?? join(HERE, "..", "github_mcp", "apps", "views"));
