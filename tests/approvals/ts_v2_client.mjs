// The official TypeScript SDK v2 client (@modelcontextprotocol/client) at 2026-07-28:
// lists the tools, then calls one; an approval question (input_required with a URL
// elicitation) is printed as a JSON line and accepted (the human opens the page), and the
// SDK retries the call. Prints the final result as a JSON line.
// Usage: node ts_v2_client.mjs <client dist/index.mjs> <mcp url> <bearer token> <tool> <args json>
const [sdk, url, token, tool, args] = process.argv.slice(2);
const { Client, StreamableHTTPClientTransport } = await import(sdk);

const client = new Client(
    { name: 'ts-v2-approval-test', version: '1.0.0' },
    {
        capabilities: { elicitation: { url: {} } },
        versionNegotiation: { mode: { pin: '2026-07-28' } },
    },
);
client.setRequestHandler('elicitation/create', async (request) => {
    console.log(JSON.stringify({ asked: request.params }));
    return { action: 'accept' };
});
const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
await client.connect(transport);
const listed = await client.listTools();
const result = await client.callTool({ name: tool, arguments: JSON.parse(args) });
console.log(JSON.stringify({
    result,
    version: client.getNegotiatedProtocolVersion(),
    tools: listed.tools.length,
}));
await client.close();
