import { DomainError, ErrorCode, requireJsonObject } from '@app/domain';
import { isUuid } from '../common/uuids';

export interface ResumeOptions {
  from_step_uuid?: string;
  definition: 'original' | 'current';
}

const invalid = (field: string, message: string) => new DomainError(ErrorCode.ValidationFailed, message, { field });

/** The body of POST /runs/{uuid}/resume: `{from_step_uuid?, definition?: "original" | "current"}`, both optional. */
export function resumeOptionsOf(body: unknown): ResumeOptions {
  const { from_step_uuid, definition = 'original', ...rest } = requireJsonObject(body ?? {});
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) throw invalid(unknown, `unknown field ${unknown}: a resume takes from_step_uuid and definition`);
  if (from_step_uuid !== undefined && !isUuid(from_step_uuid)) {
    throw invalid('from_step_uuid', 'from_step_uuid must be the uuid of a step');
  }
  if (definition !== 'original' && definition !== 'current') throw invalid('definition', 'definition must be "original" or "current"');
  return { from_step_uuid: from_step_uuid as string | undefined, definition };
}
