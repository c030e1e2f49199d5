// The API's answers as a spec reads them: the API's own view types (imported as types only, so nothing
// changes at run time), after the trip through JSON.
import type { loopView, toOutputView, toRunSummaryView, toRunView } from '../../apps/api/src/runs/run.views';
import type { WorkflowDetailsView as ApiWorkflowDetailsView, WorkflowView as ApiWorkflowView } from '@app/definitions';

/**
 * What JSON makes of a view: a Date arrives as its ISO string. What the API itself leaves `unknown` (a
 * step's output, input and messages, a run's definition) is free JSON the spec digs into: it stays loose.
 */
export type Wire<T> = [unknown] extends [T]
  ? any // eslint-disable-line @typescript-eslint/no-explicit-any
  : T extends Date
    ? string
    : T extends readonly (infer Item)[]
      ? Wire<Item>[]
      : T extends object
        ? { [K in keyof T]: Wire<T[K]> }
        : T;

type ApiRunView = Wire<ReturnType<typeof toRunView>>;
/**
 * One step instance of a run. What a looping step adds (its loop, the rows beneath it) the API types as a
 * loose record, and so it stays here.
 */
export type StepView = ApiRunView['steps'][number] & Wire<ReturnType<typeof loopView>>;
/** GET /runs/{uuid}, and what starting or resuming a run answers. */
export type RunView = Omit<ApiRunView, 'steps'> & { steps: StepView[] };
/** An item of GET /runs and GET /workflows/{uuid}/runs. */
export type RunSummaryView = Wire<ReturnType<typeof toRunSummaryView>>;
/** GET /outputs/{id}, and a step's or trigger's output within a run. */
export type OutputView = Wire<ReturnType<typeof toOutputView>>;
/** GET /workflows/{uuid}, and PATCH /workflows/{uuid}. */
export type WorkflowView = Wire<ApiWorkflowView>;
/** POST /workflows and GET /workflows/{uuid}/details. */
export type WorkflowDetailsView = Wire<ApiWorkflowDetailsView>;
