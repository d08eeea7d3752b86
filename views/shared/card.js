// What every card shares: the connection to the host (ext-apps' App), theme and size from
// the host context, and a DOM builder that only ever sets text (never HTML), so text
// from GitHub cannot become markup.
import {
  App,
  applyDocumentTheme,
  applyHostFonts,
  applyHostStyleVariables,
} from "@modelcontextprotocol/ext-apps";

/** h("a", {href, class}, child...) -> an element; strings become text nodes. */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Only http(s) links are followed; anything else (javascript:, data:) is dropped. */
export function safeUrl(url) {
  try {
    const parsed = new URL(String(url));
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.href : null;
  } catch {
    return null;
  }
}

export function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function applyContext(ctx) {
  if (!ctx) return;
  if (ctx.theme) applyDocumentTheme(ctx.theme);
  if (ctx.styles?.variables) applyHostStyleVariables(ctx.styles.variables);
  if (ctx.styles?.css?.fonts) applyHostFonts(ctx.styles.css.fonts);
  const dims = ctx.containerDimensions;
  const root = document.documentElement.style;
  if (dims && "maxWidth" in dims && dims.maxWidth) root.maxWidth = `${dims.maxWidth}px`;
  if (dims && "height" in dims) root.height = "100vh";
}

// On a result a card renders: tool name -> whether this session can call it (apps/wiring.py).
const CALLABLE_META = "io.github.github-mcp-controller/card-calls";

/**
 * Start a card: `render(card, result, input)` draws a tool result into #app. `card` gives
 * the renderer the host's services: call a tool, open a link, say something to the chat.
 * With `acceptErrors`, error results reach `render` too (a refusal can carry a card).
 */
export async function startCard(name, render, { acceptErrors = false } = {}) {
  const app = new App({ name: `github-mcp ${name}`, version: "1.0.0" }, {}, { autoResize: true });
  const root = document.getElementById("app");
  let input = {};
  let callable = null; // the server's word on which tools this session lets the card call
  const card = {
    app,
    /** Whether this session can call `tool` (the server says so on the result it renders;
     * a result that does not say leaves every button in place). */
    can: (tool) => !callable || callable[tool] === true,
    callTool: (tool, args) => app.callServerTool({ name: tool, arguments: args }),
    openLink: (url) => {
      const safe = safeUrl(url);
      return safe ? app.openLink({ url: safe }) : Promise.resolve();
    },
    tell: (text) => app.sendMessage({ role: "user", content: [{ type: "text", text }] }),
    show: (node) => root.replaceChildren(node),
    rerender: (result) => draw(result),
  };
  const draw = (result) => {
    callable = result?._meta?.[CALLABLE_META] || null;
    try {
      if (!acceptErrors && (result.isError || !result.structuredContent)) {
        card.show(errorBox(result));
      } else {
        render(card, result.structuredContent, input, result);
      }
    } catch (err) {
      card.show(h("p", { class: "error" }, `This card could not show the result: ${err}`));
    }
  };
  app.ontoolinput = (params) => {
    input = params.arguments || {};
  };
  app.ontoolresult = draw;
  app.onhostcontextchanged = applyContext;
  app.ontoolcancelled = () => card.show(h("p", { class: "muted" }, "The tool call was cancelled."));
  await app.connect();
  applyContext(app.getHostContext());
  return card;
}

export function errorBox(result) {
  const envelope = result.structuredContent?.error;
  const text = envelope
    ? `${envelope.code}: ${envelope.message}`
    : (result.content || []).map((c) => c.text || "").join("\n");
  return h(
    "div",
    { class: "error", role: "alert" },
    h("strong", {}, "The tool answered with an error"),
    h("p", {}, text),
    envelope?.hint ? h("p", { class: "muted" }, envelope.hint) : null,
  );
}

/** The structured content of a tool result called from the card, or throw its error.
 * A write waiting for a human's approval throws with `approvalUrl`: the server's approval
 * page, which stays the authority (the card only opens it and then retries). */
export function payload(result) {
  const data = result?.structuredContent;
  if (result?.isError) {
    const envelope = data?.error;
    const err = new Error(envelope ? `${envelope.code}: ${envelope.message}` : "the tool failed");
    err.approvalUrl = safeUrl(envelope?.approval_url || "") || null;
    throw err;
  }
  return data || {};
}
