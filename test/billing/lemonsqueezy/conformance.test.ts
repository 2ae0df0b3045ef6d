// Lemon Squeezy runs the conformance suite every billing plugin passes.
import { runConformance } from '../conformance/cases';
import { lemonSqueezyKit } from './kit';

runConformance(lemonSqueezyKit);
