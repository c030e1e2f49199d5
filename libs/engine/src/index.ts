// libs/engine holds Temporal workflow code only. The worker loads it by path (workflowsPath), never by import.
export { walkPlan } from './workflows/graph/walk-plan';
