// The official TypeScript SDK v2 client (@modelcontextprotocol/client) at 2026-07-28 over
// stdio: spawns the server, opens a subscriptions/listen stream for tool-list changes,
// enables a toolset, and prints (as one JSON line) what the SDK saw: the honoured filter,
// whether the tools-list change arrived, the tool count before and after, and how the
// stream ended once closed.
// Usage: node ts_v2_stdio_listen.mjs <client dist dir> <python> <cwd> <env json> <toolset>
const [dist, python, cwd, envJson, toolset] = process.argv.slice(2);
const { Client } = await import(`${dist}/index.mjs`);
const { StdioClientTransport } = await import(`${dist}/stdio.mjs`);

const client = new Client(
    { name: 'ts-v2-stdio-test', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
);
let told;
const changed = new Promise((resolve) => { told = resolve; });
client.setNotificationHandler('notifications/tools/list_changed', () => told(true));
const transport = new StdioClientTransport({
    command: python, args: ['main.py', 'serve'], cwd, env: JSON.parse(envJson), stderr: 'ignore',
});
await client.connect(transport);
const before = (await client.listTools()).tools.length;
const subscription = await client.listen({ toolsListChanged: true });
const enabled = await client.callTool({ name: 'enable_toolset', arguments: { name: toolset } });
const heard = await changed;
const after = (await client.listTools()).tools.length;
await subscription.close();
const ended = await subscription.closed;
console.log(JSON.stringify({
    version: client.getNegotiatedProtocolVersion(),
    honored: subscription.honoredFilter,
    heard,
    enabled: enabled.structuredContent,
    before,
    after,
    ended,
}));
await client.close();
