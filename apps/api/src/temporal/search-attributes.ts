import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';
import type { SearchAttributeName } from '@app/contracts';

// Names checked against libs/contracts/src/search-attributes.json, which the bring-up registers.
const keyword = (name: SearchAttributeName) => defineSearchAttributeKey(name, SearchAttributeType.KEYWORD);
const keys = {
  run: keyword('StepwiseRunUuid'),
  workflow: keyword('StepwiseWorkflowUuid'),
  name: keyword('StepwiseWorkflowName'),
  user: keyword('StepwiseUserId'),
};

/** What makes a run findable in the Web UI; a scheduled run adds its own run uuid once it has one. */
export function runSearchAttributes(run: {
  run_uuid?: string;
  workflow_uuid: string;
  workflow_name: string;
  user_id: string;
}): SearchAttributePair[] {
  return [
    ...(run.run_uuid ? [{ key: keys.run, value: run.run_uuid }] : []),
    { key: keys.workflow, value: run.workflow_uuid },
    { key: keys.name, value: run.workflow_name.slice(0, 200) },
    { key: keys.user, value: run.user_id },
  ];
}
