// libs/engine holds Temporal workflow code only. The worker loads it by path (workflowsPath), never by import.
export { nextStep } from './workflows/next-step';
