// Request and response schemas of the exchange rates API (PUT /v1/fx-rates).
import { t } from 'elysia';
import { errors } from '../../lib/http';

export const PutFxRatesBody = t.Object({
  date: t.String({ maxLength: 10, description: 'The day the rates are for, YYYY-MM-DD (UTC); today or earlier.', examples: ['2026-11-26'] }),
  base: t.String({ maxLength: 3, description: 'ISO 4217 code: each rate is how many units of its currency one unit of `base` buys.', examples: ['EUR'] }),
  rates: t.Record(t.String({ maxLength: 3 }), t.Number(), {
    description: 'Currency code -> a positive rate against `base` (1 to 200 of them).',
    examples: [{ USD: 1.0412, GBP: 0.8321, JPY: 160.12 }],
  }),
});

export const FxRates = t.Object({
  date: t.String({ examples: ['2026-11-26'] }),
  base: t.String({ examples: ['EUR'] }),
  rates: t.Record(t.String(), t.Number(), { description: 'The rates stored for the day and base.' }),
});

export const FxResponses = {
  put: { 200: FxRates, ...errors(400, 401, 403, 413) },
};
