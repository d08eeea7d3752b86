// A client that supports form elicitation only (as clients did before URL mode): the
// TypeScript MCP SDK's Client, declaring `elicitation: {form: {}}`.
// Usage: node form_only_client.mjs <sdk dir> <mcp url> <bearer token> <tool> <args json> <answer>...
// Each form the server sends is answered with the next answer (as the `value` field) and
// recorded; it prints one JSON line: {"prompts": [{mode, message}], "result": <tool result>}.
import { pathToFileURL } from "node:url";
import path from "node:path";

const [sdkDir, mcpUrl, token, tool, args, ...answers] = process.argv.slice(2);
const load = (sub) => import(pathToFileURL(path.join(sdkDir, "dist/esm", sub)).href);
const { Client } = await load("client/index.js");
const { StreamableHTTPClientTransport } = await load("client/streamableHttp.js");
const { ElicitRequestSchema } = await load("types.js");

const client = new Client(
  { name: "form-only test client", version: "1.0.0" },
  { capabilities: { elicitation: { form: {} } } },
);
const prompts = [];
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  prompts.push({ mode: request.params.mode ?? "form", message: request.params.message });
  const value = answers.shift();
  return value === undefined ? { action: "decline" } : { action: "accept", content: { value } };
});
const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
await client.connect(transport);
const result = await client.callTool({ name: tool, arguments: JSON.parse(args) });
process.stdout.write(JSON.stringify({ prompts, result }) + "\n");
await client.close();
