export * from './model/model-client';
export * from './model/model-call-error';
export * from './model/openai-model-client';
export * from './tools/tool-transport';
export * from './tools/http-tool-transport';
export * from './tools/http-request.tool';
export * from './tools/builtin-tool-transport';
export { DEFAULT_TOOL_TIMEOUT_MS, MAX_TOOL_BODY_BYTES } from './tools/http-fetch';
export * from './signing';
