// The join study's DuckDB statements, run by duckdb_anchor.mjs on the relations that
// `bench join --config C --dump-inputs DIR` dumped.
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
// Validation: the pairs' count and their sums of rid_R, rid_S and rid_R * rid_S (mod 2^64) against
// the reference's (the manifest's inputs pairs, sum_r, sum_s, sum_rs): moments of the multiset, not
// the pair-for-pair compare of the suite's own records.
import path from 'node:path';

export const variants = ['duckdb', 'duckdb_agg'];

const M64 = 1n << 64n;
const NAMES = ['pairs', 'sum of rid_R', 'sum of rid_S', 'sum of rid_R * rid_S'];
const VALIDATED_BY = 'count and moments (sums of rid_R, rid_S, rid_R*rid_S)';

export async function run(pt, { con, dir, sqlPath, time, emit }) {
  const inp = pt.inputs;
  const type = inp.key === 'int64' ? 'BIGINT' : 'INTEGER';
  const load = async (table, file) =>
    con.run(`CREATE OR REPLACE TABLE ${table} AS SELECT key FROM read_csv(${sqlPath(path.join(dir, file))}, ` +
            `header = false, columns = {'key': '${type}'})`);
  await load('r', inp.r_file);
  await load('s', inp.s_file);
  const pred = Number(inp.band) === 0 ? 'r.key = s.key' : `abs(r.key::HUGEINT - s.key::HUGEINT) <= ${inp.band}`;
  const moments = (rr, ss) =>
    `count(*), coalesce(sum(${rr}::HUGEINT), 0), coalesce(sum(${ss}::HUGEINT), 0), coalesce(sum(${rr}::HUGEINT * ${ss}), 0)`;
  const want = [inp.pairs, inp.sum_r, inp.sum_s, inp.sum_rs].map((v) => BigInt(v));
  const size = { bytes: inp.bytes, inputs: Number(inp.r) + Number(inp.s) };
  const check = (variant, samples, row) => {
    const got = row.map((v) => BigInt(v));
    const problems = got.map((g, k) => (((g % M64) + M64) % M64 === want[k] ? null : `${NAMES[k]}: ${g}, expected ${want[k]}`)).filter(Boolean);
    emit({ variant, samples, metrics: { pairs: Number(got[0]), validated_by: VALIDATED_BY }, problems, ...size });
  };

  const mat = await time(`CREATE OR REPLACE TEMP TABLE pairs AS SELECT r.rowid AS rid_r, s.rowid AS rid_s FROM r JOIN s ON ${pred}`);
  check('duckdb', mat.samples, (await con.runAndReadAll(`SELECT ${moments('rid_r', 'rid_s')} FROM pairs`)).getRows()[0]);
  await con.run('DROP TABLE pairs');
  const agg = await time(`SELECT ${moments('r.rowid', 's.rowid')} FROM r JOIN s ON ${pred}`);
  check('duckdb_agg', agg.samples, agg.result.getRows()[0]);
}
