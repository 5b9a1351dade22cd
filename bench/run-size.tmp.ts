import { measureSize } from './suites/pipeline.ts';
const n = Number(process.argv[2]);
const figs = await measureSize(n, false, (l) => console.log('#', l), process.argv[3]);
for (const f of figs) console.log(JSON.stringify(f));
process.exit(0);
