#!/usr/bin/env node
// The suite's CPU database anchor: DuckDB runs a study's query on the inputs that
// `bench <study> --config C --dump-inputs DIR` dumped, warm, and writes one record per point and
// statement in the suite's results format (kind "cpu"), validated against the study's reference.
//
// usage: node scripts/duckdb/duckdb_anchor.mjs DIR OUT.json [--runs N] [--threads T]
//
// DIR/manifest.json names the study; its module here (join.mjs, decimal.mjs) loads each point's files
// and says what to time and how to check it. This driver owns what the studies share: the arguments,
// one warm-up then N timed runs (default 5) per statement, the record (every sample, median, min, max,
// spread; GB/s and ns per input from the point's minimal bytes and input count), the results document,
// written atomically (OUT.partial, then renamed). A record that fails validation is written with
// validation "fail" and makes the exit status 1; bad usage is one line on stderr, exit 2, and any
// other problem (a file DuckDB cannot read, a query error) one line, exit 1; neither writes OUT.
//
// A study module exports
//   variants                   the statements it times, in order (the document's meta.variants);
//   check(point) (optional)    what is wrong with a manifest point's inputs, or null; every point is
//                              checked before DuckDB starts (a complaint: exit 2);
//   async run(point, ctx)      per manifest point: load its files, then for each variant
//                              `const { samples, result } = await ctx.time(sql)` (the result of the
//                              last run) and `ctx.emit({ variant, samples, metrics, problems, bytes, inputs })`,
//                              where problems lists what did not match the reference (empty: pass).
// ctx also holds con (the DuckDB connection), dir (the point's folder) and sqlPath (a quoted SQL
// string literal of a path); an exception thrown by run is the one line of exit 1.
import { DuckDBInstance, version as duckdbVersion } from '@duckdb/node-api';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const STUDIES = {
  join: () => import('./join.mjs'),
  decimal: () => import('./decimal.mjs'),
};
const USAGE = 'usage: node scripts/duckdb/duckdb_anchor.mjs DIR OUT.json [--runs N] [--threads T]';

function fail(msg, code = 1) {
  process.stderr.write(`duckdb_anchor: ${String(msg).split('\n')[0]}\n`);
  process.exit(code);
}

const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(name);
  if (i < 0) return def;
  const v = Number(args[i + 1]);
  if (!Number.isInteger(v) || v < 1) fail(`${name}: a positive integer, not ${args[i + 1]}`, 2);
  args.splice(i, 2);
  return v;
};
const runs = opt('--runs', 5);
const threads = opt('--threads', os.cpus().length);
if (args.length !== 2 || args.some((a) => a.startsWith('--'))) fail(USAGE, 2);
const [dir, outPath] = args;

let manifest;
try {
  manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
} catch (e) {
  fail(`${dir}/manifest.json: ${e.message}`, 2);
}
if (!Object.hasOwn(STUDIES, manifest.study))
  fail(`${dir}/manifest.json: inputs of study '${manifest.study}', which has no DuckDB module (${Object.keys(STUDIES).join(', ')})`, 2);
if (!Array.isArray(manifest.points) || manifest.points.some((p) => !p || typeof p.dir !== 'string' || !p.inputs || !p.params))
  fail(`${dir}/manifest.json: points: expected a list of {dir, params, inputs}`, 2);
const study = await STUDIES[manifest.study]();
for (const pt of manifest.points) {
  const why = study.check?.(pt);
  if (why) fail(`${dir}/manifest.json: ${pt.dir}: ${why}`, 2);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const stddev = (xs) => {
  const mu = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, b) => a + (b - mu) ** 2, 0) / Math.max(1, xs.length - 1));
};
const sqlPath = (p) => `'${p.replaceAll("'", "''")}'`;

const records = [];
try {
  const instance = await DuckDBInstance.create(':memory:', { threads: String(threads) });
  const con = await instance.connect();
  for (const pt of manifest.points) {
    const ctx = {
      con,
      dir: path.join(dir, pt.dir),
      sqlPath,
      // One warm-up run (the tables and the plan), then `runs` timed ones; the last one's result.
      time: async (sql) => {
        const samples = [];
        let result = null;
        for (let i = 0; i <= runs; ++i) {
          const t0 = process.hrtime.bigint();
          result = await con.runAndReadAll(sql);
          const ms = Number(process.hrtime.bigint() - t0) / 1e6;
          if (i > 0) samples.push(ms);
        }
        return { samples, result };
      },
      emit: ({ variant, samples, metrics, problems, bytes, inputs }) => {
        const med = median(samples);
        records.push({
          GBps: Number(bytes) / (med * 1e6),
          fraction_of_copy_ceiling: null,
          kind: 'cpu',
          metrics: { duckdb: duckdbVersion(), threads, ...metrics },
          note: problems.length ? problems[0] : '',
          ns_per_input: (med * 1e6) / Number(inputs),
          params: pt.params,
          status: 'ok',
          study: manifest.study,
          time_ms: { count: samples.length, max: Math.max(...samples), median: med, min: Math.min(...samples), samples, stddev: stddev(samples) },
          validation: problems.length ? 'fail' : 'pass',
          variant,
        });
        process.stdout.write(`${variant} ${JSON.stringify(pt.params)}: ${med.toFixed(3)} ms, ${problems.length ? 'FAIL ' + problems[0] : 'pass'}\n`);
      },
    };
    await study.run(pt, ctx);
  }
} catch (e) {
  fail(e?.message ?? e, 1);
}

const doc = {
  schema_version: 1,
  meta: {
    study: manifest.study,
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    command: ['node', ...process.argv.slice(1)].join(' '),
    tool: `DuckDB ${duckdbVersion()} through @duckdb/node-api, node ${process.version}`,
    host: { cores: os.cpus().length, cpu: os.cpus()[0]?.model ?? 'unknown' },
    seed: manifest.seed,
    config: manifest.config,
    variants: [...study.variants],
    repetitions: { warmup: 1, min: runs, max: runs },
    validate: true,
    gpu: { present: false },
  },
  ceilings: {},
  records,
};
try {
  const tmp = `${outPath}.partial`;
  fs.mkdirSync(path.dirname(path.resolve(outPath)), { recursive: true });
  fs.writeFileSync(tmp, JSON.stringify(doc, null, 1) + '\n');
  fs.renameSync(tmp, outPath);
} catch (e) {
  fail(`${outPath}: ${e.message}`, 1);
}
process.stdout.write(`results: ${outPath}\n`);
process.exit(records.some((r) => r.validation !== 'pass') ? 1 : 0);
