// A stdio MCP server whose tool `dump` answers one line of `bytes` bytes, written as stdout drains: the script
// a spec or the bench hands to `node -e`, to see what reading a huge answer over stdio costs.
export const STDIO_SERVER = `
const send = (message) => process.stdout.write(JSON.stringify(message) + '\\n');
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined) return;
  if (message.method === 'initialize') return send({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'hostile', version: '1.0.0' } } });
  if (message.method !== 'tools/call') return send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'no such method' } });
  const bytes = message.params.arguments.bytes;
  const chunk = 'x'.repeat(65536);
  let written = 0;
  process.stdout.write('{"jsonrpc":"2.0","id":' + message.id + ',"result":{"content":[{"type":"text","text":"');
  const pump = () => {
    while (written < bytes) {
      const piece = chunk.slice(0, Math.min(chunk.length, bytes - written));
      written += piece.length;
      if (!process.stdout.write(piece)) return process.stdout.once('drain', pump);
    }
    process.stdout.write('"}]}}\\n');
  };
  pump();
});
process.stdout.on('error', () => process.exit(0));
`;
