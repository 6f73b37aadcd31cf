#!/usr/bin/env node
// The join study's CPU database anchor (issue 13): DuckDB joins the relations `bench join` dumped
// (bench join --config C --dump-inputs DIR), warm, and writes one record per point in the suite's
// results format (variant "duckdb", kind "cpu"), validated against the study's reference.
//
// usage: node scripts/duckdb/duckdb_join.mjs DIR OUT.json [--runs N] [--threads T]
//
// Per point: r.csv and s.csv are loaded into tables r(key) and s(key), whose rowid is the tuple's
// rid. Two statements are timed, with the predicate r.key = s.key (or abs(r.key - s.key) <= band
// for a band join):
//   duckdb         the pairs materialised into a temporary table (DuckDB's storage: row groups,
//                  compression), the closest to the suite's joins, which write the pairs out:
//                  CREATE OR REPLACE TEMP TABLE pairs AS SELECT r.rowid, s.rowid FROM r JOIN s ON ...
//   duckdb_agg     the pairs consumed by an aggregate in the join's pipeline, never stored: the
//                  join's own cost, without DuckDB's materialisation:
//                  SELECT count(*), sum(r.rowid), sum(s.rowid), sum(r.rowid * s.rowid) FROM r JOIN s ON ...
// One warm-up, then N timed runs (default 5) each; a record holds every sample, median, min, max
// and spread. Validation: the pairs' count and their sums of rid_R, rid_S and rid_R * rid_S (mod
// 2^64) against the reference's (manifest.json): moments of the multiset, not the pair-for-pair
// compare of the suite's own records. Any problem: one line on stderr, exit 1 (2 for bad usage),
// and no output file.
import { DuckDBInstance, version as duckdbVersion } from '@duckdb/node-api';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

function fail(msg, code = 1) {
  process.stderr.write(`duckdb_join: ${msg}\n`);
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
if (args.length !== 2) fail('usage: node scripts/duckdb/duckdb_join.mjs DIR OUT.json [--runs N] [--threads T]', 2);
const [dir, outPath] = args;

let manifest;
try {
  manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
} catch (e) {
  fail(`${dir}/manifest.json: ${e.message}`, 2);
}
if (manifest.study !== 'join') fail(`${dir}/manifest.json: inputs of study '${manifest.study}', not join`, 2);

const M64 = 1n << 64n;
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

const instance = await DuckDBInstance.create(':memory:', { threads: String(threads) });
const con = await instance.connect();
const records = [];
for (const pt of manifest.points) {
  const inp = pt.inputs;
  const type = inp.key === 'int64' ? 'BIGINT' : 'INTEGER';
  const load = async (table, file) =>
    con.run(`CREATE OR REPLACE TABLE ${table} AS SELECT key FROM read_csv(${sqlPath(path.join(dir, pt.dir, file))}, ` +
            `header = false, columns = {'key': '${type}'})`);
  await load('r', inp.r_file);
  await load('s', inp.s_file);
  const pred = Number(inp.band) === 0 ? 'r.key = s.key' : `abs(r.key::HUGEINT - s.key::HUGEINT) <= ${inp.band}`;
  const moments = (rr, ss) =>
    `count(*), coalesce(sum(${rr}::HUGEINT), 0), coalesce(sum(${ss}::HUGEINT), 0), coalesce(sum(${rr}::HUGEINT * ${ss}), 0)`;
  const want = [inp.pairs, inp.sum_r, inp.sum_s, inp.sum_rs].map((v) => BigInt(v));
  const names = ['pairs', 'sum of rid_R', 'sum of rid_S', 'sum of rid_R * rid_S'];
  const timed = async (variant, sql, readBack) => {
    const samples = [];
    let last = null;
    for (let i = 0; i <= runs; ++i) {
      const t0 = process.hrtime.bigint();
      last = await con.runAndReadAll(sql);
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (i > 0) samples.push(ms);  // run 0 warms the tables and the plan
    }
    const got = (await readBack(last)).map((v) => BigInt(v));
    const bad = got.map((g, k) => (((g % M64) + M64) % M64 === want[k] ? null : `${names[k]}: ${g}, expected ${want[k]}`)).filter(Boolean);
    const med = median(samples);
    records.push({
      GBps: inp.bytes / (med * 1e6),
      fraction_of_copy_ceiling: null,
      kind: 'cpu',
      metrics: { duckdb: duckdbVersion(), threads, pairs: Number(got[0]), validated_by: 'count and moments (sums of rid_R, rid_S, rid_R*rid_S)' },
      note: bad.length ? bad[0] : '',
      ns_per_input: (med * 1e6) / (Number(inp.r) + Number(inp.s)),
      params: pt.params,
      status: 'ok',
      study: 'join',
      time_ms: { count: samples.length, max: Math.max(...samples), median: med, min: Math.min(...samples), samples, stddev: stddev(samples) },
      validation: bad.length ? 'fail' : 'pass',
      variant,
    });
    process.stdout.write(`${variant} ${JSON.stringify(pt.params)}: ${med.toFixed(3)} ms, ${bad.length ? 'FAIL ' + bad[0] : 'pass'}\n`);
  };
  await timed('duckdb', `CREATE OR REPLACE TEMP TABLE pairs AS SELECT r.rowid AS rid_r, s.rowid AS rid_s FROM r JOIN s ON ${pred}`,
              async () => (await con.runAndReadAll(`SELECT ${moments('rid_r', 'rid_s')} FROM pairs`)).getRows()[0]);
  await con.run('DROP TABLE pairs');
  await timed('duckdb_agg', `SELECT ${moments('r.rowid', 's.rowid')} FROM r JOIN s ON ${pred}`, async (res) => res.getRows()[0]);
}

const doc = {
  schema_version: 1,
  meta: {
    study: 'join',
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    command: ['node', ...process.argv.slice(1)].join(' '),
    tool: `DuckDB ${duckdbVersion()} through @duckdb/node-api, node ${process.version}`,
    host: { cores: os.cpus().length, cpu: os.cpus()[0]?.model ?? 'unknown' },
    seed: manifest.seed,
    config: manifest.config,
    variants: ['duckdb', 'duckdb_agg'],
    repetitions: { warmup: 1, min: runs, max: runs },
    validate: true,
    gpu: { present: false },
  },
  ceilings: {},
  records,
};
const tmp = `${outPath}.partial`;
fs.mkdirSync(path.dirname(path.resolve(outPath)), { recursive: true });
fs.writeFileSync(tmp, JSON.stringify(doc, null, 1) + '\n');
fs.renameSync(tmp, outPath);
process.stdout.write(`results: ${outPath}\n`);
process.exit(records.some((r) => r.validation !== 'pass') ? 1 : 0);
