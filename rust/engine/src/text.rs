//! Text lines of columns, for `cranfield.core.io.trec.delimited_lines`: the TREC
//! writers' join of string columns (Arrow formats the numbers), in one pass; and the
//! JSON text of the items of a float array, for `cranfield.output.json_texts`.

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
    m.add_function(wrap_pyfunction!(json_float_items, m)?)?;
    Ok(())
}

/// The JSON text of each item of a float64 array along its first axis, items joined by
/// `"\n"` (which no item holds): a number as Python's `repr` (and so `json.dumps`)
/// writes it, a non-finite one as `null`, an item of shape `item_shape` as nested lists
/// `[a, b]`, as `json.dumps` lays them out. `values` is the array's elements in C order.
#[pyfunction]
fn json_float_items<'py>(
    py: Python<'py>,
    values: PyReadonlyArray1<'py, f64>,
    item_shape: Vec<usize>,
) -> PyResult<Bound<'py, pyo3::types::PyString>> {
    let values = values.as_slice()?;
    let per_item: usize = item_shape.iter().product();
    if per_item == 0 || values.len() % per_item != 0 {
        return Err(PyValueError::new_err(
            "json_float_items: items of no element, or a ragged array",
        ));
    }
    let text = py.detach(|| {
        let mut out = Vec::with_capacity(values.len() * 20);
        for (i, item) in values.chunks(per_item).enumerate() {
            if i > 0 {
                out.push(b'\n');
            }
            push_nested(&mut out, item, &item_shape);
        }
        out
    });
    // only ASCII digits, signs, points, letters of `e` and `null`, brackets, commas
    let text = std::str::from_utf8(&text).expect("ASCII");
    Ok(pyo3::types::PyString::new(py, text))
}

/// `item` (of `shape`) as JSON: a number, or a list of its sub-items.
fn push_nested(out: &mut Vec<u8>, item: &[f64], shape: &[usize]) {
    match shape.split_first() {
        None => {
            if item[0].is_finite() {
                cranfield_ltr::model_text::push_repr(out, item[0]);
            } else {
                out.extend_from_slice(b"null");
            }
        }
        Some((_, inner)) => {
            let per: usize = inner.iter().product();
            out.push(b'[');
            for (j, sub) in item.chunks(per).enumerate() {
                if j > 0 {
                    out.extend_from_slice(b", ");
                }
                push_nested(out, sub, inner);
            }
            out.push(b']');
        }
    }
}
