import { describe, expect, test } from 'bun:test';
import { applyModel, type AttributionModel } from '../../src/modules/attribution/models';

const clicks = (n: number) => Array.from({ length: n }, (_, i) => `c${i + 1}`);
const show = (touches: { click: string; weight: { num: bigint; den: bigint } }[]) =>
  touches.map((t) => `${t.click}:${t.weight.num}/${t.weight.den}`);

describe('attribution models (clicks oldest to newest)', () => {
  test.each<[string, AttributionModel, number, string[]]>([
    ['last_click, no clicks', 'last_click', 0, []],
    ['last_click, one click', 'last_click', 1, ['c1:1/1']],
    ['last_click, three clicks: the newest', 'last_click', 3, ['c3:1/1']],
    ['linear, one click', 'linear', 1, ['c1:1/1']],
    ['linear, two clicks', 'linear', 2, ['c1:1/2', 'c2:1/2']],
    ['linear, three clicks', 'linear', 3, ['c1:1/3', 'c2:1/3', 'c3:1/3']],
    ['position, one click', 'position', 1, ['c1:1/1']],
    ['position, two clicks', 'position', 2, ['c1:1/2', 'c2:1/2']],
    ['position, three clicks: 2/5, 1/5, 2/5', 'position', 3, ['c1:2/5', 'c2:1/5', 'c3:2/5']],
    ['position, four clicks: the middle two share 1/5', 'position', 4, ['c1:2/5', 'c2:1/10', 'c3:1/10', 'c4:2/5']],
    ['position, five clicks: the middle three share 1/5', 'position', 5, ['c1:2/5', 'c2:1/15', 'c3:1/15', 'c4:1/15', 'c5:2/5']],
    ['linear, twelve clicks: only the newest ten count', 'linear', 12, clicks(12).slice(2).map((c) => `${c}:1/10`)],
    ['position, twelve clicks: first of the newest ten gets 2/5', 'position', 12, ['c3:2/5', ...clicks(12).slice(3, 11).map((c) => `${c}:1/40`), 'c12:2/5']],
  ])('%s', (_label, model, n, expected) => {
    const touches = applyModel(model, clicks(n));
    expect(show(touches)).toEqual(expected);
    if (n > 0) {
      const sum = touches.reduce((acc, t) => acc + Number(t.weight.num) / Number(t.weight.den), 0);
      expect(sum).toBeCloseTo(1, 12);
    }
  });
});
