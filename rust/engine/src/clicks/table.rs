//! Click logs held as a table (CSV, TSV, Parquet, Arrow, read by Arrow): one session a
//! row, each named column given as Arrow buffers of strings (numbers cast to their
//! text), a list column with its list offsets.

use std::borrow::Cow;

use super::record::{Record, Refusal, Sessions};
use super::value::{parse_float, strip, Value};

/// What the strings of a column were before they were cast to text.
#[derive(Clone, Copy, PartialEq)]
pub enum Kind {
    Str,
    Int,
    Float,
    Bool,
}

impl Kind {
    pub fn of(code: &str) -> Option<Kind> {
        Some(match code {
            "s" => Kind::Str,
            "i" => Kind::Int,
            "f" => Kind::Float,
            "b" => Kind::Bool,
            _ => return None,
        })
    }
}

/// One column: strings (`offsets`, `data`, `valid`), one a row, or, with `lists`
/// (offsets into the strings, one more than rows, and the rows' validity), a list a row.
pub struct Column<'a> {
    pub name: String,
    pub kind: Kind,
    pub lists: Option<(&'a [i64], Option<&'a [bool]>)>,
    pub offsets: &'a [i64],
    pub data: &'a [u8],
    pub valid: Option<&'a [bool]>,
}

impl<'a> Column<'a> {
    /// The columns' buffers checked: offsets in bounds and non-decreasing, text UTF-8.
    pub fn check(&self, rows: usize) -> Result<(), String> {
        let n = self.offsets.len().saturating_sub(1);
        let ok = !self.offsets.is_empty()
            && self.offsets.windows(2).all(|w| w[0] <= w[1])
            && self.offsets[0] >= 0
            && self.offsets[n] as u64 <= self.data.len() as u64
            && self.valid.map_or(true, |v| v.len() == n)
            && match self.lists {
                None => n == rows,
                Some((l, valid)) => {
                    l.len() == rows + 1
                        && l.windows(2).all(|w| w[0] <= w[1])
                        && l[0] >= 0
                        && l[rows] as u64 <= n as u64
                        && valid.map_or(true, |v| v.len() == rows)
                }
            };
        if !ok {
            return Err(format!("malformed column {:?}", self.name));
        }
        std::str::from_utf8(self.data)
            .map_err(|_| format!("column {:?} is not UTF-8", self.name))?;
        Ok(())
    }

    fn item(&self, i: usize, blank_is_null: bool) -> Value<'a> {
        if self.valid.is_some_and(|v| !v[i]) {
            return Value::Null;
        }
        let bytes = &self.data[self.offsets[i] as usize..self.offsets[i + 1] as usize];
        // checked as UTF-8 as a whole by `check`, and offsets of Arrow strings fall
        // between characters
        let text = std::str::from_utf8(bytes).unwrap_or("");
        match self.kind {
            Kind::Str if blank_is_null && strip(text).is_empty() => Value::Null,
            Kind::Str => Value::Str(Cow::Borrowed(text)),
            Kind::Int => Value::Int(Cow::Borrowed(text)),
            Kind::Float => Value::Float(parse_float(text).unwrap_or(f64::NAN)),
            Kind::Bool => Value::Bool(text == "true"),
        }
    }

    fn cell(&self, row: usize, blank_is_null: bool) -> Value<'a> {
        match self.lists {
            None => self.item(row, blank_is_null),
            Some((_, Some(valid))) if !valid[row] => Value::Null,
            Some((lists, _)) => Value::List(
                (lists[row] as usize..lists[row + 1] as usize)
                    .map(|i| self.item(i, false))
                    .collect(),
            ),
        }
    }
}

struct Row<'a> {
    names: &'a [&'a str],
    cells: Vec<Value<'a>>,
}

impl<'a> Record<'a> for Row<'a> {
    fn get(&self, key: &str) -> Option<&Value<'a>> {
        // the last of repeated column names, as a Python dict of the row keeps it
        self.names.iter().rposition(|n| *n == key).map(|i| &self.cells[i])
    }
}

/// Every row a session; `text` (a CSV or TSV file): blank cells are missing, and an
/// empty `clicked` cell with no `clicks` is a session without clicks. A refusal names
/// the 0-based row.
pub fn read(
    columns: &[Column<'_>],
    rows: usize,
    text: bool,
    out: &mut Sessions,
) -> Result<(), (usize, Refusal)> {
    let names: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
    let clicked = names.iter().rposition(|n| *n == "clicked");
    for row in 0..rows {
        let mut rec =
            Row { names: &names, cells: columns.iter().map(|c| c.cell(row, text)).collect() };
        if let Some(at) = clicked {
            if text && rec.cells[at].is_null() && rec.get("clicks").map_or(true, Value::is_null) {
                rec.cells[at] = Value::List(Vec::new());
            }
        }
        out.record(&rec).map_err(|e| (row, e))?;
    }
    Ok(())
}
