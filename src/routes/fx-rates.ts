// PUT /fx-rates: a day's exchange rates for the reporting currency (admin only; FX_RATES_URL's job
// stores the same rows). Reports convert with them; money owed and paid never does.
import { Elysia } from 'elysia';
import type { AppContext } from '../context';
import { authPlugin } from '../modules/auth/plugin';
import { FxResponses, PutFxRatesBody } from '../modules/fx/model';
import { checkDayRates, storeDayRates } from '../modules/fx/service';

export function fxRateRoutes(ctx: AppContext) {
  return new Elysia({ tags: ['Settings'] })
    .use(authPlugin(ctx))
    .put(
      '/fx-rates',
      async ({ body }) => {
        const rates = checkDayRates(body);
        await storeDayRates(ctx.sql, rates, 'api');
        return rates;
      },
      {
        auth: 'admin',
        body: PutFxRatesBody,
        response: FxResponses.put,
        detail: { summary: "Set a day's exchange rates (1 base = rate units of each currency)" },
      },
    );
}
