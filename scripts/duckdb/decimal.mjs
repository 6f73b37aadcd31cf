// The decimal study's DuckDB statements, run by duckdb_anchor.mjs on the sales rows that
// `bench decimal --config C --dump-inputs DIR` dumped: per product, sum(price × quantity) in
// DECIMAL(38, s), DuckDB's HUGEINT-backed decimal.
//
// Per point: sales.csv (lines `product,price,quantity`, no header) is loaded into
// sales(product INTEGER, price DECIMAL(p, s), quantity INTEGER), p and s the manifest's
// price_precision and price_scale. The price is cast to DECIMAL(38, s) before the product: DuckDB
// types DECIMAL(11,2) × INTEGER as DECIMAL(18,2), 64-bit, which a large price times a large quantity
// overflows (an error), where Spark's rule gives decimal(22,2), 128-bit; the product and the total
// are then DECIMAL(38, s), checked (metrics.product_type, metrics.total_type). Two statements are
// timed, each wrapped in the same outer query, so that only the m per-product totals leave the group-by
// and one row of their moments comes back:
//   duckdb         the group-by:
//                  SELECT product, sum(price * quantity) AS total FROM sales GROUP BY product
//   duckdb_window  the article's plan: the total as a window sum over the product's rows, then its
//                  minimum per product:
//                  SELECT product, min(total) AS total FROM (SELECT product,
//                    sum(price * quantity) OVER (PARTITION BY product) AS total FROM sales) GROUP BY product
//   outer          SELECT count(*), sum(total), min(total), max(total),
//                    sum((product + 1)::HUGEINT * ((total * 10^s)::HUGEINT % 1000000007)) FROM (...)
//                  (10^s written as an integer literal: DuckDB's ^ is a DOUBLE; % truncates, as C's)
// Validation, exact (unscaled BigInts, never doubles): the number of groups, the sum, minimum and
// maximum of the totals and the moment sum over p of (p + 1) * (U(p) mod 1000000007), U(p) the total
// times 10^s, against the manifest's groups, sum_total, min_total, max_total and moment.
import path from 'node:path';

export const variants = ['duckdb', 'duckdb_window'];

const MOD = '1000000007';
const VALIDATED_BY = `groups, sum, min and max of the totals, sum of (product + 1) * (unscaled total mod ${MOD}); exact`;

// The unscaled integer of an exact decimal text ("-1234.56") at `scale` digits; throws on anything
// else, or on a fraction that the scale cannot hold.
export function unscaled(text, scale) {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(String(text).trim());
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) throw new Error(`'${text}' is not a decimal number`);
  let frac = m[3] ?? '';
  if (frac.length > scale) {
    if (/[^0]/.test(frac.slice(scale))) throw new Error(`'${text}' has more than ${scale} fractional digits`);
    frac = frac.slice(0, scale);
  }
  const v = BigInt((m[2] || '0') + frac.padEnd(scale, '0'));
  return m[1] === '-' ? -v : v;
}

// A DuckDB DECIMAL value (DuckDBDecimalValue: value / 10^scale) as an unscaled BigInt at `scale`.
function decimalAt(v, scale) {
  if (v === null || v === undefined) return null;
  if (typeof v === 'object' && typeof v.value === 'bigint' && Number.isInteger(v.scale)) {
    if (v.scale <= scale) return v.value * 10n ** BigInt(scale - v.scale);
    const d = 10n ** BigInt(v.scale - scale);
    if (v.value % d !== 0n) throw new Error(`DuckDB's ${v} has more than ${scale} fractional digits`);
    return v.value / d;
  }
  return unscaled(String(v), scale);
}

const text = (u, scale) => {  // an unscaled BigInt as decimal text, for the messages
  if (u === null) return 'NULL';
  const neg = u < 0n;
  const digits = (neg ? -u : u).toString().padStart(scale + 1, '0');
  return (neg ? '-' : '') + (scale ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits);
};

// What in a point's inputs the statements need, checked for every point before DuckDB starts: a
// complaint (the driver's exit 2) or null.
export function check(pt) {
  const inp = pt.inputs;
  const p = Number(inp.price_precision);
  const s = Number(inp.price_scale);
  if (!Number.isInteger(p) || p < 1 || p > 38 || !Number.isInteger(s) || s < 0 || s > p)
    return `price_precision ${inp.price_precision} and price_scale ${inp.price_scale}: expected 1 <= precision <= 38, 0 <= scale <= precision`;
  if (inp.type !== 'decimal128') return `type '${inp.type}': the DuckDB anchor runs decimal128 only`;
  for (const k of ['file', 'rows', 'groups', 'sum_total', 'min_total', 'max_total', 'moment', 'bytes', 'inputs'])
    if (inp[k] === undefined || inp[k] === null) return `'${k}' missing`;
  try {
    wanted(inp, s);
  } catch (e) {
    return e.message;
  }
  return null;
}

const wanted = (inp, s) => [BigInt(inp.groups), unscaled(inp.sum_total, s), unscaled(inp.min_total, s), unscaled(inp.max_total, s), BigInt(inp.moment)];

export async function run(pt, { con, dir, sqlPath, time, emit }) {
  const inp = pt.inputs;
  const p = Number(inp.price_precision);
  const s = Number(inp.price_scale);
  const want = wanted(inp, s);
  const rows = Number(inp.rows);

  await con.run(`CREATE OR REPLACE TABLE sales AS SELECT * FROM read_csv(${sqlPath(path.join(dir, inp.file))}, header = false, delim = ',', ` +
                `columns = {'product': 'INTEGER', 'price': 'DECIMAL(${p}, ${s})', 'quantity': 'INTEGER'})`);
  const loaded = Number((await con.runAndReadAll('SELECT count(*) FROM sales')).getRows()[0][0]);
  if (loaded !== rows) throw new Error(`${pt.dir}/${inp.file}: ${loaded} rows, the manifest says ${rows}`);

  const product = `price::DECIMAL(38, ${s}) * quantity`;
  const groupBy = `SELECT product, sum(${product}) AS total FROM sales GROUP BY product`;
  const window = `SELECT product, min(total) AS total FROM (SELECT product, sum(${product}) OVER (PARTITION BY product) AS total FROM sales) GROUP BY product`;
  const moments = (inner) =>
    `SELECT count(*), sum(total), min(total), max(total), sum((product + 1)::HUGEINT * ((total * 1${'0'.repeat(s)})::HUGEINT % ${MOD})) FROM (${inner})`;
  const typeOf = async (sql, column) => {  // the column's type, without running the query
    const r = (await con.runAndReadAll(`DESCRIBE ${sql}`)).getRowObjects();
    return String(r.find((c) => c.column_name === column)?.column_type);
  };
  const want38 = `DECIMAL(38,${s})`;
  const productType = await typeOf(`SELECT ${product} AS x FROM sales`, 'x');
  if (productType !== want38) throw new Error(`DuckDB types price * quantity as ${productType}, not ${want38}`);

  const names = ['groups', 'sum of the totals', 'min of the totals', 'max of the totals', 'moment'];
  for (const [variant, inner] of [['duckdb', groupBy], ['duckdb_window', window]]) {
    const totalType = await typeOf(inner, 'total');
    if (totalType !== want38) throw new Error(`${variant}: DuckDB types the total as ${totalType}, not ${want38}`);
    const { samples, result } = await time(moments(inner));
    const row = result.getRows()[0];
    const got = [BigInt(row[0]), decimalAt(row[1], s), decimalAt(row[2], s), decimalAt(row[3], s), row[4] === null ? null : BigInt(row[4])];
    const problems = got.map((g, k) => {
      if (g === want[k]) return null;
      const show = (v) => (k >= 1 && k <= 3 ? text(v, s) : String(v));
      return `${names[k]}: ${show(g)}, expected ${show(want[k])}`;
    }).filter(Boolean);
    emit({ variant, samples, metrics: { groups: Number(got[0]), total_type: totalType, product_type: productType, validated_by: VALIDATED_BY },
           problems, bytes: inp.bytes, inputs: inp.inputs });
  }
}
