// A tool's outcome as MCP answers it: the value as structured content (and as JSON text for clients that
// read only content), or a refused call's coded error with isError, the same code the REST API gives.
import type { ToolResult } from '@app/definitions';
import { DomainError } from '@app/domain';

export interface ToolError {
  code: string;
  message: string;
  field?: string;
  details: Record<string, unknown>;
}

export interface ToolCallResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent: Record<string, unknown>;
  isError?: true;
}

const INTERNAL: ToolError = { code: 'INTERNAL', message: 'Internal error', details: {} };

/** A coded domain error as the tool's error; null for anything else (a fault of ours, not to be shown). */
export function toolErrorOf(error: unknown): ToolError | null {
  if (!(error instanceof DomainError)) return null;
  const { field, ...details } = error.details;
  return { code: error.code, message: error.message, ...(typeof field === 'string' ? { field } : {}), details };
}

export function successResult(value: ToolResult): ToolCallResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

export function errorResult(error: unknown): ToolCallResult {
  const refused = toolErrorOf(error) ?? INTERNAL;
  const where = refused.field ? ` (${refused.field})` : '';
  return {
    content: [{ type: 'text', text: `${refused.code}: ${refused.message}${where}` }],
    structuredContent: { ...refused },
    isError: true,
  };
}
