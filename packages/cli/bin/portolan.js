#!/usr/bin/env node
// Entry point of the `portolan` command. Runs on the Node 24 that the node@24 devDependency puts first on PATH.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  process.stderr.write(
    `portolan needs Node.js 24 or later (this is ${process.version}); run it through npx or npm scripts so node_modules/.bin/node is used.\n`,
  );
  process.exit(1);
}
const { main } = await import('../src/main.ts');
process.exitCode = await main(process.argv.slice(2));
