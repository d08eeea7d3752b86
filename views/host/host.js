// A small MCP Apps host for local viewing and the browser tests: an MCP client (streamable
// HTTP, declaring the UI extension) to the server this page is served by, and ext-apps'
// AppBridge rendering a tool's card through a sandbox proxy on another origin.
// window.cardHost is what tests drive: show(tool, args), setTheme(), and a log of what
// the card asked for (tool calls, links, messages).
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  AppBridge,
  PostMessageTransport,
  getToolUiResourceUri,
  isToolVisibilityModelOnly,
} from "@modelcontextprotocol/ext-apps/app-bridge";

const UI = "io.modelcontextprotocol/ui";
const MIME = "text/html;profile=mcp-app";
const fragment = new URLSearchParams(location.hash.slice(1));
const log = { calls: [], results: [], links: [], messages: [], logs: [], contexts: [] };
let theme = fragment.get("theme") === "dark" ? "dark" : "light";
let current = null;

async function connect() {
  const client = new Client(
    { name: "github-mcp local card host", version: "1.0.0" },
    { capabilities: { extensions: { [UI]: { mimeTypes: [MIME] } } } },
  );
  const headers = fragment.get("token") ? { Authorization: `Bearer ${fragment.get("token")}` } : {};
  await client.connect(
    new StreamableHTTPClientTransport(new URL("/mcp", location.origin), { requestInit: { headers } }),
  );
  const { tools } = await client.listTools();
  return { client, tools: new Map(tools.map((t) => [t.name, t])) };
}

const ready = connect();

function hostContext() {
  return {
    theme,
    displayMode: "inline",
    availableDisplayModes: ["inline"],
    containerDimensions: { maxWidth: 760, maxHeight: 4000 },
    locale: "en-GB",
    platform: "web",
    userAgent: "github-mcp local card host",
  };
}

// The sandbox proxy lives on the other loopback name, so it is another origin than this page.
function sandboxUrl() {
  const other = location.hostname === "localhost" ? "127.0.0.1" : "localhost";
  return `${location.protocol}//${other}:${location.port}${location.pathname.replace(/[^/]*$/, "")}sandbox.html`;
}

async function mount(html, csp) {
  if (current) await current.bridge.close().catch(() => {});
  const frame = document.createElement("iframe");
  frame.setAttribute("sandbox", "allow-scripts allow-same-origin");
  frame.title = "card";
  document.getElementById("frame-box").replaceChildren(frame);
  const { client, tools } = await ready;
  const bridge = new AppBridge(
    null,
    { name: "github-mcp local card host", version: "1.0.0" },
    { openLinks: {}, serverTools: {}, serverResources: {}, logging: {}, message: { text: {} } },
    { hostContext: hostContext() },
  );
  bridge.oncalltool = async (params) => {
    const tool = tools.get(params.name);
    // The spec: a host refuses a card's call to a tool whose visibility excludes "app".
    if (!tool || isToolVisibilityModelOnly(tool)) throw new Error(`${params.name} is not for apps`);
    log.calls.push({ name: params.name, arguments: params.arguments || {} });
    const result = await client.callTool(params);
    log.results.push({ name: params.name, result });
    render();
    return result;
  };
  bridge.onreadresource = (params) => client.readResource(params);
  bridge.onopenlink = async ({ url }) => {
    log.links.push(url);
    render();
    if (fragment.get("open") === "1") window.open(url, "_blank", "noopener");
    return {};
  };
  bridge.onmessage = async (params) => {
    log.messages.push(params);
    render();
    return {};
  };
  bridge.onloggingmessage = (params) => log.logs.push(params);
  bridge.onupdatemodelcontext = async (params) => {
    log.contexts.push(params);
    return {};
  };
  bridge.onsizechange = ({ height }) => {
    if (height) frame.style.height = `${Math.ceil(height) + 2}px`;
  };
  const proxyReady = new Promise((resolve) => (bridge.onsandboxready = resolve));
  const initialized = new Promise((resolve) => (bridge.oninitialized = resolve));
  frame.src = sandboxUrl();
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  await proxyReady;
  await bridge.sendSandboxResourceReady({ html, csp });
  await initialized;
  current = { bridge, frame };
  return bridge;
}

/** Call `name` as the model would, then render its card with the input and the result. */
async function show(name, args = {}) {
  const { client, tools } = await ready;
  const tool = tools.get(name);
  const uri = tool && getToolUiResourceUri(tool);
  if (!uri) throw new Error(`${name} is not linked to a card`);
  const result = await client.callTool({ name, arguments: args });
  const [content] = (await client.readResource({ uri })).contents;
  if (content.mimeType !== MIME) throw new Error(`${uri} is ${content.mimeType}`);
  const bridge = await mount(content.text, content._meta?.ui?.csp);
  await bridge.sendToolInput({ arguments: args });
  await bridge.sendToolResult(result);
  return result;
}

async function setTheme(next) {
  theme = next;
  document.body.classList.toggle("dark", theme === "dark");
  if (current) await current.bridge.sendHostContextChange({ theme });
}

function render() {
  const lines = [
    ...log.calls.map((c) => `tools/call ${c.name} ${JSON.stringify(c.arguments)}`),
    ...log.links.map((l) => `open link ${l}`),
    ...log.messages.map((m) => `message ${JSON.stringify(m.content)}`),
  ];
  document.getElementById("log").textContent = lines.join("\n");
}

async function setUp() {
  document.body.classList.toggle("dark", theme === "dark");
  const state = document.getElementById("state");
  try {
    const { tools } = await ready;
    const select = document.getElementById("tool");
    for (const [name, tool] of tools) {
      if (getToolUiResourceUri(tool) && !tool._meta?.ui?.visibility?.every((v) => v === "app")) {
        select.append(new Option(name, name));
      }
    }
    state.textContent = "connected";
  } catch (err) {
    state.textContent = `not connected: ${err}`;
  }
  document.getElementById("call").onclick = async () => {
    try {
      await show(document.getElementById("tool").value, JSON.parse(document.getElementById("args").value));
    } catch (err) {
      state.textContent = String(err);
    }
  };
  document.getElementById("theme").onclick = () => setTheme(theme === "dark" ? "light" : "dark");
}

window.cardHost = { ready, show, setTheme, log };
setUp();
