// A user's workflow definitions, for both apps: the store and its save rules, saves and imports, step
// summaries (started through the SummaryLauncher port each app implements), the tools an agent may name, and
// stepwise's own tools for whoever offers them (the API's MCP server, the worker's assistant). Never imports
// an app.
export * from './definitions.module';
export * from './definition-store.service';
export * from './definition-versions.service';
export * from './egress-guard';
export * from './step-summaries.service';
export * from './summary-launcher';
export * from './workflow.views';
export * from './workflows.service';
export * from './agent-tools/mcp-tool-discovery';
export * from './agent-tools/tool-listing';
export * from './stepwise-tools/catalog-tools';
export * from './stepwise-tools/get-workflow-tool';
export * from './stepwise-tools/stepwise-tool';
export * from './stepwise-tools/tool-set';
