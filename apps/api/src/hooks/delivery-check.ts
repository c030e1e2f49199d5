// What a webhook delivery costs in CPU, done in one place that a worker thread runs (delivery-check.worker):
// reading the body as JSON, the bounds MySQL would refuse it by, and the trigger's filter rules.
import {
  assertStorableJson,
  DomainError,
  evaluateRules,
  ExpressionMeter,
  serializeOutput,
  type ErrorDetails,
  type ExpressionBudget,
  type SerializedOutput,
} from '@app/domain';

export interface DeliveryCheck {
  /** The body's bytes as received; null when the request was not JSON (the body is then null). */
  raw: Uint8Array | null;
  rules: unknown;
  budget: ExpressionBudget;
}

/**
 * The verdict; a matched delivery's also its run's trigger data, serialized and described here, so the event
 * loop neither parses nor walks the body (the parsed body itself travels no further than the worker thread).
 */
export type DeliveryVerdict =
  | { ok: true; matched: false }
  | { ok: true; matched: true; trigger: SerializedOutput }
  | { ok: false; parse_error: string }
  | { ok: false; refusal: { code: string; message: string; details: ErrorDetails } };

const decoder = new TextDecoder('utf-8');

/** As express.json reads a body (strict): empty is `{}`, and only an object or array at the top. */
export function parseBody(raw: Uint8Array | null): unknown {
  if (raw === null) return null;
  const text = decoder.decode(raw);
  if (text.length === 0) return {};
  const first = /^[ \t\n\r]*(.)/.exec(text)?.[1];
  if (first !== '{' && first !== '[') throw new SyntaxError(`Unexpected token ${first ?? 'end'} in JSON at position 0`);
  return JSON.parse(text) as unknown;
}

export function checkDelivery(check: DeliveryCheck): DeliveryVerdict {
  let body: unknown;
  try {
    body = parseBody(check.raw);
  } catch (error) {
    return { ok: false, parse_error: (error as Error).message };
  }
  try {
    // Bounded before the rules walk it: in size by the raw parser (API_BODY_LIMIT_BYTES), in depth and text
    // here (what MySQL would refuse to store is a 422, not a 500); the rules' own work by their ExpressionMeter.
    assertStorableJson(body, 'body');
    if (!evaluateRules(check.rules, body, new ExpressionMeter(check.budget))) return { ok: true, matched: false };
    return { ok: true, matched: true, trigger: serializeOutput(body) };
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return { ok: false, refusal: { code: error.code, message: error.message, details: error.details } };
  }
}
