//! Text lines of columns, for `cranfield.core.io.trec.delimited_lines`: the TREC
//! writers' join of string columns (Arrow formats the numbers), in one pass.

use numpy::PyReadonlyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// One column: the same bytes on every line, or a `large_string` array's offsets
/// (`rows + 1`, sliced to its rows) and data.
enum Column<'py> {
    Constant(Vec<u8>),
    Strings(PyReadonlyArray1<'py, i64>, PyReadonlyArray1<'py, u8>),
}

/// A column's fields: a string column's (offsets, data), or the constant's bytes.
type Field<'a> = (Option<(&'a [i64], &'a [u8])>, &'a [u8]);

/// The column's (offsets, data) slices, checked: offsets non-decreasing within data.
fn strings<'a>(offsets: &'a [i64], data: &'a [u8], rows: usize) -> PyResult<(&'a [i64], &'a [u8])> {
    let ok = offsets.len() == rows + 1
        && offsets.windows(2).all(|w| w[0] <= w[1])
        && offsets.first().is_some_and(|&f| f >= 0)
        && offsets.last().is_some_and(|&l| l as u64 <= data.len() as u64);
    if !ok {
        return Err(PyValueError::new_err("malformed string column"));
    }
    Ok((offsets, data))
}

/// The lines `c1 SEP c2 SEP ... cn \n` of `rows` rows: each column `bytes` (a constant)
/// or `(offsets int64, data uint8)`.
#[pyfunction]
fn join_lines<'py>(
    py: Python<'py>,
    columns: Vec<Bound<'py, PyAny>>,
    separator: &[u8],
    rows: usize,
) -> PyResult<Bound<'py, PyBytes>> {
    let mut held = Vec::with_capacity(columns.len());
    for column in &columns {
        if let Ok(bytes) = column.cast::<PyBytes>() {
            held.push(Column::Constant(bytes.as_bytes().to_vec()));
        } else {
            let (offsets, data): (PyReadonlyArray1<i64>, PyReadonlyArray1<u8>) =
                column.extract()?;
            held.push(Column::Strings(offsets, data));
        }
    }
    let mut parts: Vec<Field<'_>> = Vec::with_capacity(held.len());
    for column in &held {
        parts.push(match column {
            Column::Constant(bytes) => (None, bytes.as_slice()),
            Column::Strings(o, d) => {
                let o =
                    o.as_slice().map_err(|_| PyValueError::new_err("offsets not contiguous"))?;
                let d = d.as_slice().map_err(|_| PyValueError::new_err("data not contiguous"))?;
                (Some(strings(o, d, rows)?), &[][..])
            }
        });
    }
    if parts.is_empty() || rows == 0 {
        return Ok(PyBytes::new(py, b""));
    }
    let mut size = rows as u64 * (separator.len() as u64 * (parts.len() as u64 - 1) + 1);
    for (strings, constant) in &parts {
        size += match strings {
            Some((o, _)) => (o[rows] - o[0]) as u64,
            None => constant.len() as u64 * rows as u64,
        };
    }
    let size = usize::try_from(size).map_err(|_| PyValueError::new_err("output too large"))?;
    PyBytes::new_with(py, size, |out: &mut [u8]| {
        let mut at = 0;
        for row in 0..rows {
            for (i, (strings, constant)) in parts.iter().enumerate() {
                if i > 0 {
                    out[at..at + separator.len()].copy_from_slice(separator);
                    at += separator.len();
                }
                let field = match strings {
                    Some((o, d)) => &d[o[row] as usize..o[row + 1] as usize],
                    None => constant,
                };
                out[at..at + field.len()].copy_from_slice(field);
                at += field.len();
            }
            out[at] = b'\n';
            at += 1;
        }
        Ok(())
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(join_lines, m)?)?;
    Ok(())
}
