// The attribution models of DESIGN.md "Attribution", as exact fractions. Pure: no database.
import { fraction, ONE, type Fraction } from '../../lib/money';

export const MODELS = ['last_click', 'linear', 'position'] as const;
export type AttributionModel = (typeof MODELS)[number];

/** The outcomes of attribution (SPEC section 2): only `attributed` has touches. */
export const ATTRIBUTION_STATUSES = ['attributed', 'no_identity', 'no_click', 'outside_window'] as const;
export type AttributionStatus = (typeof ATTRIBUTION_STATUSES)[number];

/** At most this many clicks (the newest in the window) take part in a multi-touch model. */
export const MAX_TOUCHES = 10;

export type Touch<C> = { click: C; weight: Fraction };

/**
 * Applies a model to clicks ordered oldest to newest (already limited to the window). Answers the
 * touches oldest to newest; weights are exact and add up to 1.
 *
 * - last_click: the newest click, weight 1.
 * - linear: every click, 1/n.
 * - position: n=1: 1; n=2: 1/2 each; n>=3: first 2/5, last 2/5, the middle n-2 share 1/5.
 */
export function applyModel<C>(model: AttributionModel, clicks: readonly C[]): Touch<C>[] {
  const recent = clicks.slice(-MAX_TOUCHES);
  const n = recent.length;
  if (n === 0) return [];
  switch (model) {
    case 'last_click':
      return [{ click: recent[n - 1]!, weight: ONE }];
    case 'linear':
      return recent.map((click) => ({ click, weight: fraction(1, n) }));
    case 'position':
      if (n === 1) return [{ click: recent[0]!, weight: ONE }];
      if (n === 2) return recent.map((click) => ({ click, weight: fraction(1, 2) }));
      return recent.map((click, i) => ({
        click,
        weight: i === 0 || i === n - 1 ? fraction(2, 5) : fraction(1, 5 * (n - 2)),
      }));
  }
}
