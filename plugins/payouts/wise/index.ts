// Wise: paid by upload. GET /v1/payouts.csv?format=wise writes Wise's batch-payment file of the
// pending wise payouts; an operator uploads it at Wise and then settles them
// (POST /v1/payouts/settle). Wise's API needs a business profile with strong customer
// authentication for every batch funding, so the file is the path.
import { uploadRail } from '../manual';

export const wiseRail = uploadRail('wise');
