//! `synapse_bm25`: BM25 over the full-text indexes with statistics the caller supplies.
//!
//! FTS5's own `bm25()` weighs each term by how many rows of the whole table hold it and
//! normalizes lengths by the whole table's average, so what one project holds would change how
//! another's memories score. This function takes those statistics as arguments instead, counted
//! within the scope (`search`), and reads from FTS5 only what belongs to the row being scored:
//! where the query's phrases occur in it and how long it is.
//!
//! Called as `synapse_bm25(table, avgdl, w_0 .. w_c-1, idf_0 .. idf_p-1)`: the average row
//! length in tokens, one weight per column of the table, and one weight (an IDF) per phrase of
//! the MATCH expression, in the order they appear in it; a missing weight is 0. Like `bm25()` it
//! returns the negated score, so better rows sort first in ascending order.
//!
//! The formula is FTS5's (k1 = 1.2, b = 0.75): for each phrase, its frequency in the row (each
//! occurrence counting its column's weight) saturated by the row's length relative to the average.

use std::ffi::{c_int, c_void};
use std::ptr;

use anyhow::{bail, Result};
use rusqlite::{ffi, Connection};

const K1: f64 = 1.2;
const B: f64 = 0.75;
/// More columns or phrases than this in one call are an error: the indexes have three columns
/// and recall asks for at most a few dozen phrases.
const MAX_WEIGHTS: usize = 256;

/// Make `synapse_bm25` available on `conn`. Each connection needs it once.
pub(crate) fn register(conn: &Connection) -> Result<()> {
    // SAFETY: the handle is live for the duration of `conn`'s borrow; the statement is
    // finalized on every path; `fts5_api_ptr` is the documented way to reach FTS5's API, and the
    // pointer it fills in lives as long as the connection.
    unsafe {
        let db = conn.handle();
        let mut stmt: *mut ffi::sqlite3_stmt = ptr::null_mut();
        let sql = c"SELECT fts5(?1)";
        let rc = ffi::sqlite3_prepare_v2(db, sql.as_ptr(), -1, &mut stmt, ptr::null_mut());
        if rc != ffi::SQLITE_OK {
            bail!("could not reach SQLite's full-text search (code {rc})");
        }
        let mut api: *mut ffi::fts5_api = ptr::null_mut();
        ffi::sqlite3_bind_pointer(
            stmt,
            1,
            (&mut api as *mut *mut ffi::fts5_api).cast::<c_void>(),
            c"fts5_api_ptr".as_ptr(),
            None,
        );
        ffi::sqlite3_step(stmt);
        ffi::sqlite3_finalize(stmt);
        let create = match api.as_ref().and_then(|a| a.xCreateFunction) {
            Some(create) if (*api).iVersion >= 2 => create,
            _ => bail!("this SQLite has no usable full-text search"),
        };
        let rc = create(
            api,
            c"synapse_bm25".as_ptr(),
            ptr::null_mut(),
            Some(synapse_bm25),
            None,
        );
        if rc != ffi::SQLITE_OK {
            bail!("could not register synapse_bm25 (code {rc})");
        }
    }
    Ok(())
}

/// The FTS5 auxiliary function. It never unwinds: every failure is an SQLite error result.
unsafe extern "C" fn synapse_bm25(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    ctx: *mut ffi::sqlite3_context,
    n_args: c_int,
    args: *mut *mut ffi::sqlite3_value,
) {
    match score(api, fts, n_args, args) {
        Ok(score) => ffi::sqlite3_result_double(ctx, -score),
        Err(rc) => ffi::sqlite3_result_error_code(ctx, rc),
    }
}

/// The row's BM25 score, or an SQLite result code.
unsafe fn score(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    n_args: c_int,
    args: *mut *mut ffi::sqlite3_value,
) -> Result<f64, c_int> {
    let api = api.as_ref().ok_or(ffi::SQLITE_MISUSE)?;
    let (Some(columns), Some(phrases), Some(size), Some(count), Some(inst)) = (
        api.xColumnCount,
        api.xPhraseCount,
        api.xColumnSize,
        api.xInstCount,
        api.xInst,
    ) else {
        return Err(ffi::SQLITE_MISUSE);
    };
    let args: &[*mut ffi::sqlite3_value] = match usize::try_from(n_args) {
        Ok(n) if n > 0 && !args.is_null() => std::slice::from_raw_parts(args, n),
        _ => &[],
    };
    let arg = |i: usize| args.get(i).map_or(0.0, |&v| ffi::sqlite3_value_double(v));
    let n_columns = usize::try_from(columns(fts)).map_err(|_| ffi::SQLITE_ERROR)?;
    let n_phrases = usize::try_from(phrases(fts)).map_err(|_| ffi::SQLITE_ERROR)?;
    if n_columns > MAX_WEIGHTS || n_phrases > MAX_WEIGHTS {
        return Err(ffi::SQLITE_TOOBIG);
    }
    let avgdl = arg(0).max(1.0);
    let column_weight = |c: c_int| usize::try_from(c).map_or(0.0, |c| arg(1 + c));
    let idf = |p: usize| arg(1 + n_columns + p);

    let mut freq = vec![0.0f64; n_phrases];
    let mut n_inst: c_int = 0;
    check(count(fts, &mut n_inst))?;
    for i in 0..n_inst {
        let (mut phrase, mut column, mut offset) = (0, 0, 0);
        check(inst(fts, i, &mut phrase, &mut column, &mut offset))?;
        if let Some(f) = usize::try_from(phrase).ok().and_then(|p| freq.get_mut(p)) {
            *f += column_weight(column);
        }
    }
    let mut tokens: c_int = 0;
    check(size(fts, -1, &mut tokens))?;
    let norm = K1 * (1.0 - B + B * f64::from(tokens) / avgdl);
    Ok(freq
        .iter()
        .enumerate()
        .map(|(p, &f)| idf(p) * f * (K1 + 1.0) / (f + norm))
        .sum())
}

fn check(rc: c_int) -> Result<(), c_int> {
    if rc == ffi::SQLITE_OK {
        Ok(())
    } else {
        Err(rc)
    }
}

/// The IDF FTS5 gives a phrase that `hits` of `rows` rows hold, floored just above zero.
/// `hits` may be fractional: recall smooths its counts (`recall::lanes::smoothed_df`).
pub fn idf(rows: i64, hits: f64) -> f64 {
    let n = (rows as f64).max(hits);
    ((n - hits + 0.5) / (hits + 0.5)).ln().max(1e-6)
}
