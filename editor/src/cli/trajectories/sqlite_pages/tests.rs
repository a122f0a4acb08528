//! Databases whose big table and index were written as pages, checked by SQLite itself:
//! `PRAGMA integrity_check` (page structure, key order, every row's index entry), every value
//! read back bit for bit, a query answered through the index, and SQLite writing more rows
//! into the file afterwards. 512-byte pages give trees three and four levels deep from a few
//! thousand rows.

use std::path::Path;

use rusqlite::Connection;

use super::{BulkTable, Value};

const SCHEMA: &str = "
    PRAGMA journal_mode = OFF;
    CREATE TABLE t(a INTEGER NOT NULL, b INTEGER NOT NULL, x REAL NOT NULL, s TEXT NOT NULL,
                   big INTEGER NOT NULL);
    CREATE TABLE other(k TEXT);
    CREATE INDEX t_ab ON t(a, b);
";

/// One test row: `(a, b, x, s, big)`.
type Row = (i64, i64, f64, String, i64);

/// Row `i`: rows of 23 share an `a` (a "frame") with `b` out of order and repeated.
fn row(i: i64) -> Row {
    let texts = ["walking", "waiting", "ärger", ""];
    (
        i / 23,
        (i * 13) % 7 - 3,
        (i as f64 * 0.37).sin() * 1e3 + f64::from(i as i32) * 1e-9,
        texts[(i % 4) as usize].to_owned(),
        i.wrapping_mul(0x1234_5678_9abc) ^ (i << 40),
    )
}

/// Creates the database with SQLite; the roots of `t` and `t_ab`.
fn create(path: &Path, page_size: u32) -> (u32, u32) {
    let db = Connection::open(path).expect("opens");
    db.execute_batch(&format!("PRAGMA page_size = {page_size};{SCHEMA}"))
        .expect("schema");
    db.execute("INSERT INTO other VALUES ('before')", [])
        .expect("a row");
    let root = |name: &str| {
        db.query_row(
            "SELECT rootpage FROM sqlite_schema WHERE name = ?1",
            [name],
            |r| r.get(0),
        )
        .expect("root")
    };
    let roots = (root("t"), root("t_ab"));
    db.close().expect("closes");
    roots
}

/// Writes rows `0..n` as pages, index keys sorted per `a`.
fn write(path: &Path, roots: (u32, u32), n: i64) {
    let mut bulk = BulkTable::open(path, roots.0, roots.1).expect("opens");
    let mut keys = Vec::new();
    for i in 0..n {
        let (a, b, x, s, big) = row(i);
        let values = [
            Value::Integer(a),
            Value::Integer(b),
            Value::Real(x),
            Value::Text(&s),
            Value::Integer(big),
        ];
        let rowid = bulk.push_row(&values).expect("a row");
        assert_eq!(rowid, i + 1);
        keys.push((a, b, rowid));
        if i + 1 == n || row(i + 1).0 != a {
            keys.sort();
            for &(a, b, rowid) in &keys {
                bulk.push_index_key(&[a, b], rowid).expect("a key");
            }
            keys.clear();
        }
    }
    bulk.finish().expect("finishes").sync_all().expect("synced");
}

/// Levels of the tree at `root`, following right-most children.
fn depth(path: &Path, page_size: usize, root: u32) -> usize {
    let bytes = std::fs::read(path).expect("reads");
    let mut page = root as usize;
    let mut levels = 1;
    while matches!(bytes[(page - 1) * page_size], 0x02 | 0x05) {
        let at = (page - 1) * page_size + 8;
        page = u32::from_be_bytes(bytes[at..at + 4].try_into().expect("4 bytes")) as usize;
        levels += 1;
    }
    levels
}

fn integrity(db: &Connection) -> String {
    db.query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .expect("checked")
}

/// Checks the database of `n` rows every way; the depths of the table and index trees.
fn check(page_size: u32, n: i64) -> (usize, usize) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("t.db");
    let roots = create(&path, page_size);
    write(&path, roots, n);
    let db = Connection::open(&path).expect("opens");
    assert_eq!(integrity(&db), "ok", "{n} rows");
    let mut query = db
        .prepare("SELECT rowid, a, b, x, s, big FROM t ORDER BY rowid")
        .expect("sql");
    let rows: Vec<(i64, Row)> = query
        .query_map([], |r| {
            Ok((
                r.get(0)?,
                (r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?),
            ))
        })
        .expect("rows")
        .collect::<Result<_, _>>()
        .expect("read");
    assert_eq!(rows.len() as i64, n);
    for (rowid, got) in &rows {
        let want = row(rowid - 1);
        assert_eq!(
            (got.0, got.1, got.2.to_bits(), &got.3, got.4),
            (want.0, want.1, want.2.to_bits(), &want.3, want.4)
        );
    }
    let sizes = (
        depth(&path, page_size as usize, roots.0),
        depth(&path, page_size as usize, roots.1),
    );
    drop(query);
    check_index_query(&db, n);
    // SQLite writes into the file after the pages: its rows and ours stay intact.
    db.execute_batch(
        "INSERT INTO other VALUES ('after'); INSERT INTO t VALUES (-1, 0, 0.5, 'x', 9);",
    )
    .expect("more rows");
    assert_eq!(integrity(&db), "ok");
    let count: i64 = db
        .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
        .expect("count");
    assert_eq!(count, n + 1);
    sizes
}

/// `WHERE a = ? ORDER BY b` uses the index and finds exactly that group's rows in key order.
fn check_index_query(db: &Connection, n: i64) {
    let sql = "SELECT b, rowid FROM t WHERE a = ?1 ORDER BY b, rowid";
    let plan: String = db
        .query_row(&format!("EXPLAIN QUERY PLAN {sql}"), [3], |r| r.get(3))
        .expect("plan");
    assert!(plan.contains("USING COVERING INDEX t_ab (a=?)"), "{plan}");
    for a in [0, 3, n / 23, n / 23 + 1] {
        let mut query = db.prepare(sql).expect("sql");
        let got: Vec<(i64, i64)> = query
            .query_map([a], |r| Ok((r.get(0)?, r.get(1)?)))
            .expect("rows")
            .collect::<Result<_, _>>()
            .expect("read");
        let mut want: Vec<(i64, i64)> = (0..n)
            .filter(|&i| row(i).0 == a)
            .map(|i| (row(i).1, i + 1))
            .collect();
        want.sort();
        assert_eq!(got, want, "a = {a}");
    }
}

#[test]
fn empty_single_and_one_page_tables_pass_sqlites_integrity_check() {
    // 16 rows fill a table leaf of 512 bytes, 56 keys an index leaf.
    for n in (0..=40).chain([55, 56, 57, 200]) {
        let want = (1 + usize::from(n > 16), 1 + usize::from(n > 56));
        assert_eq!(check(512, n), want, "{n} rows");
    }
}

#[test]
fn deep_trees_pass_sqlites_integrity_check() {
    assert_eq!(check(512, 5_000), (3, 3));
    assert_eq!(check(512, 100_000), (4, 4));
    assert_eq!(check(4096, 40_000), (2, 2));
    assert_eq!(check(65536, 40_000), (2, 2));
}

#[test]
fn keys_out_of_order_are_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("t.db");
    let roots = create(&path, 512);
    let mut bulk = BulkTable::open(&path, roots.0, roots.1).expect("opens");
    bulk.push_index_key(&[2, 5], 1).expect("first");
    assert!(bulk.push_index_key(&[2, 5], 1).is_err());
    assert!(bulk.push_index_key(&[1, 9], 2).is_err());
    bulk.push_index_key(&[2, 5], 2).expect("a later rowid");
}

#[test]
fn extreme_values_read_back_bit_for_bit() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("t.db");
    let roots = create(&path, 4096);
    let reals = [
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        5e-324,
        f64::MAX,
        3.0,
    ];
    let integers = [i64::MIN, i64::MAX, -1, 0, 1, 1 << 47];
    let mut bulk = BulkTable::open(&path, roots.0, roots.1).expect("opens");
    for (i, (x, n)) in reals.iter().zip(integers).enumerate() {
        let values = [
            Value::Integer(i as i64),
            Value::Integer(n),
            Value::Real(*x),
            Value::Text("ü"),
            Value::Integer(n),
        ];
        let rowid = bulk.push_row(&values).expect("a row");
        bulk.push_index_key(&[i as i64, n], rowid).expect("a key");
    }
    assert!(bulk.push_row(&[Value::Real(f64::NAN)]).is_err());
    bulk.finish().expect("finishes");
    let db = Connection::open(&path).expect("opens");
    assert_eq!(integrity(&db), "ok");
    let mut query = db
        .prepare("SELECT b, x, typeof(x), s FROM t ORDER BY rowid")
        .expect("sql");
    let got: Vec<(i64, u64, String, String)> = query
        .query_map([], |r| {
            Ok((
                r.get(0)?,
                r.get::<_, f64>(1)?.to_bits(),
                r.get(2)?,
                r.get(3)?,
            ))
        })
        .expect("rows")
        .collect::<Result<_, _>>()
        .expect("read");
    let want: Vec<(i64, u64, String, String)> = reals
        .iter()
        .zip(integers)
        .map(|(x, n)| (n, x.to_bits(), "real".to_owned(), "ü".to_owned()))
        .collect();
    assert_eq!(got, want);
}
