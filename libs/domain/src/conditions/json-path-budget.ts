// The work one evaluation of user expressions may do: JSONPaths (filter rules, stop conditions, edge
// conditions, repeat_until predicates) and the comparisons after them run on the API's event loop and in
// activities, so each evaluation counts what it touches and stops with a coded error past its budget,
// however the path fans out and however the data is shaped.
import { DomainError, ErrorCode } from '../errors';

export interface ExpressionBudget {
  /** Values touched: each child selected, each node a descent passes, each comparison step (text: per 64 characters). */
  maxNodesVisited: number;
  /** Values one query may hold at once (its final or any intermediate result). */
  maxResults: number;
}

/**
 * A million visits take about 9 ms of one core once warm, 50 ms at worst (a cold first run, on a loaded
 * 2-core box: bench/expressions.ts). Paths valid at save visit each value of the data a few times at most,
 * so `$..id` over a 1 MiB body of 60,000 objects (480,000 visits) still completes.
 */
export const DEFAULT_EXPRESSION_BUDGET: ExpressionBudget = { maxNodesVisited: 1_000_000, maxResults: 100_000 };

/** One evaluation's count, shared by every path of a rule tree or list of conditions. */
export class ExpressionMeter {
  visited = 0;

  constructor(readonly budget: ExpressionBudget = DEFAULT_EXPRESSION_BUDGET) {}

  visit(count = 1): void {
    this.visited += count;
    if (this.visited > this.budget.maxNodesVisited) {
      throw exceeded(`visits more than ${this.budget.maxNodesVisited} values of the data`, this.budget);
    }
  }

  /** Reading or comparing text: one visit per 64 characters, so that a long string counts for what it costs. */
  visitText(length: number): void {
    this.visit(1 + (length >> 6));
  }

  /** Called with a result list's new length. */
  hold(results: number): void {
    if (results > this.budget.maxResults) throw exceeded(`selects more than ${this.budget.maxResults} values`, this.budget);
  }
}

const exceeded = (what: string, budget: ExpressionBudget) =>
  new DomainError(
    ErrorCode.ExpressionBudgetExceeded,
    `The expression ${what}: narrow its path (fewer wildcards or recursive descents) or send smaller data`,
    {
      max_nodes_visited: budget.maxNodesVisited,
      max_results: budget.maxResults,
    },
  );

/** A budget or path error naming where the expression is, e.g. `filter_rules.all[1].path`; other errors as they are. */
export function atField(error: unknown, field: string, path?: string): unknown {
  const named = [ErrorCode.ExpressionBudgetExceeded, ErrorCode.InvalidJsonPath];
  if (!(error instanceof DomainError) || !named.includes(error.code) || error.details.field) return error;
  return new DomainError(error.code, `${field}: ${error.message}`, { ...error.details, field, ...(path === undefined ? {} : { path }) });
}
