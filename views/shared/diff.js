// Unified diffs as DOM: one row per line with old/new line numbers, additions and deletions
// marked, and characters a reader cannot see (bidi controls, zero-width, other controls)
// shown as ⟨U+XXXX⟩ so a diff cannot look like something it is not.
import { h } from "./card.js";

// Bidi embeddings/overrides/isolates, zero-width and joiners, soft hyphen, BOM, word
// joiners, the tag block, C0/C1 controls except tab.
const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]|\udb40[\udc00-\udc7f]/g;

/** Text as nodes, each hidden character replaced by a visible ⟨U+XXXX⟩ marker. */
export function visible(text) {
  const out = [];
  let last = 0;
  const source = String(text ?? "");
  for (const m of source.matchAll(HIDDEN)) {
    if (m.index > last) out.push(source.slice(last, m.index));
    const code = m[0].codePointAt(0).toString(16).toUpperCase().padStart(4, "0");
    out.push(h("span", { class: "hidden-char", title: "a character you could not see" }, `⟨U+${code}⟩`));
    last = m.index + m[0].length;
  }
  if (last < source.length) out.push(source.slice(last));
  return out;
}

export function countHidden(text) {
  return (String(text ?? "").match(HIDDEN) || []).length;
}

/** +/- line counts of a unified diff (file headers left out). */
export function countLines(patch) {
  let added = 0;
  let removed = 0;
  for (const line of String(patch || "").split("\n")) {
    if (line.startsWith("+++") || line.startsWith("---")) continue;
    if (line.startsWith("+")) added += 1;
    else if (line.startsWith("-")) removed += 1;
  }
  return { added, removed };
}

/** A unified diff (one file's patch, or several with `diff --git` headers) as a table. */
export function renderPatch(patch) {
  const rows = [];
  let oldLine = 0;
  let newLine = 0;
  for (const line of String(patch || "").replace(/\n$/, "").split("\n")) {
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    let kind = "ctx";
    let left = "";
    let right = "";
    if (hunk) {
      oldLine = Number(hunk[1]);
      newLine = Number(hunk[2]);
      kind = "hunk";
    } else if (/^(diff --git|index |--- |\+\+\+ |new file|deleted file|similarity|rename |old mode|new mode)/.test(line)) {
      kind = "head";
    } else if (line.startsWith("+")) {
      kind = "add";
      right = newLine++;
    } else if (line.startsWith("-")) {
      kind = "del";
      left = oldLine++;
    } else if (!line.startsWith("\\")) {
      left = oldLine++;
      right = newLine++;
    }
    rows.push(
      h("tr", { class: kind }, h("td", { class: "ln" }, String(left)), h("td", { class: "ln" }, String(right)), h("td", { class: "code" }, visible(line))),
    );
  }
  return h("table", { class: "diff" }, h("tbody", {}, rows));
}
