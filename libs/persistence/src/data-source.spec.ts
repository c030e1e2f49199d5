import { poolShares } from './data-source';

describe(poolShares.name, () => {
  it('shares DATABASE_POOL_SIZE between the two pools, never more in all, one each at least', () => {
    expect(poolShares(20)).toEqual({ shared: 10, oneTrip: 10 });
    expect(poolShares(7)).toEqual({ shared: 4, oneTrip: 3 });
    expect(poolShares(2)).toEqual({ shared: 1, oneTrip: 1 });
  });
});
