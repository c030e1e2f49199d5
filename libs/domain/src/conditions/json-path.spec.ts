import { ErrorCode } from '../errors';
import { errorOf } from '../errors.testing';
import { ExpressionMeter } from './json-path-budget';
import { queryJsonPath } from './json-path-query';
import { jsonPathProblem, parseJsonPath } from './json-path-syntax';
import { VALID_PATHS } from './json-path.testing';

const data = { a: [1, 2, 3, { x: 5 }], s: 'abc', o: { '0': 'zero', k: { p: 1 } }, n: null, 'x-y': 8, 'a b': 7 };
const query = (path: string, on: unknown = data, meter = new ExpressionMeter()) => queryJsonPath(on, path, meter);

describe(queryJsonPath.name, () => {
  it.each([
    ['$', [data]],
    ['$.a[0]', [1]],
    ['$.a.1', [2]],
    ['$.a["1"]', [2]],
    ['$.a[-1]', [{ x: 5 }]],
    ['$.a[-5]', []],
    ['$.a[10]', []],
    ['$.a.length', [4]],
    ['$.s.length', [3]],
    ['$.s[1]', ['b']],
    ['$.o.length', []],
    ['$.o[0]', ['zero']],
    ['$.x-y', [8]],
    ["$['a b']", [7]],
    ['$.n', [null]],
    ['$.n.x', []],
    ['$.a[1:3]', [2, 3]],
    ['$.a[::2]', [1, 3]],
    ['$.a[::-1]', [{ x: 5 }, 3, 2, 1]],
    ['$.a[-2:]', [3, { x: 5 }]],
    ['$.a[0:-1]', [1, 2, 3]],
    ['$.a[1:2:0]', []],
    ['$.s[0:1]', []],
    ['$.a[0,1]', [1, 2]],
    ["$['a','s']", [data.a, 'abc']],
    ['$.o.*', ['zero', { p: 1 }]],
    ['$.s.*', []],
    ['$.*.*', [1, 2, 3, { x: 5 }, 'zero', { p: 1 }]],
    ['$..p', [1]],
    ['$..[0]', [1, 'zero']],
    ['$.o..*', ['zero', { p: 1 }, 1]],
    ['$..*', [data.a, 'abc', data.o, null, 8, 7, 1, 2, 3, { x: 5 }, 5, 'zero', { p: 1 }, 1]],
    ['$.a[?(@ > 1)]', [2, 3]],
    ['$.a[?(@ == "2")]', [2]],
    ['$.a[?(@ === 2)]', [2]],
    ['$.a[?(@.x)]', [{ x: 5 }]],
    ['$.a[?(!@.x)]', [1, 2, 3]],
    ['$.a[?(!@.x.y)]', [{ x: 5 }]],
    ['$.a[?(@.x > 1 && @.x < 10)]', [{ x: 5 }]],
    ['$.a[?(@.x > 1 || @ < 2)]', [1, { x: 5 }]],
    ['$.a[?(@ % 2 == 1)]', [1, 3]],
    ['$.a[?(-@ < -2)]', [3]],
    ['$.a[?((@ >= 2) && (@ <= 2))]', [2]],
    ['$.a[?(@.x == null)]', [1, 2, 3]],
    ['$.o[?(@.p == 1)]', [{ p: 1 }]],
    ['$..[?(@.p)]', [{ p: 1 }]],
    ['$.a[(@.length-1)]', [{ x: 5 }]],
    ['$.a[( @.length - 2 )]', [3]],
    ['$.a[?(@ == @)]', [1, 2, 3, { x: 5 }]],
    ['$.a[?(@ + "1" == "21")]', []],
    ['$.constructor', []],
    ['$.a.constructor', []],
    ['$.o.__proto__', []],
  ])('%s', (path, expected) => {
    expect(query(path)).toEqual(expected);
  });

  it('applies to text and null', () => {
    expect(query('$', 'plain')).toEqual(['plain']);
    expect(query('$.length', 'plain')).toEqual([5]);
    expect(query('$..length', 'plain')).toEqual([5]);
    expect(query('$', null)).toEqual([null]);
    expect(query('$.a', null)).toEqual([]);
  });

  it('compares objects only with themselves, never through their text', () => {
    expect(query('$.a[?(@ == "[object Object]")]')).toEqual([]);
    expect(query('$[?(@ < 1)]', [[0], 0])).toEqual([0]);
  });

  it('descends into a document far deeper than the call stack allows', () => {
    const deep = Array.from({ length: 200_000 }).reduce<unknown>((inner) => ({ a: inner }), 'bottom');
    expect(query('$..[?(@ == "bottom")]', deep, new ExpressionMeter({ maxNodesVisited: 10_000_000, maxResults: 10 }))).toEqual(['bottom']);
  });

  it('stops a path that fans out with a coded error once the budget is spent', () => {
    const deep = Array.from({ length: 40 }).reduce<unknown>((inner) => ({ a: inner }), 1);
    const meter = new ExpressionMeter({ maxNodesVisited: 50_000, maxResults: 100_000 });
    const error = errorOf(() => query('$..a..a..a..a..a', deep, meter));
    expect(error).toMatchObject({ code: ErrorCode.ExpressionBudgetExceeded, details: { max_nodes_visited: 50_000 } });
    expect(meter.visited).toBeLessThanOrEqual(50_000 + 41);
  });

  it('stops a path whose results outgrow the budget', () => {
    const error = errorOf(() =>
      query(
        '$[*]',
        Array.from({ length: 11 }, (_, i) => i),
        new ExpressionMeter({ maxNodesVisited: 1000, maxResults: 10 }),
      ),
    );
    expect(error).toMatchObject({ code: ErrorCode.ExpressionBudgetExceeded, details: { max_results: 10 } });
  });

  it('counts long text by its length', () => {
    const meter = new ExpressionMeter();
    query('$[?(@ == "x")]', ['y'.repeat(64_000)], meter);
    expect(meter.visited).toBeGreaterThan(1000);
  });
});

describe(parseJsonPath.name, () => {
  it('reads each kind of segment', () => {
    expect(
      parseJsonPath("$.a..b[*][1:][-1]['c','d'][?(@.e)][(@.length)]").map((segment) => [segment.descendant, segment.selector.kind]),
    ).toEqual([
      [false, 'key'],
      [true, 'key'],
      [false, 'wildcard'],
      [false, 'slice'],
      [false, 'key'],
      [false, 'union'],
      [false, 'filter'],
      [false, 'script'],
    ]);
  });
});

describe(jsonPathProblem.name, () => {
  it.each([...VALID_PATHS, '$.content-type', '$.$ref', '$..items[*].tags[*][?(@.v)]', "$['it\\'s']", '$.a[?(@["b c"] != \'\\u0041\')]'])(
    'accepts %s',
    (path) => {
      expect(jsonPathProblem(path)).toBeNull();
    },
  );

  it.each([
    ['a.b', /root \$/],
    ['$a', /expected \. or \[/],
    ['$.a[', /quoted name/],
    ['$.a.', /name or \*/],
    ['$...a', /after \.\./],
    ['$.a[ 0 ]', /quoted name/],
    ['$.a[01]', /expected \]/],
    ['$.a[-0]', /integer/],
    ['$.a[?(@.x >)]', /expected @/],
    ['$.a[?(@.x = 1)]', /expected \)/],
    ['$.a[?(evil(1))]', /expected @/],
    ['$.a[?(@.name.includes("x"))]', /expected \)/],
    ['$.a[?($.b)]', /expected @/],
    ['$.a[?(@..b)]', /expected \)/],
    [`$.a[?(${'('.repeat(40)}1${')'.repeat(40)})]`, /nests deeper/],
    [`$.a[${Array.from({ length: 21 }, (_, i) => i).join(',')}]`, /at most 20/],
    ['$.a'.padEnd(2001, 'a'), /more than 2000 characters/],
    ['$..a..b', /2 recursive descents/],
    ['$.a[*][*][*][*]', /4 wildcards/],
    ['$.a[*][1:][0,1][?(@)]', /4 wildcards/],
  ] as const)('refuses %s', (path, reason) => {
    expect(jsonPathProblem(path)).toMatch(reason);
  });

  it('refuses what is not a string', () => {
    expect(jsonPathProblem(42)).toMatch(/string/);
  });
});
