// The workflow bundle's entry: every workflow type the worker registers.
export { runWorkflow } from './run.workflow';
export { summarizeStepWorkflow } from './step-summary.workflow';
export { assistantSessionWorkflow } from './assistant.workflow';
export { evaluationWorkflow } from './evaluation.workflow';
