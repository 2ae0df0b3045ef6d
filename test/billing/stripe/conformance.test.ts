// Stripe passes the conformance suite every billing plugin passes.
import { runConformance } from '../conformance/cases';
import { stripeKit } from './kit';

runConformance(stripeKit);
