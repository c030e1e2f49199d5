// PUT /usage/limits: a user's own spend limits, lower than the operator's (the lower of the two applies).
import { requestBody } from '../request-body';
import type { SpendLimits } from './spend-limits';

const DOLLARS = {
  type: ['number', 'null'],
  exclusiveMinimum: 0,
  maximum: 1e9,
  description: "US dollars at the configured prices; null: none of the user's own (the operator's applies)",
};

export const SPEND_LIMITS_BODY = requestBody(
  'SpendLimits',
  {
    type: 'object',
    required: ['daily_usd', 'monthly_usd'],
    additionalProperties: false,
    properties: {
      daily_usd: { ...DOLLARS, description: `Per UTC day. ${DOLLARS.description}` },
      monthly_usd: { ...DOLLARS, description: `Per UTC month. ${DOLLARS.description}` },
    },
  },
  (body): SpendLimits => ({ daily: body.daily_usd as number | null, monthly: body.monthly_usd as number | null }),
);
