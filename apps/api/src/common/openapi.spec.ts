import { STEP_SCHEMAS } from '@app/domain';
import { openApiComponents, toOpenApi } from './openapi';

describe(toOpenApi.name, () => {
  it('turns nullable type lists and numeric exclusive bounds into OpenAPI 3.0', () => {
    expect(toOpenApi({ type: ['integer', 'null'], exclusiveMinimum: 0, items: { type: ['string', 'null'] } })).toEqual({
      type: 'integer',
      nullable: true,
      minimum: 0,
      exclusiveMinimum: true,
      items: { type: 'string', nullable: true },
    });
  });

  it('leaves no type lists anywhere in the step schemas', () => {
    expect(JSON.stringify(toOpenApi(STEP_SCHEMAS.custom_agent))).not.toMatch(/"type":\[/);
  });
});

describe(openApiComponents.name, () => {
  it('points every reference at a component it defines', () => {
    const components = openApiComponents();
    const refs = [...JSON.stringify(components).matchAll(/#\/components\/schemas\/(\w+)/g)].map((match) => match[1]);
    expect(refs.length).toBeGreaterThan(5);
    for (const name of refs) expect(components).toHaveProperty(name);
  });
});
