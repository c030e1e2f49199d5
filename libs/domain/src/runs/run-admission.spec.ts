import { ErrorCode } from '../errors';
import { acceptsRuns, runRefusal, type RunOrigin } from './run-admission';

describe('runRefusal', () => {
  const origins: RunOrigin[] = ['manual', 'webhook', 'schedule'];

  it.each(origins)('lets an active workflow start a %s run', (origin) => {
    expect(runRefusal({ is_active: true, status: 'active' }, origin)).toBeNull();
  });

  it.each(origins)('refuses a %s run of a switched-off workflow, naming is_active', (origin) => {
    expect(runRefusal({ is_active: false, status: 'active' }, origin)).toMatchObject({
      code: ErrorCode.Conflict,
      details: { field: 'is_active' },
    });
  });

  it.each(origins)('refuses a %s run of an archived workflow, naming status', (origin) => {
    expect(runRefusal({ is_active: true, status: 'archived' }, origin)).toMatchObject({
      code: ErrorCode.Conflict,
      details: { field: 'status' },
    });
  });

  it('lets a paused workflow start runs by hand and by webhook, not by schedule', () => {
    const paused = { is_active: true, status: 'paused' };
    expect(origins.map((origin) => acceptsRuns(paused, origin))).toEqual([true, true, false]);
    expect(runRefusal(paused, 'schedule')?.message).toMatch(/paused/);
  });
});
