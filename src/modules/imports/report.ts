// The report of an import (dry run or not): what it created per kind, how many rows an earlier
// import already brought, and every row it could not take, with file, line and reason.
export type ImportCounts = { partners: number; links: number; customers: number; commissions: number; payouts: number };
export type ImportProblem = { file: string; line: number; reason: string };

/** The most problem rows a report lists (a wrong file can make every row one); `problemCount` says how many there were. */
export const MAX_LISTED_PROBLEMS = 10_000;

export class ImportReport {
  readonly counts: ImportCounts = { partners: 0, links: 0, customers: 0, commissions: 0, payouts: 0 };
  skipped = 0;
  problemCount = 0;
  readonly problems: ImportProblem[] = [];

  problem(file: string, line: number, reason: string) {
    this.problemCount++;
    if (this.problems.length < MAX_LISTED_PROBLEMS) this.problems.push({ file, line, reason });
  }

  toJSON(dryRun: boolean) {
    return { dryRun, counts: this.counts, skipped: this.skipped, problems: this.problems, problemCount: this.problemCount };
  }
}
