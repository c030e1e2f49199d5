// What the model reads of an MCP tool result: the structured content when the tool gives one (the spec
// has it mirrored in a text block, so that block would only repeat it), else the content blocks: a single
// text as that text, several as a list. Binary data (images, audio, blobs) is described, not sent: chat
// tool messages carry text.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

type Block = CallToolResult['content'][number];

const base64Bytes = (data: string): number => Math.floor((data.length * 3) / 4) - (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0);

function blockAnswer(block: Block): unknown {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return { type: block.type, mime_type: block.mimeType, size_bytes: base64Bytes(block.data) };
    case 'resource': {
      const { uri, mimeType } = block.resource;
      return 'text' in block.resource
        ? { type: 'resource', uri, mime_type: mimeType ?? null, text: block.resource.text }
        : { type: 'resource', uri, mime_type: mimeType ?? null, size_bytes: base64Bytes(String(block.resource.blob)) };
    }
    case 'resource_link':
      return {
        type: 'resource_link',
        uri: block.uri,
        name: block.name,
        ...(block.description ? { description: block.description } : {}),
        ...(block.mimeType ? { mime_type: block.mimeType } : {}),
      };
    default:
      return block;
  }
}

export function mcpAnswer(result: CallToolResult): unknown {
  if (result.structuredContent && !result.isError) return result.structuredContent;
  const blocks = (result.content ?? []).map(blockAnswer);
  if (!blocks.length) return result.structuredContent ?? null;
  return blocks.length === 1 ? blocks[0] : blocks;
}

/** An isError result as one line of text for the error message the model reads. */
export function mcpErrorText(result: CallToolResult): string {
  const answer = mcpAnswer(result);
  return typeof answer === 'string' ? answer : JSON.stringify(answer);
}
