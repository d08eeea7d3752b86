// The TypeScript MCP SDK's own OAuth client, driven by tests/oauth/test_npm_clients.py.
// Usage: node ts_sdk_client.mjs <sdk dir> <mcp url> <redirect url>
// It speaks JSON lines: it prints {"event": "authorize", "url"} and reads back
// {"callback": <the URL the browser was sent to>}; then it calls get_me, refreshes its
// tokens through the SDK, calls get_me again, waits for a line on stdin, revokes its
// refresh token (RFC 7009, with its client_id alone) and reports what /mcp answers the
// last access token.
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import path from "node:path";

const [sdkDir, mcpUrl, redirectUrl] = process.argv.slice(2);
const load = (sub) => import(pathToFileURL(path.join(sdkDir, "dist/esm", sub)).href);
const { Client } = await load("client/index.js");
const { StreamableHTTPClientTransport } = await load("client/streamableHttp.js");
const { auth, UnauthorizedError, discoverAuthorizationServerMetadata } = await load(
  "client/auth.js",
);

const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const say = (event) => process.stdout.write(JSON.stringify(event) + "\n");

class MemoryProvider {
  constructor() {
    this.saved = {};
  }
  get redirectUrl() {
    return redirectUrl;
  }
  get clientMetadata() {
    return {
      client_name: "typescript sdk test client",
      redirect_uris: [redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.saved.client;
  }
  saveClientInformation(info) {
    this.saved.client = info;
  }
  tokens() {
    return this.saved.tokens;
  }
  saveTokens(tokens) {
    this.saved.tokens = tokens;
  }
  redirectToAuthorization(url) {
    say({ event: "authorize", url: url.href });
  }
  saveCodeVerifier(verifier) {
    this.saved.verifier = verifier;
  }
  codeVerifier() {
    return this.saved.verifier;
  }
}

async function getMe(provider) {
  const client = new Client({ name: "ts-sdk-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider });
  await client.connect(transport);
  const result = await client.callTool({ name: "get_me", arguments: {} });
  await client.close();
  return result.structuredContent ?? result.content;
}

const provider = new MemoryProvider();
const first = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider });
try {
  await new Client({ name: "ts-sdk-test", version: "1.0.0" }).connect(first);
  throw new Error("the server let an unauthenticated client in");
} catch (error) {
  if (!(error instanceof UnauthorizedError)) throw error;
}
const answer = JSON.parse((await lines.next()).value);
const code = new URL(answer.callback).searchParams.get("code");
await first.finishAuth(code);
say({ event: "signed_in", client_id: provider.saved.client.client_id, tokens: provider.saved.tokens });
say({ event: "tool", result: await getMe(provider) });

const before = provider.saved.tokens;
const outcome = await auth(provider, { serverUrl: new URL(mcpUrl) });
say({ event: "refreshed", outcome, before, after: provider.saved.tokens });
say({ event: "tool", result: await getMe(provider) });

// the test clears the forge's request log first: the revocation must be the only request
await lines.next();
const metadata = await discoverAuthorizationServerMetadata(new URL(mcpUrl).origin);
const revoked = await fetch(metadata.revocation_endpoint, {
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams({
    token: provider.saved.tokens.refresh_token,
    token_type_hint: "refresh_token",
    client_id: provider.saved.client.client_id,
  }),
});
const probe = await fetch(mcpUrl, {
  method: "POST",
  headers: {
    authorization: `Bearer ${provider.saved.tokens.access_token}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  },
  body: JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "probe", version: "1" },
    },
  }),
});
say({ event: "revoked", status: revoked.status, mcp_after: probe.status });
process.exit(0);
