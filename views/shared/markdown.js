// A small Markdown renderer that builds DOM nodes from text: headings, paragraphs, lists,
// quotes, fenced code, `code`, **bold**, *emphasis* and [links](http...). Raw HTML in the
// source stays visible text; a link is kept only for http(s) URLs.
import { h, safeUrl } from "./card.js";

const INLINE = /(`[^`]+`)|(\*\*[^*]+\*\*)|(\*[^*\s][^*]*\*|_[^_\s][^_]*_)|(\[[^\]]+\]\([^)\s]+\))/;

export function inline(text) {
  const out = [];
  let rest = String(text);
  while (rest) {
    const m = INLINE.exec(rest);
    if (!m) {
      out.push(rest);
      break;
    }
    if (m.index) out.push(rest.slice(0, m.index));
    const [token] = m;
    if (m[1]) out.push(h("code", {}, token.slice(1, -1)));
    else if (m[2]) out.push(h("strong", {}, inline(token.slice(2, -2))));
    else if (m[3]) out.push(h("em", {}, inline(token.slice(1, -1))));
    else {
      const label = token.slice(1, token.indexOf("]("));
      const url = safeUrl(token.slice(token.indexOf("](") + 2, -1));
      out.push(url ? h("a", { href: url, rel: "noopener noreferrer", target: "_blank" }, label) : label);
    }
    rest = rest.slice(m.index + token.length);
  }
  return out;
}

/** Markdown text -> a <div class="md"> of safe nodes. */
export function markdown(source) {
  const lines = String(source || "").replace(/\r\n?/g, "\n").split("\n");
  const root = h("div", { class: "md" });
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (/^```/.test(line)) {
      const code = [];
      for (i += 1; i < lines.length && !/^```/.test(lines[i]); i += 1) code.push(lines[i]);
      root.append(h("pre", {}, h("code", {}, code.join("\n"))));
      i += 1;
    } else if (/^#{1,6}\s/.test(line)) {
      root.append(h("p", { class: "md-heading" }, h("strong", {}, inline(line.replace(/^#+\s*/, "")))));
      i += 1;
    } else if (/^\s*([-*+]|\d+[.)])\s+/.test(line)) {
      const ordered = /^\s*\d/.test(line);
      const list = h(ordered ? "ol" : "ul", {});
      for (; i < lines.length && /^\s*([-*+]|\d+[.)])\s+/.test(lines[i]); i += 1) {
        list.append(h("li", {}, inline(lines[i].replace(/^\s*([-*+]|\d+[.)])\s+/, ""))));
      }
      root.append(list);
    } else if (/^>/.test(line)) {
      const quoted = [];
      for (; i < lines.length && /^>/.test(lines[i]); i += 1) quoted.push(lines[i].replace(/^>\s?/, ""));
      root.append(h("blockquote", {}, inline(quoted.join(" "))));
    } else if (!line.trim()) {
      i += 1;
    } else {
      const para = [];
      for (; i < lines.length && lines[i].trim() && !/^(```|#{1,6}\s|>|\s*([-*+]|\d+[.)])\s)/.test(lines[i]); i += 1) {
        para.push(lines[i]);
      }
      root.append(h("p", {}, inline(para.join(" "))));
    }
  }
  return root;
}
