// Paddle Billing passes the conformance suite every billing plugin passes.
import { runConformance } from '../conformance/cases';
import { paddleKit } from './kit';

runConformance(paddleKit);
